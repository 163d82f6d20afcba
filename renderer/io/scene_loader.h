#pragma once
// Loading scenes from JSON or Mitsuba 3 XML (and the OBJ meshes they name). Every error names the file and the
// JSON path or OBJ line, e.g. `scene.json: /shapes/2/radius: must be > 0, got -1`.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "renderer/io/json_reader.h"
#include "renderer/scene.h"

namespace dray {

// Loads `path` (dray JSON, or Mitsuba 3 XML by its .xml extension: renderer/io/mitsuba/xml.h, its
// <default> values overridden by `defines`), applying `overrides` ("render.spp=4",
// "shapes.ball.radius=2", "materials.white.albedo[1]=0.5") to the scene document first, and builds
// the geometry (BVH) unless told not to.
Scene load_scene(const std::string& path, const std::vector<std::string>& overrides = {}, bool build_geometry = true,
                 const std::map<std::string, std::string>& defines = {});

// The scene document of `path`: the JSON itself, or a Mitsuba XML scene converted (what
// `dray convert` writes). Conversion warnings are appended to `warnings`; `locations` (XML only)
// receives where each object came from, for located().
nlohmann::json read_scene_document(const std::string& path, const std::map<std::string, std::string>& defines,
                                   std::vector<std::string>& warnings, std::map<std::string, std::string>* locations = nullptr);
// A loader error about the document of `path` ("path: /pointer...: what"), placed at the XML
// element its object came from when `locations` knows it, with the key in Mitsuba's words
// ("scene.xml:12:5: <bsdf type=\"conductor\" id=\"gold\"> alpha: what").
std::string located(const std::string& msg, const std::string& path, const std::map<std::string, std::string>& locations);
bool is_mitsuba_scene(const std::string& path);

// The same from an already-parsed document; `path` is used for messages and relative files.
Scene load_scene(const nlohmann::json& doc, const std::string& path, bool build_geometry = true);

// Applies one "key=value" override to a scene document. KEY is a document key or a parameter
// name (dray params); VALUE is JSON, or a bare word taken as a string. Throws LoadError.
void apply_override(nlohmann::json& doc, const std::string& assignment);

// The document key of a parameter name: shapes.bunny.translate -> shapes.bunny.transform.translate.
std::string scene_key(const std::string& param_name);

}  // namespace dray
