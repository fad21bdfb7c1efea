"""Self-contained replays (one HTML file), snapshots and videos rendered by headless Chromium."""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time

import numpy as np

from . import files
from .scene import scene_dict, pose_array, free_camera

_BEGIN, _END = "<!-- MOREAU_INLINE_BEGIN -->", "<!-- MOREAU_INLINE_END -->"


def _script(text):
    # a literal "</script" inside inlined code would end the element early
    return "<script>\n" + text.replace("</script", "<\\/script") + "\n</script>\n"


def replay_html(scene, poses, times=None, camera=None, bare=False):
    """The replay page: the viewer with scene, trajectory (float32 (nframe, nbody, 7)) and three.js
    inlined, so that it opens from a file with no network."""
    web = files.web_dir()
    with open(os.path.join(web, "index.html"), encoding="utf-8") as f:
        page = f.read()
    with open(os.path.join(web, "style.css"), encoding="utf-8") as f:
        css = f.read()
    poses = np.ascontiguousarray(poses, dtype=np.float32)
    # Bodies that never move are stored once (frame 0). For the others: positions as float32 and
    # unit quaternions as int16 (q * 32767, rounded: 1.5e-5 per component, far below a pixel),
    # which keeps 2000 frames of a humanoid with three.js inlined under 2 MB.
    moving = [b for b in range(poses.shape[1]) if np.any(poses[:, b] != poses[0, b])]
    mov = poses[:, moving, :]
    b64 = lambda a: base64.b64encode(np.ascontiguousarray(a).tobytes()).decode("ascii")
    data = {"scene": scene, "nframe": int(poses.shape[0]),
            "static": b64(poses[0]), "moving": moving,
            "pos": b64(mov[:, :, :3].astype(np.float32)),
            "quat": b64(np.round(np.clip(mov[:, :, 3:], -1, 1) * 32767).astype(np.int16)),
            "time": base64.b64encode(np.asarray(times, dtype=np.float32).tobytes()).decode("ascii")
            if times is not None else None,
            "camera": camera, "bare": bool(bare)}
    core, orbit = files.three_files()
    parts = [_script("window.MOREAU_REPLAY = " + json.dumps(data, separators=(",", ":")) + ";")]
    for p in (core, orbit, os.path.join(web, "viewer.js")):
        with open(p, encoding="utf-8") as f:
            parts.append(_script(f.read()))
    a, b = page.index(_BEGIN), page.index(_END) + len(_END)
    page = page[:a] + "".join(parts) + page[b:]
    page = page.replace('<link rel="stylesheet" href="style.css">', "<style>\n" + css + "\n</style>")
    return page


def _states_to_poses(m, states, times=None):
    """states: an iterable of Data objects, of (nbody, 7) pose arrays (xpos, xquat), or of physics
    state vectors (moreau.get_state(m, d, moreau.State.PHYSICS)); returns float32 (nframe, nbody, 7)
    and the frame times (from the Data objects, or `times`, or None)."""
    import moreau
    poses, seen = [], []
    d = None
    for s in states:
        if hasattr(s, "xpos"):
            poses.append(pose_array(s))
            seen.append(float(s.time))
            continue
        a = np.asarray(s)
        if a.ndim == 2 and a.shape == (m.nbody, 7):
            poses.append(a.astype(np.float32))
            continue
        if d is None:
            d = moreau.Data(m)
        moreau.set_state(m, d, a, moreau.State.PHYSICS)
        moreau.forward(m, d)
        poses.append(pose_array(d))
    if not poses:
        raise ValueError("record: no states given")
    arr = np.stack(poses).astype(np.float32)
    if times is not None:
        times = np.asarray(times, dtype=float).reshape(-1)
        if len(times) != len(arr):
            raise ValueError(f"record: {len(times)} times for {len(arr)} states")
    elif len(seen) == len(arr):
        times = np.asarray(seen)
    return arr, times


def record(m, states, path="replay.html", times=None, camera=None):
    """Write ONE self-contained HTML file that replays `states` (Data snapshots, (nbody, 7) pose
    arrays, or moreau.get_state(m, d, moreau.State.PHYSICS) vectors; `times` optional) with a time
    slider. It plays offline: the scene, the trajectory (float32 body poses) and three.js are inlined."""
    poses, times = _states_to_poses(m, states, times)
    scene = scene_dict(m)
    html = replay_html(scene, poses, times, camera=camera)
    with open(path, "w", encoding="utf-8") as f:
        f.write(html)
    return path


