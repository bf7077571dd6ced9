#include "common/app_registry.hpp"

namespace heist::apps {
namespace stealbench { std::unique_ptr<App> make_stealbench_app(); }

const std::vector<AppEntry>& app_table() {
  static const std::vector<AppEntry> table = {
      {"fib", &fib::make_fib_app},
      {"nqueens", &nqueens::make_nqueens_app},
      {"uts", &uts::make_uts_app},
      {"spantree", &spantree::make_spantree_app},
      {"sor", &sor::make_sor_app},
      {"bpc", &bpc::make_bpc_app},
      {"matmul", &matmul::make_matmul_app},
      {"sparselu", &sparselu::make_sparselu_app},
      {"stealbench", &stealbench::make_stealbench_app},
  };
  return table;
}

}  // namespace heist::apps
