#pragma once
// Four floats in one SSE register (GCC/Clang vector extension): a box corner or a centroid (the
// fourth lane unused), or one coordinate of four boxes or triangles. Shared by the BVH's build
// and traversal.
#include <xmmintrin.h>

namespace dray::simd {

typedef float v4 __attribute__((vector_size(16)));
typedef int v4i __attribute__((vector_size(16)));
inline v4 vmin(v4 a, v4 b) { return a < b ? a : b; }
inline v4 vmax(v4 a, v4 b) { return a > b ? a : b; }
inline v4 splat(float x) { return v4{x, x, x, x}; }
// The lanes of a comparison that hold, as bits 0-3.
inline unsigned lanes_set(v4i c) { return unsigned(_mm_movemask_ps(reinterpret_cast<__m128>(c))); }

// Eight floats: one coordinate of a wide BVH node's eight boxes. One AVX register where the
// function is compiled for AVX, two SSE registers otherwise (the same operations per lane).
// (Its functions are inlined: GCC's and clang's note that an AVX vector's return ABI differs
// without AVX does not apply.)
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
typedef float v8 __attribute__((vector_size(32)));
typedef int v8i __attribute__((vector_size(32)));
inline v8 splat8(float x) { return v8{x, x, x, x, x, x, x, x}; }
// The lanes of a comparison that hold, as bits 0-7.
inline unsigned lanes_set(v8i c) {
  const v4i lo = __builtin_shufflevector(c, c, 0, 1, 2, 3), hi = __builtin_shufflevector(c, c, 4, 5, 6, 7);
  return lanes_set(lo) | lanes_set(hi) << 4;
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace dray::simd
