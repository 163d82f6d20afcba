// Derivative images and `dray gradcheck`: forward mode against reverse mode and against central
// finite differences, all with the same random numbers.
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "mpi/gradient.h"
#include "mpi/tiles.h"
#include "renderer/integrators/boundary.h"
#include "renderer/image/colormap.h"
#include "renderer/io/scene_loader.h"
#include "tools/cli.h"

namespace fs = std::filesystem;

namespace dray::cli {

DerivativeFiles derivative_files(const std::string& out, const std::string& param) {
  const std::string stem = (fs::path(out).parent_path() / fs::path(out).stem()).string() + ".d." + derivative_file_stem(param);
  return {stem + ".exr", stem + ".png"};
}

DerivativeFiles write_derivative(const Image& image, int channel, const std::string& out, const std::string& param) {
  DerivativeFiles f = derivative_files(out, param);
  Image d = channels_of(image, channel, 3);
  write_image(d, f.exr);
  std::vector<float> mean(size_t(d.width) * d.height);
  for (size_t i = 0; i < mean.size(); ++i) mean[i] = (d.data[3 * i] + d.data[3 * i + 1] + d.data[3 * i + 2]) / 3.f;
  // The 99th percentile of |derivative|: a few firefly pixels must not wash out the map.
  f.scale = abs_quantile(mean, 0.99);
  if (!(f.scale > 0)) f.scale = abs_quantile(mean, 1.0);
  write_image(diverging_map(mean, d.width, d.height, f.scale), f.png);
  return f;
}

CLI::App* add_gradcheck_command(CLI::App& app, GradcheckArgs& a) {
  CLI::App* cmd = app.add_subcommand("gradcheck", "Compare forward-mode derivatives with central finite differences "
                                                  "(same random numbers); exit 1 if any disagrees");
  a.scene.add_to(cmd);
  cmd->add_option("--param", a.params, "Parameters to check (a vector name checks its 3 components); several may follow one --param")
      ->required();
  cmd->add_option("--tol", a.tol, "Largest relative error that passes")->check(real_number(0, false))->capture_default_str();
  cmd->add_option("--tol-reverse", a.tol_reverse, "Largest relative difference of reverse and forward mode that passes")
      ->check(real_number(0, false))
      ->capture_default_str();
  cmd->add_option("--step", a.step, "Finite-difference step, relative: h = step * max(|value|, 1)")
      ->check(real_number(0, false))
      ->capture_default_str();
  cmd->add_option("--pixels", a.pixels,
                  "Also compare this many pixels per parameter (those with the largest derivative; with one seed only)")
      ->check(whole_number(0, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--fd-spp", a.fd_spp, "Samples per pixel of the finite-difference renders (default: the scene's)")
      ->check(whole_number(1, 1 << 20));
  cmd->add_option("--seeds", a.seeds,
                  "Repeat with this many seeds: the means are compared within --tol or 3 standard errors, and the "
                  "differences at h and h/2 must agree likewise (for edges: choose --step to move them about a pixel)")
      ->check(whole_number(1, 1000))
      ->capture_default_str();
  add_threads_option(cmd, a.threads);
  return cmd;
}

namespace {

// The mean over pixels and channels of channels [c, c + 3).
double image_mean(const Image& img, int c) {
  double sum = 0;
  for (size_t i = 0; i < size_t(img.width) * img.height; ++i)
    for (int k = 0; k < 3; ++k) sum += img.data[i * img.channels + c + k];
  return sum / (3.0 * img.width * img.height);
}

double pixel_mean(const Image& img, size_t i, int c) {
  return (double(img.data[i * img.channels + c]) + img.data[i * img.channels + c + 1] + img.data[i * img.channels + c + 2]) / 3.0;
}

}  // namespace

namespace {

// One parameter's figures over the seeds: the forward derivative of the image mean, central
// differences at steps h and h/2 (the same random numbers on both sides), and per pixel.
struct ParamCheck {
  std::vector<double> fwd, rev, fd, fd_half;  // per seed (rev: reverse mode with that seed's samples)
  std::vector<double> interior;  // the forward derivative without the boundary term
  double pixel_err = 0;
};

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / double(v.size());
}

// The standard error of the mean of a - b over seeds (0 with one seed).
double standard_error(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n = a.size();
  if (n < 2) return 0.0;
  std::vector<double> d(n);
  for (size_t i = 0; i < n; ++i) d[i] = a[i] - b[i];
  const double m = mean_of(d);
  double ss = 0;
  for (double x : d) ss += (x - m) * (x - m);
  return std::sqrt(ss / double(n - 1) / double(n));
}

// A central difference for `slot` at step h: the two renders (complete on rank 0), the step
// actually taken (after float rounding of v0 +- h) and the difference of the image means.
struct Difference {
  Image plus, minus;
  double step = 0, mean = 0;
};

Difference central_difference(const mpi::Context& ctx, const Scene& scene, const mpi::RenderJob& plain, Slot slot, float h) {
  const float v0 = scene.params.get(slot);
  Scene plus = scene, minus = scene;
  plus.params.set(slot, v0 + h);
  minus.params.set(slot, v0 - h);
  if (scene.needs_rebuild(slot)) {
    plus.build_geometry();
    minus.build_geometry();
  }
  Difference d{mpi::render_image(ctx, plus, plain), mpi::render_image(ctx, minus, plain)};
  d.step = double(plus.params.get(slot)) - double(minus.params.get(slot));
  if (ctx.is_root()) d.mean = (image_mean(d.plus, 0) - image_mean(d.minus, 0)) / d.step;
  return d;
}

// Errors relative to the larger derivative, with a floor that keeps a zero derivative (a
// parameter that does not affect the image, or a symmetric one) from dividing by zero: a
// derivative below 1e-4 of the image mean per unit is taken as zero.
double relative_error(double x, double y, double image_mean) {
  return std::fabs(x - y) / std::max({std::fabs(x), std::fabs(y), 1e-4 * std::max(image_mean, 1e-6)});
}

}  // namespace

int run_gradcheck(const mpi::Context& ctx, const GradcheckArgs& a) {
  Scene scene;
  std::vector<ScalarParam> params;
  mpi::Status status = mpi::agree_on(ctx, [&] {
    scene = load_scene(a.scene.scene, a.scene.overrides(), true, a.scene.defines());
    params = resolve_per_image(scene, a.params, "--param");
    // The derivative render and its gather buffer, then two plain renders at a time.
    check_image_memory(ctx, a.scene.scene, scene.own_camera().width, scene.own_camera().height, 3 * int(params.size() + 1), 2.5);
  });
  if (status.code) return report(ctx, status);
  print_warnings(ctx, scene);

  mpi::RenderJob job;
  job.threads = resolve_threads(ctx, a.threads);
  for (const ScalarParam& p : params) job.outputs.wrt.push_back(p.slot);
  mpi::RenderJob plain = job;
  plain.outputs = {};
  const uint64_t seed0 = scene.render.seed;

  std::vector<Slot> slots = job.outputs.wrt;

  std::vector<ParamCheck> checks(params.size());
  double base = 0;
  // Where a parameter moves an edge, the forward derivative is rendered once more without the
  // boundary term: the interior and boundary shares, so that a disagreement can be placed.
  const bool split = moves_edges(scene, scene.shot(), slots);
  Scene interior_only, fd_scene = scene;
  if (split) {
    interior_only = scene;
    interior_only.render.boundary_samples = 0;
  }
  if (a.fd_spp > 0) fd_scene.render.spp = a.fd_spp;
  for (int s = 0; s < a.seeds; ++s) {
    const Shot shot{scene.sensor, seed0 + uint64_t(s)};  // this seed's samples, for every render below
    job.shot = plain.shot = shot;
    Image ad = mpi::render_image(ctx, scene, job);
    // Reverse mode: the gradient of the mean image, with this seed's samples.
    const mpi::DistributedGradient rev = mpi::gradient(ctx, scene, shot, Image(scene.own_camera().width, scene.own_camera().height, 3),
                                                       Loss::mean, slots, 16, job.threads, shot.seed);
    const Image inner = split ? mpi::render_image(ctx, interior_only, job) : Image();
    for (size_t k = 0; k < params.size(); ++k) {
      const float h = float(a.step * std::max(1.0, std::fabs(double(scene.params.get(params[k].slot)))));
      const Difference fd = central_difference(ctx, fd_scene, plain, params[k].slot, h);
      const double fd_half = a.seeds > 1 ? central_difference(ctx, fd_scene, plain, params[k].slot, 0.5f * h).mean : fd.mean;
      if (!ctx.is_root()) continue;
      const int c = job.outputs.derivative_channel(k);
      checks[k].fwd.push_back(image_mean(ad, c));
      checks[k].rev.push_back(rev.gradient[k]);
      checks[k].interior.push_back(split ? image_mean(inner, c) : image_mean(ad, c));
      checks[k].fd.push_back(fd.mean);
      checks[k].fd_half.push_back(fd_half);
      if (s > 0) continue;
      // The first seed's pixels where the derivative is largest.
      base = image_mean(ad, 0);
      std::vector<std::pair<double, size_t>> by_size;
      for (size_t i = 0; i < size_t(ad.width) * ad.height; ++i) by_size.push_back({-std::fabs(pixel_mean(ad, i, c)), i});
      std::partial_sort(by_size.begin(), by_size.begin() + std::min<long>(a.pixels, long(by_size.size())), by_size.end());
      for (int p = 0; p < a.pixels && p < int(by_size.size()); ++p) {
        const size_t i = by_size[size_t(p)].second;
        const double pfd = (pixel_mean(fd.plus, i, 0) - pixel_mean(fd.minus, i, 0)) / fd.step;
        checks[k].pixel_err = std::max(checks[k].pixel_err, relative_error(pixel_mean(ad, i, c), pfd, base));
      }
    }
  }

  bool all_ok = true;
  if (ctx.is_root()) {
    std::printf("%-32s %11s %13s %13s %13s %9s %9s %9s %9s %13s %13s  %s\n", "param", "value", "forward", "reverse",
                "central FD", "+-", "fd err", "rev err", "pixels", "interior", "boundary", "result");
    auto rel = [&](double x, double y) { return relative_error(x, y, base); };
    for (size_t k = 0; k < params.size(); ++k) {
      const ParamCheck& p = checks[k];
      const double fwd = mean_of(p.fwd), fd = mean_of(p.fd), fd_half = mean_of(p.fd_half);
      const double se = standard_error(p.fwd, p.fd), se_half = standard_error(p.fd, p.fd_half);
      double rev_err = 0;  // seed by seed: reverse and forward share their samples
      for (size_t s = 0; s < p.fwd.size(); ++s) rev_err = std::max(rev_err, rel(p.fwd[s], p.rev[s]));
      const double err = rel(fwd, fd);
      // Within the tolerance or, over several seeds, within 3 standard errors; h and h/2 agreeing likewise.
      const bool fd_ok = err <= a.tol || std::fabs(fwd - fd) <= 3 * se;
      const bool steps_ok = a.seeds < 2 || rel(fd, fd_half) <= a.tol || std::fabs(fd - fd_half) <= 3 * se_half;
      const bool ok = fd_ok && steps_ok && (a.pixels == 0 || p.pixel_err <= a.tol || a.seeds > 1) && rev_err <= a.tol_reverse;
      all_ok = all_ok && ok;
      const double interior = mean_of(p.interior);
      std::printf("%-32s %11.6g %13.6g %13.6g %13.6g %9.2e %9.2e %9.2e %9.2e %13.6g %13.6g  %s\n", params[k].name.c_str(),
                  scene.params.get(params[k].slot), fwd, mean_of(p.rev), fd, se, err, rev_err, p.pixel_err, interior,
                  fwd - interior, ok ? "ok" : (steps_ok ? "DIFFERS" : "DIFFERS (h and h/2 disagree)"));
    }
  }
  all_ok = mpi::all_ranks(ctx, all_ok);
  if (ctx.is_root())
    std::printf("forward vs central differences (h = %g x max(|value|, 1)%s) within %g%s, reverse vs forward within %g: %s\n",
                a.step, a.fd_spp > 0 ? (", " + std::to_string(a.fd_spp) + " spp").c_str() : "", a.tol,
                a.seeds > 1 ? (" or 3 standard errors over " + std::to_string(a.seeds) + " seeds").c_str() : "",
                a.tol_reverse, all_ok ? "PASS" : "FAIL");
  return all_ok ? 0 : kExitDifferent;
}

}  // namespace dray::cli
