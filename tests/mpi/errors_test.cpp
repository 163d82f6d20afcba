#include <catch2/catch.hpp>

#include <stdexcept>

#include "mpi/errors.h"
#include "renderer/io/scene_loader.h"

using namespace dray;
extern mpi::Context* g_ctx;

namespace {
// The rank that fails in these tests: the last one (rank 0 when running alone).
int failing_rank() { return g_ctx->size() - 1; }
}  // namespace

TEST_CASE("every rank succeeds: the agreed status is success", "[mpi][errors]") {
  mpi::Status st = mpi::agree_on(*g_ctx, [] {
    Scene s = load_scene(std::string(DRAY_SOURCE_DIR) + "/scenes/spheres.json");
  });
  REQUIRE(mpi::all_ranks(*g_ctx, st.code == 0 && st.message.empty()));
}

TEST_CASE("a missing scene file on one rank ends every rank with code 2 and its message",
          "[mpi][errors]") {
  const bool me = g_ctx->rank() == failing_rank();
  std::string path = std::string(DRAY_SOURCE_DIR) + (me ? "/scenes/missing-on-this-rank.json" : "/scenes/spheres.json");
  mpi::Status st = mpi::agree_on(*g_ctx, [&] { Scene s = load_scene(path); });
  INFO("rank " << g_ctx->rank() << ": code " << st.code << ", " << st.message);
  bool ok = st.code == 2 && st.message.find("missing-on-this-rank.json: cannot open: no such file") != std::string::npos;
  REQUIRE(mpi::all_ranks(*g_ctx, ok));
}

TEST_CASE("the lowest failing rank's message is the one every rank gets", "[mpi][errors]") {
  mpi::Status st = mpi::agree_on(*g_ctx, [&] {
    if (g_ctx->rank() >= g_ctx->size() / 2) throw std::runtime_error("rank " + std::to_string(g_ctx->rank()));
  });
  std::string expect = "rank " + std::to_string(g_ctx->size() / 2);
  REQUIRE(mpi::all_ranks(*g_ctx, st.code == 2 && st.message == expect));
}

TEST_CASE("an unexpected exception is an internal error, code 3", "[mpi][errors]") {
  mpi::Status st = mpi::agree_on(*g_ctx, [&] {
    if (g_ctx->rank() == failing_rank()) throw std::logic_error("bug");
  });
  const std::string expect = "internal error on rank " + std::to_string(failing_rank()) + ": bug";
  REQUIRE(mpi::all_ranks(*g_ctx, st.code == 3 && st.message == expect));
}

TEST_CASE("run_agreed throws the same AgreedError on every rank", "[mpi][errors]") {
  int code = 0;
  std::string message;
  try {
    mpi::run_agreed(*g_ctx, [&] {
      if (g_ctx->rank() == failing_rank()) throw std::runtime_error("cannot read x");
    });
  } catch (const mpi::AgreedError& e) {
    code = e.status.code;
    message = e.status.message;
  }
  REQUIRE(mpi::all_ranks(*g_ctx, code == 2 && message == "cannot read x"));
  bool thrown = false;
  try {
    mpi::run_agreed(*g_ctx, [] {});
  } catch (const mpi::AgreedError&) {
    thrown = true;
  }
  REQUIRE(mpi::all_ranks(*g_ctx, !thrown));
}

TEST_CASE("all_ranks is false when one rank disagrees", "[mpi][errors]") {
  bool all = mpi::all_ranks(*g_ctx, g_ctx->rank() != failing_rank());
  REQUIRE(mpi::all_ranks(*g_ctx, !all));
}
