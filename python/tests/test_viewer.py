"""The browser viewer (moreau.viewer) in a real browser: Debian's headless Chromium driven by
Selenium. Servers are started and stopped by the tests, on 127.0.0.1 and a free port.

Pixel checks: three.js renders with Phong lighting, so a lit surface's colour is its material
colour scaled by the light (and a specular highlight). The checks compare colours by their channel
order and ratios (a red geom: red well above green and blue), and the background exactly (an
unlit clear colour).
"""
import asyncio
import io
import json
import os
import pathlib
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import ROOT, HUMANOID

moreau = pytest.importorskip("moreau")
pytest.importorskip("selenium")
if not (os.path.exists("/usr/bin/chromium") and os.path.exists("/usr/bin/chromedriver")):
    pytest.skip("Debian's chromium and chromium-driver are needed", allow_module_level=True)
if not os.path.exists("/usr/share/javascript/three/three.min.js"):
    pytest.skip("Debian's libjs-three is needed", allow_module_level=True)

from moreau import viewer  # noqa: E402
from moreau.viewer import scene as vscene  # noqa: E402
from moreau.viewer.record import Browser  # noqa: E402

BACKGROUND = np.array([0.11, 0.13, 0.16]) * 255  # web/viewer.js BACKGROUND
W, H = 640, 480


def png_pixels(png):
    """RGB array (H, W, 3) of a PNG (matplotlib reads PNG without other dependencies)."""
    import matplotlib.image
    img = matplotlib.image.imread(io.BytesIO(png), format="png")
    return (img[:, :, :3] * 255).astype(float)


def around(img, px, r=2):
    """Median colour of the (2r+1)^2 pixels around pixel px = (column, row)."""
    c, rr = int(round(px[0])), int(round(px[1]))
    patch = img[max(0, rr - r):rr + r + 1, max(0, c - r):c + r + 1].reshape(-1, 3)
    return np.median(patch, axis=0)


def looks_like(rgb, target):
    """rgb (0..255) is a lit version of the colour target (0..1): not the background, and the same
    hue: channels normalised to [0, 1] by their minimum and maximum agree within 0.25 (lighting
    adds grey, ambient and specular, and scales the rest)."""
    rgb, target = np.asarray(rgb, float), np.asarray(target, float)
    if np.abs(rgb - BACKGROUND).max() < 8 or np.ptp(rgb) < 15:
        return False
    a = (rgb - rgb.min()) / np.ptp(rgb)
    b = (target - target.min()) / max(np.ptp(target), 1e-9)
    return bool(np.abs(a - b).max() < 0.25)


@pytest.fixture(scope="module")
def browser():
    b = Browser(W, H)
    yield b
    b.close()


def wait_until(pred, timeout=10.0, what="condition"):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if pred():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def severe_logs(b):
    return [e for e in b.driver.get_log("browser") if e["level"] == "SEVERE"]


@pytest.fixture
def live(browser):
    """humanoid.xml served by launch(block=False) on 127.0.0.1 and a free port, open in the browser."""
    m = moreau.Model.from_xml_path(str(HUMANOID))
    d = moreau.Data(m)
    h = viewer.launch(m, d, port=0, block=False)
    browser.driver.get(h.url + "?maxfps=5&shadows=0")
    browser.wait_ready()
    wait_until(lambda: browser.driver.execute_script("return window.moreau.frames") > 3, what="state frames")
    yield m, d, h, browser
    h.stop()


def acked(b, cmd, timeout=5):
    wait_until(lambda: (b.driver.execute_script("return window.moreau.lastAck && window.moreau.lastAck.cmd") == cmd),
               timeout, f"ack of {cmd}")
    b.driver.execute_script("window.moreau.lastAck = null;")


# ---------------------------------------------------------------------- live page
def test_page_loads_without_console_errors(live):
    m, d, h, b = live
    assert severe_logs(b) == []
    assert b.driver.execute_script("return window.moreau.errors") == []
    assert b.driver.execute_script("return window.moreau.scene.ngeom") == m.ngeom
    # the page shows the simulation's time
    t_page = b.driver.execute_script("return window.moreau.time")
    assert 0 < t_page <= d.time + 1e-9


