"""moreau.rollout and moreau.Rollout: bitwise the serial step loop for every thread count, shapes
and dtypes, per-rollout models, bad inputs (ValueError naming the argument and shape), B = 0,
T = 0, NaN starts."""

import threading

import numpy as np
import pytest

import moreau
from conftest import HUMANOID, ROOT, SHARED

FULL = moreau.State.FULL_PHYSICS
ARM26 = "/usr/share/mujoco/model/tendon_arm/arm26.xml"
CUBE = ROOT / "models" / "experiments" / "sliding_cube.xml"


def starts(m, B, seed, spec=FULL):
    """B initial states around the reset state (keyframe 0 if any) with random velocities."""
    rng = np.random.default_rng(seed)
    d = moreau.Data(m)
    out = []
    for b in range(B):
        if m.nkey:
            moreau.reset_data_keyframe(m, d, 0)
        else:
            moreau.reset_data(m, d)
        d.qvel[:] += 0.2 * rng.uniform(-1, 1, m.nv)
        d.act[:] = rng.uniform(0, 1, m.na)
        d.time = 0.01 * b
        out.append(moreau.get_state(m, d, spec))
    return np.array(out)


def controls(m, B, T, seed):
    rng = np.random.default_rng(seed)
    lo, hi = np.asarray(m.actuator_ctrlrange).reshape(-1, 2).T if m.nu else (np.zeros(0), np.zeros(0))
    lo = np.where(np.asarray(m.actuator_ctrllimited, bool), lo, -1.0)
    hi = np.where(np.asarray(m.actuator_ctrllimited, bool), hi, 1.0)
    return rng.uniform(lo, hi, (B, T, m.nu))


def serial(models, x0, ctrl, T, spec=FULL):
    """The loop rollout equals: a fresh Data per rollout, set_state, ctrl, step, get_state."""
    B = x0.shape[0]
    m0 = models[0]
    state = np.zeros((B, T, moreau.state_size(m0, spec)))
    sens = np.zeros((B, T, m0.nsensordata))
    for b in range(B):
        m = models[b if len(models) > 1 else 0]
        d = moreau.Data(m)
        moreau.set_state(m, d, x0[b], spec)
        for t in range(T):
            if ctrl is not None:
                d.ctrl[:] = ctrl[b, t]
            moreau.step(m, d)
            state[b, t] = moreau.get_state(m, d, spec)
            sens[b, t] = d.sensordata
    return state, sens


@pytest.mark.parametrize("path,solver,T", [(HUMANOID, None, 60), (ARM26, None, 100), (CUBE, "raisim", 150)])
def test_rollout_equals_serial_loop_for_threads_1_to_4(path, solver, T):
    m = moreau.Model.from_xml_path(str(path))
    if solver:
        m.opt.solver = solver
    B = 6
    x0 = starts(m, B, 1)
    ctrl = controls(m, B, T, 2) if m.nu else None
    want_state, want_sens = serial([m], x0, ctrl, T)
    for nthread in (1, 2, 3, 4):
        state, sens = moreau.rollout(m, x0, ctrl, nstep=T, nthread=nthread, sensordata=True)
        assert state.dtype == np.float64 and state.shape == (B, T, moreau.state_size(m, FULL))
        assert sens.shape == (B, T, m.nsensordata)
        assert np.array_equal(state, want_state), nthread
        assert np.array_equal(sens, want_sens), nthread
        assert state.flags.c_contiguous


def test_persistent_pool_repeats_and_closes():
    m = moreau.Model.from_xml_path(str(HUMANOID))
    x0 = starts(m, 5, 3)
    ctrl = controls(m, 5, 20, 4)
    want, _ = serial([m], x0, ctrl, 20)
    with moreau.Rollout(m, 3) as pool:
        assert pool.nthread == 3 and not pool.closed
        for _ in range(3):
            state, sens = pool.run(x0, ctrl)  # nstep from the control
            assert np.array_equal(state, want)
            assert sens is None
        state, _ = pool(x0, ctrl)  # __call__ is run
        assert np.array_equal(state, want)
    assert pool.closed
    with pytest.raises(RuntimeError, match="closed"):
        pool.run(x0, ctrl)


def test_control_broadcast_spec_and_extras():
    m = moreau.Model.from_xml_path(str(HUMANOID))
    B, T = 4, 15
    x0 = starts(m, B, 5)
    seq = controls(m, 1, T, 6)[0]
    a, _ = moreau.rollout(m, x0, seq, nthread=2)  # (T, nu): the same for every rollout
    b, _ = moreau.rollout(m, x0, np.broadcast_to(seq, (B, T, m.nu)), nthread=2)
    assert np.array_equal(a, b)
    # (nstate,) is one rollout; the integration state carries ctrl, held for every step
    spec = moreau.State.INTEGRATION
    x1 = starts(m, 1, 7, spec)[0]
    s, _ = moreau.rollout(m, x1, nstep=T, state_spec=spec)
    assert s.shape == (1, T, moreau.state_size(m, spec))
    want, _ = serial([m], x1[None], None, T, spec)
    assert np.array_equal(s, want)
    # warnings, and the final state's sensors: those of step1 after the last step (the cheetah's
    # subtree velocity sensor; Euler)
    ch = moreau.Model.from_xml_path(str(SHARED / "models" / "dm_control" / "cheetah.xml"))
    assert ch.nsensordata > 0
    x = starts(ch, 3, 8)
    ctrl = controls(ch, 3, 10, 9)
    state, _, warn, final = moreau.rollout(ch, x, ctrl, warnings=True, final_sensordata=True)
    assert warn.shape == (3, len(moreau.Warning.__members__)) and not warn.any()
    assert final.shape == (3, ch.nsensordata)
    for r in range(3):
        d = moreau.Data(ch)
        moreau.set_state(ch, d, x[r], FULL)
        for t in range(10):
            d.ctrl[:] = ctrl[r, t]
            moreau.step(ch, d)
        moreau.step1(ch, d)
        assert np.array_equal(final[r], d.sensordata)
    # nstep = 0: the sensors of the initial states
    _, _, first = moreau.rollout(ch, x, nstep=0, final_sensordata=True)
    d = moreau.Data(ch)
    moreau.set_state(ch, d, x[2], FULL)
    moreau.step1(ch, d)
    assert np.array_equal(first[2], d.sensordata)


