// Reading optimization jobs and checkpoints (the final scene: tools/final_scene.cpp).
#include "tools/optimize_job.h"

#include <algorithm>

#include <cmath>
#include <fstream>

#include "renderer/image/image.h"
#include "renderer/integrators/pass.h"
#include "renderer/io/scene_loader.h"
#include "renderer/scene_params.h"

namespace fs = std::filesystem;

namespace dray::cli {

fs::path relative_to(const fs::path& dir, const std::string& p) { return fs::path(p).is_absolute() ? fs::path(p) : dir / p; }

bool is_vertex_block(const std::string& name) {
  return name.rfind("shapes.", 0) == 0 && name.size() > 16 && name.compare(name.size() - 9, 9, ".vertices") == 0;
}

std::string writable_key(const json& doc, const std::string& name, const JsonReader& rd, const std::string& where) {
  auto dot1 = name.find('.'), dot2 = name.rfind('.');
  std::string group = name.substr(0, dot1), object = name.substr(dot1 + 1, dot2 - dot1 - 1);
  if (group == "textures" && !(doc.contains("textures") && doc["textures"].contains(object)))
    rd.fail(where, "\"" + name + "\" is an inline texture and cannot be written back to the scene; name it in \"textures\" "
                   "and refer to it by name");
  if (group == "materials" && !(doc.contains("materials") && doc["materials"].contains(object)))
    rd.fail(where, "\"" + name + "\" comes from an OBJ file and cannot be written back to the scene; map the OBJ "
                   "material to a scene material (the mesh's \"materials\")");
  if (is_vertex_block(name)) {
    // The final scene names a new mesh file: of a mesh shape with one material.
    const json* shape = nullptr;
    if (doc.contains("shapes") && doc["shapes"].is_array())
      for (const json& s : doc["shapes"])
        if (s.is_object() && s.value("name", "") == object) shape = &s;
    if (!shape || shape->value("type", "") != "mesh")
      rd.fail(where, "\"" + name + "\" is not of a mesh from a file and cannot be written back to the scene");
    if (!shape->contains("material"))
      rd.fail(where, "the mesh's OBJ materials cannot be written back with its vertices; give the shape one \"material\"");
  }
  return scene_key(name);
}

namespace {

// Whether `name` is a whole RGB texture block, textures.NAME.data (H×W×3).
bool is_rgb_texture_block(const std::string& name, const Scene& scene) {
  const auto e = scene.params.find(name);
  return name.rfind("textures.", 0) == 0 && e && e->block() && e->shape.size() == 3 && e->shape[2] == 3;
}

// Whether `name` is a whole medium grid block, media.ID.KEY (Z×Y×X×channels).
bool is_grid_block(const std::string& name, const Scene& scene) {
  const auto e = scene.params.find(name);
  return name.rfind("media.", 0) == 0 && e && e->block() && e->shape.size() == 4;
}

// An `upsample` schedule: for a whole bitmap texture block or medium grid block, ascending iterations.
std::vector<int> upsample_schedule(const JsonReader& rd, const json& value, const std::string& where, const std::string& key,
                                   const Scene& scene) {
  const std::optional<ParamEntry> e = scene.params.find(key);
  const bool texture = key.rfind("textures.", 0) == 0 && e && e->block() && e->shape.size() == 3;
  if (!texture && !is_grid_block(key, scene))
    rd.fail(where + "/upsample",
            "only a whole bitmap texture's block (textures.NAME.data) or a medium's grid (media.ID.KEY) can be upsampled");
  if (!value.is_array() || value.empty()) rd.fail(where + "/upsample", "must be a list of iterations");
  std::vector<int> after;
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string at = where + "/upsample/" + std::to_string(i);
    after.push_back(int(rd.integer(value[i], at, 1, 1 << 24)));  // past the last iteration: not reached (yet: --resume may go on)
    if (i > 0 && after[i] <= after[i - 1]) rd.fail(at, "the iterations must ascend");
  }
  const size_t spatial = e->shape.size() - 1;  // the channels kept
  uint64_t cells = 1;
  for (size_t a = 0; a < spatial; ++a) cells *= e->shape[a];
  if (after.size() * spatial > 28 || cells << (spatial * after.size()) > (uint64_t(1) << 28))
    rd.fail(where + "/upsample", texture ? "would grow the texture past 2^28 texels" : "would grow the grid past 2^28 voxels");
  return after;
}

// A `large_steps` λ: for a whole mesh vertex block, RGB texture block or medium grid block.
double large_steps_lambda(const JsonReader& rd, const json& value, const std::string& where, const std::string& key,
                          const Scene& scene) {
  const double lambda = rd.number(value, where + "/large_steps");
  if (!(lambda >= 0)) rd.fail(where + "/large_steps", "must be at least 0");
  if (!is_vertex_block(key) && !is_rgb_texture_block(key, scene) && !is_grid_block(key, scene))
    rd.fail(where + "/large_steps",
            "applies to a whole mesh vertex block (shapes.NAME.vertices), RGB texture block (textures.NAME.data) or medium grid "
            "block (media.ID.sigma_t or albedo given by a gridvolume)");
  return lambda;
}

// A view's target (`t`, at `where`): an image, or a scene rendered first.
void read_target(const JsonReader& rd, const json& t, const std::string& where, const fs::path& dir, View& v) {
  rd.object(t, where, {"image", "scene", "spp"});
  if (t.contains("image") == t.contains("scene")) rd.fail(where, "give either \"image\" or \"scene\"");
  if (t.contains("image")) v.target_image = relative_to(dir, rd.string(t["image"], where + "/image")).string();
  if (t.contains("scene")) v.target_scene = relative_to(dir, rd.string(t["scene"], where + "/scene")).string();
  if (t.contains("spp")) v.target_spp = int(rd.integer(t["spp"], where + "/spp", 1, 1 << 20));
}

// A view's sensor: one of the scene's (by name or index), or the scene's first camera's keys
// overridden by the view's (a sensor added as `name`), or the scene's camera; and its target.
View read_view(const JsonReader& rd, const json& jv, const std::string& where, const Job& job, Scene& scene,
               const json& scene_doc, const std::string& name) {
  View v;
  if (jv.contains("sensor")) {
    if (jv.contains("camera")) rd.fail(where + "/camera", "give either \"sensor\" or \"camera\"");
    const json& s = jv["sensor"];
    try {
      v.sensor = sensor_index(scene, s.is_number_integer() ? std::to_string(s.get<long>()) : rd.string(s, where + "/sensor"));
    } catch (const LoadError& e) {
      rd.fail(where + "/sensor", e.what());
    }
    v.camera = camera_settings(scene, v.sensor);
  } else if (jv.contains("camera")) {
    const json& cameras = scene_doc.contains("camera") ? scene_doc["camera"] : json::object();
    json camera = cameras.is_array() ? cameras[0] : cameras;
    camera.erase("name");
    if (!jv["camera"].is_object()) rd.fail(where + "/camera", "must be an object");
    for (const char* key : {"medium", "name"})  // the scene's: a view moves the camera, not its medium
      if (jv["camera"].contains(key)) rd.fail(where + "/camera/" + key, "not a key of a view's camera");
    camera.update(jv["camera"]);  // read_camera checks the rest: the common keys and its type's
    v.camera = read_camera(rd, camera, where + "/camera");
    try {
      v.sensor = add_sensor(scene, name, v.camera);
    } catch (const LoadError& e) {
      rd.fail(where + "/camera", e.what());
    }
  } else {
    v.camera = camera_settings(scene, 0);
  }
  read_target(rd, jv["target"], where + "/target", job.dir, v);
  if (jv.contains("weight")) v.weight = rd.positive(jv["weight"], where + "/weight");
  if (jv.contains("mask")) v.mask = relative_to(job.dir, rd.string(jv["mask"], where + "/mask")).string();
  if (jv.contains("spp")) v.spp = int(rd.integer(jv["spp"], where + "/spp", 1, 1 << 20));
  return v;
}

// /target (one view, the scene's camera) or /views and /batch.
void read_views(const JsonReader& rd, const json& j, Job& job, Scene& scene, const json& scene_doc) {
  if (j.contains("target")) {
    View v;
    v.camera = camera_settings(scene, 0);
    read_target(rd, j["target"], "/target", job.dir, v);
    job.views.push_back(v);
    if (j.contains("batch")) rd.fail("/batch", "needs \"views\"");
    if (j.contains("view_groups")) rd.fail("/view_groups", "needs \"views\"");
    return;
  }
  const json& vs = j["views"];
  if (!vs.is_array() || vs.empty()) rd.fail("/views", "must be an array of at least one view");
  job.multi_view = true;
  for (size_t i = 0; i < vs.size(); ++i) {
    const std::string where = "/views/" + std::to_string(i);
    rd.object(vs[i], where, {"camera", "sensor", "target", "weight", "mask"}, {"target"});
    job.views.push_back(read_view(rd, vs[i], where, job, scene, scene_doc, "view" + std::to_string(i)));
  }
  if (j.contains("batch")) job.batch = int(rd.integer(j["batch"], "/batch", 1, long(vs.size())));
  if (j.contains("view_groups")) job.view_groups = int(rd.integer(j["view_groups"], "/view_groups", 1, 1 << 20));
}

// /held_out: views outside the loss (their sensors added after the views', whose indices stay).
void read_held_out(const JsonReader& rd, const json& j, Job& job, Scene& scene, const json& scene_doc) {
  if (!j.contains("held_out")) return;
  const json& hs = j["held_out"];
  if (!hs.is_array()) rd.fail("/held_out", "must be an array of views");
  for (size_t i = 0; i < hs.size(); ++i) {
    const std::string where = "/held_out/" + std::to_string(i);
    rd.object(hs[i], where, {"camera", "sensor", "target", "spp"}, {"target"});
    job.held_out.push_back(read_view(rd, hs[i], where, job, scene, scene_doc, "held_out" + std::to_string(i)));
  }
}

}  // namespace

