#pragma once
// How a multi-view pass spreads its views over the ranks: view groups × tile ranks. The ranks
// form `count` groups (rank r in group r mod count, ranked by r within it); view i of an
// iteration's views is rendered by group i mod count, its tiles spread over the group's ranks.
// Every rank's sums (of the views its group rendered) meet in one allreduce over all ranks, so
// the result is bitwise the same for any layout.
#include "mpi/context.h"

namespace dray::mpi {

// The group count for `ranks` ranks and `views` views per iteration: the one with the least
// views per rank in its busiest group (views and ranks spread as above); on a tie, more groups
// (fewer ranks share a view: fewer image collectives, larger tiles per rank).
int choose_view_groups(int ranks, int views);

struct ViewGroups {
  int count = 1, index = 0;  // groups, and this rank's
  Context group;             // this rank's group
};

// Collective over `ctx`: `count` groups (1 to ctx.size()).
ViewGroups make_view_groups(const Context& ctx, int count);

}  // namespace dray::mpi
