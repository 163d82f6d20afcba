#include "tools/optimize_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "renderer/core/atomic_file.h"
#include "renderer/image/colormap.h"
#include "renderer/io/scene_loader.h"
#include "renderer/scene_params.h"

namespace fs = std::filesystem;

namespace dray::cli {

namespace {

std::string base64(const std::vector<unsigned char>& bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const size_t n = bytes.size();
  std::string out;
  out.reserve((n + 2) / 3 * 4);
  for (size_t i = 0; i < n; i += 3) {
    unsigned v = unsigned(bytes[i]) << 16;
    if (i + 1 < n) v |= unsigned(bytes[i + 1]) << 8;
    if (i + 2 < n) v |= unsigned(bytes[i + 2]);
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += i + 1 < n ? digits[(v >> 6) & 63] : '=';
    out += i + 2 < n ? digits[v & 63] : '=';
  }
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : c == '"' ? "&quot;" : std::string(1, c);
  return out;
}

struct Series {
  std::string name, colour;
  std::vector<double> x, y;
};

// A line chart as inline SVG: the series over their common x range, y linear or log10 (values
// <= 0 left out), the range's ends labelled; `level` (if finite) a dashed horizontal line (a
// parameter's true value).
std::string chart(const std::string& title, const std::vector<Series>& series, bool log_y, double level, int w, int h) {
  auto fy = [&](double v) { return log_y ? std::log10(v) : v; };
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (const Series& s : series)
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.y[i]) || (log_y && !(s.y[i] > 0))) continue;
      x0 = std::min(x0, s.x[i]), x1 = std::max(x1, s.x[i]);
      y0 = std::min(y0, fy(s.y[i])), y1 = std::max(y1, fy(s.y[i]));
    }
  if (std::isfinite(level) && (!log_y || level > 0)) y0 = std::min(y0, fy(level)), y1 = std::max(y1, fy(level));
  std::ostringstream o;
  o << "<svg class=\"chart\" width=\"" << w << "\" height=\"" << h << "\" viewBox=\"0 0 " << w << " " << h
    << "\" xmlns=\"http://www.w3.org/2000/svg\"><text x=\"6\" y=\"14\" class=\"title\">" << escape(title) << "</text>";
  if (!(x0 <= x1) || !(y0 <= y1)) return o.str() + "<text x=\"6\" y=\"40\">no data yet</text></svg>";
  if (x1 == x0) x1 = x0 + 1;
  if (y1 == y0) y0 -= 0.5, y1 += 0.5;
  const double l = 62, r = w - 8, t = 22, b = h - 20;
  auto px = [&](double x) { return l + (x - x0) / (x1 - x0) * (r - l); };
  auto py = [&](double y) { return b - (y - y0) / (y1 - y0) * (b - t); };
  auto label = [&](double y) { return number(log_y ? std::pow(10.0, y) : y); };
  o << "<rect x=\"" << l << "\" y=\"" << t << "\" width=\"" << r - l << "\" height=\"" << b - t << "\" class=\"frame\"/>"
    << "<text x=\"" << l - 4 << "\" y=\"" << t + 4 << "\" class=\"ylabel\">" << label(y1) << "</text>"
    << "<text x=\"" << l - 4 << "\" y=\"" << b << "\" class=\"ylabel\">" << label(y0) << "</text>"
    << "<text x=\"" << l << "\" y=\"" << h - 6 << "\">" << number(x0) << "</text>"
    << "<text x=\"" << r << "\" y=\"" << h - 6 << "\" class=\"end\">" << number(x1) << "</text>";
  if (std::isfinite(level) && (!log_y || level > 0))
    o << "<line x1=\"" << l << "\" x2=\"" << r << "\" y1=\"" << py(fy(level)) << "\" y2=\"" << py(fy(level))
      << "\" class=\"truth\"><title>true value " << number(level) << "</title></line>";
  for (size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    o << "<polyline fill=\"none\" stroke=\"" << s.colour << "\" points=\"";
    for (size_t i = 0; i < s.x.size(); ++i)
      if (std::isfinite(s.y[i]) && (!log_y || s.y[i] > 0)) o << px(s.x[i]) << "," << py(fy(s.y[i])) << " ";
    o << "\"><title>" << escape(s.name) << "</title></polyline>";
    if (series.size() > 1)
      o << "<text x=\"" << r - 4 << "\" y=\"" << t + 14 + 12 * double(k) << "\" class=\"end\" fill=\"" << s.colour << "\">"
        << escape(s.name) << "</text>";
  }
  return o.str() + "</svg>";
}

