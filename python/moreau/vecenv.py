"""Vectorized environments on the rollout pool, in Gymnasium's vector-env conventions.

    env = moreau.VecEnv(moreau.tasks.cartpole_swingup(), num_envs=64)
    obs, info = env.reset(seed=0)                        # obs: (num_envs, obs_dim) float64
    for _ in range(1000):
        actions = policy(obs)                             # (num_envs, nu)
        obs, reward, terminated, truncated, info = env.step(actions)

The physics of one env step (frame_skip engine steps for every env) runs in C++ on moreau.Rollout's
threads with the GIL released. Each env keeps its whole state between calls (moreau.EnvBatch: an
integration-state row stepped on the pool's Datas for the soft solvers, a Data of its own for the
hard-contact solvers, whose warm start lives in the Data), so an env's trajectory is bitwise that
of one Data stepped in a loop with the same controls, whichever thread steps it. After the last
engine step the position and velocity stages run on the new state (as dm_control's step does), so
sensors and rewards see the new state (only when the model has sensors: without, nothing reads
those stages).

Shapes and semantics follow gymnasium.vector.VectorEnv (Gymnasium 1.x) without importing it:
  reset(seed=None, options=None) -> (obs, info); seed: an int (env i gets seed + i), a list of
      num_envs ints, or None (keep the generators); options={"reset_mask": bool array} resets only
      the selected envs (the others keep their state and observation).
  step(actions) -> (obs, reward, terminated, truncated, info): actions (num_envs, nu); obs
      (num_envs, obs_dim) float64; reward float64, terminated and truncated bool, all (num_envs,);
      info a dict (empty).
  Autoreset: Gymnasium's default NEXT_STEP mode. When an env's episode ends (terminated or
      truncated) at step t, its obs at t is the final observation of that episode; at step t + 1
      its action is ignored, it is reset, and step returns its first observation of the new
      episode with reward 0, terminated False and truncated False.
  single_observation_space / observation_space, single_action_space / action_space: Box objects
      with shape, dtype, low, high (the action bounds are the actuators' ctrlrange where limited).

Observations: qpos, qvel and sensordata of the new state, concatenated (or obs_fn(env)). Rewards
and terminations: reward_fn(env, actions) -> (num_envs,) and terminated_fn(env) -> (num_envs,)
bool, or a task (moreau.tasks). Inside them env.qpos, env.qvel, env.sensordata (num_envs, ...) are
the new state and env.sensor(name) one sensor's (num_envs, dim) values.
"""

import numpy as np

from . import _moreau


class Box:
    """A box-shaped space (the attributes of gymnasium.spaces.Box that vector envs use)."""

    def __init__(self, low, high, shape, dtype=np.float64):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.low = np.broadcast_to(np.asarray(low, dtype=self.dtype), self.shape).copy()
        self.high = np.broadcast_to(np.asarray(high, dtype=self.dtype), self.shape).copy()

    def sample(self, rng=None):
        """A uniform sample where both bounds are finite, else a standard normal one."""
        rng = np.random.default_rng() if rng is None else rng
        finite = np.isfinite(self.low) & np.isfinite(self.high)
        x = rng.standard_normal(self.shape)
        x[finite] = rng.uniform(self.low[finite], self.high[finite])
        return x.astype(self.dtype)

    def contains(self, x):
        x = np.asarray(x)
        return x.shape == self.shape and bool(np.all(x >= self.low) and np.all(x <= self.high))

    def __repr__(self):
        return f"Box({self.shape}, {self.dtype})"


_SPEC = int(_moreau.State.INTEGRATION)  # what a reset sets
_FULL = int(_moreau.State.FULL_PHYSICS)


