#!/usr/bin/env bash
# Fuzz the MJCF loader (and three steps of every model that loads) with libFuzzer under ASan+UBSan.
#   scripts/fuzz.sh [RUNS] [SEED]    bounded and deterministic (CI: 20000 runs, seed 1)
#   scripts/fuzz.sh 0 [SEED]         runs until stopped or FUZZ_SECONDS (the documented long run)
# The target is built in build-asan, the sanitizer build of scripts/sanitize.sh (same library).
# Seeds: every .xml under ../shared/models (copied to build-asan/fuzz/corpus). Crashes, leaks, UBSan
# findings and hangs (a unit running longer than FUZZ_TIMEOUT seconds, default 60, wall clock) are
# written to build-asan/fuzz/{crash,leak,timeout}-*; each one becomes a regression test
# (tests/fuzz/regressions/, replayed by the FuzzRegressions unit test).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-20000}
SEED=${2:-1}
scripts/sanitize.sh configure
cmake --build build-asan -j"${JOBS:-2}" --target moreau_fuzz_mjcf
rm -rf build-asan/fuzz/corpus && mkdir -p build-asan/fuzz/corpus
find ../shared/models -name '*.xml' -size -64k -exec cp {} build-asan/fuzz/corpus/ \; 2>/dev/null || true
cd build-asan/fuzz
ARGS=(-seed="$SEED" -max_len=16384 -timeout="${FUZZ_TIMEOUT:-60}" -rss_limit_mb=2048 -artifact_prefix=./
      -print_final_stats=1)
if [ "$RUNS" != 0 ]; then ARGS+=(-runs="$RUNS"); fi
if [ -n "${FUZZ_SECONDS:-}" ]; then ARGS+=(-max_total_time="$FUZZ_SECONDS"); fi
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ../moreau_fuzz_mjcf "${ARGS[@]}" corpus
