"""The markdown table of a bench/run_group_bench.sh run: python3 bench/group_bench_table.py RESULTS_FILE"""
import sys

import bench_results

rows = bench_results.load(sys.argv[1])


def pick(**want):
    return bench_results.pick(rows, **want)

def m(field, **want):
    return bench_results.median(r[field] for r in pick(**want) if field in r)

def f(v, digits=0):
    return f"{v:,.{digits}f}" if v == v else "n/a"

def ratio(a, b):
    return f"{a / b:.2f}" if a == a and b == b and b else ""

def row(label, w, k, digits=0, show_ratio=True):
    wc = w if isinstance(w, str) else f(w, digits)
    kc = k if isinstance(k, str) else f(k, digits)
    r = ratio(w, k) if show_ratio and not isinstance(w, str) and not isinstance(k, str) else ""
    print(f"| {label} | {wc} | {kc} | {r} |")

print(f"{bench_results.env_line(rows)}\n")
print("| Measure | Weir | mock | Weir/mock |")
print("| --- | ---: | ---: | ---: |")

for r in rows:
    r.setdefault("variant", "default")
for variant, desc in (("default", "client defaults"), ("hb100", "heartbeat.interval.ms=100 (diagnostic)")):
    want = dict(phase="join_run", variant=variant)
    n = len(pick(server="weir", **want))
    if not n:
        continue
    row(f"join, {desc}: 10 members to a stable group, median of {n} (ms)", m("join_ms", server="weir", **want),
        m("join_ms", server="mock", **want))
    rng = {}
    for s in ("weir", "mock"):
        rs = [float(r["join_ms"]) for r in pick(server=s, **want)]
        rng[s] = f"{f(min(rs))}-{f(max(rs))}" if rs else "n/a"
    row(f"join, {desc}: min-max (ms)", rng["weir"], rng["mock"])
    stalls = {s: len(pick(phase="join_timeout", server=s, variant=variant)) for s in ("weir", "mock")}
    if any(stalls.values()):
        row(f"join, {desc}: repetitions not stable within 60 s (left out above)", str(stalls["weir"]), str(stalls["mock"]))
for parts in ("1", "100"):
    want = dict(phase="commit", partitions=parts)
    label = f"commit, {parts} partition{'s' if parts != '1' else ''}/request"
    n = len(pick(server="weir", **want))
    row(f"{label}: commits/s, median of {n} x {f(m('seconds', server='weir', **want))} s", m("commits_per_s", server="weir", **want),
        m("commits_per_s", server="mock", **want))
    if parts != "1":
        row(f"{label}: offsets/s", m("offsets_per_s", server="weir", **want), m("offsets_per_s", server="mock", **want))
    lat = {s: f"{f(m('p50_ms', server=s, **want), 2)} / {f(m('p99_ms', server=s, **want), 2)}" for s in ("weir", "mock")}
    row(f"{label}: p50 / p99 latency (ms)", lat["weir"], lat["mock"])
    def cpu_us(server):
        return bench_results.median(float(r["server_cpu_s"]) / float(r["commits"]) * 1e6
                                    for r in pick(server=server, **want))
    row(f"{label}: server CPU per commit (us)", cpu_us("weir"), cpu_us("mock"), 1)
row("memory: RSS growth per 10,000 committed group-partitions (KB)",
    m("kb_per_10k", phase="memory", server="weir"), m("kb_per_10k", phase="memory", server="mock"))
for label in ("distinct", "repeated"):
    fl = pick(phase="fill", case=label)
    if not fl:
        continue
    shape = f"{int(fl[0]['groups']):,} x {int(fl[0]['partitions']):,} x {int(fl[0]['rounds']):,}"
    want = dict(phase="replay_run", case=label)
    row(f"replay {label} ({shape} groups x partitions x rounds): spawn to committed offsets of a group on every "
        f"__consumer_offsets partition (ms)", m("all_probes_ms", **want), "n/a")
    row(f"replay {label}: spawn to listening (ms); Weir's log: started in / slowest partition load (ms)",
        f"{f(m('listen_ms', **want))}; {f(m('started_ms', phase='replay_log', case=label))} / "
        f"{f(m('max_load_ms', phase='replay_log', case=label))}", "n/a")
    row(f"replay {label}: RSS after loading (MB)", m("rss_kb", **want) / 1024, "n/a", 1)
    row(f"replay {label}: __consumer_offsets on disk (MB)", m("bytes", phase="offsets_log", case=label) / 1e6, "n/a", 1)
    row(f"replay {label}: fill rate (offsets/s)", m("offsets_per_s", phase="fill", case=label), "n/a")
