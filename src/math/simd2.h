// Two doubles in one SSE2 register (GCC vector extension: SSE2 is the x86-64 baseline; other
// targets split it in scalars). Each lane does the scalar operation, so elementwise loops written
// with it give the same bits as their scalar form; -O2 does not unroll or vectorize such short
// loops by itself.
#pragma once

#include <cstring>

namespace moreau::math {

typedef double v2d __attribute__((vector_size(16)));

inline v2d load2(const double* p) {
  v2d v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store2(double* p, v2d v) { std::memcpy(p, &v, sizeof v); }

}  // namespace moreau::math
