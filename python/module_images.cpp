// The Python module's file calls: images written and read with every channel (Mitsuba's Bitmap,
// python/dray/bitmap.py), 8-bit files, and volume grids (.vol, OpenVDB's .vdb: dray.VolumeGrid).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python/module_support.h"
#include "renderer/image/image.h"
#include "renderer/io/grid_file.h"
#include "renderer/core/load_error.h"

namespace dray::python {

void bind_images(py::module_& m) {
  m.def("write_image", [](const std::string& path, const py::array_t<float, py::array::c_style | py::array::forcecast>& a) {
    try {
      write_image(image_of(a, "image"), path);
    } catch (const std::runtime_error& e) {  // an unreadable or unwritable file
      throw BadInput(e.what());
    }
  });
  m.def("write_image_channels", [](const std::string& path, const py::array_t<float, py::array::c_style | py::array::forcecast>& a,
                                   const std::vector<std::string>& names) {
    Image img = image_of(a, "image");
    if (names.size() != size_t(img.channels)) throw BadInput(path + ": " + std::to_string(names.size()) + " channel names for " + std::to_string(img.channels) + " channels");
    img.channel_names = names;
    try {
      write_image(img, path);
    } catch (const std::runtime_error& e) {
      throw BadInput(e.what());
    }
  });
  m.def("write_8bit_image", [](const std::string& path, const py::array_t<uint8_t, py::array::c_style | py::array::forcecast>& a) {
    if (a.ndim() != 3) throw BadInput(path + ": expected an H×W×C array of 8-bit values");
    try {
      write_8bit_image(path, int(a.shape(1)), int(a.shape(0)), int(a.shape(2)), a.data());
    } catch (const std::runtime_error& e) {
      throw BadInput(e.what());
    }
  });
  // Every channel of an image file (Mitsuba's Bitmap): (H×W×C values, channel names, 8-bit), an
  // 8-bit file's values sRGB-encoded unless `decode`.
  m.def("read_image_channels", [](const std::string& path, bool decode) {
    Image img;
    bool eight_bit = false;
    try {
      img = read_image_channels(path, eight_bit);
    } catch (const std::runtime_error& e) {  // an unreadable file
      throw BadInput(e.what());
    }
    const int h = img.height, w = img.width, c = img.channels;
    if (eight_bit && decode) {  // the colour channels from sRGB to linear, alpha as stored
      const int colour = c >= 3 ? 3 : 1;
      for (size_t i = 0; i < img.data.size(); ++i)
        if (int(i % size_t(c)) < colour) img.data[i] = srgb_to_linear(img.data[i]);
    }
    std::vector<std::string> names = std::move(img.channel_names);
    return py::make_tuple(owned_array(std::move(img.data), {h, w, c}), names, eight_bit);
  }, py::arg("path"), py::arg("decode") = false);
  // A grid file's voxels, Z × Y × X × C, and a grid written in the format its extension names.
  m.def("read_grid", [](const std::string& path) {
    GridVolume g;
    std::vector<float> values;
    try {
      read_grid_file(path, g, values);
    } catch (const LoadError& e) {
      throw BadInput(e.what());
    }
    return owned_array(std::move(values), {g.res.z, g.res.y, g.res.x, g.channels});
  });
  m.def("write_grid", [](const std::string& path, const py::array_t<float, py::array::c_style | py::array::forcecast>& a) {
    if (a.ndim() != 4 || (a.shape(3) != 1 && a.shape(3) != 3))
      throw BadInput(path + ": expected Z x Y x X x C voxels (C 1 or 3)");
    try {
      write_grid_file(path, {int(a.shape(2)), int(a.shape(1)), int(a.shape(0))}, int(a.shape(3)), a.data());
    } catch (const std::runtime_error& e) {
      throw BadInput(e.what());
    }
  });
}

}  // namespace dray::python