// The loss curve smoothed: each iteration's mean with the (up to) n - 1 before it.
constexpr size_t kSmoothing = 10;
std::vector<double> trailing_mean(const std::vector<double>& y, size_t n) {
  std::vector<double> out(y.size());
  double sum = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    sum += y[i] - (i >= n ? y[i - n] : 0.0);
    out[i] = sum / double(std::min(i + 1, n));
  }
  return out;
}

}  // namespace

std::string png_data(const std::vector<unsigned char>& bytes) { return "data:image/png;base64," + base64(bytes); }

std::vector<double> known_truth(const Job& job) {
  std::vector<double> out;
  Scene truth;
  bool loaded = false;
  if (!job.views.empty() && !job.views[0].target_scene.empty()) try {
      truth = load_scene(job.views[0].target_scene, {}, false);
      loaded = true;
    } catch (const std::exception&) {
    }
  for (const auto& listed : job.listed_scalars()) {
    double v = NAN;
    if (loaded) try {
        v = truth.params.get(resolve_range(truth.params, listed.first).slot);
      } catch (const std::exception&) {
      }
    out.push_back(v);
  }
  return out;
}

Report::Report(const Job& job, std::vector<double> truth) : job_(job), truth_(std::move(truth)) {
  for (const auto& listed : job.listed_scalars()) names_.push_back(listed.first);
}

void Report::add_csv_lines(const std::vector<std::string>& lines) {
  for (const std::string& line : lines) {
    std::vector<double> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) f.push_back(std::atof(cell.c_str()));
    if (f.size() < 5 + names_.size()) continue;  // the header, or a torn line
    ReportRow row{int(f[0]), f[1], f[2], f.back(), std::vector<double>(f.begin() + 4, f.begin() + 4 + long(names_.size()))};
    rows_.push_back(std::move(row));
  }
}

void Report::add_snapshot(int iteration, int view, const fs::path& png) {
  std::ifstream f(png, std::ios::binary);
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.empty()) return;
  snapshots_.push_back({iteration, view, png_data(bytes)});
  if (snapshots_.size() > 12) snapshots_.pop_front();
}

void Report::set_images(int view, const Image& target, const Image& current) {
  view_ = view;
  target_png_ = png_data(png_bytes(target));
  current_png_ = png_data(png_bytes(current));
  std::vector<float> diff(size_t(target.width) * size_t(target.height));
  for (size_t i = 0; i < diff.size(); ++i)
    for (int c = 0; c < 3; ++c) diff[i] += std::fabs(current.data[3 * i + size_t(c)] - target.data[3 * i + size_t(c)]) / 3.f;
  const float scale = std::max(abs_quantile(diff, 0.99), 1e-6f);
  difference_png_ = png_data(png_bytes(heatmap(diff, target.width, target.height, scale)));
}

void Report::write(const fs::path& file, const RunFacts& facts) const { write_text_file(file, html(facts)); }

