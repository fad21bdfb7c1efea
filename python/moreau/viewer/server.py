"""The viewer's server: aiohttp on its own thread (127.0.0.1 by default) serving the page, three.js
and a WebSocket. Each client receives the scene (JSON) and then binary state frames; it sends JSON
commands (pause, step, reset, key, speed, ctrl, perturb, solver). A malformed command is answered
with {"type": "error", "message": ...} and the server keeps serving.

launch(m, d): the simulation runs on the server's simulation thread, in real time (times a speed
factor) or as fast as it can. launch_passive(m, d): the caller's loop steps the simulation and
calls handle.sync(), which applies the page's commands and publishes the state.
"""
import asyncio
import errno
import json
import math
import os
import queue
import threading
import time

import numpy as np

import moreau

from . import files
from .scene import (scene_dict, frame_bytes, contact_array, solver_index, solver_name, SOLVERS, H_TIME, H_EPOT,
                    H_EKIN, H_PRIMAL, H_EPS, H_SPS, H_RTF, H_PAUSED, H_SOLVER, H_SEQ)

FRAME_RATE = 60.0   # state frames per second pushed to the pages
MAX_IN_FLIGHT = 4   # unacknowledged frames a page that acknowledges them may have (4: at most ~70 ms behind)
GOT = '{"cmd":"got"}'  # a page's acknowledgement of a frame (no reply)
ENABLE_ENERGY = 1 << 1


class CommandError(ValueError):
    pass


def _num(msg, key, lo=None, hi=None):
    v = msg.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise CommandError(f"'{msg.get('cmd')}' needs a finite number '{key}'")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise CommandError(f"'{msg.get('cmd')}': '{key}' = {v} is outside [{lo}, {hi}]")
    return v


def _int(msg, key, lo, hi):
    v = msg.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v < hi:
        raise CommandError(f"'{msg.get('cmd')}' needs an integer '{key}' in [{lo}, {hi})")
    return v


def _vec3(msg, key):
    v = msg.get(key)
    if not isinstance(v, list) or len(v) != 3 or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in v):
        raise CommandError(f"'{msg.get('cmd')}' needs '{key}': a list of 3 finite numbers")
    return np.asarray(v, dtype=float)


def parse_command(m, text):
    """Validate one JSON command from a page; returns the dict or raises CommandError."""
    try:
        msg = json.loads(text)
    except (ValueError, TypeError) as e:
        raise CommandError(f"malformed message (not JSON: {e})")
    if not isinstance(msg, dict) or not isinstance(msg.get("cmd"), str):
        raise CommandError("malformed message: expected a JSON object with a string 'cmd'")
    cmd = msg["cmd"]
    if cmd == "pause":
        if "value" in msg and not isinstance(msg["value"], bool):
            raise CommandError("'pause' takes an optional boolean 'value'")
    elif cmd in ("step", "reset"):
        pass
    elif cmd == "key":
        if not m.nkey:
            raise CommandError("the model has no keyframe")
        _int(msg, "index", 0, m.nkey)
    elif cmd == "speed":
        _num(msg, "value", 0, 100)
    elif cmd == "ctrl":
        if m.nu == 0:
            raise CommandError("the model has no actuator")
        _int(msg, "index", 0, m.nu)
        _num(msg, "value")
    elif cmd == "perturb":
        b = msg.get("body")
        if b == -1:
            pass
        else:
            _int(msg, "body", 1, m.nbody)
            _vec3(msg, "anchor")
            _vec3(msg, "target")
    elif cmd == "solver":
        if msg.get("name") not in SOLVERS:
            raise CommandError(f"'solver' needs 'name', one of {', '.join(SOLVERS)}")
    else:
        raise CommandError(f"unknown command '{cmd}'")
    return msg


