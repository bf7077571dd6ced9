#include "sparselu_common.hpp"

#include <map>
#include <mutex>
#include <utility>

namespace heist::peers::sparselu {

Matrix fresh_input(int n, int b) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, Matrix> inputs;
  std::lock_guard lock(mutex);
  auto it = inputs.find({n, b});
  if (it == inputs.end()) it = inputs.emplace(std::make_pair(n, b), genmat(n, b)).first;
  return clone(it->second);
}

}  // namespace heist::peers::sparselu
