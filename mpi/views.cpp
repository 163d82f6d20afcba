#include "mpi/views.h"

#include <algorithm>

namespace dray::mpi {

int choose_view_groups(int ranks, int views) {
  int best = 1;
  double best_load = 1e300;
  for (int g = 1; g <= std::max(1, std::min(ranks, views)); ++g) {
    double load = 0;  // the busiest group's views per rank
    for (int j = 0; j < g; ++j) {
      const int r = ranks / g + (j < ranks % g ? 1 : 0), v = views / g + (j < views % g ? 1 : 0);
      load = std::max(load, double(v) / double(r));
    }
    if (load <= best_load) best = g, best_load = load;
  }
  return best;
}

ViewGroups make_view_groups(const Context& ctx, int count) {
  count = std::clamp(count, 1, ctx.size());
  const int index = ctx.rank() % count;
  return ViewGroups{count, index, ctx.split(index, ctx.rank())};
}

}  // namespace dray::mpi
