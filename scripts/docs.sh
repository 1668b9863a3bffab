#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# API reference: Doxygen (docs/Doxyfile) over include/bindery/*.hpp with docs/GUIDE.md as the main
# page, into ${BINDERY_DOCS_OUT:-build/docs}/html. Any warning fails the run (WARN_AS_ERROR, and
# a non-empty warning log): an undocumented public declaration in any header, a malformed doc
# comment. CI (.ci/run) runs this; there is no allowlist of headers left undocumented.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${BINDERY_DOCS_OUT:-$root/build/docs}
command -v doxygen >/dev/null || { echo "docs: doxygen not found (scripts/setup.sh installs it)" >&2; exit 1; }
mkdir -p "$out"
version=$(sed -n 's/^#define BINDERY_VERSION_STRING "\(.*\)"/\1/p' "$root/include/bindery/core/version.hpp")

log="$out/warnings.txt"
rm -f "$log"
if (cd "$root" && BINDERY_DOCS_VERSION="$version" BINDERY_DOCS_INPUT="include/bindery docs/GUIDE.md" \
      BINDERY_DOCS_OUT="$out" BINDERY_DOCS_WARNINGS="$log" BINDERY_DOCS_ROOT="$root" \
      doxygen docs/Doxyfile) && [ ! -s "$log" ]; then
  echo "docs: no warnings; API reference in $out/html/index.html"
  exit 0
fi
warnings=$(sed "s|$root/||" "$log" 2>/dev/null | sort -u || true)
echo "docs: $(grep -c . <<<"$warnings" || true) warning(s) (Doxygen failed or warned):" >&2
[ -n "$warnings" ] && echo "$warnings" >&2
exit 1
