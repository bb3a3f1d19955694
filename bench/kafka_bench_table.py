"""The markdown tables of a bench/run_kafka_bench.sh run: python3 bench/kafka_bench_table.py RESULTS_FILE"""
import math
import sys

import bench_results

rows = bench_results.load(sys.argv[1])
med = bench_results.median
SERVERS = ("weir", "kafka3", "kafka4")
NAMES = {"weir": "Weir", "kafka3": "Kafka 3.9", "kafka4": "Kafka 4.4"}


def m(field, **want):
    return med(r[field] for r in bench_results.pick(rows, **want) if field in r)


def per_gb(**want):  # broker CPU seconds per 10^9 payload bytes, median over repetitions
    return med(float(r["server_cpu_s"]) / (float(r["payload_bytes"]) / 1e9)
               for r in bench_results.pick(rows, **want) if float(r.get("payload_bytes", 0)) > 0)


def fmt(v, digits=0):
    return "n/a" if math.isnan(v) else f"{v:,.{digits}f}"


def ratio(a, b):
    return "n/a" if math.isnan(a) or math.isnan(b) or not b else f"{a / b:.2f}"


reps = len(bench_results.pick(rows, phase="server_total", server="weir"))
print(f"{bench_results.env_line(rows)}; medians of {reps} repetitions\n")

print("| Phase | client | Weir msgs/s | Kafka 3.9 msgs/s | Kafka 4.4 msgs/s | Weir / 3.9 | Weir / 4.4 "
      "| Weir CPU s/GB | 3.9 CPU s/GB | 4.4 CPU s/GB | Weir / 3.9 | Weir / 4.4 |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
phases = []
for size in ("100", "1024"):
    for acks in ("1", "all"):
        phases.append((f"produce {size} B acks={acks}", dict(phase="produce", size=size, acks=acks)))
for r in rows:  # librdkafka's consume lines carry no size: derive it from bytes per message
    if r.get("phase") == "consume" and "topic_size" not in r:
        r["topic_size"] = "100" if float(r["payload_bytes"]) / float(r["msgs"]) < 500 else "1024"
for size, name in (("100", "100 B"), ("1024", "1 KiB")):
    phases.append((f"consume {name}", dict(phase="consume", topic_size=size)))
for label, want in phases:
    for client in ("librdkafka", "java"):
        t = [m("msgs_per_s", server=s, client=client, **want) for s in SERVERS]
        c = [per_gb(server=s, client=client, **want) for s in SERVERS]
        print(f"| {label} | {client} | {fmt(t[0])} | {fmt(t[1])} | {fmt(t[2])} | {ratio(t[0], t[1])} | {ratio(t[0], t[2])} "
              f"| {fmt(c[0], 2)} | {fmt(c[1], 2)} | {fmt(c[2], 2)} | {ratio(c[0], c[1])} | {ratio(c[0], c[2])} |")

print()
print("| Measure | Weir | Kafka 3.9 | Kafka 4.4 |")
print("| --- | ---: | ---: | ---: |")


def line(label, cells):
    print(f"| {label} | " + " | ".join(cells) + " |")


line("end-to-end latency, 1,000 msg/s x 1 KiB, librdkafka defaults: p50 / p99 / p99.9 ms",
     [" / ".join(fmt(m(f, phase="latency", server=s), 2) for f in ("p50_ms", "p99_ms", "p999_ms")) for s in SERVERS])
line("group join of 10 consumers, 10 partitions (ms to a stable group)",
     [fmt(m("join_ms", phase="join_run", server=s)) for s in SERVERS])
line("start-up to the first Metadata answer, empty (median ms)",
     [fmt(m("median_ms", phase="startup", server=s), 1) for s in SERVERS])
line("idle RSS 5 s after start-up (MB)", [fmt(m("median_idle_rss_kb", phase="startup", server=s) / 1024, 1)
                                          for s in SERVERS])
line("peak RSS over a repetition of the load above (MB)",
     [fmt(m("hwm_kb", phase="server_total", server=s) / 1024, 1) for s in SERVERS])
line("broker CPU over a repetition (s)", [fmt(m("cpu_s", phase="server_total", server=s), 1) for s in SERVERS])
parts = bench_results.pick(rows, phase="scale_create")
if parts:
    n = f"{int(parts[0]['partitions']):,}"
    line(f"create {n} partitions, 10 topics one CreateTopics after the other: answered / every leader known (ms)",
         [f"{fmt(m('answered_ms', phase='scale_create', server=s))} / {fmt(m('ms', phase='scale_create', server=s))}"
          for s in SERVERS])
    line(f"stop with {n} partitions (SIGTERM, s)", [fmt(m("s", phase="scale_stop", server=s), 2) for s in SERVERS])
    line(f"restart with {n} partitions: spawn to every leader known (ms)",
         [fmt(m("ms", phase="scale_restart", server=s)) for s in SERVERS])
    line(f"RSS after the restart with {n} partitions (MB)",
         [fmt(m("rss_kb", phase="scale_rss", server=s) / 1024, 1) for s in SERVERS])
if bench_results.pick(rows, phase="cluster_produce"):
    for size in ("100", "1024"):
        cpu = {s: med(float(c["cpu_s"]) / (float(p["payload_bytes"]) / 1e9)
                      for p in bench_results.pick(rows, phase="cluster_produce", size=size, server=s)
                      for c in bench_results.pick(rows, phase="cluster_cpu", size=size, server=s, rep=p["rep"]))
               for s in SERVERS}
        line(f"3 brokers, RF 3, acks=all, {size} B: msgs/s (CPU s/GB, all three brokers)",
             [f"{fmt(m('msgs_per_s', phase='cluster_produce', size=size, server=s))} ({fmt(cpu[s], 2)})"
              for s in SERVERS])
