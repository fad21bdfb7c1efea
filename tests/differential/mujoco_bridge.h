// Test-only bridge from MuJoCo 2.2.2 to Moreau: build a moreau::Model from an mjModel (so the
// dynamics and collision stages can be compared against MuJoCo before/independently of our own
// loader), and random states for the differential tests.
#pragma once

#include <mujoco/mujoco.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "model_list.h"  // the shared models: MOREAU_REQUIRE_MODEL
#include "moreau/moreau.h"

namespace moreau::testing {

// Copy every Model field that MuJoCo 2.2.2 also has (sizes, options, statistics, bodies, joints,
// dofs, geoms, sites, cameras, lights, meshes, height fields, pairs, excludes, equalities, tendons,
// actuators, sensors, custom data, keyframes, names). Fields newer than 2.2.2 get their neutral
// values: body_gravcomp = 0, tendon_armature = 0, actuator_actearly = 0; actuator_actadr/actnum
// follow 2.2.2's layout (stateful actuators own one activation each, in order, at the end).
Model model_from_mujoco(const mjModel* mj);

struct MjModelDeleter { void operator()(mjModel* m) const { mj_deleteModel(m); } };
struct MjDataDeleter { void operator()(mjData* d) const { mj_deleteData(d); } };
using MjModelPtr = std::unique_ptr<mjModel, MjModelDeleter>;
using MjDataPtr = std::unique_ptr<mjData, MjDataDeleter>;

// Load with mj_loadXML; null (and the error in *error) when MuJoCo cannot load it.
MjModelPtr load_mujoco(const std::string& path, std::string* error = nullptr);

// Load with Moreau's loader into *m; the loader's message when it refuses the file, else empty. The
// suites fail with it where 2.2.2 loads the model: Moreau promises every model 2.2.2 loads.
std::string load_moreau(const std::string& path, Model* m);

// Resolve an entry of tests/models_mujoco222.txt ("shared/..." or "system/...") to a file path.
std::string resolve_model_path(const std::string& entry);
// The entries of tests/models_mujoco222.txt (a subset under MOREAU_MODEL_STRIDE: tests/model_list.h).
std::vector<std::string> model_list();
// For suites that filter the list: every entry, and the MOREAU_MODEL_STRIDE selection of a filtered list.
std::vector<std::string> model_list_all();
std::vector<std::string> select_models(const std::vector<std::string>& filtered);
// Smooth random controls inside ctrlrange, as the trajectory suites drive 2.2.2: a new target in
// [-1, 1] per actuator every 20 steps (drawn from u(rng)), mapped into ctrlrange where limited.
void smooth_random_ctrl(const mjModel* mj, mjData* D, int step, std::vector<double>& target,
                        std::mt19937_64& rng);

// Whether the MJCF file at `path`, or a file it includes (recursively), contains any of `words` as
// text: a cheap pre-filter for suites that select models by a feature before loading them in 2.2.2
// (every suite's generator runs in every test process: loading all models there cost ~15 s each).
bool mjcf_text_mentions(const std::string& path, const std::vector<std::string>& words);

// A random configuration near qpos0: hinge/slide q0 + U(-scale, scale), ball and free joints a
// uniformly random unit quaternion, free positions q0 + U(-scale, scale).
void random_qpos(const mjModel* mj, std::mt19937_64& rng, double* qpos, double scale = 0.5);
// Random velocities U(-scale, scale).
void random_qvel(const mjModel* mj, std::mt19937_64& rng, double* qvel, double scale = 1.0);

// Relative error of an array in the infinity norm: max_i |a_i - b_i| / max(max_i |b_i|, 1e-6)
// (0 when a == b exactly). The 1e-6 floor keeps arrays that are zero up to rounding (e.g. the
// Jacobian of a point on a hinge axis, ~1e-16 on both sides) from reading as a relative error of 1.
// NaN anywhere gives NaN (a failure).
double max_rel_err(const double* a, const double* b, int n);

// The ellipsoid fluid model's virtual masses and inertias (geom_fluid[6..11]) are integrals that
// Moreau evaluates in closed form (src/compiler/fluid_coef.cc) and 2.2.2 by a numerical quadrature,
// 4e-7 (sphere) to 1e-5 (thin plates) relative apart. A test of forces or of the whole pipeline on a
// model loaded by Moreau copies 2.2.2's values with this, so that it compares the force formulas
// to round-off; it returns the largest relative difference of the constants before the copy, which
// the test bounds by kFluidVirtualInertiaTol: 2.2.2's kappa is off by up to 1e-5 relative (measured
// against the closed form), and m_A = V kappa/(2 - kappa) amplifies that 2/(2 - kappa)-fold when kappa
// nears 2, the motion normal to a thin plate: 4e-4 for the 1:250 plates of tumbling_thin_object_ellipsoid.
inline constexpr double kFluidVirtualInertiaTol = 5e-4;
double adopt_fluid_virtual_inertia(Model& m, const mjModel* mj);

// 2.2.2's qDeriv (row-sparse: D_rownnz, D_rowadr, D_colind, set by its implicit step) as a dense
// nv x nv matrix.
std::vector<double> mujoco_qderiv(const mjModel* M, const mjData* D);

// Switch off, on the MuJoCo side, features these suites leave to others: tendon stiffness and damping
// (compared by TendonActuatorSensor). Fluid forces, both models, are kept.
void strip_unimplemented(mjModel* mj);

}  // namespace moreau::testing
