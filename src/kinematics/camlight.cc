// Cameras and lights (computation chapter, stage 2, mj_camlight): their global frames, with the
// tracking modes of the MJCF camera/light "mode" attribute:
//   fixed (0): rigidly attached to the body;
//   track (1): constant world offset from the body (cam_pos0), constant world orientation (cam_mat0);
//   trackcom (2): the same relative to the body's subtree com (cam_poscom0);
//   targetbody (3) / targetbodycom (4): position attached to the body, oriented to look at the
//   target body's frame / subtree com, with the image x axis horizontal (orthogonal to world z).
#include "engine/checks.h"
#include "math/vec.h"
#include "moreau/moreau.h"

namespace moreau {

using namespace math;

namespace {
enum CamLightMode : int { kFixed = 0, kTrack = 1, kTrackCom = 2, kTargetBody = 3, kTargetBodyCom = 4 };
}

void camlight(const Model& m, Data& d) {
  internal::check_data(m, d, "camlight");
  for (int c = 0; c < m.ncam; ++c) {
    const int b = m.cam_bodyid[c];
    double* pos = &d.cam_xpos[3 * c];
    double* mat = &d.cam_xmat[9 * c];
    mulmatvec3(pos, &d.xmat[9 * b], &m.cam_pos[3 * c]);
    add3(pos, pos, &d.xpos[3 * b]);
    double q[4];
    mulquat(q, &d.xquat[4 * b], &m.cam_quat[4 * c]);
    quat2mat(mat, q);
    const int target = m.cam_targetbodyid.empty() ? -1 : m.cam_targetbodyid[c];
    switch (m.cam_mode[c]) {
      case kTrack:
        copy9(mat, &m.cam_mat0[9 * c]);
        add3(pos, &d.xpos[3 * b], &m.cam_pos0[3 * c]);
        break;
      case kTrackCom:
        copy9(mat, &m.cam_mat0[9 * c]);
        add3(pos, &d.subtree_com[3 * b], &m.cam_poscom0[3 * c]);
        break;
      case kTargetBody:
      case kTargetBodyCom:
        if (target >= 0) {
          const double* tpos = m.cam_mode[c] == kTargetBody ? &d.xpos[3 * target] : &d.subtree_com[3 * target];
          // camera looks along its -z axis: z points from the target to the camera
          double x[3], y[3], z[3];
          sub3(z, pos, tpos);
          normalize3(z);
          const double up[3] = {0, 0, 1};
          cross3(x, up, z);
          normalize3(x);
          cross3(y, z, x);
          normalize3(y);
          for (int k = 0; k < 3; ++k) { mat[3 * k] = x[k]; mat[3 * k + 1] = y[k]; mat[3 * k + 2] = z[k]; }
        }
        break;
      default:
        break;
    }
  }

  for (int l = 0; l < m.nlight; ++l) {
    const int b = m.light_bodyid[l];
    double* pos = &d.light_xpos[3 * l];
    double* dir = &d.light_xdir[3 * l];
    mulmatvec3(pos, &d.xmat[9 * b], &m.light_pos[3 * l]);
    add3(pos, pos, &d.xpos[3 * b]);
    mulmatvec3(dir, &d.xmat[9 * b], &m.light_dir[3 * l]);
    const int target = m.light_targetbodyid.empty() ? -1 : m.light_targetbodyid[l];
    switch (m.light_mode[l]) {
      case kTrack:
        copy3(dir, &m.light_dir0[3 * l]);
        add3(pos, &d.xpos[3 * b], &m.light_pos0[3 * l]);
        break;
      case kTrackCom:
        copy3(dir, &m.light_dir0[3 * l]);
        add3(pos, &d.subtree_com[3 * b], &m.light_poscom0[3 * l]);
        break;
      case kTargetBody:
      case kTargetBodyCom:
        if (target >= 0) {
          const double* tpos =
              m.light_mode[l] == kTargetBody ? &d.xpos[3 * target] : &d.subtree_com[3 * target];
          sub3(dir, tpos, pos);
        }
        break;
      default:
        break;
    }
    normalize3(dir);
  }
}

}  // namespace moreau