def test_pause_stops_time_and_step_advances_one_step(live):
    m, d, h, b = live
    b.driver.find_element("id", "btn-pause").click()
    acked(b, "pause")
    wait_until(lambda: h.sim.paused, what="paused")
    time.sleep(0.05)  # a batch in flight when the command arrived finishes
    t1 = d.time
    time.sleep(0.4)
    assert d.time == t1
    b.driver.find_element("id", "btn-step").click()
    acked(b, "step")
    wait_until(lambda: d.time != t1, what="one step")
    time.sleep(0.2)
    assert d.time == pytest.approx(t1 + m.opt.timestep, abs=1e-12)


def test_reset_restores_keyframe(live):
    m, d, h, b = live
    time.sleep(0.3)  # the humanoid falls away from its keyframe
    b.driver.find_element("id", "btn-pause").click()
    acked(b, "pause")
    b.driver.find_element("id", "btn-reset").click()
    acked(b, "reset")
    wait_until(lambda: np.array_equal(d.qpos, m.key_qpos.reshape(m.nkey, m.nq)[0]), what="keyframe qpos")
    assert np.array_equal(d.qvel, np.zeros(m.nv))


def test_ctrl_slider_reaches_data(live):
    m, d, h, b = live
    i = 3
    b.driver.execute_script(
        "const s = document.getElementById('ctrl-' + arguments[0]); s.value = 0.5; s.dispatchEvent(new Event('input'));", i)
    wait_until(lambda: d.ctrl[i] == 0.5, what="d.ctrl[3] == 0.5")
    assert np.count_nonzero(d.ctrl) == 1


def test_contact_model_selector_changes_solver(live):
    m, d, h, b = live
    assert int(m.opt.solver) == int(moreau.Solver.NEWTON)
    b.driver.execute_script(
        "const s = document.getElementById('sel-solver'); s.value = 'PGS'; s.dispatchEvent(new Event('change'));")
    wait_until(lambda: int(m.opt.solver) == int(moreau.Solver.PGS), what="m.opt.solver == PGS")
    # the page shows what the server runs
    wait_until(lambda: b.driver.execute_script("return window.moreau.solver") == "PGS", what="page shows PGS")
    # a solver the model cannot use (raisim-ds needs Euler; humanoid.xml uses RK4) is reported, and
    # the simulation goes on with the previous one
    b.driver.execute_script(
        "const s = document.getElementById('sel-solver'); s.value = 'raisim-ds'; s.dispatchEvent(new Event('change'));")
    wait_until(lambda: len(b.driver.execute_script("return window.moreau.errors")) > 0, what="error shown")
    assert "Euler" in b.driver.execute_script("return window.moreau.errors")[0]
    assert int(m.opt.solver) == int(moreau.Solver.PGS)
    t = d.time
    wait_until(lambda: d.time > t, what="simulation continues")


def test_perturbation_pulls_body(live):
    m, d, h, b = live
    b.driver.find_element("id", "btn-pause").click()
    acked(b, "pause")
    b.driver.find_element("id", "btn-reset").click()  # standing, at the keyframe
    acked(b, "reset")
    torso = m.body("torso").id
    time.sleep(0.05)
    t0 = d.time
    p0 = d.xpos[torso].copy()
    target = (p0 + [0, 0, 0.5]).tolist()
    b.driver.execute_script("window.moreau.send({cmd: 'perturb', body: arguments[0], anchor: [0, 0, 0], target: arguments[1]});",
                            torso, target)
    acked(b, "perturb")
    b.driver.execute_script("for (let i = 0; i < 20; ++i) window.moreau.send({cmd: 'step'});")
    wait_until(lambda: d.time >= t0 + 20 * m.opt.timestep - 1e-9, what="20 steps")
    time.sleep(0.1)
    # the spring lifts the torso towards the target (gravity alone would lower it)
    assert d.xpos[torso][2] > p0[2] + 0.01
    b.driver.execute_script("window.moreau.send({cmd: 'perturb', body: -1});")
    acked(b, "perturb")
    wait_until(lambda: not np.any(d.xfrc_applied), what="force released")


