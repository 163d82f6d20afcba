#pragma once
// Small generic collectives.
#include <string>
#include <vector>

#include "mpi/context.h"

namespace dray::mpi {

// Collective. Every rank's bytes, in rank order, on rank 0 (other ranks get an empty vector).
std::vector<std::string> gather_strings(const Context& ctx, const std::string& mine);

}  // namespace dray::mpi
