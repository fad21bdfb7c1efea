"""Three dm_control suite tasks for moreau.VecEnv, with dm_control's rewards.

    env = moreau.VecEnv(None, 64, task=moreau.tasks.cheetah_run())

Each task loads the dm_control suite model from the shared models folder (../shared/models/
dm_control beside the repository, or the folder given) and adds the sensors its reward reads
(xmat zz and xpos z of bodies as framezaxis/framepos sensors of the body frames: the values of
dm_control's named.data.xmat[..., "zz"] and xpos[..., "z"]; the cartpole's pole zz is the cosine
of its hinge angle, computed from qpos). Rewards, initial-state
distributions, control timesteps (frame_skip) and time limits (max_episode_steps) follow
dm_control.suite (cartpole.py, cheetah.py, humanoid.py; rewards.tolerance from
dm_control/utils/rewards.py). Observations are the VecEnv's default (qpos, qvel, sensordata), not
dm_control's per-task dictionaries.
"""

import math
import os
import pathlib

import numpy as np

from . import _moreau

# rewards.tolerance's default value at the margin
_DEFAULT_VALUE_AT_MARGIN = 0.1


def _sigmoids(x, value_at_1, sigmoid):
    """dm_control's sigmoids: 1 at x = 0, value_at_1 at x = 1 (the scales as Python floats: one
    NumPy operation fewer per term on the arrays of many environments)."""
    if sigmoid in ("cosine", "linear", "quadratic"):
        if not 0 <= value_at_1 < 1:
            raise ValueError(f"`value_at_1` must be nonnegative and smaller than 1, got {value_at_1}.")
    elif not 0 < value_at_1 < 1:
        raise ValueError(f"`value_at_1` must be strictly between 0 and 1, got {value_at_1}.")
    if sigmoid == "gaussian":
        scale = math.sqrt(-2 * math.log(value_at_1))
        return np.exp(-0.5 * (x * scale) ** 2)
    if sigmoid == "hyperbolic":
        scale = math.acosh(1 / value_at_1)
        return 1 / np.cosh(x * scale)
    if sigmoid == "long_tail":
        scale = math.sqrt(1 / value_at_1 - 1)
        return 1 / ((x * scale) ** 2 + 1)
    if sigmoid == "reciprocal":
        scale = 1 / value_at_1 - 1
        return 1 / (abs(x) * scale + 1)
    if sigmoid == "cosine":
        scale = math.acos(2 * value_at_1 - 1) / math.pi
        scaled_x = x * scale
        with np.errstate(invalid="ignore"):
            cos_pi_scaled_x = np.cos(np.pi * scaled_x)
        return np.where(abs(scaled_x) < 1, (1 + cos_pi_scaled_x) / 2, 0.0)
    if sigmoid == "linear":
        scale = 1 - value_at_1
        scaled_x = x * scale
        return np.where(abs(scaled_x) < 1, 1 - scaled_x, 0.0)
    if sigmoid == "quadratic":
        scale = math.sqrt(1 - value_at_1)
        scaled_x = x * scale
        return np.where(abs(scaled_x) < 1, 1 - scaled_x ** 2, 0.0)
    if sigmoid == "tanh_squared":
        scale = math.atanh(math.sqrt(1 - value_at_1))
        return 1 - np.tanh(x * scale) ** 2
    raise ValueError(f"Unknown sigmoid type {sigmoid!r}.")


