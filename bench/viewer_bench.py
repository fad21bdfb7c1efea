"""Viewer benchmarks (docs/notes/viewer.md):

1. Overhead on the simulation: steps/s of humanoid.xml in a bare Python loop (moreau.step one step
   at a time, and in one call of N steps) against launch(unthrottled=True) with a page connected
   (a WebSocket client taking every frame; optionally the real page in headless Chromium).
2. State updates per second reaching a page for 22_humanoids in real time (WebSocket client, and
   the headless page's own frame counter).
3. Size of a 2000-step humanoid replay.

Run: PYTHONPATH=build/python /usr/bin/python3 bench/viewer_bench.py [--browser]
"""
import argparse
import asyncio
import os
import sys
import tempfile
import threading
import time

import numpy as np

import moreau
from moreau import viewer
from moreau.viewer.scene import pose_array

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HUMANOID = os.path.join(ROOT, "models", "humanoid.xml")
H22 = "/usr/share/mujoco/model/humanoid/22_humanoids.xml"


def bare(path, seconds=3.0, warmup=1.0):
    """Steps per second (wall, and per CPU second) of a bare Python loop, measured as the viewer
    run is: from the initial state, after `warmup` seconds of stepping (the humanoid falls and
    lies in contact in both)."""
    m = moreau.Model.from_xml_path(path)
    d = moreau.Data(m)
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < warmup:
        moreau.step(m, d, 10)
    n, t0, c0 = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        moreau.step(m, d, 10)
        n += 10
    return n / (time.perf_counter() - t0), n / (time.process_time() - c0)


def _client_main(url, counter, stop):
    import aiohttp

    async def run():
        async with aiohttp.ClientSession() as s:
            async with s.ws_connect(url.replace("http", "ws") + "ws", max_msg_size=0) as ws:
                while not stop.is_set():
                    msg = await ws.receive(timeout=5)
                    if msg.type == aiohttp.WSMsgType.BINARY:
                        await ws.send_str('{"cmd":"got"}')  # acknowledged as the page does
                        with counter.get_lock():
                            counter.value += 1
    asyncio.run(run())


class Client:
    """A page stand-in in its own process (as a browser's page is) that takes and acknowledges
    every frame, as the page does, without drawing."""

    def __init__(self, url):
        import multiprocessing as mp
        ctx = mp.get_context("spawn")
        self.counter, self._stop = ctx.Value("l", 0), ctx.Event()
        self.p = ctx.Process(target=_client_main, args=(url, self.counter, self._stop), daemon=True)
        self.p.start()

    @property
    def frames(self):
        return self.counter.value

    @property
    def stop(self):
        return self._stop.is_set()

    @stop.setter
    def stop(self, v):
        if v:
            self._stop.set()
            self.p.join(timeout=5)
            if self.p.is_alive():
                self.p.terminate()


def launched(path, seconds, unthrottled, browser=False, page_options="maxfps=30"):
    m = moreau.Model.from_xml_path(path)
    d = moreau.Data(m)
    h = viewer.launch(m, d, port=0, block=False, unthrottled=unthrottled)
    b = None
    try:
        c = Client(h.url)
        if browser:
            from moreau.viewer.record import Browser
            b = Browser(800, 600)
            b.driver.get(h.url + "?" + page_options)
            b.wait_ready()
        time.sleep(1.0)
        s0, f0, t0, c0, w0 = h.steps, c.frames, time.perf_counter(), time.process_time(), h.step_seconds
        p0 = b.driver.execute_script("return window.moreau.frames") if b else 0
        time.sleep(seconds)
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        p1 = b.driver.execute_script("return window.moreau.frames") if b else 0
        out = {"steps_per_s": (h.steps - s0) / dt, "steps_per_cpu_s": (h.steps - s0) / dc,
               "in_step": (h.step_seconds - w0) / dt, "frames_per_s_client": (c.frames - f0) / dt,
               "frames_per_s_page": (p1 - p0) / dt if b else None, "sim_time": float(d.time)}
        c.stop = True
        return out
    finally:
        if b:
            b.close()
        h.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--browser", action="store_true", help="also measure with the page in headless Chromium")
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    # bare and viewer runs alternate, so that load from elsewhere on the machine hits both alike
    ratios, cpu_ratios = [], []
    for k in range(a.rounds):
        b1, c1 = bare(HUMANOID, a.seconds)
        r = launched(HUMANOID, a.seconds, True)
        b2, c2 = bare(HUMANOID, a.seconds)
        ratios.append(r["steps_per_s"] / (0.5 * (b1 + b2)))
        cpu_ratios.append(r["steps_per_cpu_s"] / (0.5 * (c1 + c2)))
        print("round %d: humanoid bare loop %.0f / %.0f steps/s (%.0f / %.0f per CPU s); launch unthrottled, "
              "page stand-in in another process: %.0f steps/s (%.0f per CPU s of the simulating process), "
              "%.1f frames/s: %.3f of bare (per CPU s: %.3f); simulation thread in moreau.step %.3f of its time"
              % (k, b1, b2, c1, c2, r["steps_per_s"], r["steps_per_cpu_s"], r["frames_per_s_client"], ratios[-1],
                 cpu_ratios[-1], r["in_step"]))
    print("humanoid launch / bare, median of %d rounds: %.3f wall, %.3f per CPU second"
          % (a.rounds, float(np.median(ratios)), float(np.median(cpu_ratios))))
    if a.browser:
        r = launched(HUMANOID, a.seconds, True, browser=True)
        print("humanoid launch unthrottled, Chromium page: %.0f steps/s, page %.1f frames/s" % (r["steps_per_s"], r["frames_per_s_page"]))
    if os.path.exists(H22):
        r = launched(H22, a.seconds, False)
        print("22_humanoids real time, client: %.1f frames/s, %.0f steps/s" % (r["frames_per_s_client"], r["steps_per_s"]))
        if a.browser:
            r = launched(H22, a.seconds, False, browser=True)
            print("22_humanoids real time, Chromium page: %.1f frames/s applied (client %.1f)" % (r["frames_per_s_page"], r["frames_per_s_client"]))
            r = launched(H22, a.seconds, False, browser=True, page_options="maxfps=5&shadows=0")
            print("22_humanoids real time, Chromium page drawing at most 5 times/s, no shadows: %.1f frames/s applied "
                  "(client %.1f)" % (r["frames_per_s_page"], r["frames_per_s_client"]))
    m = moreau.Model.from_xml_path(HUMANOID)
    d = moreau.Data(m)
    moreau.forward(m, d)
    poses = [pose_array(d)]
    for _ in range(2000):
        moreau.step(m, d)
        poses.append(pose_array(d))
    with tempfile.TemporaryDirectory() as t:
        p = os.path.join(t, "r.html")
        viewer.record(m, poses, p)
        print("replay of 2000 humanoid steps: %d bytes" % os.path.getsize(p))


if __name__ == "__main__":
    main()
