// Tick over a real channel: a seeded crowd of the example humanoid on the
// bundled stairs, each character grounded, reaching with both arms and
// stepping its ponytail. Every job's answer must be the single RPC's answer
// bit for bit (joints by index only, as a tick answers), given the pose the
// jobs before it left (sent back as a caller chaining the single RPCs would
// send it), whatever the solver pool's size;
// a bad job or character fails alone, with its field path from the tick.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crowd.h"
#include "gtest/gtest.h"
#include "tick_fixture.h"

namespace ik::server {
namespace {

TEST_P(TickTest, EveryJobAnswersAsTheSingleRpcOnThePoseTheJobsBeforeLeft) {
  v1::TickRequest request = Crowd(2026, kCharacters);
  request.set_job_rotations(true);
  v1::TickResponse response;
  grpc::Status status = Tick(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.characters_size(), kCharacters);
  int grounded = 0;
  int moved_rotations = 0;
  for (int k = 0; k < kCharacters; ++k) {
    ExpectSameAsSingleRpcs(request, k, response.characters(k));
    for (const v1::FootResult& foot : response.characters(k).ground().feet()) {
      grounded += foot.ground_found();
    }
    moved_rotations += response.characters(k).joints_size();
  }
  // The crowd really stands on ground and really moves.
  EXPECT_GT(grounded, kCharacters);
  EXPECT_GT(moved_rotations, 10 * kCharacters);

  // Without job_rotations: the same answers, less the jobs' rotations.
  request.set_job_rotations(false);
  v1::TickResponse lean;
  status = Tick(request, &lean);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(lean.characters_size(), kCharacters);
  for (int k = 0; k < kCharacters; ++k) {
    EXPECT_EQ(DeterministicBytes(lean.characters(k)),
              DeterministicBytes(WithoutJobRotations(response.characters(k))))
        << "character " << k;
    EXPECT_EQ(lean.characters(k).ground().rotations_size(), 0);
    EXPECT_LT(lean.characters(k).ByteSizeLong(),
              response.characters(k).ByteSizeLong());
  }

  // TICK_DETAIL_POSE: the same final poses, statuses and dynamics, without
  // grounding's and the goals' answers.
  request.set_detail(v1::TICK_DETAIL_POSE);
  v1::TickResponse posed;
  status = Tick(request, &posed);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(posed.characters_size(), kCharacters);
  for (int k = 0; k < kCharacters; ++k) {
    v1::TickCharacterResult expected = lean.characters(k);
    EXPECT_TRUE(expected.has_ground());
    EXPECT_EQ(expected.goals_size(), 2);
    expected.clear_ground();
    expected.clear_goals();
    EXPECT_EQ(DeterministicBytes(posed.characters(k)),
              DeterministicBytes(expected))
        << "character " << k;
  }
}

TEST_P(TickTest, APackedPoseAndJointPosesGiveTheSameBits) {
  // The same poses, one character packed, its twin as JointPoses (every
  // joint set, in a shuffled order): the same answers, bit for bit.
  v1::TickRequest request = Crowd(31, 8);
  std::mt19937_64 engine(31);
  for (int k = 0; k < 8; k += 2) {
    v1::TickCharacter twin = request.characters(k);
    v1::Pose& pose = *twin.mutable_pose();
    std::vector<int> order(28);
    for (int j = 0; j < 28; ++j) order[j] = j;
    std::shuffle(order.begin(), order.end(), engine);
    for (int j : order) {
      v1::JointPose& joint = *pose.add_joints();
      joint.set_index(j);
      *joint.mutable_local()->mutable_rotation() = *RotationIn(pose, j);
    }
    pose.clear_rotations();
    twin.set_id(twin.id() + "-twin");
    *request.add_characters() = std::move(twin);
  }
  v1::TickResponse response;
  grpc::Status status = Tick(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  for (int t = 0; t < 4; ++t) {
    v1::TickCharacterResult packed = response.characters(2 * t);
    v1::TickCharacterResult twin = response.characters(8 + t);
    EXPECT_EQ(twin.id(), packed.id() + "-twin");
    twin.clear_id();
    packed.clear_id();
    EXPECT_EQ(packed.status().code(), 0) << packed.status().message();
    EXPECT_EQ(DeterministicBytes(packed), DeterministicBytes(twin));
  }
}

TEST_P(TickTest, TheSameTickGivesTheSameBytesWhateverThePoolSize) {
  const v1::TickRequest request = Crowd(7, kCharacters);
  v1::TickResponse here;
  ASSERT_TRUE(Tick(request, &here).ok());
  for (int threads : {1, 4}) {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.terrain_dir = std::string(IK_EXAMPLES_DIR) + "/terrains";
    options.rig_dir = std::string(IK_EXAMPLES_DIR) + "/rigs";
    options.solver_threads = threads;
    auto other = IkServer::Start(options);
    ASSERT_TRUE(other.ok()) << other.status();
    auto stub = v1::IkService::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", (*other)->port()),
                            grpc::InsecureChannelCredentials()));
    v1::TickResponse there;
    grpc::Status status = stub->Tick(Context().get(), request, &there);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(DeterministicBytes(here), DeterministicBytes(there))
        << GetParam() << " vs " << threads << " threads";
  }
}

TEST_P(TickTest, CharactersSideBySideGiveWhatEachGetsOneAtATime) {
  // 40 characters run four side by side on this server's pool (a tick of
  // at least 8 characters per solver thread), one at a time on a 16-thread
  // server: humanoids, tail rigs among them (groups of several rigs), and
  // a bad job or character here and there (characters that never run).
  v1::TickRequest request = Crowd(31, 40);
  std::mt19937_64 engine(31);
  for (const int k : {2, 6, 7, 13, 26, 33, 34}) {
    v1::TickCharacter& tail = *request.mutable_characters(k);
    tail.Clear();
    tail.set_id(absl::StrCat("tail-", k));
    tail.set_rig("tail");
    *tail.mutable_pose()->mutable_root()->mutable_translation() =
        Vec(0.1 * k, 0.5, 0.0);
    v1::ChainGoal& goal = *tail.add_goals();
    goal.set_chain("tail");
    *goal.mutable_target() = Vec(0.1 * k + 0.3, 0.2, -0.4);
    tail.mutable_dynamics()->set_delta_time(1.0 / 30.0);
  }
  request.mutable_characters(5)->set_rig("nobody");
  request.mutable_characters(9)->mutable_goals(1)->set_chain("tentacle");
  request.mutable_characters(14)->mutable_ground()->set_weights(1, 1.5);
  SetJointRotation(*request.mutable_characters(21)->mutable_pose(), 5,
                   Rotation(0, 0, 0, 0));
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.terrain_dir = std::string(IK_EXAMPLES_DIR) + "/terrains";
  options.rig_dir = std::string(IK_EXAMPLES_DIR) + "/rigs";
  options.solver_threads = 16;
  auto one_at_a_time = IkServer::Start(options);
  ASSERT_TRUE(one_at_a_time.ok()) << one_at_a_time.status();
  auto stub = v1::IkService::NewStub(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", (*one_at_a_time)->port()),
                          grpc::InsecureChannelCredentials()));
  for (int t = 0; t < 2; ++t) {
    v1::TickResponse together, alone;
    ASSERT_TRUE(Tick(request, &together).ok());
    grpc::Status status = stub->Tick(Context().get(), request, &alone);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(together.characters_size(), 40);
    int ran = 0, tails = 0;
    for (int k = 0; k < 40; ++k) {
      SCOPED_TRACE(::testing::Message() << "tick " << t << " character " << k);
      const v1::TickCharacterResult& answer = together.characters(k);
      EXPECT_EQ(DeterministicBytes(answer),
                DeterministicBytes(alone.characters(k)));
      ran += answer.status().code() == 0;
      tails += answer.status().code() == 0 && answer.id().rfind("tail", 0) == 0;
    }
    EXPECT_EQ(ran, 38);
    EXPECT_EQ(tails, 7);
    // The next tick steps dynamics on from the states this one answered.
    for (int k = 0; k < 40; ++k) {
      v1::TickCharacter& character = *request.mutable_characters(k);
      if (!character.has_dynamics() || !together.characters(k).has_dynamics()) {
        continue;
      }
      v1::StepDynamicsRequest& dynamics = *character.mutable_dynamics();
      dynamics.clear_states();
      for (const auto& result : together.characters(k).dynamics().results()) {
        *dynamics.add_states() = result.state();
      }
    }
  }
}

