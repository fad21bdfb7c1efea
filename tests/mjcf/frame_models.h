// Models written with <frame> and the same models with the poses composed by hand, shared by the
// loader tests (tests/mjcf/loader_frame_test.cc: equal Model arrays) and the differential test
// (tests/differential/frame_equivalence_test.cc: Moreau's compile of the framed form against
// MuJoCo 2.2.2's compile of the hand-written form, which 2.2.2 can load).
#pragma once

namespace moreau::testing {

struct FramePair {
  const char* name;
  const char* framed;  // with <frame> (newer than MuJoCo 2.2.2)
  const char* hand;    // the same model without frames: loads in MuJoCo 2.2.2
};

// Translations only, with dyadic numbers: every composed value is exact. Frames in the world and in
// a body, nested, holding bodies, geoms (one with fromto), sites (one with fromto), joints, cameras
// and lights.
inline const FramePair kFrameTranslations{"translations", R"(<mujoco><worldbody>
  <frame pos="1 0.5 0">
    <geom size="0.25"/>
    <site name="s0" pos="0 0 0.5"/>
    <camera pos="0.5 0 0"/>
    <light pos="0 0 2" dir="0 0 -1"/>
    <frame pos="0 0 0.25">
      <body name="b" pos="0.5 0 0">
        <joint type="hinge" pos="0.25 0 0" axis="0 1 0"/>
        <geom type="capsule" size="0.125" fromto="0 0 0 0.5 0 0"/>
        <frame pos="-0.5 0.25 0">
          <joint type="slide" pos="0 0.5 0" axis="1 0 0"/>
          <site type="capsule" size="0.0625" fromto="0 0 0 0 0 0.5"/>
          <body pos="0 0 -1"><joint type="ball"/><geom type="box" size="0.25 0.125 0.5"/></body>
        </frame>
      </body>
    </frame>
  </frame>
</worldbody></mujoco>)",
  R"(<mujoco><worldbody>
    <geom size="0.25" pos="1 0.5 0"/>
    <site name="s0" pos="1 0.5 0.5"/>
    <camera pos="1.5 0.5 0"/>
    <light pos="1 0.5 2" dir="0 0 -1"/>
      <body name="b" pos="1.5 0.5 0.25">
        <joint type="hinge" pos="0.25 0 0" axis="0 1 0"/>
        <geom type="capsule" size="0.125" fromto="0 0 0 0.5 0 0"/>
          <joint type="slide" pos="-0.5 0.75 0" axis="1 0 0"/>
          <site type="capsule" size="0.0625" fromto="-0.5 0.25 0 -0.5 0.25 0.5"/>
          <body pos="-0.5 0.25 -1"><joint type="ball"/><geom type="box" size="0.25 0.125 0.5"/></body>
      </body>
</worldbody></mujoco>)"};

// Rotations by quarter and half turns, given as euler, axisangle, quat, xyaxes and zaxis.
// euler 0 0 90: x -> y, y -> -x. axisangle 1 0 0 180 = quat 0 1 0 0: y -> -y, z -> -z.
// xyaxes 0 1 0 -1 0 0 = a quarter turn about z; zaxis 1 0 0 = a quarter turn about y (z -> x).
inline const FramePair kFrameRotations{"rotations", R"(<mujoco><worldbody>
  <frame euler="0 0 90">
    <body pos="1 0 0"><joint axis="1 0 0" pos="0.5 0 0"/><geom size="0.1" pos="0 0.5 0"/>
      <frame axisangle="1 0 0 180"><geom type="box" size="0.1 0.2 0.3" pos="0 0.5 0"/></frame>
    </body>
  </frame>
  <frame quat="0 1 0 0" pos="0 0 1">
    <body pos="0 1 0" euler="0 0 90"><freejoint/><geom type="box" size="0.1 0.2 0.3"/></body>
    <light pos="0 1 0" dir="0 1 0"/>
    <camera pos="0 0 1"/>
  </frame>
  <body pos="0 -3 0">
    <frame xyaxes="0 1 0 -1 0 0"><joint axis="1 0 0"/><geom type="ellipsoid" size="0.1 0.2 0.3" pos="1 0 0"/></frame>
    <frame zaxis="1 0 0"><site pos="0 0 1" type="box" size="0.1 0.2 0.3"/></frame>
  </body>
</worldbody></mujoco>)",
  R"(<mujoco><worldbody>
    <body pos="0 1 0" euler="0 0 90"><joint axis="1 0 0" pos="0.5 0 0"/><geom size="0.1" pos="0 0.5 0"/>
      <geom type="box" size="0.1 0.2 0.3" pos="0 -0.5 0" quat="0 1 0 0"/>
    </body>
    <body pos="0 -1 1" quat="0 0.7071067811865476 -0.7071067811865476 0"><freejoint/>
      <geom type="box" size="0.1 0.2 0.3"/></body>
    <light pos="0 -1 1" dir="0 -1 0"/>
    <camera pos="0 0 0" quat="0 1 0 0"/>
  <body pos="0 -3 0">
    <joint axis="0 1 0"/><geom type="ellipsoid" size="0.1 0.2 0.3" pos="0 1 0" euler="0 0 90"/>
    <site pos="1 0 0" type="box" size="0.1 0.2 0.3" euler="0 90 0"/>
  </body>
</worldbody></mujoco>)"};

