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

}  // namespace dray::simd
