// hplx sim's SimGrid platform: where the ranks go (the hostfile), which link
// values and topology the platform file gives SimGrid, and the one-line
// errors for specs that cannot describe the run. The files themselves were
// run under smpirun by hand (docs/MODEL.md, "The simulated platform").
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "model/sim_platform.hpp"

using namespace hplx::model;

namespace {

const std::string kSrc = HPLX_SOURCE_DIR;

// 4 devices per node on a 50 GB/s, 1 us node link; `network` is appended.
std::string spec_text(const std::string& network) {
  return R"([system]
name = "four per node"
[device]
rpeak_gflops = 1000
[node]
devices = 4
[node.link]
alpha_us = 1.0
bandwidth_gbs = 50
)" + network;
}

const char* kNetwork = "[network]\nalpha_us = 2.0\nbandwidth_gbs = 25\nshare = 4\n";

SystemSpec spec_of(const std::string& network) {
  return parse_system_spec(spec_text(network), "sim.toml");
}

std::string platform_error(const SystemSpec& spec, int ranks) {
  try {
    sim_platform(spec, ranks);
  } catch (const hplx::UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string parse_error(const std::string& network) {
  try {
    parse_system_spec(spec_text(network), "bad.toml");
  } catch (const hplx::UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string topology(const std::string& kind, const std::string& parameters) {
  return std::string(kNetwork) + "topology = \"" + kind + "\"\ntopology_parameters = \"" +
         parameters + "\"\n";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(SimPlatform, PutsDevicesPerNodeRanksOnEachNode) {
  SimPlatform p = sim_platform(spec_of(kNetwork), 16);
  EXPECT_EQ(p.nodes, 4);
  EXPECT_EQ(p.ranks_per_node, 4);
  EXPECT_EQ(p.hosts, 4);
  EXPECT_EQ(p.hostfile, "node-0:4\nnode-1:4\nnode-2:4\nnode-3:4\n");
  EXPECT_TRUE(has(p.xml, R"(prefix="node-" suffix="" radical="0-3" speed="1Gf" core="4")"))
      << p.xml;
}

TEST(SimPlatform, FillsNodesInRankOrderAndLeavesTheRestOnTheLastNode) {
  SimPlatform p = sim_platform(spec_of(kNetwork), 6);
  EXPECT_EQ(p.nodes, 2);
  EXPECT_EQ(p.ranks_per_node, 4);
  EXPECT_EQ(p.hostfile, "node-0:4\nnode-1:2\n");
  EXPECT_TRUE(has(p.xml, R"(radical="0-1")")) << p.xml;
}

TEST(SimPlatform, FewerRanksThanDevicesNeedOneNodeAndNoNetwork) {
  SimPlatform p = sim_platform(spec_of(""), 3);
  EXPECT_EQ(p.nodes, 1);
  EXPECT_EQ(p.ranks_per_node, 3);
  EXPECT_EQ(p.hostfile, "node-0:3\n");
  EXPECT_TRUE(has(p.xml, R"(radical="0-0")")) << p.xml;
}

TEST(SimPlatform, GivesLinksInBytesPerSecondAndSeconds) {
  // 25 GB/s per port shared by 4 devices: one port per 4-device node. Two
  // node links lie between two nodes, each with half the 2 us.
  const std::string xml = sim_platform(spec_of(kNetwork), 8).xml;
  EXPECT_TRUE(has(xml, R"(bw="25000000000Bps" lat="1e-06s" sharing_policy="SPLITDUPLEX")")) << xml;
  EXPECT_TRUE(has(xml, R"(loopback_bw="50000000000Bps" loopback_lat="1e-06s")")) << xml;
}

TEST(SimPlatform, GivesEachNodeOnePortPerShareDevices) {
  // share = 2 on 4 devices: two 25 GB/s ports per node.
  const std::string xml =
      sim_platform(spec_of("[network]\nalpha_us = 1.5\nbandwidth_gbs = 25\nshare = 2\n"), 8).xml;
  EXPECT_TRUE(has(xml, R"(bw="50000000000Bps" lat="7.5e-07s")")) << xml;
  // Summit: a dual-rail 25 GB/s shared by the node's 6 GPUs.
  const std::string summit =
      sim_platform(load_system_spec(kSrc + "/examples/systems/summit.toml"), 12).xml;
  EXPECT_TRUE(has(summit, R"(core="6")")) << summit;
  EXPECT_TRUE(has(summit, R"(bw="25000000000Bps" lat="5e-07s")")) << summit;
  EXPECT_TRUE(has(summit, R"(loopback_bw="50000000000Bps" loopback_lat="1e-06s")")) << summit;
}

TEST(SimPlatform, StarJoinsNodeLinksWithoutABackbone) {
  // Non-blocking: a route is the two nodes' links, nothing shared between
  // pairs of nodes (a backbone link would couple every message in
  // SimGrid's solver).
  const std::string xml = sim_platform(spec_of(kNetwork), 8).xml;
  EXPECT_FALSE(has(xml, "bb_")) << xml;
  EXPECT_FALSE(has(xml, "topology=")) << xml;
  EXPECT_TRUE(has(xml, R"(sharing_policy="SPLITDUPLEX")")) << xml;
}

TEST(SimPlatform, ChargesLinksWithoutSmpiCorrectionFactors) {
  const std::string xml = sim_platform(spec_of(kNetwork), 8).xml;
  EXPECT_TRUE(has(xml, R"(<platform version="4.1">)")) << xml;
  EXPECT_TRUE(has(xml, R"(<prop id="smpi/bw-factor" value="0:1"/>)")) << xml;
  EXPECT_TRUE(has(xml, R"(<prop id="smpi/lat-factor" value="0:1"/>)")) << xml;
}

TEST(SimPlatform, FatTreeHasAHostForEveryLeafAndTheRanksOnTheFirst) {
  // SimGrid builds a fat tree's every leaf from the cluster's radicals and
  // aborts when they are fewer: 16 hosts, the run's 6 nodes first.
  SimPlatform p = sim_platform(spec_of(topology("fat-tree", "2; 4,4; 1,2; 1,2")), 22);
  EXPECT_EQ(p.nodes, 6);
  EXPECT_EQ(p.hosts, 16);
  EXPECT_EQ(p.hostfile, "node-0:4\nnode-1:4\nnode-2:4\nnode-3:4\nnode-4:4\nnode-5:2\n");
  EXPECT_TRUE(has(p.xml, R"(radical="0-15")")) << p.xml;
  EXPECT_TRUE(has(p.xml, R"(topology="FAT_TREE" topo_parameters="2;4,4;1,2;1,2")")) << p.xml;
  EXPECT_FALSE(has(p.xml, "bb_bw")) << p.xml;
}

TEST(SimPlatform, DragonflyGetsSimGridsTopologyAttributes) {
  SimPlatform p = sim_platform(spec_of(topology("dragonfly", "2,1;2,1;2,1;2")), 32);
  EXPECT_EQ(p.nodes, 8);
  EXPECT_EQ(p.hosts, 16);
  EXPECT_TRUE(has(p.xml, R"(radical="0-15")")) << p.xml;
  EXPECT_TRUE(has(p.xml, R"(topology="DRAGONFLY" topo_parameters="2,1;2,1;2,1;2")")) << p.xml;
}

TEST(SimPlatform, ExactlyFullTopologyIsEnough) {
  SimPlatform p = sim_platform(spec_of(topology("fat-tree", "1;8;1;1")), 32);
  EXPECT_EQ(p.nodes, 8);
  EXPECT_EQ(p.hosts, 8);
}

TEST(SimPlatform, RejectsATopologyWithFewerNodesThanTheRun) {
  EXPECT_EQ(platform_error(spec_of(topology("fat-tree", "1;8;1;1")), 33),
            "sim.toml: key 'network.topology_parameters': '1;8;1;1' describes 8 nodes, and 33 "
            "ranks need 9 nodes of node.devices = 4; allowed: parameters describing at least 9 "
            "nodes");
  EXPECT_TRUE(has(platform_error(spec_of(topology("dragonfly", "1,1;2,1;2,1;1")), 17),
                  "'1,1;2,1;2,1;1' describes 4 nodes, and 17 ranks need 5 nodes"));
}

TEST(SimPlatform, RejectsARunOnSeveralNodesWithoutANetwork) {
  EXPECT_EQ(platform_error(spec_of(""), 6),
            "sim.toml: key 'network': missing, and 6 ranks need 2 nodes of node.devices = 4; "
            "allowed: a [network] table with alpha_us and bandwidth_gbs, or at most 4 ranks");
}

TEST(SimPlatform, RejectsFewerThanOneRank) {
  EXPECT_EQ(platform_error(spec_of(kNetwork), 0),
            "sim.toml: 0 simulated ranks; allowed: 1 or more");
}

TEST(SimPlatform, RejectsLinksWithoutBandwidth) {
  SystemSpec spec = spec_of(kNetwork);
  spec.network.bandwidth_Bps = 0;
  EXPECT_EQ(platform_error(spec, 8),
            "sim.toml: key 'network.bandwidth_gbs': 0 GB/s; allowed: a bandwidth > 0 in GB/s");
  spec = spec_of(kNetwork);
  spec.node.link.bandwidth_Bps = 0;
  EXPECT_EQ(platform_error(spec, 8),
            "sim.toml: key 'node.link.bandwidth_gbs': 0 GB/s; allowed: a bandwidth > 0 in GB/s");
  spec = spec_of(kNetwork);
  spec.node.link.present = false;
  EXPECT_TRUE(has(platform_error(spec, 2),
                  "sim.toml: key 'node.link': missing, and 2 ranks share "
                  "a node"));
}

TEST(SimPlatformSpec, TopologyDefaultsToAStar) {
  EXPECT_EQ(spec_of(kNetwork).topology.kind, TopologyKind::Star);
  EXPECT_EQ(spec_of(std::string(kNetwork) + "topology = \"star\"\n").topology.kind,
            TopologyKind::Star);
}

TEST(SimPlatformSpec, RejectsAnUnknownTopology) {
  EXPECT_EQ(parse_error(std::string(kNetwork) + "topology = \"torus\"\n"),
            "bad.toml: key 'network.topology': 'torus' is not allowed; allowed: \"star\", "
            "\"fat-tree\", \"dragonfly\"");
}

TEST(SimPlatformSpec, RejectsParametersForAStarAndNoneForAFatTree) {
  EXPECT_TRUE(has(parse_error(std::string(kNetwork) + "topology_parameters = \"1;4;1;1\"\n"),
                  "bad.toml: key 'network.topology_parameters': given with a star topology"));
  EXPECT_TRUE(has(parse_error(std::string(kNetwork) + "topology = \"fat-tree\"\n"),
                  "bad.toml: key 'network.topology_parameters': missing with topology = "
                  "\"fat-tree\"; allowed: \"levels;down;up;parallel\""));
  EXPECT_TRUE(has(parse_error(std::string(kNetwork) + "topology = \"dragonfly\"\n"),
                  "allowed: \"groups,links;chassis,links;routers,links;nodes\""));
}

TEST(SimPlatformSpec, RejectsMisshapenFatTreeParameters) {
  const std::string key = "bad.toml: key 'network.topology_parameters': ";
  EXPECT_TRUE(has(parse_error(topology("fat-tree", "2;4,4;1,2")),
                  key + "'2;4,4;1,2' has 3 ';'-separated parts, not 4 (levels;down;up;parallel)"));
  EXPECT_TRUE(has(parse_error(topology("fat-tree", "2;4,4;1;1,2")),
                  key + "'2;4,4;1;1,2' has 1 up counts for 2 levels"));
  EXPECT_TRUE(has(parse_error(topology("fat-tree", "2;4,0;1,2;1,2")),
                  key + "'2;4,0;1,2;1,2' has a 0; every number must be >= 1"));
  EXPECT_TRUE(has(parse_error(topology("fat-tree", "2;4,x;1,2;1,2")),
                  key + "'2;4,x;1,2;1,2' has 'x'; only digits"));
  EXPECT_TRUE(has(parse_error(topology("fat-tree", "2;4,;1,2;1,2")),
                  key + "'2;4,;1,2;1,2' has an empty number"));
}

TEST(SimPlatformSpec, RejectsMisshapenDragonflyParameters) {
  const std::string key = "bad.toml: key 'network.topology_parameters': ";
  EXPECT_TRUE(has(parse_error(topology("dragonfly", "2,1;2,1;2")),
                  key + "'2,1;2,1;2' has 3 ';'-separated parts, not 4"));
  EXPECT_TRUE(has(parse_error(topology("dragonfly", "2,1;2;2,1;2")),
                  key + "'2,1;2;2,1;2' has 1 numbers for chassis; it needs 2 (chassis,links)"));
  EXPECT_TRUE(has(parse_error(topology("dragonfly", "2,1;2,1;2,1;2,2")),
                  key + "'2,1;2,1;2,1;2,2' ends with a list"));
  // SimGrid 3.32 crashes on these (tried under smpirun: a segfault).
  EXPECT_TRUE(has(parse_error(topology("dragonfly", "3,1;4,1;2,1;2")),
                  key + "'3,1;4,1;2,1;2' has 3 groups and 2 routers per chassis"));
}

// --nodes: a published run that used fewer devices per node than a node
// has (2 nodes, one GPU each) puts its ranks where that run had them.
TEST(SimPlatform, SpreadsRanksOverTheNodesAskedFor) {
  const SimPlatform p = sim_platform(spec_of(kNetwork), 2, 2);
  EXPECT_EQ(p.nodes, 2);
  EXPECT_EQ(p.ranks_per_node, 1);
  EXPECT_EQ(p.hostfile, "node-0:1\nnode-1:1\n");
  const SimPlatform q = sim_platform(spec_of(kNetwork), 6, 3);
  EXPECT_EQ(q.hostfile, "node-0:2\nnode-1:2\nnode-2:2\n");
}

TEST(SimPlatform, RejectsNodesThatCannotHoldOrBeFilledByTheRanks) {
  try {
    sim_platform(spec_of(kNetwork), 12, 2);  // 6 per node, nodes have 4 devices
    FAIL() << "no error";
  } catch (const hplx::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("12 ranks on 2 nodes put 6 on a node of node.devices = 4"),
              std::string::npos)
        << e.what();
  }
  try {
    sim_platform(spec_of(kNetwork), 3, 5);  // more nodes than ranks
    FAIL() << "no error";
  } catch (const hplx::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("3 ranks cannot fill 5 nodes"), std::string::npos)
        << e.what();
  }
}
