#include "renderer/integrators/loss.h"

#include <cmath>
#include <stdexcept>

namespace dray {

Loss parse_loss(const std::string& name) {
  if (name == "l1") return Loss::l1;
  if (name == "l2") return Loss::l2;
  if (name == "relative_l2") return Loss::relative_l2;
  if (name == "mean") return Loss::mean;
  if (name == "scale_independent_l2") return Loss::scale_independent_l2;
  throw std::runtime_error("unknown loss \"" + name + "\" (expected l1, l2, relative_l2, scale_independent_l2 or mean)");
}

double scale_for_loss(Loss& loss, Image& image, Image& target) {
  if (loss != Loss::scale_independent_l2) return 1.0;
  auto mean = [](const Image& im) {
    double sum = 0;
    for (int y = 0; y < im.height; ++y)
      for (int x = 0; x < im.width; ++x)
        for (int c = 0; c < 3; ++c) sum += im.pixel(x, y)[c];
    return sum / (3.0 * im.width * im.height);
  };
  const double image_mean = mean(image), target_mean = mean(target);
  if (!(image_mean > 0) || !(target_mean > 0))
    throw std::runtime_error("the scale-independent loss needs images with a positive mean (the render's is " +
                             std::to_string(image_mean) + ", the target's " + std::to_string(target_mean) + ")");
  for (float& v : image.data) v = float(v / image_mean);
  for (float& v : target.data) v = float(v / target_mean);
  loss = Loss::l2;
  return 1.0 / image_mean;
}

double loss_term(Loss loss, double r, double t) {
  double d = r - t;
  switch (loss) {
    case Loss::l1: return std::fabs(d);
    case Loss::l2: return d * d;
    case Loss::relative_l2: return d * d / (t * t + 0.01);
    case Loss::mean: return r;
    case Loss::adjoint: return r * t;
    case Loss::scale_independent_l2: break;  // the images scaled first (scale_for_loss)
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
    case Loss::adjoint: return t;
    case Loss::scale_independent_l2: break;
  }
  return 0;
}

double mask_weight(const Image& mask, int x, int y) {
  const float* m = mask.pixel(x, y);
  double sum = 0;
  for (int c = 0; c < mask.channels; ++c) sum += m[c];
  return sum / mask.channels;
}

double mask_sum(const Image& mask) {
  double sum = 0;
  for (int y = 0; y < mask.height; ++y)
    for (int x = 0; x < mask.width; ++x) sum += mask_weight(mask, x, y);
  return sum;
}

double PixelLoss::term(const float* rendered, int x, int y) const {
  const float* t = target->pixel(x, y);
  const double w = weight(x, y);
  double l = 0;
  for (int c = 0; c < 3; ++c) l += loss_term(loss, rendered[c], t[c]) * w;
  return l;
}

glm::dvec3 PixelLoss::derivative(const float* rendered, int x, int y) const {
  const float* t = target->pixel(x, y);
  const double w = weight(x, y);
  glm::dvec3 d;
  for (int c = 0; c < 3; ++c) d[c] = loss_derivative(loss, rendered[c], t[c]) * w;
  return d;
}

glm::dvec3 PixelLoss::derivative_at_zero(int x, int y) const {
  const float zero[3] = {0.f, 0.f, 0.f};
  return derivative(zero, x, y);
}

Image loss_adjoint_image(const Image& primal, const PixelLoss& loss) {
  Image a(primal.width, primal.height, 3);
  for (int y = 0; y < primal.height; ++y)
    for (int x = 0; x < primal.width; ++x) {
      const float* p = primal.pixel(x, y);
      float* o = a.pixel(x, y);
      bool finite = true;
      for (int c = 0; c < 3; ++c) finite = finite && std::isfinite(p[c]);
      const glm::dvec3 d = loss.derivative(p, x, y);
      for (int c = 0; c < 3; ++c) o[c] = finite ? float(d[c]) : 0.f;
    }
  return a;
}

Image loss_adjoint_image(const Image& primal, const Image& target, Loss loss, double normaliser, const Image* mask) {
  return loss_adjoint_image(primal, PixelLoss{loss, &target, mask, normaliser});
}

}  // namespace dray
