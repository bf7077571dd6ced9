#pragma once

// The peers run heist's own sequential fib (apps/fib) below their cutoff and
// verify against its reference, so every implementation shares the leaf code.
#include "fib/fib.hpp"

namespace heist::peers {

using heist::apps::fib::fib_reference;
using heist::apps::fib::fib_sequential;

}  // namespace heist::peers