class VecEnv:
    """num_envs copies of one model stepped together; see the module docstring.

    model: a moreau.Model, or a task (moreau.tasks), or None with task=. nthread: the pool's
    threads (default min(num_envs, cores)). frame_skip: engine steps per env step (default the
    task's, else 1). max_episode_steps: truncation (default the task's, else none).
    reset_fn(m, d, rng): writes an initial state into d (reset first); default: the reset state
    with uniform noise of reset_noise_scale on positions (in the tangent space) and velocities."""

    def __init__(self, model, num_envs, nthread=None, task=None, frame_skip=None, reward_fn=None,
                 terminated_fn=None, obs_fn=None, max_episode_steps=None, reset_fn=None,
                 reset_noise_scale=0.01):
        if task is None and hasattr(model, "make_model"):  # VecEnv(moreau.tasks.cheetah_run(), ...)
            model, task = None, model
        if task is not None:
            if model is None:
                model = task.make_model()
            frame_skip = task.frame_skip if frame_skip is None else frame_skip
            max_episode_steps = task.max_episode_steps if max_episode_steps is None else max_episode_steps
            reward_fn = reward_fn or task.reward
            terminated_fn = terminated_fn or getattr(task, "terminated", None)
            reset_fn = reset_fn or task.reset
        if not isinstance(model, _moreau.Model):
            raise TypeError("VecEnv: model must be a moreau.Model (or pass task=...)")
        num_envs = int(num_envs)
        if num_envs < 1:
            raise ValueError(f"VecEnv: num_envs is {num_envs}, expected >= 1")
        frame_skip = 1 if frame_skip is None else int(frame_skip)
        if frame_skip < 1:
            raise ValueError(f"VecEnv: frame_skip is {frame_skip}, expected >= 1")
        self.model = model
        self.num_envs = num_envs
        self.frame_skip = frame_skip
        self.max_episode_steps = max_episode_steps
        self.task = task
        self._reward_fn = reward_fn
        self._terminated_fn = terminated_fn
        self._obs_fn = obs_fn
        self._reset_fn = reset_fn
        self._noise = float(reset_noise_scale)
        # the position and velocity stages on the new state are only needed for its sensors
        self._final_stage = model.nsensordata > 0
        self._pool = _moreau.Rollout(model, nthread if nthread is not None else min(num_envs, _cores()))
        self._data = _moreau.Data(model)  # for resets only
        self._envs = _moreau.EnvBatch(model, num_envs)
        m = model
        self._nq, self._nv, self._nu = m.nq, m.nv, m.nu
        self._state = np.zeros((num_envs, _moreau.state_size(m, _FULL)))  # time, qpos, qvel, act
        self._sens = np.zeros((num_envs, m.nsensordata))
        self._steps = np.zeros(num_envs, dtype=np.int64)
        self._autoreset = np.zeros(num_envs, dtype=bool)
        self._rngs = [np.random.default_rng() for _ in range(num_envs)]
        self._sensor_slices = {}
        for i, name in enumerate(m.names("sensor")):
            if name:
                adr, dim = int(m.sensor_adr[i]), int(m.sensor_dim[i])
                self._sensor_slices[name] = slice(adr, adr + dim)

        limited = np.asarray(m.actuator_ctrllimited, dtype=bool)
        rng = np.asarray(m.actuator_ctrlrange).reshape(m.nu, 2) if m.nu else np.zeros((0, 2))
        low = np.where(limited, rng[:, 0], -np.inf)
        high = np.where(limited, rng[:, 1], np.inf)
        self.single_action_space = Box(low, high, (m.nu,))
        self.action_space = Box(np.tile(low, (num_envs, 1)), np.tile(high, (num_envs, 1)), (num_envs, m.nu))
        obs_dim = self._observe_all().shape[1]
        self.single_observation_space = Box(-np.inf, np.inf, (obs_dim,))
        self.observation_space = Box(-np.inf, np.inf, (num_envs, obs_dim))
        self.closed = False

    # ------------------------------------------------------------------ the new state, for user functions
    @property
    def qpos(self):
        return self._state[:, 1:1 + self._nq]

    @property
    def qvel(self):
        return self._state[:, 1 + self._nq:1 + self._nq + self._nv]

    @property
    def time(self):
        return self._state[:, 0]

    @property
    def sensordata(self):
        return self._sens

    def get_state(self, spec=_moreau.State.FULL_PHYSICS):
        """The (num_envs, state_size(spec)) states of the envs (moreau.get_state layout)."""
        spec = int(spec)
        out = np.empty((self.num_envs, _moreau.state_size(self.model, spec)))
        for i in range(self.num_envs):
            out[i] = self._envs.get_state(i, spec)
        return out

    def sensor(self, name):
        """The (num_envs, dim) values of the sensor `name` at the new state."""
        try:
            return self._sens[:, self._sensor_slices[name]]
        except KeyError:
            raise KeyError(f"VecEnv.sensor: no sensor named {name!r} (the model's: "
                           f"{', '.join(sorted(self._sensor_slices))})") from None

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, seed=None, options=None):
        """Reset every env (or those of options["reset_mask"]); returns (obs, info)."""
        self._check_open()
        if seed is not None:
            seeds = [seed + i for i in range(self.num_envs)] if np.isscalar(seed) else list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"VecEnv.reset: {len(seeds)} seeds for {self.num_envs} envs")
            self._rngs = [np.random.default_rng(s) for s in seeds]
        mask = np.ones(self.num_envs, dtype=bool)
        if options and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"], dtype=bool)
            if mask.shape != (self.num_envs,):
                raise ValueError(f"VecEnv.reset: reset_mask has shape {mask.shape}, expected ({self.num_envs},)")
        self._reset_envs(np.flatnonzero(mask))
        self._autoreset[mask] = False
        return self._observe_all(), {}

    def step(self, actions):
        """Advance every env by frame_skip engine steps; see the module docstring for autoreset."""
        self._check_open()
        actions = np.asarray(actions, dtype=np.float64)
        if actions.shape != (self.num_envs, self._nu):
            raise ValueError(f"VecEnv.step: actions have shape {actions.shape}, expected "
                             f"(num_envs, nu) = ({self.num_envs}, {self._nu})")
        reset = self._autoreset
        run = ~reset
        if reset.all():
            idx = None
        elif reset.any():
            idx = np.flatnonzero(run)
        else:
            idx = slice(None)
        if idx is not None:
            a = actions[idx]
            ctrl = a[:, None, :] if self.frame_skip == 1 else np.repeat(a[:, None, :], self.frame_skip, axis=1)
            index = None if isinstance(idx, slice) else idx.tolist()
            state, final = self._envs.step(self._pool, ctrl, self.frame_skip, _FULL, self._final_stage, index)
            if self._final_stage:
                self._sens[idx] = final
            self._state[idx] = state[:, -1]
            self._steps[idx] += 1
        reset_idx = np.flatnonzero(reset)
        if reset_idx.size:
            self._reset_envs(reset_idx)
        reward = np.zeros(self.num_envs)
        terminated = np.zeros(self.num_envs, dtype=bool)
        if self._reward_fn is not None:
            reward = np.asarray(self._reward_fn(self, actions), dtype=np.float64).reshape(self.num_envs).copy()
        if self._terminated_fn is not None:
            terminated = np.asarray(self._terminated_fn(self), dtype=bool).reshape(self.num_envs).copy()
        truncated = np.zeros(self.num_envs, dtype=bool)
        if self.max_episode_steps is not None:
            truncated = self._steps >= self.max_episode_steps
        reward[reset_idx] = 0.0
        terminated[reset_idx] = False
        truncated[reset_idx] = False
        truncated &= ~terminated
        self._autoreset = terminated | truncated
        return self._observe_all(), reward, terminated, truncated, {}

    def close(self):
        if not self.closed:
            self._pool.close()
            self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ internals
    def _check_open(self):
        if self.closed:
            raise RuntimeError("VecEnv: the environment is closed")

    def _observe_all(self):
        if self._obs_fn is not None:
            return np.asarray(self._obs_fn(self), dtype=np.float64)
        return np.concatenate([self.qpos, self.qvel, self._sens], axis=1)

    def _reset_envs(self, idx):
        """New initial states for the envs idx: reset_fn(model, data, rng) or the default (the reset
        state, keyframe 0 if any, with uniform noise of reset_noise_scale on joint positions and
        velocities); then the sensors of those states."""
        m, d = self.model, self._data
        for i in idx:
            rng = self._rngs[i]
            if m.nkey > 0:
                _moreau.reset_data_keyframe(m, d, 0)
            else:
                _moreau.reset_data(m, d)
            if self._reset_fn is not None:
                self._reset_fn(m, d, rng)
            elif self._noise > 0:
                dq = rng.uniform(-self._noise, self._noise, m.nv)
                qpos = np.array(d.qpos)
                _moreau.integrate_pos(m, qpos, dq, 1.0)
                d.qpos[:] = qpos
                d.qvel[:] += rng.uniform(-self._noise, self._noise, m.nv)
            d.time = 0.0
            self._envs.set_state(int(i), _moreau.get_state(m, d, _SPEC), _SPEC)
            self._state[i] = _moreau.get_state(m, d, _FULL)
            self._steps[i] = 0
        if len(idx) and self._final_stage:
            # sensors of the reset states: no step, then the position and velocity stages
            _, final = self._envs.step(self._pool, None, 0, _FULL, True, [int(i) for i in idx])
            self._sens[idx] = final


def _cores():
    import os
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
