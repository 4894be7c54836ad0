// The simulated cluster of `hplx sim`: a system spec turned into a SimGrid
// 3.32 platform file and an smpirun hostfile, so that the real LU driver runs
// under SMPI (smpirun -platform P.xml -hostfile H -np R prog) on the machine
// the spec describes. Each node is a SimGrid host with one core per device;
// ranks on one node talk over the node's link (the cluster's loopback), nodes
// over their network links joined by network.topology (a non-blocking star,
// a fat tree or a dragonfly). docs/MODEL.md, "The simulated platform", has
// the mapping and why each link carries the values it does.
#pragma once

#include <stdexcept>
#include <string>

#include "model/system_spec.hpp"

namespace hplx::model {

struct SimPlatform {
  std::string xml;       // the SimGrid platform file's text (DTD version 4.1)
  std::string hostfile;  // smpirun's hostfile: one "host:ranks" line per node, filled in rank order
  int nodes = 0;         // nodes the run uses: ceil(ranks / node.devices)
  int ranks_per_node = 0;
  int hosts = 0;  // hosts in the platform: nodes, or all of a fat tree's or dragonfly's
};

// The platform for `ranks` simulated ranks of `spec`: nodes =
// ceil(ranks / node.devices), host "node-i" holding ranks i*devices ..
// (i+1)*devices - 1. Throws UsageError ("FILE: key 'network': ...") when the
// spec cannot describe the run: ranks < 1, more than one node without a
// [network], a link without bandwidth, a topology with fewer nodes than the
// run needs. `nodes` > 0 spreads the ranks over that many nodes instead
// (ceil(ranks / nodes) on each, at most node.devices).
SimPlatform sim_platform(const SystemSpec& spec, int ranks, int nodes = 0);

// network.topology_parameters checked and written the way SimGrid's cluster
// topo_parameters reads them (no spaces); throws std::invalid_argument with
// what is wrong and the allowed form. Star takes no parameters.
std::string normalize_topology_parameters(TopologyKind kind, const std::string& text);
// The allowed form of the parameters of `kind`, with an example.
std::string topology_parameters_form(TopologyKind kind);
// How many nodes (SimGrid hosts) the topology has; 0 for a star (any number).
long topology_nodes(const NetworkTopology& topology);

}  // namespace hplx::model
