#!/usr/bin/env bash
# Set up, build, and run the whole test suite (unit tests, CLI tests, differential tests against
# MuJoCo 2.2.2).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd build
ctest --output-on-failure -j"${JOBS:-2}" --timeout 600