def test_ctrl_drag_on_a_body_sends_a_perturbation(live):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    m, d, h, b = live
    b.driver.find_element("id", "btn-pause").click()
    acked(b, "pause")
    b.driver.find_element("id", "btn-reset").click()  # standing, at the keyframe
    acked(b, "reset")
    time.sleep(0.05)
    head = m.body("head").id
    cam = {"lookat": d.xpos[head].tolist(), "distance": 3.0, "azimuth": 120, "elevation": -15, "fovy": 45}
    b.driver.execute_script("window.moreau.setFreeCamera(arguments[0]);", cam)
    px = vscene.project(cam, d.xpos[head], W, H)
    canvas = b.driver.find_element("css selector", "#view canvas")
    ActionChains(b.driver).key_down(Keys.CONTROL).move_to_element_with_offset(
        canvas, int(px[0] - W / 2), int(px[1] - H / 2)).click_and_hold().move_by_offset(0, -60).perform()
    try:
        wait_until(lambda: h.sim.perturb is not None, what="perturbation from the drag")
        body, anchor, target = h.sim.perturb
        assert body == head
        # the grab point is on the head's sphere (radius 0.1 around the body origin), and the
        # target is above it (the mouse moved up the screen)
        assert np.linalg.norm(anchor) == pytest.approx(0.1, abs=0.01)
        wait_until(lambda: h.sim.perturb[2][2] > d.xpos[head][2] + 0.1, what="target above the head")
    finally:
        ActionChains(b.driver).release().key_up(Keys.CONTROL).perform()
    wait_until(lambda: h.sim.perturb is None, what="release ends the perturbation")


# ---------------------------------------------------------------------- pictures
def test_snapshot_shows_torso_at_its_projection(tmp_path):
    m = moreau.Model.from_xml_path(str(HUMANOID))
    d = moreau.Data(m)
    moreau.forward(m, d)
    cam = {"lookat": [0, 0, 0.9], "distance": 3.0, "azimuth": 120, "elevation": -15, "fovy": 45}
    path = tmp_path / "h.png"
    viewer.snapshot(m, d, str(path), camera=cam, width=W, height=H)
    img = png_pixels(path.read_bytes())
    assert img.shape == (H, W, 3)
    torso = d.xpos[m.body("torso").id]
    px = vscene.project(vscene.free_camera(m, d, **cam), torso, W, H)
    assert looks_like(around(img, px), m.geom_rgba[m.geom("torso").id][:3]), around(img, px)
    # above the head: the background, exactly
    sky = vscene.project(vscene.free_camera(m, d, **cam), torso + [0, 0, 0.75], W, H)
    assert np.abs(around(img, sky) - BACKGROUND).max() <= 2, around(img, sky)
    # half a metre beside the torso (horizontally, across the view) is not the body
    side = vscene.project(vscene.free_camera(m, d, **cam), torso + [0.4, -0.4 * 1.7, 0.3], W, H)
    assert not looks_like(around(img, side), m.geom_rgba[0][:3]) or np.abs(around(img, side) - BACKGROUND).max() <= 2


EVERY_GEOM = """<mujoco>
  <asset>
    <texture name="grid" type="2d" builtin="checker" rgb1="0.9 0.9 0.9" rgb2="0.6 0.6 0.6" width="64" height="64"/>
    <material name="floor" texture="grid" texrepeat="1 1"/>
    <material name="matred" rgba="1 0 0 1"/>
    <mesh name="tet" vertex="-0.25 -0.25 0  0.25 -0.25 0  0 0.25 0  0 0 0.4"/>
    <hfield name="hf" nrow="3" ncol="3" size="0.4 0.4 0.2 0.05" elevation="0 1 1 1 1 1 1 1 1"/>
  </asset>
  <worldbody>
    <geom name="plane" type="plane" size="3 3 0.1" material="floor"/>
    <geom name="sphere" type="sphere" size="0.2" pos="-1.5 0 0.5" material="matred"/>
    <geom name="capsule" type="capsule" size="0.12 0.2" pos="-0.9 0 0.5" rgba="0 1 0 1"/>
    <geom name="ellipsoid" type="ellipsoid" size="0.15 0.2 0.25" pos="-0.3 0 0.5" rgba="0 0 1 1"/>
    <geom name="cylinder" type="cylinder" size="0.2 0.15" pos="0.3 0 0.5" rgba="1 1 0 1"/>
    <geom name="box" type="box" size="0.18 0.18 0.18" pos="0.9 0 0.5" rgba="1 0 1 1"/>
    <body name="b" pos="1.5 0 0.35"><freejoint/><geom name="mesh" type="mesh" mesh="tet" rgba="0 1 1 1"/></body>
    <geom name="hfield" type="hfield" hfield="hf" pos="0 -1.2 0" rgba="1 0.5 0 1"/>
  </worldbody>
</mujoco>"""


