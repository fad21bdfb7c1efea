"""Rollout, VecEnv and Dask throughput, each beside its baseline in the same run.

    /usr/bin/python3 python/bench/bench_rollout.py [--runs 3] [--skip-dask]

Cases (R rounds each, the compared variants alternating within a round so that they see the same
machine state; medians and min..max of the R values):
  rollout    humanoid (models/humanoid.xml), B = 64, T = 1000, zero controls, full-physics state
             stored: moreau.Rollout with 1 and 2 threads, and the step loop in C++ without a pool
             (per rollout reset_data + set_state + moreau.step(m, d, nstep=T), one Data).
  vecenv     cartpole swing-up (dm_control), 256 envs, 1 thread: VecEnv.step time per env step,
             against the raw step (moreau.step(m, d, nstep=N) per step, the same model).
  dask       1000 humanoid rollouts x 500 steps on a LocalCluster(n_workers=2, threads_per_worker=1,
             processes) against moreau.Rollout with 2 threads on the same batch.
Steps per second are wall clock; "cpu" is the process's CPU time (all threads), which shows what
the work itself costs when the machine is shared with other jobs.
"""

import argparse
import json
import os
import pathlib
import statistics
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "build" / "python"))
import moreau  # noqa: E402

HUMANOID = ROOT / "models" / "humanoid.xml"
FULL = moreau.State.FULL_PHYSICS


def timed(f):
    w0, c0 = time.perf_counter(), time.process_time()
    f()
    return time.perf_counter() - w0, time.process_time() - c0


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "runs": values}


def starts(m, B):
    d = moreau.Data(m)
    x = np.tile(moreau.get_state(m, d, FULL), (B, 1))
    rng = np.random.default_rng(0)
    x[:, 1 + m.nq:1 + m.nq + m.nv] = 0.05 * rng.uniform(-1, 1, (B, m.nv))
    return x


def bench_rollout(runs):
    m = moreau.Model.from_xml_path(str(HUMANOID))
    B, T = 64, 1000
    x0 = starts(m, B)
    pool1, pool2 = moreau.Rollout(m, 1), moreau.Rollout(m, 2)
    d = moreau.Data(m)

    def loop():
        for b in range(B):
            moreau.reset_data(m, d)
            moreau.set_state(m, d, x0[b], FULL)
            moreau.step(m, d, nstep=T)

    pool1.run(x0[:2], nstep=10)
    pool2.run(x0[:2], nstep=10)
    out = {"loop": [], "t1": [], "t2": [], "loop_cpu": [], "t1_cpu": [], "t2_cpu": []}
    for _ in range(runs):
        for name, f in (("loop", loop), ("t1", lambda: pool1.run(x0, nstep=T)), ("t2", lambda: pool2.run(x0, nstep=T))):
            w, c = timed(f)
            out[name].append(B * T / w)
            out[name + "_cpu"].append(B * T / c)
    res = {k: summary(v) for k, v in out.items()}
    res["ratio_t2_t1"] = summary([a / b for a, b in zip(out["t2"], out["t1"])])
    res["ratio_t1_loop"] = summary([a / b for a, b in zip(out["t1"], out["loop"])])
    res["ratio_t1_loop_cpu"] = summary([a / b for a, b in zip(out["t1_cpu"], out["loop_cpu"])])
    return res