class Simulation:
    """The state a page controls, and how its commands change m and d. Not thread-safe: its owner
    (the simulation thread of launch, or the caller of sync) applies commands and steps."""

    def __init__(self, m, d):
        self.m, self.d = m, d
        self.paused = False
        self.speed = 1.0           # 0: as fast as possible
        self.pending_steps = 0
        self.key = 0 if m.nkey else -1
        self.perturb = None        # (body, anchor in the body frame, target in the world)
        self.last_anchor = None
        self.changed = True        # time base must be reset (pacing)
        self.seq = 0
        m.opt.enableflags = int(m.opt.enableflags) | ENABLE_ENERGY

    def apply(self, msg):
        m, d = self.m, self.d
        cmd = msg["cmd"]
        if cmd == "pause":
            self.paused = msg.get("value", not self.paused)
        elif cmd == "step":
            self.paused = True
            self.pending_steps += 1
        elif cmd == "reset":
            if self.key >= 0:
                moreau.reset_data_keyframe(m, d, self.key)
            else:
                moreau.reset_data(m, d)
            moreau.forward(m, d)
        elif cmd == "key":
            self.key = msg["index"]
            moreau.reset_data_keyframe(m, d, self.key)
            moreau.forward(m, d)
        elif cmd == "speed":
            self.speed = float(msg["value"])
        elif cmd == "ctrl":
            d.ctrl[msg["index"]] = msg["value"]
        elif cmd == "perturb":
            if msg["body"] == -1:
                if self.perturb is not None:
                    d.xfrc_applied[self.perturb[0]] = 0
                self.perturb = None
                self.last_anchor = None
            else:
                if self.perturb is not None and self.perturb[0] != msg["body"]:
                    d.xfrc_applied[self.perturb[0]] = 0
                    self.last_anchor = None
                self.perturb = (msg["body"], np.asarray(msg["anchor"], float), np.asarray(msg["target"], float))
        elif cmd == "solver":
            m.opt.solver = msg["name"]
        self.changed = True

    def apply_perturbation(self, dt):
        """A spring from the grabbed point to the mouse target, applied through xfrc_applied (at the
        body's centre of mass, with the torque of the offset), as MuJoCo's simulate pulls bodies."""
        if self.perturb is None:
            return
        m, d = self.m, self.d
        b, anchor, target = self.perturb
        R = np.asarray(d.xmat[b]).reshape(3, 3)
        p = np.asarray(d.xpos[b]) + R @ anchor
        com = np.asarray(d.xpos[b]) + R @ np.asarray(m.body_ipos[b])
        mass = float(m.body_subtreemass[b])
        k = 100.0
        f = k * mass * (target - p)
        if self.last_anchor is not None and dt > 0:
            f -= 2 * math.sqrt(k) * mass * (p - self.last_anchor) / dt
        self.last_anchor = p
        d.xfrc_applied[b, :3] = f
        d.xfrc_applied[b, 3:] = np.cross(p - com, f)

    def frame(self, sps=0.0, rtf=0.0):
        m, d = self.m, self.d
        primal = eps = 0.0
        try:
            if d.ncon:
                cm = moreau.contact_metrics(m, d)
                primal, eps = float(cm.get("primal", 0.0)), float(cm.get("eps_abs", 0.0))
        except Exception:  # metrics are informative only
            pass
        try:
            contacts = contact_array(m, d)
        except Exception:
            contacts = None
        energy = np.asarray(d.energy).reshape(-1)
        self.seq += 1
        header = {H_TIME: float(d.time), H_EPOT: float(energy[0]), H_EKIN: float(energy[1]), H_PRIMAL: primal,
                  H_EPS: eps, H_SPS: sps, H_RTF: rtf, H_PAUSED: 1.0 if self.paused else 0.0,
                  H_SOLVER: float(solver_index(m)), H_SEQ: float(self.seq)}
        return frame_bytes(m, d, header, contacts)


