#pragma once
// The kernel's two scalar types (DESIGN.md v3; integrators/two_types.h says when G differs from S):
// G for geometry, S for shading. These helpers cross from one to the other; with G = S they are
// the identity.
#include <type_traits>

#include "renderer/core/param_table.h"
#include "renderer/core/vec.h"

namespace dray {

// A geometry value where shading needs it: itself, or (G = float) a constant of S.
template <class S, class G>
S to_shading(const G& g) {
  if constexpr (std::is_same_v<S, G>) return g;
  else return S(value(g));
}
template <class S, class G>
Vec3<S> to_shading(const Vec3<G>& v) {
  if constexpr (std::is_same_v<S, G>) return v;
  else return Vec3<S>(value(v));
}
// A direction computed in S (a Dirac lobe's) where geometry goes on: itself, or its value. With G =
// float nothing geometric is seeded, so the value is all there is.
template <class G, class S>
Vec3<G> to_geometry(const Vec3<S>& v) {
  if constexpr (std::is_same_v<S, G>) return v;
  else return Vec3<G>(value(v));
}

// The parameters as geometry reads them: the pass's view, or its values (G = float).
template <class G, class S>
ParamView<G> geometry_view(const ParamView<S>& P) {
  if constexpr (std::is_same_v<S, G>) return P;
  else return P.values_only();
}

}  // namespace dray
