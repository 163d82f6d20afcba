#pragma once
// The passes of the integrators whose paths start at the camera (`path`, `volpath`): the image
// over camera tiles (render_tiles.h) with the boundary term of its derivative images,
// and the gradient over the same tiles by path replay (gradient_tiles.h) with the
// boundary term of the loss's. The tiles go to the processes as their PassComm splits them.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "renderer/integrators/pass.h"

namespace dray {

// The image over camera tiles, each process rendering its share with `render_share` (which
// returns the samples it dropped) and the first assembling it: the frame the camera-tile
// integrators share.
using TileShareRender = std::function<long(const std::vector<Tile>& tiles, const std::vector<int>& ids, Image& image,
                                           const std::function<void(int done)>& tile_done)>;
Image tile_image(const Scene& scene, const ImageRequest& request, const PassComm& comm, PassFigures& figures,
                 const TileShareRender& render_share);

struct CameraTilePasses {
  static Image image_pass(const Scene& scene, const ImageRequest& request, const PassComm& comm, PassFigures& figures);
  static void gradient_pass(const Scene& scene, const GradientRequest& request, const PassComm& comm, GradientSums& sums,
                            PassFigures& figures);
  static std::optional<std::string> refusal(const PassAsk& ask);
};

}  // namespace dray
