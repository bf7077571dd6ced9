// matmul: matrix generation, the product, and the sequential and heist
// task loops (PGAS-WS §5). Public heist API only.
#include <algorithm>

#include <heist/heist.hpp>

#include "common/task_io.hpp"
#include "matmul/matmul.hpp"

namespace heist::apps::matmul {

namespace {
std::uint64_t mix(std::uint64_t z) {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
double to_unit(std::uint64_t z) { return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0; }  // [-1, 1)
}  // namespace

void make_matrices(std::uint32_t index, int size, double* a, double* b) {
  const std::size_t cells = static_cast<std::size_t>(size) * static_cast<std::size_t>(size);
  const std::uint64_t base = mix(0x9E3779B97F4A7C15ull * (std::uint64_t{index} + 1));
  for (std::size_t k = 0; k < cells; ++k) {
    a[k] = to_unit(mix(base + 2 * k));
    b[k] = to_unit(mix(base + 2 * k + 1));
  }
}

void multiply(int size, const double* a, const double* b, double* c) {
  const auto n = static_cast<std::size_t>(size);
  std::fill(c, c + n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    double* ci = c + i * n;
    for (std::size_t k = 0; k < n; ++k) {
      const double aik = a[i * n + k];
      const double* bk = b + k * n;
      for (std::size_t j = 0; j < n; ++j) ci[j] += aik * bk[j];
    }
  }
}

double task_checksum(std::uint32_t index, int size) {
  // Scratch reused by the tasks of one thread (a task never runs inside
  // another here: matmul tasks spawn nothing).
  thread_local std::vector<double> scratch;
  const std::size_t cells = static_cast<std::size_t>(size) * static_cast<std::size_t>(size);
  if (scratch.size() < 3 * cells) scratch.resize(3 * cells);
  double* a = scratch.data();
  double* b = a + cells;
  double* c = b + cells;
  make_matrices(index, size, a, b);
  multiply(size, a, b, c);
  double sum = 0.0;
  for (std::size_t k = 0; k < cells; ++k) sum += c[k];
  return sum;
}

void matmul_sequential(int size, std::uint32_t tasks, std::vector<double>& checksums) {
  checksums.assign(tasks, 0.0);
  for (std::uint32_t i = 0; i < tasks; ++i) checksums[i] = task_checksum(i, size);
}

namespace {

struct MatmulIn {
  std::uint32_t index;
  std::int32_t size;
};

// The checksum is the task's output: it lands in the spawner's array in
// whichever process the task ran.
void matmul_body(const MatmulIn& in, double* checksum) { *checksum = task_checksum(in.index, in.size); }
const auto matmul_task = heist::register_task<matmul_body>("apps.matmul.task");

}  // namespace

void matmul_heist(int size, std::uint32_t tasks, std::vector<double>& checksums) {
  checksums.assign(tasks, 0.0);
  for (std::uint32_t i = 0; i < tasks; ++i) heist::spawn(matmul_task, MatmulIn{i, size}, &checksums[i]);
  heist::wait();
}

std::vector<TaskIo> matmul_task_io() { return {task_io_of(matmul_task, "apps.matmul.task")}; }

}  // namespace heist::apps::matmul