Job parse_job(const std::string& path, Scene& scene, json& scene_doc, const JobEdits& edits) {
  JsonReader rd(path);
  json j = read_json_file(path);
  rd.object(j, "", {"scene", "target", "views", "held_out", "batch", "view_groups", "params", "optimizer", "loss", "spp", "spp_grad", "schedule", "output",
                    "snapshot_every", "checkpoint_every", "seed", "gradient_samples", "boundary_samples"},
            {"scene", "params", "output"});
  if (j.contains("target") == j.contains("views")) rd.fail("/target", "give either \"target\" (one view) or \"views\"");
  Job job;
  job.file = path;
  job.dir = fs::path(path).parent_path();
  job.scene_path = relative_to(job.dir, rd.string(j["scene"], "/scene")).string();
  job.output = relative_to(job.dir, rd.string(j["output"], "/output")).lexically_normal().string();
  if (!edits.output.empty()) job.output = fs::path(edits.output).lexically_normal().string();
  if (j.contains("optimizer")) {
    const json& o = j["optimizer"];
    rd.object(o, "/optimizer", {"type", "iterations", "beta1", "beta2", "epsilon", "lr_decay"});
    if (o.contains("type")) job.optimizer = rd.string(o["type"], "/optimizer/type");
    if (job.optimizer != "adam" && job.optimizer != "sgd")
      rd.fail("/optimizer/type", "unknown optimizer \"" + job.optimizer + "\" (expected adam or sgd)");
    if (o.contains("iterations")) job.iterations = int(rd.integer(o["iterations"], "/optimizer/iterations", 1, 1 << 24));
    if (o.contains("beta1")) job.beta1 = rd.number(o["beta1"], "/optimizer/beta1");
    if (o.contains("beta2")) job.beta2 = rd.number(o["beta2"], "/optimizer/beta2");
    if (o.contains("epsilon")) job.epsilon = rd.positive(o["epsilon"], "/optimizer/epsilon");
    if (o.contains("lr_decay")) job.lr_decay = rd.positive(o["lr_decay"], "/optimizer/lr_decay");
    if (job.lr_decay > 1) rd.fail("/optimizer/lr_decay", "must be in (0, 1]");
    if (!(job.beta1 >= 0 && job.beta1 < 1)) rd.fail("/optimizer/beta1", "must be in [0, 1)");
    if (!(job.beta2 >= 0 && job.beta2 < 1)) rd.fail("/optimizer/beta2", "must be in [0, 1)");
  }
  if (j.contains("loss")) {
    std::string l = rd.string(j["loss"], "/loss");
    if (l != "l1" && l != "l2" && l != "relative_l2" && l != "scale_independent_l2")
      rd.fail("/loss", "unknown loss \"" + l + "\" (expected l1, l2, relative_l2 or scale_independent_l2)");
    job.loss = parse_loss(l);
    job.loss_name = l;
  }
  if (j.contains("spp")) job.spp = int(rd.integer(j["spp"], "/spp", 1, 1 << 20));
  if (j.contains("boundary_samples")) job.boundary_samples = rd.integer(j["boundary_samples"], "/boundary_samples", 0, 1L << 40);
  if (j.contains("snapshot_every")) job.snapshot_every = int(rd.integer(j["snapshot_every"], "/snapshot_every", 0, 1 << 24));
  if (j.contains("checkpoint_every")) job.checkpoint_every = int(rd.integer(j["checkpoint_every"], "/checkpoint_every", 0, 1 << 24));
  if (j.contains("seed")) job.seed = uint64_t(rd.integer(j["seed"], "/seed", 0, 1L << 40));
  if (j.contains("gradient_samples")) {
    std::string g = rd.string(j["gradient_samples"], "/gradient_samples");
    if (g != "independent" && g != "same") rd.fail("/gradient_samples", "must be \"independent\" or \"same\"");
    job.independent = g == "independent";
  }

  // The scene, and the parameters in it.
  // A Mitsuba XML scene is converted: the job works on (and writes back) its native document.
  std::vector<std::string> warnings;
  scene_doc = read_scene_document(job.scene_path, edits.defines, warnings);
  for (const std::string& s : edits.sets) apply_override(scene_doc, s);
  scene = load_scene(scene_doc, job.scene_path);
  // A job's loss needs each pixel's primal where its samples are replayed: filter importance
  // sampling, not the splatting film (the same expected image; docs/optimize.md).
  scene.render.splat = false;
  scene.warnings.insert(scene.warnings.begin(), warnings.begin(), warnings.end());
  read_views(rd, j, job, scene, scene_doc);
  read_held_out(rd, j, job, scene, scene_doc);
  if (auto why = integrator_refusal(scene.render, PassAsk::gradient(job.loss, false))) rd.fail("/loss", *why);
  read_schedule(rd, j, job, scene.render);
  const json& ps = j["params"];
  if (!ps.is_object() || ps.empty()) rd.fail("/params", "must be an object naming at least one parameter");
  for (auto it = ps.begin(); it != ps.end(); ++it) {
    const std::string where = "/params/" + it.key();
    rd.object(it.value(), where, {"lr", "min", "max", "large_steps", "upsample"}, {"lr"});
    double lr = rd.positive(it.value()["lr"], where + "/lr");
    double lo = it.value().contains("min") ? rd.number(it.value()["min"], where + "/min") : -INFINITY;
    double hi = it.value().contains("max") ? rd.number(it.value()["max"], where + "/max") : INFINITY;
    if (!(lo < hi)) rd.fail(where, "min must be below max");
    ParamRange range;
    try {
      range = resolve_range(scene.params, it.key());
    } catch (const std::runtime_error& e) {
      rd.fail(where, e.what());
    }
    // NAME[i] optimises one component; the final scene writes the whole vector.
    const std::string whole = it.key().substr(0, it.key().find('['));
    writable_key(scene_doc, whole, rd, where);
    if (std::find(job.entries.begin(), job.entries.end(), whole) == job.entries.end()) job.entries.push_back(whole);
    const int entry = int(std::find(job.entries.begin(), job.entries.end(), whole) - job.entries.begin());
    Block b{range.name, entry, range.slot, range.size, job.scalar_count(), lr, lo, hi, entry_of(scene.params, range.slot).domain,
            range.of_block, range.indexed};
    for (const Block& other : job.blocks)  // a scalar may be named once
      if (b.slot < other.slot + other.size && other.slot < b.slot + b.size) {
        const Slot s = std::max(b.slot, other.slot);
        rd.fail(where, b.scalar_name(s - b.slot) + " is already optimised (as " + other.scalar_name(s - other.slot) + ")");
      }
    // The start lies in the domain (the loader checked it) and must lie in [min, max]: their
    // intersection is then not empty.
    for (size_t i = 0; i < b.size; ++i) {
      const double start = scene.params.get(b.slot + Slot(i));
      if (!(start >= lo && start <= hi))
        rd.fail(where, b.scalar_name(i) + " starts at " + fmt_number(start) + ", outside the job's [min, max] = [" + fmt_number(lo) +
                           ", " + fmt_number(hi) + "]");
    }
    const int index = int(job.blocks.size());
    job.blocks.push_back(std::move(b));
    if (it.value().contains("large_steps"))
      job.large_steps.push_back({index, large_steps_lambda(rd, it.value()["large_steps"], where, it.key(), scene), is_vertex_block(it.key())});
    if (it.value().contains("upsample")) job.upsampling.push_back({index, upsample_schedule(rd, it.value()["upsample"], where, it.key(), scene)});
    if (job.multi_view && (whole.rfind("camera.", 0) == 0 || whole.rfind("sensors.", 0) == 0))
      rd.fail(where, "the camera cannot be optimised in a job with \"views\" (each view sets its own camera)");
  }
  return job;
}

