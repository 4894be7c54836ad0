#include "model/sim_platform.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hplx::model {
namespace {

// SimGrid keeps topology sizes in unsigned ints and builds every switch and
// host: far beyond any machine, well inside both.
constexpr long kMaxTopologyValue = 1L << 20;
constexpr long kMaxTopologyNodes = 1L << 24;

// "2; 4,4 ;1,2;1,2" -> {{2}, {4, 4}, {1, 2}, {1, 2}}; every number an
// integer in 1..kMaxTopologyValue.
std::vector<std::vector<long>> split_parameters(const std::string& text, const std::string& form) {
  std::vector<std::vector<long>> parts(1, std::vector<long>(1, 0));
  bool digits = false;  // the current number has a digit
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(fmt::format("'{}' {}; allowed: {}", text, why, form));
  };
  auto close_number = [&]() {
    if (!digits) throw bad("has an empty number");
    if (parts.back().back() < 1) throw bad("has a 0; every number must be >= 1");
    digits = false;
  };
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      long& v = parts.back().back();
      v = v * 10 + (c - '0');
      if (v > kMaxTopologyValue) throw bad(fmt::format("has a number above {}", kMaxTopologyValue));
      digits = true;
    } else if (c == ',' || c == ';') {
      close_number();
      if (c == ';') parts.emplace_back();
      parts.back().push_back(0);
    } else if (c != ' ' && c != '\t') {
      throw bad(fmt::format("has '{}'; only digits, ',' and ';' are allowed", c));
    }
  }
  close_number();
  return parts;
}

std::string join(const std::vector<std::vector<long>>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += ';';
    for (size_t j = 0; j < parts[i].size(); ++j)
      out += fmt::format("{}{}", j ? "," : "", parts[i][j]);
  }
  return out;
}

// Checks the shape of `text` and returns its numbers.
std::vector<std::vector<long>> topology_numbers(TopologyKind kind, const std::string& text) {
  const std::string form = topology_parameters_form(kind);
  auto parts = split_parameters(text, form);
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(fmt::format("'{}' {}; allowed: {}", text, why, form));
  };
  if (kind == TopologyKind::FatTree) {
    if (parts.size() != 4)
      throw bad(
          fmt::format("has {} ';'-separated parts, not 4 (levels;down;up;parallel)", parts.size()));
    if (parts[0].size() != 1) throw bad("starts with a list; the first part is the level count");
    const long levels = parts[0][0];
    const char* names[] = {"", "down", "up", "parallel"};
    for (int i = 1; i <= 3; ++i)
      if (static_cast<long>(parts[i].size()) != levels)
        throw bad(fmt::format("has {} {} counts for {} levels; each list needs one per level",
                              parts[i].size(), names[i], levels));
  } else if (kind == TopologyKind::Dragonfly) {
    if (parts.size() != 4)
      throw bad(fmt::format(
          "has {} ';'-separated parts, not 4 (groups,links;chassis,links;routers,links;nodes)",
          parts.size()));
    const char* names[] = {"groups", "chassis", "routers"};
    for (int i = 0; i < 3; ++i)
      if (parts[i].size() != 2)
        throw bad(fmt::format("has {} numbers for {}; it needs 2 ({},links)", parts[i].size(),
                              names[i], names[i]));
    if (parts[3].size() != 1) throw bad("ends with a list; the last part is the nodes per router");
    // SimGrid 3.32 links group j to router j of each chassis (DragonflyZone's
    // route takes green_links_[group]): more groups than routers crash it.
    if (parts[0][0] > parts[2][0])
      throw bad(fmt::format(
          "has {} groups and {} routers per chassis; SimGrid links group j to router j of a "
          "chassis, so groups must be <= routers per chassis",
          parts[0][0], parts[2][0]));
  } else {
    throw bad("is given for a star");
  }
  return parts;
}

