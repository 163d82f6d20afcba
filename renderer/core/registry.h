#pragma once
// The plugin registry. A folder's plugins are a closed set, a std::variant listed once (bsdfs/bsdf.h
// lists the BSDFs); each alternative names the plugins it implements (kPlugins: Mitsuba's names)
// and builds itself from the loader's properties (static read(Props&)). The loaders find a reader
// by name here, and messages list the names from here: adding a plugin touches its file, the
// variant's list and its test.
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace dray {

template <class Variant, class Props>
using PluginReader = Variant (*)(Props&);

// The reader of plugin `name`, or nullptr (none named so, or one the loader builds itself: a
// plugin without read(Props&), such as a mesh whose file formats are the loader's).
template <class Variant, class Props, std::size_t I = 0>
PluginReader<Variant, Props> plugin_reader(std::string_view name) {
  if constexpr (I == std::variant_size_v<Variant>) {
    return nullptr;
  } else {
    using P = std::variant_alternative_t<I, Variant>;
    if constexpr (requires(Props& props) { P::read(props); })
      for (std::string_view n : P::kPlugins)
        if (n == name) return [](Props& props) -> Variant { return P::read(props); };
    return plugin_reader<Variant, Props, I + 1>(name);
  }
}

// Calls f with a default plugin of the type named `name` (to read its static traits); false when
// there is none.
template <class Variant, class F, std::size_t I = 0>
bool with_plugin(std::string_view name, F&& f) {
  if constexpr (I == std::variant_size_v<Variant>) {
    return false;
  } else {
    using P = std::variant_alternative_t<I, Variant>;
    for (std::string_view n : P::kPlugins)
      if (n == name) {
        f(P{});
        return true;
      }
    return with_plugin<Variant, F, I + 1>(name, std::forward<F>(f));
  }
}

// Every plugin name, in the variant's order, comma-separated.
template <class Variant, std::size_t I = 0>
std::string plugin_names() {
  if constexpr (I == std::variant_size_v<Variant>) {
    return {};
  } else {
    std::string out;
    for (std::string_view n : std::variant_alternative_t<I, Variant>::kPlugins) out += std::string(out.empty() ? "" : ", ") + std::string(n);
    const std::string rest = plugin_names<Variant, I + 1>();
    return rest.empty() ? out : out + ", " + rest;
  }
}

}  // namespace dray
