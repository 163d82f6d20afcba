// Derivative images and `dray gradcheck`: forward mode against reverse mode and against central
// finite differences, all with the same random numbers.
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "mpi/gradient.h"
#include "mpi/tiles.h"
#include "renderer/colormap.h"
#include "renderer/scene_loader.h"
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
  cmd->add_option("--pixels", a.pixels, "Also compare this many pixels per parameter (those with the largest derivative)")
      ->check(whole_number(0, 1 << 20))
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

int run_gradcheck(const mpi::Context& ctx, const GradcheckArgs& a) {
  Scene scene;
  std::vector<ScalarParam> params;
  mpi::Status st = mpi::agree_on(ctx, [&] {
    scene = load_scene(a.scene.scene, a.scene.overrides());
    params = resolve_scalars(scene.params, a.params);
    // The derivative render and its gather buffer, then two plain renders at a time.
    check_image_memory(ctx, a.scene.scene, scene.camera.width, scene.camera.height, 3 * int(params.size() + 1), 2.5);
  });
  if (st.code) return report(ctx, st);
  print_warnings(ctx, scene);

  mpi::RenderJob job;
  job.threads = resolve_threads(ctx, a.threads);
  for (const ScalarParam& p : params) job.outputs.wrt.push_back(p.slot);
  Image ad = mpi::render_image(ctx, scene, job);
  const double base = ctx.is_root() ? image_mean(ad, 0) : 0.0;

  // Reverse mode: the gradient of the mean image, with the same samples.
  std::vector<Slot> slots = job.outputs.wrt;
  mpi::DistributedGradient rev =
      mpi::gradient(ctx, scene, Image(scene.camera.width, scene.camera.height, 3), Loss::mean, slots, 16, job.threads,
                    scene.render.seed);

  mpi::RenderJob plain = job;
  plain.outputs = {};
  if (ctx.is_root())
    std::printf("%-32s %11s %13s %13s %13s %9s %9s %9s  %s\n", "param", "value", "forward", "reverse", "central FD",
                "fd err", "rev err", "pixels", "result");
  bool all_ok = true;
  for (size_t k = 0; k < params.size(); ++k) {
    const Slot slot = params[k].slot;
    const float v0 = scene.params.get(slot);
    const float h = float(a.step * std::max(1.0, std::fabs(double(v0))));
    // Both sides of the difference use the same seed: the same random numbers.
    Scene plus = scene, minus = scene;
    plus.params.set(slot, v0 + h);
    minus.params.set(slot, v0 - h);
    if (scene.moves_geometry(slot)) {
      plus.build_geometry();
      minus.build_geometry();
    }
    Image ip = mpi::render_image(ctx, plus, plain), im = mpi::render_image(ctx, minus, plain);
    if (!ctx.is_root()) continue;
    // The step actually taken, after float rounding of v0 +- h.
    const double h2 = double(plus.params.get(slot)) - double(minus.params.get(slot));
    const int c = job.outputs.derivative_channel(k);
    const double fwd = image_mean(ad, c), fd = (image_mean(ip, 0) - image_mean(im, 0)) / h2;
    // Errors relative to the larger derivative, with a floor that keeps a zero derivative
    // (a parameter that does not affect the image) from dividing by zero.
    const double floor = 1e-6 * std::max(base, 1e-6);
    auto rel = [&](double x, double y) { return std::fabs(x - y) / std::max({std::fabs(x), std::fabs(y), floor}); };
    double err = rel(fwd, fd), rev_err = rel(fwd, rev.gradient[k]), pixel_err = 0;
    // The pixels where the derivative is largest.
    std::vector<std::pair<double, size_t>> by_size;
    for (size_t i = 0; i < size_t(ad.width) * ad.height; ++i) by_size.push_back({-std::fabs(pixel_mean(ad, i, c)), i});
    std::partial_sort(by_size.begin(), by_size.begin() + std::min<long>(a.pixels, long(by_size.size())), by_size.end());
    for (int p = 0; p < a.pixels && p < int(by_size.size()); ++p) {
      size_t i = by_size[size_t(p)].second;
      double pfd = (pixel_mean(ip, i, 0) - pixel_mean(im, i, 0)) / h2;
      pixel_err = std::max(pixel_err, rel(pixel_mean(ad, i, c), pfd));
    }
    bool ok = err <= a.tol && pixel_err <= a.tol && rev_err <= a.tol_reverse;
    all_ok = all_ok && ok;
    std::printf("%-32s %11.6g %13.6g %13.6g %13.6g %9.2e %9.2e %9.2e  %s\n", params[k].name.c_str(), v0, fwd,
                rev.gradient[k], fd, err, rev_err, pixel_err, ok ? "ok" : "DIFFERS");
  }
  all_ok = mpi::all_ranks(ctx, all_ok);
  if (ctx.is_root())
    std::printf("forward vs central differences (h = %g x max(|value|, 1)) within %g, reverse vs forward within %g: %s\n",
                a.step, a.tol, a.tol_reverse, all_ok ? "PASS" : "FAIL");
  return all_ok ? 0 : kExitDifferent;
}

}  // namespace dray::cli
