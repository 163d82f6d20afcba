// dray: the command line. One main, one subcommand per file; every subcommand works the same
// under `mpirun -n N`. Exit codes: 0 success, 1 a difference found, 2 bad input or usage, 3 an
// internal error, 130 interrupted.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "mpi/context.h"
#include "mpi/errors.h"
#include "renderer/io/scene_loader.h"
#include "tools/cli.h"

using namespace dray;

namespace {

using namespace dray::cli;

int run_params(const mpi::Context& ctx, const SceneArgs& args, bool mitsuba) {
  Scene scene;
  // The parameters only: no BVH.
  mpi::Status status = mpi::agree_on(ctx, [&] { scene = load_scene(args.scene, args.overrides(), false, args.defines()); });
  if (status.code) return report(ctx, status);
  if (!ctx.is_root()) return 0;
  if (mitsuba) {  // Mitsuba's keys (mi.traverse) and the parameter each names
    for (const auto& [key, name] : scene.params.mitsuba_keys()) std::printf("%-40s %s\n", key.c_str(), name.c_str());
    return 0;
  }
  for (const ParamEntry& e : scene.params.entries()) {
    std::printf("%-40s", e.name.c_str());
    if (e.block()) {  // a block: its shape, not its values
      std::string shape;
      for (uint32_t d : e.shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
      std::printf(" block %s (%u values; name one as %s[i,j,c])\n", shape.c_str(), e.size, e.name.c_str());
      continue;
    }
    for (uint32_t i = 0; i < e.size; ++i) std::printf(" %g", scene.params.get(e.slot + i));
    std::printf("\n");
  }
  return 0;
}

// A parse error as a person would say it: `dray render: --spp must be a whole number ≥ 1, got "0"`.
std::string parse_message(const CLI::App& app, const CLI::ParseError& e) {
  std::string who = "dray";
  for (const CLI::App* sub : app.get_subcommands()) who += " " + sub->get_name();
  std::string msg = e.what();
  if (auto k = msg.find(": must be "); k != std::string::npos) msg.replace(k, 2, " ");  // "--spp: must" -> "--spp must"
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    const std::string extras = msg.substr(msg.find(':') + 1);
    msg = "unexpected argument" + (extras.find(' ', 1) != std::string::npos ? std::string("s") : "") + extras;
    msg += " (--set and --wrt take one value each: --set A=1 --set B=2, --wrt P --wrt Q; see " + who + " --help)";
  }
  return who + ": " + msg;
}

}  // namespace

int main(int argc, char** argv) {
  mpi::Context ctx(&argc, &argv);

  CLI::App app{"dray: a differentiable path tracer for CPU clusters"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "dray " DRAY_VERSION);

  RenderArgs render;
  CLI::App* render_cmd = add_render_command(app, render);
  SceneArgs params;
  CLI::App* params_cmd = app.add_subcommand("params", "List the scene's differentiable parameters and their values");
  params.add_to(params_cmd);
  bool params_mitsuba = false;
  params_cmd->add_flag("--mitsuba", params_mitsuba,
                       "List Mitsuba's names of the parameters (the keys mi.traverse prints, e.g. red.reflectance.value) and the "
                       "dray name each is an alias of");
  GradcheckArgs gradcheck;
  CLI::App* gradcheck_cmd = add_gradcheck_command(app, gradcheck);
  OptimizeArgs optimize;
  CLI::App* optimize_cmd = add_optimize_command(app, optimize);
  DiffArgs diff;
  CLI::App* diff_cmd = add_diff_command(app, diff);
  RegressArgs regress;
  CLI::App* regress_cmd = add_regress_command(app, regress);
  ConvertArgs convert;
  CLI::App* convert_cmd = add_convert_command(app, convert);
  MitsubaSuiteArgs suite;
  CLI::App* suite_cmd = add_mitsuba_suite_command(app, suite);

  // An unknown command: say so, and list the commands.
  std::string names;
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    known = known || (argc > 1 && sub->get_name() == argv[1]);
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    if (ctx.is_root()) {
      std::fprintf(stderr, "dray: unknown command \"%s\" (commands: %s; dray --help)\n", argv[1], names.c_str());
    }
    return kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return ctx.is_root() ? app.exit(e) : 0;
  } catch (const CLI::CallForAllHelp& e) {
    return ctx.is_root() ? app.exit(e) : 0;
  } catch (const CLI::CallForVersion& e) {
    return ctx.is_root() ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    if (ctx.is_root()) std::fprintf(stderr, "%s\n", parse_message(app, e).c_str());
    return kExitBadInput;
  }

  try {
    if (*render_cmd) return run_render(ctx, render);
    if (*params_cmd) return run_params(ctx, params, params_mitsuba);
    if (*diff_cmd) return run_diff(ctx, diff);
    if (*gradcheck_cmd) return run_gradcheck(ctx, gradcheck);
    if (*optimize_cmd) return run_optimize(ctx, optimize);
    if (*regress_cmd) return run_regress(ctx, regress);
    if (*convert_cmd) return run_convert(ctx, convert);
    if (*suite_cmd) return run_mitsuba_suite(ctx, suite);
  } catch (const mpi::AgreedError& e) {  // every rank is here, with the same status
    return report(ctx, e.status);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dray: internal error on rank %d: %s\n", ctx.rank(), e.what());
    return kExitInternal;
  }
  return 0;
}