void Job::number_blocks() {
  size_t first = 0;
  for (Block& b : blocks) {
    b.first = first;
    first += b.size;
  }
}

std::vector<std::pair<std::string, size_t>> Job::listed_scalars() const {
  std::vector<std::pair<std::string, size_t>> out;
  for (const Block& b : blocks)
    if (!b.of_block)
      for (size_t i = 0; i < b.size; ++i) out.push_back({b.scalar_name(i), b.first + i});
  return out;
}

std::vector<int> batch_views(const Job& job, int iteration) {
  const int n = int(job.views.size());
  std::vector<int> all(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) all[size_t(i)] = i;
  if (job.batch <= 0 || job.batch >= n) return all;
  // SplitMix64 (Steele, Lea and Flood 2014) over the job's seed and the iteration: a partial
  // Fisher–Yates shuffle draws the batch.
  uint64_t x = job.seed * 0x9E3779B97F4A7C15ull + uint64_t(iteration) + 1;
  auto next = [&x] {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  for (int i = 0; i < job.batch; ++i) std::swap(all[size_t(i)], all[size_t(i + int(next() % uint64_t(n - i)))]);
  all.resize(size_t(job.batch));
  std::sort(all.begin(), all.end());
  return all;
}


json job_settings(const Job& job, const json& scene_doc) {
  json params = json::object();
  // Unbounded is null (JSON has no infinity).
  auto bound = [](double b) { return std::isfinite(b) ? json(b) : json(nullptr); };
  for (const Block& b : job.blocks) params[b.key] = {{"lr", b.lr}, {"min", bound(b.min)}, {"max", bound(b.max)}};
  for (const LargeSteps& l : job.large_steps) params[job.blocks[size_t(l.block)].key]["large_steps"] = l.lambda;
  for (const Upsampling& u : job.upsampling) params[job.blocks[size_t(u.block)].key]["upsample"] = u.after;
  json out = {{"scene", job.scene_path}, {"scene_document", scene_doc}, {"spp", job.spp}, {"boundary_samples", job.boundary_samples},
              {"optimizer", job.optimizer}, {"beta1", job.beta1}, {"beta2", job.beta2}, {"epsilon", job.epsilon},
              {"lr_decay", job.lr_decay}, {"loss", job.loss_name}, {"seed", job.seed},
              {"gradient_samples", job.independent ? "independent" : "same"}, {"params", params}};
  add_schedule_settings(job, out);
  auto target = [](const View& v, json& o) {
    o["target_image"] = v.target_image;
    o["target_scene"] = v.target_scene;
    o["target_spp"] = v.target_spp;
  };
  if (!job.multi_view) {  // the keys of single-view checkpoints, as before views existed
    target(job.views[0], out);
    return out;
  }
  json views = json::array();
  for (const View& v : job.views) {
    json o = {{"camera", camera_json(v.camera)}, {"weight", v.weight}, {"mask", v.mask}};
    target(v, o);
    views.push_back(o);
  }
  out["views"] = views;
  out["batch"] = job.batch;
  return out;
}

void write_seen_masks(const Job& job, const Scene& scene, const std::vector<uint8_t>& seen, const fs::path& out_dir) {
  for (size_t b = 0; b < job.entries.size(); ++b) {
    const ParamEntry e = *scene.params.find(job.entries[b]);
    const std::string& name = job.entries[b];
    if (!e.block() || is_vertex_block(name) || is_media_block(name)) continue;  // texels only
    const std::string object = name.substr(name.find('.') + 1, name.rfind('.') - name.find('.') - 1);
    const uint32_t channels = e.shape.size() > 2 ? e.shape[2] : 1;
    Image img(int(e.shape[1]), int(e.shape[0]), 3);
    for (const Block& blk : job.blocks) {
      if (blk.entry != int(b)) continue;
      for (size_t i = 0; i < blk.size; ++i)
        if (blk.first + i < seen.size() && seen[blk.first + i]) {
          const size_t texel = (blk.slot + i - e.slot) / channels;
          for (int c = 0; c < 3; ++c) img.data[texel * 3 + size_t(c)] = 1.f;
        }
    }
    write_image(img, (out_dir / (object + "-seen.png")).string());
  }
}

}  // namespace dray::cli
