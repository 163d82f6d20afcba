#include "renderer/integrators/pass_comm.h"

#include <algorithm>
#include <chrono>

namespace dray {

double PassComm::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<int> PassComm::interleaved(int count) const {
  std::vector<int> ids;
  for (int i = rank(); i < count; i += size()) ids.push_back(i);
  return ids;
}

void PassComm::for_my_tiles(int count, int, const TileRender& render, const std::function<void(double)>& progress) const {
  const std::vector<int> ids = interleaved(count);
  std::function<void(int)> tile_done;
  if (is_root() && progress) tile_done = [&](int done) { progress(double(done) / double(std::max<size_t>(1, ids.size()))); };
  render(ids, tile_done);
}

}  // namespace dray
