#!/usr/bin/env bash
# Builds the WGSL reflection fuzzer with clang (libFuzzer + ASan + UBSan) and runs it for a bounded
# time. The root project is built with g++, so this compiles the parser sources itself.
#   fuzz/run.sh [SECONDS] [extra libFuzzer args...]     (default 60 s; CI uses a short time)
#   FUZZ_BUILD_ONLY=1 fuzz/run.sh                         (just build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
shift || true
out="${FUZZ_OUT:-$root/build-fuzz}"
mkdir -p "$out/corpus"
CXX="${CXX_FUZZ:-clang++}"

"$CXX" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/include" -I"$root/src" \
  "$root"/src/wgsl/*.cpp "$root/src/error.cpp" "$root/fuzz/wgsl_fuzz.cpp" \
  -lfmt -o "$out/wgsl_fuzz"
[[ "${FUZZ_BUILD_ONLY:-0}" == 1 ]] && exit 0

# Seed corpus: every WGSL file in the repository.
find "$root/shaders" "$root/examples" "$root/fuzz/corpus" -name '*.wgsl' -exec cp -t "$out/corpus" {} + 2>/dev/null || true
exec "$out/wgsl_fuzz" "$out/corpus" -dict="$root/fuzz/wgsl.dict" -max_total_time="$seconds" -max_len=4096 \
  -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$out/" -print_final_stats=1 "$@"
