"""Python results equal the C++ CLI's bit for bit (forward, inverse, a 1000-step rollout) on models
of tests/models_mujoco222.txt, and MuJoCo 2.2.2's to the differential suites' tolerances."""

import json
import pathlib
import subprocess

import numpy as np
import pytest

import moreau
from conftest import CLI, SHARED, model_list

# Ten or more models of the differential corpus: contacts, tendons, muscles, equality constraints,
# actuators of several kinds, sensors, free and ball joints.
PARITY_MODELS = [
    "dm_control/cartpole.xml", "dm_control/acrobot.xml", "dm_control/cheetah.xml",
    "dm_control/hopper.xml", "dm_control/walker.xml", "dm_control/finger.xml",
    "dm_control/humanoid.xml", "dm_control/quadruped.xml", "dm_control/swimmer.xml",
    "dm_control/point_mass.xml", "system:humanoid/humanoid.xml", "system:tendon_arm/arm26.xml",
    "system:slider_crank/slider_crank.xml",
]


def model_path(name):
    if name.startswith("system:"):
        return pathlib.Path("/usr/share/mujoco/model") / name[len("system:"):]
    return SHARED / "models" / name


def available():
    listed = {str(p) for p in model_list()}
    out = [model_path(n) for n in PARITY_MODELS]
    return [p for p in out if str(p) in listed]


MODELS = available()


def test_enough_models():
    if not (SHARED / "models").exists():
        pytest.skip(f"the shared models folder {SHARED} is absent: set MOREAU_SHARED_DIR to run all")
    assert len(MODELS) >= 10


def states(m, n, seed):
    """n states near keyframe 0 (or qpos0): random velocities, controls and applied forces."""
    rng = np.random.default_rng(seed)
    base = m.key_qpos[0] if m.nkey else m.qpos0
    out = []
    for _ in range(n):
        qpos = base.copy()
        d = moreau.Data(m)
        moreau.integrate_pos(m, qpos, rng.normal(0, 0.05, m.nv), 1.0)
        s = {"qpos": qpos, "qvel": rng.normal(0, 0.5, m.nv), "act": rng.uniform(0, 0.5, m.na),
             "ctrl": rng.uniform(-1, 1, m.nu), "qfrc_applied": rng.normal(0, 1, m.nv)}
        if m.nu:
            lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
            lim = m.actuator_ctrllimited.astype(bool)
            s["ctrl"][lim] = np.clip(s["ctrl"][lim], lo[lim], hi[lim])
        del d
        out.append(s)
    return out


