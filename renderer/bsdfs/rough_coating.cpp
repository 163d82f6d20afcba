#include "renderer/bsdfs/rough_coating.h"

#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "renderer/bsdfs/fresnel.h"

namespace dray {

namespace {

// Gauss–Legendre nodes and weights on [-1, 1] (Newton on the Legendre polynomial's roots).
void gauss_legendre(int n, std::vector<double>& x, std::vector<double>& w) {
  x.assign(n, 0.0);
  w.assign(n, 0.0);
  for (int i = 0; i < n; ++i) {
    double z = std::cos(M_PI * (i + 0.75) / (n + 0.5)), dp = 0.0;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1.0, p1 = 0.0;
      for (int k = 1; k <= n; ++k) {
        const double p2 = p1;
        p1 = p0;
        p0 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p2) / k;
      }
      dp = n * (z * p0 - p1) / (z * z - 1.0);
      const double dz = p0 / dp;
      z -= dz;
      if (std::fabs(dz) < 1e-15) break;
    }
    x[i] = z;
    w[i] = 2.0 / ((1.0 - z * z) * dp * dp);
  }
}

// The mean over visible normals m of wi (local, μ = wi.z) of F G1 (reflected, `transmit` false)
// or (1 − F) G1 (refracted), for relative index eta, by an n² Gauss–Legendre rule on [0, 1]².
double coating_mean(const Microfacet<float>& d, float mu, float eta, bool transmit, int n) {
  std::vector<double> x, w;
  gauss_legendre(n, x, w);
  const glm::vec3 wi(std::sqrt(std::max(0.f, 1.f - mu * mu)), 0.f, mu);
  double sum = 0.0;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const glm::vec3 m = sample_visible_normal(d, wi, glm::vec2(float(0.5 * x[a] + 0.5), float(0.5 * x[b] + 0.5)));
      const float c = glm::dot(wi, m);
      float cos_t, eta_ti;
      const float F = fresnel_dielectric(c, eta, cos_t, eta_ti);
      glm::vec3 wo;
      if (transmit) {
        if (F >= 1.f) continue;
        wo = eta_ti * -wi + (eta_ti * c + cos_t) * m;  // refract: cos_t < 0 entering
        if (!(wo.z * wi.z < 0.f)) continue;
      } else {
        wo = 2.f * c * m - wi;
        if (!(wo.z > 0.f)) continue;
      }
      const float g = d.G1(Vec3<float>(wo), Vec3<float>(m));
      sum += w[a] * w[b] * 0.25 * double(transmit ? (1.f - F) * g : F * g);
    }
  return sum;
}

struct Values {
  std::array<float, CoatingTable::kRes> t;
  float ri;
};

Values coating_values(MicrofacetType type, float alpha, float eta) {
  const Microfacet<float> d{type, alpha, alpha};
  Values v;
  std::array<double, CoatingTable::kRes> r{};
#pragma omp parallel for schedule(dynamic, 1)
  for (int i = 0; i < CoatingTable::kRes; ++i) {
    const float mu = std::max(1e-6f, float(i) / float(CoatingTable::kRes - 1));
    v.t[i] = float(coating_mean(d, mu, eta, true, 32));
    r[i] = coating_mean(d, mu, 1.f / eta, false, 64) * mu;
  }
  double mean = 0.0;
  for (double x : r) mean += x;
  v.ri = float(2.0 * mean / CoatingTable::kRes);
  return v;
}

}  // namespace

CoatingTable::Derivatives CoatingTable::compute_derivatives() const {
  // Central differences of the same quadratures (smooth in α and η at these steps).
  Derivatives d;
  const float ha = 1e-2f * std::max(alpha, 0.01f), he = 5e-3f * eta;
  const float a0 = std::max(1e-4f, alpha - ha);
  const Values ap = coating_values(type, alpha + ha, eta), am = coating_values(type, a0, eta);
  const Values ep = coating_values(type, alpha, eta + he), em = coating_values(type, alpha, eta - he);
  const float sa = (alpha + ha) - a0, se = (eta + he) - (eta - he);
  for (int i = 0; i < kRes; ++i) {
    d.dt_dalpha[i] = (ap.t[i] - am.t[i]) / sa;
    d.dt_deta[i] = (ep.t[i] - em.t[i]) / se;
  }
  d.dri_dalpha = (ap.ri - am.ri) / sa;
  d.dri_deta = (ep.ri - em.ri) / se;
  return d;
}

std::shared_ptr<const CoatingTable> coating_table(MicrofacetType type, float alpha, float eta) {
  static std::mutex mutex;
  static std::map<std::tuple<int, float, float>, std::shared_ptr<const CoatingTable>> cache;
  const auto key = std::make_tuple(int(type), alpha, eta);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  auto table = std::make_shared<CoatingTable>();
  table->type = type;
  table->alpha = alpha;
  table->eta = eta;
  const Values v = coating_values(type, alpha, eta);
  table->t = v.t;
  table->ri = v.ri;
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= 256) cache.clear();  // an optimisation moving α or η leaves a trail of tables
  return cache.emplace(key, std::move(table)).first->second;
}

}  // namespace dray
