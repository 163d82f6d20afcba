#pragma once
// An integrator's passes. Each plugin of the integrator list (integrator_model.h) renders the
// image and differentiates a loss over this process's share of the work: `path` and `volpath`
// over camera tiles (camera_passes.h), `ptracer` over light paths (ptracer.h). A pass meets the
// other processes of its share only through its PassComm (pass_comm.h): mpi/ splits the work and
// reduces the sums, and the one-process render is the same call with one share.
//
// Each plugin provides, as static members:
//   Image image_pass(const Scene&, const ImageRequest&, const PassComm&, PassFigures&);
//   void gradient_pass(const Scene&, const GradientRequest&, const PassComm&, GradientSums&, PassFigures&);
//   std::optional<std::string> refusal(const PassAsk&);
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "ad/fixed_sum.h"
#include "renderer/core/tile.h"
#include "renderer/image/image.h"
#include "renderer/integrators/loss.h"
#include "renderer/integrators/pass_comm.h"
#include "renderer/scene.h"
#include "renderer/sensors/film.h"

namespace dray {

// What an image pass renders: the window of the film (the image keeps the film's size; outside
// the window its pixels are 0), the channels beside the colour, and how.
struct ImageRequest {
  Shot shot;  // the view: its sensor and seed
  Tile window{0, 0, 0, 0};
  RenderOutputs outputs;  // variance, derivatives, AOVs: the channels that travel with the values
  int tile_size = 16;     // the largest tile edge (smaller when the window has fewer tiles than workers)
  int threads = 1;
  std::function<void(double)> progress;  // the first process: the fraction of the work done
};

// What a gradient pass differentiates: a view's loss and the parameters, and how.
struct GradientRequest {
  Shot shot;  // the view: its sensor and the primal's seed
  PixelLoss loss;
  std::span<const Slot> params;
  int tile_size = 16, threads = 1;
  uint64_t adjoint_seed = 0;  // the adjoint's samples: the primal's when it equals shot.seed
  int adjoint_spp = 0;        // the adjoint's samples per pixel (0: the scene's)
  Image* primal = nullptr;    // the first process receives the rendered image in it (3 channels)
};

// What a pass measured on this process.
struct PassFigures {
  double busy_seconds = 0;  // rendering its share
  double wait_seconds = 0;  // waiting for the slowest process (load imbalance)
  double mpi_seconds = 0;   // exchanging images and sums
  long nonfinite = 0;       // samples dropped as NaN or Inf
  // The boundary (edge) term of the derivatives: samples drawn, those landing on an edge with a
  // radiance step, those dropped, the seconds drawing them and the seconds reducing them.
  long boundary_samples = 0, boundary_hits = 0, boundary_nonfinite = 0;
  double boundary_seconds = 0, boundary_mpi_seconds = 0;
};

// A gradient pass's sums, by name, in one buffer (one exact reduction for all of them): d loss /
// d params[k], the loss, the samples and the pixels dropped. The views of a pass add into it.
class GradientSums {
 public:
  explicit GradientSums(size_t parameters) : n_(parameters), sums_(parameters + 3) {}
  size_t parameters() const { return n_; }
  std::span<ad::FixedSum> gradient() { return std::span<ad::FixedSum>(sums_).first(n_); }
  ad::FixedSum& loss() { return sums_[n_]; }
  ad::FixedSum& dropped_samples() { return sums_[n_ + 1]; }
  ad::FixedSum& dropped_pixels() { return sums_[n_ + 2]; }
  std::span<ad::FixedSum> totals() { return std::span<ad::FixedSum>(sums_).subspan(n_); }  // loss and drops
  std::span<ad::FixedSum> all() { return sums_; }

 private:
  size_t n_;
  ad::FixedSums sums_;
};

// What a caller asks of the scene's integrator before any pass (a reader, a job): it says why it
// cannot, or nothing.
struct PassAsk {
  bool aovs = false, alpha = false;    // film channels beside the colour
  std::optional<Loss> loss;            // a gradient pass with this loss
  bool own_adjoint_samples = false;    // a gradient pass with samples of its own (spp_grad)

  static PassAsk film(bool aovs, bool alpha) {
    PassAsk a;
    a.aovs = aovs;
    a.alpha = alpha;
    return a;
  }
  static PassAsk gradient(std::optional<Loss> loss, bool own_adjoint_samples) {
    PassAsk a;
    a.loss = loss;
    a.own_adjoint_samples = own_adjoint_samples;
    return a;
  }
};

// The scene's integrator's passes (collective over `comm`). image_pass returns the whole image on
// the first process (the others: their share's pixels).
Image image_pass(const Scene& scene, const ImageRequest& request, const PassComm& comm, PassFigures* figures = nullptr);
void gradient_pass(const Scene& scene, const GradientRequest& request, const PassComm& comm, GradientSums& sums,
                   PassFigures& figures);
std::optional<std::string> integrator_refusal(const RenderSettings& render, const PassAsk& ask);

}  // namespace dray
