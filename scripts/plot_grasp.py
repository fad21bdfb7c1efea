"""Plot and tabulate the grasp and slope experiments (scripts/grasp_experiment.sh).

usage: /usr/bin/python3 scripts/plot_grasp.py RUNS_DIR OUT.png TABLE.csv

Creep is the least-squares slope of the slip (m) against time (s) after settling: from 4.0 s (2 s
after the grasp reaches its holding squeeze) to the end of the run (12 s), or from 2.0 s to 10 s
on the slope. A box that slides 5 cm (half its height) is lost: the creep is then the slope from the
start of the window (2.0 s for the grasp) to that moment, and the moment is reported. A grasp holds
at a squeeze when the box never moves by more than 10 micrometres against the fingers and creeps
by at most 1e-6 m/s after settling.
"""
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MODELS = ["raisim", "raisim-ds", "ncp-pgs", "ccp", "lcp", "newton", "cg", "pgs", "newton-elliptic",
          "newton-noslip", "newton-elliptic-impratio10"]
LABEL = {"newton": "MuJoCo soft, Newton (pyramidal)", "cg": "MuJoCo soft, CG (pyramidal)",
         "pgs": "MuJoCo soft, PGS (pyramidal)", "newton-elliptic": "MuJoCo soft, Newton, elliptic",
         "newton-noslip": "MuJoCo soft, Newton, noslip (10 iterations)",
         "newton-elliptic-impratio10": "MuJoCo soft, Newton, elliptic, impratio 10"}
HARD = {"raisim", "raisim-ds", "ncp-pgs", "ccp", "lcp"}
LOST = 0.05
HOLD_CREEP = 1e-6
HOLD_SLIP = 1e-5
KEYS = ((1, "0.95"), (2, "0.97"), (3, "0.99"), (4, "0.999"), (5, "1.01"))


def read(path):
    rows, error = [], None
    if not os.path.exists(path):
        return rows, "no data"
    with open(path) as f:
        lines = f.read().splitlines()
    if lines and lines[-1].startswith("{"):
        error = lines[-1]
        lines = lines[:-1]
    for r in csv.DictReader(lines):
        rows.append(r)
    return rows, error


def creep(rows, t0, t1, t0_lost):
    """(slope m/s, time lost or None, end time reached): over [t0, t1], or over [t0_lost, time lost]
    when |slip| passes LOST."""
    lost = next((float(r["time"]) for r in rows if abs(float(r["slip"])) > LOST), None)
    if lost is not None:
        t0, t1 = t0_lost, lost
    ts = [float(r["time"]) for r in rows if t0 <= float(r["time"]) <= t1]
    ss = [float(r["slip"]) for r in rows if t0 <= float(r["time"]) <= t1]
    end = float(rows[-1]["time"]) if rows else 0.0
    if len(ts) < 2:
        return None, lost, end
    n = len(ts)
    mt, ms = sum(ts) / n, sum(ss) / n
    num = sum((t - mt) * (s - ms) for t, s in zip(ts, ss))
    den = sum((t - mt) ** 2 for t in ts)
    return num / den, lost, end


def fmt(v):
    return "n/a" if v is None else f"{v:.2g}"


def main():
    data, out = sys.argv[1], sys.argv[2]
    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2))
    table = []
    for name in MODELS:
        label = LABEL.get(name, name)
        style = "-" if name in HARD else "--"
        g, gerr = read(os.path.join(data, f"grasp_{name}.csv"))
        s, serr = read(os.path.join(data, f"slope_{name}.csv"))
        gc, glost, gend = creep(g, 4.0, 12.0, 2.0) if g else (None, None, 0)
        sc, slost, send = creep(s, 2.0, 10.0, 0.0) if s else (None, None, 0)
        def holds(rows, err, lost, c):
            return (not err and lost is None and rows and float(rows[-1]["time"]) >= 11.9 and c is not None
                    and abs(c) <= HOLD_CREEP and max(abs(float(r["slip"])) for r in rows) <= HOLD_SLIP)
        hold = [("0.9", holds(g, gerr, glost, gc), glost, gerr, gc)]
        for key, u in KEYS:
            k, kerr = read(os.path.join(data, f"grasp_{name}_key{key}.csv"))
            kc, klost, kend = creep(k, 4.0, 12.0, 2.0) if k else (None, None, 0)
            held = holds(k, kerr, klost, kc)
            hold.append((u, held, klost, kerr, kc))
        use = max((float(r["friction_use"]) for r in g if r["phase"] == "hold"), default=0.0)
        table.append((name, gc, glost, gerr, sc, slost, serr, hold, use))
        if g:
            t = [float(r["time"]) for r in g]
            axes[0].plot(t, [1e3 * float(r["slip"]) for r in g], style, label=label)
            axes[1].plot(t, [max(abs(float(r["slip"])), 1e-13) for r in g], style, label=label)
        if s:
            axes[2].plot([float(r["time"]) for r in s], [max(abs(float(r["slip"])), 1e-13) for r in s], style,
                         label=label)
    axes[0].set_title("grasp at 0.9 of the friction limit: slip of the box (mm)")
    axes[0].set_xlabel("time (s)")
    axes[0].set_ylabel("slip (mm)")
    axes[0].set_ylim(-25, 2)
    axes[0].axvspan(0.5, 1.5, color="#eeeeee")
    axes[0].text(0.55, 1, "lift", fontsize=8)
    axes[1].set_title("grasp: |slip| (log scale)")
    axes[1].set_yscale("log")
    axes[1].set_xlabel("time (s)")
    axes[1].set_ylabel("|slip| (m)")
    axes[2].set_title("slope at 0.9 of the friction angle: |slip| (log)")
    axes[2].set_yscale("log")
    axes[2].set_xlabel("time (s)")
    axes[2].set_ylabel("|slip| (m)")
    for a in axes:
        a.grid(True, alpha=0.3)
    axes[1].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=90)

    print("| contact model | grasp creep (m/s) | grasp: box lost at | slope creep (m/s) | slope: lost at |"
          " holds at 0.9 / 0.95 / 0.97 / 0.99 / 0.999 / 1.01 of the limit |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for name, gc, glost, gerr, sc, slost, serr, hold, use in table:
        def lost(l, err):
            if err:
                return "stopped: " + err.split('"error":"')[-1].split(":")[0]
            return "-" if l is None else f"{l:.2f} s"
        def verdict(held, lost_at, err, c):
            if held:
                return "yes"
            if err:
                return "error"
            if lost_at:
                return f"lost {lost_at:.1f} s"
            if c is not None and abs(c) > HOLD_CREEP:
                return f"creeps {fmt(c)}"
            return "slips, then holds"
        h = " / ".join(verdict(held, l, err, c) for u, held, l, err, c in hold)
        print(f"| {LABEL.get(name, name)} | {fmt(gc)} | {lost(glost, gerr)} | {fmt(sc)} | {lost(slost, serr)} | {h} |")
    with open(sys.argv[3], "w") as f:
        f.write("model,grasp_creep,grasp_lost,slope_creep,slope_lost," + ",".join(f"held_{h[0]}" for h in table[0][7]) + "\n")
        for name, gc, glost, gerr, sc, slost, serr, hold, use in table:
            f.write(",".join([name, fmt(gc), "" if glost is None else f"{glost:.3f}", fmt(sc),
                              "" if slost is None else f"{slost:.3f}"] + [str(int(h[1])) for h in hold]) + "\n")


if __name__ == "__main__":
    main()