def bench_vecenv(runs, num_envs=256, nsteps=200):
    env = moreau.VecEnv(None, num_envs, nthread=1, task=moreau.tasks.cartpole_swingup())
    m = env.model
    d = moreau.Data(m)
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1, 1, (nsteps, num_envs, m.nu))
    env.reset(seed=0)

    def vec():
        for a in actions:
            env.step(a)

    def raw():
        moreau.reset_data(m, d)
        d.qpos[1] = np.pi
        moreau.step(m, d, nstep=nsteps * num_envs)

    per_env, per_raw, ratio, ratio_cpu = [], [], [], []
    for _ in range(runs):
        w_vec, c_vec = timed(vec)
        w_raw, c_raw = timed(raw)
        per_env.append(1e6 * w_vec / (nsteps * num_envs))
        per_raw.append(1e6 * w_raw / (nsteps * num_envs))
        ratio.append(per_env[-1] / per_raw[-1])
        ratio_cpu.append(c_vec / c_raw)
    return {"num_envs": num_envs, "us_per_env_step": summary(per_env), "us_per_raw_step": summary(per_raw),
            "ratio": summary(ratio), "ratio_cpu": summary(ratio_cpu)}


def bench_dask(runs, B=1000, T=500):
    import moreau.distributed as mdist
    from dask.distributed import Client, LocalCluster

    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "build" / "python"), os.environ.get("PYTHONPATH", "")])
    m = moreau.Model.from_xml_path(str(HUMANOID))
    x0 = starts(m, B)
    pool = moreau.Rollout(m, 2)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, silence_logs=40) as cluster, Client(cluster) as client:
        mdist.rollout(client, HUMANOID, x0[:4], nstep=5)  # workers import moreau, compile and cache the model
        local, dask, ratio = [], [], []
        for _ in range(runs):
            w_local, _ = timed(lambda: pool.run(x0, nstep=T))
            w_dask, _ = timed(lambda: mdist.rollout(client, HUMANOID, x0, nstep=T))
            local.append(B * T / w_local)
            dask.append(B * T / w_dask)
            ratio.append(dask[-1] / local[-1])
    return {"local_2_threads": summary(local), "dask_2_workers": summary(dask), "ratio": summary(ratio)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--skip-dask", action="store_true")
    ap.add_argument("--only", choices=["rollout", "vecenv", "dask"])
    args = ap.parse_args()
    out = {"cores": len(os.sched_getaffinity(0)), "load": os.getloadavg()}
    if args.only in (None, "rollout"):
        out["rollout"] = bench_rollout(args.runs)
        r = out["rollout"]
        print(f"rollout humanoid 64x1000: loop {r['loop']['median']:.0f} steps/s, 1 thread {r['t1']['median']:.0f}, "
              f"2 threads {r['t2']['median']:.0f}; 2/1 = {r['ratio_t2_t1']['median']:.2f} "
              f"({r['ratio_t2_t1']['min']:.2f}..{r['ratio_t2_t1']['max']:.2f}); "
              f"1 thread / loop = {r['ratio_t1_loop']['median']:.3f} ({r['ratio_t1_loop']['min']:.3f}..{r['ratio_t1_loop']['max']:.3f}); "
              f"by CPU time {r['ratio_t1_loop_cpu']['median']:.3f}", flush=True)
    if args.only in (None, "vecenv"):
        out["vecenv"] = bench_vecenv(args.runs)
        v = out["vecenv"]
        print(f"vecenv cartpole x{v['num_envs']}: {v['us_per_env_step']['median']:.3f} us per env step, raw step "
              f"{v['us_per_raw_step']['median']:.3f} us; ratio {v['ratio']['median']:.2f} "
              f"({v['ratio']['min']:.2f}..{v['ratio']['max']:.2f}); by CPU time {v['ratio_cpu']['median']:.2f} "
              f"({v['ratio_cpu']['min']:.2f}..{v['ratio_cpu']['max']:.2f})", flush=True)
    if args.only in (None, "dask") and not args.skip_dask:
        out["dask"] = bench_dask(args.runs)
        k = out["dask"]
        print(f"dask 1000x500 humanoid: local 2 threads {k['local_2_threads']['median']:.0f} steps/s, LocalCluster "
              f"{k['dask_2_workers']['median']:.0f}; ratio {k['ratio']['median']:.2f} "
              f"({k['ratio']['min']:.2f}..{k['ratio']['max']:.2f})", flush=True)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
