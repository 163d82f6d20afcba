#pragma once
// The Python module's plumbing (python/module.cpp holds its calls): errors agreed over ranks,
// numpy arrays to and from images, Ctrl-C during a render, parameter names resolved to scalars,
// and a call's sampling settings.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <csignal>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mpi/context.h"
#include "mpi/errors.h"
#include "renderer/image/image.h"
#include "renderer/scene.h"
#include "renderer/scene_params.h"

namespace dray::python {

namespace py = pybind11;

// A bad scene, parameter or image (the CLI's exit 2): ValueError in Python.
struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs `step` on every rank of ctx and raises the same exception on each if any failed: bad
// input (exit code 2) as BadInput, anything else as RuntimeError.
template <class F>
void agreed(const mpi::Context& ctx, F&& step) {
  const mpi::Status status = mpi::agree_on(ctx, std::forward<F>(step));
  if (status.code == 2) throw BadInput(status.message);
  if (status.code) throw std::runtime_error(status.message);
}

mpi::Context context(std::optional<int> comm);

// A float array owning its buffer: numpy reads it without a copy; the capsule frees it.
py::array_t<float> owned_array(std::vector<float>&& data, std::vector<py::ssize_t> shape);
// Channels [first, first + 3) of a full image as an H×W×3 array.
py::array_t<float> rgb_array(const Image& image, int first);
// An H×W×C float array (C = 1, 3 or 4) as an image.
Image image_of(const py::array_t<float, py::array::c_style | py::array::forcecast>& a, const char* what);

// Ctrl-C during a render of this process alone: while alive, SIGINT stops the render within a row
// of a tile (renderer/integrators/render_tiles.h) instead of waiting for Python's handler, which runs only
// when the render returns; raise_if_interrupted() then raises KeyboardInterrupt. Taken only on the
// main thread with Python's default handler in place (a script's own handler is left alone); under
// MPI (a comm given) a rank cannot stop alone: mpirun ends the job. Made with the GIL held.
class CtrlC {
 public:
  explicit CtrlC(bool alone);
  ~CtrlC();
  bool interrupted() const;
  // Runs `work` (without the GIL); an interrupted render's exception is dropped for KeyboardInterrupt.
  template <class F>
  void run(F&& work) const {
    try {
      work();
    } catch (...) {
      if (!interrupted()) throw;
    }
  }
  void raise_if_interrupted() const;  // with the GIL

 private:
  bool active_ = false;
  struct sigaction old_ {};
};

// Rank 0's image on every rank of ctx.
void share(const mpi::Context& ctx, Image& image);

// Names of parameters resolved for a pass, each with its array shape (a whole parameter: its
// shape, () for a scalar; a component: ()). A name's scalars are the pass's slots (and gradient
// entries) at[i] .. at[i] + size[i] (a range, not an entry a scalar); a scalar named twice (a
// vector and one of its components) is differentiated once: a name within one named before
// shares its entries, one overlapping another in part lists each scalar's entry.
struct Named {
  std::vector<std::string> names;
  std::vector<std::vector<py::ssize_t>> shapes;
  std::vector<size_t> at;
  std::vector<uint32_t> size;
  std::vector<std::vector<size_t>> scattered;  // per name: empty, or each scalar's entry
  std::vector<Slot> slots;
  size_t entry(size_t i, size_t k) const { return scattered[i].empty() ? at[i] + k : scattered[i][k]; }
};

std::vector<py::ssize_t> shape_of(const ParamEntry& e);
Named resolve(const Scene& scene, const std::vector<std::string>& names);

// The integrator's share of the render settings (Mitsuba's integrator object: its depths, its
// kind, its visibility samples, hide_emitters, an aov integrator's AOVs) set from another's.
void take_integrator(RenderSettings& to, const RenderSettings& from);

// A call's samples and integrator, the scene's own restored afterwards; and its view, the sensor
// and seed it names (the scene's own by default) as its passes' shot.
struct Sampling {
  Scene& scene;
  RenderSettings render;
  Shot shot;
  Sampling(Scene& s, std::optional<int> spp_, std::optional<uint64_t> seed_, const std::optional<std::string>& sensor_,
           const std::optional<RenderSettings>& integrator = std::nullopt);
  ~Sampling();
};

int threads_of(const mpi::Context& ctx, std::optional<int> threads);

// The file calls (python/module_images.cpp): write_image, read_image_channels, 8-bit files, read_grid, write_grid.
void bind_images(py::module_& m);
// {curve shape name: {"type", "points" (N x 4), "around", and per tube vertex "kind", "point",
// "axis", "v", "phi", "local" (V x 3)}}: what python/dray/curves.py needs to move the tube.
py::dict curve_tubes(const Scene& scene);

}  // namespace dray::python