long count_nodes(TopologyKind kind, const std::vector<std::vector<long>>& parts,
                 const std::string& text) {
  // Fat tree: the product of the down counts (SimGrid wants exactly that
  // many hosts); dragonfly: groups x chassis x routers x nodes per router.
  std::vector<long> factors;
  if (kind == TopologyKind::FatTree)
    factors = parts[1];
  else
    factors = {parts[0][0], parts[1][0], parts[2][0], parts[3][0]};
  long nodes = 1;
  for (long f : factors) {
    nodes *= f;
    if (nodes > kMaxTopologyNodes)
      throw std::invalid_argument(fmt::format("'{}' describes more than {} nodes; allowed: {}",
                                              text, kMaxTopologyNodes,
                                              topology_parameters_form(kind)));
  }
  return nodes;
}

// A number as SimGrid reads it with its unit: "25000000000Bps", "1e-06s".
std::string bandwidth(double bytes_per_s) {
  return fmt::format("{}Bps", bytes_per_s);
}
std::string latency(double s) {
  return fmt::format("{}s", s);
}

// Text safe inside an XML comment (no "--", nothing unprintable).
std::string comment_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '-' && !out.empty() && out.back() == '-') out += ' ';
    out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  }
  if (!out.empty() && out.back() == '-') out += ' ';
  return out;
}

}  // namespace

std::string topology_parameters_form(TopologyKind kind) {
  switch (kind) {
    case TopologyKind::FatTree:
      return "\"levels;down;up;parallel\": the level count h, then h down counts (children of a "
             "switch), h up counts (parents of a node) and h parallel-link counts, e.g. "
             "\"2;4,4;1,2;1,2\" (4 x 4 = 16 nodes)";
    case TopologyKind::Dragonfly:
      return "\"groups,links;chassis,links;routers,links;nodes\": groups, chassis per group, "
             "routers per chassis (each with its link count) and nodes per router, e.g. "
             "\"3,1;4,1;3,1;2\" (3 x 4 x 3 x 2 = 72 nodes, groups <= routers)";
    case TopologyKind::Star:
      break;
  }
  return "no parameters (a star joins any number of nodes)";
}

std::string normalize_topology_parameters(TopologyKind kind, const std::string& text) {
  auto parts = topology_numbers(kind, text);
  count_nodes(kind, parts, text);
  return join(parts);
}

long topology_nodes(const NetworkTopology& topology) {
  if (topology.kind == TopologyKind::Star) return 0;
  return count_nodes(topology.kind, topology_numbers(topology.kind, topology.parameters),
                     topology.parameters);
}

