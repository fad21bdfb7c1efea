"""The sliding cube of the RaiSim paper (models/experiments/sliding_cube.xml) under every contact
model: kinetic energy over time against the maximum-dissipation curve 0.5 m (v0 - mu g t)^2.
Saves sliding_cube_models.png (matplotlib).

    /usr/bin/python3 examples/python/sliding_cube_models.py [--out FILE.png]
"""

import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import moreau  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOLVERS = ["Newton", "CG", "PGS", "raisim", "raisim-ds", "ncp-pgs", "ccp", "lcp"]


def run(solver, steps=400):
    m = moreau.Model.from_xml_path(str(ROOT / "models" / "experiments" / "sliding_cube.xml"))
    m.opt.solver = solver
    m.opt.enableflags |= int(moreau.EnableBit.ENERGY)
    d = moreau.Data(m)
    moreau.reset_data_keyframe(m, d, 0)
    t, ke, err = [], [], []
    for _ in range(steps):
        moreau.step(m, d)
        t.append(d.time)
        ke.append(0.5 * float(np.dot(d.qvel[:3], d.qvel[:3])))  # m = 1 kg: translational energy
        err.append(moreau.contact_metrics(m, d, d.qvel)["eps_abs"])
    return np.array(t), np.array(ke), np.array(err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="sliding_cube_models.png")
    a = ap.parse_args()
    mu, g, v0 = 0.5, 9.81, 1.0
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for s in SOLVERS:
        t, ke, err = run(s)
        ax.plot(t, ke, label=s)
        ax2.semilogy(t, np.maximum(err, 1e-16), label=s)
        print(f"{s:>9}: kinetic energy at t = 0.1 s: {ke[np.searchsorted(t, 0.1)]:.5f} J, "
              f"median eps_abs {np.median(err):.2e}")
    tt = np.linspace(0, 0.4, 200)
    ax.plot(tt, 0.5 * np.maximum(v0 - mu * g * tt, 0) ** 2, "k--", label="max. dissipation")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("kinetic energy (J)")
    ax.legend(fontsize=8)
    ax2.set_xlabel("time (s)")
    ax2.set_ylabel("eps_abs (RaiSim paper)")
    fig.tight_layout()
    fig.savefig(a.out, dpi=100)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
