#pragma once

// The peers factorise heist's own BOTS sparselu input (apps/sparselu) with
// its block kernels, in the same per-block order, so every implementation's
// result agrees with the sequential one bit for bit: the result reported is
// sparselu::fingerprint of the factorised matrix.
#include "sparselu/sparselu.hpp"

namespace heist::peers::sparselu {

using namespace heist::apps::sparselu;

// A fresh copy of the BOTS input n x n blocks of b x b (generated once and kept).
Matrix fresh_input(int n, int b);

}  // namespace heist::peers::sparselu
