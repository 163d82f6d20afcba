#include "python/module_support.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "mpi/collectives.h"
#include "renderer/integrators/integrator_model.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/camera_reader.h"
#include "renderer/io/scene_loader.h"

namespace dray::python {

mpi::Context context(std::optional<int> comm) { return mpi::Context::attach(comm ? &*comm : nullptr); }

py::array_t<float> owned_array(std::vector<float>&& data, std::vector<py::ssize_t> shape) {
  auto* v = new std::vector<float>(std::move(data));
  py::capsule free_it(v, [](void* p) { delete static_cast<std::vector<float>*>(p); });
  return py::array_t<float>(shape, v->data(), free_it);
}

py::array_t<float> rgb_array(const Image& image, int first) {
  Image rgb = channels_of(image, first, 3);
  return owned_array(std::move(rgb.data), {rgb.height, rgb.width, 3});
}

Image image_of(const py::array_t<float, py::array::c_style | py::array::forcecast>& a, const char* what) {
  if (a.ndim() != 3 && a.ndim() != 2) throw BadInput(std::string(what) + ": expected an H×W×C array, got " + std::to_string(a.ndim()) + " dimensions");
  const int h = int(a.shape(0)), w = int(a.shape(1)), c = a.ndim() == 3 ? int(a.shape(2)) : 1;
  Image img(w, h, c);
  std::memcpy(img.data.data(), a.data(), img.data.size() * sizeof(float));
  return img;
}

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

}  // namespace

extern "C" void dray_python_on_ctrl_c(int) {
  g_interrupted = 1;
  g_render_cancel.store(true, std::memory_order_relaxed);
}

CtrlC::CtrlC(bool alone) {
  if (!alone) return;
  const py::module_ signal = py::module_::import("signal"), threading = py::module_::import("threading");
  if (!threading.attr("current_thread")().is(threading.attr("main_thread")())) return;
  if (!signal.attr("getsignal")(signal.attr("SIGINT")).is(signal.attr("default_int_handler"))) return;
  g_interrupted = 0;
  struct sigaction sa {};
  sa.sa_handler = dray_python_on_ctrl_c;
  sigemptyset(&sa.sa_mask);
  active_ = sigaction(SIGINT, &sa, &old_) == 0;
}

CtrlC::~CtrlC() {
  if (active_) sigaction(SIGINT, &old_, nullptr);
  g_render_cancel = false;
}

bool CtrlC::interrupted() const { return active_ && g_interrupted; }

void CtrlC::raise_if_interrupted() const {
  if (!interrupted()) return;
  PyErr_SetNone(PyExc_KeyboardInterrupt);
  throw py::error_already_set();
}

void share(const mpi::Context& ctx, Image& image) {
  if (ctx.size() == 1) return;
  std::vector<double> px(image.data.begin(), image.data.end());
  mpi::broadcast(ctx, px);
  image.data.assign(px.begin(), px.end());
}

std::vector<py::ssize_t> shape_of(const ParamEntry& e) {
  if (e.block()) return std::vector<py::ssize_t>(e.shape.begin(), e.shape.end());
  if (e.size == 1) return {};
  return {py::ssize_t(e.size)};
}

Named resolve(const Scene& scene, const std::vector<std::string>& names) {
  Named n;
  struct Added {  // a range of the pass's slots: slots[index ..) are slot ..
    Slot slot;
    uint32_t size;
    size_t index;
  };
  std::vector<Added> added;
  for (const std::string& name : names) {
    ParamRange r;
    try {
      r = resolve_range(scene.params, name);
    } catch (const std::runtime_error& e) {
      throw BadInput(e.what());
    }
    n.names.push_back(name);
    const auto e = scene.params.find(name);
    n.shapes.push_back(e ? shape_of(*e) : std::vector<py::ssize_t>{});
    n.size.push_back(r.size);
    // Within a range named before (x[1] after x): its gradient entries; overlapping ones in part
    // (x after x[1]): each scalar's own entry, old or new; else new slots.
    const auto find = [&](Slot s) -> std::optional<size_t> {
      for (const Added& a : added)
        if (s >= a.slot && s < a.slot + a.size) return a.index + (s - a.slot);
      return std::nullopt;
    };
    size_t at = n.slots.size();
    bool inside = false, partly = false;
    for (const Added& a : added) {
      if (!(r.slot < a.slot + a.size && a.slot < r.slot + r.size)) continue;
      if (r.slot >= a.slot && r.slot + r.size <= a.slot + a.size) {
        at = a.index + (r.slot - a.slot);
        inside = true;
      } else {
        partly = true;
      }
      break;
    }
    n.at.push_back(at);
    n.scattered.emplace_back();
    if (inside) continue;
    if (partly) {
      for (uint32_t k = 0; k < r.size; ++k) {
        const std::optional<size_t> old = find(r.slot + k);
        n.scattered.back().push_back(old ? *old : n.slots.size());
        if (!old) {
          added.push_back({r.slot + k, 1, n.slots.size()});
          n.slots.push_back(r.slot + k);
        }
      }
      continue;
    }
    added.push_back({r.slot, r.size, at});
    for (uint32_t k = 0; k < r.size; ++k) n.slots.push_back(r.slot + k);
  }
  return n;
}

