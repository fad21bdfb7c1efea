"""Python overhead against the plain C++ loop, measured side by side in one run.

    /usr/bin/python3 python/bench/bench_python.py [--model M] [--steps N] [--runs R]

For each of R rounds (alternating, so that both see the same machine state): the C++ loop
(build/bench/moreau_step_loop: N calls of moreau::step), a Python loop of N `moreau.step(m, d)`
calls, and one `moreau.step(m, d, nstep=N)`. All start from keyframe 0 after 100 warm-up steps, so
they step the same trajectory. Then the per-call overhead of step, forward and reading d.qpos on
a model small enough that the call itself dominates. Prints the medians and the spread (min..max)
of the ratios, and one JSON line with everything.
"""

import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "build" / "python"))
import moreau  # noqa: E402

TINY = """<mujoco><worldbody><body><joint type="hinge"/><geom type="sphere" size=".1" pos="0 0 -1"/></body>
</worldbody></mujoco>"""


def start(m, d):
    if m.nkey:
        moreau.reset_data_keyframe(m, d, 0)
    else:
        moreau.reset_data(m, d)


def python_loop(m, d, n):
    start(m, d)
    moreau.step(m, d, nstep=100)
    start(m, d)
    step = moreau.step
    t0 = time.perf_counter()
    for _ in range(n):
        step(m, d)
    return 1e6 * (time.perf_counter() - t0) / n


def python_nstep(m, d, n):
    start(m, d)
    moreau.step(m, d, nstep=100)
    start(m, d)
    t0 = time.perf_counter()
    moreau.step(m, d, nstep=n)
    return 1e6 * (time.perf_counter() - t0) / n


def cpp_loop(model, n):
    exe = ROOT / "build" / "bench" / "moreau_step_loop"
    out = subprocess.run([str(exe), str(model), str(n)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["us_per_step"]


def per_call(fn, n=200000):
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return 1e6 * (time.perf_counter() - t0) / n


def spread(xs):
    return f"{statistics.median(xs):.3f} ({min(xs):.3f}..{max(xs):.3f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="/usr/share/mujoco/model/humanoid/humanoid.xml")
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    m = moreau.Model.from_xml_path(a.model)
    d = moreau.Data(m)
    cpp, loop, nstep = [], [], []
    for _ in range(a.runs):
        cpp.append(cpp_loop(a.model, a.steps))
        loop.append(python_loop(m, d, a.steps))
        nstep.append(python_nstep(m, d, a.steps))
    r_loop = [l / c for l, c in zip(loop, cpp)]
    r_nstep = [s / c for s, c in zip(nstep, cpp)]
    tm = moreau.Model.from_xml_string(TINY)
    td = moreau.Data(tm)
    step_us = [per_call(lambda: moreau.step(tm, td)) for _ in range(3)]
    fwd_us = [per_call(lambda: moreau.forward(tm, td)) for _ in range(3)]
    cpp_tiny = [cpp_loop_string(TINY, 200000) for _ in range(3)]
    qpos_us = [per_call(lambda: td.qpos) for _ in range(3)]
    big = moreau.Data(m)
    qpos_big_us = [per_call(lambda: big.qpos) for _ in range(3)]
    print(f"model {a.model}, {a.steps} steps, {a.runs} rounds (median (min..max))")
    print(f"  C++ loop            {spread(cpp)} us/step")
    print(f"  Python loop         {spread(loop)} us/step   ratio {spread(r_loop)}")
    print(f"  step(nstep=N)       {spread(nstep)} us/step   ratio {spread(r_nstep)}")
    print(f"  per call, 1-dof pendulum: step {spread(step_us)} us (C++ step alone {spread(cpp_tiny)} us), "
          f"forward {spread(fwd_us)} us")
    print(f"  reading d.qpos: {spread(qpos_us)} us (nq=1), {spread(qpos_big_us)} us (nq={m.nq}): a view, O(1)")
    print(json.dumps({"model": a.model, "steps": a.steps, "cpp_us": cpp, "loop_us": loop, "nstep_us": nstep,
                      "ratio_loop": r_loop, "ratio_nstep": r_nstep, "tiny_step_us": step_us,
                      "tiny_cpp_step_us": cpp_tiny, "tiny_forward_us": fwd_us, "qpos_read_us": qpos_us,
                      "qpos_read_big_us": qpos_big_us}))


def cpp_loop_string(xml, n):
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
        f.write(xml)
    try:
        return cpp_loop(f.name, n)
    finally:
        pathlib.Path(f.name).unlink()


if __name__ == "__main__":
    main()