// fromto in a rotated frame: the geom's frame is made in the frame's coordinates, then turned
// with it (mjcf/frame.cc). A quarter turn about z of the x-directed segment 0..1: centre 0 0.5 0,
// half-length 0.5, quat 0.5 0.5 -0.5 0.5 (the minimal turn taking z to -x, then the quarter turn).
inline const FramePair kFrameFromtoRotated{"fromto_rotated", R"(<mujoco><worldbody><body><joint/>
  <frame euler="0 0 90"><geom type="capsule" size="0.1" fromto="0 0 0 1 0 0"/>
    <site type="cylinder" size="0.1" fromto="0 0 0 1 0 0"/></frame>
</body></worldbody></mujoco>)",
  R"(<mujoco><worldbody><body><joint/>
  <geom type="capsule" size="0.1 0.5" pos="0 0.5 0" quat="0.5 0.5 -0.5 0.5"/>
  <site type="cylinder" size="0.1 0.5" pos="0 0.5 0" quat="0.5 0.5 -0.5 0.5"/>
</body></worldbody></mujoco>)"};

// A double pendulum hung from turned frames.
inline const FramePair kFramePendulum{"pendulum", R"(<mujoco><worldbody><frame pos="0 0 2" euler="0 30 0">
<body><joint axis="0 1 0"/><geom type="capsule" size="0.05" fromto="0 0 0 0 0 -1"/>
  <frame pos="0 0 -1" euler="0 0 90"><body><joint axis="1 0 0"/><geom type="capsule" size="0.05" fromto="0 0 0 0 0 -1"/></body></frame>
</body></frame></worldbody></mujoco>)",
  R"(<mujoco><worldbody>
<body pos="0 0 2" euler="0 30 0"><joint axis="0 1 0"/><geom type="capsule" size="0.05" fromto="0 0 0 0 0 -1"/>
  <body pos="0 0 -1" euler="0 0 90"><joint axis="1 0 0"/><geom type="capsule" size="0.05" fromto="0 0 0 0 0 -1"/></body>
</body></worldbody></mujoco>)"};

// childclass on frames: the hand-written form names each element's class.
inline const FramePair kFrameChildclass{"childclass", R"(<mujoco>
<default><default class="a"><geom size="0.3" type="box"/><joint damping="2"/></default>
  <default class="b"><geom size="0.7"/><joint damping="5"/></default></default>
<worldbody>
  <body childclass="b">
    <frame childclass="a"><geom size="0.3 0.3 0.3"/><joint/><geom class="b"/>
      <body><joint/><geom size="0.3 0.3 0.3"/><frame childclass="b"><geom/></frame></body>
    </frame>
    <frame><geom/></frame>
  </body>
</worldbody></mujoco>)",
  R"(<mujoco>
<default><default class="a"><geom size="0.3" type="box"/><joint damping="2"/></default>
  <default class="b"><geom size="0.7"/><joint damping="5"/></default></default>
<worldbody>
  <body childclass="b">
    <geom class="a" size="0.3 0.3 0.3"/><joint class="a"/><geom class="b"/>
      <body childclass="a"><joint/><geom size="0.3 0.3 0.3"/><geom class="b"/></body>
    <geom/>
  </body>
</worldbody></mujoco>)"};

// Frame euler angles in radians with an intrinsic z-y-x sequence, nested frames.
inline const FramePair kFrameRadianZyx{"radian_zyx", R"(<mujoco><compiler angle="radian" eulerseq="zyx"/>
<worldbody><frame euler="0.3 -0.7 1.1"><body><joint/><geom type="box" size="0.1 0.2 0.3"/>
  <frame pos="0 0 -0.5"><frame euler="1.5707963267948966 0 0"><body><joint/><geom size="0.1"/></body></frame></frame>
</body></frame></worldbody></mujoco>)",
  R"(<mujoco><compiler angle="radian" eulerseq="zyx"/>
<worldbody><body euler="0.3 -0.7 1.1"><joint/><geom type="box" size="0.1 0.2 0.3"/>
  <body pos="0 0 -0.5" euler="1.5707963267948966 0 0"><joint/><geom size="0.1"/></body>
</body></worldbody></mujoco>)"};

// MuJoCo's frame test model (shared/models/mujoco/test/engine/testdata/frame.xml) with the poses
// composed by hand: 0.5 cos 30 deg = 0.43301270189221935; 30 + 20 deg about z = 50 deg; quat
// 0 1 0 0 then 0 -1 0 0 = the identity; a turn of 90 deg about x takes the hinge axis z to -y.
inline const char* const kFrameMujocoTestHand = R"(<mujoco>
  <default><geom type="box" size=".1 .2 .3"/></default>
  <worldbody>
    <geom pos="0.43301270189221935 0.25 0" euler="0 0 50"/>
    <geom/>
    <body pos="0 .5 0"><geom quat="0 1 0 0"/></body>
    <geom euler="0 0 50"/>
    <body><geom pos="0 2 0"/><body pos="1 1 0"><geom pos="0 0 1"/></body></body>
    <body><geom/><joint type="hinge" axis="0 -1 0"/></body>
  </worldbody>
</mujoco>)";

inline const FramePair* const kFramePairs[] = {&kFrameTranslations, &kFrameRotations, &kFrameFromtoRotated,
                                               &kFramePendulum, &kFrameChildclass, &kFrameRadianZyx};

}  // namespace moreau::testing