TEST_P(TickTest, ABadJobOrCharacterFailsAloneWithItsPathFromTheTick) {
  v1::TickRequest request = Crowd(99, kCharacters);
  const v1::TickRequest good = request;
  request.mutable_characters(3)->mutable_ground()->set_weights(1, 1.5);
  request.mutable_characters(5)->set_rig("nobody");
  request.mutable_characters(8)->mutable_goals(1)->set_chain("tentacle");
  request.mutable_characters(11)->mutable_dynamics()->set_delta_time(-1.0);
  request.mutable_characters(13)->mutable_ground()->set_rig("humanoid");
  request.mutable_characters(19)->mutable_goals(0)->set_solver(
      v1::SOLVER_FABRIK);
  request.mutable_characters(19)->mutable_goals(0)->set_max_iterations(
      2000000000);
  SetJointRotation(*request.mutable_characters(17)->mutable_pose(), 5,
                   Rotation(0, 0, 0, 0));
  SetJointRotation(*request.mutable_characters(22)->mutable_pose(), 2,
                   Rotation(0, 0, 0, 2));
  v1::TickResponse response;
  grpc::Status status = Tick(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.characters_size(), kCharacters);
  const auto& at = [&](int k) -> const v1::TickCharacterResult& {
    return response.characters(k);
  };
  const auto expect = [](const v1::JobStatus& job, grpc::StatusCode code,
                         const std::string& field) {
    EXPECT_EQ(job.code(), code) << job.message();
    EXPECT_EQ(job.field(), field) << job.message();
    EXPECT_EQ(job.message().rfind(field + ": ", 0), 0u) << job.message();
  };
  expect(at(3).ground_status(), grpc::INVALID_ARGUMENT,
         "characters[3].ground.weights[1]");
  expect(at(5).status(), grpc::NOT_FOUND, "characters[5].rig");
  expect(at(8).goals_status(), grpc::NOT_FOUND, "characters[8].goals[1].chain");
  expect(at(11).dynamics_status(), grpc::INVALID_ARGUMENT,
         "characters[11].dynamics.delta_time");
  expect(at(13).ground_status(), grpc::INVALID_ARGUMENT,
         "characters[13].ground.rig");
  expect(at(17).status(), grpc::INVALID_ARGUMENT,
         "characters[17].pose.joints[2].local.rotation");
  expect(at(22).status(), grpc::INVALID_ARGUMENT,
         "characters[22].pose.rotations[8]");
  expect(at(19).goals_status(), grpc::RESOURCE_EXHAUSTED,
         "characters[19].goals[0].max_iterations");
  // A failed character runs no job; a failed job leaves no answer, and the
  // jobs after it still run.
  EXPECT_FALSE(at(5).has_ground());
  EXPECT_EQ(at(5).goals_size(), 0);
  EXPECT_EQ(at(5).joints_size(), 0);
  EXPECT_FALSE(at(3).has_ground());
  EXPECT_EQ(at(3).goals_size(), 2);
  EXPECT_EQ(at(3).dynamics_status().code(), 0);
  EXPECT_EQ(at(8).goals_size(), 0);
  EXPECT_EQ(at(8).dynamics().results_size(), 1);
  EXPECT_EQ(at(11).goals_size(), 2);
  EXPECT_FALSE(at(11).has_dynamics());

  // With TICK_DETAIL_POSE, the same statuses (and no job answers but
  // dynamics').
  v1::TickRequest pose_only = request;
  pose_only.set_detail(v1::TICK_DETAIL_POSE);
  v1::TickResponse posed;
  ASSERT_TRUE(Tick(pose_only, &posed).ok());
  for (int k = 0; k < kCharacters; ++k) {
    const v1::TickCharacterResult& full = at(k);
    const v1::TickCharacterResult& lean = posed.characters(k);
    for (const auto& [a, b] :
         {std::pair(&full.status(), &lean.status()),
          std::pair(&full.ground_status(), &lean.ground_status()),
          std::pair(&full.goals_status(), &lean.goals_status()),
          std::pair(&full.dynamics_status(), &lean.dynamics_status())}) {
      EXPECT_EQ(DeterministicBytes(*a), DeterministicBytes(*b))
          << "character " << k;
    }
    EXPECT_FALSE(lean.has_ground());
    EXPECT_EQ(lean.goals_size(), 0);
    EXPECT_EQ(DeterministicBytes(full.dynamics()),
              DeterministicBytes(lean.dynamics()));
  }

  // Every other character is answered as in the tick without the bad ones.
  v1::TickResponse clean;
  ASSERT_TRUE(Tick(good, &clean).ok());
  for (int k : {0, 1, 2, 4, 6, 7, 9, 10, 12, 14, 15, 16, 18, 20}) {
    EXPECT_EQ(DeterministicBytes(response.characters(k)),
              DeterministicBytes(clean.characters(k)))
        << "character " << k;
  }
  // Character 3 without grounding: its goals solved on the animated pose.
  v1::TickRequest ungrounded;
  *ungrounded.add_characters() = good.characters(3);
  ungrounded.mutable_characters(0)->clear_ground();
  v1::TickResponse alone;
  ASSERT_TRUE(Tick(ungrounded, &alone).ok());
  ASSERT_EQ(alone.characters(0).goals_size(), 2);
  for (int g = 0; g < 2; ++g) {
    EXPECT_EQ(DeterministicBytes(at(3).goals(g)),
              DeterministicBytes(alone.characters(0).goals(g)));
  }
}

