// The particle tracer's derivatives (renderer/integrators/ptracer.h): the same light paths as the
// image (path k's numbers depend on (seed, k) alone), traced in Dual<k> for derivative images and
// in Var for reverse mode. A connection's contribution u (its value times the pinhole's Jacobian)
// lands at film point q, and pixel p receives u w_p(q) / n: its derivative is du w_p + u ∇w_p · dq,
// the second term the landing point's motion through the filter's slope (zero for the box filter,
// whose weights do not move until the point crosses a pixel's edge).
#include <algorithm>
#include <stdexcept>

#include "ad/dual.h"
#include "ad/exact_gradient.h"
#include "ad/var.h"
#include "renderer/integrators/displaced_lift.h"
#include "renderer/integrators/ptracer.h"
#include "renderer/integrators/ptracer_path.h"
#include "renderer/integrators/render_tiles.h"

namespace dray {

namespace {

// Whether shape `name`'s primitives include an emitting one (its light paths start on it: their
// emission is traced in float).
bool shape_emits(const Scene& scene, const std::string& name) {
  for (uint32_t p = 0; p < scene.bvh.prim_count(); ++p) {
    const Shape& s = scene.shapes[scene.bvh.prim_ref(p).shape];
    if (s.name == name && scene.materials[scene.material_of(p)].emissive) return true;
  }
  return false;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Chunk [first, first + count) of outputs.wrt in Dual<K>: its tangents added to `splat`'s
// derivative channels. Returns the contributions dropped as not finite.
template <int K>
long add_tangent_chunk(const Scene& scene, const ParticleFilm& film, const RenderOutputs& outputs, size_t first_wrt, size_t count,
                       long n, int first, int stride, int threads, ParticleSplat& splat) {
  using D = ad::Dual<K>;
  const Seeds seeds(scene.params.values().size(), std::span(outputs.wrt).subspan(first_wrt, count));
  const ParamView<D> P(scene.params, seeds);
  const CameraFrame<D> frame = camera_frame(scene.camera(film.shot), P);
  const size_t pixels = size_t(film.window.x1 - film.window.x0) * size_t(film.window.y1 - film.window.y0);
  std::vector<std::vector<ad::FixedSum>> per_thread(size_t(threads), std::vector<ad::FixedSum>(pixels * 3 * count));
  std::vector<long> dropped(size_t(threads), 0);
  for_each_light_path(scene, film.shot.seed, n, first, stride, threads, [&](int thread, Sampler& s, const Light& light, float pick) {
    std::vector<ad::FixedSum>& sums = per_thread[size_t(thread)];
    auto splat_tangents = [&](const CameraLink& link, const LinkT<D>& to, const Vec3<D>& value) {
      const Vec3<D> u = value * to.importance;
      for_each_footprint_pixel(scene.render.filter, link.film, film.masses, [&](int px, int py, double w, double dwx, double dwy) {
        const size_t at = film.pixel_index(px, py) * 3 * count;
        for (size_t k = 0; k < count; ++k)
          for (int c = 0; c < 3; ++c) {
            const double t = (double(u[c].d[k]) * w + double(u[c].v) * (dwx * double(to.film_x.d[k]) + dwy * double(to.film_y.d[k]))) * film.scale;
            if (!sums[at + k * 3 + size_t(c)].add(t)) ++dropped[size_t(thread)];
          }
      });
    };
    trace_particle(film, P, frame, light, pick, s, [](const CameraLink&, const glm::vec3&) {}, splat_tangents);
  });
  for (size_t i = 0; i < pixels; ++i)
    for (size_t k = 0; k < count; ++k)
      for (int c = 0; c < 3; ++c) {
        ad::FixedSum& out = splat.sums[i * size_t(splat.channels) + size_t(outputs.derivative_channel(first_wrt + k)) + size_t(c)];
        for (const std::vector<ad::FixedSum>& sums : per_thread) out += sums[(i * count + k) * 3 + size_t(c)];
      }
  long total = 0;
  for (long d : dropped) total += d;
  return total;
}

}  // namespace

std::optional<std::string> particle_derivative_refusal(const Scene& scene, const Shot& shot, std::span<const Slot> params) {
  if (params.empty()) return std::nullopt;
  if (draws_aperture(scene.camera(shot).model))
    return "integrator ptracer: no derivatives through a thin lens (a connection's film point moves with its aperture point): use perspective";
  const Seeds seeds(scene.params.values().size(), params);
  for (const ParamEntry& e : scene.params.entries()) {
    if (!seeds.any(e.slot, e.size)) continue;
    const std::string& name = e.name;
    // A light's, or a material's emission (a colour, or a texture's texels: textures.X.emission.data).
    const bool emitter = starts_with(name, "lights.") || name.ends_with(".emission") || name.find(".emission.") != std::string::npos;
    if (emitter || starts_with(name, "camera") || starts_with(name, "sensors.") || starts_with(name, "media."))
      return "integrator ptracer: no derivatives by " + name +
             " (light paths differentiate the surfaces they meet, not the emitters, camera or media): use path";
    for (const Shape& shape : scene.shapes)
      if (starts_with(name, "shapes." + shape.name + ".") && shape_emits(scene, shape.name))
        return "integrator ptracer: no derivatives by " + name + " (an emitting shape: its light leaves in float): use path";
  }
  return std::nullopt;
}

long add_particle_tangents(const Scene& scene, const Shot& shot, const Tile& window, long n, int first, int stride, int threads,
                           const RenderOutputs& outputs, ParticleSplat& splat) {
  if (auto why = particle_derivative_refusal(scene, shot, outputs.wrt)) throw std::runtime_error(*why);
  if (outputs.variance || outputs.aovs) throw std::runtime_error(kPtracerOutputs);
  const ParticleFilm film(scene, shot, window, n);
  long dropped = 0;
  for (size_t first_wrt = 0; first_wrt < outputs.wrt.size(); first_wrt += kMaxTangents) {
    const size_t count = std::min<size_t>(kMaxTangents, outputs.wrt.size() - first_wrt);
    if (count == 1) dropped += add_tangent_chunk<1>(scene, film, outputs, first_wrt, count, n, first, stride, threads, splat);
    else if (count <= 4) dropped += add_tangent_chunk<4>(scene, film, outputs, first_wrt, count, n, first, stride, threads, splat);
    else dropped += add_tangent_chunk<8>(scene, film, outputs, first_wrt, count, n, first, stride, threads, splat);
  }
  return dropped;
}

ParticleGradient particle_gradient(const Scene& scene, const Shot& shot, const Tile& window, const Image& adjoint,
                                   std::span<const Slot> params, long n, int first, int stride, int threads) {
  if (auto why = particle_tracer_refusal(scene)) throw std::runtime_error(*why);
  if (auto why = particle_derivative_refusal(scene, shot, params)) throw std::runtime_error(*why);
  const Seeds seeds(scene.params.values().size(), params);
  auto displaced = std::make_shared<const DisplacedLift>(lift_displaced(scene, seeds, int(params.size()), threads));
  ParamView<ad::Var> P(scene.params, seeds);
  P.lifted_blocks = &displaced->blocks;
  const ParticleFilm film(scene, shot, window, n);
  ad::ExactGradient acc(threads, params.size() + size_t(displaced->count));  // the parameters, then the lifted inputs
  std::vector<long> dropped(size_t(threads), 0);
  std::vector<std::vector<int32_t>> splats(static_cast<size_t>(threads));  // each path's splat statements
  for_each_light_path(scene, shot.seed, n, first, stride, threads, [&](int thread, Sampler& s, const Light& light, float pick) {
    ad::Tape& tape = ad::Tape::local();
    tape.clear();
    std::vector<int32_t>& nodes = splats[size_t(thread)];
    nodes.clear();
    // A splat's share of the loss, Σ_p adjoint_p · u w_p(q) / n, as one statement on u and q.
    auto splat_loss = [&](const CameraLink& link, const LinkT<ad::Var>& to, const Vec3<ad::Var>& value) {
      const Vec3<ad::Var> u = value * to.importance;
      const glm::dvec3 u_value(u.x.v, u.y.v, u.z.v);
      glm::dvec3 along(0.0);  // Σ_p adjoint_p w_p
      double gx = 0, gy = 0;  // Σ_p adjoint_p · u ∂w_p/∂q
      for_each_footprint_pixel(scene.render.filter, link.film, film.masses, [&](int px, int py, double w, double dwx, double dwy) {
        const float* a = adjoint.pixel(px, py);
        const glm::dvec3 adj(a[0], a[1], a[2]);
        along += w * adj;
        gx += dwx * glm::dot(adj, u_value);
        gy += dwy * glm::dot(adj, u_value);
      });
      const double k = film.scale;
      const ad::Tape::Arg args[5] = {{u.x.i, float(along.x * k)}, {u.y.i, float(along.y * k)}, {u.z.i, float(along.z * k)},
                                     {to.film_x.i, float(gx * k)}, {to.film_y.i, float(gy * k)}};
      const ad::Var share = ad::Var::make_n(float(glm::dot(along, u_value) * k), args);
      if (share.i >= 0) nodes.push_back(share.i);
    };
    const CameraFrame<ad::Var> frame = camera_frame(scene.camera(shot), P);
    trace_particle(film, P, frame, light, pick, s, [](const CameraLink&, const glm::vec3&) {}, splat_loss);
    if (nodes.empty()) return;
    tape.begin_adjoints();
    for (int32_t node : nodes) tape.seed(node, 1.f);
    ad::ThreadGradient& mine = acc.thread(thread);
    const bool finite = tape.backward_to([&](int g, float adj) { mine.stage(size_t(g), double(adj)); });
    if (!finite) {
      mine.discard();
      ++dropped[size_t(thread)];
    } else if (!mine.commit()) {
      ++dropped[size_t(thread)];
    }
  });
  ParticleGradient out;
  out.sums = acc.take_sums();
  out.lifted.assign(out.sums.begin() + long(params.size()), out.sums.end());
  out.sums.truncate(params.size());
  if (displaced->count > 0) out.lift = std::move(displaced);
  for (long d : dropped) out.dropped += d;
  return out;
}

void fold_lifted(ParticleGradient& g) {
  if (g.lift && !g.lifted.empty()) {
    std::vector<double> lifted(g.lifted.size()), chained(g.sums.size(), 0.0);
    for (size_t i = 0; i < lifted.size(); ++i) lifted[i] = g.lifted[i].value();
    chain_displaced(*g.lift, int(g.sums.size()), lifted, chained);
    for (size_t k = 0; k < chained.size(); ++k)
      if (chained[k] != 0 && !g.sums[k].add(chained[k])) ++g.dropped;
  }
  g.lifted.clear();
}

}  // namespace dray
