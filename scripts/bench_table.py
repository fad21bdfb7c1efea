#!/usr/bin/python3
"""The README's performance table: Moreau against MuJoCo 2.2.2, medians of repeated runs.

    /usr/bin/python3 scripts/bench_table.py [--runs 3] [--min-time 0.5] [--bench build/bench/moreau_bench]
                                            [--stages]

Each run is one process of build/bench/moreau_bench (Google Benchmark, both engines in the same
process on the same model, state and options) over the rows below; a row's ratio in one run is
MuJoCo's CPU time per call over Moreau's from that same run, so both engines see the same machine
state. The table gives, per row, the median of the runs' times and the median ratio with its
min..max over the runs, and the filter that reproduces the row alone. The raw JSON of every run
goes to --out (default docs/data/bench_runs.json).

--stages adds where a whole step's time goes in Moreau for the `step` rows: the per-stage timers
of `build/moreau bench MODEL --steps 5000` (the median of the runs' shares of each stage).
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
SYSTEM = "/usr/share/mujoco/model/"
SHARED = os.environ.get("MOREAU_SHARED_DIR", str(ROOT.parent / "shared")) + "/models/"

# the models of bench/step_bench.cc's cases, for the stage timers of `moreau bench`
STEP_MODELS = {
    "humanoid": SYSTEM + "humanoid/humanoid.xml",
    "humanoid100": SYSTEM + "humanoid100/humanoid100.xml",
    "22_humanoids": SYSTEM + "humanoid/22_humanoids.xml",
    "cheetah": SHARED + "dm_control/cheetah.xml",
    "quadruped": SHARED + "dm_control/quadruped.xml",
    "dog": SHARED + "dm_control/dog.xml",
    "flag": SYSTEM + "flag/flag.xml",
    "arm26": SYSTEM + "tendon_arm/arm26.xml",
}
STAGES = [("pos_kinematics", "kinematics"), ("pos_inertia", "inertia"), ("pos_collision", "collision"),
          ("pos_make", "make constraints"), ("velocity", "velocity"), ("actuation", "actuation"),
          ("acceleration", "acceleration"), ("constraint", "constraint solver")]

# (label, Moreau benchmark, MuJoCo benchmark)
ROWS = [
    ("humanoid `step`", "moreau/step/humanoid", "mujoco/step/humanoid"),
    ("humanoid100 `step`", "moreau/step/humanoid100", "mujoco/step/humanoid100"),
    ("22_humanoids `step`", "moreau/step/22_humanoids", "mujoco/step/22_humanoids"),
    ("cheetah (dm_control) `step`", "moreau/step/cheetah", "mujoco/step/cheetah"),
    ("quadruped (dm_control) `step`", "moreau/step/quadruped", "mujoco/step/quadruped"),
    ("dog (dm_control) `step`", "moreau/step/dog", "mujoco/step/dog"),
    ("flag (composite cloth) `step`", "moreau/step/flag", "mujoco/step/flag"),
    ("arm26 `step`", "moreau/step/arm26", "mujoco/step/arm26"),
    ("humanoid `step`, constraints disabled", "moreau/step/humanoid_noconstraint", "mujoco/step/humanoid_noconstraint"),
    ("humanoid Euler step, constraints disabled", "moreau/euler_step/humanoid_nocon", "mujoco/euler_step/humanoid_nocon"),
    ("humanoid RK4 step, constraints disabled", "moreau/rk4_step/humanoid_nocon", "mujoco/rk4_step/humanoid_nocon"),
    ("humanoid100 `forward`, constraints and actuation disabled", "moreau/forward/humanoid100_nocon_noact",
     "mujoco/forward/humanoid100_nocon_noact"),
    ("humanoid100 Euler step, constraints and actuation disabled", "moreau/euler_step/humanoid100_nocon_noact",
     "mujoco/euler_step/humanoid100_nocon_noact"),
    ("humanoid100 RK4 step, constraints and actuation disabled", "moreau/rk4_step/humanoid100_nocon_noact",
     "mujoco/rk4_step/humanoid100_nocon_noact"),
    ("implicit `step`, humanoid", "moreau/implicit_step/humanoid", "mujoco/implicit_step/humanoid"),
    ("implicit `step`, arm26", "moreau/implicit_step/arm26", "mujoco/implicit_step/arm26"),
    ("collision only, humanoid100", "BM_MoreauCollision/0", "BM_MujocoCollision/0"),
    ("collision only, 22_humanoids", "BM_MoreauCollision/1", "BM_MujocoCollision/1"),
    ("collision only, 1000 boxes in one body (mid phase)", "BM_MoreauCollision/2", "BM_MujocoCollision/2"),
    ("collision only, pile of 36 mesh bodies", "BM_MoreauCollision/3", "BM_MujocoCollision/3"),
    ("`forward`, dog (tendons, actuators, sensors)", "moreau/forward/dog_tendons_sensors",
     "mujoco/forward/dog_tendons_sensors"),
    ("`forward`, arm26 (muscles, spatial tendons)", "moreau/forward/arm26_muscles_wraps",
     "mujoco/forward/arm26_muscles_wraps"),
    ("tendons + transmission + actuation, arm26", "moreau/transmission_actuation/arm26_muscles_wraps",
     "mujoco/transmission_actuation/arm26_muscles_wraps"),
    ("tendons + transmission + actuation, dog", "moreau/transmission_actuation/dog_tendons_sensors",
     "mujoco/transmission_actuation/dog_tendons_sensors"),
    ("sensors, humanoid", "moreau/sensors/humanoid_sensors", "mujoco/sensors/humanoid_sensors"),
    ("sensors, dog", "moreau/sensors/dog_tendons_sensors", "mujoco/sensors/dog_tendons_sensors"),
    ("derivatives of `step` (A, B), humanoid: analytic against 2.2.2's centred differences",
     "deriv/moreau_analytic/humanoid", "deriv/mujoco_fd_centred/humanoid"),
    ("derivatives of `step` (A, B), quadruped: analytic against 2.2.2's centred differences",
     "deriv/moreau_analytic/quadruped", "deriv/mujoco_fd_centred/quadruped"),
    ("derivatives of `step` (A, B), dog: analytic against 2.2.2's centred differences",
     "deriv/moreau_analytic/dog", "deriv/mujoco_fd_centred/dog"),
    ("derivatives of `step` (A, B), humanoid100: analytic against 2.2.2's centred differences",
     "deriv/moreau_analytic/humanoid100", "deriv/mujoco_fd_centred/humanoid100"),
]


def regex(names):
    return "^(" + "|".join(names) + ")$"


def cell(names):
    """The filter as a Markdown table cell (a '|' inside a cell is written '\\|')."""
    return "`" + regex(names).replace("|", "\\|") + "`"


def fmt_us(t):
    if t >= 1e5:
        return f"{t / 1e3:.0f} ms"
    return f"{t:.3g} µs" if t < 100 else f"{t:.0f} µs"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=0.5)
    ap.add_argument("--bench", default=str(ROOT / "build" / "bench" / "moreau_bench"))
    ap.add_argument("--out", default=str(ROOT / "docs" / "data" / "bench_runs.json"))
    ap.add_argument("--only", help="a substring of the row labels to run")
    ap.add_argument("--stages", action="store_true", help="per-stage shares of the step rows")
    ap.add_argument("--cli", default=str(ROOT / "build" / "moreau"))
    args = ap.parse_args()
    rows = [r for r in ROWS if not args.only or args.only in r[0]]
    names = [n for r in rows for n in r[1:]]
    available = set(subprocess.run([args.bench, "--benchmark_list_tests"], capture_output=True, text=True,
                                   check=True).stdout.split())
    missing = [n for n in names if n not in available]
    if missing:
        sys.exit(f"bench_table: not in {args.bench}: {', '.join(missing)}")
    runs = []
    for k in range(args.runs):
        out = subprocess.run([args.bench, f"--benchmark_filter={regex(names)}", "--benchmark_format=json",
                              f"--benchmark_min_time={args.min_time}"], capture_output=True, text=True, check=True)
        data = json.loads(out.stdout)
        times = {b["name"]: b["cpu_time"] * {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b["time_unit"]]
                 for b in data["benchmarks"] if "error_occurred" not in b}
        runs.append({"load": os.getloadavg(), "times_us": times})
        print(f"run {k + 1}/{args.runs} done (load {os.getloadavg()[0]:.2f})", file=sys.stderr, flush=True)
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(args.out).write_text(json.dumps({"rows": rows, "runs": runs}, indent=1))

    print("| case | Moreau | MuJoCo 2.2.2 | MuJoCo / Moreau, median (min..max) | reproduce: `--benchmark_filter=` |")
    print("| --- | ---: | ---: | ---: | --- |")
    for label, mo, mj in rows:
        got = [r["times_us"] for r in runs if mo in r["times_us"] and mj in r["times_us"]]
        if not got:
            print(f"| {label} | error | error | - | {cell([mo, mj])} |")
            continue
        ratios = [t[mj] / t[mo] for t in got]
        print(f"| {label} | {fmt_us(statistics.median(t[mo] for t in got))} | "
              f"{fmt_us(statistics.median(t[mj] for t in got))} | {statistics.median(ratios):.2f} "
              f"({min(ratios):.2f}..{max(ratios):.2f}) | {cell([mo, mj])} |")


    if args.stages:
        stage_table(args, rows)


def stage_table(args, rows):
    cases = [mo.split("/")[-1] for _, mo, _ in rows if mo.startswith("moreau/step/") and mo.split("/")[-1] in STEP_MODELS]
    print("\n| `step` of | us per step | " + " | ".join(name for _, name in STAGES) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in STAGES) + " |")
    for case in cases:
        shares, per_step = {k: [] for k, _ in STAGES}, []
        for _ in range(args.runs):
            out = subprocess.run([args.cli, "bench", STEP_MODELS[case], "--steps", "5000"], capture_output=True,
                                 text=True, check=True)
            r = json.loads(out.stdout)
            per_step.append(r["us_per_step"])
            for k, _ in STAGES:
                st = r["stages"].get(k, {"calls": 0, "us_per_call": 0})
                shares[k].append(st["us_per_call"] * st["calls"] / r["steps"] / r["us_per_step"])
        print(f"| {case} | {statistics.median(per_step):.3g} | " +
              " | ".join(f"{100 * statistics.median(shares[k]):.0f}%" for k, _ in STAGES) + " |")


if __name__ == "__main__":
    main()
