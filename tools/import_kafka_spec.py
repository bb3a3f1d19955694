#!/usr/bin/env python3
"""Convert Kafka JSON message specs into Weir's .def format (protocol/gen/README.md).

Only facts are carried over: names, types, versions, nullability, tags,
defaults, flexible versions, api keys. Comments, "about" prose and Java-only
hints (mapKey, entityType, ignorable, zeroCopy, listeners) are dropped.

  import_kafka_spec.py --specs DIR OUT.def SpecName [SpecName ...]
  import_kafka_spec.py --specs DIR --weir-set OUT_DIR     # regenerate protocol/defs/

DIR holds Kafka's *.json specs: a Kafka source tree's
clients/src/main/resources/common/message, or the copy the defs_match_specs
test unpacks from a kafka-clients jar (build/kafka-specs/kafka-clients-VERSION).
No single Kafka release has every version Weir serves (that test says why), so
a file regenerated from one release can drop versions: read its diff.
"""
import argparse
import json
import os
import re
import sys

# The APIs Weir serves (file stem -> API name) plus the consumer data messages.
WEIR_APIS = [
    "Produce", "Fetch", "ListOffsets", "Metadata", "OffsetCommit", "OffsetFetch",
    "FindCoordinator", "JoinGroup", "Heartbeat", "LeaveGroup", "SyncGroup",
    "DescribeGroups", "ListGroups", "SaslHandshake", "ApiVersions", "CreateTopics",
    "DeleteTopics", "DeleteRecords", "InitProducerId", "OffsetForLeaderEpoch",
    "AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn", "TxnOffsetCommit",
    "DescribeAcls", "CreateAcls", "DeleteAcls", "DescribeConfigs", "AlterConfigs",
    "SaslAuthenticate", "CreatePartitions", "DeleteGroups", "IncrementalAlterConfigs",
    "OffsetDelete", "DescribeCluster", "DescribeProducers", "ConsumerGroupHeartbeat",
    "WriteTxnMarkers", "DescribeTransactions", "ListTransactions", "DescribeLogDirs",
]
WEIR_DATA = {"consumer_protocol": ["ConsumerProtocolSubscription", "ConsumerProtocolAssignment"]}

BARE_VALUE = re.compile(r"^[A-Za-z0-9_.+-]+$")


def strip_comments(text):
    """Remove // line comments outside JSON strings."""
    out = []
    i, n = 0, len(text)
    in_str = False
    while i < n:
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            out.append(c)
        elif c == "/" and text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def load_spec(specs_dir, name):
    with open(os.path.join(specs_dir, name + ".json"), encoding="utf-8") as f:
        return json.loads(strip_comments(f.read()))


def snake_case(name):
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    return s.lower()


def format_default(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str) and BARE_VALUE.match(value):
        return value
    return json.dumps(value, ensure_ascii=False)


def field_rows(fields, depth, rows):
    for f in fields:
        opts = []
        if "nullableVersions" in f:
            opts.append("nullable=" + f["nullableVersions"])
        if "tag" in f:
            opts.append("tag=%d" % f["tag"])
        if "taggedVersions" in f:
            opts.append("tagged=" + f["taggedVersions"])
        if "default" in f:
            opts.append("default=" + format_default(f["default"]))
        if "flexibleVersions" in f:
            opts.append("flexible=" + f["flexibleVersions"])
        rows.append((depth, f["name"], f["type"], f["versions"], opts))
        if "fields" in f:
            field_rows(f["fields"], depth + 1, rows)


def render_rows(rows):
    name_w = max((2 * d + len(n) for d, n, _, _, _ in rows), default=0)
    type_w = max((len(t) for _, _, t, _, _ in rows), default=0)
    vers_w = max((len(v) for _, _, _, v, o in rows if o), default=0)
    lines = []
    for depth, name, typ, versions, opts in rows:
        indent = "  " * depth
        line = f"{indent}{name:<{name_w - 2 * depth}}  {typ:<{type_w}}  {versions}"
        if opts:
            line = f"{line:<{2 + name_w + 2 + type_w + 2 + vers_w}}  " + " ".join(opts)
        lines.append(line.rstrip())
    return lines


def render_message(spec):
    kind = spec["type"]
    if kind not in ("request", "response", "data"):
        raise SystemExit(f"{spec['name']}: cannot import type {kind!r}")
    head = [kind, spec["name"]]
    if "apiKey" in spec:
        head.append("api=%d" % spec["apiKey"])
    head.append("versions=" + spec["validVersions"])
    head.append("flexible=" + spec.get("flexibleVersions", "none"))
    if spec.get("latestVersionUnstable"):
        head.append("unstable")
    rows = []
    field_rows(spec.get("fields", []), 1, rows)
    # Common structs are rendered as pseudo-rows with the keyword `common`.
    for common in spec.get("commonStructs", []):
        rows.append((1, "common", common["name"], common["versions"], []))
        field_rows(common["fields"], 2, rows)
    out = [" ".join(head)]
    # Align field rows separately from `common` header rows.
    block = []
    for row in rows:
        if row[1] == "common" and row[0] == 1:
            out.extend(render_rows(block))
            block = []
            out.append(f"  common {row[2]} {row[3]}")
        else:
            block.append(row)
    out.extend(render_rows(block))
    return out


def render_file(specs_dir, names):
    lines = ["# Generated by tools/import_kafka_spec.py from Kafka's "
             + ", ".join(n + ".json" for n in names) + ".",
             "# Format: protocol/gen/README.md."]
    for name in names:
        lines.append("")
        lines.extend(render_message(load_spec(specs_dir, name)))
    return "\n".join(lines) + "\n"


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--specs", required=True, help="directory of Kafka's message specs (*.json)")
    ap.add_argument("--weir-set", metavar="OUT_DIR", help="write every Weir definition file into OUT_DIR")
    ap.add_argument("out", nargs="?", help="output .def file")
    ap.add_argument("names", nargs="*", help="spec names, e.g. ProduceRequest ProduceResponse")
    args = ap.parse_args()
    if not os.path.isdir(args.specs):
        sys.exit(f"spec directory not found: {args.specs}")
    if args.weir_set:
        os.makedirs(args.weir_set, exist_ok=True)
        for api in WEIR_APIS:
            write(os.path.join(args.weir_set, snake_case(api) + ".def"),
                  render_file(args.specs, [api + "Request", api + "Response"]))
        for stem, names in WEIR_DATA.items():
            write(os.path.join(args.weir_set, stem + ".def"), render_file(args.specs, names))
        return
    if not args.out or not args.names:
        ap.error("give OUT.def and at least one spec name, or --weir-set OUT_DIR")
    write(args.out, render_file(args.specs, args.names))


if __name__ == "__main__":
    main()
