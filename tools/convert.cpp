// dray convert: a scene's native JSON document (a Mitsuba 3 XML scene converted), or a scene as
// Mitsuba 3 XML (renderer/io/mitsuba/xml_writer.h), with its file paths rewritten relative to the
// output. Rendering either file gives bitwise the same image (XML: where the camera's clip planes
// are Mitsuba's).
#include <cstdio>
#include <filesystem>

#include "mpi/errors.h"
#include "renderer/core/atomic_file.h"
#include "renderer/io/mitsuba/xml_writer.h"
#include "renderer/io/scene_loader.h"
#include "tools/cli.h"

namespace dray::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A path as the scene at `from` names it, as the file at `to` must name it.
std::string rebase(const std::string& p, const fs::path& from, const fs::path& to) {
  if (fs::path(p).is_absolute()) return p;
  const fs::path file = fs::absolute(from.parent_path() / p).lexically_normal();
  return file.lexically_relative(fs::absolute(to).parent_path().lexically_normal()).string();
}

// Every file a scene document names: meshes, bitmaps (inline or in /textures), environment maps.
void rebase_files(json& j, const fs::path& from, const fs::path& to) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if ((it.key() == "file" || it.key() == "filename") && it.value().is_string())
        it.value() = rebase(it.value().get<std::string>(), from, to);
      else
        rebase_files(it.value(), from, to);
    }
  } else if (j.is_array()) {
    for (json& e : j) rebase_files(e, from, to);
  }
}

}  // namespace

CLI::App* add_convert_command(CLI::App& app, ConvertArgs& args) {
  CLI::App* cmd = app.add_subcommand("convert", "Write a scene (Mitsuba 3 XML or dray's JSON) as dray's JSON, or as Mitsuba 3 XML "
                                                "(an output ending in .xml)");
  args.scene.add_to(cmd);
  cmd->add_option("-o,--output", args.output, "The file to write: JSON, or Mitsuba 3 XML when it ends in .xml")->required();
  return cmd;
}

int run_convert(const mpi::Context& ctx, const ConvertArgs& args) {
  // Rank 0 converts and writes; the others only agree on the outcome.
  std::vector<std::string> warnings;
  const mpi::Status status = mpi::agree_on(ctx, [&] {
    if (!ctx.is_root()) return;
    json doc = read_scene_document(args.scene.scene, args.scene.defines(), warnings);
    for (const std::string& o : args.scene.overrides()) apply_override(doc, o);
    const Scene scene = load_scene(doc, args.scene.scene, false);  // the document must load: errors now, not at render time
    rebase_files(doc, args.scene.scene, args.output);
    const bool xml = fs::path(args.output).extension() == ".xml";
    std::string text;
    try {
      text = xml ? mitsuba::write_xml(doc, warnings, scene, args.output) : doc.dump(2) + "\n";
    } catch (const LoadError& e) {
      throw LoadError(args.scene.scene + ": " + e.what());  // the place in the document, in its file
    }
    if (const fs::path dir = fs::path(args.output).parent_path(); !dir.empty()) fs::create_directories(dir);
    write_text_file(args.output, text);
  });
  if (status.code) return report(ctx, status);
  if (ctx.is_root()) {
    for (const std::string& w : warnings) std::fprintf(stderr, "dray: warning: %s\n", w.c_str());
    std::printf("wrote %s\n", args.output.c_str());
  }
  return 0;
}

}  // namespace dray::cli
