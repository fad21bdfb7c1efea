// Forward kinematics (computation chapter, "Simulation pipeline", stage 2): global positions and
// orientations of bodies, joint anchors and axes, body inertial frames, geoms and sites.
//
// Bodies are ordered so that a parent precedes its children, so one forward pass suffices.
// Each body frame is its parent's frame composed with the body's fixed offset (body_pos, body_quat),
// then with each of its joints in order:
//   slide: translate along the (world) joint axis by qpos - qpos0;
//   hinge: rotate about the joint axis through the anchor by qpos - qpos0;
//   ball:  rotate by the qpos quaternion about the anchor;
//   free:  the frame is qpos itself (position, quaternion) in world coordinates.
// Quaternions in qpos (ball and free joints) are normalized in place before use, as MuJoCo 2.2.2
// does (mj_forward leaves unit quaternions in qpos).
// Mocap bodies take mocap_pos / mocap_quat instead.
// A frame that coincides with one computed already (body_sameframe: the inertial frame is the body
// frame; geom/site_sameframe 1: the body frame, 2: the inertial frame) is copied, as 2.2.2 does:
// composing with a zero offset and a unit quaternion gives the same numbers.
#include <cstdint>
#include <cstring>

#include "engine/checks.h"
#include "math/vec.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;

namespace {

// Global frame of an object attached to body b with local pos/quat.
inline void local_to_global(const Data& d, int b, const double* lpos, const double* lquat,
                            double* xpos, double* xmat) {
  mulmatvec3(xpos, &d.xmat[9 * b], lpos);
  add3(xpos, xpos, &d.xpos[3 * b]);
  double q[4];
  mulquat(q, &d.xquat[4 * b], lquat);
  quat2mat(xmat, q);
}

// The frame of a geom or site: copied where it is the body frame (sameframe 1) or the body's
// inertial frame (2), else composed.
inline void frame_of(const Data& d, int b, int sameframe, const double* lpos, const double* lquat,
                     double* xpos, double* xmat) {
  if (sameframe == 1) {
    copy3(xpos, &d.xpos[3 * b]);
    copy9(xmat, &d.xmat[9 * b]);
  } else if (sameframe == 2) {
    copy3(xpos, &d.xipos[3 * b]);
    copy9(xmat, &d.ximat[9 * b]);
  } else {
    local_to_global(d, b, lpos, lquat, xpos, xmat);
  }
}

// Frames of n geoms or sites (bodyid, sameframe, local pos and quat per object). An object whose
// local quaternion has the same bits as the previous object's, on the same body and composed too,
// has the same rotation: its matrix is copied (the product and the conversion would repeat the
// same operations on the same numbers), and only its position is composed.
void frames_of(const Data& d, int n, const int* bodyid, const uint8_t* sameframe, const double* lpos,
               const double* lquat, double* xpos, double* xmat) {
  for (int i = 0; i < n; ++i) {
    const int b = bodyid[i];
    if (i > 0 && sameframe[i] == 0 && sameframe[i - 1] == 0 && bodyid[i - 1] == b &&
        std::memcmp(lquat + 4 * i, lquat + 4 * (i - 1), 4 * sizeof(double)) == 0) {
      mulmatvec3(xpos + 3 * i, &d.xmat[9 * b], lpos + 3 * i);
      add3(xpos + 3 * i, xpos + 3 * i, &d.xpos[3 * b]);
      copy9(xmat + 9 * i, xmat + 9 * (i - 1));
      continue;
    }
    frame_of(d, b, sameframe[i], lpos + 3 * i, lquat + 4 * i, xpos + 3 * i, xmat + 9 * i);
  }
}

}  // namespace

