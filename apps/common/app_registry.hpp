// The factories of the apps heist ships (one per apps/<app>/ folder).
#pragma once

#include "common/app.hpp"

namespace heist::apps {
namespace fib { std::unique_ptr<App> make_fib_app(); }
namespace nqueens { std::unique_ptr<App> make_nqueens_app(); }
namespace uts { std::unique_ptr<App> make_uts_app(); }
}  // namespace heist::apps
