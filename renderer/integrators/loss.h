#pragma once
// The losses a gradient pass differentiates: one pixel's term and its derivative, the loss masks'
// weights, and the adjoint image d loss / d pixel.
#include <string>

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

}  // namespace dray
