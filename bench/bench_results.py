"""Shared by the bench/*_table.py scripts: the RESULT lines of a run."""
import statistics


def load(path):
    """Every "RESULT k=v k=v ..." line of `path` as a dict."""
    rows = []
    for line in open(path):
        if not line.startswith("RESULT"):
            continue
        d = {}
        for kv in line.split()[1:]:
            k, _, v = kv.partition("=")
            d[k] = v
        rows.append(d)
    return rows


def pick(rows, **want):
    return [r for r in rows if all(r.get(k) == v for k, v in want.items())]


def median(vals):
    vals = [float(v) for v in vals]
    return statistics.median(vals) if vals else float("nan")


def env_line(rows):
    """The machine and load of the run, from its phase=env lines."""
    env = pick(rows, phase="env")
    return (f"nproc {env[0]['nproc']}, CPU {env[0]['cpu'].strip(chr(34)).replace('_', ' ')}, {env[0]['date']}, "
            f"load average at start {env[0]['loadavg_start']}, at end {env[-1].get('loadavg_end', '?')}")
