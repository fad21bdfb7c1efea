// A user's first program against the installed package: load a model, step it 100 times, and check
// that time advanced by 100 time steps, the bodies moved, and the state stayed finite. Exit 0 on success.
#include <cmath>
#include <cstdio>
#include <exception>

#include "moreau/moreau.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODEL.xml\n", argv[0]);
    return 2;
  }
  try {
    const moreau::Model m = moreau::load_model(argv[1]);
    moreau::Data d = moreau::make_data(m);
    for (int i = 0; i < 100; ++i) moreau::step(m, d);
    bool finite = true, moved = false;
    for (double v : d.qvel) moved = moved || v != 0;
    for (double x : d.qpos) finite = finite && std::isfinite(x);
    for (double x : d.qvel) finite = finite && std::isfinite(x);
    const double expected = 100 * m.opt.timestep;
    const bool advanced = std::fabs(d.time - expected) <= 1e-9 * expected;
    std::printf("nq %d nv %d time %.6f (expected %.6f) qpos[2] %.6f\n", m.nq, m.nv, d.time, expected,
                m.nq > 2 ? d.qpos[2] : 0.0);
    if (!finite) std::fprintf(stderr, "consumer: the state is not finite after 100 steps\n");
    if (!moved) std::fprintf(stderr, "consumer: every velocity is zero after 100 steps\n");
    if (!advanced) std::fprintf(stderr, "consumer: time is %g after 100 steps, expected %g\n", d.time, expected);
    return finite && moved && advanced ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
