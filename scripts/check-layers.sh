#!/usr/bin/env bash
# Checks the tree against ARCHITECTURE.md's "Who may call whom", read from there
# so the map and the check cannot drift apart. Fails when a source file includes
# a header of a layer its own layer may not use, when a CMake library links a
# layer it may not use or is not on the map, and when a folder with sources is
# on no row (or on two), or a row names what no longer exists. The CMake
# libraries (one per layer) link only what the map allows, so a call across a
# forbidden edge fails to link; this check catches the includes that would not
# (headers only, inline code) and keeps the map true. Tests (*/test/*) may reach
# into any layer they exercise and are not checked.
#   scripts/check-layers.sh [build-dir]
# With a configured build directory it also checks that CMake compiles each
# source into its own layer's library (from compile_commands.json).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-}
map=ARCHITECTURE.md
# Folders below these hold layers; each folder with sources must be on the map.
roots=(broker coordinator cli app)

violations=0
fail() {
  echo "$*"
  violations=$((violations + 1))
}

# The table's rows as: layer, library, folders and files, may use (tab-separated,
# lists space-separated).
rows=$(awk -F'|' '
  /^\| layer \| library \| folders and files \| may use \|/ { table = 1; next }
  table && /^\| *---/ { next }
  table && !/^\|/ { exit }
  table {
    layer = $2; lib = $3; where = $4; uses = $5
    gsub(/[` ]/, "", layer); gsub(/[` ]/, "", lib)
    paths = ""
    while (match(where, /`[^`]+`/)) {
      paths = paths " " substr(where, RSTART + 1, RLENGTH - 2)
      where = substr(where, RSTART + RLENGTH)
    }
    gsub(/—|,/, " ", uses); gsub(/^ +| +$/, "", uses); gsub(/ +/, " ", uses)
    print layer "\t" lib "\t" substr(paths, 2) "\t" uses
  }' "$map")
if [ -z "$rows" ]; then
  echo "$map: no \"| layer | library | folders and files | may use |\" table"
  exit 1
fi

declare -A library uses folder subtree layer_of_library
file_patterns=()
file_pattern_layers=()
while IFS=$'\t' read -r layer lib paths use; do
  [ -z "${library[$layer]:-}" ] || fail "$map: layer $layer has two rows"
  library[$layer]=$lib
  uses[$layer]=$use
  layer_of_library[$lib]=$layer
  read -r -a patterns <<<"$paths"
  for p in "${patterns[@]}"; do
    case $p in
      */\*\*)
        subtree[${p%/\*\*}]=$layer ;;
      */)
        d=${p%/}
        [ -z "${folder[$d]:-}" ] || fail "$map: folder $p is on two rows: ${folder[$d]} and $layer"
        folder[$d]=$layer ;;
      *)
        file_patterns+=("$p")
        file_pattern_layers+=("$layer") ;;
    esac
  done
done <<<"$rows"
for layer in "${!uses[@]}"; do
  for u in ${uses[$layer]}; do
    [ -n "${library[$u]:-}" ] || fail "$map: $layer may use $u, which is no layer of the table"
  done
done

# Sets `found` to the layer of a source file or an include path ("" if none): a
# file pattern's, else its folder's, else the nearest subtree's.
layer_of() {
  found=
  local i d
  for i in "${!file_patterns[@]}"; do
    # shellcheck disable=SC2053 # the pattern is a glob
    if [[ $1 == ${file_patterns[$i]} ]]; then
      found=${file_pattern_layers[$i]}
      return
    fi
  done
  d=${1%/*}
  [ "$d" != "$1" ] || return 0
  if [ -n "${folder[$d]:-}" ]; then
    found=${folder[$d]}
    return
  fi
  while :; do
    if [ -n "${subtree[$d]:-}" ]; then
      found=${subtree[$d]}
      return
    fi
    [[ $d == */* ]] || return 0
    d=${d%/*}
  done
}

allowed() { # from to
  [ "$1" = "$2" ] && return 0
  local u
  for u in ${uses[$1]}; do [ "$u" = "$2" ] && return 0; done
  return 1
}

sources=()
while IFS= read -r f; do [ -f "$f" ] && sources+=("$f"); done < <(git ls-files -co --exclude-standard \
  'protocol/*.cc' 'protocol/*.h' | grep -v -e '/test/')
for r in "${roots[@]}"; do
  while IFS= read -r f; do [ -f "$f" ] && sources+=("$f"); done < <(git ls-files -co --exclude-standard \
    "$r/*.cc" "$r/*.h" | grep -v -e '/test/')
done

# Every folder with sources below the roots is on exactly one row (two rows were
# caught above); every folder and file pattern of the map still has sources.
declare -A source_dirs
for f in "${sources[@]}"; do source_dirs[${f%/*}]=1; done
for d in "${!source_dirs[@]}"; do
  case $d in protocol | protocol/*) continue ;; esac
  [ -n "${folder[$d]:-}" ] || fail "no layer: folder $d/ (add it to the table in $map)"
done
for d in "${!folder[@]}"; do
  [ -n "${source_dirs[$d]:-}" ] || fail "$map: folder $d/ (${folder[$d]}) has no sources"
done
for i in "${!file_patterns[@]}"; do
  matched=
  for f in "${sources[@]}"; do
    # shellcheck disable=SC2053
    if [[ $f == ${file_patterns[$i]} ]]; then
      matched=1
      break
    fi
  done
  [ -n "$matched" ] || fail "$map: ${file_patterns[$i]} (${file_pattern_layers[$i]}) matches no source"
done

# Each source includes only headers of its own layer and the layers it may use.
checked=0
for f in "${sources[@]}"; do
  layer_of "$f"
  from=$found
  if [ -z "$from" ]; then
    fail "no layer: $f (add it to the table in $map)"
    continue
  fi
  checked=$((checked + 1))
  while IFS=: read -r line inc; do
    inc=${inc#*\"}
    inc=${inc%%\"*}
    layer_of "$inc"
    [ -n "$found" ] || continue
    allowed "$from" "$found" || fail "$f:$line: $from may not use $found: #include \"$inc\""
  done < <(grep -n '^#include "' "$f" || true)
done

# Each layer's library is on the map and links only the libraries of the layers it may use.
declare -A defined
while IFS= read -r call; do
  kind=${call%%(*}
  read -r -a words <<<"${call#*(}"
  lib=${words[0]%)}
  if [ "$kind" = weir_layer_library ]; then
    [ -n "${layer_of_library[$lib]:-}" ] || fail "$lib: a layer library that is not in the table of $map"
  fi
  case $kind in
    add_executable)
      defined[$lib]=1
      continue ;;
    weir_layer_library | add_library) defined[$lib]=1 ;;
  esac
  from=${layer_of_library[$lib]:-}
  [ -n "$from" ] || continue
  for dep in "${words[@]:1}"; do
    dep=${dep%)}
    to=${layer_of_library[$dep]:-}
    [ -n "$to" ] || continue
    allowed "$from" "$to" || fail "$lib links $dep: $from may not use $to"
  done
done < <(git ls-files -co --exclude-standard CMakeLists.txt '*/CMakeLists.txt' | grep -v '/test/' | xargs sed 's/#.*//' |
  tr "\n" " " | grep -oE '(target_link_libraries|weir_layer_library|add_library|add_executable)\([^)]*\)')
for layer in "${!library[@]}"; do
  [ -n "${defined[${library[$layer]}]:-}" ] || fail "$map: ${library[$layer]} ($layer) is defined by no CMakeLists.txt"
done

# CMake compiles each source into its layer's library (an object file's path names its target).
if [ -n "$build" ]; then
  commands=$build/compile_commands.json
  if [ ! -f "$commands" ]; then
    echo "$commands: not found (configure $build first)"
    exit 1
  fi
  root=$(pwd -P)
  while IFS=$'\t' read -r file target; do
    f=${file#"$root"/}
    case $f in /* | */test/* | compat-tests/* | bench/* | tools/*) continue ;; esac
    [ -f "$f" ] || continue
    layer_of "$f"
    [ -n "$found" ] || continue
    [ "$target" = "${library[$found]}" ] || fail "$f: built into $target, but its layer $found is ${library[$found]}"
  done < <(awk '
    /"command":/ { target = ""; if (match($0, / -o [^ ]*CMakeFiles\/[^\/ ]+\.dir\//)) {
      target = substr($0, RSTART, RLENGTH); sub(/.*CMakeFiles\//, "", target); sub(/\.dir\/$/, "", target) } }
    /"file":/ { file = $0; sub(/^[^:]*: *"/, "", file); sub(/",? *$/, "", file); if (target != "") print file "\t" target }
  ' "$commands")
fi

if [ "$violations" -ne 0 ]; then
  echo "$violations layering violations (the table is in $map, \"Who may call whom\")"
  exit 1
fi
echo "layers: $checked files include only what their layer may use; the map in $map matches the tree${build:+ and $build}"
