#!/usr/bin/env python3
"""Checks that every protocol/defs/*.def states the same facts as Kafka's JSON spec.

  defs_match_specs_test.py [SPECS_DIR]   (default: ../shared/kafka-protocol/message-specs beside the repository)

For each message: kind, api key, valid/flexible versions, latestVersionUnstable,
and recursively every field (order, name, type, versions, nullable versions,
tag, tagged versions, default, field-level flexible versions) and common
struct. Exits non-zero on any difference, or when SPECS_DIR is missing.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gen"))
import defs  # noqa: E402

DEFAULT_SPECS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "kafka-protocol", "message-specs"))
DEFS_DIR = os.path.join(HERE, "..", "defs")
# Definitions whose Kafka schema is not in the shared copy of the client
# message specs (they come from Kafka's group- and transaction-coordinator
# resources), so there is nothing to compare against. Listed by name so that any other
# missing spec still fails.
NOT_IN_SHARED_SPECS = {
    "OffsetCommitKey", "OffsetCommitValue", "GroupMetadataKey", "GroupMetadataValue",
    "TransactionLogKey", "TransactionLogValue",
}
INT_TYPES = set(defs.INT_BITS)


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
    return str(defs.Versions.parse(text)) if text is not None else "none"


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
    def __init__(self):
        self.errors = []

    def eq(self, where, what, ours, theirs):
        if ours != theirs:
            self.errors.append(f"{where}: {what}: def has {ours!r}, spec has {theirs!r}")

    def fields(self, where, ours, theirs):
        self.eq(where, "field names", [f.name for f in ours], [f["name"] for f in theirs])
        for f, j in zip(ours, theirs):
            if f.name != j["name"]:
                continue
            w = f"{where}.{f.name}"
            self.eq(w, "type", f.type, j["type"])
            self.eq(w, "versions", str(f.versions), versions(j["versions"]))
            self.eq(w, "nullableVersions", str(f.nullable), versions(j.get("nullableVersions")))
            self.eq(w, "tag", f.tag, j.get("tag"))
            self.eq(w, "taggedVersions", str(f.tagged), versions(j.get("taggedVersions")))
            self.eq(w, "default", norm_default(f.base_type, f.default), norm_default(j["type"].removeprefix("[]"), j.get("default")))
            self.eq(w, "flexibleVersions", str(f.flexible) if f.flexible is not None else None,
                    versions(j["flexibleVersions"]) if "flexibleVersions" in j else None)
            inline = f.struct is not None and not f.struct.common
            self.eq(w, "has inline fields", inline, "fields" in j)
            if inline and "fields" in j:
                self.fields(w, f.struct.fields, j["fields"])

    def message(self, msg, spec):
        w = f"{os.path.basename(msg.path)}:{msg.name}"
        self.eq(w, "type", msg.kind, spec["type"])
        self.eq(w, "apiKey", msg.api_key, spec.get("apiKey"))
        self.eq(w, "validVersions", str(msg.valid), versions(spec["validVersions"]))
        self.eq(w, "flexibleVersions", str(msg.flexible), versions(spec.get("flexibleVersions", "none")))
        self.eq(w, "latestVersionUnstable", msg.unstable, bool(spec.get("latestVersionUnstable", False)))
        self.fields(w, msg.fields, spec.get("fields", []))
        commons = spec.get("commonStructs", [])
        self.eq(w, "commonStructs", [c.name for c in msg.commons], [c["name"] for c in commons])
        for c, j in zip(msg.commons, commons):
            if c.name == j["name"]:
                self.eq(f"{w}.{c.name}", "versions", str(c.versions), versions(j["versions"]))
                self.fields(f"{w}.{c.name}", c.fields, j["fields"])


def main():
    specs = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_SPECS
    if not os.path.isdir(specs):
        # The reference specs live beside the repository (../shared), not in it;
        # without them there is nothing to compare with: ctest reports a skip.
        print(f"SKIP: Kafka spec directory not found: {specs}\n"
              "      (set WEIR_SHARED_DIR or pass the message-specs directory)", file=sys.stderr)
        return 77
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
            path = os.path.join(specs, msg.name + ".json")
            if msg.name in NOT_IN_SHARED_SPECS and not os.path.isfile(path):
                skipped.append(msg.name)
                continue
            if not os.path.isfile(path):
                checker.errors.append(f"{stem}.def: no spec {msg.name}.json")
                continue
            with open(path, encoding="utf-8") as f:
                spec = json.loads(strip_comments(f.read()))
            checker.eq(f"{stem}.def", "message name", msg.name, spec["name"])
            checker.message(msg, spec)
            count += 1
    if count == 0:
        checker.errors.append("no definitions found")
    for e in checker.errors:
        print("FAIL:", e, file=sys.stderr)
    if checker.errors:
        return 1
    print(f"OK: {count} messages in {len(files)} definition files match {specs}")
    if skipped:
        print(f"not checked (no spec in the shared copy): {', '.join(skipped)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