namespace {

// Checks the rank and device counts.
void check_counts(const std::string& file, int ranks, int devices) {
  if (ranks < 1)
    throw UsageError(fmt::format("{}: {} simulated ranks; allowed: 1 or more", file, ranks));
  if (devices < 1)
    throw UsageError(
        fmt::format("{}: key 'node.devices': {}; allowed: an integer >= 1", file, devices));
}

// Sets the platform's node count and ranks per node: over the `nodes` asked
// for (> 0), else as few nodes as the devices allow.
void place_ranks(const std::string& file, int ranks, int nodes, int devices, SimPlatform& p) {
  if (nodes > 0) {
    // Spread over the nodes asked for, as a published run may be (2 nodes
    // of 4 GPUs, one GPU used on each).
    p.ranks_per_node = static_cast<int>((static_cast<long>(ranks) + nodes - 1) / nodes);
    if (p.ranks_per_node > devices)
      throw UsageError(fmt::format(
          "{}: {} ranks on {} node{} put {} on a node of node.devices = {}; allowed: at least {} "
          "nodes",
          file, ranks, nodes, nodes == 1 ? "" : "s", p.ranks_per_node, devices,
          (ranks + devices - 1) / devices));
    p.nodes =
        static_cast<int>((static_cast<long>(ranks) + p.ranks_per_node - 1) / p.ranks_per_node);
    if (p.nodes < nodes)
      throw UsageError(fmt::format("{}: {} ranks cannot fill {} nodes; allowed: at most {} nodes",
                                   file, ranks, nodes, p.nodes));
  } else {
    p.nodes = static_cast<int>((static_cast<long>(ranks) + devices - 1) / devices);
    p.ranks_per_node = std::min(ranks, devices);
  }
}

// Checks the spec's network and node links against the placement (`run`
// says it in words).
void check_links(const SystemSpec& spec, const SimPlatform& p, const std::string& run) {
  const std::string& file = spec.file;
  const int devices = spec.node.devices;
  const Link& net = spec.network;
  if (p.nodes > 1 && !net.present)
    throw UsageError(fmt::format(
        "{}: key 'network': missing, and {}; allowed: a [network] table with alpha_us and "
        "bandwidth_gbs, or at most {} ranks",
        file, run, devices));
  if (net.present && !(net.bandwidth_Bps > 0))
    throw UsageError(
        fmt::format("{}: key 'network.bandwidth_gbs': {} GB/s; allowed: a bandwidth > 0 in GB/s",
                    file, net.bandwidth_Bps / 1e9));
  if (net.present && net.share < 1)
    throw UsageError(
        fmt::format("{}: key 'network.share': {}; allowed: an integer >= 1", file, net.share));
  const Link& node_link = spec.node.link;
  if (p.ranks_per_node > 1 && !node_link.present)
    throw UsageError(fmt::format(
        "{}: key 'node.link': missing, and {} ranks share a node; allowed: [node.link] with "
        "alpha_us and bandwidth_gbs",
        file, p.ranks_per_node));
  if (node_link.present && !(node_link.bandwidth_Bps > 0))
    throw UsageError(
        fmt::format("{}: key 'node.link.bandwidth_gbs': {} GB/s; allowed: a bandwidth > 0 in GB/s",
                    file, node_link.bandwidth_Bps / 1e9));
}

// The hosts SimGrid builds: the nodes, or all the nodes the topology
// describes (checked to hold the run's).
int count_hosts(const SystemSpec& spec, const SimPlatform& p, const std::string& run) {
  const std::string& file = spec.file;
  if (spec.topology.kind == TopologyKind::Star) return p.nodes;
  long have = 0;
  try {
    have = topology_nodes(spec.topology);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("{}: key 'network.topology_parameters': {}", file, e.what()));
  }
  if (have < p.nodes)
    throw UsageError(fmt::format(
        "{}: key 'network.topology_parameters': '{}' describes {} nodes, and {}; allowed: "
        "parameters describing at least {} nodes",
        file, spec.topology.parameters, have, run, p.nodes));
  return static_cast<int>(have);
}

// The hostfile: each node's name and the ranks it runs.
std::string hostfile_lines(int ranks, const SimPlatform& p) {
  std::string out;
  for (int i = 0; i < p.nodes; ++i)
    out += fmt::format("node-{}:{}\n", i, std::min(p.ranks_per_node, ranks - i * p.ranks_per_node));
  return out;
}

// A node's network link as SimGrid reads it, and a note saying so.
struct NodeNetworkLink {
  std::string bw, lat, note;
};

NodeNetworkLink node_network_link(const SystemSpec& spec) {
  const Link& net = spec.network;
  const Link& node_link = spec.node.link;
  const int devices = spec.node.devices;
  // A node's network link carries its ports: each port's bandwidth shared by
  // `share` devices, so devices / share ports (the model's beta = 8 share / B
  // per device). Two of them lie on the shortest route (up at the sender,
  // down at the receiver), so each carries half the latency: two nodes on a
  // star, or under one switch, see the spec's alpha.
  NodeNetworkLink l;
  if (net.present) {
    l.bw = bandwidth(net.bandwidth_Bps * devices / net.share);
    l.lat = latency(net.alpha_s / 2);
    l.note = fmt::format(
        "each node's network link: {} GB/s x {} devices / share {}, half of alpha = {} us",
        net.bandwidth_Bps / 1e9, devices, net.share, net.alpha_s * 1e6);
  } else {
    // One node and no [network]: the cluster element needs a link per host,
    // which no message crosses.
    l.bw = bandwidth(node_link.present ? node_link.bandwidth_Bps : 1e9);
    l.lat = latency(0);
    l.note = "no [network]: one node, its network link is never crossed";
  }
  return l;
}

// The platform's <cluster> element, and a note on its topology.
struct ClusterElement {
  std::string xml, topo_note;
};