# ---------------------------------------------------------------------- headless Chromium
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--enable-unsafe-swiftshader", "--use-angle=swiftshader", "--hide-scrollbars"]


class Browser:
    """Headless Debian Chromium driven by Selenium (/usr/bin/chromedriver), with a fresh profile."""

    def __init__(self, width=800, height=600):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        self.profile = tempfile.mkdtemp(prefix="moreau-chromium-")
        opts = webdriver.ChromeOptions()
        opts.binary_location = "/usr/bin/chromium"
        for flag in CHROMIUM_FLAGS:
            opts.add_argument(flag)
        opts.add_argument(f"--user-data-dir={self.profile}")
        opts.add_argument(f"--window-size={max(width, 600)},{max(height, 400)}")
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        try:
            self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
        except Exception:
            shutil.rmtree(self.profile, ignore_errors=True)
            raise
        self.set_size(width, height)

    def set_size(self, width, height):
        """A viewport of exactly width x height CSS pixels (device metrics override: any size,
        independent of the window's minimum size), at one device pixel per CSS pixel."""
        if not (1 <= width <= 8192 and 1 <= height <= 8192):
            raise ValueError(f"image size {width}x{height}: width and height must be 1..8192")
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": int(width), "height": int(height), "deviceScaleFactor": 1,
                                     "mobile": False})

    def wait_ready(self, timeout=20):
        t0 = time.time()
        while time.time() - t0 < timeout:
            if self.driver.execute_script("return !!(window.moreau && window.moreau.ready);"):
                return
            time.sleep(0.05)
        raise TimeoutError("the viewer page did not become ready in %g s" % timeout)

    def screenshot_png(self):
        return self.driver.get_screenshot_as_png()

    def close(self):
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _render_frames(m, poses, camera, width, height, on_frame, d=None):
    html = replay_html(scene_dict(m, d), poses, None, camera=camera, bare=True)
    tmp = tempfile.mkdtemp(prefix="moreau-render-")
    try:
        page = os.path.join(tmp, "frame.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write(html)
        with Browser(width, height) as b:
            b.driver.get("file://" + page)
            b.wait_ready()
            for k in range(len(poses)):
                b.driver.execute_script("window.moreau.showFrame(arguments[0]);", k)
                on_frame(k, b.screenshot_png())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _camera_arg(m, camera, d=None):
    if camera is None:
        return free_camera(m, d)
    if isinstance(camera, str):
        names = list(m.names("camera"))
        if camera not in names:
            raise ValueError(f"unknown camera '{camera}' (the model has {names or 'none'})")
        return names.index(camera)
    if isinstance(camera, (int, np.integer)):
        if not 0 <= camera < m.ncam:
            raise ValueError(f"camera id {camera} out of range (the model has {m.ncam})")
        return int(camera)
    if isinstance(camera, dict):
        return free_camera(m, d, **camera)
    raise TypeError("camera: None, a model camera's name or id, or a dict(lookat, distance, azimuth, elevation, fovy)")


def snapshot(m, d, path="frame.png", camera=None, width=640, height=480):
    """Render the current state of d to a PNG with headless Chromium. camera: None (the default
    free camera), a model camera's name or id, or a dict of free camera parameters."""
    cam = _camera_arg(m, camera, d)
    out = []
    _render_frames(m, pose_array(d)[None], cam, width, height, lambda k, png: out.append(png), d)
    with open(path, "wb") as f:
        f.write(out[0])
    return path


def video(m, states, path="video.mp4", camera=None, width=640, height=480, fps=30):
    """Render a trajectory to an mp4 (H.264 through Debian's ffmpeg)."""
    if shutil.which("ffmpeg") is None:
        raise RuntimeError("video needs ffmpeg (apt install ffmpeg)")
    poses, _ = _states_to_poses(m, states)
    cam = _camera_arg(m, camera)
    tmp = tempfile.mkdtemp(prefix="moreau-video-")
    try:
        def save(k, png):
            with open(os.path.join(tmp, "f%06d.png" % k), "wb") as f:
                f.write(png)
        _render_frames(m, poses, cam, width, height, save)
        cmd = ["ffmpeg", "-y", "-loglevel", "error", "-framerate", str(fps), "-i", os.path.join(tmp, "f%06d.png"),
               "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p", path]
        subprocess.run(cmd, check=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return path