void kinematics(const Model& m, Data& d) {
  internal::check_data(m, d, "kinematics");
  // world body
  zero3(&d.xpos[0]);
  unitquat(&d.xquat[0]);
  eye9(&d.xmat[0]);
  zero3(&d.xipos[0]);
  eye9(&d.ximat[0]);

  for (int b = 1; b < m.nbody; ++b) {
    double* xpos = &d.xpos[3 * b];
    double* xquat = &d.xquat[4 * b];
    const int mocap = m.body_mocapid[b];
    if (mocap >= 0) {
      // mocap bodies are children of the world: the frame is the mocap input itself
      copy3(xpos, &d.mocap_pos[3 * mocap]);
      copy4(xquat, &d.mocap_quat[4 * mocap]);
      normalize4(xquat);
    } else {
      const int p = m.body_parentid[b];
      if (p == 0) {
        copy3(xpos, &m.body_pos[3 * b]);
        copy4(xquat, &m.body_quat[4 * b]);
      } else {
        mulmatvec3(xpos, &d.xmat[9 * p], &m.body_pos[3 * b]);
        add3(xpos, xpos, &d.xpos[3 * p]);
        mulquat(xquat, &d.xquat[4 * p], &m.body_quat[4 * b]);
      }

      const int jadr = m.body_jntadr[b];
      for (int j = jadr; j < jadr + m.body_jntnum[b]; ++j) {
        const int qadr = m.jnt_qposadr[j];
        const double* jpos = &m.jnt_pos[3 * j];
        double* xanchor = &d.xanchor[3 * j];
        double* xaxis = &d.xaxis[3 * j];
        if (m.jnt_type[j] == kJointFree) {
          normalize4(&d.qpos[qadr + 3]);
          copy3(xpos, &d.qpos[qadr]);
          copy4(xquat, &d.qpos[qadr + 3]);
          copy3(xanchor, xpos);
          copy3(xaxis, &m.jnt_axis[3 * j]);
          continue;
        }
        // anchor and axis in the frame reached so far (before this joint moves it); a joint at
        // the frame's origin (jnt_pos zero: the rotations of it are zero) has its anchor there
        const bool at_origin = jpos[0] == 0 && jpos[1] == 0 && jpos[2] == 0;
        if (at_origin) {
          copy3(xanchor, xpos);
        } else {
          rotvecquat(xanchor, jpos, xquat);
          add3(xanchor, xanchor, xpos);
        }
        rotvecquat(xaxis, &m.jnt_axis[3 * j], xquat);

        switch (m.jnt_type[j]) {
          case kJointSlide:
            addscl3(xpos, xaxis, d.qpos[qadr] - m.qpos0[qadr]);
            break;
          case kJointHinge:
          case kJointBall: {
            double qloc[4];
            if (m.jnt_type[j] == kJointHinge) {
              axisangle2quat(qloc, &m.jnt_axis[3 * j], d.qpos[qadr] - m.qpos0[qadr]);
            } else {
              normalize4(&d.qpos[qadr]);
              copy4(qloc, &d.qpos[qadr]);
            }
            mulquat(xquat, xquat, qloc);
            // the anchor stays where it is: xpos = xanchor - R * jnt_pos
            if (!at_origin) {
              double r[3];
              rotvecquat(r, jpos, xquat);
              sub3(xpos, xanchor, r);
            }
            break;
          }
          default:
            break;
        }
      }
    }
    normalize4(xquat);
    quat2mat(&d.xmat[9 * b], xquat);
    if (m.body_sameframe[b]) {
      copy3(&d.xipos[3 * b], xpos);
      copy9(&d.ximat[9 * b], &d.xmat[9 * b]);
    } else {
      local_to_global(d, b, &m.body_ipos[3 * b], &m.body_iquat[4 * b], &d.xipos[3 * b], &d.ximat[9 * b]);
    }
  }

  frames_of(d, m.ngeom, m.geom_bodyid.data(), m.geom_sameframe.data(), m.geom_pos.data(), m.geom_quat.data(),
            d.geom_xpos.data(), d.geom_xmat.data());
  frames_of(d, m.nsite, m.site_bodyid.data(), m.site_sameframe.data(), m.site_pos.data(), m.site_quat.data(),
            d.site_xpos.data(), d.site_xmat.data());
}

}  // namespace moreau
