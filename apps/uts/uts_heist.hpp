// UTS on heist: every tree node is a task (a registered, migratable escaping
// async under one finish), as in HotSLAW Table 1; the runtime's bounded
// queue decides which run inline.
#pragma once

#include "uts/uts_params.hpp"
#include "uts/uts_seq.hpp"

namespace heist {
class Runtime;
}

namespace heist::apps::uts {

// Counts the tree's nodes, leaves and depth in parallel. Call inside a
// heist::Runtime; not reentrant (one traversal at a time per process).
// cutoff > 0: a node at that height or deeper counts its subtree
// sequentially (the application-level tree-depth cutoff); 0: a task per node.
heist::uts::UtsCounts uts_count_heist(const heist::uts::UtsParams& params, int cutoff = 0);
// Every rank (collective): the root task starts on rank 0, the counts are
// summed over the ranks.
heist::uts::UtsCounts uts_count_heist(heist::Runtime& runtime, const heist::uts::UtsParams& params, int cutoff = 0);

}  // namespace heist::apps::uts
