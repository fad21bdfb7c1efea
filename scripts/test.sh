#!/usr/bin/env bash
# Set up, build, and run the whole test suite (CI: .ci/run): unit tests, CLI tests and differential
# tests against MuJoCo 2.2.2 in the Release build, then the sanitizer builds and the fuzz run.
#
# CI budget: about 20 minutes on a fresh 2-core machine, apt install included; each step prints its
# wall time, and docs/notes/ci_times.md keeps the measured history.
# Why this split: the Release build runs every test on every model. The sanitizers find memory and UB
# errors by executing code, not by checking values, and the differential suites run the same code
# paths on most models (one step function, one collision table), so a quarter of the models
# (MOREAU_MODEL_STRIDE=4, tests/model_list.h; every other unit test runs whole) exercises almost
# all of them at a third of the cost; ASan+UBSan at -O1 runs the suite about 3x slower than Release,
# so all models would alone take most of the budget; in that subset the finite-difference
# derivative suites also leave out models over 500 dofs (tests/model_list.h, too_large_for_subset),
# whose nv-column differences dominated them. The sanitizer library is also the fuzzer's
# (libFuzzer coverage compiled in), which saves a third build. ThreadSanitizer needs its own build,
# so it is limited to the library and the parallel-rollout test (one Model, one Data per thread).
#
# Environment: JOBS (default 2); MOREAU_SKIP_SANITIZE=1 leaves out the sanitizer builds and the fuzz
# run (a quick local run); MOREAU_SKIP_FUZZ=1 only the fuzz run; MOREAU_MODEL_STRIDE overrides the
# sanitizer run's model subset (1 = every model).
set -euo pipefail
cd "$(dirname "$0")/.."
timed() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "test.sh: $name: $((SECONDS - start)) s" >&2
}
release_tests() { (cd build && ctest --output-on-failure -j"${JOBS:-2}" --timeout 1200); }
fuzz_run() { scripts/fuzz.sh 20000 1; }

timed "setup and Release build" scripts/setup.sh
timed "Release tests" release_tests
if [ "${MOREAU_SKIP_SANITIZE:-0}" != 1 ]; then
  timed "ASan+UBSan build" scripts/sanitize.sh build
  [ "${MOREAU_SKIP_FUZZ:-0}" = 1 ] || timed "fuzz (20000 inputs)" fuzz_run
  timed "ASan+UBSan tests" scripts/sanitize.sh test
  timed "TSan build and run" scripts/sanitize.sh tsan
fi
