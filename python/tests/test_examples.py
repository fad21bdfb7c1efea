"""The Python examples run and print what physics predicts."""

import math
import re
import subprocess
import sys

import pytest

from conftest import ROOT

EX = ROOT / "examples" / "python"


def run(name, *args, cwd=None):
    r = subprocess.run([sys.executable, str(EX / name), *args], capture_output=True, text=True, timeout=300,
                       cwd=cwd)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_pd_pendulum_settles_where_pd_balances_gravity():
    out = run("pd_pendulum.py")
    final = [float(x) for x in re.findall(r"final angle (-?[\d.]+) deg", out)]
    assert len(final) == 2 and final[0] == final[1]  # own loop and callback: the same steps
    # Steady state: KP (target - q) = g (m_bob L_bob + m_rod L_rod/2) sin q, solved by bisection.
    kp, target, g = 40.0, math.pi / 3, 9.81
    moment = 1.0 * 0.5 + 0.1 * 0.25
    lo, hi = 0.0, target
    for _ in range(100):
        q = 0.5 * (lo + hi)
        lo, hi = (q, hi) if kp * (target - q) > g * moment * math.sin(q) else (lo, q)
    assert final[0] == pytest.approx(math.degrees(q), abs=2e-3)


def test_sliding_cube_follows_maximum_dissipation(tmp_path):
    out = run("sliding_cube_models.py", "--out", str(tmp_path / "plot.png"))
    ke = dict(re.findall(r"^\s*([\w-]+): kinetic energy at t = 0.1 s: ([\d.]+) J", out, re.M))
    assert set(ke) == {"Newton", "CG", "PGS", "raisim", "raisim-ds", "ncp-pgs", "ccp", "lcp"}
    exact = 0.5 * (1.0 - 0.5 * 9.81 * 0.1) ** 2  # 0.5 m (v0 - mu g t)^2, m = 1 kg, v0 = 1 m/s
    for s in ("raisim-ds", "ncp-pgs", "lcp"):
        assert float(ke[s]) == pytest.approx(exact, abs=1e-4), s
    assert (tmp_path / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_humanoid_contacts_prints_supporting_forces():
    out = run("humanoid_contacts.py")
    blocks = re.findall(r"contacts: (\d+)", out)
    assert len(blocks) == 5 and any(int(n) > 0 for n in blocks)
    forces = re.findall(r"force \[\s*([-\d.e+]+)\s+([-\d.e+]+)\s+([-\d.e+]+)\s*\] N", out)
    assert forces and all(float(z) > 0 for _, _, z in forces)  # the floor pushes up


def test_ilqr_analytic_and_finite_difference_derivatives_agree():
    out = run("ilqr.py", "--iterations", "8")
    runs = re.split(r"^(?=\S.*: (?:analytic|finite))", out, flags=re.M)
    costs = [[float(c) for c in re.findall(r"cost\s+([\d.]+)", r)] for r in runs if "cost" in r]
    assert len(costs) == 4  # cartpole and box, analytic and finite differences
    for analytic, fd in ((costs[0], costs[1]), (costs[2], costs[3])):
        assert analytic[-1] < 0.2 * analytic[0]  # iLQR makes progress
        # the same iterations up to the differences' error (printed to 5 decimals)
        assert analytic == pytest.approx(fd, rel=1e-5, abs=1e-4)
