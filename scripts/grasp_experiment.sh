#!/usr/bin/env bash
# The grasp and slope experiments (docs/contact_models.md, "A grasp that holds"): runs
# `moreau experiment grasp` and `moreau experiment slope` for every contact model (and the grasp at
# squeezes closer to the friction limit), makes the plot (matplotlib, Debian's /usr/bin/python3) in
# docs/img and the creep table docs/data/grasp_creep.csv from the full runs, and keeps every 10th
# row (20 ms) of the grasp and slope runs at 0.9 of the limit in docs/data. scripts/experiments.sh calls it; it also runs alone:
#
#   scripts/grasp_experiment.sh [BUILD_DIR]     (default build/; needs BUILD_DIR/moreau)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
MOREAU=$BUILD/moreau
DATA=docs/data
[ -x "$MOREAU" ] || { echo "no $MOREAU: build first" >&2; exit 1; }
mkdir -p "$DATA" docs/img
RUNS=$(mktemp -d)
trap 'rm -rf "$RUNS"' EXIT

# name and options of each contact model: the hard-contact solvers, then MuJoCo's soft model
# (default pyramidal cone; elliptic; noslip; elliptic with impratio 10)
MODELS=(
  "raisim|--solver raisim" "raisim-ds|--solver raisim-ds" "ncp-pgs|--solver ncp-pgs" "ccp|--solver ccp"
  "lcp|--solver lcp"
  "newton|--solver Newton" "cg|--solver CG" "pgs|--solver PGS" "newton-elliptic|--solver Newton --cone elliptic"
  "newton-noslip|--solver Newton --noslip-iterations 10"
  "newton-elliptic-impratio10|--solver Newton --cone elliptic --impratio 10"
)
for entry in "${MODELS[@]}"; do
  name=${entry%%|*}
  opts=${entry#*|}
  # a solver that stops with an error (lcp: Lemke's pivot limit) leaves its rows so far and the error line
  # shellcheck disable=SC2086
  $MOREAU experiment grasp $opts > "$RUNS/grasp_$name.csv" || true
  # shellcheck disable=SC2086
  $MOREAU experiment slope $opts > "$RUNS/slope_$name.csv" || true
  # closer to the stick-slip limit: keyframes 1..5 hold the box at 0.95, 0.97, 0.99, 0.999 and 1.01 of it
  for key in 1 2 3 4 5; do
    # shellcheck disable=SC2086
    $MOREAU experiment grasp $opts --key $key > "$RUNS/grasp_${name}_key$key.csv" || true
  done
  # every 10th row (and a final error line, if any) of the runs at 0.9 of the limit
  for run in grasp slope; do
    awk 'NR == 1 || (NR - 1) % 10 == 0 || /^\{/' "$RUNS/${run}_$name.csv" > "$DATA/${run}_$name.csv"
  done
done
/usr/bin/python3 scripts/plot_grasp.py "$RUNS" docs/img/grasp.png "$DATA/grasp_creep.csv"
