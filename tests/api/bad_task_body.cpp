// Must not compile: a task body with a signature register_task does not
// take. The test (api.bad_task_body) requires the compiler's first words
// about it to be heist's message saying which signatures it takes.
#include <heist/heist.hpp>

void two_inputs(int n, double x);
const auto task = heist::register_task<two_inputs>("two_inputs");

int main() {}
