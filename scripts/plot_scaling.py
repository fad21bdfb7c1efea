"""Plot the scaling benchmark (build/bench/moreau_scaling) and fit its exponents.

usage: /usr/bin/python3 scripts/plot_scaling.py SCALING.csv OUT.png [FIT.json]

SCALING.csv is moreau_scaling's --csv output: one row per family (chain, tree, pile), N, mode
(smooth: constraints disabled; full: default options; collision: collision detection alone) and
engine (moreau, mujoco), with the median
CPU time per step and per-stage estimates in microseconds. The figure has one panel per family
(cost per step against N, log-log) and a fourth with the pile's constraint-solver time per contact
against the number of contacts. Exponents are least-squares slopes of log(cost) against log(N),
over all N and over the four largest N (the asymptotic range, where fixed per-step costs no longer
count); FIT.json receives them.
"""
import csv
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FAMILIES = ("chain", "tree", "pile")
TITLE = {"chain": "chain of N hinged capsules", "tree": "binary tree of N hinged spheres",
         "pile": "pile of N free boxes at rest"}
COLOR = {"moreau": "tab:blue", "mujoco": "tab:orange"}
NAME = {"moreau": "Moreau", "mujoco": "MuJoCo 2.2.2"}
STYLE = {"full": "-", "smooth": "--", "collision": ":"}
MARKER = {"full": "o", "smooth": "s", "collision": "^"}
MODE = {"full": "full step", "smooth": "constraints off", "collision": "collision only"}
MODES = ("full", "smooth", "collision")
STAGES = ("kinematics", "inertia", "collision", "make", "project", "velocity", "actuation",
          "acceleration", "constraint")
TAIL = 4


def slope(xs, ys):
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if sxx == 0:
        return None
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx


def read(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["n"] = int(r["n"])
        for k in r:
            if k.startswith("us_") or k in ("ncon", "nefc"):
                r[k] = float(r[k])
    return rows


def series(rows, family, mode, engine):
    return sorted((r for r in rows if r["family"] == family and r["mode"] == mode
                   and r["engine"] == engine), key=lambda r: r["n"])


def fits(rows):
    out = []
    for family in FAMILIES:
        for mode in MODES:
            for engine in ("moreau", "mujoco"):
                s = series(rows, family, mode, engine)
                if len(s) < 2:
                    continue
                n = [r["n"] for r in s]
                f = {"family": family, "mode": mode, "engine": engine,
                     "n": [n[0], n[-1]],
                     "step": slope(n, [r["us_per_step"] for r in s]),
                     "step_tail": slope(n[-TAIL:], [r["us_per_step"] for r in s][-TAIL:]),
                     "stages_tail": {st: slope(n[-TAIL:], [r["us_" + st] for r in s][-TAIL:])
                                     for st in STAGES}}
                if family == "pile" and mode == "full":
                    con = [(r["ncon"], r["us_constraint"]) for r in s if r["ncon"] > 0]
                    f["constraint_vs_ncon"] = slope([c[0] for c in con], [c[1] for c in con])
                    f["constraint_vs_ncon_tail"] = slope([c[0] for c in con][-TAIL:],
                                                         [c[1] for c in con][-TAIL:])
                    f["us_constraint_per_contact"] = {str(r["n"]): r["us_constraint"] / r["ncon"]
                                                      for r in s if r["ncon"] > 0}
                    f["us_step_per_contact"] = {str(r["n"]): r["us_per_step"] / r["ncon"]
                                                for r in s if r["ncon"] > 0}
                out.append(f)
    return out


def fmt(p):
    return "n/a" if p is None else f"{p:.2f}"


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    rows = read(argv[1])
    fit = fits(rows)
    by = {(f["family"], f["mode"], f["engine"]): f for f in fit}

    fig, grid = plt.subplots(2, 2, figsize=(13, 10))
    axes = grid.flatten()
    for ax, family in zip(axes, FAMILIES):
        for mode in MODES:
            for engine in ("moreau", "mujoco"):
                s = series(rows, family, mode, engine)
                if not s:
                    continue
                f = by.get((family, mode, engine), {})
                label = f"{NAME[engine]}, {MODE[mode]}: N^{fmt(f.get('step_tail'))}"
                ax.loglog([r["n"] for r in s], [r["us_per_step"] for r in s], STYLE[mode],
                          marker=MARKER[mode], color=COLOR[engine], label=label, ms=4)
        ax.set_title(TITLE[family])
        ax.set_xlabel("N")
        ax.set_ylabel("CPU time per step or per collision call (µs)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, title=f"exponent over the {TAIL} largest N", title_fontsize=8)

    ax = axes[3]
    for engine in ("moreau", "mujoco"):
        s = [r for r in series(rows, "pile", "full", engine) if r["ncon"] > 0]
        if not s:
            continue
        f = by.get(("pile", "full", engine), {})
        ax.semilogx([r["ncon"] for r in s], [r["us_constraint"] / r["ncon"] for r in s], "-o",
                    color=COLOR[engine], ms=4,
                    label=f"{NAME[engine]}: solver ~ ncon^{fmt(f.get('constraint_vs_ncon_tail'))}")
        ax.semilogx([r["ncon"] for r in s], [r["us_per_step"] / r["ncon"] for r in s], ":",
                    marker="^", color=COLOR[engine], ms=4, label=f"{NAME[engine]}: whole step")
    ax.set_title("pile: cost per contact")
    ax.set_xlabel("contacts")
    ax.set_ylabel("µs per contact")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)

    for f in fit:
        print(f"{f['family']:5} {f['mode']:6} {f['engine']:6} step N^{fmt(f['step'])} (all N), "
              f"N^{fmt(f['step_tail'])} (largest {TAIL})"
              + (f"; solver ~ ncon^{fmt(f['constraint_vs_ncon_tail'])}" if "constraint_vs_ncon" in f else ""))
    if len(argv) == 4:
        with open(argv[3], "w") as out:
            json.dump({"tail_points": TAIL, "fits": fit}, out, indent=1)
            out.write("\n")


if __name__ == "__main__":
    main(sys.argv)
