"""A parameter sweep on a Dask cluster: the sliding cube of models/experiments (keyframe 1: 3 m/s),
friction coefficient x contact model, 1000 rollouts, with moreau.distributed.rollout on a
LocalCluster. Plots the distance slid against mu for each contact model beside Coulomb friction's
v0^2 / (2 mu g) (capped by the simulated time), saved to sweep_dask.png.

    /usr/bin/python3 examples/python/sweep_dask.py [--workers 2] [--steps 500] [--out FILE.png]
    /usr/bin/python3 examples/python/sweep_dask.py --scheduler tcp://HOST:8786   # a real cluster

--check also runs the same batch with moreau.rollout on this machine and asserts bitwise equality.
"""

import argparse
import pathlib
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import moreau  # noqa: E402
import moreau.distributed as mdist  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
CUBE = ROOT / "models" / "experiments" / "sliding_cube.xml"
MODELS = ["Newton", "PGS", "raisim", "raisim-ds", "ncp-pgs"]
G = 9.81


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    ap.add_argument("--scheduler", help="address of a running `dask scheduler` instead of a LocalCluster")
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--nfriction", type=int, default=200, help="friction values per contact model")
    ap.add_argument("--check", action="store_true", help="compare with moreau.rollout on this machine")
    ap.add_argument("--out", default="sweep_dask.png")
    args = ap.parse_args()
    from dask.distributed import Client, LocalCluster

    base = moreau.Model.from_xml_path(str(CUBE))
    d = moreau.Data(base)
    moreau.reset_data_keyframe(base, d, 1)  # 3 m/s along x
    x0 = moreau.get_state(base, d, moreau.State.FULL_PHYSICS)
    v0 = float(d.qvel[0])
    mus = np.linspace(0.1, 1.0, args.nfriction)
    params = [{"opt.solver": s, "geom_friction": [mu, 0.005, 0.0001]} for s in MODELS for mu in mus]
    x = np.tile(x0, (len(params), 1))

    if args.scheduler:
        cluster, client = None, Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, host="127.0.0.1", dashboard_address=None)
        client = Client(cluster)
    try:
        t0 = time.perf_counter()
        done = []
        state, _ = mdist.rollout(client, CUBE, x, nstep=args.steps, params=params,
                                 progress=lambda k, n: done.append(k))
        wall = time.perf_counter() - t0
        print(f"{len(params)} rollouts x {args.steps} steps on {len(client.scheduler_info()['workers'])} workers: "
              f"{wall:.1f} s ({len(params) * args.steps / wall:.0f} steps/s, {len(done)} shards)")
    finally:
        client.close()
        if cluster:
            cluster.close()

    if args.check:
        models = [mdist.apply_params(base, p) for p in params]
        local, _ = moreau.rollout(models, x, nstep=args.steps)
        assert np.array_equal(local, state), "the cluster's result differs from moreau.rollout"
        print("bitwise equal to moreau.rollout")

    T = args.steps * base.opt.timestep
    slid = state[:, -1, 1] - x0[1]  # x of the cube (qpos[0]) after T seconds
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for k, name in enumerate(MODELS):
        ax.plot(mus, slid[k * len(mus):(k + 1) * len(mus)], label=name, lw=1.5)
    t_stop = np.minimum(v0 / (mus * G), T)
    ax.plot(mus, v0 * t_stop - 0.5 * mus * G * t_stop ** 2, "k--", lw=1, label="Coulomb: v0 t - mu g t^2 / 2")
    ax.set_xlabel("friction coefficient mu")
    ax.set_ylabel(f"distance slid in {T:.2f} s (m)")
    ax.set_title(f"Sliding cube from {v0:g} m/s: {len(params)} rollouts on a Dask cluster")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
