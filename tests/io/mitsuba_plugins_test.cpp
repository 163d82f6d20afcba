// Mitsuba's newer plugins in XML (principled, principledthin, thindielectric, normalmap,
// bumpmap, rawconstant, blendbsdf, a spot light's texture) against their dray JSON: bitwise the
// same images and the same parameter names; the converted document renders the same.
#include <catch2/catch.hpp>

#include "../temp_dir.h"
#include "tests/io/mitsuba_scenes.h"

using namespace dray;
using namespace dray::testing;
using nlohmann::json;

TEST_CASE("Mitsuba's newer plugins render bitwise as their JSON equivalent and as the converted document", "[mitsuba]") {
  // principled, principledthin, thindielectric, normalmap (rawconstant), bumpmap (a bitmap of
  // any name), a checkerboard roughness, and a spot light's texture with its lookat up.
  TempDir t("dray-mitsuba-new-");
  Image heights(4, 4, 3);
  for (size_t i = 0; i < heights.data.size(); ++i) heights.data[i] = float(i % 7) / 7.f;
  write_image(heights, (t.dir / "h.exr").string());
  const std::string xml = t.write("scene.xml", scene_xml(R"(
  <integrator type="path"><integer name="max_depth" value="4"/></integrator>
  <shape type="sphere" id="a">
    <transform name="to_world"><translate x="-1.5" y="1"/></transform>
    <bsdf type="principled"><rgb name="base_color" value="0.2, 0.8, 0.1"/><float name="metallic" value="0.3"/>
      <texture name="anisotropic" type="checkerboard"><float name="color0" value="0.1"/><float name="color1" value="0.6"/></texture>
      <float name="clearcoat" value="0.5"/><float name="sheen" value="0.4"/><float name="specular" value="0.6"/></bsdf>
  </shape>
  <shape type="sphere" id="b">
    <transform name="to_world"><translate y="1"/></transform>
    <bsdf type="normalmap"><texture name="normalmap" type="rawconstant"><vector name="value" value="0.6, 0.5, 0.9"/></texture>
      <bsdf type="roughconductor"><string name="material" value="Al"/><float name="alpha_u" value="0.3"/><float name="alpha_v" value="0.1"/></bsdf></bsdf>
  </shape>
  <shape type="sphere" id="c">
    <transform name="to_world"><translate x="1.5" y="1"/></transform>
    <bsdf type="bumpmap"><float name="scale" value="0.5"/><texture name="heights" type="bitmap"><string name="filename" value="h.exr"/></texture>
      <bsdf type="principledthin"><rgb name="base_color" value="0.7, 0.1, 0.1"/><float name="diff_trans" value="0.6"/><float name="eta" value="1.4"/></bsdf></bsdf>
  </shape>
  <shape type="rectangle" id="pane">
    <transform name="to_world"><translate z="1.5" y="1"/></transform>
    <bsdf type="thindielectric"/>
  </shape>
  <emitter type="spot"><transform name="to_world"><lookat origin="0, 4, 0" target="0, 0, 0" up="1, 0, 0"/></transform>
    <rgb name="intensity" value="30"/><texture name="texture" type="checkerboard"/></emitter>
  <emitter type="constant"><rgb name="radiance" value="0.2"/></emitter>
)"));
  const json doc = {
      {"camera", {{"origin", {0, 1, 6}}, {"target", {0, 1, 5}}, {"up", {0, 1, 0}}, {"fov_y", 40}, {"width", 24}, {"height", 16},
                  {"near_clip", 0.01}, {"far_clip", 1e4}}},
      {"render", {{"spp", 2}, {"max_depth", 3}, {"rr_depth", 4}}},
      {"materials",
       {{"a", {{"type", "principled"}, {"base_color", {0.2, 0.8, 0.1}}, {"metallic", 0.3},
               {"anisotropic", {{"type", "checkerboard"}, {"color0", 0.1}, {"color1", 0.6}}}, {"clearcoat", 0.5}, {"sheen", 0.4}, {"specular", 0.6}}},
        {"b", {{"type", "normalmap"}, {"normalmap", {{"type", "rawconstant"}, {"value", {0.6, 0.5, 0.9}}}},
               {"bsdf", {{"type", "roughconductor"}, {"material", "Al"}, {"alpha_u", 0.3}, {"alpha_v", 0.1}}}}},
        {"c", {{"type", "bumpmap"}, {"scale", 0.5}, {"texture", {{"type", "bitmap"}, {"filename", "h.exr"}}},
               {"bsdf", {{"type", "principledthin"}, {"base_color", {0.7, 0.1, 0.1}}, {"diff_trans", 0.6}, {"eta", 1.4}}}}},
        {"pane", {{"type", "thindielectric"}}}}},
      {"shapes",
       {{{"name", "a"}, {"type", "sphere"}, {"center", {-1.5, 1, 0}}, {"radius", 1}, {"material", "a"}},
        {{"name", "b"}, {"type", "sphere"}, {"center", {0, 1, 0}}, {"radius", 1}, {"material", "b"}},
        {{"name", "c"}, {"type", "sphere"}, {"center", {1.5, 1, 0}}, {"radius", 1}, {"material", "c"}},
        {{"name", "pane"}, {"type", "quad"}, {"corner", {-1, 0, 1.5}}, {"edge_u", {2, 0, 0}}, {"edge_v", {0, 2, 0}}, {"material", "pane"}}}},
      {"lights",
       {{{"name", "light0"}, {"type", "spot"}, {"position", {0, 4, 0}}, {"target", {0, 3, 0}},
         {"up", {1, 0, 0}}, {"intensity", 30}, {"cutoff_angle", 20}, {"beam_width", 15}, {"texture", {{"type", "checkerboard"}}}},
        {{"name", "light1"}, {"type", "environment"}, {"radiance", 0.2}}}}};
  const Scene from_xml = load_scene(xml), from_json = load_scene(doc, (t.dir / "scene.json").string());
  const Image a = render(from_xml);
  CHECK(std::accumulate(a.data.begin(), a.data.end(), 0.0) > 0.0);
  CHECK(a.data == render(from_json).data);
  REQUIRE(from_xml.params.entries().size() == from_json.params.entries().size());
  for (size_t i = 0; i < from_xml.params.entries().size(); ++i)
    CHECK(from_xml.params.entries()[i].name == from_json.params.entries()[i].name);
  std::vector<std::string> warnings;
  CHECK(render(load_scene(read_scene_document(xml, {}, warnings), xml)).data == a.data);
  // blendbsdf: its two BSDFs under Mitsuba's names bsdf_0 and bsdf_1, its weight a texture.
  const Scene blended = load_scene(t.write("blend.xml", scene_xml(R"(
  <shape type="sphere" id="s"><bsdf type="blendbsdf"><texture name="weight" type="checkerboard"/>
    <bsdf type="diffuse"/><bsdf type="conductor"><string name="material" value="Au"/></bsdf></bsdf></shape>
  <emitter type="constant"/>)")));
  CHECK(blended.params.find("materials.s.bsdf_0.reflectance"));
  CHECK(blended.params.find("materials.s.bsdf_1.eta"));
  CHECK(blended.params.find("textures.s.weight.color0"));
  CHECK(load_error(t.write("blend1.xml", scene_xml(R"(<shape type="sphere"><bsdf type="blendbsdf"><float name="weight" value="0.5"/><bsdf type="diffuse"/></bsdf></shape>)")))
            .find("<bsdf type=\"blendbsdf\">: needs two nested bsdfs") != std::string::npos);
}

TEST_CASE("directionalarea: a shape's emitter along its normal, as a material's directional emission", "[mitsuba]") {
  TempDir t("dray-mitsuba-da-");
  const std::string xml = t.write("scene.xml", scene_xml(R"(
  <shape type="rectangle" id="lamp"><emitter type="directionalarea"><rgb name="radiance" value="3"/></emitter></shape>
  <shape type="rectangle" id="plain"><emitter type="area"><rgb name="radiance" value="3"/></emitter></shape>
)"));
  const Scene s = load_scene(xml);
  REQUIRE(s.shapes.size() == 2);
  CHECK(s.materials[s.shapes[0].material].directional);
  CHECK(s.materials[s.shapes[0].material].emissive);
  CHECK_FALSE(s.materials[s.shapes[1].material].directional);
  CHECK(load_error(t.write("bad.xml", scene_xml(R"(<shape type="rectangle"><emitter type="spot"/></shape>)")))
            .find("a shape's emitter must be of type area or directionalarea") != std::string::npos);
}