class Server:
    """The aiohttp server thread. publish(frame) sends a state frame to every page (the newest
    frame replaces one a slow page has not taken yet); commands from pages go to self.commands."""

    def __init__(self, m, d, host="127.0.0.1", port=8000):
        self.m, self.d = m, d
        self.host, self.port = host, port
        self.commands = queue.Queue()
        self.clients = {}
        moreau.forward(m, d)  # poses for the scene's initial frame and camera
        self.scene_json = json.dumps({"type": "scene", "scene": scene_dict(m, d)}, separators=(",", ":"))
        self.errors_sent = 0
        self.frames_sent = 0
        self._loop = None
        self._thread = None
        self._runner = None
        self._started = threading.Event()
        self._start_error = None
        self._latest = (0, None)  # (sequence number, frame bytes)

    # ---------------------------------------------------------------- lifecycle
    def start(self):
        files.web_dir()
        files.three_files()
        self._thread = threading.Thread(target=self._run, name="moreau-viewer-server", daemon=True)
        self._thread.start()
        self._started.wait()
        if self._start_error is not None:
            self._thread.join()
            raise self._start_error
        return self

    @property
    def url(self):
        host = self.host if ":" not in self.host else f"[{self.host}]"
        return f"http://{host}:{self.port}/"

    def _run(self):
        from aiohttp import web
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        app = web.Application()
        web_dir = files.web_dir()
        core, orbit = files.three_files()
        def serve(path):
            async def handler(request):
                return web.FileResponse(path)
            return handler
        index = os.path.join(web_dir, "index.html")
        for route, path in [("/", index), ("/index.html", index), ("/viewer.js", os.path.join(web_dir, "viewer.js")),
                            ("/style.css", os.path.join(web_dir, "style.css")), ("/three/three.min.js", core),
                            ("/three/examples/js/controls/OrbitControls.js", orbit)]:
            app.router.add_get(route, serve(path))
        app.router.add_get("/ws", self._ws)
        self._runner = web.AppRunner(app, access_log=None)
        try:
            loop.run_until_complete(self._runner.setup())
            site = web.TCPSite(self._runner, self.host, self.port, reuse_address=False)
            loop.run_until_complete(site.start())
            if self.port == 0:
                self.port = site._server.sockets[0].getsockname()[1]
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                self._start_error = OSError(errno.EADDRINUSE,
                                            f"moreau.viewer: port {self.port} on {self.host} is already in use "
                                            "(choose another with --port, or stop what listens there)")
            else:
                self._start_error = OSError(e.errno, f"moreau.viewer: cannot listen on {self.host}:{self.port}: {e}")
            loop.run_until_complete(self._runner.cleanup())
            loop.close()
            self._started.set()
            return
        self._started.set()
        pump = loop.create_task(self._pump())
        try:
            loop.run_forever()
        finally:
            pump.cancel()
            loop.run_until_complete(self._shutdown())
            loop.close()

    async def _shutdown(self):
        # pages get a close frame; their reader tasks end with the runner (no waiting for replies)
        for ws in list(self.clients):
            try:
                await asyncio.wait_for(ws.close(), 0.2)
            except (asyncio.TimeoutError, ConnectionError, RuntimeError):
                pass
        await self._runner.shutdown()
        await self._runner.cleanup()

    def close(self):
        if self._loop is not None and self._thread is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)

    # ---------------------------------------------------------------- pages
    async def _ws(self, request):
        from aiohttp import web, WSMsgType
        ws = web.WebSocketResponse(max_msg_size=1 << 20)
        await ws.prepare(request)
        await ws.send_str(self.scene_json)
        # flow control: a page that acknowledges frames ({"cmd": "got"} after drawing-side handling)
        # has at most MAX_IN_FLIGHT unacknowledged frames; a slow page then gets the newest state
        # instead of a growing queue (and lag) in the socket buffers
        slot = {"frame": None, "event": asyncio.Event(), "flow": False, "inflight": 0}
        self.clients[ws] = slot
        sender = asyncio.ensure_future(self._sender(ws, slot))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    if msg.data == GOT:
                        slot["flow"] = True
                        slot["inflight"] = max(0, slot["inflight"] - 1)
                        slot["event"].set()
                        continue
                    try:
                        cmd = parse_command(self.m, msg.data)
                    except CommandError as e:
                        self.errors_sent += 1
                        await ws.send_str(json.dumps({"type": "error", "message": str(e)}))
                        continue
                    self.commands.put(cmd)
                    await ws.send_str(json.dumps({"type": "ack", "cmd": cmd["cmd"]}))
                elif msg.type == WSMsgType.BINARY:
                    self.errors_sent += 1
                    await ws.send_str(json.dumps({"type": "error", "message": "malformed message: commands are JSON text"}))
                elif msg.type == WSMsgType.ERROR:
                    break
        finally:
            sender.cancel()
            self.clients.pop(ws, None)
        return ws

    async def _sender(self, ws, slot):
        while not ws.closed:
            await slot["event"].wait()
            slot["event"].clear()
            if slot["frame"] is None or (slot["flow"] and slot["inflight"] >= MAX_IN_FLIGHT):
                continue  # nothing new, or the page has not caught up: the newest frame waits
            frame, slot["frame"] = slot["frame"], None
            try:
                await ws.send_bytes(frame)
                self.frames_sent += 1
                if slot["flow"]:
                    slot["inflight"] += 1
            except (ConnectionError, RuntimeError):
                return

    async def _pump(self):
        # The server thread looks for a new frame twice per frame period instead of being woken by
        # the simulation thread: a cross-thread wake-up (call_soon_threadsafe) makes the simulation
        # thread write to a socket and hand the GIL over, which cost it several percent of its time.
        seen = 0
        while True:
            await asyncio.sleep(0.5 / FRAME_RATE)
            seq, frame = self._latest
            if seq != seen and frame is not None:
                seen = seq
                for slot in self.clients.values():
                    slot["frame"] = frame
                    slot["event"].set()

    def publish(self, frame):
        """Send a state frame (bytes) to every page; callable from any thread (a plain assignment:
        the server thread picks it up within half a frame period)."""
        if self.clients:
            self._latest = (self._latest[0] + 1, frame)

    def pending_commands(self):
        out = []
        while True:
            try:
                out.append(self.commands.get_nowait())
            except queue.Empty:
                return out


