#include "renderer/gradient.h"

#include <cmath>
#include <stdexcept>

#include <omp.h>

#include "ad/exact_gradient.h"
#include "ad/var.h"
#include "renderer/parallel.h"
#include "renderer/pass_lift.h"
#include "renderer/pixel_estimate.h"

namespace dray {

Loss parse_loss(const std::string& name) {
  if (name == "l1") return Loss::l1;
  if (name == "l2") return Loss::l2;
  if (name == "relative_l2") return Loss::relative_l2;
  if (name == "mean") return Loss::mean;
  throw std::runtime_error("unknown loss \"" + name + "\" (expected l1, l2, relative_l2 or mean)");
}

double loss_term(Loss loss, double r, double t) {
  double d = r - t;
  switch (loss) {
    case Loss::l1: return std::fabs(d);
    case Loss::l2: return d * d;
    case Loss::relative_l2: return d * d / (t * t + 0.01);
    case Loss::mean: return r;
  }
  return 0;
}

double loss_derivative(Loss loss, double r, double t) {
  double d = r - t;
  switch (loss) {
    case Loss::l1: return d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);
    case Loss::l2: return 2 * d;
    case Loss::relative_l2: return 2 * d / (t * t + 0.01);
    case Loss::mean: return 1;
  }
  return 0;
}

Image loss_adjoint_image(const Image& primal, const Image& target, Loss loss, double normaliser) {
  Image a(primal.width, primal.height, 3);
  for (int y = 0; y < primal.height; ++y)
    for (int x = 0; x < primal.width; ++x) {
      const float *p = primal.pixel(x, y), *t = target.pixel(x, y);
      float* o = a.pixel(x, y);
      bool finite = true;
      for (int c = 0; c < 3; ++c) finite = finite && std::isfinite(p[c]);
      for (int c = 0; c < 3; ++c) o[c] = finite ? float(loss_derivative(loss, p[c], t[c]) / normaliser) : 0.f;
    }
  return a;
}

namespace {

// Replays the pixel's samples in the Var kernel, seeding each sample's radiance with
// d loss / d pixel / spp, stages the parameter adjoints and commits them (one unit: the pixel).
// Returns the samples dropped (their gradient not finite).
long adjoint_pixel(const Scene& scene, const ParamView<ad::Var>& P, uint64_t seed, int x, int y,
                   const glm::dvec3& dloss_dpixel, ad::ThreadGradient& acc, LiftedAdjoints& lifted) {
  ad::Tape& tape = ad::Tape::local();
  const uint64_t pixel = uint64_t(y) * uint64_t(scene.camera.width) + uint64_t(x);
  const int n = scene.render.spp;
  long dropped = 0;
  for (int s = 0; s < n; ++s) {
    tape.clear();
    Sampler sampler(seed, pixel, uint64_t(s));
    float jx = sampler.next(), jy = sampler.next();
    RayT<ad::Var> ray = camera_ray(camera_frame(scene.camera, P), float(x) + jx, float(y) + jy);
    Vec3<ad::Var> L = radiance(scene, P, ray, sampler);
    tape.begin_adjoints();
    for (int c = 0; c < 3; ++c) tape.seed(L[c].i, float(dloss_dpixel[c] / n));
    if (!tape.backward_to([&](int g, float adj) {
          if (!lifted.take(g, double(adj))) acc.stage(size_t(g), double(adj));
        }))
      ++dropped;
  }
  tape.clear();
  lifted.chain([&](size_t g, double adj) { acc.stage(g, adj); });
  if (!acc.commit()) ++dropped;
  return dropped;
}

}  // namespace

GradientResult gradient_tiles(const Scene& scene, const std::vector<Tile>& tiles, std::span<const int> ids,
                              const Image& target, Loss loss, double normaliser, std::span<const Slot> params,
                              int threads, Image& primal, uint64_t adjoint_seed, bool plain_sums) {
  std::vector<int> seeds(scene.params.values().size(), -1);
  for (size_t k = 0; k < params.size(); ++k) seeds[params[k]] = int(k);
  const ParamView<float> Pf(scene.params);
  // The camera frame and moving meshes' transforms: lifted once, chained per pixel.
  const PassLift lift = lift_pass(scene, seeds.data(), int(params.size()) + 1);
  ParamView<ad::Var> Pv(scene.params, seeds.data());
  Pv.lifted_blocks = &lift.blocks;
  std::vector<LiftedAdjoints> lifted(size_t(threads), LiftedAdjoints{lift});
  // Per thread: the gradient (the loss is one more entry, last), and drop counts.
  ad::ExactGradient acc(threads, params.size() + 1, plain_sums);
  std::vector<long> dropped_samples(size_t(threads), 0), dropped_pixels(size_t(threads), 0);
  parallel_for(int(ids.size()), threads, [&](int i) {
    inject_fault(ids[size_t(i)]);
    const int me = omp_get_thread_num();
    ad::ThreadGradient& mine = acc.thread(me);
    const Tile& t = tiles[size_t(ids[size_t(i)])];
    for (int y = t.y0; y < t.y1; ++y)
      for (int x = t.x0; x < t.x1; ++x) {
        const glm::dvec3 mean = pixel_estimate(scene, Pf, x, y).mean;
        float* px = primal.pixel(x, y);
        const float* tp = target.pixel(x, y);
        glm::dvec3 dloss(0.0);
        double l = 0;
        for (int c = 0; c < 3; ++c) {
          px[c] = to_image_float(mean[c]);  // the loss sees the pixel as an image holds it
          l += loss_term(loss, px[c], tp[c]) / normaliser;
          dloss[c] = loss_derivative(loss, px[c], tp[c]) / normaliser;
        }
        mine.stage(params.size(), l);
        if (!std::isfinite(l) || !mine.commit()) {  // a non-finite pixel: no loss, no gradient
          mine.discard();
          ++dropped_pixels[size_t(me)];
          continue;
        }
        if (!params.empty()) dropped_samples[size_t(me)] += adjoint_pixel(scene, Pv, adjoint_seed, x, y, dloss, mine, lifted[size_t(me)]);
      }
  });
  GradientResult out;
  if (plain_sums) {
    out.gradient = acc.plain_total();
    out.loss = out.gradient.back();
    out.gradient.pop_back();
  } else {
    std::vector<ad::FixedSum> sums = acc.take_sums();
    out.loss_sum = sums.back();
    sums.pop_back();
    out.gradient_sums = std::move(sums);
    out.loss = out.loss_sum.value();
    for (const ad::FixedSum& g : out.gradient_sums) out.gradient.push_back(g.value());
  }
  for (int t = 0; t < threads; ++t) {
    out.dropped_samples += dropped_samples[size_t(t)];
    out.dropped_pixels += dropped_pixels[size_t(t)];
  }
  return out;
}

}  // namespace dray
