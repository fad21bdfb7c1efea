#!/usr/bin/env bash
# The contact-model experiments (docs/contact_models.md): runs `moreau experiment` for
# every scene and contact model, writes the CSV data to docs/data and the plots to docs/img.
#
#   scripts/experiments.sh [BUILD_DIR]     (default build/; needs BUILD_DIR/moreau)
#
# The plots need gnuplot: installed from Debian's gnuplot-nox if missing (as root). CI does not run
# this script; the data and plots it makes are committed.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
MOREAU=$BUILD/moreau
DATA=docs/data
IMG=docs/img
[ -x "$MOREAU" ] || { echo "no $MOREAU: build first (scripts/test.sh or cmake --build $BUILD)" >&2; exit 1; }
if ! command -v gnuplot >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y --no-install-recommends gnuplot-nox
  else
    echo "gnuplot is missing: apt-get install gnuplot-nox" >&2
    exit 1
  fi
fi
mkdir -p "$DATA" "$IMG"

# the hard-contact solvers, then MuJoCo's soft model (Newton, elliptic cone)
MODELS="raisim raisim-ds ncp-pgs ccp lcp newton"
options() { [ "$1" = newton ] && echo "--solver Newton --cone elliptic" || echo "--solver $1"; }

for s in $MODELS; do
  o=$(options "$s")
  $MOREAU experiment sliding-cube $o --key 0 > "$DATA/sliding_cube_1ms_$s.csv"
  $MOREAU experiment sliding-cube $o --key 1 > "$DATA/sliding_cube_3ms_$s.csv"
  $MOREAU experiment dragged-cube $o > "$DATA/dragged_cube_$s.csv"
  $MOREAU experiment two-blocks $o --steps 5 > "$DATA/two_blocks_$s.csv"
  $MOREAU experiment spinning-ball $o --steps 100 > "$DATA/spinning_ball_$s.csv"
  [ "$s" = newton ] || $MOREAU experiment impact $o > "$DATA/impact_$s.csv"
done

# columns by name (gnuplot's columnheader lookup): using (column("time")):(column("kinetic"))
gnuplot <<'EOF'
set datafile separator ","
set terminal pngcairo size 1200,460 font "sans,10" linewidth 1.5 noenhanced
set key top right
set grid
models = "raisim raisim-ds ncp-pgs ccp lcp newton"
colors = "#d62728 #1f77b4 #2ca02c #ff7f0e #9467bd #7f7f7f"
title_of(s) = (s eq "newton") ? "MuJoCo soft (Newton, elliptic)" : s
# the same colour for a contact model in every plot
set for [i=1:6] linetype i lc rgb word(colors, i)

set terminal pngcairo size 1200,860 font "sans,10" linewidth 1.5 noenhanced
set output "docs/img/sliding_cube.png"
set multiplot layout 2,2 title "Sliding cube (RaiSim paper, Fig. 3): kinetic energy, mu = 0.5, h = 1 ms"
do for [v in "1ms 3ms"] {
  set title (v eq "1ms" ? "v0 = 1 m/s" : "v0 = 3 m/s")
  set xlabel "time (s)"
  set ylabel "kinetic energy (J)"
  set yrange [*:*]
  plot "docs/data/sliding_cube_".v."_raisim.csv" using "time":"kinetic_analytic" with lines lw 4 lc rgb "#bbbbbb" title "maximum dissipation (analytic)", \
       for [i=1:6] "docs/data/sliding_cube_".v."_".word(models,i).".csv" using "time":"kinetic" with lines lt i title title_of(word(models,i))
}
do for [v in "1ms 3ms"] {
  set title (v eq "1ms" ? "v0 = 1 m/s: kinetic energy minus the analytic curve" : "v0 = 3 m/s: kinetic energy minus the analytic curve")
  set ylabel "excess kinetic energy (J)"
  set yrange [(v eq "1ms" ? -0.02 : -0.1):(v eq "1ms" ? 0.02 : 0.1)]
  plot for [i=1:6] "docs/data/sliding_cube_".v."_".word(models,i).".csv" using "time":(column("kinetic") - column("kinetic_analytic")) with lines lt i title title_of(word(models,i))
}
set yrange [*:*]
unset multiplot

