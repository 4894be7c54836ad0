#include "core/link_probe.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/timer.hpp"

namespace hplx {
namespace {

constexpr int kTag = 7301;
constexpr int kLatencyTrips = 20;  // round trips of 8 bytes
constexpr int kRateTrips = 4;      // round trips of the large message, after one to warm up

// `trips` round trips of `bytes` with `peer`, this rank sending first when
// `first`; the fastest trip's seconds (a burst of other traffic slows one
// trip, not the link's figure).
double ping_pong(MPI_Comm line, int peer, bool first, void* buffer, int bytes, int trips) {
  double best = 0;
  for (int i = 0; i < trips; ++i) {
    const double t0 = wall_time();
    if (first) {
      HPLX_MPI_CHECK(MPI_Send(buffer, bytes, MPI_BYTE, peer, kTag, line));
      HPLX_MPI_CHECK(MPI_Recv(buffer, bytes, MPI_BYTE, peer, kTag, line, MPI_STATUS_IGNORE));
    } else {
      HPLX_MPI_CHECK(MPI_Recv(buffer, bytes, MPI_BYTE, peer, kTag, line, MPI_STATUS_IGNORE));
      HPLX_MPI_CHECK(MPI_Send(buffer, bytes, MPI_BYTE, peer, kTag, line));
    }
    const double t = wall_time() - t0;
    best = i == 0 ? t : std::min(best, t);
  }
  return best;
}

LinkFigures measure(MPI_Comm line, MPI_Comm world, int peer, bool first, void* buffer,
                    std::size_t bytes) {
  const int large = static_cast<int>(std::min<std::size_t>(bytes, 1u << 30));
  ping_pong(line, peer, first, buffer, 8, 2);
  const double latency = ping_pong(line, peer, first, buffer, 8, kLatencyTrips);
  ping_pong(line, peer, first, buffer, large, 1);
  const double rate = ping_pong(line, peer, first, buffer, large, kRateTrips);
  LinkFigures f;
  // Both ends timed the same trips; the one that sent first gives its
  // figures to the other, so a link's two ends hold one figure.
  double figures[2] = {1e6 * latency / 2, rate > 0 ? 2.0 * large / rate / 1e9 : 0};
  if (first)
    HPLX_MPI_CHECK(MPI_Send(figures, 2, MPI_DOUBLE, peer, kTag, line));
  else
    HPLX_MPI_CHECK(MPI_Recv(figures, 2, MPI_DOUBLE, peer, kTag, line, MPI_STATUS_IGNORE));
  f.latency_us = figures[0];
  f.gbs = figures[1];
  MPI_Group line_group, world_group;
  HPLX_MPI_CHECK(MPI_Comm_group(line, &line_group));
  HPLX_MPI_CHECK(MPI_Comm_group(world, &world_group));
  HPLX_MPI_CHECK(MPI_Group_translate_ranks(line_group, 1, &peer, world_group, &f.peer));
  MPI_Group_free(&line_group);
  MPI_Group_free(&world_group);
  return f;
}

}  // namespace

LinkFigures slower_link(const LinkFigures& a, const LinkFigures& b) {
  if (a.peer < 0) return b;
  if (b.peer < 0) return a;
  return b.gbs < a.gbs ? b : a;
}

LinkFigures probe_line(MPI_Comm line, MPI_Comm world, void* buffer, std::size_t bytes) {
  int me = 0, n = 1;
  HPLX_MPI_CHECK(MPI_Comm_rank(line, &me));
  HPLX_MPI_CHECK(MPI_Comm_size(line, &n));
  LinkFigures slowest;
  if (n < 2) return slowest;
  // Link i joins ranks i and i + 1 (mod n); two ranks have one link. Round
  // 0 takes the even links, round 1 the odd ones, and with n odd round 2
  // the last (n - 1 to 0), which shares rank 0 with link 0.
  const int links = n == 2 ? 1 : n;
  const int rounds = n == 2 ? 1 : (n % 2 == 0 ? 2 : 3);
  auto round_of = [&](int link) { return n % 2 == 1 && link == n - 1 ? 2 : link % 2; };
  for (int round = 0; round < rounds; ++round)
    for (int link : {me, (me - 1 + n) % n}) {  // the link to my right, then to my left
      if (link >= links || round_of(link) != round) continue;
      const int a = link, b = (link + 1) % n;
      const int peer = me == a ? b : a;
      if (peer == me) continue;
      slowest =
          slower_link(slowest, measure(line, world, peer, me == std::min(a, b), buffer, bytes));
      break;  // one link a round
    }
  return slowest;
}

}  // namespace hplx
