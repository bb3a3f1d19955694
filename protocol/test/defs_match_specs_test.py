#!/usr/bin/env python3
"""Checks that every protocol/defs/*.def states the same facts as Kafka's JSON specs.

  defs_match_specs_test.py --cache DIR                   fetch Kafka's released specs with Maven
  defs_match_specs_test.py SPECS_DIR [SPECS_DIR ...]     compare with these spec directories

For each message: kind, api key, valid/flexible versions, latestVersionUnstable,
and recursively every field (order, name, type, versions, nullable versions,
tag, tagged versions, default, field-level flexible versions) and common
struct.

Each version a definition serves is compared with the first spec set, in the
order given, whose spec has that version. No single Kafka release has every
version Weir serves: 4.0 removed the old versions that older clients still
send (KIP-896), and 3.9 lacks the newest ones. So by default the specs come
from kafka-clients 3.9.1 (every old version) and then 4.0.0 (the versions
added after 3.9), whose jars carry them as common/message/*.json.

Exits 0 when everything matches, 1 on any difference, and 77 (a skip for
ctest) when the specs cannot be had: no spec directory, or no Maven to fetch
them with.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gen"))
import defs  # noqa: E402

DEFS_DIR = os.path.join(HERE, "..", "defs")
KAFKA_RELEASES = ["3.9.1", "4.0.0"]
# Record formats of Kafka's coordinators' internal topics: their specs are not
# in kafka-clients. Listed by name so that any other missing spec still fails.
NOT_IN_CLIENT_SPECS = {
    "OffsetCommitKey", "OffsetCommitValue", "GroupMetadataKey", "GroupMetadataValue",
    "TransactionLogKey", "TransactionLogValue",
}
# Kafka 4.0 declared these requests' newest version stable; Weir still marks it
# unstable, so it does not advertise that version yet.
UNSTABLE_HERE_ONLY = {"ConsumerGroupHeartbeatRequest", "EndTxnRequest"}
INT_TYPES = set(defs.INT_BITS)
SKIP = 77


def strip_comments(text):
    out, i, in_str = [], 0, False
    while i < len(text):
        c = text[i]
        if in_str:
            if c == "\\":
                out.append(text[i:i + 2])
                i += 2
                continue
            in_str = c != '"'
        elif c == '"':
            in_str = True
        elif text.startswith("//", i):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def versions(text):
    return defs.Versions.parse(text) if text is not None else defs.NONE


def clip(v, window):
    return str(v.intersect(window))


def norm_default(typ, value):
    if value is None:
        return None
    s = str(value).strip()
    if isinstance(value, bool) or typ == "bool":
        return s.lower()
    if typ in INT_TYPES and s not in ("null",):
        return int(s, 0)
    if typ == "float64":
        return float(s)
    return s


class Checker:
    """Compares a definition with a spec within a window of versions: what lies
    outside the window is the business of another spec set."""

    def __init__(self):
        self.errors = []

    def eq(self, where, what, ours, theirs):
        if ours != theirs:
            self.errors.append(f"{where}: {what}: def has {ours!r}, spec has {theirs!r}")

    def fields(self, where, ours, theirs, window):
        ours = [f for f in ours if not f.versions.intersect(window).empty]
        theirs = [j for j in theirs if not versions(j["versions"]).intersect(window).empty]
        self.eq(where, "field names", [f.name for f in ours], [f["name"] for f in theirs])
        for f, j in zip(ours, theirs):
            if f.name != j["name"]:
                continue
            w = f"{where}.{f.name}"
            self.eq(w, "type", f.type, j["type"])
            self.eq(w, "versions", clip(f.versions, window), clip(versions(j["versions"]), window))
            self.eq(w, "nullableVersions", clip(f.nullable, window),
                    clip(versions(j.get("nullableVersions")), window))
            self.eq(w, "tag", f.tag, j.get("tag"))
            self.eq(w, "taggedVersions", clip(f.tagged, window), clip(versions(j.get("taggedVersions")), window))
            self.eq(w, "default", norm_default(f.base_type, f.default),
                    norm_default(j["type"].removeprefix("[]"), j.get("default")))
            self.eq(w, "flexibleVersions", clip(f.flexible, window) if f.flexible is not None else None,
                    clip(versions(j["flexibleVersions"]), window) if "flexibleVersions" in j else None)
            inline = f.struct is not None and not f.struct.common
            self.eq(w, "has inline fields", inline, "fields" in j)
            if inline and "fields" in j:
                self.fields(w, f.struct.fields, j["fields"], window)

    def message(self, msg, spec, window):
        w = f"{os.path.basename(msg.path)}:{msg.name}[{window}]"
        valid = versions(spec["validVersions"])
        self.eq(w, "type", msg.kind, spec["type"])
        self.eq(w, "apiKey", msg.api_key, spec.get("apiKey"))
        self.eq(w, "validVersions", clip(msg.valid, window), clip(valid, window))
        self.eq(w, "flexibleVersions", clip(msg.flexible, window),
                clip(versions(spec.get("flexibleVersions", "none")), window))
        ours_unstable = msg.unstable and window.contains(msg.valid.top)
        theirs_unstable = bool(spec.get("latestVersionUnstable", False)) and window.contains(valid.top)
        if not (msg.name in UNSTABLE_HERE_ONLY and ours_unstable and not theirs_unstable):
            self.eq(w, "latestVersionUnstable", ours_unstable, theirs_unstable)
        self.fields(w, msg.fields, spec.get("fields", []), window)
        ours = [c for c in msg.commons if not c.versions.intersect(window).empty]
        theirs = [j for j in spec.get("commonStructs", []) if not versions(j["versions"]).intersect(window).empty]
        self.eq(w, "commonStructs", [c.name for c in ours], [c["name"] for c in theirs])
        for c, j in zip(ours, theirs):
            if c.name == j["name"]:
                self.eq(f"{w}.{c.name}", "versions", clip(c.versions, window), clip(versions(j["versions"]), window))
                self.fields(f"{w}.{c.name}", c.fields, j["fields"], window)


def load_spec(specs_dir, name):
    path = os.path.join(specs_dir, name + ".json")
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.loads(strip_comments(f.read()))


def windows(msg, specs):
    """Splits the definition's versions into runs, each compared with the first
    spec that has them: [(spec, Versions)], and the versions no spec has."""
    runs, missing = [], []
    for v in range(msg.valid.lo, msg.valid.top + 1):
        spec = next((s for s in specs if s is not None and versions(s["validVersions"]).contains(v)), None)
        if spec is None:
            missing.append(v)
        elif runs and runs[-1][0] is spec and runs[-1][1].top == v - 1:
            runs[-1] = (spec, defs.Versions(runs[-1][1].lo, v))
        else:
            runs.append((spec, defs.Versions(v, v)))
    return runs, missing


class Unavailable(Exception):
    pass


def fetch_release(version, cache):
    """kafka-clients VERSION's message specs, unpacked once into CACHE."""
    dest = os.path.join(cache, f"kafka-clients-{version}")
    stamp = os.path.join(dest, ".complete")
    if os.path.isfile(stamp):
        return dest
    mvn = shutil.which("mvn")
    if mvn is None:
        raise Unavailable("mvn not found: Kafka's specs are fetched from Maven Central with Maven "
                          "(Debian package maven)")
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [mvn, "--batch-mode", "--quiet", "--strict-checksums", "-Dstyle.color=never",
               "dependency:copy", f"-Dartifact=org.apache.kafka:kafka-clients:{version}",
               f"-DoutputDirectory={tmp}"]
        run = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=600)
        jar = os.path.join(tmp, f"kafka-clients-{version}.jar")
        if run.returncode != 0 or not os.path.isfile(jar):
            tail = "\n".join((run.stdout + run.stderr).strip().splitlines()[-5:])
            raise Unavailable(f"could not fetch kafka-clients {version} with Maven:\n{tail}")
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        with zipfile.ZipFile(jar) as z:
            for name in z.namelist():
                if name.startswith("common/message/") and name.endswith(".json"):
                    with open(os.path.join(dest, os.path.basename(name)), "wb") as out:
                        out.write(z.read(name))
    if not any(n.endswith(".json") for n in os.listdir(dest)):
        raise Unavailable(f"kafka-clients {version} carries no common/message/*.json")
    open(stamp, "w").close()
    return dest


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("specs", nargs="*", help="spec directories, compared in this order")
    ap.add_argument("--cache", help=f"fetch kafka-clients {' and '.join(KAFKA_RELEASES)} into DIR")
    args = ap.parse_args()
    dirs = list(args.specs)
    if not dirs and not args.cache:
        print("SKIP: no Kafka spec directory given and no --cache to fetch them into", file=sys.stderr)
        return SKIP
    if not dirs:
        try:
            dirs = [fetch_release(v, args.cache) for v in KAFKA_RELEASES]
        except (Unavailable, OSError, subprocess.SubprocessError) as e:
            print(f"SKIP: {e}\n      (or configure with -DWEIR_KAFKA_SPECS_DIR=<dir of Kafka's message specs>)",
                  file=sys.stderr)
            return SKIP
    for d in dirs:
        if not os.path.isdir(d):
            print(f"SKIP: Kafka spec directory not found: {d}", file=sys.stderr)
            return SKIP
    checker = Checker()
    try:
        files = defs.parse_dir(DEFS_DIR)
    except defs.DefError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    count = 0
    skipped = []
    for stem, msgs in files.items():
        if not msgs:
            checker.errors.append(f"{stem}.def: no messages")
        for msg in msgs:
            specs = [load_spec(d, msg.name) for d in dirs]
            if all(s is None for s in specs):
                if msg.name in NOT_IN_CLIENT_SPECS:
                    skipped.append(msg.name)
                else:
                    checker.errors.append(f"{stem}.def: no spec {msg.name}.json")
                continue
            for s in specs:
                if s is not None:
                    checker.eq(f"{stem}.def", "message name", msg.name, s["name"])
            runs, missing = windows(msg, specs)
            if missing:
                checker.errors.append(f"{stem}.def:{msg.name}: versions {missing} are in no spec given")
            for spec, window in runs:
                checker.message(msg, spec, window)
            count += 1
    if count == 0:
        checker.errors.append("no definitions found")
    for e in checker.errors:
        print("FAIL:", e, file=sys.stderr)
    if checker.errors:
        return 1
    print(f"OK: {count} messages in {len(files)} definition files match {', '.join(dirs)}")
    if skipped:
        print(f"not checked (no spec in kafka-clients): {', '.join(skipped)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
