#!/usr/bin/env bash
# Sanitizer builds and runs, called by scripts/test.sh; each step alone:
#   scripts/sanitize.sh build    configure and build build-asan: clang -O1, ASan+UBSan (+ libFuzzer
#                                coverage, so the same library serves scripts/fuzz.sh)
#   scripts/sanitize.sh test     ctest in build-asan: every unit test, every differential suite on the
#                                models selected by MOREAU_MODEL_STRIDE (default 4: see scripts/test.sh)
#   scripts/sanitize.sh tsan     build build-tsan (ThreadSanitizer, the library and moreau_thread_tests
#                                only) and run the parallel rollouts: one Model, one Data per thread
# Any sanitizer finding aborts the process that made it (-fno-sanitize-recover), so it fails its test.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
command -v clang++ >/dev/null || { echo "sanitize: clang++ is missing (scripts/setup.sh installs it)" >&2; exit 1; }
# -O1: a third of -O2's compile time, and ASan's documented setting for usable speed and stacks;
# line tables only: symbolized reports without the cost of full debug information.
FLAGS=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++
       "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DMOREAU_BUILD_BENCH=OFF)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

case "${1:-}" in
  configure)  # build-asan only (scripts/fuzz.sh builds its one target there)
    cmake -S . -B build-asan "${FLAGS[@]}" -DMOREAU_FUZZ=ON >/dev/null
    ;;
  build)
    cmake -S . -B build-asan "${FLAGS[@]}" -DMOREAU_FUZZ=ON >/dev/null
    cmake --build build-asan -j"$JOBS" --target moreau_fuzz_mjcf moreau_cli moreau_tests moreau_difftests
    ;;
  test)
    export MOREAU_MODEL_STRIDE=${MOREAU_MODEL_STRIDE:-4}
    cd build-asan
    ctest --output-on-failure -j"$JOBS" --timeout 1200
    ;;
  tsan)
    cmake -S . -B build-tsan "${FLAGS[@]}" -DMOREAU_TSAN=ON -DMOREAU_DIFFERENTIAL=OFF >/dev/null
    cmake --build build-tsan -j"$JOBS" --target moreau_thread_tests
    TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} \
      build-tsan/tests/moreau_thread_tests --gtest_filter='Robustness.ParallelRolloutsShareOneModel'
    ;;
  *)
    echo "usage: scripts/sanitize.sh configure|build|test|tsan" >&2
    exit 2
    ;;
esac
