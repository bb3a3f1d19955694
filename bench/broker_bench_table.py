"""The markdown table of a bench/run_broker_bench.sh run: python3 bench/broker_bench_table.py RESULTS_FILE"""
import sys

import bench_results

rows = bench_results.load(sys.argv[1])


def pick(**want):
    return bench_results.pick(rows, **want)

med = bench_results.median

def m(field, **want):
    return med(r[field] for r in pick(**want) if field in r)

def per_gb(**want):  # server CPU seconds per 10^9 payload bytes, median over reps
    return med(float(r["server_cpu_s"]) / (float(r["payload_bytes"]) / 1e9) for r in pick(**want))

def ratio(a, b):
    return f"{a / b:.2f}" if b else "n/a"

def fmt(v, digits=0):
    return f"{v:,.{digits}f}"

print(f"{bench_results.env_line(rows)}; medians of {len(pick(phase='server_total', server='weir'))} repetitions\n")

print("| Phase | Weir msgs/s | Weir MB/s | mock msgs/s | mock MB/s | Weir/mock | Weir CPU s/GB | mock CPU s/GB | Weir/mock |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
phases = []
for size in ("100", "1024"):
    for acks in ("1", "all"):
        phases.append((f"produce {size} B acks={acks}", dict(phase="produce", size=size, acks=acks)))
for size, name in (("100", "100 B"), ("1024", "1 KiB")):
    phases.append((f"consume {name}", dict(phase="consume", topic_size=size)))
for r in rows:  # consume lines carry no size: derive it from bytes per message
    if r.get("phase") == "consume":
        r["topic_size"] = "100" if float(r["payload_bytes"]) / float(r["msgs"]) < 500 else "1024"
for label, want in phases:
    w = m("msgs_per_s", server="weir", **want); k = m("msgs_per_s", server="mock", **want)
    wb = m("mb_per_s", server="weir", **want); kb = m("mb_per_s", server="mock", **want)
    wc = per_gb(server="weir", **want); kc = per_gb(server="mock", **want)
    print(f"| {label} | {fmt(w)} | {fmt(wb, 1)} | {fmt(k)} | {fmt(kb, 1)} | {ratio(w, k)} | {fmt(wc, 2)} | {fmt(kc, 2)} | {ratio(wc, kc)} |")

print()
print("| End-to-end latency, 1,000 msg/s x 1 KiB | Weir p50 / p99 / p99.9 ms | mock p50 / p99 / p99.9 ms | Weir CPU s | mock CPU s |")
print("| --- | ---: | ---: | ---: | ---: |")
for label, phase in (("librdkafka defaults (target)", "latency"), ("linger.ms=0 (diagnostic)", "latency_linger0")):
    cells = []
    for server in ("weir", "mock"):
        cells.append(" / ".join(fmt(m(f, phase=phase, server=server), 2) for f in ("p50_ms", "p99_ms", "p999_ms")))
    cpu = [fmt(m("server_cpu_s", phase=phase, server=s), 2) for s in ("weir", "mock")]
    print(f"| {label} | {cells[0]} | {cells[1]} | {cpu[0]} | {cpu[1]} |")

if pick(server="weir-before"):
    print()
    print("| Before and after (same run) | before msgs/s | after msgs/s | after/before | before CPU s/GB | after CPU s/GB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for label, want in phases:
        b_ = m("msgs_per_s", server="weir-before", **want); a_ = m("msgs_per_s", server="weir", **want)
        bc = per_gb(server="weir-before", **want); ac = per_gb(server="weir", **want)
        print(f"| {label} | {fmt(b_)} | {fmt(a_)} | {ratio(a_, b_)} | {fmt(bc, 2)} | {fmt(ac, 2)} |")
    for label, phase in (("latency, defaults: p50 / p99 / p99.9 ms", "latency"),
                         ("latency, linger.ms=0: p50 / p99 / p99.9 ms", "latency_linger0")):
        cells = [" / ".join(fmt(m(f, phase=phase, server=s), 2) for f in ("p50_ms", "p99_ms", "p999_ms"))
                 for s in ("weir-before", "weir")]
        print(f"| {label} | {cells[0]} | {cells[1]} | | | |")

if not pick(phase="startup"):
    sys.exit(0)
print()
print("| Start-up and memory | Weir | mock |")
print("| --- | ---: | ---: |")
print(f"| start-up to first Metadata answer, empty (median ms) | {fmt(m('median_ms', phase='startup', server='weir', case='empty'), 1)} | {fmt(m('median_ms', phase='startup', server='mock', case='empty'), 1)} |")
size = m("bytes", phase="log_size")
print(f"| start-up with {size / 2**30:.2f} GiB of logs after SIGTERM (median ms) | {fmt(m('median_ms', phase='startup', case='sigterm'), 1)} | n/a |")
print(f"| start-up with {size / 2**30:.2f} GiB of logs after SIGKILL (median ms) | {fmt(m('median_ms', phase='startup', case='sigkill'), 1)} | n/a |")
print(f"| idle RSS after start-up (median MB) | {fmt(m('median_idle_rss_kb', phase='startup', server='weir', case='empty') / 1024, 1)} | {fmt(m('median_idle_rss_kb', phase='startup', server='mock', case='empty') / 1024, 1)} |")
print(f"| peak RSS (VmHWM) over one repetition (median MB) | {fmt(m('hwm_kb', phase='server_total', server='weir') / 1024, 1)} | {fmt(m('hwm_kb', phase='server_total', server='mock') / 1024, 1)} |")
print(f"| CPU over one repetition (median s) | {fmt(m('cpu_s', phase='server_total', server='weir'), 1)} | {fmt(m('cpu_s', phase='server_total', server='mock'), 1)} |")
