"""iLQR with Moreau's analytic transition derivatives and with finite differences.

Two tasks: a cartpole swinging its pole up (smooth dynamics), and a box pushed across the floor by
two horizontal motors (four box-plane contacts with friction: the contact forces' derivatives drive
the controller). Each task runs the same iLQR twice, once with moreau.transition_derivatives
(analytic) and once with moreau.transition_fd (centred differences), and prints the cost and the
wall time of every iteration.

Run: PYTHONPATH=build/python /usr/bin/python3 examples/python/ilqr.py
"""
import argparse
import time

import numpy as np

import moreau

CARTPOLE = """
<mujoco>
  <option timestep="0.01" integrator="Euler"/>
  <worldbody>
    <body name="cart">
      <joint name="slider" type="slide" axis="1 0 0" damping="0.1"/>
      <geom type="box" size="0.2 0.1 0.05" mass="1"/>
      <body name="pole">
        <joint name="hinge" type="hinge" axis="0 1 0" damping="0.01"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.6" size="0.03" mass="0.3"/>
      </body>
    </body>
  </worldbody>
  <actuator><motor joint="slider" gear="10" ctrllimited="true" ctrlrange="-1 1"/></actuator>
</mujoco>
"""

BOX = """
<mujoco>
  <option timestep="0.01" integrator="Euler"/>
  <worldbody>
    <geom type="plane" size="5 5 0.1" friction="0.5"/>
    <body name="box" pos="0 0 0.1">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="y" type="slide" axis="0 1 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom type="box" size="0.1 0.1 0.1" mass="1"/>
    </body>
  </worldbody>
  <actuator>
    <motor joint="x" gear="10" ctrllimited="true" ctrlrange="-1 1"/>
    <motor joint="y" gear="10" ctrllimited="true" ctrlrange="-1 1"/>
  </actuator>
</mujoco>
"""


class Problem:
    """Quadratic tracking cost in the tangent space of a target state."""

    def __init__(self, m, q0, v0, q_goal, Q, Qf, R, horizon):
        self.m, self.q0, self.v0, self.q_goal = m, q0, v0, q_goal
        self.Q, self.Qf, self.R, self.T = Q, Qf, R, horizon
        self.d = moreau.Data(m)

    def error(self, q, v):
        return np.concatenate([moreau.differentiate_pos(self.m, self.q_goal, q, 1.0), v])

    def rollout(self, U, X=None, K=None, k=None, alpha=1.0):
        """States and controls of a rollout (with the feedback law when X, K, k are given) and its cost."""
        m, d = self.m, self.d
        moreau.reset_data(m, d)
        d.qpos[:] = self.q0
        d.qvel[:] = self.v0
        qs, vs, us, cost = [], [], [], 0.0
        for t in range(self.T):
            q, v = d.qpos.copy(), d.qvel.copy()
            u = U[t].copy()
            if X is not None:
                dx = np.concatenate([moreau.differentiate_pos(m, X[t][0], q, 1.0), v - X[t][1]])
                u = u + alpha * k[t] + K[t] @ dx
            lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
            u = np.clip(u, lo, hi)
            e = self.error(q, v)
            cost += 0.5 * e @ self.Q @ e + 0.5 * u @ self.R @ u
            qs.append(q), vs.append(v), us.append(u)
            d.ctrl[:] = u
            moreau.step(m, d)
        e = self.error(d.qpos, d.qvel)
        cost += 0.5 * e @ self.Qf @ e
        return list(zip(qs, vs)), np.array(us), cost, (d.qpos.copy(), d.qvel.copy())

    def linearize(self, X, U, analytic):
        m, d = self.m, self.d
        As, Bs = [], []
        for (q, v), u in zip(X, U):
            d.qpos[:] = q
            d.qvel[:] = v
            d.ctrl[:] = u
            if analytic:
                A, B, _, _ = moreau.transition_derivatives(m, d)
            else:
                A, B, _, _ = moreau.transition_fd(m, d, 1e-6, True)
            As.append(A), Bs.append(B)
        return As, Bs


