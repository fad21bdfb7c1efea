// `moreau rollout MODEL --batch FILE --threads N [--steps T] [--every K] [--key I]`: many rollouts
// of one model on the rollout pool (moreau/rollout.h).
//
// Input: one JSON object per line of FILE ("-": stdin), the initial state of one rollout. Keys, all
// optional: time (number), qpos (nq), qvel (nv), act (na), ctrl (nu numbers held for every step, or
// T lists of nu numbers, one per step). Missing keys take the values of the single rollout's start
// (keyframe I, default keyframe 0 if the model has one, else the reset state), so an empty line
// {} gives exactly `moreau rollout MODEL --steps T`'s trajectory.
// T: --steps, else the length of the per-step ctrl lists (which must all have T rows).
//
// Output: for each rollout in input order, the lines of `moreau rollout` (every K steps, default
// the last only) with the key "rollout" (the 0-based index of the input line among the non-blank
// ones) added. A bad input line prints {"error", "line"} instead and makes the exit code 1; the
// other rollouts still run. Warnings (divergence resets) go to stderr, one line per rollout:
// {"rollout", "warnings": {name: {count}}}.
#pragma once

#include <string>

#include "cli_options.h"

namespace moreau::cli {

struct BatchOptions {
  std::string file;  // "-": stdin
  int threads = 1;
  long steps = -1;   // -1: from the per-step ctrl lists
  long every = 0;
  int key = -1;
};

// Runs the batch; returns the exit code (0, or 1 for a bad model or bad input).
int batch_rollout(const std::string& model_path, const OptionOverrides& o, const BatchOptions& b);

}  // namespace moreau::cli
