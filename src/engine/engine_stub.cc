// TEMPORARY: placeholder until the dynamics pipeline lands (owner: dynamics). Delete this file then.
#include <stdexcept>
#include "moreau/moreau.h"
namespace moreau {
Data make_data(const Model&) { throw std::logic_error("make_data not implemented"); }
void reset_data(const Model&, Data&) { throw std::logic_error("not implemented"); }
void reset_data_keyframe(const Model&, Data&, int) { throw std::logic_error("not implemented"); }
void step(const Model&, Data&) { throw std::logic_error("not implemented"); }
void forward(const Model&, Data&) { throw std::logic_error("not implemented"); }
void inverse(const Model&, Data&) { throw std::logic_error("not implemented"); }
void full_m(const Model&, const double*, double*) { throw std::logic_error("not implemented"); }
}  // namespace moreau
