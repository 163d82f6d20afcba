#include "renderer/io/vdb_file.h"

#include <cmath>
#include <mutex>
#include <stdexcept>

#include <openvdb/io/File.h>
#include <openvdb/math/Maps.h>
#include <openvdb/openvdb.h>

#include "renderer/core/atomic_file.h"
#include "renderer/core/load_error.h"

namespace dray {

namespace {

void initialize_openvdb() {
  static std::once_flag once;
  std::call_once(once, [] { openvdb::initialize(); });
}

// The file's grid to read: "density" if it has one, else its first float or vec3 grid.
openvdb::GridBase::Ptr pick_grid(const std::string& path, openvdb::io::File& file) {
  openvdb::GridPtrVecPtr grids = file.readAllGridMetadata();
  std::string names;
  openvdb::GridBase::Ptr first;
  for (const openvdb::GridBase::Ptr& g : *grids) {
    names += (names.empty() ? "" : ", ") + g->getName() + " (" + g->valueType() + ")";
    const bool supported = g->isType<openvdb::FloatGrid>() || g->isType<openvdb::Vec3SGrid>();
    if (supported && g->getName() == "density") return file.readGrid(g->getName());
    if (supported && !first) first = g;
  }
  if (!first)
    throw LoadError(path + ": no float or vec3s grid to read (the file holds: " + (names.empty() ? "no grids" : names) + ")");
  return file.readGrid(first->getName());
}

// The dense values of grid g over box (x fastest, the channels innermost).
template <class Grid>
void dense_values(const Grid& grid, const openvdb::CoordBBox& box, int channels, std::vector<float>& values) {
  const openvdb::Coord lo = box.min(), dim = box.dim();
  values.resize(size_t(dim.x()) * size_t(dim.y()) * size_t(dim.z()) * size_t(channels));
  auto acc = grid.getConstAccessor();
  size_t i = 0;
  for (int z = 0; z < dim.z(); ++z)
    for (int y = 0; y < dim.y(); ++y)
      for (int x = 0; x < dim.x(); ++x) {
        const auto v = acc.getValue(lo + openvdb::Coord(x, y, z));
        if constexpr (std::is_same_v<Grid, openvdb::FloatGrid>) {
          values[i++] = v;
        } else {
          for (int c = 0; c < 3; ++c) values[i++] = v[c];
        }
      }
}

template <class Grid, class Value>
void write_grid(const std::string& path, const glm::ivec3& res, const float* values, const std::string& name, Value&& value_at) {
  typename Grid::Ptr grid = Grid::create();
  grid->setName(name);
  auto acc = grid->getAccessor();
  size_t i = 0;
  for (int z = 0; z < res.z; ++z)
    for (int y = 0; y < res.y; ++y)
      for (int x = 0; x < res.x; ++x, ++i) acc.setValueOn(openvdb::Coord(x, y, z), value_at(values, i));
  grid->tree().prune();  // constant regions become (active) tiles: exact, as the tolerance is 0
  // Voxel centres at (i + 0.5) / res: the unit cube.
  const openvdb::Vec3d scale(1.0 / res.x, 1.0 / res.y, 1.0 / res.z);
  grid->setTransform(std::make_shared<openvdb::math::Transform>(
      std::make_shared<openvdb::math::ScaleTranslateMap>(scale, 0.5 * scale)));
  grid->setGridClass(openvdb::GRID_FOG_VOLUME);
  replace_file(path, [&](const std::string& tmp) {
    openvdb::io::File file(tmp);
    file.write({grid});
    file.close();
  });
}

}  // namespace

void read_vdb_file(const std::string& path, GridVolume& g, std::vector<float>& values) {
  initialize_openvdb();
  try {
    openvdb::io::File file(path);
    file.open(false);  // read whole, no delayed loading (the file may change under a later read)
    const openvdb::GridBase::Ptr base = pick_grid(path, file);
    file.close();
    const openvdb::CoordBBox box = base->evalActiveVoxelBoundingBox();
    if (box.empty()) throw LoadError(path + ": grid \"" + base->getName() + "\" has no active voxels");
    g.res = {box.dim().x(), box.dim().y(), box.dim().z()};
    if (const auto f = openvdb::gridConstPtrCast<openvdb::FloatGrid>(base)) {
      g.channels = 1;
      dense_values(*f, box, 1, values);
    } else {
      g.channels = 3;
      dense_values(*openvdb::gridConstPtrCast<openvdb::Vec3SGrid>(base), box, 3, values);
    }
  } catch (const openvdb::Exception& e) {
    throw LoadError(path + ": not a readable OpenVDB file (" + e.what() + ")");
  }
  for (size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i])) throw LoadError(path + ": value " + std::to_string(i) + " is not finite");
}

void write_vdb_file(const std::string& path, const glm::ivec3& res, int channels, const float* values, const std::string& name) {
  initialize_openvdb();
  try {
    if (channels == 1) {
      write_grid<openvdb::FloatGrid>(path, res, values, name, [](const float* v, size_t i) { return v[i]; });
    } else if (channels == 3) {
      write_grid<openvdb::Vec3SGrid>(path, res, values, name, [](const float* v, size_t i) {
        return openvdb::Vec3s(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
      });
    } else {
      throw std::runtime_error(path + ": an OpenVDB grid of " + std::to_string(channels) + " channels (supported: 1 or 3)");
    }
  } catch (const openvdb::Exception& e) {
    throw std::runtime_error(path + ": cannot write the OpenVDB file (" + std::string(e.what()) + ")");
  }
}

}  // namespace dray
