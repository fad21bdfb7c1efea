#!/usr/bin/env bash
# Wall-clock of ANYmal standing (docs/contact_models.md, "ANYmal C standing"): runs of
# moreau_solver_loop (20000 steps) alternating MuJoCo 2.2.2 with Moreau's Newton, raisim and
# raisim-ds, with condim-3 feet and as shipped; prints each engine's user seconds (median and range)
# and the median of the per-repetition ratios MuJoCo / raisim.
#
#   bench/loop/anymal_wallclock.sh [REPS]     (default 7; CORE=n pins every run to core n)
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${1:-7}
bin=${SOLVER_LOOP:-build/bench/moreau_solver_loop}
model=${ANYMAL:-../shared/models/menagerie/anymal_c_collision.xml}
pin=()
[ -n "${CORE:-}" ] && pin=(taskset -c "$CORE")
declare -A t
user_s() { { /usr/bin/time -f %U "${pin[@]}" "$bin" "$model" 20000 "$@" >/dev/null; } 2>&1 | tail -1; }
for _ in $(seq "$reps"); do
  for feet in 3 shipped; do
    c=(); [ "$feet" = 3 ] && c=(--condim 3)
    for e in mujoco Newton raisim raisim-ds; do
      if [ "$e" = mujoco ]; then a=(--engine mujoco); else a=(--solver "$e"); fi
      t[$feet/$e]+="$(user_s "${a[@]}" "${c[@]}") "
    done
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.2f (%.2f..%.2f)", m, v[1], v[NR]}'; }
for feet in 3 shipped; do
  echo "feet $feet:"
  for e in mujoco Newton raisim raisim-ds; do echo "  $e $(echo "${t[$feet/$e]}" | median) s"; done
  ratios=$(paste <(echo "${t[$feet/mujoco]}" | tr ' ' '\n' | grep .) <(echo "${t[$feet/raisim]}" | tr ' ' '\n' | grep .) |
           awk '{printf "%.3f ", $1 / $2}')
  echo "  MuJoCo / raisim per repetition: $(echo "$ratios" | median)"
done
