#pragma once
// The integrators: a closed set listed once (core/registry.h), the scene's RenderSettings::integrator
// its place in the list. Each plugin owns its passes (renderer/integrators/pass.h), reached through
// with_integrator; the kernel asks its traits (whether its paths cross media), never its name;
// Mitsuba's XML reader asks each plugin which of Mitsuba's integrators it renders (kMitsuba).
#include <array>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "renderer/integrators/depth.h"
#include "renderer/integrators/path.h"
#include "renderer/integrators/ptracer.h"
#include "renderer/integrators/volpath.h"
#include "renderer/scene.h"

namespace dray {

using IntegratorModel = std::variant<PathIntegrator, VolPathIntegrator, ParticleTracer, DepthIntegrator>;

struct IntegratorTraits {
  std::string_view name;
  bool media;         // paths cross media and null surfaces
  bool camera_tiles;  // its passes are camera tiles' (render_tiles, gradient_tiles: camera_passes.h)
};

namespace detail {
template <std::size_t... I>
constexpr auto integrator_traits_table(std::index_sequence<I...>) {
  return std::array<IntegratorTraits, sizeof...(I)>{
      IntegratorTraits{std::variant_alternative_t<I, IntegratorModel>::kPlugins[0],
                       std::variant_alternative_t<I, IntegratorModel>::kMedia,
                       std::is_base_of_v<CameraTilePasses, std::variant_alternative_t<I, IntegratorModel>>}...};
}
}  // namespace detail

inline constexpr auto kIntegrators =
    detail::integrator_traits_table(std::make_index_sequence<std::variant_size_v<IntegratorModel>>{});

inline const IntegratorTraits& integrator_traits(const RenderSettings& r) { return kIntegrators[r.integrator]; }

// f(the plugin at `index` of the list): its passes and refusals as static members.
template <class F, std::size_t I = 0>
decltype(auto) with_integrator(int index, F&& f) {
  using Plugin = std::variant_alternative_t<I, IntegratorModel>;
  if constexpr (I + 1 == std::variant_size_v<IntegratorModel>) {
    return f(Plugin{});
  } else {
    if (index == int(I)) return f(Plugin{});
    return with_integrator<F, I + 1>(index, std::forward<F>(f));
  }
}

// The place in the list of the integrator named `name` (dray's name), or -1.
inline int integrator_index(std::string_view name) {
  for (std::size_t i = 0; i < kIntegrators.size(); ++i)
    if (kIntegrators[i].name == name) return int(i);
  return -1;
}

// The plugin rendering Mitsuba's integrator `mitsuba_name` and how (its defaults and keys): f(index,
// MitsubaIntegrator); false when none does.
template <class F, std::size_t I = 0>
bool with_mitsuba_integrator(std::string_view mitsuba_name, F&& f) {
  if constexpr (I == std::variant_size_v<IntegratorModel>) {
    return false;
  } else {
    for (const MitsubaIntegrator& m : std::variant_alternative_t<I, IntegratorModel>::kMitsuba)
      if (m.name == mitsuba_name) {
        f(int(I), m);
        return true;
      }
    return with_mitsuba_integrator<F, I + 1>(mitsuba_name, std::forward<F>(f));
  }
}

// Every Mitsuba integrator name dray renders, in the list's order, comma-separated.
inline std::string mitsuba_integrator_names() {
  std::string out;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (..., [&] {
      for (const MitsubaIntegrator& m : std::variant_alternative_t<I, IntegratorModel>::kMitsuba)
        out += (out.empty() ? "" : ", ") + std::string(m.name);
    }());
  }(std::make_index_sequence<std::variant_size_v<IntegratorModel>>{});
  return out;
}

}  // namespace dray
