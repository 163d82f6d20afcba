#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>

#include "renderer/image/image.h"

using namespace dray;

TEST_CASE("EXR round trip is bitwise", "[image]") {
  Image img(7, 5, 3);
  for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = float(i) * 0.37f - 3.f;
  std::string path = (std::filesystem::temp_directory_path() / "dray_image_test.exr").string();
  write_image(img, path);
  Image back = read_image(path);
  REQUIRE(back.width == 7);
  REQUIRE(back.height == 5);
  CHECK(back.data == img.data);
  std::remove(path.c_str());
}

TEST_CASE("PNG stores sRGB and reads back within one 8-bit step", "[image]") {
  Image img(4, 2, 3);
  const float values[] = {0.f, 0.001f, 0.05f, 0.2f, 0.5f, 0.8f, 1.f, 2.f};
  for (int i = 0; i < 8; ++i)
    for (int c = 0; c < 3; ++c) img.data[i * 3 + c] = values[i];
  std::string path = (std::filesystem::temp_directory_path() / "dray_image_test.png").string();
  write_image(img, path);
  Image back = read_image(path);
  for (int i = 0; i < 8; ++i) {
    float expect = std::min(values[i], 1.f);  // clamped
    CHECK(linear_to_srgb(back.data[i * 3]) == Approx(linear_to_srgb(expect)).margin(0.5 / 255));
  }
  std::remove(path.c_str());
}

TEST_CASE("sRGB transfer: known points and inverse", "[image]") {
  CHECK(linear_to_srgb(0.f) == 0.f);
  CHECK(linear_to_srgb(1.f) == Approx(1.f));
  CHECK(linear_to_srgb(0.18f) == Approx(0.4614f).margin(1e-3));  // middle grey
  for (float v : {0.001f, 0.01f, 0.3f, 0.9f}) CHECK(srgb_to_linear(linear_to_srgb(v)) == Approx(v).epsilon(1e-4));
}

TEST_CASE("unknown image formats are refused with the file name", "[image]") {
  Image img(1, 1, 3);
  CHECK_FALSE(is_image_path("x.jpg"));
  CHECK(is_image_path("x.EXR"));
  CHECK_THROWS_WITH(write_image(img, "out.jpg"), Catch::Contains("out.jpg"));
  CHECK_THROWS_WITH(read_image("/nonexistent/file.exr"), Catch::Contains("/nonexistent/file.exr"));
}

TEST_CASE("downsampled: each block's mean", "[image]") {
  Image big(4, 2, 3);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 4; ++x)
      for (int c = 0; c < 3; ++c) big.pixel(x, y)[c] = float(x + 10 * y + 100 * c);
  const Image small = downsampled(big, 2, 2);
  REQUIRE(small.width == 2);
  REQUIRE(small.height == 1);
  CHECK(small.pixel(0, 0)[0] == Approx((0 + 1 + 10 + 11) / 4.0));
  CHECK(small.pixel(1, 0)[2] == Approx((2 + 3 + 12 + 13) / 4.0 + 200));
}
