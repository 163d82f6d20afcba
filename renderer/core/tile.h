#pragma once
// A rectangle of pixels: a tile of work, a crop window.

namespace dray {

struct Tile {
  int x0, y0, x1, y1;  // pixels [x0, x1) x [y0, y1)
};

}  // namespace dray
