"""Batch rollouts on a Dask cluster: the same call as moreau.rollout, sharded over a
dask.distributed Client's workers.

    from dask.distributed import Client, LocalCluster
    import moreau.distributed
    with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster) as client:
        state, sensordata = moreau.distributed.rollout(client, "humanoid.xml", x0, control, nstep=500)

The result is bitwise what moreau.rollout returns for the same inputs: every rollout is computed by
the same engine from the same start, whichever worker runs it. The model travels as MJCF text
(read from the path on the client; relative includes and meshes resolve against assets_dir on the
workers, by default the model file's folder, so that folder must exist there too). Each worker
process compiles a model once and keeps it (and a rollout pool) in a process-local cache keyed by a
hash of the text, its assets folder and the parameter edits.

The batch is split into shards (chunk_size rollouts each; by default about four per worker) that
are submitted at once and gathered as they finish. A worker that dies mid-run loses its shards to
the scheduler, which runs them again on the other workers (Dask reschedules the tasks of a lost
worker); `retries` re-runs a shard whose task raised (a transient error). A model that does not
compile raises moreau.LoadError before anything is submitted (it is compiled on the client first);
a worker that cannot compile it (an asset missing there) makes the call raise LoadError with the
worker's message, without retries.

Per-rollout model parameters (sweeps, domain randomization): params, a list of B dicts (or None
entries) of field edits applied to a copy of the compiled model, e.g.
{"opt.solver": "raisim", "geom_friction": [0.3, 0.005, 0.0001]} (a Model array is assigned with
NumPy broadcasting, "opt.X" sets an option, "set_const": True recomputes the derived constants after
mass or inertia edits). apply_params(model, params) is the same edit, for a local moreau.rollout
over the same models.
"""

import copy
import hashlib
import math
import os
import pathlib

import numpy as np

from . import _moreau

__all__ = ["rollout", "apply_params", "load_text"]

FULL_PHYSICS = int(_moreau.State.FULL_PHYSICS)

# worker-process cache: key -> (model, pool); per-parameter variants -> model
_MODELS = {}
_VARIANTS = {}


def load_text(model_xml_or_path, assets_dir=None):
    """(xml text, assets_dir) of a model given as MJCF text or as a path to an MJCF file."""
    s = str(model_xml_or_path)
    if isinstance(model_xml_or_path, os.PathLike) or "<" not in s:
        path = pathlib.Path(s)
        try:
            xml = path.read_text()
        except OSError as e:
            raise _moreau.LoadError(f"{s}:0: <mujoco>: cannot read the model file ({e.strerror})") from None
        return xml, str(assets_dir if assets_dir is not None else path.resolve().parent)
    return s, (str(assets_dir) if assets_dir is not None else None)


def apply_params(model, params):
    """A copy of model with the edits of params (a dict; None or {}: the model itself)."""
    if not params:
        return model
    m = copy.copy(model)
    recompute = False
    for name, value in params.items():
        if name == "set_const":
            recompute = bool(value)
        elif name.startswith("opt."):
            setattr(m.opt, name[4:], value)
        else:
            target = getattr(m, name)
            if isinstance(target, np.ndarray):
                target[...] = value
            else:
                setattr(m, name, value)
    if recompute:
        _moreau.set_const(m)
    return m


def _compile(xml, assets_dir):
    return _moreau.Model.from_xml_string(xml, assets_dir)


def _key(xml, assets_dir):
    return hashlib.sha256((xml + "\0" + str(assets_dir)).encode()).hexdigest()


def _params_key(params):
    return repr(sorted((k, np.asarray(v).tolist()) for k, v in params.items())) if params else ""


def _worker_model(key, xml, assets_dir, nthread):
    entry = _MODELS.get(key)
    if entry is None:
        m = _compile(xml, assets_dir)
        entry = (m, _moreau.Rollout(m, nthread))
        _MODELS[key] = entry
    return entry


