#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# API reference: Doxygen (docs/Doxyfile) over include/bindery/*.hpp with docs/GUIDE.md as the main
# page, into ${BINDERY_DOCS_OUT:-build/docs}/html. Any warning fails the run (WARN_AS_ERROR):
# undocumented public declarations, malformed doc comments.
#
# Two passes, so the headers still being documented do not hide new gaps elsewhere:
#   1. every header except those listed in docs/doxygen-pending.txt: must be clean;
#   2. every header: what remains (the pending ones), printed last; fatal only with
#      BINDERY_DOCS_STRICT=1 until the pending list is empty.
# Remove a header from docs/doxygen-pending.txt once it passes; delete the file when it is empty.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${BINDERY_DOCS_OUT:-$root/build/docs}
command -v doxygen >/dev/null || { echo "docs: doxygen not found (scripts/setup.sh installs it)" >&2; exit 1; }
mkdir -p "$out"
version=$(sed -n 's/^#define BINDERY_VERSION_STRING "\(.*\)"/\1/p' "$root/include/bindery/version.hpp")

pending=()
if [ -f "$root/docs/doxygen-pending.txt" ]; then
  while read -r line; do
    case "$line" in ''|'#'*) ;; *) pending+=("$line") ;; esac
  done < "$root/docs/doxygen-pending.txt"
fi

# run_doxygen LABEL INPUT... : 0 when Doxygen ran without warnings.
run_doxygen() {
  local label=$1; shift
  local log="$out/warnings-$label.txt"
  rm -f "$log"
  if (cd "$root" && BINDERY_DOCS_VERSION="$version" BINDERY_DOCS_INPUT="$*" BINDERY_DOCS_OUT="$out" \
        BINDERY_DOCS_WARNINGS="$log" BINDERY_DOCS_ROOT="$root" doxygen docs/Doxyfile) \
     && [ ! -s "$log" ]; then
    echo "docs: $label: no warnings"
    return 0
  fi
  echo "docs: $label: $(grep -c . "$log" 2>/dev/null || echo 0) warning(s):" >&2
  sed "s|$root/||" "$log" | sort -u >&2
  return 1
}

inputs=()
for h in "$root"/include/bindery/*.hpp; do
  rel=${h#"$root"/}
  skip=0
  for p in "${pending[@]}"; do [ "$p" = "$rel" ] && skip=1; done
  [ $skip = 1 ] || inputs+=("$rel")
done
status=0
run_doxygen documented "${inputs[@]}" docs/GUIDE.md || status=1
if [ ${#pending[@]} -gt 0 ]; then
  # The pending headers' gaps are listed, not fatal: docs/doxygen-pending.txt is the allowlist
  # that shrinks to nothing (BINDERY_DOCS_STRICT=1 makes them fatal too).
  echo "docs: still pending (docs/doxygen-pending.txt): ${pending[*]}"
  if ! run_doxygen all include/bindery docs/GUIDE.md; then
    [ "${BINDERY_DOCS_STRICT:-0}" = 1 ] && status=1
    echo "docs: the gaps above are in the pending headers only (pass 1 covers the rest)"
  fi
fi
[ $status = 0 ] && echo "docs: API reference in $out/html/index.html"
exit $status
