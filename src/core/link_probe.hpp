// The links a rank talks over in the LU, measured before the run
// (core/node_probes.hpp): to its neighbours in its process row and column
// (the panel's broadcast and the row swap go there), by ping-pong of an
// 8-byte message (latency) and of a panel-sized one (rate).
#pragma once

#include <mpi.h>

#include <cstddef>

namespace hplx {

struct LinkFigures {
  double gbs = 0;         // the slowest link's rate (bytes one way per second / 1e9)
  double latency_us = 0;  // that link's one-way latency
  int peer = -1;          // the rank (of `world`) at its other end; -1: no link
};

// Ping-pong with each neighbour in `line` (a process row's or column's
// communicator; rank i's neighbours are i - 1 and i + 1, around): the links
// paired off in two or three rounds so that every rank is in at most one
// at a time, `bytes` of `buffer` (at least 8) the large message. Returns
// the slowest of this rank's links, the peer named as a rank of `world`.
// Collective over `line`; nothing where it has one rank.
LinkFigures probe_line(MPI_Comm line, MPI_Comm world, void* buffer, std::size_t bytes);

// The slower of two (the one of lower rate; a measured one over none).
LinkFigures slower_link(const LinkFigures& a, const LinkFigures& b);

}  // namespace hplx
