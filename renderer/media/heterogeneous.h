#pragma once
// Mitsuba 3's `heterogeneous`: σt and albedo each a grid volume (`gridvolume`, its voxels a
// parameter block), a constant volume, or a colour; σt times the medium's `scale`. Where σt is a
// grid, flights run delta tracking against the majorant of each supergrid cell (times
// `majorant_factor`, Mitsuba's, default 1.01) with spectral-tracking weights (Kutz et al. 2017)
// where σt differs per channel, and transmittance ratio tracking (media/tracking.h); a constant σt
// flies as a homogeneous medium's (media/free_flight.h).
//
// Above 1 the majorant factor keeps a null collision a probability where σt reaches its cell's
// maximum: the derivative of its weight, −dσ/(μ − σ), is then sampled (at a factor of 1 such a
// cell scatters at every tentative collision, and the derivative of the null collisions it skips
// is lost).
#include <string_view>
#include <tuple>
#include <vector>

#include "renderer/core/load_error.h"
#include "renderer/media/free_flight.h"
#include "renderer/media/medium_props.h"
#include "renderer/media/tracking.h"

namespace dray {

struct HeterogeneousMedium {
  static constexpr std::string_view kPlugins[] = {"heterogeneous"};
  static constexpr bool kVolumes = true, kAlbedoVolume = true;
  static HeterogeneousMedium read(MediumProps& p) {
    p.keys({"sigma_t", "albedo", "majorant_factor"});
    HeterogeneousMedium m;
    std::tie(m.sigma_t, m.albedo) = read_coefficients(p, kVolumes);
    if (p.has("majorant_factor")) {
      const double f = p.number("majorant_factor");
      if (!(f >= 1.0)) p.fail("majorant_factor", "must be >= 1 (a majorant below the density biases the image), got " + fmt_number(f));
      m.majorant_factor = float(f);
    }
    return m;
  }

  MediumVolume sigma_t, albedo;
  float majorant_factor = 1.01f;

  template <class T>
  Vec3<T> sigma_t_at(const std::vector<GridVolume>& volumes, const ParamView<T>& P, const glm::vec3& p, Slot scale) const {
    return eval_volume(sigma_t, volumes, P, p) * P.scalar(scale);
  }
  template <class T>
  Vec3<T> albedo_at(const std::vector<GridVolume>& volumes, const ParamView<T>& P, const glm::vec3& p) const {
    return eval_volume(albedo, volumes, P, p);
  }

  // Delta tracking, cell by cell, with spectral-tracking weights; a grey grid's null collisions
  // multiply one product (weights 1 in value that carry the voxels' derivatives).
  template <class T>
  FreeFlight<T> free_flight(const std::vector<GridVolume>& volumes, const ParamView<T>& P, const Ray& r, float t_end,
                            Sampler& sampler, Slot scale_slot) const {
    using namespace media_detail;
    auto albedo_of = [&](const glm::vec3& p) { return albedo_at(volumes, P, p); };
    if (sigma_t.grid < 0) return constant_free_flight(sigma_t_at(volumes, P, r.o, scale_slot), albedo_of, r, t_end, sampler);
    FreeFlight<T> out;
    const GridVolume& g = volumes[size_t(sigma_t.grid)];
    const T scale = P.scalar(scale_slot);
    const ParamView<float> PF = P.values_only();
    GreyProduct<T> grey(P, scale);
    track(g, r, t_end, value(scale) * majorant_factor, sampler, [&](float t, float mu, const glm::vec3& p) {
      GridVolume::Stencil stencil;
      float v = 0.f;  // a grey grid's value (σt over scale)
      glm::vec3 sigma;
      if (g.channels == 1) {
        stencil = g.stencil(p, 0);
        v = GridVolume::eval_stencil(PF, stencil);
        sigma = glm::vec3(v * value(scale));
      } else {
        sigma = value(g.eval(PF, p) * value(scale));
      }
      const float p_real = std::min(1.f, channel_mean(sigma) / mu);
      if (sampler.next() < p_real) {
        out.scattered = true;
        out.t = t;
        out.weight = out.weight * grid_sigma_t(g, P, p, scale) * albedo_of(r.o + r.d * t) / T(mu * p_real);
        return false;
      }
      if (g.channels == 1) grey.multiply(stencil, v, mu, 1.f - p_real);
      else out.weight = out.weight * (Vec3<T>(T(mu)) - grid_sigma_t(g, P, p, scale)) / T(mu * (1.f - p_real));
      return true;
    });
    if (g.channels == 1) out.weight = out.weight * Vec3<T>(grey.result());
    return out;
  }

  // Ratio tracking (unbiased, drawing from `sampler`).
  template <class T>
  Vec3<T> transmittance(const std::vector<GridVolume>& volumes, const ParamView<T>& P, const Ray& r, float t_end,
                        Sampler& sampler, Slot scale_slot) const {
    using namespace media_detail;
    if (sigma_t.grid < 0) return exp_neg(sigma_t_at(volumes, P, r.o, scale_slot), t_end);
    const GridVolume& g = volumes[size_t(sigma_t.grid)];
    const T scale = P.scalar(scale_slot);
    const ParamView<float> PF = P.values_only();
    if (g.channels == 1) {
      GreyProduct<T> grey(P, scale);
      track(g, r, t_end, value(scale) * majorant_factor, sampler, [&](float, float mu, const glm::vec3& p) {
        const GridVolume::Stencil stencil = g.stencil(p, 0);
        grey.multiply(stencil, GridVolume::eval_stencil(PF, stencil), mu, 1.f);
        return grey.value_now() != 0.f;
      });
      return Vec3<T>(grey.result());
    }
    Vec3<T> tr(T(1.f));
    track(g, r, t_end, value(scale) * majorant_factor, sampler, [&](float, float mu, const glm::vec3& p) {
      tr = tr * (Vec3<T>(T(mu)) - grid_sigma_t(g, P, p, scale)) / T(mu);
      return value(tr) != glm::vec3(0.f);
    });
    return tr;
  }
};

}  // namespace dray
