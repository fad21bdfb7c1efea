"""moreau.distributed.rollout on a LocalCluster of two worker processes on 127.0.0.1, started and
stopped here: bitwise moreau.rollout's result, per-rollout parameters, a worker killed mid-run, a
bad model failing fast with the LoadError text."""

import os
import signal
import time

import numpy as np
import pytest

import moreau
from conftest import BUILD, HUMANOID, ROOT

distributed = pytest.importorskip("distributed")
import moreau.distributed as mdist  # noqa: E402

CUBE = ROOT / "models" / "experiments" / "sliding_cube.xml"


@pytest.fixture(scope="module")
def client():
    # the worker processes import moreau from the build tree too
    os.environ["PYTHONPATH"] = os.pathsep.join([str(BUILD / "python"), os.environ.get("PYTHONPATH", "")])
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None, silence_logs=40)
    c = distributed.Client(cluster, timeout="30s")
    c.wait_for_workers(2, timeout=60)
    yield c
    c.close(timeout=20)
    cluster.close(timeout=20)


def starts(m, B, seed):
    rng = np.random.default_rng(seed)
    d = moreau.Data(m)
    x = np.tile(moreau.get_state(m, d, moreau.State.FULL_PHYSICS), (B, 1))
    x[:, 1 + m.nq:1 + m.nq + m.nv] += 0.2 * rng.uniform(-1, 1, (B, m.nv))
    return x


def test_equals_local_rollout_bitwise(client):
    m = moreau.Model.from_xml_path(str(HUMANOID))
    B, T = 12, 40
    x0 = starts(m, B, 1)
    ctrl = np.random.default_rng(2).uniform(-1, 1, (B, T, m.nu))
    want = moreau.rollout(m, x0, ctrl, nthread=2)[0]
    seen = []
    state, sens = mdist.rollout(client, HUMANOID, x0, ctrl, chunk_size=5, progress=lambda d, n: seen.append((d, n)))
    assert sens is None and state.shape == want.shape
    assert np.array_equal(state, want)
    assert seen[-1] == (3, 3)
    # MJCF text instead of a path, the same control for every rollout, sensordata
    xml = HUMANOID.read_text()
    state2, sens2 = mdist.rollout(client, xml, x0, ctrl[0], assets_dir=str(HUMANOID.parent), sensordata=True)
    assert np.array_equal(state2, moreau.rollout(m, x0, ctrl[0])[0])
    assert sens2.shape == (B, T, m.nsensordata)
    # the model is compiled once per worker and kept
    keys = client.run(lambda: sorted(__import__("moreau.distributed").distributed._MODELS))
    assert all(len(k) <= 2 for k in keys.values())


def test_per_rollout_params_sweep(client):
    base = moreau.Model.from_xml_path(str(CUBE))
    params = [{"opt.solver": s, "geom_friction": [mu, 0.005, 0.0001]}
              for s in ("raisim-ds", "Newton") for mu in (0.2, 0.4, 0.6)]
    x0 = np.tile(moreau.get_state(base, moreau.Data(base), moreau.State.FULL_PHYSICS), (len(params), 1))
    x0[:, 1 + base.nq] = 1.0
    models = [mdist.apply_params(base, p) for p in params]
    want = moreau.rollout(models, x0, nstep=200)[0]
    state, _ = mdist.rollout(client, CUBE, x0, nstep=200, params=params, chunk_size=2)
    assert np.array_equal(state, want)
    assert len(set(state[:, -1, 1 + base.nq].tolist())) == len(params)


def test_worker_killed_mid_run_still_gives_the_full_identical_result(client):
    m = moreau.Model.from_xml_path(str(HUMANOID))
    B, T = 16, 150
    x0 = starts(m, B, 3)
    want = moreau.rollout(m, x0, nstep=T, nthread=2)[0]
    pids = client.run(os.getpid)
    killed = []

    def kill_one(done, total):
        if not killed:  # after the first shard: kill a worker that still has work
            processing = client.processing()
            victim = max(pids, key=lambda a: len(processing.get(a, ())))
            os.kill(pids[victim], signal.SIGKILL)
            killed.append(victim)

    t0 = time.monotonic()
    state, _ = mdist.rollout(client, HUMANOID, x0, nstep=T, chunk_size=2, progress=kill_one)
    assert killed
    assert np.array_equal(state, want)
    assert time.monotonic() - t0 < 120
    client.wait_for_workers(1, timeout=30)


def test_bad_model_fails_fast_with_the_load_error_text(client):
    t0 = time.monotonic()
    with pytest.raises(moreau.LoadError, match=r"<geom>: attribute 'type' expects one of"):
        mdist.rollout(client, '<mujoco><worldbody><geom type="foo"/></worldbody></mujoco>', np.zeros((2, 1)), nstep=3)
    with pytest.raises(moreau.LoadError, match="cannot read the model file"):
        mdist.rollout(client, "/no/such/model.xml", np.zeros((2, 1)), nstep=3)
    assert time.monotonic() - t0 < 5
    # a worker that cannot compile the model (an asset missing there) reports the LoadError text,
    # which rollout raises without retrying
    bad = '<mujoco><asset><mesh name="m" file="nowhere.stl"/></asset><worldbody/></mujoco>'
    result = client.submit(mdist._run_shard, "k", bad, None, 1, np.zeros((1, 1)), None, 1, 15, False, None, None,
                           None, pure=False).result(timeout=30)
    assert result[0] == "load-error" and "nowhere.stl" in result[1]


def test_bad_shapes_and_empty_batches(client):
    m = moreau.Model.from_xml_path(str(HUMANOID))
    ns = moreau.state_size(m, moreau.State.FULL_PHYSICS)
    with pytest.raises(ValueError, match=r"initial_state has shape \(2, 3\)"):
        mdist.rollout(client, HUMANOID, np.zeros((2, 3)), nstep=3)
    with pytest.raises(ValueError, match="control has shape"):
        mdist.rollout(client, HUMANOID, np.zeros((2, ns)), np.zeros((2, 3, m.nu + 1)))
    state, _ = mdist.rollout(client, HUMANOID, np.zeros((0, ns)), nstep=3)
    assert state.shape == (0, 3, ns)
    state, _ = mdist.rollout(client, HUMANOID, starts(m, 2, 4), nstep=0)
    assert state.shape == (2, 0, ns)
