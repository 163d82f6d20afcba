#pragma once
// Mitsuba 3 XML scenes, read into dray's native scene document (the JSON that load_scene reads):
// one loader pipeline for both formats, and `dray convert` writes the document out. Structure
// (`<default>`, `$name`, `-D`, `<include>`, ids and `<ref>`, `<alias>`, version-1 files
// upgraded), values (boolean, integer, float, string, rgb, constant spectrum, point, vector,
// transform), shapes (obj, ply, sphere, rectangle, cube), BSDFs, textures and emitters by their Mitsuba
// names, the perspective sensor, hdrfilm, sampler and the path/direct integrators. Anything else
// is an error naming the file, line and element. Mitsuba's conventions: a shape without a BSDF
// is diffuse 0.5; area emitters emit on the normal's side; `max_depth` counts path vertices (dray
// counts bounces: dray = Mitsuba − 1; −1, unlimited, becomes 1024, Russian roulette ending paths).
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dray {

// Reads the Mitsuba scene at `path`. `defines` (-D name=value) override its <default> values.
// Conversions that change what Mitsuba would render (a Gaussian pixel filter drawn as a box) are
// reported in `warnings`. Throws LoadError ("scene.xml:12: <shape type="disk">: ..."). `locations`
// receives where each object of the document came from (JSON pointer -> "scene.xml:12: <bsdf ...>").
nlohmann::json read_mitsuba_xml(const std::string& path, const std::map<std::string, std::string>& defines,
                                std::vector<std::string>& warnings, std::map<std::string, std::string>* locations = nullptr);

}  // namespace dray
