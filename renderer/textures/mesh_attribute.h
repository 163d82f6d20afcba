#pragma once
// Mitsuba 3's `mesh_attribute`: a mesh's vertex_* or face_* attribute (a PLY file's) at the point,
// times `scale`; a shape without it reads 0 (the loader refuses one no mesh of the scene holds). A colour read gives a 3-value attribute, or a 1-value
// one in all channels; a scalar read (eval_1) a 1-value one, the value itself; anything else 0.
// Vertex values blend by the barycentrics (moving with the point where it moves). The values are
// the mesh's parameter block shapes.NAME.ATTRIBUTE.
#include <string_view>

#include "renderer/textures/texture_props.h"

namespace dray {

struct MeshAttributeTexture {
  static constexpr std::string_view kPlugins[] = {"mesh_attribute"};
  static MeshAttributeTexture read(TextureProps& p) {
    p.keys({"name", "scale"}, {"name"});
    const std::string attr = p.string("name");
    if (attr.rfind("vertex_", 0) != 0 && attr.rfind("face_", 0) != 0)
      p.fail("name", "must start with \"vertex_\" or \"face_\", got \"" + attr + "\"");
    return {p.attribute_id(attr), p.has("scale") ? float(p.number("scale")) : 1.f};
  }

  int attribute = -1;       // index into Scene::attribute_names
  float value_scale = 1.f;  // `scale`, a factor on the value

  template <class T>
  Vec3<T> eval(const ParamView<T>& P, const TexCoord<T>& c, bool scalar) const {
    const AttributeSite& s = c.site;
    for (size_t k = 0; k < s.count; ++k) {
      const MeshAttribute& a = s.attributes[k];
      if (a.id != attribute) continue;
      if (a.dim != 1 && (a.dim != 3 || scalar)) break;
      auto at = [&](uint32_t row) {
        const Slot first = a.data + Slot(size_t(row) * size_t(a.dim));
        return a.dim == 1 ? Vec3<T>(P.scalar(first)) : P.vec3(first);
      };
      Vec3<T> out;
      if (a.face) out = at(s.face);
      else if (c.moving) out = at(s.v[0]) * (T(1.f) - c.b1 - c.b2) + at(s.v[1]) * c.b1 + at(s.v[2]) * c.b2;
      else out = at(s.v[0]) * T(1.f - s.b.x - s.b.y) + at(s.v[1]) * T(s.b.x) + at(s.v[2]) * T(s.b.y);
      return out * T(value_scale);
    }
    return Vec3<T>(T(0.f));
  }
  template <class T>
  T eval_1(const ParamView<T>& P, const TexCoord<T>& c) const {
    return eval(P, c, true).x;
  }
  bool seeded(const auto&) const { return false; }  // the mesh's block: a shape's parameter
};

}  // namespace dray