class Launched:
    """launch(..., block=False): the server and the simulation thread; stop() ends both."""

    def __init__(self, m, d, host, port, unthrottled):
        self.sim = Simulation(m, d)
        if unthrottled:
            self.sim.speed = 0.0
        self.server = Server(m, d, host, port).start()
        self.steps = 0
        self.step_seconds = 0.0    # wall time the simulation thread spent in moreau.step
        self.steps_per_second = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="moreau-viewer-sim", daemon=True)
        self._thread.start()

    @property
    def url(self):
        return self.server.url

    def _run(self):
        sim, m, d = self.sim, self.sim.m, self.sim.d
        moreau.forward(m, d)
        dt = float(m.opt.timestep)
        frame_dt = 1.0 / FRAME_RATE
        next_frame = time.perf_counter()
        wall0, sim0 = time.perf_counter(), float(d.time)
        rate_t, rate_n = time.perf_counter(), 0
        batch = 1
        while not self._stop.is_set():
            for cmd in self.server.pending_commands():
                try:
                    sim.apply(cmd)
                except Exception as e:  # a command the engine refuses: tell the pages, keep going
                    self.server._loop.call_soon_threadsafe(self._report, str(e))
            if sim.changed:
                wall0, sim0 = time.perf_counter(), float(d.time)
                sim.changed = False
            now = time.perf_counter()
            n = 0
            if sim.pending_steps:
                n, sim.pending_steps = sim.pending_steps, 0
            elif not sim.paused:
                if sim.speed == 0:
                    n = batch
                else:
                    behind = (now - wall0) * sim.speed - (float(d.time) - sim0)
                    n = int(behind / dt)
                    if n > 2000:  # too far behind real time: drop the backlog
                        wall0, sim0 = now, float(d.time)
                        n = 1
            if n > 0:
                t_step = time.perf_counter()
                if sim.perturb is not None:
                    for _ in range(n):
                        sim.apply_perturbation(dt)
                        moreau.step(m, d)
                else:
                    moreau.step(m, d, n)
                self.step_seconds += time.perf_counter() - t_step
                self.steps += n
                rate_n += n
            now = time.perf_counter()
            if sim.speed == 0 and n:
                # batches of about half a frame keep the loop's overhead small
                per = (now - rate_t) / max(rate_n, 1)
                batch = max(1, min(10000, int(frame_dt / 2 / max(per, 1e-7))))
            if now >= next_frame:
                if now - rate_t > 0.5:
                    self.steps_per_second = rate_n / (now - rate_t)
                    rate_t, rate_n = now, 0
                rtf = self.steps_per_second * dt if not sim.paused else 0.0
                self.server.publish(sim.frame(self.steps_per_second, rtf))
                # a fixed schedule (not now + period) keeps the average rate at FRAME_RATE; a
                # frame missed by more than a period is skipped, not sent in a burst
                next_frame += frame_dt
                if next_frame <= now:
                    next_frame = now + frame_dt
            elif n == 0:
                time.sleep(min(0.002, max(0.0, next_frame - now)))

    def _report(self, text):
        for ws in list(self.server.clients):
            asyncio.ensure_future(ws.send_str(json.dumps({"type": "error", "message": text})))

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=10)
        self.server.close()

    def wait(self):
        try:
            while self._thread.is_alive():
                self._thread.join(timeout=0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()


def launch(m, d, host="127.0.0.1", port=8000, unthrottled=False, block=True, open_browser=False):
    """Serve the viewer and run the simulation on a thread of the server, in real time (or as fast
    as it can with unthrottled=True, or the page's speed selector). Blocks until Ctrl-C unless
    block=False, which returns a handle with .url, .steps_per_second and .stop()."""
    h = Launched(m, d, host, port, unthrottled)
    print(f"moreau viewer: {h.url}", flush=True)
    if open_browser:
        import webbrowser
        webbrowser.open(h.url)
    if not block:
        return h
    h.wait()
    return h


class PassiveHandle:
    """launch_passive's handle. sync() applies the page's commands to m and d (ctrl, perturbation,
    reset, keyframe, solver) and publishes the current state; the caller's loop steps d. `paused`
    and `speed` tell what the page asked for (the caller's loop may honour them)."""

    def __init__(self, m, d, host, port):
        self.sim = Simulation(m, d)
        self.server = Server(m, d, host, port).start()
        self._last_sync = time.perf_counter()
        self._last_time = float(d.time)
        self._last_frame = 0.0

    @property
    def url(self):
        return self.server.url

    @property
    def paused(self):
        return self.sim.paused

    @property
    def speed(self):
        return self.sim.speed

    def is_running(self):
        return self.server._thread is not None and self.server._thread.is_alive()

    def sync(self):
        sim = self.sim
        for cmd in self.server.pending_commands():
            sim.apply(cmd)
        now = time.perf_counter()
        dt = float(sim.d.time) - self._last_time
        sim.apply_perturbation(dt if dt > 0 else float(sim.m.opt.timestep))
        if now - self._last_frame >= 1.0 / FRAME_RATE:
            wall = now - self._last_sync
            rtf = dt / wall if wall > 0 else 0.0
            sps = rtf / float(sim.m.opt.timestep)
            self.server.publish(sim.frame(sps, rtf))
            self._last_frame = now
            self._last_sync, self._last_time = now, float(sim.d.time)

    def close(self):
        self.server.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def launch_passive(m, d, host="127.0.0.1", port=8000):
    """Serve the viewer for a simulation the caller steps; returns a PassiveHandle (sync, close)."""
    h = PassiveHandle(m, d, host, port)
    print(f"moreau viewer: {h.url}", flush=True)
    return h
