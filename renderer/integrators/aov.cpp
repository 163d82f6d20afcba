#include "renderer/integrators/aov.h"

#include <stdexcept>

#include "renderer/bsdfs/albedo.h"
#include "renderer/integrators/pixel_estimate.h"
#include "renderer/integrators/shading_frame.h"

namespace dray {

namespace {

// A camera ray and its differentials (Mitsuba's RayDifferential): the rays through the next pixel
// right (x) and down (y), scaled by 1 / sqrt(spp) toward the ray as Mitsuba's sampling integrators
// scale them (sample_ray_differential, scale_differential).
struct CameraRays {
  RayT<float> ray;
  glm::vec3 o_x, d_x, o_y, d_y;
};

CameraRays camera_rays(const CameraFrame<float>& f, const FilmSample& s, int spp) {
  CameraRays r;
  r.ray = camera_ray(f, s);
  const glm::vec3 o = to_glm(r.ray.o), d = to_glm(r.ray.d);
  const float k = 1.f / std::sqrt(float(spp));
  auto offset = [&](float dx, float dy, glm::vec3& ox, glm::vec3& dd) {
    const RayT<float> n = camera_ray(f, FilmSample{s.x + dx, s.y + dy, s.lens});
    // A pinhole's differentials leave from the ray's own origin (Mitsuba's o_x = o).
    ox = o + ((pinhole_differentials(f.model) ? o : to_glm(n.o)) - o) * k;
    dd = d + (to_glm(n.d) - d) * k;
  };
  offset(1.f, 0.f, r.o_x, r.d_x);
  offset(0.f, 1.f, r.o_y, r.d_y);
  return r;
}

// dp/du and dp/dv as Mitsuba's surface interactions give them: surface_derivatives's, but a mesh
// face without texture coordinates has its edges (its barycentric parameterization) and an
// sdfgrid none.
void mitsuba_partials(const Scene& scene, uint32_t prim, const PrimT<float>& pt, const SurfacePoint<float>& sp,
                      glm::vec3& dp_du, glm::vec3& dp_dv) {
  dp_du = dp_dv = glm::vec3(0.f);
  const PrimRef ref = scene.bvh.prim_ref(prim);
  const Shape& s = scene.shapes[ref.shape];
  if (s.is<SdfGridShape>()) return;
  if (s.is<MeshShape>() && !s.as<MeshShape>().face_uvs(scene, ref.index)) {
    dp_du = to_glm(pt.b);
    dp_dv = to_glm(pt.c);
    return;
  }
  Vec3<float> u, v;
  surface_derivatives(scene, prim, pt, sp.p, sp.n, u, v);
  dp_du = to_glm(u);
  dp_dv = to_glm(v);
}

// Mitsuba's compute_uv_partials: the differential rays met on the hit's tangent plane, their
// offsets from p turned into UV by least squares over dp/du and dp/dv (0 where those vanish).
void uv_partials(const CameraRays& r, const glm::vec3& p, const glm::vec3& n, const glm::vec3& dp_du, const glm::vec3& dp_dv,
                 glm::vec2& duv_dx, glm::vec2& duv_dy) {
  const float a00 = glm::dot(dp_du, dp_du), a01 = glm::dot(dp_du, dp_dv), a11 = glm::dot(dp_dv, dp_dv);
  float inv_det = 1.f / (a00 * a11 - a01 * a01);
  if (!std::isfinite(inv_det)) inv_det = 0.f;
  auto partial = [&](const glm::vec3& o, const glm::vec3& d) {
    const float t = (glm::dot(n, p) - glm::dot(n, o)) / glm::dot(n, d);
    const glm::vec3 dp = o + d * t - p;
    const float b0 = glm::dot(dp_du, dp), b1 = glm::dot(dp_dv, dp);
    return glm::vec2(a11 * b0 - a01 * b1, a00 * b1 - a01 * b0) * inv_det;
  };
  duv_dx = partial(r.o_x, r.d_x);
  duv_dy = partial(r.o_y, r.d_y);
}

// The albedo (Mitsuba's eval_diffuse_reflectance) of the side of the hit's material the ray sees.
glm::vec3 albedo_at(const Scene& scene, uint32_t prim, const PrimT<float>& pt, const SurfacePoint<float>& sp, const glm::vec3& d) {
  const ParamView<float> P(scene.params);
  const Material& mat = scene.materials[scene.material_of(prim)];
  const bool back = glm::dot(to_glm(sp.n), d) > 0.f;
  const Bsdf& bsdf = scene.bsdfs[back ? mat.back : mat.front];
  const TexCoord<float> coord = surface_coord(scene, prim, pt, sp.p);
  const Inputs<float> in(P, scene.textures.data(), coord);
  const ShadingFrame<float> shading = shading_frame(scene, P, mat, prim, pt, sp, shading_normal(scene, P, prim, pt, sp.p, sp.n),
                                               back && !(bsdf_flags(bsdf) & kLobeTransmission), Vec3<float>(-d), coord.at);
  return diffuse_reflectance(bsdf, in, to_glm(shading.frame.to_local(Vec3<float>(-d))));
}

// The AOVs of `hit`, what the camera ray first meets (as Mitsuba builds the ray: from the pinhole,
// the lens point or the film plane, `shift` before dray's ray origin), added to sum.
void add_first_hit(const Scene& scene, const std::vector<Aov>& aovs, const CameraRays& rays, const Hit& hit, float shift,
                   double* sum) {
  const ParamView<float> P(scene.params);
  const RayT<float>& ray = rays.ray;
  const PrimT<float> prim = lift_prim(scene, P, hit.prim);
  const SurfacePoint<float> sp = eval_hit(prim, ray, hit, 0.f);
  const PrimRef ref = scene.bvh.prim_ref(hit.prim);
  glm::vec3 dp_du, dp_dv;
  mitsuba_partials(scene, hit.prim, prim, sp, dp_du, dp_dv);
  for (const Aov& a : aovs) {
    glm::vec3 v(0.f);
    glm::vec2 duv_dx, duv_dy;
    switch (a.type) {
      case AovType::albedo: v = albedo_at(scene, hit.prim, prim, sp, to_glm(ray.d)); break;
      case AovType::dp_du: v = dp_du; break;
      case AovType::dp_dv: v = dp_dv; break;
      case AovType::duv_dx:
      case AovType::duv_dy:
        uv_partials(rays, to_glm(sp.p), to_glm(sp.n), dp_du, dp_dv, duv_dx, duv_dy);
        v = glm::vec3(a.type == AovType::duv_dx ? duv_dx : duv_dy, 0.f);
        break;
      case AovType::depth: v.x = hit.t + shift; break;
      case AovType::position: v = to_glm(sp.p); break;
      case AovType::uv: v = glm::vec3(surface_uv(scene, hit.prim, prim, to_glm(sp.p)), 0.f); break;
      case AovType::geo_normal: v = to_glm(sp.n); break;
      case AovType::sh_normal: v = to_glm(shading_normal(scene, P, hit.prim, prim, sp.p, sp.n)); break;
      case AovType::prim_index: v.x = float(ref.index); break;
      case AovType::shape_index: v.x = float(ref.shape + 1); break;  // Mitsuba's: 1 + the shape's index, 0 for none
    }
    const int n = aov_channel_count(a.type);
    for (int c = 0; c < n; ++c) *sum++ += double(v[c]);
  }
}

// Whether the camera ray's first hit makes the sample opaque, as Mitsuba's path integrator's
// valid_ray: a surface, or the environment when it is seen; with max_depth 0 (Mitsuba's 1) an
// emitter only.
float alpha_of(const Scene& scene, bool found, const Hit& hit) {
  const bool env = scene.environment >= 0 && !scene.render.hide_emitters;
  if (!found) return env ? 1.f : 0.f;
  if (scene.render.max_depth > 0) return 1.f;
  return env || (scene.materials[scene.material_of(hit.prim)].emissive && !scene.render.hide_emitters) ? 1.f : 0.f;
}

}  // namespace

std::vector<std::string> extra_channel_names(const Scene& scene) {
  std::vector<std::string> names;
  if (has_alpha(scene.render.pixel_format)) names.push_back("A");
  for (const std::string& n : aov_channel_names(scene.render.aovs)) names.push_back(n);
  return names;
}

void aov_pixel(const Scene& scene, const Shot& shot, int x, int y, float* out) {
  const std::vector<Aov>& aovs = scene.render.aovs;
  const bool alpha = has_alpha(scene.render.pixel_format);
  const size_t n = extra_channel_names(scene).size();
  std::vector<double> sum(n, 0.0);
  const CameraFrame<float> frame = camera_frame(scene.camera(shot), ParamView<float>(scene.params));
  for (int s = 0; s < scene.render.spp; ++s) {
    Sampler sampler = camera_sampler(scene, shot, x, y, s);  // the image's own film positions
    const CameraRays rays = camera_rays(frame, film_sample(scene, shot, sampler, x, y), scene.render.spp);
    const RayT<float>& ray = rays.ray;
    const float shift = frame.near_clip > 0.f ? frame.near_clip / glm::dot(to_glm(ray.d), to_glm(frame.forward)) : 0.f;
    Hit hit;
    const bool found = scene.bvh.intersect(ray.detached(), hit);
    if (alpha) sum[0] += alpha_of(scene, found, hit);
    if (found) add_first_hit(scene, aovs, rays, hit, shift, sum.data() + (alpha ? 1 : 0));
  }
  for (size_t c = 0; c < n; ++c) out[c] = to_image_float(sum[c] / double(scene.render.spp));
}

}  // namespace dray
