// dray's Python module (_dray; python/dray/__init__.py is its face): scenes loaded and updated
// by parameter name, renders and derivative images as numpy arrays, and the gradient of any
// loss from its adjoint image. Every call is collective over `comm` (an mpi4py communicator's
// Fortran handle, or this process alone), and agrees on errors before returning: every rank gets
// the same result or the same exception.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>

#include "ad/adam.h"
#include "mpi/context.h"
#include "mpi/errors.h"
#include "mpi/gradient.h"
#include "mpi/tiles.h"
#include "python/module_support.h"
#include "renderer/core/registry.h"
#include "renderer/image/image.h"
#include "renderer/integrators/integrator_model.h"
#include "renderer/integrators/render_tiles.h"
#include "renderer/io/json_reader.h"
#include "renderer/io/camera_reader.h"
#include "renderer/io/render_settings_reader.h"
#include "renderer/io/scene_loader.h"
#include "renderer/scene_params.h"
#include "renderer/io/scene_reshape.h"
#include "renderer/sensors/film.h"
#include "renderer/shapes/shape.h"

namespace py = pybind11;
using namespace dray;
using namespace dray::python;

namespace {

Scene load(const std::string& path, const std::string& json_text, const std::vector<std::string>& overrides,
           const std::map<std::string, std::string>& defines) {
  try {
    if (json_text.empty()) return load_scene(path, overrides, true, defines);
    nlohmann::json doc = nlohmann::json::parse(json_text);
    for (const std::string& o : overrides) apply_override(doc, o);
    return load_scene(doc, path);
  } catch (const LoadError& e) {
    throw BadInput(e.what());
  }
}

// A Mitsuba XML file as the scene document dray reads (the converter's output, as dray convert).
std::string mitsuba_document(const std::string& path, const std::map<std::string, std::string>& defines) {
  try {
    std::vector<std::string> warnings;
    return read_scene_document(path, defines, warnings).dump();
  } catch (const LoadError& e) {
    throw BadInput(e.what());
  }
}

// Adds a sensor (a scene document's camera object) to a loaded scene; its index.
int add_scene_sensor(Scene& scene, const std::string& name, const std::string& camera_json) {
  try {
    const JsonReader rd(scene.path);
    return add_sensor(scene, name, read_camera(rd, nlohmann::json::parse(camera_json), "/camera"));
  } catch (const LoadError& e) {
    throw BadInput(e.what());
  }
}

// The mesh of shape NAME when `name` is shapes.NAME<suffix>, or null.
const Mesh* named_mesh(const Scene& scene, const std::string& name, const std::string& suffix) {
  if (name.rfind("shapes.", 0) != 0 || name.size() <= 7 + suffix.size() ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return nullptr;
  const std::string shape = name.substr(7, name.size() - 7 - suffix.size());
  for (const Shape& s : scene.shapes)
    if (s.name == shape && s.is<MeshShape>()) return &scene.meshes[s.as<MeshShape>().mesh];
  return nullptr;
}

// Scene values that are not parameters, by the names Mitsuba's keys stand for
// (renderer/io/mitsuba_keys.h): shapes.NAME.faces (F×3), shapes.NAME.texcoords (V×2: each
// vertex's UV, as its corners carry it), camera.near_clip, camera.far_clip.
py::object scene_value(const Scene& scene, const std::string& name) {
  if (name == "camera.near_clip" || name == "camera.far_clip") {
    const CameraSettings c = camera_settings(scene, 0);
    return py::float_(name == "camera.near_clip" ? c.near_clip : c.far_clip);
  }
  if (const Mesh* m = named_mesh(scene, name, ".faces")) {
    py::array_t<uint32_t> faces({py::ssize_t(m->indices.size() / 3), py::ssize_t(3)});
    std::copy(m->indices.begin(), m->indices.end(), faces.mutable_data());
    return py::object(faces);
  }
  if (const Mesh* m = named_mesh(scene, name, ".texcoords")) {
    if (m->corner_uvs.empty()) throw BadInput(name + ": the mesh has no texture coordinates");
    py::array_t<float> uv({py::ssize_t(m->object_positions.size()), py::ssize_t(2)});
    float* out = uv.mutable_data();
    std::fill(out, out + 2 * m->object_positions.size(), 0.f);  // a vertex of no face
    for (size_t c = 0; c < m->indices.size(); ++c) {
      out[2 * m->indices[c]] = m->corner_uvs[c].x;
      out[2 * m->indices[c] + 1] = m->corner_uvs[c].y;
    }
    return py::object(uv);
  }
  throw BadInput("unknown scene value " + name);
}

// A name's scalars: a contiguous range of the table (BadInput for an unknown name or index).
ParamRange range_of(const Scene& scene, const std::string& name) {
  try {
    return resolve_range(scene.params, name);
  } catch (const std::runtime_error& e) {
    throw BadInput(e.what());
  }
}

// One parameter's values (NAME, NAME[i], NAME[i,j,c]) in its shape.
py::array_t<float> param(const Scene& scene, const std::string& name) {
  const ParamRange r = range_of(scene, name);
  const auto first = scene.params.values().begin() + r.slot;
  const auto e = scene.params.find(name);
  return owned_array(std::vector<float>(first, first + r.size), e ? shape_of(*e) : std::vector<py::ssize_t>{});
}

// Values projected in place onto the parameter's domain (the optimizer's projection): the nearest
// allowed, rounded to float as the scene holds them. `values` is a writable C-ordered float64 array.
void project_values(const Scene& scene, const std::string& name, py::array_t<double, py::array::c_style> values) {
  const ParamRange r = range_of(scene, name);
  if (size_t(values.size()) != r.size)
    throw BadInput(name + ": has " + std::to_string(r.size) + " values, got " + std::to_string(values.size()));
  if (r.size == 0) return;
  const Domain d = entry_of(scene.params, r.slot).domain;  // a name's scalars are one entry's
  double* v = values.mutable_data();
  for (size_t k = 0; k < r.size; ++k) v[k] = double(d.project(v[k]));
}

py::dict params(const Scene& scene) {
  py::dict out;
  for (const ParamEntry& e : scene.params.entries()) {
    std::vector<float> v(scene.params.values().begin() + e.slot, scene.params.values().begin() + e.slot + e.size);
    out[py::str(e.name)] = owned_array(std::move(v), shape_of(e));
  }
  return out;
}

// Whether a new value gives a block another shape (another size, or another shape of as many
// dimensions): a grid resampled, a bitmap resized, a mesh's vertices remeshed.
bool reshapes(const std::optional<ParamEntry>& e, const std::string& name, const py::array& a) {
  if (!e || !e->block() || name.find('[') != std::string::npos) return false;
  if (size_t(a.size()) != e->size) return true;
  if (size_t(a.ndim()) != e->shape.size()) return false;
  for (size_t d = 0; d < e->shape.size(); ++d)
    if (size_t(a.shape(py::ssize_t(d))) != e->shape[d]) return true;
  return false;
}

// All or nothing through the parameters' rules (renderer/scene_params.h): ValueError naming the
// parameter and the rule, the scene unchanged. A block given another shape, and a mesh given new
// faces ({shape name: F×3}), change on a copy of the scene that replaces it when all is well.
void update(Scene& scene, const py::dict& values, const py::dict& faces) {
  std::vector<ParamUpdate> updates;
  std::vector<BlockReshape> reshaped;
  std::vector<FacesUpdate> new_faces;
  for (auto [key, value] : values) {
    if (!py::isinstance<py::str>(key)) throw BadInput("parameter names are strings, got " + std::string(py::str(py::type::of(key))));
    const std::string name = py::str(key);
    py::array_t<float, py::array::c_style | py::array::forcecast> a;
    try {
      a = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(value);
    } catch (const py::error_already_set&) {
    }
    if (!a) throw BadInput(name + ": expected a number or an array of numbers, got " + std::string(py::str(py::type::of(value))));
    std::vector<float> v(a.data(), a.data() + a.size());
    if (const auto e = scene.params.find(name); reshapes(e, name, a)) {
      std::vector<uint32_t> shape(a.shape(), a.shape() + a.ndim());
      reshaped.push_back({e->name, std::move(v), std::move(shape)});
    } else {
      updates.push_back({name, std::move(v)});
    }
  }
  for (auto [key, value] : faces) {
    const auto a = py::array_t<uint32_t, py::array::c_style | py::array::forcecast>::ensure(value);
    if (!a) throw BadInput(std::string(py::str(key)) + ".faces: expected an array of vertex indices");
    new_faces.push_back({py::str(key), std::vector<uint32_t>(a.data(), a.data() + a.size())});
  }
  try {
    if (reshaped.empty() && new_faces.empty()) return update_params(scene, updates);
    Scene trial = scene;
    reshape_blocks(trial, reshaped, new_faces);
    update_params(trial, updates);  // and the geometry rebuilt
    trial.build_geometry();
    scene = std::move(trial);
  } catch (const LoadError& e) {
    throw BadInput(std::string(e.what()) + " (scene.params() lists the parameters; nothing was changed)");
  }
}

py::array_t<float> render(Scene& scene, std::optional<int> spp, std::optional<uint64_t> seed, std::optional<int> threads,
                          std::optional<int> comm, const std::optional<std::string>& sensor,
                          const std::optional<RenderSettings>& integrator) {
  Image film;
  mpi::RenderJob job;
  const CtrlC ctrl_c(!comm);
  {
    py::gil_scoped_release free;
    const mpi::Context ctx = context(comm);
    agreed(ctx, [&] { job.threads = threads_of(ctx, threads); });
    Sampling sampling(scene, spp, seed, sensor, integrator);  // an aov integrator given brings its AOVs
    job.shot = sampling.shot;
    job.outputs = with_aovs(job.outputs, scene);
    ctrl_c.run([&] {
      Image image = mpi::render_image(ctx, scene, job);
      share(ctx, image);
      film = develop(image, job.outputs, scene.render.pixel_format, scene.render.aovs);  // the pixel format's channels, the AOVs'
    });
  }
  ctrl_c.raise_if_interrupted();
  return owned_array(std::move(film.data), {film.height, film.width, film.channels});
}

py::dict render_forward(Scene& scene, const std::vector<std::string>& wrt, std::optional<int> spp,
                        std::optional<uint64_t> seed, std::optional<int> threads, std::optional<int> comm,
                        const std::optional<std::string>& sensor, const std::optional<RenderSettings>& integrator) {
  Image image;
  Named n;
  mpi::RenderJob job;
  const CtrlC ctrl_c(!comm);
  {
    py::gil_scoped_release free;
    const mpi::Context ctx = context(comm);
    agreed(ctx, [&] {
      job.threads = threads_of(ctx, threads);
      n = resolve(scene, wrt);
    });
    job.outputs.wrt = n.slots;
    Sampling sampling(scene, spp, seed, sensor, integrator);
    job.shot = sampling.shot;
    ctrl_c.run([&] {
      image = mpi::render_image(ctx, scene, job);
      share(ctx, image);
    });
  }
  ctrl_c.raise_if_interrupted();
  py::dict out;
  for (size_t i = 0; i < n.names.size(); ++i) {
    if (n.size[i] == 1) {
      out[py::str(n.names[i])] = rgb_array(image, job.outputs.derivative_channel(n.entry(i, 0)));
      continue;
    }
    py::list parts;  // a vector or block: one image per scalar
    for (size_t k = 0; k < n.size[i]; ++k) parts.append(rgb_array(image, job.outputs.derivative_channel(n.entry(i, k))));
    out[py::str(n.names[i])] = parts;
  }
  return out;
}

py::dict backward(Scene& scene, const py::array_t<float, py::array::c_style | py::array::forcecast>& d_image,
                  const std::vector<std::string>& wrt, std::optional<int> spp, uint64_t seed, std::optional<int> threads,
                  std::optional<int> comm, const std::optional<std::string>& sensor,
                  const std::optional<RenderSettings>& integrator) {
  Named n;
  mpi::DistributedGradient g;
  const CtrlC ctrl_c(!comm);
  {
    py::gil_scoped_release free;
    const mpi::Context ctx = context(comm);
    Image adjoint;
    int nthreads = 1;
    Sampling sampling(scene, spp, seed, sensor, integrator);
    agreed(ctx, [&] {
      nthreads = threads_of(ctx, threads);
      n = resolve(scene, wrt);
      py::gil_scoped_acquire hold;  // the array is a Python object
      adjoint = image_of(d_image, "d_image");
      const Camera& camera = scene.camera(sampling.shot);
      if (adjoint.width != camera.width || adjoint.height != camera.height || adjoint.channels != 3)
        throw BadInput("d_image is " + std::to_string(adjoint.height) + "x" + std::to_string(adjoint.width) + "x" +
                       std::to_string(adjoint.channels) + " but the scene renders " + std::to_string(camera.height) + "x" +
                       std::to_string(camera.width) + "x3");
    });
    // The adjoint replays the primal's samples (seed): the exact gradient of sum d_image * image
    // for that image.
    ctrl_c.run([&] { g = mpi::gradient(ctx, scene, sampling.shot, adjoint, Loss::adjoint, n.slots, 8, nthreads, seed, nullptr, 1.0); });
  }
  ctrl_c.raise_if_interrupted();
  py::dict out;
  for (size_t i = 0; i < n.names.size(); ++i) {
    std::vector<float> v(n.size[i]);
    for (size_t k = 0; k < n.size[i]; ++k) v[k] = float(g.gradient[n.entry(i, k)]);
    out[py::str(n.names[i])] = owned_array(std::move(v), n.size[i] == 1 ? std::vector<py::ssize_t>{} : n.shapes[i]);
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_dray, m) {
  m.doc() = "dray's C++ core (use the dray package)";
  py::register_exception<BadInput>(m, "BadInput", PyExc_ValueError);
  // An error agreed by every rank: bad input (the CLI's exit 2) as ValueError, a bug as RuntimeError.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const mpi::AgreedError& e) {
      PyErr_SetString(e.status.code == 2 ? PyExc_ValueError : PyExc_RuntimeError, e.what());
    } catch (const LoadError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  py::class_<Scene>(m, "Scene", py::dynamic_attr())  // Python keeps a sensor's last film on it
      .def_property_readonly("width", [](const Scene& s) { return s.own_camera().width; })
      .def_property_readonly("height", [](const Scene& s) { return s.own_camera().height; })
      .def_property_readonly("sensors",
                             [](const Scene& s) {
                               std::vector<std::string> names;
                               for (const Sensor& x : s.sensors) names.push_back(x.name);
                               return names;
                             },
                             "The sensors' names, in order (sensor=I or NAME of render, render_forward, backward).")
      .def_property_readonly("channels",
                             [](const Scene& s) { return film_channel_names(s.render.pixel_format, s.render.aovs); },
                             "The channels of render()'s image: the colour as render.pixel_format keeps it (R, G, B by "
                             "default), then the AOVs' (render.aovs, Mitsuba's aov).")
      .def_property_readonly("spp", [](const Scene& s) { return s.render.spp; })
      .def_property_readonly("seed", [](const Scene& s) { return s.render.seed; })
      .def_property_readonly("path", [](const Scene& s) { return s.path; })
      .def("_values", &params, "{name: numpy array} of every parameter (copies); Scene.params() is the live mapping")
      .def("_param", &param, py::arg("name"))
      .def("_project", &project_values, py::arg("name"), py::arg("values"))
      .def("_add_sensor", &add_scene_sensor, py::arg("name"), py::arg("camera_json"))
      .def("_scene_value", &scene_value, py::arg("name"))
      .def("_curves", &curve_tubes, "{curve shape name: its control points and its tube's vertex recipe}")
      .def("_mitsuba_keys", [](const Scene& s) { return s.params.mitsuba_keys(); },
           "[(Mitsuba's key, dray's name)]: the keys mi.traverse gives the scene's values")
      .def("update", &update, py::arg("values"), py::arg("faces") = py::dict(),
           "Sets parameters from {name: array}; a block given another shape (a grid, a bitmap, a mesh's vertices) and "
           "meshes given new faces ({shape name: F x 3}) change size; rebuilds the geometry when it moves.");
  m.def("load", &load, py::arg("path"), py::arg("json_text"), py::arg("overrides"), py::arg("defines"));
  m.def("mitsuba_document", &mitsuba_document, py::arg("path"), py::arg("defines"));
  m.def("render", &render, py::arg("scene"), py::arg("spp"), py::arg("seed"), py::arg("threads"), py::arg("comm"),
        py::arg("sensor"), py::arg("integrator") = std::nullopt);
  m.def("render_forward", &render_forward, py::arg("scene"), py::arg("wrt"), py::arg("spp"), py::arg("seed"),
        py::arg("threads"), py::arg("comm"), py::arg("sensor"), py::arg("integrator") = std::nullopt);
  m.def("backward", &backward, py::arg("scene"), py::arg("d_image"), py::arg("wrt"), py::arg("spp"), py::arg("seed"),
        py::arg("threads"), py::arg("comm"), py::arg("sensor"), py::arg("integrator") = std::nullopt);
  // An integrator loaded alone (dray.load_dict of an integrator dict): the render settings its
  // scene document gives, of which render(integrator=) takes the integrator's share.
  py::class_<RenderSettings>(m, "IntegratorSettings");
  m.def("integrator_settings", [](const std::string& render_json) {
    try {
      return read_render_settings(JsonReader("load_dict"), nlohmann::json::parse(render_json), Camera{});
    } catch (const LoadError& e) {
      throw BadInput(e.what());
    }
  });
  // A registry's plugin names (core/registry.h), comma-separated: load_dict tells a dict's kind by them.
  m.def("plugin_names", [](const std::string& kind) {
    if (kind == "phase") return plugin_names<Phase>();
    if (kind == "bsdf") return plugin_names<Bsdf>();
    if (kind == "texture") return plugin_names<TextureModel>();
    if (kind == "sensor") return plugin_names<SensorModel>();
    if (kind == "medium") return plugin_names<MediumModel>();
    if (kind == "emitter") return plugin_names<EmitterModel>();
    if (kind == "integrator") return mitsuba_integrator_names();  // Mitsuba's names dray renders
    if (kind == "shape") return mitsuba_shape_names();            // Mitsuba's shape types the plugins read
    throw BadInput("plugin_names: no registry of kind \"" + kind + "\" (phase, bsdf, texture, sensor, medium, emitter, integrator, shape)");
  });
  // The one Adam (ad/adam.h) for dray.ad.Adam: m and v (float64, C-contiguous) advance in place.
  using Doubles = py::array_t<double, py::array::c_style>;
  // The step is written over the gradient (a float64 array is taken as it is: the caller's own
  // copy, which the step replaces; no other array of the parameter's size) and returned.
  m.def("adam_step", [](Doubles gradient, Doubles m, Doubles v, long t, double beta_1, double beta_2, double epsilon,
                        bool uniform, bool mask_updates) {
    const size_t n = size_t(gradient.size());
    if (size_t(m.size()) != n || size_t(v.size()) != n) throw BadInput("adam_step: the gradient and moments differ in size");
    double* g = gradient.mutable_data();
    ad::adam_step({g, n}, {m.mutable_data(), n}, {v.mutable_data(), n}, t, {beta_1, beta_2, epsilon, uniform, mask_updates}, {g, n});
    return gradient;
  }, py::arg("gradient"), py::arg("m"), py::arg("v"), py::arg("t"), py::arg("beta_1"), py::arg("beta_2"),
        py::arg("epsilon"), py::arg("uniform"), py::arg("mask_updates"));
  // The channels render() gives (the colour, an integrator's or the scene's AOVs): a film's names.
  m.def("channel_names", [](const Scene& s, const std::optional<RenderSettings>& integrator) {
    return film_channel_names(s.render.pixel_format, integrator ? integrator->aovs : s.render.aovs);
  }, py::arg("scene"), py::arg("integrator") = std::nullopt);
  bind_images(m);
}