def tolerance(x, bounds=(0.0, 0.0), margin=0.0, sigmoid="gaussian", value_at_margin=_DEFAULT_VALUE_AT_MARGIN):
    """dm_control's rewards.tolerance: 1 inside bounds, falling off with the sigmoid outside, to
    value_at_margin at distance margin.

    dm_control takes 1 inside the bounds and the sigmoid of the distance to the nearer bound over
    the margin outside. That distance is max(lower - x, x - upper), and inside the bounds it is
    <= 0: clipped to 0, every sigmoid gives exactly 1 there, so one expression covers both cases
    with the same values (NaN stays NaN)."""
    lower, upper = bounds
    if lower > upper:
        raise ValueError("Lower bound must be <= upper bound.")
    if margin < 0:
        raise ValueError("`margin` must be non-negative.")
    scalar = np.isscalar(x)
    x = np.asarray(x, dtype=np.float64)
    if margin == 0:
        value = np.where(np.logical_and(lower <= x, x <= upper), 1.0, 0.0)
    else:
        if math.isinf(lower) or math.isinf(upper):
            with np.errstate(invalid="ignore"):  # inf - inf at an infinite x inside infinite bounds
                d = np.fmax(lower - x, x - upper)  # the NaN side of such an x is not its distance
        else:
            d = np.maximum(lower - x, x - upper)
        value = _sigmoids(np.maximum(d, 0.0) / margin, value_at_margin, sigmoid)
    return float(value) if scalar else value


def _models_dir(models_dir):
    if models_dir is not None:
        return pathlib.Path(models_dir)
    env = os.environ.get("MOREAU_SHARED_DIR")
    if env:
        return pathlib.Path(env) / "models" / "dm_control"
    here = pathlib.Path(__file__).resolve()
    for parent in here.parents:  # the repository (or build tree) beside ../shared
        cand = parent.parent / "shared" / "models" / "dm_control"
        if cand.is_dir():
            return cand
    raise FileNotFoundError("moreau.tasks: the dm_control models were not found; pass models_dir=")


def _load(models_dir, file, extra_sensors):
    path = _models_dir(models_dir) / file
    xml = path.read_text()
    cut = xml.rindex("</mujoco>")
    xml = xml[:cut] + "<sensor>" + extra_sensors + "</sensor>\n" + xml[cut:]
    return _moreau.Model.from_xml_string(xml, str(path.parent))


class Task:
    """A task: its model, frame_skip, max_episode_steps, reset(m, d, rng) (an initial state in d,
    which VecEnv resets first), reward(env, actions) and terminated(env)."""

    frame_skip = 1
    max_episode_steps = 1000

    def make_model(self):
        raise NotImplementedError

    def reset(self, m, d, rng):
        pass

    def reward(self, env, actions):
        raise NotImplementedError

    def terminated(self, env):
        return np.zeros(env.num_envs, dtype=bool)


class CartpoleSwingup(Task):
    """dm_control cartpole swingup: 0.01 s control step (frame_skip 1), 10 s episodes."""

    frame_skip = 1
    max_episode_steps = 1000

    def __init__(self, models_dir=None):
        self.models_dir = models_dir

    def make_model(self):
        return _load(self.models_dir, "cartpole.xml", "")

    def reset(self, m, d, rng):
        # cartpole.Balance.initialize_episode with swing_up=True
        d.qpos[0] = 0.01 * rng.standard_normal()
        d.qpos[1] = np.pi + 0.01 * rng.standard_normal()
        d.qpos[2:] = 0.1 * rng.standard_normal(m.nv - 2)
        d.qvel[:] = 0.01 * rng.standard_normal(m.nv)

    def reward(self, env, actions):
        # cartpole.Balance._get_reward(physics, sparse=False), per env
        # xmat['pole_1', 'zz']: the pole turns about the hinge's y axis from upright, so zz is the
        # cosine of the hinge angle (computed here from qpos; no sensor or extra stage needed)
        pole_angle_cosine = np.cos(env.qpos[:, 1:])
        cart_position = env.qpos[:, 0]
        angular_vel = env.qvel[:, 1:]
        upright = (pole_angle_cosine + 1) / 2
        centered = tolerance(cart_position, margin=2)
        centered = (1 + centered) / 2
        small_control = tolerance(actions, margin=1, value_at_margin=0, sigmoid="quadratic")[:, 0]
        small_control = (4 + small_control) / 5
        small_velocity = tolerance(angular_vel, margin=5).min(axis=1)
        small_velocity = (1 + small_velocity) / 2
        return upright.mean(axis=1) * small_control * small_velocity * centered


