#pragma once
// Mitsuba's names for a scene's parameters: the keys mi.traverse prints for the same scene
// (`red.reflectance.value`, `teapot.vertex_positions`, `light.emitter.radiance.value`,
// `object.interior_medium.sigma_t.data`), registered as aliases of dray's names so that scripts,
// jobs and --set written for Mitsuba address the same values.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "renderer/core/param_table.h"

namespace dray {

// Mitsuba's key(s) for dray parameter `name` (several where Mitsuba's versions differ: 3.9's
// `vertex_positions`, 3.10's `positions`); none where Mitsuba has no such parameter. `ids` is a
// scene document's /mitsuba_ids (dray object -> Mitsuba's prefix where it is not the object's name:
// "materials.teapot" -> "teapot.bsdf"; "" where Mitsuba has none); an object not in it is keyed by
// its dray name.
std::vector<std::string> mitsuba_keys(const ParamEntry& entry, const nlohmann::json& ids);

// Registers every parameter's Mitsuba keys as aliases (a key dray already uses is left alone),
// and lists Mitsuba's keys of scene values that are not parameters: a mesh's `faces`
// (shapes.NAME.faces), its `texcoords` and `vertex_texcoords` where it has UVs (`with_uvs`: the
// names of those shapes; shapes.NAME.texcoords) and the first sensor's `near_clip` and
// `far_clip` (camera.near_clip, …).
void add_mitsuba_aliases(ParamTable& table, const nlohmann::json& ids, const std::set<std::string>& with_uvs = {});

}  // namespace dray
