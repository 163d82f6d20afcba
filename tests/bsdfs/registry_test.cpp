// The BSDF registry (core/registry.h over the Bsdf variant's list): every plugin name found once,
// read into the alternative that registered it, with Mitsuba's parameter names and defaults
// (src/bsdfs/*.cpp in mitsuba-renderer/mitsuba3); unknown names refused with the list; and the
// registry's templates on a variant of their own (what adding a plugin takes).
#include <catch2/catch.hpp>

#include <set>

#include "renderer/io/scene_loader.h"

using namespace dray;
using nlohmann::json;

namespace {

// A scene whose only material is `bsdf` (named m), on a quad.
Scene scene_with(const json& bsdf) {
  json doc = {{"camera", {{"origin", {0, 0, 4}}, {"target", {0, 0, 0}}, {"width", 4}, {"height", 4}}},
              {"materials", {{"m", bsdf}}},
              {"shapes", {{{"name", "q"}, {"type", "quad"}, {"corner", {-1, -1, 0}}, {"edge_u", {2, 0, 0}},
                           {"edge_v", {0, 2, 0}}, {"material", "m"}}}},
              {"lights", {{{"type", "point"}, {"position", {0, 0, 3}}, {"intensity", 1}}}}};
  return load_scene(doc, "s.json");
}

float param(const Scene& s, const std::string& name) {
  const auto e = s.params.find(name);
  INFO(name);
  REQUIRE(e);
  return s.params.get(e->slot);
}

// A toy closed set for the registry's templates.
struct ToyProps {
  int read = 0;
};
struct Alpha {
  static constexpr std::string_view kPlugins[] = {"alpha", "a"};
  static Alpha read(ToyProps& p) { return {++p.read}; }
  int n;
};
struct Beta {
  static constexpr std::string_view kPlugins[] = {"beta"};
  static Beta read(ToyProps& p) { return {p.read += 10}; }
  int n;
};
using Toy = std::variant<Alpha, Beta>;

}  // namespace

TEST_CASE("registry: a plugin is found by any of its names, once, in the variant's order", "[registry]") {
  CHECK(plugin_names<Toy>() == "alpha, a, beta");
  ToyProps p;
  REQUIRE(plugin_reader<Toy, ToyProps>("a"));
  const Toy a = plugin_reader<Toy, ToyProps>("a")(p);
  CHECK((a.index() == 0 && std::get<Alpha>(a).n == 1));
  const Toy b = plugin_reader<Toy, ToyProps>("beta")(p);
  CHECK((b.index() == 1 && std::get<Beta>(b).n == 11));
  CHECK(plugin_reader<Toy, ToyProps>("gamma") == nullptr);
  CHECK(plugin_reader<Toy, ToyProps>("") == nullptr);
}

TEST_CASE("registry: every BSDF name is read by the alternative that registers it", "[registry]") {
  const std::string names = plugin_names<Bsdf>();
  CHECK(names ==
        "diffuse, conductor, mirror, roughconductor, dielectric, roughdielectric, plastic, roughplastic, principled, "
        "principledthin, thindielectric, blendbsdf");
  // No name registered twice.
  std::set<std::string> seen;
  for (size_t i = 0, j; i < names.size(); i = j + 2) {
    j = names.find(", ", i);
    if (j == std::string::npos) j = names.size();
    CHECK(seen.insert(names.substr(i, j - i)).second);
  }
  const std::vector<std::pair<json, size_t>> cases = {
      {{{"type", "diffuse"}}, 0},
      {{{"type", "conductor"}}, 1},
      {{{"type", "mirror"}}, 1},
      {{{"type", "roughconductor"}}, 2},
      {{{"type", "dielectric"}}, 3},
      {{{"type", "roughdielectric"}}, 4},
      {{{"type", "plastic"}}, 5},
      {{{"type", "roughplastic"}}, 6},
      {{{"type", "principled"}}, 7},
      {{{"type", "principledthin"}}, 8},
      {{{"type", "thindielectric"}}, 9},
      {{{"type", "blendbsdf"}, {"weight", 0.25}, {"bsdf", {{{"type", "diffuse"}}, {{"type", "conductor"}}}}}, 10},
  };
  for (const auto& [bsdf, index] : cases) {
    INFO(bsdf.dump());
    const Scene s = scene_with(bsdf);
    const Bsdf& b = s.bsdfs[s.materials.at(0).front];
    CHECK(b.index() == index);
  }
}

