#!/usr/bin/env bash
# Set up, build, and simulate a model (default: the bundled humanoid), printing a short summary.
#   scripts/demo.sh [MODEL.xml] [--steps N]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
exec build/moreau simulate "$@"
