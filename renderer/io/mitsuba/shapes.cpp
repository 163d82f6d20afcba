// Mitsuba shapes as the scene document's: merge, shapegroup and instance, and each shape plugin's
// own types (a shape's material, emitter and media with it).
#include <cmath>

#include <glm/geometric.hpp>

#include "renderer/io/mitsuba/converter.h"
#include "renderer/shapes/shape.h"

namespace dray::mitsuba {

void Converter::shape(const pugi::xml_node& n) {
  if (x_.attr(n, "type") == "merge") {
    // Mitsuba's merge joins its shapes into one mesh for speed: the same surfaces, each its own
    // dray shape (named by its own id or place).
    for (pugi::xml_node c : n.children()) {
      if (!element(c)) continue;
      if (tag(c) != "shape") x_.fail(c, "a merge holds shapes only");
      shape(c);
    }
    return;
  }
  if (x_.attr(n, "type") == "shapegroup") {
    shape_group(n);
    return;
  }
  if (x_.attr(n, "type") == "instance") {
    instance(n);
    return;
  }
  const size_t first = shapes_.size();
  shape_objects(n);
  for (size_t i = first; i < shapes_.size(); ++i) locate("/shapes/" + std::to_string(i), n);
}

std::string Converter::shape_group(const pugi::xml_node& n) {
  const std::string name = unique_name(n, "group", shapes_.size());
  const size_t first = shapes_.size();
  std::vector<pugi::xml_node> members;
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    if (tag(c) != "shape") x_.fail(c, "a shapegroup holds shapes only");
    const std::string t = x_.attr(c, "type");
    if (t == "shapegroup" || t == "instance") x_.fail(c, "nested instancing is not supported (nor in Mitsuba)");
    shape_objects(c);
    while (members.size() < shapes_.size() - first) members.push_back(c);
  }
  if (members.empty()) x_.fail(n, "an empty shapegroup");
  json group = {{"name", name}, {"type", "group"}, {"shapes", json::array()}};
  for (size_t k = 0; k < members.size(); ++k) {
    group["shapes"].push_back(shapes_[first + k]);
    where_.insert_or_assign("/shapes/" + std::to_string(first) + "/shapes/" + std::to_string(k), x_.where(members[k]));
  }
  shapes_.erase(shapes_.begin() + long(first), shapes_.end());
  shapes_.push_back(group);
  where_.insert_or_assign("/shapes/" + std::to_string(first), x_.where(n));
  if (n.attribute("id")) groups_[x_.attr(n, "id")] = name;
  return name;
}

void Converter::instance(const pugi::xml_node& n) {
  std::string group;
  glm::dmat4 to_world(1.0);
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    const bool is_group = tag(c) == "ref" || (tag(c) == "shape" && x_.attr(c, "type") == "shapegroup");
    if (is_group && !group.empty()) x_.fail(c, "only a single shapegroup can be specified per instance");
    if (tag(c) == "ref") {
      auto it = groups_.find(x_.attr(c, "id"));
      if (it == groups_.end()) x_.fail(c, "refers to no shapegroup declared before it");
      group = it->second;
    } else if (is_group) {
      group = shape_group(c);
    } else if (tag(c) == "transform") {
      if (x_.attr(c, "name") != "to_world") x_.fail(c, "an instance's transform must be named to_world");
      to_world = x_.transform(c);
    } else {
      x_.fail(c, "an instance takes a shapegroup (a <ref>) and a to_world");
    }
  }
  if (group.empty()) x_.fail(n, "an instance needs a reference to a shapegroup");
  json s = {{"name", unique_name(n, "shape", shapes_.size())}, {"type", "instance"}, {"group", group}};
  if (to_world != glm::dmat4(1.0)) s["transform"] = {{"matrix", matrix(to_world)}};
  shapes_.push_back(s);
  locate("/shapes/" + std::to_string(shapes_.size() - 1), n);
}

