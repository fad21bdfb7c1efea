"""moreau.VecEnv and moreau.tasks: Gymnasium vector-env shapes and dtypes, trajectories bitwise equal
to a Data stepped in a loop, NEXT_STEP autoreset, determinism under a seed, dm_control's rewards."""

import numpy as np
import pytest

import moreau
from moreau.tasks import tolerance

INTEGRATION = moreau.State.INTEGRATION


def test_tolerance_matches_dm_control_definitions():
    # inside the bounds 1; at the margin value_at_margin for every sigmoid; the closed forms between
    assert tolerance(0.0) == 1.0 and tolerance(0.5) == 0.0
    for sigmoid in ("gaussian", "hyperbolic", "long_tail", "reciprocal", "cosine", "linear", "quadratic",
                    "tanh_squared"):
        assert tolerance(3.0, bounds=(0, 1), margin=2, sigmoid=sigmoid) == pytest.approx(0.1, abs=1e-12), sigmoid
    assert tolerance(0.5, margin=1, sigmoid="linear", value_at_margin=0) == 0.5
    assert tolerance(0.5, margin=1, sigmoid="quadratic", value_at_margin=0) == 0.75
    assert tolerance(1.0, margin=2) == pytest.approx(np.exp(-0.5 * 0.25 * (-2 * np.log(0.1))))
    x = np.array([-3.0, 0.0, 12.0])
    assert np.array_equal(tolerance(x, bounds=(10, np.inf), margin=10, sigmoid="linear", value_at_margin=0),
                          [0.0, 0.0, 1.0])
    with pytest.raises(ValueError):
        tolerance(1.0, bounds=(1, 0))


def _dm_control_tolerance(x, bounds, margin, sigmoid, value_at_margin):
    # dm_control/utils/rewards.py's tolerance as written there: 1 in the bounds, else the sigmoid of
    # the distance to the nearer bound over the margin
    from moreau.tasks import _sigmoids
    lower, upper = bounds
    in_bounds = np.logical_and(lower <= x, x <= upper)
    if margin == 0:
        return np.where(in_bounds, 1.0, 0.0)
    with np.errstate(invalid="ignore"):
        d = np.where(x < lower, lower - x, x - upper) / margin
        return np.where(in_bounds, 1.0, _sigmoids(d, value_at_margin, sigmoid))


def test_tolerance_is_bitwise_dm_controls_formula():
    # moreau.tasks.tolerance evaluates it with fewer array operations (the clipped distance); the
    # values are the same bits everywhere, infinities, NaN and signed zeros included
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0, 5, 2000), [0.0, -0.0, np.inf, -np.inf, np.nan, 1, 2, 10, -10]])
    for bounds in [(0, 0), (1, 2), (-3, 3), (10, np.inf), (-np.inf, 0), (-np.inf, np.inf)]:
        for sigmoid in ("gaussian", "hyperbolic", "long_tail", "reciprocal", "cosine", "linear", "quadratic",
                        "tanh_squared"):
            for margin in (0, 0.5, 2, 10):
                vm = 0.0 if sigmoid in ("cosine", "linear", "quadratic") and margin == 2 else 0.1
                got = tolerance(x, bounds, margin, sigmoid, vm)
                assert np.array_equal(got, _dm_control_tolerance(x, bounds, margin, sigmoid, vm), equal_nan=True), \
                    (bounds, sigmoid, margin)


def test_shapes_dtypes_and_spaces():
    env = moreau.VecEnv(moreau.tasks.cartpole_swingup(), 5, nthread=2)  # a task in the model's place
    m = env.model
    obs, info = env.reset(seed=0)
    dim = m.nq + m.nv + m.nsensordata
    assert obs.shape == (5, dim) and obs.dtype == np.float64 and info == {}
    assert env.single_observation_space.shape == (dim,) and env.observation_space.shape == (5, dim)
    assert env.single_action_space.shape == (m.nu,) and env.action_space.shape == (5, m.nu)
    assert np.array_equal(env.single_action_space.low, [-1.0]) and np.array_equal(env.single_action_space.high, [1.0])
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample(np.random.default_rng(0)))
    assert obs.shape == (5, dim) and reward.shape == (5,) and reward.dtype == np.float64
    assert terminated.dtype == bool and truncated.dtype == bool and terminated.shape == truncated.shape == (5,)
    assert ((reward >= 0) & (reward <= 1)).all()
    with pytest.raises(ValueError, match=r"actions have shape \(5, 2\), expected \(num_envs, nu\) = \(5, 1\)"):
        env.step(np.zeros((5, 2)))
    with pytest.raises(ValueError, match="num_envs is 0"):
        moreau.VecEnv(m, 0)
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.step(np.zeros((5, 1)))


