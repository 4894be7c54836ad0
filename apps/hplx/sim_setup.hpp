// What `hplx sim` checks before it starts the simulated ranks: the memory
// and the mappings the simulator itself will need (the ranks' kernel models
// are model/sim_kernels.hpp's). Pure functions, for the tests.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hplx::app {

// The host memory the simulation of one test needs (SMPI's shared block
// behind every large buffer, and each rank's own: its copy of the
// program's data, stack, pooled small buffers, an NB x NB block and its
// per-iteration record), in bytes: what the preflight compares with the
// memory free.
double simulator_bytes(long n, int nb, int p, int q);

// The memory mappings the simulator of `ranks` ranks holds: SMPI maps a
// copy of the rank program for each rank and each shared buffer's block
// separately (about 64 per rank measured in a 1024-rank run at N = 500000,
// growing as buffers are pooled). Linux refuses mappings past
// vm.max_map_count, which the simulated ranks would meet mid-run as "cannot
// reserve" or SMPI's "Could not map folded virtual memory".
long simulator_mappings(int ranks);

// Throws a UsageError naming the sysctl when `ranks` need more mappings
// than `limit` (vm.max_map_count; 0 = unknown, no check).
void require_mappings(int ranks, long limit);

// SMPI's shared block (smpi/shared-malloc-blocksize) for tests of these
// sizes: a power of two from 64 MiB up that holds the largest host buffer a
// rank shares (a panel of its rows, or U of its columns). SMPI maps the
// block once per block-sized piece of every shared buffer, and each mapping
// of the same pages costs the kernel's reverse map (every page's owners);
// one mapping per buffer keeps that to one per buffer.
std::size_t shared_block_bytes(long n, int nb, int p, int q);

// /proc/sys/vm/max_map_count, or 0 where it cannot be read.
long max_map_count();

}  // namespace hplx::app