Converter::ShapeElements Converter::shape_elements(const pugi::xml_node& n, Properties& props) {
  ShapeElements e;
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    const std::string t = tag(c);
    if (t == "medium" || (t == "ref" && c.attribute("name") && (x_.attr(c, "name") == "interior" || x_.attr(c, "name") == "exterior"))) {
      const std::string side = x_.attr(c, "name");
      if (side != "interior" && side != "exterior") x_.fail(c, "a shape's medium is named interior or exterior");
      put(e.media, side, c, medium(c));
    } else if (t == "transform") {
      if (x_.attr(c, "name") != "to_world") x_.fail(c, "a shape's transform must be named to_world");
      e.to_world = x_.transform(c);
    } else if (t == "bsdf" || (t == "ref" && (!c.attribute("name") ? referred_kind(c) != "emitter" : referred_kind(c) == "bsdf"))) {
      // A bsdf, or a reference to one named or not (Mitsuba's Blender add-on writes <ref name="bsdf" id=…/>).
      if (e.bsdf) x_.fail(c, "a shape has one bsdf");
      e.bsdf = c;
    } else if (t == "sensor") {
      if (e.sensor) x_.fail(c, "a shape carries one sensor");
      e.sensor = c;
    } else if (t == "emitter" || (t == "ref" && referred_kind(c) == "emitter")) {
      // An area emitter inside the shape, or declared at the scene level and referred to.
      const pugi::xml_node emitter = resolve(c, "emitter");
      if (x_.attr(emitter, "type") != "area" && x_.attr(emitter, "type") != "directionalarea")
        x_.fail(c, "a shape's emitter must be of type area or directionalarea");
      if (e.emitter) x_.fail(c, "a shape has one emitter");
      e.emitter = emitter;
    } else {
      props.set(c, property(c));
    }
  }
  return e;
}

void Converter::shape_objects(const pugi::xml_node& n) {
  const std::string type = x_.attr(n, "type"), name = unique_name(n, "shape", shapes_.size());
  const std::optional<MitsubaShape> plugin = mitsuba_shape(type);
  if (!plugin) x_.fail(n, "unsupported shape type (supported: " + mitsuba_shape_names() + ", merge, shapegroup, instance)");
  Properties props(x_, n);
  const ShapeElements e = shape_elements(n, props);
  shape_id_ = n.attribute("id") ? x_.attr(n, "id") : "";
  const std::string material = shape_material(name, e.bsdf, e.emitter);
  const bool flip = props.flag("flip_normals", false);
  if (flip && !plugin->flips) x_.fail(n, "flip_normals is not supported on " + type + " shapes yet");
  json s = {{"name", name}, {"type", std::string(plugin->dray_type)}, {"material", material}};
  if (flip) s["flip_normals"] = true;
  glm::dmat4 to_world = e.to_world;
  switch (plugin->placing) {
    case MitsubaPlacing::mesh_file: mesh_file_keys(n, type, props, s); break;
    case MitsubaPlacing::unit_mesh: break;
    case MitsubaPlacing::axis: to_world = to_world * cylinder_frame(n, props); break;
    case MitsubaPlacing::ball: s = ball(n, props, to_world, s); break;
    case MitsubaPlacing::quad: s = quad(name, material, to_world, glm::dvec3(0.0), {1, 0, 0}, {0, 1, 0}, flip); break;
    case MitsubaPlacing::grid_file: grid_file_keys(n, e, props, s); break;
    case MitsubaPlacing::curve_file: curve_file_keys(n, props, s); break;
  }
  const bool own_placing = plugin->placing == MitsubaPlacing::ball || plugin->placing == MitsubaPlacing::quad;
  if (!own_placing && to_world != glm::dmat4(1.0)) s["transform"] = {{"matrix", matrix(to_world)}};
  s.update(e.media);
  shapes_.push_back(s);
  if (!shape_id_.empty()) {
    mitsuba_id("shapes." + name, shape_id_);
    for (const auto& [side, medium_name] : e.media.items())
      mitsuba_id("media." + medium_name.get<std::string>(), shape_id_ + "." + side + "_medium");
  }
  props.finish("a " + type);
  if (e.sensor) sensor(e.sensor, name);
}

