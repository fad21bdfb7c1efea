// The per-thread block cache of the derivatives' temporaries (recycling.h).
#include "derivative/recycling.h"

#include <new>

namespace moreau::internal {

namespace {

constexpr int kClasses = 64;

// Free blocks by size class c (2^c bytes), linked through their first word.
struct BlockCache {
  void* head[kClasses] = {};
  ~BlockCache() {
    for (void*& h : head)
      while (h) {
        void* next = *static_cast<void**>(h);
        ::operator delete(h);
        h = next;
      }
  }
};

thread_local BlockCache cache;

int size_class(std::size_t bytes) {
  int c = 4;  // 16 bytes: room for the link, operator new's alignment
  while ((std::size_t{1} << c) < bytes) ++c;
  return c;
}

}  // namespace

void* recycled_take(std::size_t bytes) {
  const int c = size_class(bytes);
  if (c >= kClasses) throw std::bad_alloc();
  void*& h = cache.head[c];
  if (h) {
    void* p = h;
    h = *static_cast<void**>(p);
    return p;
  }
  return ::operator new(std::size_t{1} << c);
}

void recycled_give(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  const int c = size_class(bytes);
  *static_cast<void**>(p) = cache.head[c];
  cache.head[c] = p;
}

}  // namespace moreau::internal
