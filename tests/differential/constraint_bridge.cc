#include "differential/constraint_bridge.h"

#include <algorithm>

namespace moreau::testing {

bool mj_sparse(const mjModel* mj) {
  return mj->opt.jacobian == mjJAC_SPARSE || (mj->opt.jacobian == mjJAC_AUTO && mj->nv >= 60);
}

namespace {
template <class T>
void put(std::vector<double>& dst, const T* src, size_t n) {
  if (dst.size() < n) dst.resize(n);
  std::copy_n(src, n, dst.begin());
}
}  // namespace

void copy_constraint_inputs(const mjModel* mj, const mjData* md, const Model& m, Data& d) {
  const int nv = mj->nv;
  put(d.qpos, md->qpos, mj->nq);
  put(d.qvel, md->qvel, nv);
  put(d.xpos, md->xpos, 3 * mj->nbody);
  put(d.xquat, md->xquat, 4 * mj->nbody);
  put(d.xmat, md->xmat, 9 * mj->nbody);
  put(d.xipos, md->xipos, 3 * mj->nbody);
  put(d.ximat, md->ximat, 9 * mj->nbody);
  put(d.xanchor, md->xanchor, 3 * mj->njnt);
  put(d.xaxis, md->xaxis, 3 * mj->njnt);
  put(d.geom_xpos, md->geom_xpos, 3 * mj->ngeom);
  put(d.geom_xmat, md->geom_xmat, 9 * mj->ngeom);
  put(d.site_xpos, md->site_xpos, 3 * mj->nsite);
  put(d.site_xmat, md->site_xmat, 9 * mj->nsite);
  put(d.subtree_com, md->subtree_com, 3 * mj->nbody);
  put(d.cdof, md->cdof, 6 * nv);
  put(d.qM, md->qM, mj->nM);
  put(d.qLD, md->qLD, mj->nM);
  put(d.qLDiagInv, md->qLDiagInv, nv);
  put(d.qLDiagSqrtInv, md->qLDiagSqrtInv, nv);
  put(d.qfrc_smooth, md->qfrc_smooth, nv);
  put(d.qacc_smooth, md->qacc_smooth, nv);
  put(d.qacc_warmstart, md->qacc_warmstart, nv);
  put(d.qfrc_bias, md->qfrc_bias, nv);
  put(d.qfrc_passive, md->qfrc_passive, nv);
  if (d.qacc.size() < static_cast<size_t>(nv)) d.qacc.resize(nv);
  if (d.qfrc_constraint.size() < static_cast<size_t>(nv)) d.qfrc_constraint.resize(nv);
  if (d.qfrc_inverse.size() < static_cast<size_t>(nv)) d.qfrc_inverse.resize(nv);
  put(d.ten_length, md->ten_length, mj->ntendon);
  d.ten_J.assign(static_cast<size_t>(mj->ntendon) * nv, 0.0);
  if (mj_sparse(mj)) {
    for (int t = 0; t < mj->ntendon; ++t)
      for (int k = 0; k < md->ten_J_rownnz[t]; ++k) {
        const int a = md->ten_J_rowadr[t] + k;
        d.ten_J[static_cast<size_t>(t) * nv + md->ten_J_colind[a]] = md->ten_J[a];
      }
  } else {
    std::copy_n(md->ten_J, static_cast<size_t>(mj->ntendon) * nv, d.ten_J.begin());
  }
  // Rows written whole: their spans are every dof (a row is zero outside its span).
  d.ten_J_span.resize(2 * static_cast<size_t>(mj->ntendon));
  for (int t = 0; t < mj->ntendon; ++t) {
    d.ten_J_span[2 * t] = 0;
    d.ten_J_span[2 * t + 1] = nv;
  }
  // contacts
  if (d.contact.size() < static_cast<size_t>(std::max(md->ncon, 1))) d.contact.resize(std::max(md->ncon, 1));
  d.ncon = md->ncon;
  for (int i = 0; i < md->ncon; ++i) {
    const mjContact& c = md->contact[i];
    Contact& o = d.contact[i];
    o.dist = c.dist;
    std::copy_n(c.pos, 3, o.pos);
    std::copy_n(c.frame, 9, o.frame);
    o.includemargin = c.includemargin;
    std::copy_n(c.friction, 5, o.friction);
    std::copy_n(c.solref, mjNREF, o.solref);
    std::copy_n(c.solimp, mjNIMP, o.solimp);
    o.mu = 0;
    o.dim = c.dim;
    o.geom1 = c.geom1;
    o.geom2 = c.geom2;
    o.exclude = c.exclude;
    o.efc_address = -1;
  }
  if (d.efc_type.empty() || static_cast<int>(d.efc_type.size()) < md->nefc) {
    allocate_constraint_storage(m, d);
  }
}

std::vector<double> mj_dense_efc_J(const mjModel* mj, const mjData* md) {
  const int nv = mj->nv;
  std::vector<double> J(static_cast<size_t>(md->nefc) * nv, 0.0);
  if (mj_sparse(mj)) {
    for (int i = 0; i < md->nefc; ++i)
      for (int k = 0; k < md->efc_J_rownnz[i]; ++k) {
        const int a = md->efc_J_rowadr[i] + k;
        J[static_cast<size_t>(i) * nv + md->efc_J_colind[a]] = md->efc_J[a];
      }
  } else {
    std::copy_n(md->efc_J, J.size(), J.begin());
  }
  return J;
}

}  // namespace moreau::testing