TEST_P(TickTest, WholeTickErrors) {
  v1::TickResponse response;
  grpc::Status status = Tick(v1::TickRequest(), &response);
  EXPECT_EQ(status.error_code(), grpc::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message().rfind("characters: ", 0), 0u)
      << status.error_message();

  v1::TickRequest request = Crowd(5, 2);
  request.mutable_shared_ground()->set_terrains(0, "atlantis");
  status = Tick(request, &response);
  EXPECT_EQ(status.error_code(), grpc::NOT_FOUND);
  EXPECT_EQ(status.error_message().rfind("shared_ground.terrains[0]: ", 0), 0u)
      << status.error_message();

  request = Crowd(5, 2);
  request.set_detail(static_cast<v1::TickDetail>(7));
  status = Tick(request, &response);
  EXPECT_EQ(status.error_code(), grpc::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "detail: unknown TickDetail 7");

  // Without a shared ground, a ground job needs its own.
  request = Crowd(5, 3);
  request.clear_shared_ground();
  ASSERT_TRUE(Tick(request, &response).ok());
  EXPECT_EQ(response.characters(0).ground_status().field(),
            "characters[0].ground.ground");
  EXPECT_EQ(response.characters(2).ground_status().code(), 0);
}

INSTANTIATE_TEST_SUITE_P(PoolSizes, TickTest, ::testing::Values(1, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return absl::StrCat(info.param, "threads");
                         });

}  // namespace
}  // namespace ik::server
