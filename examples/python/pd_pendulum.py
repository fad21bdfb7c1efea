"""A PD-controlled pendulum: the controller sets d.ctrl in the user's own loop (the fast way), then the
same controller as a control callback (convenient, slower: each call enters Python).

    /usr/bin/python3 examples/python/pd_pendulum.py
"""

import math

import moreau

XML = """
<mujoco model="pendulum">
  <option timestep="0.002"/>
  <worldbody>
    <body name="pole" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" damping="0.01"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.02" mass="0.1"/>
      <geom type="sphere" pos="0 0 -0.5" size="0.05" mass="1"/>
    </body>
  </worldbody>
  <actuator><motor name="torque" joint="hinge" ctrlrange="-20 20" ctrllimited="true"/></actuator>
  <sensor><jointpos name="angle" joint="hinge"/></sensor>
</mujoco>
"""

TARGET = math.pi / 3  # hold the pendulum 60 degrees from hanging
KP, KD = 40.0, 4.0


def pd(m, d):
    d.ctrl[0] = KP * (TARGET - d.qpos[0]) - KD * d.qvel[0]


def main():
    m = moreau.Model.from_xml_string(XML)
    d = moreau.Data(m)
    angle = d.sensor("angle").data  # a view: it follows the simulation
    for i in range(2000):
        pd(m, d)
        moreau.step(m, d)
        if i % 400 == 0:
            print(f"t={d.time:5.2f} s  angle={math.degrees(angle[0]):7.2f} deg  torque={d.ctrl[0]:6.2f} N m")
    print(f"final angle {math.degrees(d.qpos[0]):.3f} deg (target {math.degrees(TARGET):.1f});"
          f" gravity torque held: {d.actuator('torque').force[0]:.3f} N m")

    # The same controller as a callback: step(nstep=N) runs N steps in one call.
    moreau.reset_data(m, d)
    d.set_control_callback(pd)
    moreau.step(m, d, nstep=2000)
    print(f"with the callback: final angle {math.degrees(d.qpos[0]):.3f} deg")


if __name__ == "__main__":
    main()
