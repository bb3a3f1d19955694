#!/usr/bin/env bash
# Fails when a C++ file of the tree (tracked or new, not ignored) differs from
# what .clang-format makes of it. With --fix, rewrites them instead.
set -euo pipefail
cd "$(dirname "$0")/.."
files=()
while IFS= read -r f; do [ -f "$f" ] && files+=("$f"); done < <(git ls-files -co --exclude-standard '*.cc' '*.h')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! clang-format --dry-run --Werror "${files[@]}" 2>/tmp/weir-format.$$; then
  grep -E '^[^ ].*: (error|warning):' /tmp/weir-format.$$ | cut -d: -f1 | sort -u | sed 's/^/not formatted: /'
  rm -f /tmp/weir-format.$$
  echo "run scripts/check-format.sh --fix"
  exit 1
fi
rm -f /tmp/weir-format.$$
echo "format: ${#files[@]} files match .clang-format"
