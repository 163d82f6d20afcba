// Outputs and checkpoints are replaced atomically: a failed or interrupted write leaves the
// previous file whole, and no temporary file behind.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "renderer/core/atomic_file.h"
#include "renderer/image/image.h"

namespace fs = std::filesystem;
using namespace dray;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
fs::path fresh_dir() {
  fs::path d = fs::temp_directory_path() / ("dray-atomic-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
}  // namespace

TEST_CASE("write_text_file replaces the file and leaves no temporary", "[atomic]") {
  fs::path d = fresh_dir();
  write_text_file(d / "state.json", "first\n");
  write_text_file(d / "state.json", "second\n");
  CHECK(slurp(d / "state.json") == "second\n");
  CHECK(std::distance(fs::directory_iterator(d), fs::directory_iterator()) == 1);
  fs::remove_all(d);
}

TEST_CASE("a write that fails half-way leaves the previous file whole", "[atomic]") {
  fs::path d = fresh_dir();
  write_text_file(d / "checkpoint.json", "{\"iteration\": 10}\n");
  auto half_then_fail = [](const std::string& tmp) {
    std::ofstream(tmp) << "{\"itera";  // a torn write, as a kill would leave it
    throw std::runtime_error("killed");
  };
  CHECK_THROWS_WITH(replace_file(d / "checkpoint.json", half_then_fail), "killed");
  CHECK(slurp(d / "checkpoint.json") == "{\"iteration\": 10}\n");
  CHECK(std::distance(fs::directory_iterator(d), fs::directory_iterator()) == 1);
  fs::remove_all(d);
}

TEST_CASE("images are written through a temporary file too", "[atomic]") {
  fs::path d = fresh_dir();
  Image a(4, 2);
  a.data.assign(a.data.size(), 0.25f);
  write_image(a, (d / "x.exr").string());
  Image b(4, 2);
  b.data.assign(b.data.size(), 0.5f);
  write_image(b, (d / "x.exr").string());
  CHECK(read_image((d / "x.exr").string()).data == b.data);
  CHECK_THROWS_WITH(write_image(b, (d / "missing-folder" / "x.png").string()), Catch::Contains("x.png"));
  CHECK(std::distance(fs::directory_iterator(d), fs::directory_iterator()) == 1);
  fs::remove_all(d);
}

TEST_CASE("a write into a folder that does not exist names the file", "[atomic]") {
  CHECK_THROWS_WITH(write_text_file("/nonexistent-dray-folder/a.json", "x"),
                    Catch::Contains("/nonexistent-dray-folder/a.json: cannot open for writing"));
}
