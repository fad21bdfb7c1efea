"""The humanoid falls from its keyframe; every 100 steps print the contacts: geoms, depth, and the
contact force in the world frame (from the contact frame).

    /usr/bin/python3 examples/python/humanoid_contacts.py [MODEL.xml]
"""

import pathlib
import sys

import numpy as np

import moreau

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "models" / "humanoid.xml")
    m = moreau.Model.from_xml_path(path)
    d = moreau.Data(m)
    if m.nkey:
        moreau.reset_data_keyframe(m, d, 0)
    geoms = m.names("geom")
    for i in range(1, 1001):
        moreau.step(m, d)
        if i % 200:
            continue
        print(f"t={d.time:.3f} s  height of body 1 ({m.names('body')[1]}): {d.xpos[1, 2]:.3f} m  "
              f"contacts: {d.ncon}")
        c = d.contact
        for k in range(d.ncon):
            f = moreau.contact_force(m, d, k)          # normal, tangent1, tangent2 (contact frame)
            frame = c.frame[k].reshape(3, 3)           # rows: normal, tangent1, tangent2
            world = frame.T @ f[:3]
            print(f"   {geoms[c.geom1[k]] or c.geom1[k]:>12} - {geoms[c.geom2[k]] or c.geom2[k]:<12}"
                  f" depth {-c.dist[k] * 1000:6.2f} mm   force {np.array2string(world, precision=2)} N")


if __name__ == "__main__":
    main()
