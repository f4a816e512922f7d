// ik::Client against a real ikd server on loopback.
#include "ik/client.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ik/rig_json.h"
#include "server.h"
#include "test_rigs.h"

namespace ik {
namespace {

using ::ik::testing::ArmRig;
using ::ik::testing::Vec;
using ::testing::HasSubstr;

class ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server::ServerOptions options;
    options.listen = "127.0.0.1:0";
    auto server = server::IkServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    ClientOptions client_options;
    client_options.target = absl::StrCat("127.0.0.1:", server_->port());
    client_ = std::make_unique<Client>(client_options);
  }

  std::unique_ptr<server::IkServer> server_;
  std::unique_ptr<Client> client_;
};

TEST_F(ClientTest, EveryCallRoundTrips) {
  auto registered = client_->RegisterRig(ArmRig());
  ASSERT_TRUE(registered.ok()) << registered.status();
  EXPECT_TRUE(registered->created());

  auto got = client_->GetRig("arm");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->revision(), registered->revision());

  auto listed = client_->ListRigs();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->rigs_size(), 1);

  v1::SolveChainRequest request;
  request.set_rig("arm");
  request.set_revision(registered->revision());
  v1::ChainGoal* goal = request.add_goals();
  goal->set_chain("arm");
  *goal->mutable_target() = Vec(0.2, -0.3, 0.1);
  auto solved = client_->SolveChain(request);
  ASSERT_TRUE(solved.ok()) << solved.status();
  EXPECT_TRUE(solved->results(0).reached());

  auto removed = client_->DeleteRig("arm", registered->revision());
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_EQ(client_->GetRig("arm").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(ClientTest, TerrainCallsAndGroundFeetRoundTrip) {
  absl::StatusOr<v1::Rig> humanoid =
      ReadRigFile(IK_EXAMPLES_DIR "/rigs/humanoid.json");
  ASSERT_TRUE(humanoid.ok()) << humanoid.status();
  ASSERT_TRUE(client_->RegisterRig(*humanoid).ok());
  // A floor 0.2 m up, 4 x 4 m around the origin.
  v1::Terrain floor;
  floor.set_name("floor");
  *floor.mutable_mesh() = testing::GridMesh(4, 4, 1.0, -2.0, -2.0, 0.2, 0.0);
  auto registered = client_->RegisterTerrain(floor);
  ASSERT_TRUE(registered.ok()) << registered.status();
  EXPECT_TRUE(registered->created());
  EXPECT_FALSE(client_->RegisterTerrain(floor)->created());

  auto listed = client_->ListTerrains();
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->terrains_size(), 1);
  EXPECT_EQ(listed->terrains(0).revision(), registered->revision());
  EXPECT_EQ(listed->terrains(0).triangle_count(), 32);

  v1::GroundFeetRequest request;
  request.set_rig("humanoid");
  request.mutable_ground()->add_terrains("floor");
  auto grounded = client_->GroundFeet(request);
  ASSERT_TRUE(grounded.ok()) << grounded.status();
  ASSERT_EQ(grounded->feet_size(), 2);
  for (const v1::FootResult& foot : grounded->feet()) {
    EXPECT_TRUE(foot.grounded()) << foot.leg();
    EXPECT_TRUE(foot.reached()) << foot.leg();
    EXPECT_NEAR(foot.contact_point().y(), 0.2, 1e-9) << foot.leg();
  }
  EXPECT_THAT(grounded->terrain_revisions(),
              ::testing::ElementsAre(registered->revision()));

  auto removed = client_->DeleteTerrain("floor", registered->revision());
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_EQ(client_->GroundFeet(request).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(client_->DeleteTerrain("floor").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(ClientTest, ServerErrorsKeepCodeAndMessage) {
  auto replaced = client_->RegisterRig(ArmRig());
  ASSERT_TRUE(replaced.ok());
  v1::Rig changed = ArmRig();
  changed.mutable_joints(2)->mutable_rest()->mutable_translation()->set_y(-1);
  auto refused = client_->RegisterRig(changed, /*replace=*/false);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("replace"));
  auto accepted = client_->RegisterRig(changed, /*replace=*/true);
  ASSERT_TRUE(accepted.ok());
  EXPECT_TRUE(accepted->replaced());
}

TEST_F(ClientTest, ErrorsExposeTheirFieldViolations) {
  ASSERT_TRUE(client_->RegisterRig(ArmRig()).ok());
  v1::SolveChainRequest request;
  request.set_rig("arm");
  request.add_goals()->set_chain("arm");
  v1::ChainGoal* bad = request.add_goals();
  bad->set_chain("arm");
  *bad->mutable_target() = Vec(0, std::nan(""), 0);
  *request.mutable_goals(0)->mutable_target() = Vec(0.2, -0.3, 0.1);
  auto refused = client_->SolveChain(request);
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  const std::vector<FieldViolation> violations =
      FieldViolations(refused.status());
  ASSERT_EQ(violations.size(), 1u) << refused.status();
  EXPECT_EQ(violations[0].field, "goals[1].target");
  EXPECT_EQ(absl::StrCat(violations[0].field, ": ", violations[0].description),
            refused.status().message());

  // NOT_FOUND names its field too; an OK status has no violations.
  auto missing = client_->GetRig("nobody");
  ASSERT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  ASSERT_EQ(FieldViolations(missing.status()).size(), 1u);
  EXPECT_EQ(FieldViolations(missing.status())[0].field, "name");
  EXPECT_TRUE(FieldViolations(absl::OkStatus()).empty());
}

TEST_F(ClientTest, HealthIsServingUntilShutdown) {
  auto serving = client_->CheckHealth();
  ASSERT_TRUE(serving.ok()) << serving.status();
  EXPECT_TRUE(*serving);
  auto service = client_->CheckHealth("ik.v1.IkService");
  ASSERT_TRUE(service.ok()) << service.status();
  EXPECT_TRUE(*service);
  EXPECT_EQ(client_->CheckHealth("no.such.Service").status().code(),
            absl::StatusCode::kNotFound);
  server_->Shutdown(absl::Seconds(1));
  EXPECT_FALSE(client_->CheckHealth().ok());
}

TEST(ClientWithoutServerTest, UnreachableServerFailsWithinTheDeadline) {
  ClientOptions options;
  // A port nothing listens on: the call fails fast or at the deadline.
  options.target = "127.0.0.1:1";
  options.deadline = absl::Milliseconds(300);
  Client client(options);
  absl::StatusOr<v1::ListRigsResponse> listed = client.ListRigs();
  ASSERT_FALSE(listed.ok());
  EXPECT_THAT(listed.status().code(),
              ::testing::AnyOf(absl::StatusCode::kUnavailable,
                               absl::StatusCode::kDeadlineExceeded));
}

// A tick's answer may be larger than gRPC's default 4 MiB receive limit: the
// client accepts up to ClientOptions::max_receive_message_bytes.
TEST(ClientOptionsTest, AnAnswerOverFourMebibytesIsReceived) {
  server::ServerOptions server_options;
  server_options.listen = "127.0.0.1:0";
  server_options.rig_dir = IK_EXAMPLES_DIR "/rigs";
  server_options.limits.max_characters_per_tick = 10000;
  auto server = server::IkServer::Start(server_options);
  ASSERT_TRUE(server.ok()) << server.status();
  v1::TickRequest request;
  request.set_job_rotations(true);
  for (int k = 0; k < 10000; ++k) {
    v1::TickCharacter* character = request.add_characters();
    // Long ids, echoed in the answer: about 470 bytes of answer each.
    character->set_id(absl::StrCat(std::string(200, 'c'), k));
    character->set_rig("humanoid");
    v1::ChainGoal* goal = character->add_goals();
    goal->set_chain("left_arm");
    *goal->mutable_target() = Vec(0.3 + 1e-5 * k, 1.2, 0.2);
  }
  ClientOptions options;
  options.target = absl::StrCat("127.0.0.1:", (*server)->port());
  options.deadline = absl::Seconds(30);
  Client client(options);
  auto ticked = client.Tick(request);
  ASSERT_TRUE(ticked.ok()) << ticked.status();
  EXPECT_GT(ticked->ByteSizeLong(), size_t{4} << 20);
  EXPECT_EQ(ticked->characters_size(), 10000);

  // gRPC's own limit refuses the same answer.
  options.max_receive_message_bytes = 4 << 20;
  Client limited(options);
  EXPECT_EQ(limited.Tick(request).status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(ClientOptionsTest, RoundRobinPolicyStillReachesTheServer) {
  server::ServerOptions server_options;
  server_options.listen = "127.0.0.1:0";
  auto server = server::IkServer::Start(server_options);
  ASSERT_TRUE(server.ok());
  ClientOptions options;
  options.target = absl::StrCat("ipv4:127.0.0.1:", (*server)->port());
  options.load_balancing_policy = "round_robin";
  options.channel_arguments.SetMaxReceiveMessageSize(1 << 20);
  Client client(options);
  EXPECT_TRUE(client.ListRigs().ok());
}

// A tick of `count` humanoids reaching with the left arm; character
// `bad` (if any) names a chain the rig does not have.
v1::TickRequest ReachingCrowd(int count, int bad) {
  v1::TickRequest request;
  for (int k = 0; k < count; ++k) {
    v1::TickCharacter* character = request.add_characters();
    character->set_id(absl::StrCat("c", k));
    character->set_rig("humanoid");
    v1::ChainGoal* goal = character->add_goals();
    goal->set_chain(k == bad ? "wing" : "left_arm");
    *goal->mutable_target() = Vec(0.3 + 0.01 * k, 1.2, 0.2);
  }
  return request;
}

TEST_F(ClientTest, TickAndTickStreamAnswerAsTheSingleCalls) {
  absl::StatusOr<v1::Rig> humanoid =
      ReadRigFile(IK_EXAMPLES_DIR "/rigs/humanoid.json");
  ASSERT_TRUE(humanoid.ok()) << humanoid.status();
  ASSERT_TRUE(client_->RegisterRig(*humanoid).ok());
  v1::TickRequest request = ReachingCrowd(5, 3);
  auto ticked = client_->Tick(request);
  ASSERT_TRUE(ticked.ok()) << ticked.status();
  ASSERT_EQ(ticked->characters_size(), 5);
  EXPECT_EQ(ticked->characters(3).goals_status().code(),
            static_cast<int>(absl::StatusCode::kNotFound));
  EXPECT_EQ(ticked->characters(3).goals_status().field(),
            "characters[3].goals[0].chain");

  TickStream stream(*client_);
  for (int tick = 1; tick <= 3; ++tick) {
    request.set_sequence(tick);
    auto answer = stream.Tick(request);
    ASSERT_TRUE(answer.ok()) << answer.status();
    EXPECT_EQ(answer->sequence(), static_cast<std::uint64_t>(tick));
    // The same answers as the unary call, tick after tick.
    answer->set_sequence(ticked->sequence());
    EXPECT_EQ(answer->SerializeAsString(), ticked->SerializeAsString());
  }
  // A tick that fails as a whole leaves the stream usable.
  auto empty = stream.Tick(v1::TickRequest());
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.status().message(), HasSubstr("characters"));
  request.set_sequence(5);
  auto again = stream.Tick(request);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->sequence(), 5u);

  for (int k = 0; k < 5; ++k) {
    if (k == 3) continue;
    v1::SolveChainRequest single;
    single.set_rig("humanoid");
    *single.mutable_goals() = request.characters(k).goals();
    auto solved = client_->SolveChain(single);
    ASSERT_TRUE(solved.ok()) << solved.status();
    // A tick leaves the jobs' rotations out unless asked for them (the
    // final pose has them, packed).
    const v1::TickCharacterResult& character = ticked->characters(k);
    ASSERT_EQ(character.rotations_size(), 4 * character.joints_size());
    for (const v1::JointRotation& joint : solved->results(0).rotations()) {
      const auto at = std::find(character.joints().begin(),
                                character.joints().end(), joint.index());
      ASSERT_NE(at, character.joints().end()) << joint.index();
      const int i = static_cast<int>(at - character.joints().begin());
      // The tick hands a job's rotations on as the next single call would
      // read them back from this answer: as they are when their norm is 1
      // to rounding (8 ulps), else divided by it.
      const v1::Quat& q = joint.rotation();
      const double norm = std::sqrt(q.x() * q.x() + q.y() * q.y() +
                                    q.z() * q.z() + q.w() * q.w());
      const double by =
          std::abs(norm - 1.0) <= 8 * std::numeric_limits<double>::epsilon()
              ? 1.0
              : norm;
      EXPECT_EQ(character.rotations(4 * i), q.x() / by);
      EXPECT_EQ(character.rotations(4 * i + 1), q.y() / by);
      EXPECT_EQ(character.rotations(4 * i + 2), q.z() / by);
      EXPECT_EQ(character.rotations(4 * i + 3), q.w() / by);
    }
    solved->mutable_results(0)->clear_rotations();
    EXPECT_EQ(solved->results(0).SerializeAsString(),
              character.goals(0).SerializeAsString());
  }
  EXPECT_TRUE(stream.Close().ok());
  EXPECT_EQ(stream.Tick(request).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// A replica that does not have the rigs and terrains a client uses (it
// restarted without a state directory, or never saw them): the client
// registers what it was asked to keep registered and retries (once per
// missing name: here the rig, then the terrain).
TEST_F(ClientTest, KeptRigsAndTerrainsAreRegisteredOnNotFound) {
  absl::StatusOr<v1::Rig> humanoid =
      ReadRigFile(IK_EXAMPLES_DIR "/rigs/humanoid.json");
  ASSERT_TRUE(humanoid.ok()) << humanoid.status();
  humanoid->set_name("kept_humanoid");
  v1::Terrain floor;
  floor.set_name("kept_floor");
  *floor.mutable_mesh() = testing::GridMesh(4, 4, 1.0, -2.0, -2.0, 0.2, 0.0);

  v1::SolveChainRequest solve;
  solve.set_rig("kept_humanoid");
  v1::ChainGoal* goal = solve.add_goals();
  goal->set_chain("left_arm");
  *goal->mutable_target() = Vec(0.45, 1.2, 0.15);
  v1::GroundFeetRequest ground;
  ground.set_rig("kept_humanoid");
  ground.mutable_ground()->add_terrains("kept_floor");
  v1::TickRequest tick;
  for (int k = 0; k < 3; ++k) {
    v1::TickCharacter* character = tick.add_characters();
    character->set_rig("kept_humanoid");
    *character->add_goals() = *goal;
  }

  // Not kept: NOT_FOUND as ever.
  EXPECT_EQ(client_->SolveChain(solve).status().code(),
            absl::StatusCode::kNotFound);
  client_->KeepRegistered(*humanoid);
  client_->KeepRegistered(floor);
  absl::StatusOr<v1::SolveChainResponse> solved = client_->SolveChain(solve);
  ASSERT_TRUE(solved.ok()) << solved.status();
  EXPECT_TRUE(solved->results(0).reached());

  // The terrain (and, after a delete, the rig again) on GroundFeet.
  ASSERT_TRUE(client_->DeleteRig("kept_humanoid").ok());
  absl::StatusOr<v1::GroundFeetResponse> grounded = client_->GroundFeet(ground);
  ASSERT_TRUE(grounded.ok()) << grounded.status();
  EXPECT_EQ(grounded->feet_size(), 2);

  // A tick whose characters' rig is gone: registered once, tick sent again.
  ASSERT_TRUE(client_->DeleteRig("kept_humanoid").ok());
  absl::StatusOr<v1::TickResponse> ticked = client_->Tick(tick);
  ASSERT_TRUE(ticked.ok()) << ticked.status();
  for (const v1::TickCharacterResult& character : ticked->characters()) {
    EXPECT_EQ(character.status().code(), 0) << character.status().message();
    EXPECT_EQ(character.goals_size(), 1);
  }
}

}  // namespace
}  // namespace ik
