// The factories of the apps heist ships (one per apps/<app>/ folder).
#pragma once

#include "common/app.hpp"

namespace heist::apps {
namespace fib { std::unique_ptr<App> make_fib_app(); }
namespace nqueens { std::unique_ptr<App> make_nqueens_app(); }
namespace uts { std::unique_ptr<App> make_uts_app(); }
namespace spantree { std::unique_ptr<App> make_spantree_app(); }
namespace sor { std::unique_ptr<App> make_sor_app(); }
namespace bpc { std::unique_ptr<App> make_bpc_app(); }
namespace matmul { std::unique_ptr<App> make_matmul_app(); }
namespace sparselu { std::unique_ptr<App> make_sparselu_app(); }
}  // namespace heist::apps