@pytest.mark.parametrize("make", [moreau.tasks.cartpole_swingup, moreau.tasks.humanoid_stand])
def test_trajectories_equal_a_data_stepped_in_a_loop(make):
    # each env's state after every env step is bitwise that of one Data stepped frame_skip times per
    # action from the same start (thread counts 1 and 3), with step1 after each env step when the
    # model has sensors (VecEnv's final stage, dm_control's call sequence). The start is the state
    # after the reset's own sensor pass, which renormalized the quaternions once already (normalizing
    # by the reciprocal is not idempotent: a second step1 there may change the last bits)
    task = make()
    rng = np.random.default_rng(1)
    for nthread in (1, 3):
        env = moreau.VecEnv(None, 4, nthread=nthread, task=task)
        m = env.model
        env.reset(seed=3)
        datas = []
        x0 = env.get_state(INTEGRATION)
        assert np.array_equal(x0[:, 1:1 + m.nq], env.qpos)
        for i in range(4):
            d = moreau.Data(m)
            moreau.set_state(m, d, x0[i], INTEGRATION)  # x0: the state the reset's sensor pass left
            datas.append(d)
        for _ in range(6):
            a = rng.uniform(-1, 1, (4, m.nu))
            obs, *_ = env.step(a)
            for i, d in enumerate(datas):
                d.ctrl[:] = a[i]
                moreau.step(m, d, nstep=env.frame_skip)
                if m.nsensordata:
                    moreau.step1(m, d)
                    assert np.array_equal(env.sensordata[i], d.sensordata)
                assert np.array_equal(env.qpos[i], d.qpos) and np.array_equal(env.qvel[i], d.qvel)
                assert np.array_equal(obs[i, :m.nq], d.qpos)
        env.close()


def test_switching_between_soft_and_hard_contact_solvers_keeps_trajectories_exact():
    # soft solvers step each env's integration state on the pool's Datas; hard-contact solvers
    # warm-start from the Data, so each env then keeps a Data of its own; the state moves between
    # the two at each switch, and every env stays bitwise a loop of step on one Data
    task = moreau.tasks.humanoid_stand()
    env = moreau.VecEnv(None, 3, nthread=2, task=task)
    m = env.model
    env.reset(seed=5)
    x0 = env.get_state(INTEGRATION)
    datas = []
    for i in range(3):
        d = moreau.Data(m)
        moreau.set_state(m, d, x0[i], INTEGRATION)
        datas.append(d)
    rng = np.random.default_rng(2)
    touched = 0
    for solver in ("newton", "raisim", "newton", "raisim", "cg"):
        m.opt.solver = solver
        for _ in range(3):
            a = rng.uniform(-1, 1, (3, m.nu))
            env.step(a)
            for i, d in enumerate(datas):
                d.ctrl[:] = a[i]
                moreau.step(m, d, nstep=env.frame_skip)
                moreau.step1(m, d)
                touched += d.ncon > 0
                assert np.array_equal(env.qpos[i], d.qpos) and np.array_equal(env.qvel[i], d.qvel), solver
                assert np.array_equal(env.sensordata[i], d.sensordata), solver
        assert np.array_equal(env.get_state(INTEGRATION), np.array([moreau.get_state(m, d, INTEGRATION)
                                                                   for d in datas])), solver
    assert touched > 0  # the humanoid's feet touch the floor: the hard solver has contacts to solve
    env.close()


def test_task_sensors_are_dm_controls_quantities_of_the_new_state():
    # the humanoid's head z and torso zz, the cheetah's subtree velocity:
    # equal to xmat/xpos/subtree_linvel of a Data at the new state (after forward)
    for make, checks in [
        (moreau.tasks.humanoid_stand, [("head_pos", 2, lambda m, d: d.xpos[m.body("head").id, 2]),
                                       ("torso_zaxis", 2, lambda m, d: d.xmat[m.body("torso").id, 8])]),
        (moreau.tasks.cheetah_run, [("torso_subtreelinvel", 0, lambda m, d: d.subtree_linvel[m.body("torso").id, 0])]),
    ]:
        env = moreau.VecEnv(None, 2, task=make())
        m = env.model
        env.reset(seed=5)
        env.step(np.full((2, m.nu), 0.3))
        d = moreau.Data(m)
        for i in range(2):
            moreau.set_state(m, d, np.r_[env.time[i], env.qpos[i], env.qvel[i], np.zeros(
                moreau.state_size(m, INTEGRATION) - 1 - m.nq - m.nv)], INTEGRATION)
            moreau.forward(m, d)
            for name, k, value in checks:
                assert env.sensor(name)[i, k] == pytest.approx(value(m, d), abs=1e-12), name