json Converter::shape_file(const pugi::xml_node& n, Properties& props, const char* why) {
  const json file = props.take("filename", "");
  if (!file.is_string() || file.get<std::string>().empty()) x_.fail(n, std::string("needs a filename") + why);
  return file_ref(n, file);
}

void Converter::mesh_file_keys(const pugi::xml_node& n, const std::string& type, Properties& props, json& s) {
  s["file"] = shape_file(n, props, "");
  if (props.flag("face_normals", false)) s["face_normals"] = true;
  if (type == "obj" && !props.flag("flip_tex_coords", true)) s["flip_tex_coords"] = false;
  if (type == "serialized") {
    const json index = props.take("shape_index", 0);
    if (!index.is_number_integer()) x_.fail(n, "shape_index must be an integer");
    if (index.get<long>() != 0) s["shape_index"] = index;
  }
}

glm::dmat4 Converter::cylinder_frame(const pugi::xml_node& n, Properties& props) {
  const glm::dvec3 p0 = props.point("p0", glm::dvec3(0.0)), p1 = props.point("p1", glm::dvec3(0, 0, 1));
  const double r = props.number("radius", 1.0), length = glm::length(p1 - p0);
  if (!(r > 0) || !(length > 0)) x_.fail(n, "a cylinder needs a radius > 0 and p0 != p1");
  // Mitsuba's frame about the axis (Duff et al.'s basis, which places u = 0) scaled to the radius
  // and length, from p0: dray's unit cylinder (docs/scene-format.md) placed by it.
  const glm::dvec3 d = (p1 - p0) / length;
  const double sign = std::copysign(1.0, d.z), a = -1.0 / (sign + d.z), b = d.x * d.y * a;
  const glm::dvec3 s_axis(1 + sign * d.x * d.x * a, sign * b, -sign * d.x), t_axis(b, sign + d.y * d.y * a, -d.y);
  return glm::dmat4(glm::dvec4(s_axis * r, 0), glm::dvec4(t_axis * r, 0), glm::dvec4(d * length, 0), glm::dvec4(p0, 1));
}

json Converter::ball(const pugi::xml_node& n, Properties& props, const glm::dmat4& to_world, json s) {
  const glm::dvec3 c = props.point("center", glm::dvec3(0.0));
  const double r = props.number("radius", 1.0);
  const glm::dvec3 c0(to_world[0]), c1(to_world[1]), c2(to_world[2]);
  const double scale = glm::length(c0), tol = 1e-6 * scale;
  if (std::fabs(glm::length(c1) - scale) > tol || std::fabs(glm::length(c2) - scale) > tol || std::fabs(glm::dot(c0, c1)) > tol * scale ||
      std::fabs(glm::dot(c0, c2)) > tol * scale || std::fabs(glm::dot(c1, c2)) > tol * scale)
    x_.fail(n, "a sphere's to_world must keep it a sphere (rotation, uniform scale, translation)");
  s["center"] = vec(apply(to_world, c, 1.0));
  s["radius"] = r * scale;
  // Its frame (Mitsuba's UV: φ about the local z) when to_world turns it.
  const glm::dmat3 turn = glm::dmat3(to_world) / scale;
  if (turn != glm::dmat3(1.0))
    s["rotation"] = {turn[0][0], turn[1][0], turn[2][0], turn[0][1], turn[1][1], turn[2][1], turn[0][2], turn[1][2], turn[2][2]};
  return s;
}

void Converter::grid_file_keys(const pugi::xml_node& n, const ShapeElements& e, Properties& props, json& s) {
  if (e.emitter) x_.fail(e.emitter, "an sdfgrid cannot be an area emitter (as in Mitsuba)");
  s["file"] = shape_file(n, props, " (a grid tensor is Python-only in Mitsuba)");
  const json normals = props.take("normals", "smooth");
  if (normals != "smooth") s["normals"] = normals;
}

void Converter::curve_file_keys(const pugi::xml_node& n, Properties& props, json& s) {
  s["file"] = shape_file(n, props, "");
  props.take("silhouette_sampling_weight", 1.0);  // dray samples silhouettes by length
}

}  // namespace dray::mitsuba
