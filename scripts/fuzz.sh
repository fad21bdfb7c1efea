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
# libFuzzer's log goes to fuzz.log; its tail is printed, and on a finding the stack and the input
# itself (its first 4000 bytes, non-printing bytes escaped) so that a CI log says what failed.
rm -f crash-* leak-* timeout-* oom-* slow-unit-*
rc=0
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ../moreau_fuzz_mjcf "${ARGS[@]}" corpus \
  > fuzz.log 2>&1 || rc=$?
if [ "$rc" = 0 ]; then
  grep -E '^(INFO: Seed|Done|stat::)' fuzz.log
else
  grep -v -E '^#[0-9]+ +(NEW|REDUCE|pulse|INITED|READ)' fuzz.log | tail -n 80
  for f in crash-* leak-* timeout-* oom-*; do
    [ -e "$f" ] || continue
    echo "fuzz.sh: input $f ($(wc -c < "$f") bytes):"
    head -c 4000 "$f" | cat -v
    echo
  done
fi
exit "$rc"
