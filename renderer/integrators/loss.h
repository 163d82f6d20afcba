#pragma once
// The losses a gradient pass differentiates: one pixel's term and its derivative, the loss masks'
// weights, and the adjoint image d loss / d pixel.
#include <string>

#include <glm/vec3.hpp>

#include "renderer/image/image.h"

namespace dray {

enum class Loss {
  l1,           // mean |I - T|
  l2,           // mean (I - T)^2
  relative_l2,  // mean (I - T)^2 / (T^2 + 0.01)
  mean,         // mean I (the target is ignored): its gradient is the derivative of the mean image
  adjoint,      // sum I T: the target T is dLoss/dI, an adjoint image given by the caller (Python's backward)
  // mean (I / mean(I) - T / mean(T))^2, mean(I) held constant (Mitsuba's caustics tutorial): the
  // image's brightness does not count. Needs the whole image before the adjoint (a particle
  // tracer's view): scale_for_loss.
  scale_independent_l2,
};

// "l1", "l2", "relative_l2", "scale_independent_l2" or "mean"; throws std::runtime_error otherwise.
Loss parse_loss(const std::string& name);
// One channel's loss term and its derivative with respect to the rendered value.
double loss_term(Loss loss, double rendered, double target);
double loss_derivative(Loss loss, double rendered, double target);

// A loss mask's weight at a pixel (the mean of its channels: white 1, black 0), and its sum.
double mask_weight(const Image& mask, int x, int y);
double mask_sum(const Image& mask);

// For the scale-independent loss: the image and the target each divided by its mean (of every
// channel), the loss then l2 of them and its adjoint times the returned factor (1 / mean(I), the
// constant mean's); for other losses nothing changes and the factor is 1.
double scale_for_loss(Loss& loss, Image& image, Image& target);

// d loss / d pixel for every pixel of `primal` against `target` (3 channels, full size): the
// adjoint image that seeds the boundary term. With a mask, each pixel's term is weighted by it.
Image loss_adjoint_image(const Image& primal, const Image& target, Loss loss, double normaliser,
                         const Image* mask = nullptr);

// A view's loss as a pass applies it pixel by pixel: its kind, the target (full size), a mask's
// weights (or none) and the normaliser the pixel terms are divided by (3 x the pixel count: the
// mean). The one place a pixel's loss and its derivative are computed.
struct PixelLoss {
  Loss loss = Loss::l2;
  const Image* target = nullptr;
  const Image* mask = nullptr;
  double normaliser = 1;

  // The pixel's factor: its mask's weight over the normaliser.
  double weight(int x, int y) const { return mask ? mask_weight(*mask, x, y) / normaliser : 1.0 / normaliser; }
  // The pixel's term over its three channels, for the `rendered` RGB.
  double term(const float* rendered, int x, int y) const;
  // d term / d rendered, per channel; at rendered 0 for the losses whose derivative does not read it.
  glm::dvec3 derivative(const float* rendered, int x, int y) const;
  glm::dvec3 derivative_at_zero(int x, int y) const;
};

// d loss / d pixel of `primal` for a view's loss (0 at a pixel that is not finite).
Image loss_adjoint_image(const Image& primal, const PixelLoss& loss);

}  // namespace dray
