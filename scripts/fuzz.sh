#!/usr/bin/env bash
# Fuzz the MJCF loader with libFuzzer under ASan+UBSan (issue 7).
#   scripts/fuzz.sh [RUNS] [SEED]    bounded and deterministic (CI: 20000 runs, seed 1)
#   scripts/fuzz.sh 0                runs until stopped (the documented long run)
# Seeds: every .xml under ../shared/models (copied to build-fuzz/corpus). Crashes are written to
# build-fuzz/crash-*; each one becomes a regression test in tests/mjcf.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-20000}
SEED=${2:-1}
command -v clang++ >/dev/null || { apt-get update -qq && apt-get install -y -qq clang >/dev/null; }
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DMOREAU_BUILD_TESTS=OFF -DMOREAU_BUILD_BENCH=OFF -DMOREAU_FUZZ=ON >/dev/null
cmake --build build-fuzz -j"${JOBS:-2}" --target moreau_fuzz_mjcf
rm -rf build-fuzz/corpus && mkdir -p build-fuzz/corpus
find ../shared/models -name '*.xml' -size -64k -exec cp {} build-fuzz/corpus/ \; 2>/dev/null || true
cd build-fuzz
ARGS=(-seed="$SEED" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -artifact_prefix=./)
if [ "$RUNS" != 0 ]; then ARGS+=(-runs="$RUNS"); fi
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 ./moreau_fuzz_mjcf "${ARGS[@]}" corpus
