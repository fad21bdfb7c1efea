#!/usr/bin/env bash
# Set up, build, and simulate a model (default: the bundled humanoid), printing a short summary.
#   scripts/demo.sh [MODEL.xml] [--steps N]
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the demo runs: the CLI (and the library it links) and the Python package, not the tests
# and benchmarks.
scripts/setup.sh moreau_cli moreau_python >/dev/null
exec build/moreau simulate "$@"
