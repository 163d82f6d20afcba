#pragma once
// The shape plugins: the list is their registry. A BVH primitive's kind (PrimGeom::kind,
// PrimT::kind) is its plugin's index here; with_shape_type(kind, f) calls f.template
// operator()<Plugin>(), a closed set dispatched without virtual calls.
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "renderer/shapes/mesh.h"
#include "renderer/shapes/rectangle.h"
#include "renderer/shapes/sdfgrid.h"
#include "renderer/shapes/sphere.h"

namespace dray {

using ShapeTypes = std::tuple<MeshShape, Rectangle, Sphere, SdfGridShape>;

template <class S, size_t I = 0>
constexpr uint32_t shape_index() {
  static_assert(I < std::tuple_size_v<ShapeTypes>, "not a shape plugin");
  if constexpr (std::is_same_v<S, std::tuple_element_t<I, ShapeTypes>>) return uint32_t(I);
  else return shape_index<S, I + 1>();
}
// A plugin's primitive kind.
template <class S>
inline constexpr uint32_t kPrimKind = shape_index<S>();

template <size_t I = 0, class F>
decltype(auto) with_shape_type(uint32_t kind, F&& f) {
  using S = std::tuple_element_t<I, ShapeTypes>;
  if constexpr (I + 1 == std::tuple_size_v<ShapeTypes>) {
    return f.template operator()<S>();
  } else {
    if (kind == I) return f.template operator()<S>();
    return with_shape_type<I + 1>(kind, std::forward<F>(f));
  }
}

// What the BVH asks of a primitive kind: whether its leaves test it four-wide (a triangle or a
// parallelogram), and which of the two.
inline bool prim_planar(uint32_t kind) {
  return with_shape_type(kind, []<class S>() { return S::kPlanar; });
}
inline bool prim_parallelogram(uint32_t kind) {
  return with_shape_type(kind, []<class S>() { return S::kParallelogram; });
}

}  // namespace dray