set terminal pngcairo size 1200,900 font "sans,10" linewidth 1.5 noenhanced
set output "docs/img/dragged_cube.png"
set multiplot layout 2,2 title "Dragged cube (RaiSim paper, Fig. 4): F = 4 t N along x, mu = 0.5 (sliding from t = 1.227 s)"
set xlabel "time (s)"
set title "raisim: force along y at the four contacts"
set ylabel "f_y (N)"
plot for [c in "fy_pp fy_pm fy_mp fy_mm"] "docs/data/dragged_cube_raisim.csv" using "time":c with lines title c
set title "raisim-ds: force along y at the four contacts"
plot for [c in "fy_pp fy_pm fy_mp fy_mm"] "docs/data/dragged_cube_raisim-ds.csv" using "time":c with lines title c
set title "velocity along x"
set ylabel "v_x (m/s)"
set key top left
plot "docs/data/dragged_cube_raisim.csv" using "time":"vx_analytic" with lines lw 4 lc rgb "#bbbbbb" title "analytic", \
     for [i=1:6] "docs/data/dragged_cube_".word(models,i).".csv" using "time":"vx" with lines lt i title title_of(word(models,i))
set title "eps_abs (paper, Sec. II)"
set ylabel "eps_abs"
set logscale y
set format y "10^{%L}"
set yrange [1e-18:1e4]
plot for [i=1:6] "docs/data/dragged_cube_".word(models,i).".csv" using "time":(column("eps_abs") > 0 ? column("eps_abs") : 1e-18) with lines lt i title title_of(word(models,i))
unset logscale y
set format y "%g"
set yrange [*:*]
unset multiplot

set terminal pngcairo size 1200,460 font "sans,10" linewidth 1.5 noenhanced
set output "docs/img/two_blocks.png"
set multiplot layout 1,2 title "Two blocks (Underactuated chapter, exercise): h = 1, unit masses and widths"
set key top left
set xlabel "step"
set title "positions"
set ylabel "q (m)"
plot "docs/data/two_blocks_lcp.csv" using "step":"qA" with linespoints pt 7 title "A, hard (every hard solver)", \
     "docs/data/two_blocks_lcp.csv" using "step":"qB" with linespoints pt 7 title "B, hard", \
     "docs/data/two_blocks_newton.csv" using "step":"qA" with linespoints pt 4 dt 2 title "A, MuJoCo soft", \
     "docs/data/two_blocks_newton.csv" using "step":"qB" with linespoints pt 4 dt 2 title "B, MuJoCo soft"
set title "velocities"
set ylabel "v (m/s)"
set key top right
plot "docs/data/two_blocks_lcp.csv" using "step":"vA" with linespoints pt 7 title "A, hard", \
     "docs/data/two_blocks_lcp.csv" using "step":"vB" with linespoints pt 7 title "B, hard", \
     "docs/data/two_blocks_newton.csv" using "step":"vA" with linespoints pt 4 dt 2 title "A, MuJoCo soft", \
     "docs/data/two_blocks_newton.csv" using "step":"vB" with linespoints pt 4 dt 2 title "B, MuJoCo soft"
unset multiplot

set output "docs/img/spinning_ball.png"
set multiplot layout 1,2 title "Spinning ball (Underactuated chapter): vx = 1, vz = -2, omega_y = 5 at contact, r = 0.1, mu = 100"
set xlabel "time (s)"
set key bottom right
set title "time stepping: v_x and r omega_y (e = 0 map: 0.8 and 0.8)"
set ylabel "m/s"
plot for [i=1:6] "docs/data/spinning_ball_".word(models,i).".csv" using "time":"vx" with lines lt i title title_of(word(models,i))." v_x", \
     for [i=1:6] "docs/data/spinning_ball_".word(models,i).".csv" using "time":(0.1*column("wy")) with lines lt i dt 2 title title_of(word(models,i))." r omega_y"
set title "impact map (moreau::impact): v_z after the impact against -e v_z"
set xlabel "coefficient of restitution e"
set ylabel "v_z+ (m/s)"
set key top left
plot "docs/data/impact_lcp.csv" using "e":"vz_map" with lines lw 4 lc rgb "#bbbbbb" title "closed form", \
     for [i=1:5] "docs/data/impact_".word(models,i).".csv" using "e":"vz" with points lt i pt (i+3) ps 1.5 title word(models,i)
unset multiplot
EOF
echo "wrote $DATA/*.csv and $IMG/*.png"
