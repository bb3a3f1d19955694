#include "cli/dumplog/dump_log_args.h"

#include <fmt/format.h>

#include <string_view>

namespace weir::cli::dumplog {

namespace {

// Kafka's --files takes a comma-separated list.
void add_file_list(DumpLogOptions& o, std::string_view list) {
    while (true) {
        const auto comma = list.find(',');
        const auto item = list.substr(0, comma);
        if (item.empty()) throw UsageError("--files expects FILE[,FILE...]");
        o.files.emplace_back(item);
        if (comma == std::string_view::npos) return;
        list = list.substr(comma + 1);
    }
}

}  // namespace

DumpLogOptions parse_dump_log_args(const std::vector<std::string>& args) {
    DumpLogOptions o;
    bool options_done = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string_view arg = args[i];
        if (options_done || arg.empty() || arg.front() != '-' || arg == "-") {
            if (arg.empty()) throw UsageError("empty file name");
            o.files.emplace_back(arg);
            continue;
        }
        if (arg == "--") {
            options_done = true;
        } else if (arg == "-h" || arg == "--help") {
            o.help = true;
            return o;
        } else if (arg == "--verify") {
            o.verify = true;
        } else if (arg == "--deep-iteration") {
            o.deep_iteration = true;
        } else if (arg == "--print-data-log") {
            o.print_data_log = o.deep_iteration = true;
        } else if (arg == "--files") {
            if (i + 1 >= args.size()) throw UsageError("--files needs a value");
            add_file_list(o, args[++i]);
        } else if (arg.starts_with("--files=")) {
            add_file_list(o, arg.substr(8));
        } else {
            throw UsageError(fmt::format("unknown option '{}'", arg));
        }
    }
    if (o.files.empty()) throw UsageError("missing FILE");
    return o;
}

std::string dump_log_usage_text() {
    return R"(Usage: weir dump-log [--verify] [--deep-iteration] [--print-data-log] FILE|DIR...

Prints the contents of a partition's files, as Kafka's kafka-dump-log.sh does. The
file's suffix selects what is read; files are opened read-only and never changed.

  .log        one line per record batch:
                baseOffset: 0 lastOffset: 2 count: 3 baseSequence: 0 lastSequence: 2
                producerId: 1000 producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: false
                isControl: false deleteHorizonMs: OptionalLong.empty position: 0
                CreateTime: 1700000000000 size: 120 magic: 2 compresscodec: none crc: 1234567
                isvalid: true
              (all on one line; magic 0/1 messages print "offset: N position: ..." instead),
              with --deep-iteration a line per record:
                | offset: 0 CreateTime: 1700000000000 keySize: 3 valueSize: 5 sequence: 0 headerKeys: []
              and with --print-data-log also " key: abc payload: hello" (control bytes as \xNN;
              a null key or value is left out). Transaction markers print
              "endTxnMarker: COMMIT coordinatorEpoch: 0" instead. A log that does not end with a
              whole, valid batch ends with "Found N invalid bytes at the end of FILE" and the reason
              (torn: the last batch runs past the end; corrupt: an invalid batch header).
  .index      "offset: N position: P" per entry, then a check against the .log of the same
              segment: each entry must point at the start of a batch whose last offset is its
              offset; offsets and positions must increase. Mismatches are listed under
              "Mismatches in :FILE" as "  Index offset: N, log offset: M".
  .timeindex  "timestamp: T offset: O" per entry, then a check against the .log: timestamps
              must increase, offsets must not decrease, each offset must be the last offset of
              a batch ("Indexed offset: O, found log offset: M" otherwise) and its timestamp
              the largest batch timestamp up to that batch ("Index timestamp: T, log timestamp: L").
  .txnindex   the transactions aborted in the segment, one line per entry ("version: 0
              producerId: P firstOffset: F lastOffset: L lastStableOffset: S"); entries must
              come in marker order, a torn tail is a problem.
  .snapshot   a producer state snapshot, one line per producer.

An index's trailing run of zero entries is the preallocated space of an active segment
(or of one left by an unclean shutdown, which the broker rebuilds); it is noted, not checked.

Options:
  --verify            Print only the problems found (CRC mismatches, a torn or corrupt tail,
                      index entries that disagree with the log) and one summary line per file:
                      "FILE: 12 batches, offsets 0-47, ok" or "..., 2 problems". With
                      --deep-iteration every record is decoded too. Problems are prefixed
                      with "FILE: ". Exit code 0 if every file is consistent, 1 otherwise.
  --deep-iteration    Decode the records of every batch (decompressing) and print them.
  --print-data-log    As --deep-iteration, and print each record's key and payload.
  --files F1,F2,...   Files to dump (as Kafka's tool); files may also be given as arguments.
  -h, --help          Show this help.

A directory stands for the .log, .index, .timeindex, .txnindex and .snapshot files in it and in its
subdirectories (a partition directory, or a whole log.dirs entry). Other files named are
ignored, with a note, as Kafka's tool does.

Exit codes: 0 ok; 1 a file is missing or unreadable, or (--verify) a problem was found;
2 usage error.
)";
}

}  // namespace weir::cli::dumplog