void take_integrator(RenderSettings& to, const RenderSettings& from) {
  to.max_depth = from.max_depth;
  to.rr_depth = from.rr_depth;
  to.boundary_samples = from.boundary_samples;
  to.boundary_ratio = from.boundary_ratio;
  to.indirect_samples = from.indirect_samples;
  to.primary_visibility = from.primary_visibility;
  to.shadow_visibility = from.shadow_visibility;
  to.aovs = from.aovs;  // Mitsuba's aov integrator brings its AOVs; any other renders without
  to.integrator = from.integrator;
  to.hide_emitters = from.hide_emitters;
  to.emitter_samples = from.emitter_samples;  // Mitsuba's direct
  to.bsdf_samples = from.bsdf_samples;
}

Sampling::Sampling(Scene& s, std::optional<int> spp_, std::optional<uint64_t> seed_, const std::optional<std::string>& sensor_,
                   const std::optional<RenderSettings>& integrator)
    : scene(s), render(s.render), shot(s.shot()) {
  if (spp_ && *spp_ < 1) throw BadInput("spp must be at least 1, got " + std::to_string(*spp_));
  try {
    if (sensor_) shot.sensor = sensor_index(s, *sensor_);
  } catch (const LoadError& e) {
    throw BadInput(e.what());
  }
  if (seed_) shot.seed = *seed_;
  if (spp_) s.render.spp = *spp_;
  if (integrator) take_integrator(s.render, *integrator);
}

Sampling::~Sampling() { scene.render = render; }

int threads_of(const mpi::Context& ctx, std::optional<int> threads) {
  if (threads && *threads < 1) throw BadInput("threads must be at least 1, got " + std::to_string(*threads));
  return threads ? *threads : ctx.default_threads();
}

py::dict curve_tubes(const Scene& scene) {
  py::dict out;
  for (const CurveTube& tube : scene.curves) {
    const Shape* shape = nullptr;
    for (const Shape& s : scene.shapes)
      if (s.is<MeshShape>() && s.instance < 0 && s.as<MeshShape>().mesh == tube.mesh) shape = &s;
    if (!shape) continue;
    const size_t n = tube.vertices.size();
    std::vector<float> points;
    for (const glm::vec4& p : tube.curves.points) points.insert(points.end(), {p.x, p.y, p.z, p.w});
    py::array_t<uint8_t> kind{py::ssize_t(n)};
    py::array_t<uint32_t> point{py::ssize_t(n)}, axis{py::ssize_t(n)};
    std::vector<float> v(n), phi(n), local(3 * n);
    for (size_t i = 0; i < n; ++i) {
      const CurveVertex& c = tube.vertices[i];
      kind.mutable_at(py::ssize_t(i)) = uint8_t(c.kind);
      point.mutable_at(py::ssize_t(i)) = c.point;
      axis.mutable_at(py::ssize_t(i)) = c.axis;
      v[i] = c.v, phi[i] = c.phi;
      local[3 * i] = c.local.x, local[3 * i + 1] = c.local.y, local[3 * i + 2] = c.local.z;
    }
    py::dict d;
    d["type"] = tube.linear ? "linearcurve" : "bsplinecurve";
    d["points"] = owned_array(std::move(points), {py::ssize_t(tube.curves.points.size()), 4});
    d["around"] = tube.around;
    d["kind"] = kind;
    d["point"] = point;
    d["axis"] = axis;
    d["v"] = owned_array(std::move(v), {py::ssize_t(n)});
    d["phi"] = owned_array(std::move(phi), {py::ssize_t(n)});
    d["local"] = owned_array(std::move(local), {py::ssize_t(n), 3});
    out[py::str(shape->name)] = d;
  }
  return out;
}

}  // namespace dray::python