std::string Report::html(const RunFacts& facts) const {
  std::vector<double> it, loss, norm;
  for (const ReportRow& r : rows_) it.push_back(r.iteration), loss.push_back(r.loss), norm.push_back(r.gradient_norm);
  const std::vector<double> smooth = trailing_mean(loss, kSmoothing);
  const int done = rows_.empty() ? 0 : rows_.back().iteration;
  using Status = RunFacts::Status;
  const std::string status = facts.status == Status::finished      ? "finished"
                             : facts.status == Status::interrupted ? "interrupted at iteration " + std::to_string(done) +
                                                                         " (continue it with --resume from its last checkpoint)"
                                                                   : "running (this page reloads every 10 s)";
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  if (facts.status == Status::running) o << "<meta http-equiv=\"refresh\" content=\"10\">";
  o << "<title>dray optimize: " << escape(job_.file) << "</title><style>"
    << "body{font:14px sans-serif;margin:16px;color:#222}h1{font-size:18px}h2{font-size:15px;margin:18px 0 6px}"
    << ".chart{background:#fafafa;margin:4px}.chart text{font-size:11px}.chart .title{font-weight:bold}"
    << ".chart .ylabel,.chart .end{text-anchor:end}.frame{fill:none;stroke:#bbb}.truth{stroke:#2a2;stroke-dasharray:4 3}"
    << "polyline{stroke-width:1.5}td{padding:2px 10px 2px 0}figure{display:inline-block;margin:4px}"
    << "img{width:256px;image-rendering:pixelated;border:1px solid #ccc}.strip img{width:128px}</style></head><body>\n"
    << "<h1>dray optimize " << escape(job_.file) << "</h1>\n<table>"
    << "<tr><td>status</td><td id=\"status\">" << escape(status) << "; iteration " << done << " of " << job_.iterations
    << "</td></tr>"
    << "<tr><td>ranks × threads</td><td>" << facts.ranks << " × " << facts.threads << "</td></tr>"
    << "<tr><td>time</td><td>" << number(facts.seconds) << " s, MPI communication "
    << number(facts.seconds > 0 ? 100 * facts.mpi_seconds / facts.seconds : 0.0) << "% of it</td></tr>"
    << "<tr><td>views</td><td>" << job_.views.size() << (job_.batch > 0 ? ", " + std::to_string(job_.batch) + " per iteration" : "")
    << "</td></tr><tr><td>optimizer</td><td>" << escape(job_.optimizer) << ", loss " << escape(job_.loss_name) << ", "
    << job_.scalar_count() << " scalars, " << job_.spp << " spp</td></tr>";
  if (!rows_.empty()) {
    // A single iteration's loss is noisy (its samples): the best and the final, and the final smoothed.
    const size_t best = size_t(std::min_element(loss.begin(), loss.end()) - loss.begin());
    o << "<tr><td>loss</td><td id=\"loss\">best " << number(loss[best]) << " (iteration " << rows_[best].iteration << "), final "
      << number(loss.back()) << ", final mean of " << std::min<size_t>(kSmoothing, loss.size()) << " iterations "
      << number(smooth.back()) << " (first " << number(loss.front()) << ")</td></tr>";
  }
  o << "</table>\n<h2>Loss and gradient</h2>\n"
    << chart("loss (log scale)", {{"loss", "#e9a0a0", it, loss}, {"mean of " + std::to_string(kSmoothing), "#c33", it, smooth}}, true,
             NAN, 480, 220)
    << chart("gradient norm (log scale)", {{"|grad|", "#36c", it, norm}}, true, NAN, 480, 220) << "\n";
  if (!names_.empty()) {
    o << "<h2>Parameters</h2>\n";
    const size_t shown = std::min<size_t>(names_.size(), 24);
    for (size_t k = 0; k < shown; ++k) {
      std::vector<double> v;
      for (const ReportRow& r : rows_) v.push_back(r.values[k]);
      const std::string truth = std::isfinite(truth_[k]) ? " (truth " + number(truth_[k]) + ")" : "";
      o << chart(names_[k] + truth, {{names_[k], "#333", it, v}}, false, truth_[k], 300, 150);
    }
    if (shown < names_.size()) o << "<p>" << names_.size() - shown << " more in progress.csv</p>";
    o << "\n";
  }
  if (!target_png_.empty())
    o << "<h2>View " << view_ << ": target, current, difference</h2>\n<figure><img alt=\"target\" src=\"" << target_png_
      << "\"><figcaption>target</figcaption></figure><figure><img alt=\"current\" src=\"" << current_png_
      << "\"><figcaption>current (latest snapshot)</figcaption></figure><figure><img alt=\"difference\" src=\""
      << difference_png_ << "\"><figcaption>|current − target| (heat map, 99th percentile white)</figcaption></figure>\n";
  if (!snapshots_.empty()) {
    o << "<h2>Snapshots</h2>\n<div class=\"strip\">";
    for (const Snapshot& s : snapshots_)
      o << "<figure><img alt=\"iteration " << s.iteration << "\" src=\"" << s.png << "\"><figcaption>iteration " << s.iteration
        << (job_.views.size() > 1 ? ", view " + std::to_string(s.view) : std::string()) << "</figcaption></figure>";
    o << "</div>\n";
  }
  for (const Slices& s : slices_) {
    o << "<h2>" << escape(s.name) << ": middle slices</h2>\n<div class=\"strip\">";
    for (const auto& [caption, png] : s.images)
      o << "<figure><img alt=\"" << escape(caption) << "\" src=\"" << png << "\"><figcaption>" << escape(caption) << "</figcaption></figure>";
    o << "</div>\n";
  }
  // For tests and people: how many images decoded (Chromium's --dump-dom shows it).
  o << "<script>window.addEventListener('load',()=>{const i=[...document.images];"
       "document.body.dataset.imagesLoaded=i.filter(x=>x.complete&&x.naturalWidth>0).length+'/'+i.length;});</script>\n"
    << "</body></html>\n";
  return o.str();
}

}  // namespace dray::cli
