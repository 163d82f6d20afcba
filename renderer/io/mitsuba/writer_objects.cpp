// The XML writer's scene objects: integrator, sensors (film, filter, sampler), shapes with their
// emitters, and lights, each as the converter (renderer/io/mitsuba/) reads it back.
#include <set>

#include <glm/geometric.hpp>

#include "renderer/io/mitsuba/writer.h"
#include "renderer/core/registry.h"
#include "renderer/emitters/light.h"
#include "renderer/sensors/camera.h"

namespace dray::mitsuba {

using nlohmann::json;

namespace {

// j[key], or the fallback (a copy: fallbacks are temporaries).
json at(const json& j, const char* key, const json& fallback) { return j.contains(key) ? j[key] : fallback; }

}  // namespace

void Writer::integrator(pugi::xml_node scene) {
  const json r = at(doc_, "render", json::object());
  for (const char* key : {"aovs"})
    if (r.contains(key)) fail(std::string("/render/") + key, "is not written to XML yet");
  for (const char* key : {"boundary_samples", "boundary_ratio", "indirect_samples", "primary_visibility", "shadow_visibility", "majorant_cells"})
    if (r.contains(key)) warnings_.push_back(std::string("/render/") + key + ": dray's own setting, not written (Mitsuba has none)");
  const std::string type = at(r, "integrator", "path").get<std::string>();
  pugi::xml_node n = add(scene, "integrator");
  attr(n, "type", type);
  // Mitsuba counts path vertices, dray bounces (max_depth 1024: unlimited).
  const long depth = at(r, "max_depth", 6).get<long>(), rr = at(r, "rr_depth", 3).get<long>();
  typed(n, "integer", "max_depth", std::to_string(depth < 0 || depth >= 1024 ? -1 : depth + 1));
  typed(n, "integer", "rr_depth", std::to_string(rr + 1));
  if (r.contains("hide_emitters")) typed(n, "boolean", "hide_emitters", r["hide_emitters"].get<bool>() ? "true" : "false");
}

void Writer::sensor(pugi::xml_node scene, const json& cam, const std::string& path, bool named) {
  const std::string type = at(cam, "type", "perspective").get<std::string>();
  if (type == "irradiancemeter")
    fail(path + "/type", "an irradiancemeter is not written yet (Mitsuba nests it in the shape it measures over)");
  pugi::xml_node n = add(scene, "sensor");
  attr(n, "type", type);
  if (named) attr(n, "id", unique_id(at(cam, "name", path == "/camera/0" ? "camera" : "sensor" + path.substr(8)).get<std::string>(), "sensor", path));
  const int width = at(cam, "width", 320).get<int>(), height = at(cam, "height", 240).get<int>();
  bool has_fov = false;
  if (!with_plugin<SensorModel>(type, [&](const auto& s) { has_fov = s.kFieldOfView; }))
    fail(path + "/type", "unknown camera type \"" + type + "\"");
  if (has_fov) {
    typed(n, "float", "fov", num(at(cam, "fov_y", 40.0).get<double>()));
    typed(n, "string", "fov_axis", "y");
  }
  if (cam.contains("principal_point_offset")) {
    typed(n, "float", "principal_point_offset_x", num(cam["principal_point_offset"][0].get<double>()));
    typed(n, "float", "principal_point_offset_y", num(cam["principal_point_offset"][1].get<double>()));
  }
  // The plugin's own numbers under their keys (the orthographic film's extent is to_world's scale).
  for (const auto& [key, v] : cam.items())
    if (v.is_number() && key != "fov_y" && key != "half_width" && key != "half_height" && key != "near_clip" &&
        key != "far_clip" && key != "width" && key != "height")
      typed(n, "float", key, num(v.get<double>()));
  // dray's clip planes default to 0 and ∞, which Mitsuba cannot say (its near clip is > 0).
  if (!cam.contains("near_clip") || !cam.contains("far_clip") || !(cam["near_clip"].get<double>() > 0))
    warnings_.push_back(path + ": dray's clip planes 0 and infinity have no Mitsuba form (its near clip is > 0): "
                               "Mitsuba's defaults 0.01 and 10^4 stand where the camera gives none");
  if (cam.contains("near_clip") && cam["near_clip"].get<double>() > 0) typed(n, "float", "near_clip", num(cam["near_clip"].get<double>()));
  if (cam.contains("far_clip")) typed(n, "float", "far_clip", num(cam["far_clip"].get<double>()));
  // The film's [-1, 1] × [-1/aspect, 1/aspect] under to_world's scale: an orthographic camera's
  // half extents.
  pugi::xml_node tr = add(n, "transform", "to_world");
  if (type == "orthographic") {
    const double hw = at(cam, "half_width", 1.0).get<double>();
    const double hh = cam.contains("half_height") ? cam["half_height"].get<double>() * width / height : hw;
    xyz(tr, "scale", "", {hw, hh, 1.0});
  }
  const json origin = at(cam, "origin", json{0, 0, 0});
  const glm::dvec3 o = float_triple(origin);
  lookat(tr, origin, at(cam, "target", json{o.x, o.y, o.z + 1}), at(cam, "up", json{0, 1, 0}));
  if (cam.contains("target_point")) xyz(n, "point", "target", float_triple(cam["target_point"]));
  film(n, width, height);
  if (cam.contains("medium")) medium_ref(n, "", cam["medium"], path + "/medium");
}

void Writer::film(pugi::xml_node sensor, int width, int height) {
  const json r = at(doc_, "render", json::object());
  pugi::xml_node f = add(sensor, "film");
  attr(f, "type", "hdrfilm");
  typed(f, "integer", "width", std::to_string(width));
  typed(f, "integer", "height", std::to_string(height));
  if (r.contains("crop")) {
    const json& c = r["crop"];
    const long x0 = c[0].get<long>(), y0 = c[1].get<long>();
    typed(f, "integer", "crop_offset_x", std::to_string(x0));
    typed(f, "integer", "crop_offset_y", std::to_string(y0));
    typed(f, "integer", "crop_width", std::to_string(c[2].get<long>() - x0));
    typed(f, "integer", "crop_height", std::to_string(c[3].get<long>() - y0));
  }
  if (r.contains("pixel_format")) typed(f, "string", "pixel_format", r["pixel_format"].get<std::string>());
  if (r.contains("sample_border")) typed(f, "boolean", "sample_border", r["sample_border"].get<bool>() ? "true" : "false");
  const json filter = at(r, "filter", "box");  // dray's default; Mitsuba's is the Gaussian
  pugi::xml_node rf = add(f, "rfilter");
  attr(rf, "type", filter.is_string() ? filter.get<std::string>() : filter["type"].get<std::string>());
  for (const char* key : {"radius", "stddev", "B", "C"})
    if (filter.is_object() && filter.contains(key)) typed(rf, "float", key, num(filter[key].get<double>()));
  if (filter.is_object() && filter.contains("lobes")) typed(rf, "integer", "lobes", std::to_string(filter["lobes"].get<long>()));
  pugi::xml_node s = add(sensor, "sampler");
  const json sampler = at(r, "sampler", "independent");
  attr(s, "type", sampler.is_string() ? sampler.get<std::string>() : sampler["type"].get<std::string>());
  if (sampler.is_object() && sampler.contains("jitter")) typed(s, "boolean", "jitter", sampler["jitter"].get<bool>() ? "true" : "false");
  typed(s, "integer", "sample_count", std::to_string(at(r, "spp", 16).get<long>()));
  typed(s, "integer", "seed", std::to_string(at(r, "seed", 0).get<long>()));
}

void Writer::shape(pugi::xml_node parent, const json& s, const std::string& path) {
  const std::string type = s["type"].get<std::string>();
  // Mitsuba displaces a mesh in Python (its caustics tutorial), not in a scene file.
  if (s.contains("displacement")) fail(path + "/displacement", "a mesh's displacement has no Mitsuba XML form");
  pugi::xml_node n = add(parent, "shape");
  const std::string id = s.contains("name") ? unique_id(s["name"].get<std::string>(), "shape", path) : "";
  if (type == "group") group_ids_[s["name"].get<std::string>()] = id;
  if (type == "sphere") {
    attr(n, "type", "sphere");
    xyz(n, "point", "center", float_triple(at(s, "center", json{0, 0, 0})));
    typed(n, "float", "radius", num(at(s, "radius", 1.0).get<double>()));
  } else if (type == "quad") {
    // Mitsuba's rectangle [-1, 1]² under a matrix whose columns are half the edges, their normal
    // and the centre: the converter's corner (centre - both halves) and edges (twice the halves)
    // are then the quad's floats exactly.
    attr(n, "type", "rectangle");
    const glm::dvec3 c = float_triple(at(s, "corner", json{-1, -1, 0})), u = float_triple(at(s, "edge_u", json{2, 0, 0})) * 0.5,
                     v = float_triple(at(s, "edge_v", json{0, 2, 0})) * 0.5, w = glm::normalize(glm::cross(u, v)), o = c + u + v;
    const json m = {u.x, v.x, w.x, o.x, u.y, v.y, w.y, o.y, u.z, v.z, w.z, o.z, 0, 0, 0, 1};
    typed(add(n, "transform", "to_world"), "matrix", "", nums(m));
  } else if (type == "mesh") {
    const std::string file = s["file"].get<std::string>();
    const std::string ext = file.size() > 4 ? file.substr(file.rfind('.') + 1) : "";
    if (ext != "obj" && ext != "ply" && ext != "serialized") fail(path + "/file", "Mitsuba reads obj, ply and serialized meshes, not ." + ext);
    if (!s.contains("material")) {  // its OBJ file's materials: a PLY file per material
      parent.remove_child(n);
      return obj_parts(parent, s, path, s.value("name", "shape" + path.substr(path.rfind('/') + 1)));
    }
    attr(n, "type", ext);
    typed(n, "string", "filename", file);
    for (const char* key : {"face_normals", "flip_tex_coords"})
      if (s.contains(key)) typed(n, "boolean", key, s[key].get<bool>() ? "true" : "false");
    if (s.contains("shape_index")) typed(n, "integer", "shape_index", std::to_string(s["shape_index"].get<long>()));
  } else if (type == "sdfgrid") {
    attr(n, "type", "sdfgrid");
    typed(n, "string", "filename", s["file"].get<std::string>());
    if (s.contains("normals")) typed(n, "string", "normals", s["normals"].get<std::string>());
  } else if (type == "linearcurve" || type == "bsplinecurve") {
    attr(n, "type", type);
    typed(n, "string", "filename", s["file"].get<std::string>());
    // Mitsuba's to_world moves the control points only, as dray's transform.matrix does; dray's
    // scale, rotate and translate move the whole tube (radii too), which no Mitsuba key does.
    if (s.contains("transform"))
      for (auto it = s["transform"].begin(); it != s["transform"].end(); ++it)
        if (it.key() != "matrix") fail(path + "/transform/" + it.key(), "a curve's Mitsuba to_world moves its control points, not its radii: give the transform as a matrix");
  } else if (type == "disk" || type == "cylinder" || type == "cube") {
    attr(n, "type", type);
    if (s.contains("flip_normals")) typed(n, "boolean", "flip_normals", s["flip_normals"].get<bool>() ? "true" : "false");
  } else if (type == "group") {
    attr(n, "type", "shapegroup");
    attr(n, "id", id);
    for (size_t i = 0; i < s["shapes"].size(); ++i) shape(n, s["shapes"][i], path + "/shapes/" + std::to_string(i));
    return;
  } else if (type == "instance") {
    attr(n, "type", "instance");
    attr(add(n, "ref"), "id", group_ids_.at(s["group"].get<std::string>()));
  } else {
    fail(path + "/type", "\"" + type + "\" has no Mitsuba XML form");
  }
  if (!id.empty()) attr(n, "id", id);  // after its type
  if (s.contains("transform")) transform(n, s["transform"], path + "/transform");
  for (const char* side : {"interior", "exterior"})
    if (s.contains(side)) medium_ref(n, side, s[side], path + "/" + side);
  if (s.contains("material")) emitter(n, s["material"].get<std::string>(), path + "/material");
}

// A shape's material: a reference to its bsdf; an emissive one's bsdf inside the shape, beside
// its emission as the shape's emitter (the converter names such a material after its shape).
void Writer::emitter(pugi::xml_node shape, const std::string& material, const std::string& path) {
  const json& m = doc_["materials"][material];
  if (!inline_materials_.count(material)) {
    attr(add(shape, "ref"), "id", material_ids_.at(material));
    return;
  }
  bsdf(shape, as_mitsuba_sided(m), "/materials/" + material);
  if (!m.contains("emission")) return;
  if (m.contains("two_sided") && m["two_sided"].get<bool>())
    fail("/materials/" + material + "/two_sided", "Mitsuba's area emitters emit from the front only");
  pugi::xml_node e = add(shape, "emitter");
  attr(e, "type", m.contains("directional") && m["directional"].get<bool>() ? "directionalarea" : "area");
  value(e, "radiance", m["emission"], path);
}

void Writer::light(pugi::xml_node scene, const json& l, const std::string& path) {
  const std::string type = l["type"].get<std::string>();
  EmitterWorld world = EmitterWorld::none;
  std::string mitsuba_type;  // the plugin's first name is Mitsuba's
  if (!with_plugin<EmitterModel>(type, [&](const auto& e) {
        world = e.kWorld;
        mitsuba_type = e.kPlugins[0];
      }))
    fail(path + "/type", "\"" + type + "\" has no Mitsuba XML form");
  pugi::xml_node n = add(scene, "emitter");
  attr(n, "type", mitsuba_type);
  // Where it is: the keys of its to_world (emitter_sample.h's EmitterWorld), as dray defaults them.
  const json pos = at(l, "position", json{0, 0, 0});
  const glm::dvec3 p = float_triple(pos);
  if (world == EmitterWorld::position) xyz(n, "point", "position", p);
  if (world == EmitterWorld::direction) xyz(n, "vector", "direction", float_triple(at(l, "direction", json{0, 0, 1})));
  if (world == EmitterWorld::lookat)
    lookat(add(n, "transform", "to_world"), pos, at(l, "target", json{p.x, p.y, p.z + 1}), at(l, "up", json{0, 1, 0}));
  if (world == EmitterWorld::rotation && (l.contains("rotate_y") || l.contains("matrix"))) {
    pugi::xml_node tr = add(n, "transform", "to_world");
    if (l.contains("matrix")) typed(tr, "matrix", "", nums(l["matrix"]));
    if (l.contains("rotate_y")) {
      pugi::xml_node r = add(tr, "rotate");
      attr(r, "y", "1");
      attr(r, "angle", num(l["rotate_y"].get<double>()));
    }
  }
  // Its own properties.
  static const std::set<std::string> kPlace = {"name", "type", "position", "target", "up", "direction", "matrix", "rotate_y"};
  for (auto it = l.begin(); it != l.end(); ++it) {
    const std::string key = it.key();
    if (kPlace.count(key)) continue;
    if (key == "width" || key == "height" || key == "value")
      fail(path, "a constant environment image (width, height, value) has no Mitsuba form: give a filename");
    value(n, key, it.value(), path + "/" + key);
  }
  if (l.contains("name")) attr(n, "id", unique_id(l["name"].get<std::string>(), "emitter", path));
}

}  // namespace dray::mitsuba
