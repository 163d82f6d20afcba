// OpenVDB volumes (renderer/io/vdb_file.h) against the same grids as Mitsuba's .vol: a sparse grid
// written by OpenVDB itself (not by dray) reads as the dense grid over its active voxels, and a
// medium renders bitwise the same image from it as from the .vol of those values; dray's own
// .vdb writer reads back exactly (zero borders kept); bad files fail naming the file.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include <openvdb/io/File.h>
#include <openvdb/openvdb.h>

#include "renderer/integrators/render_tiles.h"
#include "renderer/io/grid_file.h"
#include "renderer/io/scene_loader.h"
#include "renderer/io/vol_file.h"
#include "tests/temp_dir.h"

using namespace dray;
using nlohmann::json;

namespace {

// A cloud as a Houdini export holds it: a float grid named "density", active only inside a ball of
// radius 5 voxels centred on voxel (10, -3, 7) (negative indices included), the density falling off
// from the centre; and a vec3s grid named "colour" beside it. Returns the dense values over the
// active box, x fastest, as dray must read them.
std::vector<float> write_cloud(const std::string& path, glm::ivec3& res) {
  openvdb::initialize();
  openvdb::FloatGrid::Ptr density = openvdb::FloatGrid::create(0.f);
  density->setName("density");
  openvdb::Vec3SGrid::Ptr colour = openvdb::Vec3SGrid::create();
  colour->setName("colour");
  auto acc = density->getAccessor();
  const openvdb::Coord centre(10, -3, 7);
  auto value = [&](const openvdb::Coord& c) {
    const openvdb::Vec3d d = (c - centre).asVec3d();
    return float(std::max(0.0, 1.0 - d.length() / 5.0)) * 3.f + 0.25f;
  };
  for (int z = -5; z <= 5; ++z)
    for (int y = -5; y <= 5; ++y)
      for (int x = -5; x <= 5; ++x)
        if (x * x + y * y + z * z <= 25) acc.setValueOn(centre + openvdb::Coord(x, y, z), value(centre + openvdb::Coord(x, y, z)));
  colour->getAccessor().setValueOn(openvdb::Coord(0), openvdb::Vec3s(1, 0, 0));
  openvdb::io::File file(path);
  file.write({colour, density});  // density second: it is picked by name, not by place
  file.close();
  res = glm::ivec3(11);
  std::vector<float> dense(11 * 11 * 11, 0.f);
  for (int z = 0; z < 11; ++z)
    for (int y = 0; y < 11; ++y)
      for (int x = 0; x < 11; ++x) {
        const openvdb::Coord c = centre + openvdb::Coord(x - 5, y - 5, z - 5);
        if ((x - 5) * (x - 5) + (y - 5) * (y - 5) + (z - 5) * (z - 5) <= 25) dense[size_t(x + 11 * (y + 11 * z))] = value(c);
      }
  return dense;
}

// A heterogeneous medium of grid `file` in a unit cube seen by an 24 x 24 camera, lit by a sky.
json cloud_scene(const std::string& file) {
  return {{"camera", {{"origin", {0.5, 0.5, 3}}, {"target", {0.5, 0.5, 0.5}}, {"width", 24}, {"height", 24}}},
          {"render", {{"integrator", "volpath"}, {"spp", 4}, {"max_depth", 8}}},
          {"media", {{"fog", {{"type", "heterogeneous"}, {"sigma_t", {{"type", "gridvolume"}, {"filename", file}}}}}}},
          {"materials", {{"none", {{"type", "null"}}}}},
          {"shapes", {{{"name", "box"}, {"type", "cube"}, {"material", "none"}, {"interior", "fog"},
                       {"transform", {{"scale", 0.5}, {"translate", {0.5, 0.5, 0.5}}}}}}},
          {"lights", {{{"type", "environment"}, {"radiance", 1}}}}};
}

}  // namespace

TEST_CASE("an OpenVDB cloud reads as the dense grid over its active voxels, and renders as the same .vol", "[media][io]") {
  testing::TempDir t("dray-vdb-");
  glm::ivec3 res;
  const std::vector<float> expected = write_cloud((t.dir / "cloud.vdb").string(), res);
  GridVolume g;
  std::vector<float> values;
  read_grid_file((t.dir / "cloud.vdb").string(), g, values);
  CHECK(g.res == res);
  CHECK(g.channels == 1);
  REQUIRE(values.size() == expected.size());
  CHECK(std::memcmp(values.data(), expected.data(), 4 * values.size()) == 0);
  write_vol_file((t.dir / "cloud.vol").string(), res, 1, expected.data());
  const Image from_vdb = render_local(load_scene(cloud_scene("cloud.vdb"), (t.dir / "a.json").string()), 2);
  const Image from_vol = render_local(load_scene(cloud_scene("cloud.vol"), (t.dir / "b.json").string()), 2);
  REQUIRE(from_vdb.data.size() == from_vol.data.size());
  CHECK(std::memcmp(from_vdb.data.data(), from_vol.data.data(), 4 * from_vdb.data.size()) == 0);
  double sum = 0;
  for (float v : from_vdb.data) sum += v;
  CHECK(sum > 0);  // the cloud is seen: not two black images
}

TEST_CASE("dray's .vdb writer reads back exactly, zero borders and three channels included", "[media][io]") {
  testing::TempDir t("dray-vdb-write-");
  const glm::ivec3 res(5, 3, 4);
  for (int channels : {1, 3}) {
    std::vector<float> v(size_t(res.x * res.y * res.z * channels), 0.f);
    for (size_t i = 0; i < v.size(); ++i)
      if (i % 7 == 3) v[i] = 0.1f * float(i);  // mostly zero: its borders too
    write_grid_file((t.dir / "g.vdb").string(), res, channels, v.data(), "albedo");
    GridVolume g;
    std::vector<float> back;
    read_grid_file((t.dir / "g.vdb").string(), g, back);
    INFO(channels << " channels");
    CHECK(g.res == res);
    CHECK(g.channels == channels);
    REQUIRE(back.size() == v.size());
    CHECK(std::memcmp(back.data(), v.data(), 4 * v.size()) == 0);
  }
}

TEST_CASE("bad OpenVDB files fail naming the file", "[media][io]") {
  testing::TempDir t("dray-vdb-bad-");
  auto error_of = [&](const std::string& file) {
    try {
      load_scene(cloud_scene(file), (t.dir / "s.json").string());
    } catch (const LoadError& e) {
      return std::string(e.what());
    }
    return std::string("(loaded)");
  };
  t.write("text.vdb", "not a volume");
  CHECK_THAT(error_of("text.vdb"), Catch::Contains("/media/fog/sigma_t/filename") && Catch::Contains("text.vdb: not a readable OpenVDB file"));
  CHECK_THAT(error_of("missing.vdb"), Catch::Contains("missing.vdb: not a readable OpenVDB file"));
  openvdb::initialize();
  openvdb::Int32Grid::Ptr ints = openvdb::Int32Grid::create(0);
  ints->setName("labels");
  ints->getAccessor().setValueOn(openvdb::Coord(0), 3);
  openvdb::io::File((t.dir / "ints.vdb").string()).write({ints});
  CHECK_THAT(error_of("ints.vdb"), Catch::Contains("no float or vec3s grid to read (the file holds: labels (int32))"));
}
