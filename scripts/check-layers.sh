#!/usr/bin/env bash
# Fails when a source file includes a header of a layer its own layer may not
# use, or when a layer's library links one. The table below is ARCHITECTURE.md's
# "Who may call whom"; the CMake libraries (one per layer) link only what it
# allows, so a call across a forbidden edge fails to link, and this check
# catches the includes that would not (headers only, inline code). Tests
# (*/test/*) may reach into any layer they exercise and are not checked.
set -euo pipefail
cd "$(dirname "$0")/.."

# layer: library, then the layers it may use (besides itself).
declare -A library uses
table() { library[$1]=$2; uses[$1]="${*:3}"; }
table protocol weir_protocol
table common weir_common
table properties weir_properties
table config weir_config properties protocol common
table storage weir_storage protocol common
table partitions weir_partitions storage protocol common
table metadata weir_metadata config properties protocol common
table client weir_client protocol common
table replication weir_replication client partitions metadata config properties protocol common
table handler-api weir_handler_api partitions metadata config properties protocol common
table handlers weir_handlers handler-api partitions metadata config properties protocol common
table metrics weir_metrics protocol
table faults weir_faults protocol
table net weir_net handlers handler-api metrics faults protocol common
table admin weir_admin handlers handler-api partitions storage metadata config properties metrics faults protocol common
table server weir_server admin net handlers handler-api replication client partitions storage metadata config \
  properties metrics faults protocol common
table coordinator-runtime weir_coordinator_runtime partitions metadata config properties protocol common
table group-core weir_group_core protocol
table txn-core weir_txn_core protocol
table group-coordinator weir_group_coordinator group-core coordinator-runtime handler-api partitions metadata config properties \
  protocol common
table txn-coordinator weir_txn_coordinator txn-core group-coordinator coordinator-runtime handler-api client partitions metadata \
  config properties protocol common
table controller weir_controller metadata config properties protocol common
table cli weir_cli properties protocol
table dumplog weir_dumplog storage protocol common
table wire-tools weir_txncli client protocol common
table main weir server coordinator-runtime group-core group-coordinator txn-core txn-coordinator controller cli dumplog wire-tools \
  admin net handlers handler-api replication client partitions storage metadata config properties metrics faults \
  protocol common

# The layer of a source file or of an include path ("" for the tree's other folders).
layer_of() {
  case $1 in
    protocol/* | messages/*) echo protocol ;;
    broker/common/*) echo common ;;
    # broker/config's .properties parser and the types its values have: cli/ links it, not the broker.
    broker/config/properties.* | broker/config/config_types.h | broker/config/config_error.h) echo properties ;;
    broker/config/*) echo config ;;
    broker/storage/*) echo storage ;;
    broker/partitions/*) echo partitions ;;
    broker/metadata/*) echo metadata ;;
    broker/client/*) echo client ;;
    broker/replication/*) echo replication ;;
    # What handlers, coordinators and the admin listener share: the context a
    # request runs in and the services the coordinators implement.
    broker/handler_api/*) echo handler-api ;;
    broker/handlers/*) echo handlers ;;
    broker/metrics/*) echo metrics ;;
    broker/faults/*) echo faults ;;
    broker/net/* | broker/dispatch/*) echo net ;;
    broker/controller/*) echo controller ;;
    broker/admin/*) echo admin ;;
    broker/server/*) echo server ;;
    app/*) echo main ;;
    coordinator/runtime/*) echo coordinator-runtime ;;
    # The coordinators' state machines, without I/O: they link only the protocol.
    coordinator/group/group.* | coordinator/group/member.* | coordinator/group/group_manager* | \
      coordinator/group/types.*) echo group-core ;;
    coordinator/group/*) echo group-coordinator ;;
    coordinator/txn/txn_manager.* | coordinator/txn/types.*) echo txn-core ;;
    coordinator/txn/*) echo txn-coordinator ;;
    cli/groups/* | cli/topics/* | cli/configs/* | cli/rdkafka/*) echo cli ;;
    cli/dumplog/*) echo dumplog ;;
    cli/transactions/* | cli/logdirs/* | cli/wireclient/*) echo wire-tools ;;
    *) echo "" ;;
  esac
}

allowed() { # from to
  [ "$1" = "$2" ] && return 0
  local u
  for u in ${uses[$1]}; do [ "$u" = "$2" ] && return 0; done
  return 1
}

violations=0
checked=0
while IFS= read -r f; do
  [ -f "$f" ] || continue
  from=$(layer_of "$f")
  if [ -z "$from" ]; then
    echo "no layer: $f (add it to scripts/check-layers.sh)"
    violations=$((violations + 1))
    continue
  fi
  checked=$((checked + 1))
  while IFS=: read -r line inc; do
    inc=${inc#*\"}
    inc=${inc%%\"*}
    to=$(layer_of "$inc")
    [ -n "$to" ] || continue
    if ! allowed "$from" "$to"; then
      echo "$f:$line: $from may not use $to: #include \"$inc\""
      violations=$((violations + 1))
    fi
  done < <(grep -n '^#include "' "$f" || true)
done < <(git ls-files -co --exclude-standard 'protocol/*.cc' 'protocol/*.h' 'broker/*.cc' 'broker/*.h' \
  'coordinator/*.cc' 'coordinator/*.h' 'cli/*.cc' 'cli/*.h' 'app/*.cc' 'app/*.h' | grep -v -e '/test/')

# Each layer's library links only the libraries of the layers it may use.
declare -A layer_of_library
for l in "${!library[@]}"; do layer_of_library[${library[$l]}]=$l; done
while IFS= read -r link; do
  read -r -a words <<<"${link#*(}"
  lib=${words[0]}
  from=${layer_of_library[$lib]:-}
  [ -n "$from" ] || continue
  for dep in "${words[@]:1}"; do
    dep=${dep%)}
    to=${layer_of_library[$dep]:-}
    [ -n "$to" ] || continue
    if ! allowed "$from" "$to"; then
      echo "$lib links $dep: $from may not use $to"
      violations=$((violations + 1))
    fi
  done
done < <(cat CMakeLists.txt protocol/CMakeLists.txt broker/CMakeLists.txt coordinator/CMakeLists.txt cli/CMakeLists.txt app/CMakeLists.txt | tr "\n" " " |
  grep -oE '(target_link_libraries|weir_layer_library)\([^)]*\)')

if [ "$violations" -ne 0 ]; then
  echo "$violations layering violations (the table is in scripts/check-layers.sh and ARCHITECTURE.md)"
  exit 1
fi
echo "layers: $checked files include only what their layer may use"