def test_every_geom_type_appears_where_the_model_puts_it(tmp_path):
    m = moreau.Model.from_xml_string(EVERY_GEOM)
    d = moreau.Data(m)
    moreau.forward(m, d)
    assert sorted(set(int(t) for t in m.geom_type)) == list(range(8))
    cam = {"lookat": [0, -0.3, 0.4], "distance": 4.2, "azimuth": 90, "elevation": -25, "fovy": 45}
    path = tmp_path / "g.png"
    viewer.snapshot(m, d, str(path), camera=cam, width=W, height=H)
    img = png_pixels(path.read_bytes())
    fc = vscene.free_camera(m, d, **cam)
    seen = {}
    for name in ["sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "hfield"]:
        g = m.geom(name).id
        p = np.array(d.geom_xpos[g])
        if name == "mesh":
            p = p + np.asarray(d.geom_xmat[g]).reshape(3, 3) @ [0, -0.05, 0.1]  # inside the tetrahedron
        if name == "hfield":
            p = p + [0.1, 0.1, 0.2]  # its top surface (normalised elevation 1 x size z), away from the low corner
        px = vscene.project(fc, p, W, H)
        rgba = m.geom_rgba[g][:3] if name != "sphere" else m.mat_rgba[m.geom_matid[g]][:3]
        seen[name] = around(img, px)
        assert looks_like(seen[name], rgba), (name, seen[name], rgba)
    # the plane: a point of the floor no geom covers shows the grey checker (the texture times
    # the material's white), neither background nor a geom colour
    px = vscene.project(fc, [1.6, -1.0, 0], W, H)
    c = around(img, px)
    assert np.abs(c - BACKGROUND).max() > 20 and np.ptp(c) < 12, c


def png_bytes(rgb):
    """A PNG file (8-bit RGB, no interlacing) of an (h, w, 3) uint8 array, written with zlib and
    struct: the test makes its own image file."""
    import struct
    import zlib
    rgb = np.asarray(rgb, dtype=np.uint8)
    h, w = rgb.shape[:2]
    raw = b"".join(b"\x00" + rgb[r].tobytes() for r in range(h))  # filter type 0 per row

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


TEXTURED = """<mujoco>
  <asset>
    <texture name="halves" type="2d" file="halves.png"/>
    <texture name="cube" type="cube" file="yellow.png"/>
    <material name="halves" texture="halves"/>
    <material name="cube" texture="cube"/>
  </asset>
  <worldbody>
    <geom type="plane" size="1 1 0.1" material="halves"/>
    <geom name="box" type="box" size="0.2 0.2 0.2" pos="0 -0.6 0.2" material="cube"/>
  </worldbody>
</mujoco>"""


def test_png_textures_show_on_a_plane_and_a_box(tmp_path):
    # the plane's image: red on the left half (-x), blue on the right (+x); the box's cube texture
    # one yellow square repeated on every face
    halves = np.zeros((8, 8, 3), np.uint8)
    halves[:, :4] = (230, 30, 30)
    halves[:, 4:] = (30, 30, 230)
    (tmp_path / "halves.png").write_bytes(png_bytes(halves))
    (tmp_path / "yellow.png").write_bytes(png_bytes(np.full((4, 4, 3), (220, 220, 20), np.uint8)))
    (tmp_path / "model.xml").write_text(TEXTURED)
    m = moreau.Model.from_xml_path(str(tmp_path / "model.xml"))
    assert m.ntexdata == 8 * 8 * 3 + 4 * 4 * 3
    assert np.array_equal(np.asarray(m.tex_rgb[:192]).reshape(8, 8, 3), halves)
    d = moreau.Data(m)
    moreau.forward(m, d)
    cam = {"lookat": [0, -0.2, 0], "distance": 3.0, "azimuth": 90, "elevation": -60, "fovy": 45}
    path = tmp_path / "t.png"
    viewer.snapshot(m, d, str(path), camera=cam, width=W, height=H)
    img = png_pixels(path.read_bytes())
    fc = vscene.free_camera(m, d, **cam)
    left = around(img, vscene.project(fc, [-0.5, 0.3, 0], W, H))
    right = around(img, vscene.project(fc, [0.5, 0.3, 0], W, H))
    top = around(img, vscene.project(fc, [0, -0.6, 0.4], W, H))
    assert looks_like(left, [0.9, 0.12, 0.12]), left
    assert looks_like(right, [0.12, 0.12, 0.9]), right
    assert looks_like(top, [0.86, 0.86, 0.08]), top


def test_default_camera_frames_the_model_statistic(live):
    m, d, h, b = live
    st = b.driver.execute_script("return window.moreau.scene.stat")
    assert st["extent"] == m.stat.extent and st["center"] == list(m.stat.center)
    # humanoid.xml: the compiler's values (MuJoCo 2.2.2 computes the same; ModelCompare checks every model)
    assert m.stat.extent == pytest.approx(2.73, abs=0.01)
    pose = b.driver.execute_script("return window.moreau.cameraPose()")
    assert np.allclose(pose["target"], m.stat.center, atol=1e-6)
    assert np.linalg.norm(np.subtract(pose["position"], pose["target"])) == pytest.approx(1.5 * m.stat.extent, rel=1e-6)


# ---------------------------------------------------------------------- replays
def humanoid_run(steps):
    m = moreau.Model.from_xml_path(str(HUMANOID))
    d = moreau.Data(m)
    moreau.forward(m, d)
    poses, times = [vscene.pose_array(d)], [d.time]
    for _ in range(steps):
        moreau.step(m, d)
        poses.append(vscene.pose_array(d))
        times.append(d.time)
    return m, poses, times


def test_replay_html_plays_offline_first_and_last_frame(tmp_path, browser):
    m, poses, times = humanoid_run(2000)
    path = tmp_path / "replay.html"
    cam = {"lookat": [0, 0, 0.6], "distance": 3.5, "azimuth": 120, "elevation": -20, "fovy": 45}
    viewer.record(m, poses, str(path), times=times, camera=cam)
    size = path.stat().st_size
    assert size < 2_000_000, size  # 2001 frames of humanoid, three.js inlined
    text = path.read_text()
    assert "<script src" not in text and "<link rel=\"stylesheet\" href" not in text
    b = browser
    b.driver.set_network_conditions(offline=True, latency=0, download_throughput=0, upload_throughput=0)
    try:
        b.driver.get(path.as_uri())
        b.wait_ready()
        assert b.driver.execute_script("return window.moreau.nframe") == len(poses)
        torso = m.body("torso").id
        fc = vscene.free_camera(m, None, **cam)
        for k in (0, len(poses) - 1):
            b.driver.execute_script("window.moreau.showFrame(arguments[0]);", k)
            assert b.driver.execute_script("return window.moreau.frame") == k
            assert int(b.driver.find_element("id", "slider-time").get_attribute("value")) == k
            img = png_pixels(b.screenshot_png())
            px = vscene.project(fc, poses[k][torso][:3], W, H)
            assert looks_like(around(img, px), m.geom_rgba[m.geom("torso").id][:3]), (k, around(img, px))
        assert severe_logs(b) == []
    finally:
        b.driver.delete_network_conditions()


# ---------------------------------------------------------------------- passive mode, several pages
async def _watch(url, nframes, close_after=None):
    import aiohttp
    async with aiohttp.ClientSession() as s:
        async with s.ws_connect(url.replace("http", "ws") + "ws") as ws:
            first = await ws.receive(timeout=10)
            scene = json.loads(first.data)
            assert scene["type"] == "scene"
            got = []
            while len(got) < nframes:
                msg = await ws.receive(timeout=10)
                if msg.type == aiohttp.WSMsgType.BINARY:
                    got.append(np.frombuffer(msg.data, dtype=np.float64, count=16)[0])
            return scene, got


def test_launch_passive_two_pages_and_closing_one(tmp_path):
    m = moreau.Model.from_xml_path(str(HUMANOID))
    d = moreau.Data(m)
    h = viewer.launch_passive(m, d, port=0)
    try:
        import threading
        results = {}

        def watch(key, n):
            results[key] = asyncio.run(_watch(h.url, n))

        t1 = threading.Thread(target=watch, args=("a", 5))
        t2 = threading.Thread(target=watch, args=("b", 20))
        t1.start()
        t2.start()
        t0 = time.time()
        while (t1.is_alive() or t2.is_alive()) and time.time() - t0 < 20:
            moreau.step(m, d)
            h.sync()
            time.sleep(0.001)
        assert not t1.is_alive() and not t2.is_alive()
        # both pages got the scene and increasing times; page a closed after 5 frames while the
        # user's loop and page b went on
        for k, n in (("a", 5), ("b", 20)):
            scene, times = results[k]
            assert scene["scene"]["nbody"] == m.nbody
            assert len(times) == n and all(np.diff(times) > 0)
        t = d.time
        for _ in range(10):
            moreau.step(m, d)
            h.sync()
        assert d.time > t
    finally:
        h.close()


# ---------------------------------------------------------------------- bad input
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_module(*args, timeout=30):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "build" / "python") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "moreau.viewer", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_unknown_model_path_gives_message_and_exit_code():
    r = run_module("/nonexistent/model.xml", "--port", str(free_port()))
    assert r.returncode == 1
    assert "/nonexistent/model.xml" in r.stderr and "does not exist" in r.stderr


