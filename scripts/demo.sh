#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's main-job command: sets up, builds, renders the default cube scene to frame.png (or
# the file of a --png among the arguments) and prints the timing table. Extra arguments go to
# `bindery render` (another scene too: --model FILE, --scene city). Setup and build print on
# stderr, so that stdout carries only what `bindery render` prints (the table, the JSON line).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BINDERY_BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh" --target bindery_cli >&2
# frame.png unless the arguments name another file with --png.
png=(--png frame.png)
for a in "$@"; do [[ $a == --png || $a == --png=* ]] && png=(); done
"$build/bindery" render "${png[@]}" "$@"