def ilqr(p, U, analytic, iterations):
    X, U, cost, xT = p.rollout(U)
    mu = 1e-6
    print(f"  iter  0  cost {cost:12.5f}")
    for it in range(1, iterations + 1):
        t0 = time.perf_counter()
        As, Bs = p.linearize(X, U, analytic)
        t_deriv = time.perf_counter() - t0
        # backward pass
        eT = p.error(*xT)
        Vx, Vxx = p.Qf @ eT, p.Qf.copy()
        ks, Ks = [None] * p.T, [None] * p.T
        for t in reversed(range(p.T)):
            A, B = As[t], Bs[t]
            e = p.error(*X[t])
            Qx = p.Q @ e + A.T @ Vx
            Qu = p.R @ U[t] + B.T @ Vx
            Qxx = p.Q + A.T @ Vxx @ A
            Quu = p.R + B.T @ Vxx @ B + mu * np.eye(len(U[t]))
            Qux = B.T @ Vxx @ A
            ks[t] = -np.linalg.solve(Quu, Qu)
            Ks[t] = -np.linalg.solve(Quu, Qux)
            Vx = Qx + Ks[t].T @ Quu @ ks[t] + Ks[t].T @ Qu + Qux.T @ ks[t]
            Vxx = Qxx + Ks[t].T @ Quu @ Ks[t] + Ks[t].T @ Qux + Qux.T @ Ks[t]
            Vxx = 0.5 * (Vxx + Vxx.T)
        # forward pass with a backtracking line search
        accepted = False
        for alpha in [1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125]:
            Xn, Un, cn, xTn = p.rollout(U, X, Ks, ks, alpha)
            if cn < cost:
                X, U, cost, xT, accepted = Xn, Un, cn, xTn, True
                break
        mu = max(1e-8, mu / 4) if accepted else mu * 10
        dt = time.perf_counter() - t0
        print(f"  iter {it:2d}  cost {cost:12.5f}  time {1e3 * dt:8.1f} ms (derivatives {1e3 * t_deriv:7.1f} ms)"
              + ("" if accepted else "  (no decrease: regularization raised)"))
    return cost


def run(name, p, U0, iterations):
    for analytic in (True, False):
        label = "analytic transition_derivatives" if analytic else "finite differences (transition_fd, centred)"
        print(f"{name}: {label}; fallbacks: {moreau.derivative_fallbacks(p.m, p.d) or 'none'}")
        ilqr(p, U0.copy(), analytic, iterations)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=25, help="iLQR iterations per run")
    args = ap.parse_args()
    m = moreau.Model.from_xml_string(CARTPOLE)
    q0 = np.array([0.0, np.pi])  # pole hanging down
    Q = np.diag([0.1, 0.1, 0.01, 0.01]) * 0.01
    Qf = np.diag([10.0, 100.0, 10.0, 10.0])
    p = Problem(m, q0, np.zeros(2), np.zeros(2), Q, Qf, 0.01 * np.eye(1), 250)
    run("cartpole swing-up", p, np.zeros((p.T, 1)), args.iterations)

    m = moreau.Model.from_xml_string(BOX)
    p = Problem(m, m.qpos0.copy(), np.zeros(3), np.array([1.0, 0.5, 0.0]),
                np.diag([1, 1, 0, 0.1, 0.1, 0]) * 0.1, np.diag([100, 100, 0, 10, 10, 0]), 0.01 * np.eye(2), 150)
    # the box rests on the floor: let it settle into its contacts first
    d = moreau.Data(m)
    for _ in range(100):
        moreau.step(m, d)
    p.q0 = d.qpos.copy()
    p.q_goal[2] = p.q0[2]
    run("box pushed on the floor", p, np.zeros((p.T, 2)), min(args.iterations, 15))


if __name__ == "__main__":
    main()