class CheetahRun(Task):
    """dm_control cheetah run: 0.01 s control step (frame_skip 1), 10 s episodes."""

    frame_skip = 1
    max_episode_steps = 1000
    run_speed = 10

    def __init__(self, models_dir=None):
        self.models_dir = models_dir

    def make_model(self):
        return _load(self.models_dir, "cheetah.xml", "")

    def reset(self, m, d, rng):
        # cheetah.Cheetah.initialize_episode: limited joints uniform in their range, then 200 steps
        limited = np.asarray(m.jnt_limited, dtype=bool)
        lower, upper = np.asarray(m.jnt_range).reshape(-1, 2)[limited].T
        d.qpos[np.asarray(m.jnt_qposadr)[limited]] = rng.uniform(lower, upper)
        _moreau.step(m, d, nstep=200)
        d.time = 0.0

    def reward(self, env, actions):
        speed = env.sensor("torso_subtreelinvel")[:, 0]
        return tolerance(speed, bounds=(self.run_speed, float("inf")), margin=self.run_speed,
                         value_at_margin=0, sigmoid="linear")


class HumanoidStand(Task):
    """dm_control humanoid stand: 0.025 s control step (frame_skip 5 of 0.005 s), 25 s episodes."""

    frame_skip = 5
    max_episode_steps = 1000
    stand_height = 1.4

    def __init__(self, models_dir=None):
        self.models_dir = models_dir

    def make_model(self):
        return _load(self.models_dir, "humanoid.xml",
                     '<framepos name="head_pos" objtype="xbody" objname="head"/>'
                     '<framezaxis name="torso_zaxis" objtype="xbody" objname="torso"/>')

    def reset(self, m, d, rng):
        # humanoid.Humanoid.initialize_episode: randomizers.randomize_limited_and_rotational_joints
        # until the configuration has no contact
        qpos0 = np.array(d.qpos)
        while True:
            d.qpos[:] = qpos0
            for j in range(m.njnt):
                adr, typ = int(m.jnt_qposadr[j]), int(m.jnt_type[j])
                lo, hi = np.asarray(m.jnt_range).reshape(-1, 2)[j]
                if m.jnt_limited[j]:
                    if typ in (int(_moreau.JointType.HINGE), int(_moreau.JointType.SLIDE)):
                        d.qpos[adr] = rng.uniform(lo, hi)
                else:
                    if typ == int(_moreau.JointType.HINGE):
                        d.qpos[adr] = rng.uniform(-np.pi, np.pi)
                    elif typ == int(_moreau.JointType.BALL):
                        q = rng.standard_normal(4)
                        d.qpos[adr:adr + 4] = q / np.linalg.norm(q)
                    elif typ == int(_moreau.JointType.FREE):
                        q = rng.random(4)  # dm_control uses rand here, not randn
                        d.qpos[adr + 3:adr + 7] = q / np.linalg.norm(q)
            _moreau.forward(m, d)
            if d.ncon == 0:
                return

    def reward(self, env, actions):
        head_height = env.sensor("head_pos")[:, 2]
        torso_upright = env.sensor("torso_zaxis")[:, 2]
        standing = tolerance(head_height, bounds=(self.stand_height, float("inf")), margin=self.stand_height / 4)
        upright = tolerance(torso_upright, bounds=(0.9, float("inf")), sigmoid="linear", margin=1.9,
                            value_at_margin=0)
        stand_reward = standing * upright
        small_control = tolerance(actions, margin=1, value_at_margin=0, sigmoid="quadratic").mean(axis=1)
        small_control = (4 + small_control) / 5
        horizontal_velocity = env.sensor("torso_subtreelinvel")[:, 0:2]
        dont_move = tolerance(horizontal_velocity, margin=2).mean(axis=1)
        return small_control * stand_reward * dont_move


def cartpole_swingup(models_dir=None):
    return CartpoleSwingup(models_dir)


def cheetah_run(models_dir=None):
    return CheetahRun(models_dir)


def humanoid_stand(models_dir=None):
    return HumanoidStand(models_dir)