TEST_CASE("registry: BSDFs read Mitsuba's parameter names and defaults", "[registry]") {
  // diffuse.cpp: reflectance 0.5.
  CHECK(param(scene_with({{"type", "diffuse"}}), "materials.m.reflectance") == 0.5f);
  // roughconductor.cpp: alpha 0.1 (beckmann); conductor.cpp / roughconductor.cpp: material "none"
  // (eta 0, k 1), specular_reflectance 1.
  const Scene rc = scene_with({{"type", "roughconductor"}});
  CHECK(param(rc, "materials.m.alpha") == Approx(0.1f));
  CHECK(param(rc, "materials.m.eta") == 0.f);
  CHECK(param(rc, "materials.m.k") == 1.f);
  CHECK(param(rc, "materials.m.specular_reflectance") == 1.f);
  // dielectric.cpp, thindielectric.cpp: int_ior "bk7" (1.5046), ext_ior "air" (1.000277).
  for (const char* t : {"dielectric", "thindielectric", "roughdielectric"}) {
    const Scene d = scene_with({{"type", t}});
    CHECK(param(d, "materials.m.int_ior") == Approx(1.5046f));
    CHECK(param(d, "materials.m.ext_ior") == Approx(1.000277f));
    CHECK(param(d, "materials.m.specular_transmittance") == 1.f);
  }
  // plastic.cpp: int_ior "polypropylene" (1.49), diffuse_reflectance 0.5.
  const Scene pl = scene_with({{"type", "roughplastic"}});
  CHECK(param(pl, "materials.m.int_ior") == Approx(1.49f));
  CHECK(param(pl, "materials.m.diffuse_reflectance") == 0.5f);
  CHECK(param(pl, "materials.m.alpha") == Approx(0.1f));
  // principled.cpp: base_color 0.5, roughness 0.5, specular 0.5; principledthin.cpp: eta 1.5.
  const Scene pr = scene_with({{"type", "principled"}});
  CHECK(param(pr, "materials.m.base_color") == 0.5f);
  CHECK(param(pr, "materials.m.roughness") == 0.5f);
  CHECK(param(pr, "materials.m.specular") == 0.5f);
  CHECK(param(scene_with({{"type", "principledthin"}}), "materials.m.eta") == 1.5f);
  // blendbsdf.cpp: the two are bsdf_0 and bsdf_1.
  const Scene bl = scene_with({{"type", "blendbsdf"}, {"weight", 0.25}, {"bsdf", {{{"type", "diffuse"}}, {{"type", "diffuse"}}}}});
  CHECK(param(bl, "materials.m.weight") == 0.25f);
  CHECK(param(bl, "materials.m.bsdf_0.reflectance") == 0.5f);
  CHECK(param(bl, "materials.m.bsdf_1.reflectance") == 0.5f);
}

TEST_CASE("registry: an unknown BSDF is refused with every registered name", "[registry]") {
  CHECK_THROWS_WITH(scene_with({{"type", "velvet"}}),
                    "s.json: /materials/m/type: unknown material type \"velvet\" (expected " + plugin_names<Bsdf>() +
                        ", null; wrappers twosided, mask, normalmap, bumpmap)");
  CHECK_THROWS_WITH(scene_with({{"type", "blendbsdf"}, {"weight", 0.5}, {"bsdf", {{{"type", "diffuse"}}}}}),
                    "s.json: /materials/m/bsdf: must be an array of two BSDF objects");
  CHECK_THROWS_WITH(scene_with({{"type", "diffuse"}, {"alpha", 0.5}}),
                    Catch::Contains("/materials/m/alpha: unknown key (expected one of: type, reflectance, albedo, emission, two_sided, directional, one_sided)"));
}
