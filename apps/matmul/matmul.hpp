// matmul: independent matrix-multiplication tasks (PGAS-WS §5, after the
// Chameleon matrix example): task i multiplies its own two size x size
// matrices, C_i = A_i x B_i, and records a checksum of C_i. All tasks are
// created up front by the root task (PGAS-WS puts all 2400 on one rank),
// so how a spawn policy treats a long loop of spawns decides how the work
// spreads: help-first queues them all for thieves, inline runs them one by
// one, bounded queues a few, work-first runs each first and leaves the rest
// of the loop (the root's continuation) to a thief.
//
// PGAS-WS's task carries its two matrices; heist's task input holds a few
// dozen bytes, so a task carries (index, size) and generates A_i and B_i
// from the index (O(size^2), against O(size^3) for the product).
#pragma once

#include <cstdint>
#include <vector>

namespace heist::apps::matmul {

// Fills a and b (size x size, row-major) with task `index`'s matrices:
// values in [-1, 1), a function of (index, row, column) only.
void make_matrices(std::uint32_t index, int size, double* a, double* b);

// c = a x b (size x size, row-major; i-k-j loop order).
void multiply(int size, const double* a, const double* b, double* c);

// Task `index` in full: generate A_i and B_i, multiply, and return the sum
// of C_i's entries in row-major order. The one function both versions call,
// so their checksums agree bit for bit.
double task_checksum(std::uint32_t index, int size);

// checksums[i] = task_checksum(i, size) for every task, one after another.
void matmul_sequential(int size, std::uint32_t tasks, std::vector<double>& checksums);

// The same on heist: the calling (root) task spawns all `tasks` tasks in a
// loop inside one finish; each is a registered, escaping async (migratable)
// that writes checksums[i]. Call inside a heist::Runtime; one run at a time.
void matmul_heist(int size, std::uint32_t tasks, std::vector<double>& checksums);

}  // namespace heist::apps::matmul