def test_bad_model_gives_load_error(tmp_path):
    p = tmp_path / "bad.xml"
    p.write_text("<mujoco><worldbody><geom type='nosuch'/></worldbody></mujoco>")
    r = run_module(str(p), "--port", str(free_port()))
    assert r.returncode == 1 and "cannot load" in r.stderr and "bad.xml" in r.stderr


def test_port_in_use_gives_message_and_exit_code():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = run_module(str(HUMANOID), "--port", str(port))
        assert r.returncode == 1
        assert f"port {port}" in r.stderr and "already in use" in r.stderr
    # the Python API raises OSError with the same message
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        m = moreau.Model.from_xml_path(str(HUMANOID))
        with pytest.raises(OSError, match="already in use"):
            viewer.launch_passive(m, moreau.Data(m), port=s.getsockname()[1])


async def _malformed(url):
    import aiohttp
    async with aiohttp.ClientSession() as s:
        async with s.ws_connect(url.replace("http", "ws") + "ws") as ws:
            await ws.receive(timeout=10)  # the scene
            replies = []
            for bad in ["{not json", "[1, 2]", json.dumps({"cmd": "ctrl", "index": 99, "value": 1}),
                        json.dumps({"cmd": "ctrl", "index": 0, "value": "x"}), json.dumps({"cmd": "fly"}),
                        json.dumps({"cmd": "perturb", "body": 1, "anchor": [0, 0], "target": [0, 0, 0]}),
                        json.dumps({"cmd": "speed", "value": float("nan")}) if False else '{"cmd": "speed", "value": NaN}']:
                await ws.send_str(bad)
                while True:
                    msg = await ws.receive(timeout=10)
                    if msg.type == aiohttp.WSMsgType.TEXT:
                        replies.append(json.loads(msg.data))
                        break
            await ws.send_bytes(b"\x00\x01")
            while True:
                msg = await ws.receive(timeout=10)
                if msg.type == aiohttp.WSMsgType.TEXT:
                    replies.append(json.loads(msg.data))
                    break
            # still serving: a good command is acknowledged, and the page still loads
            await ws.send_str(json.dumps({"cmd": "pause", "value": True}))
            while True:
                msg = await ws.receive(timeout=10)
                if msg.type == aiohttp.WSMsgType.TEXT:
                    replies.append(json.loads(msg.data))
                    break
            async with s.get(url) as r:
                page = await r.text()
            return replies, page


