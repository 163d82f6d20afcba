#pragma once
// dray's scene document (JSON) as Mitsuba 3 XML, the converter's other direction: the sensors
// (lookat as written, film, filter, sampler), the integrator, textures and BSDFs under their own
// ids, shapes (meshes by file, spheres, quads as rectangles, disks, cylinders, groups and
// instances) with their emission as area emitters, media, and the lights. Read back, it gives the same
// document's scene: numbers are written shortest-exact, a lookat and a rectangle's matrix so that
// the converter recovers the same floats (tests/io/mitsuba_writer_test.cpp renders both, bitwise).
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dray {
struct Scene;
}

namespace dray::mitsuba {

// The XML text of `doc` (a document that loads). What Mitsuba cannot hold is an error naming its
// place in the document (LoadError: a constant bitmap, glTF files, two-sided emission, AOVs); what
// it holds only nearly a warning (dray's clip planes 0 and ∞ become Mitsuba's
// defaults 0.01 and 10⁴).
// With the loaded scene and the XML's path, a mesh whose faces take its OBJ file's own materials is
// written beside it as one PLY file per material (without them: refused).
std::string write_xml(const nlohmann::json& doc, std::vector<std::string>& warnings);
std::string write_xml(const nlohmann::json& doc, std::vector<std::string>& warnings, const Scene& scene,
                      const std::filesystem::path& xml_file);

}  // namespace dray::mitsuba