def run_cli(args, lines):
    text = "".join(json.dumps({k: np.asarray(v).tolist() for k, v in s.items()}) + "\n" for s in lines)
    r = subprocess.run([str(CLI)] + args, input=text, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return [json.loads(x) for x in r.stdout.splitlines()]


def load_state(m, d, s):
    moreau.reset_data(m, d)
    for k, v in s.items():
        getattr(d, k)[...] = v


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.name)
def test_forward_inverse_bitwise_equal_to_cli(path):
    m = moreau.Model.from_xml_path(str(path))
    d = moreau.Data(m)
    sts = states(m, 4, seed=len(path.name))
    outs = run_cli(["forward", str(path), "--full"], sts)
    for s, o in zip(sts, outs):
        load_state(m, d, s)
        moreau.forward(m, d)
        assert d.qacc.tolist() == o["qacc"]
        assert d.qfrc_bias.tolist() == o["qfrc_bias"]
        assert d.qfrc_constraint.tolist() == o["qfrc_constraint"]
        assert d.xpos.ravel().tolist() == o["xpos"]
        assert d.xquat.ravel().tolist() == o["xquat"]
        assert d.sensordata.tolist() == o["sensordata"]
        assert d.actuator_force.tolist() == o["actuator_force"]
        assert d.ncon == o["ncon"] and d.contact.dist.tolist() == o["contact_dist"]
        assert d.efc_force.tolist() == o["efc_force"]
    inv_in = []
    for s in sts:
        s = dict(s)
        s["qacc"] = np.linspace(-1, 1, m.nv)
        inv_in.append(s)
    outs = run_cli(["inverse", str(path)], inv_in)
    for s, o in zip(inv_in, outs):
        load_state(m, d, s)
        moreau.inverse(m, d)
        assert d.qfrc_inverse.tolist() == o["qfrc_inverse"]
        assert d.qfrc_constraint.tolist() == o["qfrc_constraint"]


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.name)
def test_rollout_bitwise_equal_to_cli(path):
    m = moreau.Model.from_xml_path(str(path))
    d = moreau.Data(m)
    r = subprocess.run([str(CLI), "rollout", str(path), "--steps", "1000"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    o = json.loads(r.stdout.splitlines()[-1])
    if m.nkey:
        moreau.reset_data_keyframe(m, d, 0)
    moreau.step(m, d, nstep=1000)
    assert d.time == o["time"]
    assert d.qpos.tolist() == o["qpos"] and d.qvel.tolist() == o["qvel"] and d.act.tolist() == o["act"]
    # the same from a Python loop of single steps
    d2 = moreau.Data(m)
    if m.nkey:
        moreau.reset_data_keyframe(m, d2, 0)
    for _ in range(1000):
        moreau.step(m, d2)
    assert d2.qpos.tolist() == o["qpos"]


oracle = pytest.importorskip("_mujoco_oracle", reason="the MuJoCo 2.2.2 oracle module is not built")


def close(a, b, rtol, what):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape, what
    scale = max(1.0, float(np.max(np.abs(b))) if b.size else 1.0)
    err = float(np.max(np.abs(a - b))) if a.size else 0.0
    assert err <= rtol * scale, f"{what}: max error {err:.3g} > {rtol:g} * {scale:.3g}"


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.name)
def test_forward_inverse_equal_mujoco222(path):
    # The tolerance of the differential Pipeline suite: 1e-6 relative to the largest entry.
    m = moreau.Model.from_xml_path(str(path))
    d = moreau.Data(m)
    for s in states(m, 3, seed=7):
        load_state(m, d, s)
        moreau.forward(m, d)
        ref = oracle.forward(str(path), {k: np.asarray(v, float) for k, v in s.items()})
        assert d.ncon == ref["ncon"]
        for k in ("qacc", "qfrc_bias", "xpos", "xquat", "sensordata", "actuator_force"):
            close(getattr(d, k), ref[k], 1e-6, f"{path.name} {k}")
        close(d.contact.dist, ref["contact_dist"], 1e-6, f"{path.name} contact dist")
        s = dict(s)
        s["qacc"] = np.linspace(-1, 1, m.nv)
        load_state(m, d, s)
        moreau.inverse(m, d)
        ref = oracle.inverse(str(path), s)
        close(d.qfrc_inverse, ref["qfrc_inverse"], 1e-6, f"{path.name} qfrc_inverse")


@pytest.mark.parametrize("path", [p for p in MODELS if p.name in ("cartpole.xml", "acrobot.xml", "arm26.xml",
                                                                  "swimmer.xml", "point_mass.xml")],
                         ids=lambda p: p.name)
def test_rollout_equal_mujoco222(path):
    # Smooth models (no contacts): 200 steps agree to 1e-9 relative, the DynamicsRollout tolerance.
    m = moreau.Model.from_xml_path(str(path))
    d = moreau.Data(m)
    if m.nkey:
        moreau.reset_data_keyframe(m, d, 0)
    moreau.step(m, d, nstep=200)
    ref = oracle.rollout(str(path), 200)
    close(d.qpos, ref["qpos"], 1e-9, f"{path.name} qpos")
    close(d.qvel, ref["qvel"], 1e-9, f"{path.name} qvel")
