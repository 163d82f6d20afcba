// Mitsuba's file resolution (renderer/io/mitsuba/file_resolver.h), as src/core/parser.cpp does
// it: <path> folders, includes resolved beside the including file first and then through the
// resolver, nested includes, include cycles, and plugin files resolved against the top file's
// resolver once the scene is read.
#include <catch2/catch.hpp>

#include "../temp_dir.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
using dray::testing::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Writes `text` at dir/name, creating the folders on the way.
std::string put(const TempDir& t, const std::string& name, const std::string& text) {
  fs::create_directories((t.dir / name).parent_path());
  return t.write(name, text);
}

const char* kTriangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";

std::string sensor() {
  return R"(<sensor type="perspective"><transform name="to_world"><lookat origin="0, 0, 5" target="0, 0, 0" up="0, 1, 0"/></transform>
    <film type="hdrfilm"><integer name="width" value="8"/><integer name="height" value="8"/></film></sensor>
)";
}

std::string shape(const std::string& file) {
  return "<shape type=\"obj\"><string name=\"filename\" value=\"" + file + "\"/></shape>\n";
}

json document(const std::string& path) {
  std::vector<std::string> warnings;
  return read_scene_document(path, {}, warnings);
}

std::string error_of(const std::string& path) {
  try {
    document(path);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("<path> adds a folder that plugin files resolve through", "[mitsuba]") {
  TempDir t("dray-resolver-path-");
  put(t, "common/meshes/tri.obj", kTriangle);
  const std::string xml = put(t, "tests/scenes/a/scene.xml", "<scene version=\"3.0.0\"><path value=\"../../../common\"/>" +
                                                                    sensor() + shape("meshes/tri.obj") + "</scene>");
  const json doc = document(xml);
  // Relative to the scene's folder, where the loader looks.
  CHECK(doc["shapes"][0]["file"] == "../../../common/meshes/tri.obj");
  CHECK_NOTHROW(load_scene(xml, {}, false));

  SECTION("a <path> later in the file counts too (plugins resolve once the file is read)") {
    const std::string late = put(t, "tests/scenes/a/late.xml", "<scene version=\"3.0.0\">" + sensor() + shape("meshes/tri.obj") +
                                                                    "<path value=\"../../../common\"/></scene>");
    CHECK(document(late)["shapes"][0]["file"] == "../../../common/meshes/tri.obj");
  }
  SECTION("the scene's own folder before the working directory; the first <path> found wins over it") {
    put(t, "tests/scenes/a/meshes/tri.obj", kTriangle);
    CHECK(document(xml)["shapes"][0]["file"] == "../../../common/meshes/tri.obj");  // prepended: searched first
  }
  SECTION("a missing folder or file names the element and where it looked") {
    const std::string bad = put(t, "b.xml", "<scene version=\"3.0.0\"><path value=\"nowhere\"/>" + sensor() + "</scene>");
    CHECK_THAT(error_of(bad), Catch::Contains("b.xml:1:24: <path>: folder \"nowhere\" not found"));
    const std::string missing = put(t, "c.xml", "<scene version=\"3.0.0\">" + sensor() + shape("meshes/none.obj") + "</scene>");
    CHECK_THAT(error_of(missing), Catch::Contains("c.xml:3:1: <shape type=\"obj\">: file \"meshes/none.obj\" not found (looked in "));
  }
}

TEST_CASE("includes resolve beside the including file, then through the resolver, and nest", "[mitsuba]") {
  TempDir t("dray-resolver-include-");
  put(t, "media/meshes/tri.obj", kTriangle);
  // As Mitsuba's participating_media scenes: include/base.xml includes "include/preamble.xml",
  // which is not at include/include/ (beside it) but at the top file's include/.
  put(t, "media/include/preamble.xml", "<scene version=\"2.0.0\"><default name=\"res\" value=\"8\"/></scene>");
  put(t, "media/include/base.xml", "<scene version=\"2.0.0\"><include filename=\"include/preamble.xml\"/>" + sensor() +
                                       shape("meshes/tri.obj") + "</scene>");
  const std::string xml = put(t, "media/scene.xml", "<scene version=\"2.0.0\"><include filename=\"include/base.xml\"/></scene>");
  const json doc = document(xml);
  CHECK(doc["shapes"][0]["file"] == "meshes/tri.obj");
  CHECK(doc["camera"]["width"] == 8);

  SECTION("beside the including file comes first") {
    put(t, "media/include/include/preamble.xml", "<scene version=\"2.0.0\"><bogus/></scene>");
    CHECK_THAT(error_of(xml), Catch::Contains("include/include/preamble.xml:1:24: <bogus>"));
  }
  SECTION("a plugin file in an included file resolves against the top file's folders, as in Mitsuba") {
    put(t, "media/include/meshes/only_here.obj", kTriangle);
    put(t, "media/include/base.xml", "<scene version=\"2.0.0\">" + sensor() + shape("meshes/only_here.obj") + "</scene>");
    CHECK_THAT(error_of(xml), Catch::Contains("file \"meshes/only_here.obj\" not found"));
  }
  SECTION("a missing include and an include cycle are errors naming the element") {
    put(t, "media/include/base.xml", "<scene version=\"2.0.0\">\n<include filename=\"gone.xml\"/></scene>");
    CHECK_THAT(error_of(xml), Catch::Contains("base.xml:2:1: <include>: included file \"gone.xml\" not found (looked in "));
    put(t, "media/include/base.xml", "<scene version=\"2.0.0\"><include filename=\"scene.xml\"/></scene>");
    put(t, "media/include/scene.xml", "<scene version=\"2.0.0\"><include filename=\"base.xml\"/></scene>");
    CHECK_THAT(error_of(xml), Catch::Contains("scene.xml:1:24: <include>: include cycle: ") && Catch::Contains("base.xml -> ") &&
                                  Catch::EndsWith("include/base.xml"));
  }
}

TEST_CASE("the suite's scenes load from their files as they are", "[mitsuba]") {
  const fs::path data = fs::path(DRAY_SOURCE_DIR) / ".." / "shared" / "mitsuba-data" / "tests" / "scenes";
  if (!fs::is_directory(data)) {
    WARN("skipped: no mitsuba-data at " << data.string());
    return;
  }
  // <path value="../../../common"/>, the fragment include, and meshes and bitmaps from common/.
  const json doc = document((data / "bsdf_spheres" / "test_textured_diffuse_path.xml").string());
  CHECK(doc["shapes"][0]["file"] == "../../../common/meshes/sphere.obj");
  CHECK(doc["camera"]["width"] == 48);
}
