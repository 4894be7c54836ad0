// HPL configuration: the 31 lines of netlib HPL 2.3's HPL.dat, the single
// tests they expand to, and the parser.
//
// The parser reads count lines followed by value lists, like netlib, but
// accepts any whitespace. Values out of netlib's range that netlib silently
// remaps (an unknown PFACT is Right, an unknown BCAST is 1ringM, ...) are
// remapped the same way and reported in `warnings`. Everything netlib
// rejects, and everything it would misread, is a UsageError whose one-line
// message is "FILE:LINE: <what> '<value>' ...; allowed: ...".
#pragma once

#include <string>
#include <vector>

#include "core/grid.hpp"

namespace hplx::lu {

enum class Factorization { Left = 0, Crout = 1, Right = 2 };
enum class Broadcast { OneRing = 0, OneRingM = 1, TwoRing = 2, TwoRingM = 3, Long = 4, LongM = 5 };
enum class SwapAlgorithm { BinaryExchange = 0, Long = 1, Mix = 2 };

struct GridShape {
  int p = 1;
  int q = 1;
};

// hplx's own schedule choices, beyond what HPL.dat can say: each
// optimization can be switched off to measure what it buys. The same for
// every test of a run (command-line flags); recorded in the JSON.
enum class ScheduleKind { Bsp = 0, Dag = 1 };
// Where FACT runs (--fact-on): on the host (panel_factor.cpp) or on the
// device's queue (panel_factor_device.hpp).
enum class FactOn { Host = 0, Device = 1 };
// How device FACT runs the leaf of right-looking PFACT on one process row
// (--fact-leaf): fused = one kernel of phases per leaf (on a GPU a
// cooperative launch with a grid-wide barrier between phases, as rocHPL
// 7); kernels = a launch per step of each column (panel_factor_device.cpp).
enum class FactLeaf { Fused = 0, Kernels = 1, Fused3 = 2 };

struct Schedule {
  // --schedule: bsp = the look-ahead driver of pdgesv.cpp (DEPTH and the
  // options below); dag = the LU as a task graph (seed 004,
  // src/lu/schedules/dag_schedule.hpp), where look-ahead emerges from the priorities.
  ScheduleKind kind = ScheduleKind::Bsp;
  // --dag-priorities: the dag schedule's task priorities (off = ablation).
  bool dag_priorities = true;
  // --dag-group-columns: about how many columns a non-urgent update task of
  // the dag schedule takes (rounded to whole blocks; NB or less gives one
  // task per block). 512 = kDagGroupColumns (src/lu/schedules/dag_schedule.hpp).
  long dag_group_columns = 512;
  // --dag-early-swap: the dag schedule's early rest swap with one process
  // column (off = the blocking swap, for measuring it).
  bool dag_early_swap = true;
  // DEPTH > 0 with more than one thread per rank: the main thread factors
  // the next panel while the other threads update (--fact-overlap).
  bool fact_overlap = true;
  // Threads of the panel factorization when it does not run beside the
  // update (DEPTH 0, the first panel, --fact-overlap off): 1 = the
  // unthreaded factorization (its BLAS calls use BLAS's threads), N > 1 = a
  // team of N with row tiles per thread (seed 000, III.A), 0 = a team of all
  // the rank's threads (--fact-threads). 1 is the default: on the 2-core
  // development machine the team of 2 was slower (docs/PERFORMANCE.md).
  int fact_threads = 1;
  // On a device backend: FACT's recursion levels at least this many columns
  // wide run their DGEMM on the device (seed 003 5.1.2; --fact-device-gemm;
  // src/lu/phases/panel.hpp FactDeviceGemm). 0 = off.
  long fact_device_gemm = 0;
  // --fact-on: FACT on the host or on the device's queue. The library's
  // default is the host; `hplx lu` makes it the device on a device backend
  // (emulated, cuda). The bsp schedule only (the dag one factors on the
  // host), and never on the sim backend (not modelled).
  FactOn fact_on = FactOn::Host;
  // --fact-leaf and --fact-blocks: the fused leaf, and the most blocks its
  // cooperative launch takes on a GPU (0 = as many as the device holds at
  // once; fewer leave the SMs to the update's DGEMM beside it).
  FactLeaf fact_leaf = FactLeaf::Fused;
  int fact_blocks = 32;
  // --update-sms and --update-sms-below, with FACT on the device: the SMs
  // the update beside FACT aims at (0 = every SM), leaving the others to
  // FACT, in the iterations whose trailing matrix has fewer than
  // `update_sms_below` rows (0 = every iteration).
  int update_sms = 0;
  long update_sms_below = 0;
  // --cuda-aware-mpi, resolved (device/device_mpi.hpp), with FACT on the
  // device: MPI reads and writes device memory. LBCAST of a panel goes from
  // and into W's device side (the plain broadcast only: the pipelined one
  // still goes through the host); with P > 1 the row swaps' messages go
  // from and into their buffers' device sides (SwapForm::device_memory).
  bool device_mpi = false;
  // P > 1: the row swap and update cut into column segments of growing
  // width (the first `swap_first` of the columns, each next `swap_growth`
  // times wider); the swap of segment k+1 travels while segment k is
  // updated (seed 003, 4.2; --swap-pipeline, --swap-first, --swap-growth).
  bool swap_pipeline = false;
  double swap_first = 0.125;
  double swap_growth = 2.0;
  // The split update (seed 000 III.C; --split): the fraction of the columns
  // in the right section, whose row swap travels while the left section is
  // updated and vice versa. 0 turns it off.
  double split = 0.0;
  // --split not given: hplx chooses it per grid (choose_for_grid()).
  bool split_auto = false;
  // Whether the update runs on a device, apart from the host's cores
  // (CUDA, the emulated device, simulated GPU ranks), or on those cores
  // themselves: choose_for_grid() splits the update only on a device.
  bool update_on_device = false;
  // The modified long swap (seed 003 5.2; --long-swap modified|netlib): U's
  // exchange (the roll) goes out before the displaced rows (the spread) are
  // packed, and the two travel together; netlib spreads, then rolls.
  bool modified_long_swap = true;
  // CPU core time-sharing (seed 000 III.B; --core-sharing): each rank bound
  // to a root core plus its process row's part of the node's spare cores,
  // FACT on all of them (src/core/core_sharing.hpp).
  bool core_sharing = false;
  // Broadcast pipelining (seed 003 5.1.3.2; --bcast-pipeline): finished
  // top-level sub-panels of FACT are broadcast while the rest is factored
  // (src/lu/phases/comm/panel_broadcast.hpp).
  bool bcast_pipeline = false;
};

// What an HPL.dat says, with netlib's defaults for an absent file.
struct HplDat {
  std::string source = "<defaults>";     // file name, for messages
  std::string output_file = "HPL.out";   // line 3
  int device_out = 6;                    // line 4: 6 stdout, 7 stderr, else the file
  std::vector<long> ns{1000};            // lines 5-6
  std::vector<int> nbs{192};             // lines 7-8
  GridOrder pmap = GridOrder::RowMajor;  // line 9
  std::vector<GridShape> grids{{1, 1}};  // lines 10-12
  double threshold = 16.0;               // line 13
  std::vector<Factorization> pfacts{Factorization::Right};  // lines 14-15
  std::vector<int> nbmins{4};                               // lines 16-17
  std::vector<int> ndivs{2};                                // lines 18-19
  std::vector<Factorization> rfacts{Factorization::Crout};  // lines 20-21
  std::vector<Broadcast> bcasts{Broadcast::OneRing};        // lines 22-23
  std::vector<int> depths{0};                               // lines 24-25
  SwapAlgorithm swap = SwapAlgorithm::Mix;                  // line 26
  int swap_threshold = 64;                                  // line 27
  bool l1_transposed = true;  // line 28 (0 = transposed, netlib's default)
  bool u_transposed = true;   // line 29
  bool equilibration = true;  // line 30
  int alignment = 8;          // line 31, in doubles
  Schedule schedule;          // not in the file: hplx's flags
  // Notes about values remapped as netlib remaps them (one line each).
  std::vector<std::string> warnings;
};

// One test of the run: a single combination of the lists.
struct TestCase {
  long n = 0;
  int nb = 1;
  GridShape grid;
  GridOrder pmap = GridOrder::RowMajor;
  int depth = 0;
  Broadcast bcast = Broadcast::OneRing;
  Factorization rfact = Factorization::Crout;
  Factorization pfact = Factorization::Right;
  int nbmin = 4;
  int ndiv = 2;
  SwapAlgorithm swap = SwapAlgorithm::Mix;
  int swap_threshold = 64;
  bool l1_transposed = true;
  bool u_transposed = true;
  bool equilibration = true;
  int alignment = 8;
  Schedule schedule;
};

// Parses an HPL.dat file. Throws UsageError (file missing, unreadable,
// malformed) with a one-line message naming file, line and value.
HplDat parse_hpl_dat_file(const std::string& path);
// Same, from text already read; `source` names it in messages.
HplDat parse_hpl_dat_text(const std::string& text, const std::string& source);

// The split update hplx turns on by itself, for a bsp test on a grid with
// P > 1 and DEPTH > 0 when --split was not given and the update runs on a
// device: the fraction of columns in the right section. There the host
// moves one section's rows while the device updates the other (seed 000
// III.C; rocHPL's default); with P = 1 there is no row-swap communication
// to hide. On host CPU ranks it stays off: with netlib's recommended
// HPL.dat on 2x1 (N = 10000, NB 192) --split 0.5 ran 8-13% slower than
// --split 0 in each of 5 alternating rounds on the project's 2-core
// machine (docs/PERFORMANCE.md, "Per-grid defaults"), though 3% faster on
// an earlier day.
inline constexpr double kAutoSplit = 0.5;

// The test with hplx's per-grid choices applied (split_auto), and a line
// saying what was chosen ("" when nothing was).
std::string choose_for_grid(TestCase& t);

// Every test in netlib's loop order: grid outermost, then N, NB, DEPTH,
// BCAST, RFACT, PFACT, NBMIN, NDIV innermost.
std::vector<TestCase> expand_tests(const HplDat& dat);

// netlib's variant code, e.g. "WR00C2R4" (W, mapping R/C, depth, bcast digit,
// rfact L/C/R, ndiv, pfact L/C/R, nbmin).
std::string variant_code(const TestCase& t);

// Names used in the parameter summary and in JSON ("Left", "1ring", ...).
const char* name_of(Factorization f);
const char* name_of(Broadcast b);
const char* name_of(SwapAlgorithm s);
const char* name_of(ScheduleKind s);  // "bsp", "dag"
const char* name_of(FactOn f);        // "host", "device"
const char* name_of(FactLeaf f);      // "fused", "kernels", "fused3"

}  // namespace hplx::lu
