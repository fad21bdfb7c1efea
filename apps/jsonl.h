// JSON-lines state input and result output for the `moreau` command-line tool.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "moreau/moreau.h"

namespace moreau::cli {

using Json = nlohmann::json;

// The model's sizes, as `moreau info` prints them.
Json model_info(const Model& m);

// Set d's state and inputs from one input line. Keys (all optional): qpos, qvel, act, ctrl,
// qfrc_applied, qacc (inverse only). Missing keys keep their reset values. Throws
// std::invalid_argument for a wrong length, a non-number, an unknown key, or a non-finite value.
void read_state(const Model& m, Data& d, const Json& line, bool allow_qacc);

// The outputs of `moreau forward` for d after forward().
Json forward_output(const Model& m, const Data& d, bool full);

// The outputs of `moreau inverse` for d after inverse().
Json inverse_output(const Model& m, const Data& d);

// `rollout --metrics`: add to `line` the step's solver statistics and contact forces,
// then the energy of the state the step produced. Call right after step(m, d). Keys:
//   iterations       solver iterations (Gauss-Seidel sweeps, Lemke pivots, Newton/CG/PGS iterations)
//   eps_abs, errors  the RaiSim paper's eps_abs and {primal, dual, complementarity} (d.ncp for the
//                    hard-contact solvers, contact_metrics for the others)
//   contacts         [{geom1, geom2, pos, force}]: each active contact, force in world coordinates
//                    exerted on geom2 by geom1 (N), at pos
//   energy           [potential, kinetic] of the new state (recomputes its position stage)
void add_step_metrics(const Model& m, Data& d, Json& line);

// Warnings recorded in d (non-zero counts only), as {name: {count, index}}.
Json warnings(const Data& d);
// Warning counts (kNWarning of them; non-zero ones only), as {name: {count}}.
Json warning_counts(const int* counts);

}  // namespace moreau::cli
