// The metrics endpoint and the access log of a running in-process ikd,
// read over real sockets: the counters move with the calls made, by method
// and code; the access log has one JSON line per call.
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ik/client.h"
#include "metrics_scrape.h"
#include "server.h"
#include "test_rigs.h"

namespace ik::server {
namespace {

using ::ik::testing::Sample;
using ::ik::testing::Scrape;
using ::ik::testing::ScrapeWhenAtMost;
using ::testing::HasSubstr;

class MetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log_path_ = ::testing::TempDir() + "/ikd-access-log-" +
                std::to_string(getpid()) + ".jsonl";
    std::remove(log_path_.c_str());
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.rig_dir = IK_EXAMPLES_DIR "/rigs";
    options.metrics_listen = "127.0.0.1:0";
    options.access_log = log_path_;
    auto server = IkServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    ASSERT_GT(server_->metrics_port(), 0);
    ClientOptions client_options;
    client_options.target = absl::StrCat("127.0.0.1:", server_->port());
    client_ = std::make_unique<Client>(client_options);
  }
  void TearDown() override {
    client_.reset();
    server_.reset();
    std::remove(log_path_.c_str());
  }

  static v1::SolveChainRequest ArmGoal(const std::string& chain) {
    v1::SolveChainRequest request;
    request.set_rig("humanoid");
    v1::ChainGoal* goal = request.add_goals();
    goal->set_chain(chain);
    *goal->mutable_target() = ::ik::testing::Vec(0.45, 1.2, 0.15);
    return request;
  }

  std::string log_path_;
  std::unique_ptr<IkServer> server_;
  std::unique_ptr<Client> client_;
};

TEST_F(MetricsTest, CountsCallsByMethodAndCode) {
  const std::string before = Scrape(server_->metrics_port());
  ASSERT_THAT(before, HasSubstr("# TYPE ikd_calls_total counter"));
  // Every method's OK series exists from the start, at zero.
  EXPECT_EQ(Sample(before, R"(ikd_calls_total{code="OK",method="SolveChain"})"),
            0);
  EXPECT_EQ(Sample(before, R"(ikd_calls_total{code="OK",method="Tick"})"), 0);

  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(client_->SolveChain(ArmGoal("left_arm")).ok());
  EXPECT_EQ(client_->SolveChain(ArmGoal("tentacle")).status().code(),
            absl::StatusCode::kNotFound);
  ASSERT_TRUE(client_->ListRigs().ok());

  const std::string after =
      ScrapeWhenAtMost(server_->metrics_port(), "ikd_calls_in_flight", 0);
  EXPECT_EQ(Sample(after, R"(ikd_calls_total{code="OK",method="SolveChain"})"),
            3);
  EXPECT_EQ(
      Sample(after, R"(ikd_calls_total{code="NOT_FOUND",method="SolveChain"})"),
      1);
  EXPECT_EQ(Sample(after, R"(ikd_calls_total{code="OK",method="ListRigs"})"),
            1);
  // Answered calls, even refused ones, are not cancelled ones.
  EXPECT_EQ(Sample(after, R"(ikd_calls_cancelled_total{method="SolveChain"})"),
            0);
  EXPECT_EQ(
      Sample(after, R"(ikd_call_duration_seconds_count{method="SolveChain"})"),
      4);
  EXPECT_GT(Sample(after, R"(ikd_request_bytes_total{method="SolveChain"})"),
            4 * 20);
  // The three reached goals (the left arm's two-bone solver); the unknown
  // chain never reached a solver.
  EXPECT_EQ(Sample(after, R"(ikd_goals_total{solver="two_bone"})"), 3);
  EXPECT_EQ(Sample(after, R"(ikd_goals_reached_total{solver="two_bone"})"), 3);
  EXPECT_EQ(Sample(after, R"(ikd_solver_iterations_total{solver="two_bone"})"),
            3);
  EXPECT_EQ(Sample(after, R"(ikd_registered{kind="rig"})"),
            server_->loaded_rigs());
  EXPECT_GT(Sample(after, "ikd_registry_bytes"), 0);
  EXPECT_EQ(Sample(after, "ikd_calls_in_flight"), 0);
  EXPECT_EQ(Sample(after, "ikd_draining"), 0);
  EXPECT_EQ(Sample(after, "ikd_solver_threads"), server_->solver_threads());
  EXPECT_THAT(after, HasSubstr("ikd_build_info{"));
}

TEST_F(MetricsTest, CountsDynamicsSubstepsAndTicks) {
  v1::StepDynamicsRequest request;
  request.set_rig("humanoid");
  request.set_delta_time(1.0 / 60);
  ASSERT_TRUE(client_->StepDynamics(request).ok());
  const std::string text = Scrape(server_->metrics_port());
  const double chains = Sample(text, "ikd_dynamic_chains_stepped_total");
  EXPECT_GE(chains, 1);
  EXPECT_GE(Sample(text, "ikd_dynamics_substeps_total"), chains);

  v1::TickRequest tick;
  *tick.add_characters()->mutable_goals()->Add() = ArmGoal("left_arm").goals(0);
  tick.mutable_characters(0)->set_rig("humanoid");
  ASSERT_TRUE(client_->Tick(tick).ok());
  ik::TickStream stream(*client_);
  ASSERT_TRUE(stream.Tick(tick).ok());
  ASSERT_TRUE(stream.Tick(tick).ok());
  const std::string after = Scrape(server_->metrics_port());
  EXPECT_EQ(Sample(after, R"(ikd_calls_total{code="OK",method="Tick"})"), 1);
  EXPECT_EQ(Sample(after, R"(ikd_calls_total{code="OK",method="TickStream"})"),
            2);
  EXPECT_EQ(Sample(after, R"(ikd_goals_total{solver="two_bone"})"), 3);
}

TEST_F(MetricsTest, AccessLogHasOneJsonLinePerCall) {
  ASSERT_TRUE(client_->SolveChain(ArmGoal("left_arm")).ok());
  ASSERT_FALSE(client_->SolveChain(ArmGoal("tentacle")).ok());
  ASSERT_TRUE(client_->CheckHealth().ok());  // not IkService's: not logged
  std::ifstream file(log_path_);
  std::vector<google::protobuf::Struct> lines;
  for (std::string line; std::getline(file, line);) {
    google::protobuf::Struct parsed;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(line, &parsed).ok())
        << line;
    lines.push_back(parsed);
  }
  ASSERT_EQ(lines.size(), 2u);
  const auto& fields = lines[1].fields();
  EXPECT_EQ(lines[0].fields().at("code").string_value(), "OK");
  EXPECT_EQ(fields.at("method").string_value(), "SolveChain");
  EXPECT_EQ(fields.at("code").string_value(), "NOT_FOUND");
  EXPECT_THAT(fields.at("peer").string_value(), HasSubstr("127.0.0.1"));
  EXPECT_GT(fields.at("request_bytes").number_value(), 20);
  EXPECT_GE(fields.at("duration_ms").number_value(), 0);
  EXPECT_THAT(fields.at("time").string_value(), ::testing::EndsWith("Z"));
}

TEST(MetricsStartTest, MetricsAddressThatCannotBeBoundStopsTheStart) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.metrics_listen = "256.1.1.1:1";
  auto server = IkServer::Start(options);
  ASSERT_FALSE(server.ok());
  EXPECT_THAT(std::string(server.status().message()),
              ::testing::StartsWith("--metrics_listen 256.1.1.1:1: "));
}

}  // namespace
}  // namespace ik::server
