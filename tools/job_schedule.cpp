// A job's schedule of learning rates and samples (tools/optimize_job.h: ScheduleStep), and the
// gradient pass's own sample count, as Mitsuba's caustics tutorial renders with
// mi.render(spp=2 * spp, spp_grad=spp) and doubles spp while halving the learning rate late.
#include <string>

#include "renderer/integrators/pass.h"
#include "tools/optimize_job.h"

namespace dray::cli {

void read_schedule(const JsonReader& rd, const json& j, Job& job, const RenderSettings& render) {
  if (j.contains("spp_grad")) {
    job.spp_grad = int(rd.integer(j["spp_grad"], "/spp_grad", 1, 1 << 20));
    if (auto why = integrator_refusal(render, PassAsk::gradient(std::nullopt, true))) rd.fail("/spp_grad", *why);
  }
  if (!j.contains("schedule")) return;
  const json& steps = j["schedule"];
  if (!steps.is_array()) rd.fail("/schedule", std::string("must be an array of steps, got ") + steps.type_name());
  int last = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string where = "/schedule/" + std::to_string(i);
    const json& s = steps[i];
    rd.object(s, where, {"after", "lr_factor", "spp_factor"}, {"after"});
    ScheduleStep step;
    step.after = int(rd.integer(s["after"], where + "/after", 1, job.iterations));
    if (step.after <= last) rd.fail(where + "/after", "steps must come after one another (ascending)");
    last = step.after;
    if (s.contains("lr_factor")) step.lr_factor = rd.positive(s["lr_factor"], where + "/lr_factor");
    if (s.contains("spp_factor")) step.spp_factor = int(rd.integer(s["spp_factor"], where + "/spp_factor", 1, 1 << 10));
    job.schedule.push_back(step);
  }
}

void add_schedule_settings(const Job& job, json& settings) {
  if (job.spp_grad > 0) settings["spp_grad"] = job.spp_grad;
  if (job.schedule.empty()) return;
  json steps = json::array();
  for (const ScheduleStep& s : job.schedule)
    steps.push_back({{"after", s.after}, {"lr_factor", s.lr_factor}, {"spp_factor", s.spp_factor}});
  settings["schedule"] = steps;
}

double Job::lr_factor(int it) const {
  double f = 1;
  for (const ScheduleStep& s : schedule)
    if (s.after <= it) f *= s.lr_factor;
  return f;
}

int Job::spp_at(int it) const {
  int n = spp;
  for (const ScheduleStep& s : schedule)
    if (s.after <= it) n *= s.spp_factor;
  return n;
}

int Job::spp_grad_at(int it) const { return spp_grad > 0 ? spp_grad * (spp_at(it) / spp) : spp_at(it); }

std::string schedule_change(const Job& job, int k) {
  for (const ScheduleStep& s : job.schedule) {
    if (s.after != k) continue;
    std::string line;
    if (s.lr_factor != 1) {
      char factor[32];
      std::snprintf(factor, sizeof factor, "x%g", s.lr_factor);
      line = std::string("learning rates ") + factor;
    }
    if (s.spp_factor != 1) {
      line += (line.empty() ? "" : ", ") + std::to_string(job.spp_at(k)) + " spp";
      if (job.spp_grad > 0) line += " (" + std::to_string(job.spp_grad_at(k)) + " for the gradient)";
    }
    return line;
  }
  return {};
}

}  // namespace dray::cli
