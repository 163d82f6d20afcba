#include "renderer/image/colormap.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <glm/common.hpp>
#include <glm/vec3.hpp>

namespace dray {

namespace {

// Piecewise-linear through `stops` at t in [0, 1], written as linear values.
template <size_t K>
void put(const glm::vec3 (&stops)[K], float t, float* px) {
  constexpr int n = int(K) - 1;
  float f = std::clamp(t, 0.f, 1.f) * n;
  int k = std::min(int(f), n - 1);
  glm::vec3 c = glm::mix(stops[k], stops[k + 1], f - float(k));
  for (int ch = 0; ch < 3; ++ch) px[ch] = srgb_to_linear(c[ch]);
}

}  // namespace

Image heatmap(const std::vector<float>& values, int width, int height, float scale) {
  static const glm::vec3 stops[] = {{0, 0, 0}, {0.35f, 0.05f, 0.5f}, {0.85f, 0.15f, 0.15f}, {1, 0.8f, 0.1f}, {1, 1, 1}};
  Image img(width, height, 3);
  for (size_t i = 0; i < values.size(); ++i) {
    float v = scale > 0 ? values[i] / scale : 0.f;
    put(stops, std::isfinite(v) ? v : 1.f, &img.data[i * 3]);
  }
  return img;
}

Image diverging_map(const std::vector<float>& values, int width, int height, float scale) {
  static const glm::vec3 stops[] = {{0.02f, 0.19f, 0.58f}, {0.45f, 0.65f, 0.9f}, {1, 1, 1}, {0.95f, 0.55f, 0.45f},
                                    {0.7f, 0.02f, 0.1f}};
  Image img(width, height, 3);
  for (size_t i = 0; i < values.size(); ++i) {
    float v = scale > 0 ? values[i] / scale : 0.f;
    put(stops, std::isfinite(v) ? 0.5f + 0.5f * v : 0.5f, &img.data[i * 3]);
  }
  return img;
}

float abs_quantile(std::vector<float> values, double q) {
  if (values.empty()) return 0.f;
  for (float& v : values) v = std::isfinite(v) ? std::fabs(v) : 0.f;
  size_t k = std::min(values.size() - 1, size_t(q * double(values.size() - 1) + 0.5));
  std::nth_element(values.begin(), values.begin() + long(k), values.end());
  return values[k];
}

}  // namespace dray