ClusterElement cluster_element(const SystemSpec& spec, const SimPlatform& p,
                               const NodeNetworkLink& net) {
  const Link& node_link = spec.node.link;
  ClusterElement e;
  std::string& cluster = e.xml;
  cluster = fmt::format(
      "  <cluster id=\"hplx\" prefix=\"node-\" suffix=\"\" radical=\"0-{}\" speed=\"1Gf\" "
      "core=\"{}\"\n           bw=\"{}\" lat=\"{}\" sharing_policy=\"SPLITDUPLEX\"",
      p.hosts - 1, spec.node.devices, net.bw, net.lat);
  if (node_link.present)
    cluster += fmt::format("\n           loopback_bw=\"{}\" loopback_lat=\"{}\"",
                           bandwidth(node_link.bandwidth_Bps), latency(node_link.alpha_s));
  switch (spec.topology.kind) {
    case TopologyKind::Star:
      // No backbone: a route is the sender's up link and the receiver's
      // down link, so every message gets what its nodes' links allow,
      // however many cross at once (non-blocking). A FATPIPE backbone
      // would limit nothing more, but it is one constraint every
      // inter-node message shares, so SimGrid's solver would share all of
      // them out again at each one's start and end (28% of a 1024-rank
      // simulation's time, measured).
      e.topo_note = "star: node links joined by a non-blocking switch (no backbone link)";
      break;
    case TopologyKind::FatTree:
    case TopologyKind::Dragonfly: {
      const bool ft = spec.topology.kind == TopologyKind::FatTree;
      cluster += fmt::format("\n           topology=\"{}\" topo_parameters=\"{}\"",
                             ft ? "FAT_TREE" : "DRAGONFLY", spec.topology.parameters);
      e.topo_note = fmt::format(
          "{} {}: every switch link like a node's, so nodes farther apart cross more of them",
          ft ? "fat tree" : "dragonfly", spec.topology.parameters);
      break;
    }
  }
  cluster += "/>\n";
  return e;
}

// The platform file: a comment on what it models, the config and the cluster.
std::string platform_xml(const SystemSpec& spec, int ranks, const SimPlatform& p,
                         const NodeNetworkLink& net, const ClusterElement& cluster) {
  const Link& node_link = spec.node.link;
  std::string intra =
      node_link.present
          ? fmt::format("ranks on one node: node.link {} GB/s, alpha = {} us (the loopback)",
                        node_link.bandwidth_Bps / 1e9, node_link.alpha_s * 1e6)
          : std::string("one rank per node: no node link");
  return fmt::format(
      "<?xml version='1.0'?>\n"
      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<!-- hplx sim of {} ({}): {} ranks on {} node{} of {} devices; hosts node-0 .. node-{},\n"
      "     one core per device.\n"
      "     {}.\n"
      "     {}.\n"
      "     {}. -->\n"
      "<platform version=\"4.1\">\n"
      "  <!-- A message costs alpha + bytes / bandwidth as the spec says: no SMPI correction\n"
      "       factors (smpirun's cfg options still override these). -->\n"
      "  <config>\n"
      "    <prop id=\"smpi/bw-factor\" value=\"0:1\"/>\n"
      "    <prop id=\"smpi/lat-factor\" value=\"0:1\"/>\n"
      "  </config>\n"
      "{}"
      "</platform>\n",
      comment_text(spec.name), comment_text(spec.file), ranks, p.nodes, p.nodes == 1 ? "" : "s",
      spec.node.devices, p.hosts - 1, comment_text(intra), comment_text(net.note),
      comment_text(cluster.topo_note), cluster.xml);
}

}  // namespace

SimPlatform sim_platform(const SystemSpec& spec, int ranks, int nodes) {
  const std::string& file = spec.file;
  const int devices = spec.node.devices;
  check_counts(file, ranks, devices);

  SimPlatform p;
  place_ranks(file, ranks, nodes, devices, p);
  const std::string run = fmt::format("{} ranks need {} node{} of node.devices = {}", ranks,
                                      p.nodes, p.nodes == 1 ? "" : "s", devices);
  check_links(spec, p, run);
  p.hosts = count_hosts(spec, p, run);
  p.hostfile = hostfile_lines(ranks, p);
  const NodeNetworkLink net = node_network_link(spec);
  const ClusterElement cluster = cluster_element(spec, p, net);
  p.xml = platform_xml(spec, ranks, p, net, cluster);
  return p;
}

}  // namespace hplx::model
