"""Memory: creating, stepping and destroying Models and Datas does not grow the process, and no
reference cycle keeps a Data alive."""

import gc
import weakref

import moreau
from conftest import HUMANOID

SMALL = """
<mujoco>
  <worldbody>
    <geom type="plane" size="1 1 .1"/>
    <body pos="0 0 .2"><freejoint/><geom type="box" size=".05 .05 .05"/></body>
    <body pos="0 0 .5">
      <joint name="hinge" type="hinge"/><geom type="capsule" fromto="0 0 0 .2 0 0" size=".02"/>
      <site name="s"/>
    </body>
  </worldbody>
  <actuator><motor joint="hinge"/></actuator>
  <sensor><accelerometer site="s"/></sensor>
</mujoco>
"""


def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cycle(n, make):
    for _ in range(n):
        m, d = make()
        moreau.step(m, d, nstep=5)
        _ = d.qpos, d.contact.pos, d.body(1).xpos, m.geom_size  # views, dropped with the objects
        del m, d, _


def rss_growth_kb(make, warmup, n=10000):
    """RSS growth over n cycles after `warmup` cycles that fill the allocator's pools and caches."""
    cycle(warmup, make)
    gc.collect()
    before = rss_kb()
    cycle(n, make)
    gc.collect()
    return rss_kb() - before


# A leak of one Model or Data per cycle would be > 10000 * (tens of kB); allocator noise is < 2 MB.
def test_10000_model_and_data_cycles_do_not_grow_rss():
    grown = rss_growth_kb(lambda: (lambda m: (m, moreau.Data(m)))(moreau.Model.from_xml_string(SMALL)), 500)
    assert grown < 4 * 1024, f"RSS grew by {grown} kB over 10000 cycles"


def test_10000_data_cycles_of_humanoid_do_not_grow_rss():
    m = moreau.Model.from_xml_path(str(HUMANOID))
    grown = rss_growth_kb(lambda: (m, moreau.Data(m)), 200)
    assert grown < 4 * 1024, f"RSS grew by {grown} kB over 10000 cycles"


def test_no_reference_cycles_keep_data_alive():
    m = moreau.Model.from_xml_path(str(HUMANOID))
    d = moreau.Data(m)
    moreau.step(m, d, nstep=3)
    views = [d.qpos, d.contact.frame, d.joint(1).qpos, d.body(2).xpos]
    model_ref, data_ref = weakref.ref(m), weakref.ref(d)
    gc.disable()
    try:
        del d, views
        assert data_ref() is None  # freed by reference counting alone: nothing refers back to it
        del m
        assert model_ref() is None
    finally:
        gc.enable()
