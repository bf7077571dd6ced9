// or_abort: inside a distributed region an error on one rank ends the whole
// job (abort_job): the other ranks would wait for this rank's tasks,
// completions or termination count forever, and an exception would unwind
// into the scheduler. Runs f(), turning any exception into that.
#pragma once

#include <exception>

#include <mpi.h>

#include "rma/mpi_session.hpp"

namespace heist::rma {

template <class F>
auto or_abort(MPI_Comm comm, int rank, F&& f) noexcept -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    abort_job(comm, rank, e.what());
  } catch (...) {
    abort_job(comm, rank, "a non-standard exception in the distributed layer");
  }
}

}  // namespace heist::rma