def _run_shard(key, xml, assets_dir, nthread, x0, control, nstep, spec, sensordata, qfrc, xfrc, params):
    """One shard on a worker; returns ("ok", state, sensordata) or ("load-error", message)."""
    try:
        m, pool = _worker_model(key, xml, assets_dir, nthread)
    except _moreau.LoadError as e:
        return ("load-error", str(e))
    models = None
    if params is not None:
        models = []
        for p in params:
            pk = (key, _params_key(p))
            if pk not in _VARIANTS:
                _VARIANTS[pk] = apply_params(m, p)
            models.append(_VARIANTS[pk])
    state, sens = pool.run(x0, control, nstep, spec, sensordata, qfrc, xfrc, models)
    return ("ok", state, sens)


def rollout(client, model_xml_or_path, initial_state, control=None, nstep=None,
            state_spec=FULL_PHYSICS, sensordata=False, qfrc_applied=None, xfrc_applied=None,
            params=None, chunk_size=None, nthread=1, retries=1, assets_dir=None, progress=None):
    """moreau.rollout(...)'s (state, sensordata) computed on the workers of `client`; see the
    module docstring. nthread: threads of each worker's rollout pool (1 suits one worker process
    per core). progress(done, total) is called as shards finish."""
    xml, assets = load_text(model_xml_or_path, assets_dir)
    m = _compile(xml, assets)  # raises LoadError here, before anything is submitted
    spec = int(state_spec)
    nstate = _moreau.state_size(m, spec)
    x0 = np.ascontiguousarray(initial_state, dtype=np.float64)
    if x0.ndim == 1:
        x0 = x0[None]
    if x0.ndim != 2 or x0.shape[1] != nstate:
        raise ValueError(f"rollout: initial_state has shape {x0.shape}, expected (B, nstate) = (B, {nstate})")
    B = x0.shape[0]
    if params is not None and len(params) != B:
        raise ValueError(f"rollout: {len(params)} params for {B} initial states, expected one per rollout")
    if nstep is None:
        if control is None:
            raise ValueError("rollout: nstep is required when control is None")
        nstep = np.shape(control)[-2]
    T = int(nstep)

    def per_rollout(name, a, n, nname):
        if a is None:
            return None
        a = np.ascontiguousarray(a, dtype=np.float64)
        if a.shape == (T, n):
            a = np.broadcast_to(a, (B, T, n))
        if a.shape != (B, T, n):
            raise ValueError(f"rollout: {name} has shape {a.shape}, expected (B, T, {nname}) = ({B}, {T}, {n})"
                             f" or (T, {nname}) = ({T}, {n})")
        return a

    control = per_rollout("control", control, m.nu, "nu")
    qfrc_applied = per_rollout("qfrc_applied", qfrc_applied, m.nv, "nv")
    xfrc_applied = per_rollout("xfrc_applied", xfrc_applied, 6 * m.nbody, "6*nbody")
    # a local check of everything else (sizes, spec, params) on a zero-step batch of the first rollout
    models0 = [apply_params(m, params[0])] if params is not None and B else None
    if B:
        _moreau.rollout(models0 or m, x0[:1], nstep=0, state_spec=spec)

    state = np.empty((B, T, nstate))
    sens = np.empty((B, T, m.nsensordata)) if sensordata else None
    if B == 0 or T == 0:
        return state, sens

    if chunk_size is None:
        nworkers = max(1, len(client.scheduler_info().get("workers", {})))
        chunk_size = max(1, math.ceil(B / (4 * nworkers)))
    key = _key(xml, assets)
    futures = {}
    for lo in range(0, B, chunk_size):
        hi = min(B, lo + chunk_size)
        pick = (lambda a: None if a is None else np.ascontiguousarray(a[lo:hi]))
        fut = client.submit(_run_shard, key, xml, assets, nthread, x0[lo:hi], pick(control), T, spec,
                            bool(sensordata), pick(qfrc_applied), pick(xfrc_applied),
                            None if params is None else list(params[lo:hi]),
                            pure=False, retries=retries)
        futures[fut] = (lo, hi)
    from dask.distributed import as_completed

    done = 0
    try:
        for fut in as_completed(list(futures)):
            lo, hi = futures[fut]
            result = fut.result()
            if result[0] == "load-error":
                raise _moreau.LoadError(result[1])
            state[lo:hi] = result[1]
            if sensordata:
                sens[lo:hi] = result[2]
            done += 1
            if progress is not None:
                progress(done, len(futures))
    finally:
        for fut in futures:
            if not fut.done():
                fut.cancel()
    return state, sens
