// Temporaries of the analytic derivatives without heap allocation after the first call: the
// std::vectors of src/derivative/analytic_*.cc use this allocator, which returns a freed block to
// a per-thread cache (one list per power-of-two size class) and hands it out again for the next
// request of that class. A call repeats the sizes of the previous one (nv, na, nu, nefc), so from
// the second call on every request is served from the cache. The cache keeps the thread's peak
// (at most twice the requested bytes per block) until the thread ends.
#pragma once

#include <cstddef>
#include <vector>

namespace moreau::internal {

// Blocks of at least `bytes` from the calling thread's cache (operator new when its class is empty),
// and back to it.
void* recycled_take(std::size_t bytes);
void recycled_give(void* p, std::size_t bytes) noexcept;

template <class T>
struct Recycling {
  using value_type = T;
  Recycling() = default;
  template <class U>
  Recycling(const Recycling<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(recycled_take(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { recycled_give(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const Recycling<U>&) const noexcept { return true; }
};

using RecycledVec = std::vector<double, Recycling<double>>;
using RecycledIntVec = std::vector<int, Recycling<int>>;

}  // namespace moreau::internal