def test_malformed_websocket_message_is_answered_and_server_keeps_serving():
    m = moreau.Model.from_xml_path(str(HUMANOID))
    d = moreau.Data(m)
    h = viewer.launch(m, d, port=0, block=False)
    try:
        replies, page = asyncio.run(_malformed(h.url))
        errors, last = replies[:-1], replies[-1]
        assert all(r["type"] == "error" for r in errors) and len(errors) == 8
        assert "not JSON" in errors[0]["message"]
        assert "index" in errors[2]["message"] and "unknown command 'fly'" in errors[4]["message"]
        assert last == {"type": "ack", "cmd": "pause"}
        wait_until(lambda: h.sim.paused, what="paused")
        assert "viewer.js" in page
        assert not np.any(d.ctrl)
    finally:
        h.stop()


def listening_addresses(port):
    """Local addresses of the sockets listening on port (from /proc/net/tcp and tcp6)."""
    out = []
    for f in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = pathlib.Path(f).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            addr, p = fields[1].split(":")
            if int(p, 16) == port and fields[3] == "0A":  # LISTEN
                out.append((f, addr))
    return out


def test_listens_only_on_loopback():
    m = moreau.Model.from_xml_path(str(HUMANOID))
    h = viewer.launch_passive(m, moreau.Data(m), port=0)
    try:
        port = h.server.port
        # exactly one listening socket: IPv4 127.0.0.1 (0100007F in /proc's byte order)
        assert listening_addresses(port) == [("/proc/net/tcp", "0100007F")]
        # and a connection to another address of this machine is refused
        others = set()
        try:
            for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
                if not info[4][0].startswith("127."):
                    others.add(info[4][0])
        except OSError:
            pass
        for addr in others:
            with socket.socket() as s:
                s.settimeout(2)
                assert s.connect_ex((addr, port)) != 0
    finally:
        h.close()


