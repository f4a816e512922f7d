// The tick's pose check over a real channel: a claimed pose (a cheating or
// buggy game client's) is refused without a check; with one, every fault is
// reported and the jobs run on the repair, as a single RPC would on the
// repaired pose.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "crowd.h"
#include "gtest/gtest.h"
#include "tick_fixture.h"

namespace ik::server {
namespace {

TEST_P(TickTest, APoseCheckReportsAndRepairsAClaimedPoseBeforeTheJobs) {
  // A cheating client's claim: a NaN spine, an elbow bent backwards, a neck
  // 20 cm longer and a shoulder turned with a non-unit quaternion.
  v1::TickRequest request;
  request.set_job_rotations(true);
  v1::TickCharacter& claimed = *request.add_characters();
  claimed.set_id("player-7");
  claimed.set_rig("humanoid");
  const double nan = std::nan("");
  SetJointRotation(*claimed.mutable_pose(), 1, Rotation(nan, 0, 0, 1));
  SetJointRotation(*claimed.mutable_pose(), 7,
                   Rotation(0, std::sin(1.5), 0, std::cos(1.5)));
  v1::JointPose* neck = claimed.mutable_pose()->add_joints();
  neck->set_index(3);
  *neck->mutable_local()->mutable_translation() = Vec(0, 0.3, 0);
  SetJointRotation(*claimed.mutable_pose(), 6, Rotation(0, 0, 0, 1.01));
  v1::ChainGoal* goal = claimed.add_goals();
  goal->set_chain("left_arm");
  *goal->mutable_target() = Vec(0.45, 1.2, 0.15);

  // Without a check the pose is refused, as a single RPC would refuse it.
  v1::TickResponse refused;
  ASSERT_TRUE(Tick(request, &refused).ok());
  EXPECT_EQ(refused.characters(0).status().code(), grpc::INVALID_ARGUMENT);
  EXPECT_EQ(refused.characters(0).status().field(),
            "characters[0].pose.joints[0].local.rotation");

  claimed.mutable_check();
  v1::TickResponse response;
  ASSERT_TRUE(Tick(request, &response).ok());
  const v1::TickCharacterResult& out = response.characters(0);
  ASSERT_EQ(out.status().code(), 0) << out.status().message();
  EXPECT_EQ(out.check_status().code(), 0);
  std::vector<std::pair<int, v1::PoseViolationKind>> found;
  for (const v1::PoseViolation& v : out.check().violations()) {
    found.emplace_back(v.joint(), v.kind());
    EXPECT_GE(v.amount(), 0.0);
  }
  const std::vector<std::pair<int, v1::PoseViolationKind>> expected = {
      {1, v1::POSE_VIOLATION_ROTATION_NOT_FINITE},
      {3, v1::POSE_VIOLATION_TRANSLATION},
      {6, v1::POSE_VIOLATION_ROTATION_NOT_UNIT},
      {7, v1::POSE_VIOLATION_OUTSIDE_LIMIT}};
  for (const auto& violation : expected) {
    EXPECT_NE(std::find(found.begin(), found.end(), violation), found.end())
        << "joint " << violation.first << " kind " << violation.second;
  }
  // The neck's bone moved by the distance from the rig's.
  absl::StatusOr<std::shared_ptr<const RigEntry>> humanoid =
      server_->registry().Get({"humanoid", "name"});
  ASSERT_TRUE(humanoid.ok());
  const Vec3 rest_neck = (*humanoid)->rig().rest_pose()[3].translation;
  for (const v1::PoseViolation& v : out.check().violations()) {
    if (v.joint() != 3) continue;
    EXPECT_NEAR(v.amount(), glm::length(Vec3(0, 0.3, 0) - rest_neck), 1e-12);
  }

  // The goal was solved on the repaired pose: the same answer as a
  // SolveChain given that pose (the repaired rotations, rest bones).
  v1::SolveChainRequest solve;
  solve.set_rig("humanoid");
  SetJointRotations(*solve.mutable_pose(), out.check().rotations());
  *solve.mutable_goals() = claimed.goals();
  v1::SolveChainResponse solved;
  grpc::Status status = stub_->SolveChain(Context().get(), solve, &solved);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(out.goals_size(), 1);
  EXPECT_EQ(DeterministicBytes(out.goals(0)),
            DeterministicBytes(WithoutNames(solved.results(0))));

  // A malformed check fails the character with its path.
  claimed.mutable_check()->set_tolerance(-1.0);
  ASSERT_TRUE(Tick(request, &response).ok());
  EXPECT_EQ(response.characters(0).check_status().field(),
            "characters[0].check.tolerance");
  EXPECT_EQ(response.characters(0).status().code(), grpc::FAILED_PRECONDITION);
}

// The ways a claimed rotation can be wrong, drawn per joint: turned far
// (often beyond its limit), off unit within the tolerance (only
// normalised, not a repair) or beyond it, not finite.
v1::Quat BrokenRotation(std::mt19937_64& engine, const v1::Quat& claimed) {
  std::uniform_int_distribution<int> fault(0, 3);
  v1::Quat out = claimed;
  const auto scale = [&out](double by) {
    out.set_x(out.x() * by);
    out.set_y(out.y() * by);
    out.set_z(out.z() * by);
    out.set_w(out.w() * by);
  };
  switch (fault(engine)) {
    case 0:
      return RandomSmallRotation(engine, kPi);
    case 1:
      scale(1.0 + 1e-5);
      return out;
    case 2:
      scale(1.01);
      return out;
    default:
      out.set_y(std::nan(""));
      return out;
  }
}

// Seeded crowds claiming poses broken in every way the check repairs, with
// grounding, goals and dynamics: check.rotations lists exactly the joints
// with a rotation violation, and the jobs answer as the chained single
// calls do on the claimed pose with those rotations put in, bit for bit.
TEST_P(TickTest, TheRepairEntersTheJobsAsTheChainedSingleCallsReadIt) {
  int repaired = 0, normalised_only = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 engine(seed * 7919);
    std::bernoulli_distribution broken(0.25);
    v1::TickRequest request = Crowd(seed, 8);
    request.set_job_rotations(true);
    for (v1::TickCharacter& character : *request.mutable_characters()) {
      character.mutable_check();
      for (int joint = 0; joint < 28; ++joint) {
        if (!broken(engine)) continue;
        const std::optional<v1::Quat> claimed =
            RotationIn(character.pose(), joint);
        SetJointRotation(
            *character.mutable_pose(), joint,
            BrokenRotation(engine, claimed.value_or(Rotation(0, 0, 0, 1))));
      }
    }
    v1::TickResponse response;
    ASSERT_TRUE(Tick(request, &response).ok());
    for (int k = 0; k < request.characters_size(); ++k) {
      const v1::TickCharacterResult& out = response.characters(k);
      ASSERT_EQ(out.check_status().code(), 0) << out.check_status().message();
      std::vector<int> violated, listed;
      for (const v1::PoseViolation& v : out.check().violations()) {
        if (v.kind() != v1::POSE_VIOLATION_TRANSLATION &&
            v.kind() != v1::POSE_VIOLATION_SCALE &&
            (violated.empty() || violated.back() != v.joint())) {
          violated.push_back(v.joint());
        }
      }
      for (const v1::JointRotation& rotation : out.check().rotations()) {
        listed.push_back(rotation.index());
      }
      EXPECT_EQ(listed, violated) << "seed " << seed << " character " << k;
      repaired += static_cast<int>(listed.size());
      // The chained single calls: the claimed pose, the repairs put in.
      v1::TickRequest chained = request;
      SetJointRotations(*chained.mutable_characters(k)->mutable_pose(),
                        out.check().rotations());
      for (int joint = 0; joint < 28; ++joint) {
        const std::optional<v1::Quat> claimed =
            RotationIn(request.characters(k).pose(), joint);
        if (claimed.has_value() &&
            std::find(listed.begin(), listed.end(), joint) == listed.end() &&
            claimed->x() * claimed->x() + claimed->y() * claimed->y() +
                    claimed->z() * claimed->z() + claimed->w() * claimed->w() !=
                1.0) {
          ++normalised_only;
        }
      }
      ExpectSameAsSingleRpcs(chained, k, out);
    }
  }
  // Both kinds were drawn: repairs, and claims only normalised.
  EXPECT_GT(repaired, 100);
  EXPECT_GT(normalised_only, 20);
}

// With the check and no job, the final pose is the repair, to the bit: it
// lists exactly the joints check.rotations lists, each with check.rotations'
// bits, and no joint whose claim was only normalised (off unit within the
// tolerance, or by a few ulps).
TEST_P(TickTest, WithNoJobTheFinalPoseIsTheRepairToTheBit) {
  int repaired = 0, normalised_only = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 engine(seed * 104729);
    std::bernoulli_distribution broken(0.3);
    std::uniform_int_distribution<int> ulps(-4, 4);
    v1::TickRequest request = Crowd(seed, 8);
    for (v1::TickCharacter& character : *request.mutable_characters()) {
      character.clear_ground();
      character.clear_goals();
      character.clear_dynamics();
      character.mutable_check();
      for (int joint = 0; joint < 28; ++joint) {
        const v1::Quat claimed =
            RotationIn(character.pose(), joint).value_or(Rotation(0, 0, 0, 1));
        v1::Quat sent = claimed;
        if (broken(engine)) {
          sent = BrokenRotation(engine, claimed);
        } else if (engine() % 2 == 0) {
          sent.set_w(claimed.w() +
                     ulps(engine) * std::numeric_limits<double>::epsilon());
        }
        SetJointRotation(*character.mutable_pose(), joint, sent);
      }
    }
    v1::TickResponse response;
    ASSERT_TRUE(Tick(request, &response).ok());
    for (int k = 0; k < request.characters_size(); ++k) {
      SCOPED_TRACE(absl::StrCat("seed ", seed, " character ", k));
      const v1::TickCharacterResult& out = response.characters(k);
      ASSERT_EQ(out.status().code(), 0) << out.status().message();
      ASSERT_EQ(out.check_status().code(), 0) << out.check_status().message();
      std::vector<const v1::JointRotation*> repairs;
      for (const v1::JointRotation& rotation : out.check().rotations()) {
        repairs.push_back(&rotation);
      }
      std::sort(repairs.begin(), repairs.end(),
                [](const v1::JointRotation* a, const v1::JointRotation* b) {
                  return a->index() < b->index();
                });
      ASSERT_EQ(out.joints_size(), static_cast<int>(repairs.size()));
      ASSERT_EQ(out.rotations_size(), 4 * out.joints_size());
      for (int i = 0; i < out.joints_size(); ++i) {
        EXPECT_EQ(out.joints(i), repairs[i]->index());
        const v1::Quat& repair = repairs[i]->rotation();
        const double expected[4] = {repair.x(), repair.y(), repair.z(),
                                    repair.w()};
        EXPECT_EQ(std::memcmp(expected, out.rotations().data() + 4 * i,
                              sizeof(expected)),
                  0)
            << "joint " << out.joints(i);
      }
      repaired += out.joints_size();
      normalised_only += 28 - out.joints_size();
    }
  }
  EXPECT_GT(repaired, 100);
  EXPECT_GT(normalised_only, 100);
}

INSTANTIATE_TEST_SUITE_P(PoolSizes, TickTest, ::testing::Values(1, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return absl::StrCat(info.param, "threads");
                         });

}  // namespace
}  // namespace ik::server
