// Forward-mode dual numbers with N tangent directions: x = value + sum_k d[k] eps_k. Evaluating a
// smooth function on Dual<N> inputs whose tangents are the unit vectors gives the function's value
// and its exact Jacobian (to round-off) in one pass, without a hand-derived formula that can drift
// from the function it differentiates. Used where a force law is long and its derivative is needed
// (the ellipsoid fluid model's velocity Jacobian, src/dynamics/fluid.cc).
//
// Non-differentiable points take one-sided values chosen to be the natural limits: |x| and max()
// take the branch of the current value; sqrt(0) has derivative 0 (it only occurs where the argument
// vanishes to second order, e.g. a norm at zero velocity, whose products with the speed then have
// the correct zero derivative). No allocation; header only.
#pragma once

#include <cmath>

namespace moreau::math {

template <int N>
struct Dual {
  double v = 0;
  double d[N] = {};

  Dual() = default;
  Dual(double value) : v(value) {}  // NOLINT: constants promote implicitly

  static Dual variable(double value, int k) {
    Dual x(value);
    x.d[k] = 1;
    return x;
  }

  Dual& operator+=(const Dual& b) {
    v += b.v;
    for (int k = 0; k < N; ++k) d[k] += b.d[k];
    return *this;
  }
  Dual& operator-=(const Dual& b) {
    v -= b.v;
    for (int k = 0; k < N; ++k) d[k] -= b.d[k];
    return *this;
  }
  Dual& operator*=(const Dual& b) {
    for (int k = 0; k < N; ++k) d[k] = d[k] * b.v + v * b.d[k];
    v *= b.v;
    return *this;
  }
  Dual& operator/=(const Dual& b) {
    const double inv = 1 / b.v;
    v *= inv;
    for (int k = 0; k < N; ++k) d[k] = (d[k] - v * b.d[k]) * inv;
    return *this;
  }
};

template <int N> Dual<N> operator+(Dual<N> a, const Dual<N>& b) { return a += b; }
template <int N> Dual<N> operator-(Dual<N> a, const Dual<N>& b) { return a -= b; }
template <int N> Dual<N> operator*(Dual<N> a, const Dual<N>& b) { return a *= b; }
template <int N> Dual<N> operator/(Dual<N> a, const Dual<N>& b) { return a /= b; }
template <int N> Dual<N> operator+(Dual<N> a, double b) { a.v += b; return a; }
template <int N> Dual<N> operator+(double b, Dual<N> a) { a.v += b; return a; }
template <int N> Dual<N> operator-(Dual<N> a, double b) { a.v -= b; return a; }
template <int N> Dual<N> operator-(double b, const Dual<N>& a) { return Dual<N>(b) - a; }
template <int N> Dual<N> operator*(Dual<N> a, double b) {
  a.v *= b;
  for (int k = 0; k < N; ++k) a.d[k] *= b;
  return a;
}
template <int N> Dual<N> operator*(double b, Dual<N> a) { return a * b; }
template <int N> Dual<N> operator/(Dual<N> a, double b) { return a * (1 / b); }
template <int N> Dual<N> operator-(Dual<N> a) { return a * -1.0; }

template <int N> Dual<N> sqrt(const Dual<N>& a) {
  Dual<N> r(std::sqrt(a.v));
  if (r.v > 0)
    for (int k = 0; k < N; ++k) r.d[k] = a.d[k] / (2 * r.v);
  return r;
}
template <int N> Dual<N> abs(const Dual<N>& a) { return a.v < 0 ? -a : a; }
template <int N> Dual<N> max(double c, const Dual<N>& a) { return a.v < c ? Dual<N>(c) : a; }
template <int N> Dual<N> max(const Dual<N>& a, const Dual<N>& b) { return a.v < b.v ? b : a; }

// The same names for plain doubles, so templates can call them unqualified.
inline double sqrt(double a) { return std::sqrt(a); }
inline double abs(double a) { return std::abs(a); }
inline double max(double a, double b) { return a < b ? b : a; }

inline double value(double a) { return a; }
template <int N> double value(const Dual<N>& a) { return a.v; }

}  // namespace moreau::math
