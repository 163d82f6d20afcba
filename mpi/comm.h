#pragma once
// The communicator of a Context, for the files of mpi/ (the only ones that include <mpi.h>).
#include <mpi.h>

#include "mpi/context.h"

namespace dray::mpi {

struct Context::Comm {
  MPI_Comm handle = MPI_COMM_WORLD;
  bool owned = false;  // a split's communicator, freed with its context
  ~Comm() {
    if (owned) MPI_Comm_free(&handle);
  }
};

inline MPI_Comm comm_of(const Context& ctx) { return ctx.comm().handle; }

}  // namespace dray::mpi
