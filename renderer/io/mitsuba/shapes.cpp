// Mitsuba shapes as the scene document's: merge, shapegroup and instance, and each shape plugin's
// own types (a shape's material, emitter and media with it).
#include <cmath>

#include <glm/geometric.hpp>

#include "renderer/io/mitsuba/converter.h"

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

void Converter::shape_objects(const pugi::xml_node& n) {
  const std::string type = x_.attr(n, "type"), name = unique_name(n, "shape", shapes_.size());
  const size_t first = shapes_.size();
  glm::dmat4 to_world(1.0);
  Properties props(x_, n);
  pugi::xml_node bsdf_node, emitter_node;
  json media = json::object();  // interior, exterior
  for (pugi::xml_node c : n.children()) {
    if (!element(c)) continue;
    const std::string t = tag(c);
    if (t == "medium" || (t == "ref" && c.attribute("name") && (x_.attr(c, "name") == "interior" || x_.attr(c, "name") == "exterior"))) {
      const std::string side = x_.attr(c, "name");
      if (side != "interior" && side != "exterior") x_.fail(c, "a shape's medium is named interior or exterior");
      put(media, side, c, medium(c));
    } else if (t == "transform") {
      if (x_.attr(c, "name") != "to_world") x_.fail(c, "a shape's transform must be named to_world");
      to_world = x_.transform(c);
    } else if (t == "bsdf" || (t == "ref" && (!c.attribute("name") ? referred_kind(c) != "emitter" : referred_kind(c) == "bsdf"))) {
      // A bsdf, or a reference to one named or not (Mitsuba's Blender add-on writes <ref name="bsdf" id=…/>).
      if (bsdf_node) x_.fail(c, "a shape has one bsdf");
      bsdf_node = c;
    } else if (t == "emitter" || (t == "ref" && referred_kind(c) == "emitter")) {
      // An area emitter inside the shape, or declared at the scene level and referred to.
      const pugi::xml_node e = resolve(c, "emitter");
      if (x_.attr(e, "type") != "area" && x_.attr(e, "type") != "directionalarea")
        x_.fail(c, "a shape's emitter must be of type area or directionalarea");
      if (emitter_node) x_.fail(c, "a shape has one emitter");
      emitter_node = e;
    } else {
      props.set(c, property(c));
    }
  }
  shape_id_ = n.attribute("id") ? x_.attr(n, "id") : "";
  const std::string material = shape_material(name, bsdf_node, emitter_node);
  const bool flip = props.flag("flip_normals", false);
  if (type == "obj" || type == "ply" || type == "serialized") {
    const json file = props.take("filename", "");
    if (!file.is_string() || file.get<std::string>().empty()) x_.fail(n, "needs a filename");
    json s = {{"name", name}, {"type", "mesh"}, {"file", file_ref(n, file)}, {"material", material}};
    if (props.flag("face_normals", false)) s["face_normals"] = true;
    if (type == "obj" && !props.flag("flip_tex_coords", true)) s["flip_tex_coords"] = false;
    if (type == "serialized") {
      const json index = props.take("shape_index", 0);
      if (!index.is_number_integer()) x_.fail(n, "shape_index must be an integer");
      if (index.get<long>() != 0) s["shape_index"] = index;
    }
    if (flip) x_.fail(n, "flip_normals is not supported on meshes yet");
    if (to_world != glm::dmat4(1.0)) s["transform"] = {{"matrix", matrix(to_world)}};
    shapes_.push_back(s);
  } else if (type == "disk") {  // dray's disk: a mesh of the unit disk (docs/scene-format.md)
    json s = {{"name", name}, {"type", "disk"}, {"material", material}};
    if (flip) s["flip_normals"] = true;
    if (to_world != glm::dmat4(1.0)) s["transform"] = {{"matrix", matrix(to_world)}};
    shapes_.push_back(s);
  } else if (type == "cylinder") {  // dray's cylinder: a mesh of the unit cylinder (docs/scene-format.md)
    const glm::dvec3 p0 = props.point("p0", glm::dvec3(0.0)), p1 = props.point("p1", glm::dvec3(0, 0, 1));
    const double r = props.number("radius", 1.0), length = glm::length(p1 - p0);
    if (!(r > 0) || !(length > 0)) x_.fail(n, "a cylinder needs a radius > 0 and p0 != p1");
    // Mitsuba's frame about the axis (Duff et al.'s basis, which places u = 0) scaled to the radius
    // and length, from p0.
    const glm::dvec3 d = (p1 - p0) / length;
    const double sign = std::copysign(1.0, d.z), a = -1.0 / (sign + d.z), b = d.x * d.y * a;
    const glm::dvec3 s_axis(1 + sign * d.x * d.x * a, sign * b, -sign * d.x), t_axis(b, sign + d.y * d.y * a, -d.y);
    const glm::dmat4 local(glm::dvec4(s_axis * r, 0), glm::dvec4(t_axis * r, 0), glm::dvec4(d * length, 0), glm::dvec4(p0, 1));
    json s = {{"name", name}, {"type", "cylinder"}, {"material", material}};
    if (flip) s["flip_normals"] = true;
    if (to_world * local != glm::dmat4(1.0)) s["transform"] = {{"matrix", matrix(to_world * local)}};
    shapes_.push_back(s);
  } else if (type == "sphere") {
    const glm::dvec3 c = props.point("center", glm::dvec3(0.0));
    const double r = props.number("radius", 1.0);
    const glm::dvec3 c0(to_world[0]), c1(to_world[1]), c2(to_world[2]);
    const double s = glm::length(c0), tol = 1e-6 * s;
    if (std::fabs(glm::length(c1) - s) > tol || std::fabs(glm::length(c2) - s) > tol || std::fabs(glm::dot(c0, c1)) > tol * s ||
        std::fabs(glm::dot(c0, c2)) > tol * s || std::fabs(glm::dot(c1, c2)) > tol * s)
      x_.fail(n, "a sphere's to_world must keep it a sphere (rotation, uniform scale, translation)");
    if (flip) x_.fail(n, "flip_normals is not supported on spheres");
    json sphere = {{"name", name}, {"type", "sphere"}, {"center", vec(apply(to_world, c, 1.0))}, {"radius", r * s}, {"material", material}};
    // Its frame (Mitsuba's UV: φ about the local z) when to_world turns it.
    const glm::dmat3 turn = glm::dmat3(to_world) / s;
    if (turn != glm::dmat3(1.0))
      sphere["rotation"] = {turn[0][0], turn[1][0], turn[2][0], turn[0][1], turn[1][1], turn[2][1], turn[0][2], turn[1][2], turn[2][2]};
    shapes_.push_back(sphere);
  } else if (type == "sdfgrid") {
    if (emitter_node) x_.fail(emitter_node, "an sdfgrid cannot be an area emitter (as in Mitsuba)");
    const json file = props.take("filename", "");
    if (!file.is_string() || file.get<std::string>().empty()) x_.fail(n, "needs a filename (a grid tensor is Python-only in Mitsuba)");
    json s = {{"name", name}, {"type", "sdfgrid"}, {"file", file_ref(n, file)}, {"material", material}};
    const json normals = props.take("normals", "smooth");
    if (normals != "smooth") s["normals"] = normals;
    if (flip) x_.fail(n, "flip_normals is not supported on sdfgrids");
    if (to_world != glm::dmat4(1.0)) s["transform"] = {{"matrix", matrix(to_world)}};
    shapes_.push_back(s);
  } else if (type == "linearcurve" || type == "bsplinecurve") {
    // dray's curves: meshes over Mitsuba's tubes (docs/scene-format.md); to_world moves the
    // control points and never their radii.
    const json file = props.take("filename", "");
    if (!file.is_string() || file.get<std::string>().empty()) x_.fail(n, "needs a filename");
    props.take("silhouette_sampling_weight", 1.0);  // dray samples silhouettes by length
    if (flip) x_.fail(n, "flip_normals is not supported on curves");
    json s = {{"name", name}, {"type", type}, {"file", file_ref(n, file)}, {"material", material}};
    if (to_world != glm::dmat4(1.0)) s["transform"] = {{"matrix", matrix(to_world)}};
    shapes_.push_back(s);
  } else if (type == "rectangle") {
    shapes_.push_back(quad(name, material, to_world, glm::dvec3(0.0), {1, 0, 0}, {0, 1, 0}, flip));
  } else if (type == "cube") {
    if (flip) x_.fail(n, "flip_normals is not supported on cubes");
    // dray's cube: Mitsuba's mesh (its corners, sides, UVs and flat normals), closed.
    json s = {{"name", name}, {"type", "cube"}, {"material", material}};
    if (to_world != glm::dmat4(1.0)) s["transform"] = {{"matrix", matrix(to_world)}};
    shapes_.push_back(s);
  } else {
    x_.fail(n, "unsupported shape type (supported: obj, ply, serialized, sphere, rectangle, cube, disk, cylinder, linearcurve, bsplinecurve, sdfgrid, merge, shapegroup, instance)");
  }
  for (size_t i = first; i < shapes_.size(); ++i) {
    shapes_[i].update(media);
    if (!shape_id_.empty()) mitsuba_id("shapes." + shapes_[i]["name"].get<std::string>(), shape_id_);
  }
  if (!shape_id_.empty())
    for (const auto& [side, medium_name] : media.items())
      mitsuba_id("media." + medium_name.get<std::string>(), shape_id_ + "." + side + "_medium");
  props.finish("a " + type);
}

}  // namespace dray::mitsuba
