#pragma once
// The shape plugins: the variant's list is their registry. A BVH primitive's kind (PrimGeom::kind,
// PrimT::kind) is its plugin's index here; with_shape_type(kind, f) calls f.template
// operator()<Plugin>(), a closed set dispatched without virtual calls.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <type_traits>
#include <string_view>
#include <utility>
#include <variant>

#include "renderer/shapes/mesh.h"
#include "renderer/shapes/rectangle.h"
#include "renderer/shapes/sdfgrid.h"
#include "renderer/shapes/sphere.h"

namespace dray {

using ShapeModel = std::variant<MeshShape, Rectangle, Sphere, SdfGridShape>;

template <class S, size_t I = 0>
constexpr uint32_t shape_index() {
  static_assert(I < std::variant_size_v<ShapeModel>, "not a shape plugin");
  if constexpr (std::is_same_v<S, std::variant_alternative_t<I, ShapeModel>>) return uint32_t(I);
  else return shape_index<S, I + 1>();
}
// A plugin's primitive kind: its place in the list (each plugin states it as kKind).
template <class S>
inline constexpr uint32_t kPrimKind = shape_index<S>();
template <size_t... I>
constexpr bool kinds_in_order(std::index_sequence<I...>) {
  return ((std::variant_alternative_t<I, ShapeModel>::kKind == I) && ...);
}
static_assert(kinds_in_order(std::make_index_sequence<std::variant_size_v<ShapeModel>>()));

template <size_t I = 0, class F>
decltype(auto) with_shape_type(uint32_t kind, F&& f) {
  using S = std::variant_alternative_t<I, ShapeModel>;
  if constexpr (I + 1 == std::variant_size_v<ShapeModel>) {
    return f.template operator()<S>();
  } else {
    if (kind == I) return f.template operator()<S>();
    return with_shape_type<I + 1>(kind, std::forward<F>(f));
  }
}

// Calls f(entry) for each Mitsuba shape type the plugins read (their kMitsuba), in the list's order.
template <class F>
void for_each_mitsuba_shape(F&& f) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    ((std::for_each(std::begin(std::variant_alternative_t<I, ShapeModel>::kMitsuba),
                    std::end(std::variant_alternative_t<I, ShapeModel>::kMitsuba), f)),
     ...);
  }(std::make_index_sequence<std::variant_size_v<ShapeModel>>());
}
// Mitsuba's shape `type` as the plugin that reads it lists it; nullopt when none does.
inline std::optional<MitsubaShape> mitsuba_shape(std::string_view type) {
  std::optional<MitsubaShape> found;
  for_each_mitsuba_shape([&](const MitsubaShape& m) {
    if (!found && m.type == type) found = m;
  });
  return found;
}
// Every Mitsuba shape type the plugins read, comma-separated (the loaders' messages).
inline std::string mitsuba_shape_names() {
  std::string out;
  for_each_mitsuba_shape([&](const MitsubaShape& m) { out += (out.empty() ? "" : ", ") + std::string(m.type); });
  return out;
}

// A shape of the scene: its plugin and what every shape has.
struct Shape {
  std::string name;
  ShapeModel model;
  uint32_t material = 0;  // a mesh's are per face (Mesh::face_materials)
  int light = -1;         // index into Scene::lights when emissive
  // The media inside (against the geometric normal) and outside: indices into Scene::media, or -1
  // (none: vacuum where the other is named; neither: the shape changes no medium).
  int interior = -1, exterior = -1;
  // A member of an instance (index into Scene::instances): its mesh or grid is the group's, shared
  // with every instance of the group, and its transform the instance's; -1: a shape of its own.
  int instance = -1;

  template <class S>
  bool is() const { return std::holds_alternative<S>(model); }
  template <class S>
  const S& as() const { return std::get<S>(model); }
  template <class S>
  S& as() { return std::get<S>(model); }
  // Its transform's parameters: a mesh's or an sdfgrid's; null for a sphere or rectangle.
  const Transform* transform() const {
    return std::visit([]<class S>(const S& plugin) -> const Transform* {
      if constexpr (requires { plugin.transform; }) return &plugin.transform;
      else return nullptr;
    }, model);
  }
};

}  // namespace dray