def test_per_rollout_models_give_their_own_serial_loops():
    base = moreau.Model.from_xml_path(str(CUBE))
    variants = []
    for mu, solver in [(0.2, "raisim-ds"), (0.5, "Newton"), (0.8, "ncp-pgs")]:
        v = moreau.Model.from_xml_path(str(CUBE))
        v.geom_friction[:, 0] = mu
        v.opt.solver = solver
        variants.append(v)
    models = [variants[i % 3] for i in range(7)]
    x0 = np.tile(starts(base, 1, 9)[0], (7, 1))
    want, _ = serial(models, x0, None, 120)
    for nthread in (1, 2, 4):
        state, _ = moreau.rollout(models, x0, nstep=120, nthread=nthread)
        assert np.array_equal(state, want)
    with moreau.Rollout(base, 2) as pool:
        state, _ = pool.run(x0, nstep=120, models=models)
        assert np.array_equal(state, want)
    vx = state[:3, -1, 1 + base.nq]
    assert len(set(vx.tolist())) == 3  # other friction, other contact model: other trajectories


def test_concurrent_calls_from_python_threads():
    # the GIL is released during the rollouts: two Python threads run batches at once
    m = moreau.Model.from_xml_path(str(HUMANOID))
    x0 = starts(m, 4, 10)
    want, _ = serial([m], x0, None, 30)
    out = [None, None]

    def work(i):
        out[i] = moreau.rollout(m, x0, nstep=30, nthread=2)[0]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert np.array_equal(out[0], want) and np.array_equal(out[1], want)


def test_bad_inputs_raise_value_errors_naming_the_argument():
    m = moreau.Model.from_xml_path(str(HUMANOID))
    ns = moreau.state_size(m, FULL)
    x0 = starts(m, 3, 11)
    with pytest.raises(ValueError, match=rf"initial_state has shape \(3, {ns - 1}\), expected \(B, nstate\) = \(B, {ns}\)"):
        moreau.rollout(m, x0[:, :-1], nstep=5)
    with pytest.raises(ValueError, match=rf"control has shape \(3, 5, {m.nu + 1}\), expected \(B, T, nu\) = \(3, 5, {m.nu}\)"):
        moreau.rollout(m, x0, np.zeros((3, 5, m.nu + 1)))
    with pytest.raises(ValueError, match="control has shape"):
        moreau.rollout(m, x0, np.zeros((3, 5, m.nu)), nstep=6)  # T of the control != nstep
    with pytest.raises(ValueError, match="qfrc_applied has shape"):
        moreau.rollout(m, x0, nstep=5, qfrc_applied=np.zeros((3, 5, m.nv + 2)))
    with pytest.raises(ValueError, match="nstep is required"):
        moreau.rollout(m, x0)
    with pytest.raises(ValueError, match="nstep is -1"):
        moreau.rollout(m, x0, nstep=-1)
    with pytest.raises(ValueError, match="nthread is 0"):
        moreau.rollout(m, x0, nstep=1, nthread=0)
    with pytest.raises(ValueError, match="state_spec"):
        moreau.rollout(m, x0, nstep=1, state_spec=1 << 20)
    cube = moreau.Model.from_xml_path(str(CUBE))
    with pytest.raises(ValueError, match=r"models\[1\] has nq = 7"):
        moreau.rollout([m, cube, m], x0, nstep=1)
    with pytest.raises(ValueError, match="2 models for 3"):
        moreau.rollout([m, m], x0, nstep=1)
    with pytest.raises(TypeError):
        moreau.rollout("humanoid", x0, nstep=1)
    with pytest.raises(TypeError):
        moreau.rollout(m, [["a"] * ns], nstep=1)


def test_empty_batch_and_zero_steps_are_empty_results():
    m = moreau.Model.from_xml_path(str(HUMANOID))
    ns = moreau.state_size(m, FULL)
    state, sens = moreau.rollout(m, np.zeros((0, ns)), nstep=10, sensordata=True)
    assert state.shape == (0, 10, ns) and sens.shape == (0, 10, m.nsensordata)
    state, _ = moreau.rollout(m, starts(m, 3, 12), nstep=0)
    assert state.shape == (3, 0, ns)
    state, _ = moreau.rollout(m, np.zeros((0, ns)), np.zeros((0, 4, m.nu)))
    assert state.shape == (0, 4, ns)


def test_nan_initial_state_is_reset_and_reported():
    # step's divergence check resets the Data and counts the warning; the rows are what the steps
    # produced: finite, and those of a rollout from the reset state (zero inputs in the first step)
    m = moreau.Model.from_xml_path(str(HUMANOID))
    x0 = starts(m, 3, 13)
    x0[1, 1 + 3] = np.nan
    state, _, warn = moreau.rollout(m, x0, nstep=20, nthread=2, warnings=True)
    assert warn[1, int(moreau.Warning.BADQPOS)] == 1
    assert warn[[0, 2]].sum() == 0
    assert np.isfinite(state).all()
    reset = moreau.get_state(m, moreau.Data(m), FULL)
    want, _ = moreau.rollout(m, reset[None], nstep=20)
    assert np.array_equal(state[1], want[0])