# ---------------------------------------------------------------------- CLI, video
def test_cli_record_and_view(tmp_path):
    from conftest import CLI
    if not CLI.exists():
        pytest.skip("the moreau CLI is not built")
    out = tmp_path / "r.html"
    r = subprocess.run([str(CLI), "record", str(HUMANOID), "--steps", "50", "--every", "10", "-o", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert "window.MOREAU_REPLAY" in text and '"nframe":6' in text  # frames 0, 10, ..., 50
    r = subprocess.run([str(CLI), "view", "/nonexistent/model.xml", "--port", str(free_port())],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "does not exist" in r.stderr


def test_video_has_one_frame_per_state(tmp_path):
    import shutil
    if shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None:
        pytest.skip("ffmpeg is needed")
    m, poses, times = humanoid_run(7)
    path = tmp_path / "v.mp4"
    viewer.video(m, poses, str(path), width=160, height=120, fps=30)
    r = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                        "stream=nb_read_frames,width,height", "-of", "json", str(path)],
                       capture_output=True, text=True, timeout=60)
    s = json.loads(r.stdout)["streams"][0]
    assert (int(s["nb_read_frames"]), s["width"], s["height"]) == (8, 160, 120)


async def _slow_page(url):
    import aiohttp
    async with aiohttp.ClientSession() as s:
        async with s.ws_connect(url.replace("http", "ws") + "ws") as ws:
            await ws.receive(timeout=10)  # the scene
            await ws.send_str('{"cmd":"got"}')  # a page that acknowledges frames

            async def count(seconds):
                n, t0 = 0, time.time()
                while time.time() - t0 < seconds:
                    try:
                        msg = await ws.receive(timeout=max(0.01, seconds - (time.time() - t0)))
                    except asyncio.TimeoutError:
                        break
                    if msg.type == aiohttp.WSMsgType.BINARY:
                        n += 1
                return n
            held = await count(0.6)  # no acknowledgement: the server stops at the in-flight limit
            for _ in range(held):
                await ws.send_str('{"cmd":"got"}')
            more = await count(0.3)
            return held, more


def test_a_page_that_does_not_keep_up_gets_at_most_four_frames_in_flight():
    m = moreau.Model.from_xml_path(str(HUMANOID))
    d = moreau.Data(m)
    h = viewer.launch(m, d, port=0, block=False)
    try:
        held, more = asyncio.run(_slow_page(h.url))
        # 0.6 s at 60 frames/s would be 36 frames; the server holds back after 4 (plus the one or
        # two it may send between the scene and the first acknowledgement's arrival)
        assert 4 <= held <= 6, held
        assert more >= 1
    finally:
        h.stop()