def test_cartpole_pole_cosine_is_xmat_zz():
    # the reward's pole_angle_cosine (cos of the hinge angle) is dm_control's xmat['pole_1', 'zz']
    env = moreau.VecEnv(moreau.tasks.cartpole_swingup(), 3)
    m = env.model
    env.reset(seed=2)
    env.step(np.full((3, 1), 0.5))
    d = moreau.Data(m)
    for i in range(3):
        d.qpos[:] = env.qpos[i]
        moreau.kinematics(m, d)
        assert np.cos(env.qpos[i, 1]) == pytest.approx(d.xmat[m.body("pole_1").id, 8], abs=1e-15)


def test_cartpole_upright_at_rest_earns_reward_one():
    # upright, centered, still, zero control: every factor of dm_control's swing-up reward is 1
    task = moreau.tasks.cartpole_swingup()

    def upright(m, d, rng):
        d.qpos[:] = 0
        d.qvel[:] = 0

    env = moreau.VecEnv(None, 2, task=task, reset_fn=upright)
    env.reset(seed=0)
    _, reward, *_ = env.step(np.zeros((2, 1)))
    assert np.array_equal(reward, [1.0, 1.0])
    _, reward, *_ = env.step(np.array([[1.0], [0.5]]))  # control costs (4 + tolerance) / 5
    assert reward[0] == pytest.approx(0.8 * 1.0, rel=1e-3)
    assert reward[1] == pytest.approx((4 + 0.75) / 5, rel=1e-3)


def test_autoreset_next_step_mode():
    env = moreau.VecEnv(None, 3, task=moreau.tasks.cartpole_swingup(), max_episode_steps=3)
    first, _ = env.reset(seed=7)
    for t in range(1, 4):
        obs, reward, terminated, truncated, _ = env.step(np.zeros((3, 1)))
        assert not terminated.any()
        assert truncated.all() == (t == 3)
    # the step after the truncation: actions ignored, reset observation, reward 0, flags False
    obs, reward, terminated, truncated, _ = env.step(np.ones((3, 1)))
    assert np.array_equal(reward, np.zeros(3)) and not terminated.any() and not truncated.any()
    assert np.array_equal(env.time, np.zeros(3))
    # the reset draws from each env's generator: a second draw after reset(seed=7)'s first
    ref = moreau.VecEnv(None, 3, task=moreau.tasks.cartpole_swingup())
    ref.reset(seed=7)
    second, _ = ref.reset()
    assert np.array_equal(obs, second)
    assert not np.array_equal(obs, first)
    # episodes continue: 3 more steps to the next truncation
    for t in range(1, 4):
        _, _, _, truncated, _ = env.step(np.zeros((3, 1)))
        assert truncated.all() == (t == 3)


def test_terminated_fn_and_partial_reset():
    # a termination of env 1 only: it alone is reset at the next step
    def terminated(env):
        return np.arange(env.num_envs) == 1

    env = moreau.VecEnv(None, 3, task=moreau.tasks.cartpole_swingup(), terminated_fn=terminated)
    env.reset(seed=1)
    _, _, term, trunc, _ = env.step(np.zeros((3, 1)))
    assert term.tolist() == [False, True, False] and not trunc.any()
    t_before = env.time.copy()
    _, reward, term, _, _ = env.step(np.zeros((3, 1)))
    assert env.time[1] == 0.0 and reward[1] == 0.0 and not term[1]
    assert env.time[0] == pytest.approx(t_before[0] + 0.01) and env.time[2] == pytest.approx(t_before[2] + 0.01)
    obs_before = env.qpos.copy()
    obs, _ = env.reset(options={"reset_mask": np.array([True, False, False])})
    assert np.array_equal(env.qpos[1:], obs_before[1:]) and not np.array_equal(env.qpos[0], obs_before[0])


def test_determinism_under_a_seed():
    def run(seed):
        env = moreau.VecEnv(None, 4, nthread=2, task=moreau.tasks.cheetah_run())
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = [obs]
        rewards = []
        for _ in range(5):
            obs, r, *_ = env.step(rng.uniform(-1, 1, (4, env.model.nu)))
            out.append(obs)
            rewards.append(r)
        return np.array(out), np.array(rewards)

    a, ra = run(11)
    b, rb = run(11)
    c, _ = run(12)
    assert np.array_equal(a, b) and np.array_equal(ra, rb)
    assert not np.array_equal(a, c)
    assert not np.array_equal(a[0, 0], a[0, 1])  # envs differ from each other (seed + i)
