// Tests of PreparedDynamicChain (ik/dynamics/prepared_dynamic_chain.h) and
// StepDynamicsJob::prepared_chain: a chain prepared once steps to the same
// bits as the chain named on every call, over seeded random chains (strands
// and trees, per-joint overrides, smoothing, follow the leader, wind,
// colliders, resets and clamped steps), and every invalid input is still
// refused with its field named. Also the strand fast path of the positions
// -> rotations stage (strand_rotations.cc) against the general path, bit
// for bit.
#include "ik/dynamics/prepared_dynamic_chain.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "draws.h"
#include "dynamics_fixtures.h"
#include "gtest/gtest.h"
#include "ik/dynamics/dynamic_rotations.h"
#include "ik/dynamics/dynamics.h"

namespace ik {
namespace {

using testing::StraightChain;
using testing::StraightPose;

bool SameBits(const Vec3& a, const Vec3& b) {
  return std::memcmp(&a, &b, sizeof(Vec3)) == 0;
}
bool SameBits(const Quat& a, const Quat& b) {
  return std::memcmp(&a, &b, sizeof(Quat)) == 0;
}

// A random valid chain: a strand or a tree, sometimes with overrides.
DynamicChain RandomChain(int seed, std::mt19937_64& engine) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int count = 2 + static_cast<int>(engine() % 20);
  DynamicChain chain;
  chain.joints.resize(count);
  const bool tree = seed % 3 == 1;
  for (int i = 1; i < count; ++i) {
    chain.joints[i].parent = tree ? static_cast<int>(engine() % i) : i - 1;
    chain.joints[i].length = 0.02 + 0.1 * unit(engine);
    chain.joints[i].radius = 0.02 * unit(engine);
  }
  chain.drag = 0.2 * unit(engine);
  chain.stiffness = seed % 2 == 0 ? 0.1 * unit(engine) : 0.0;
  chain.rotation_blend = seed % 4 == 0 ? unit(engine) : 1.0;
  chain.remove_twist = seed % 5 != 0;
  chain.follow_the_leader = seed % 6 == 2 ? 0.9 : 0.0;
  chain.wind.strength = 4.0 * unit(engine);
  chain.wind.turbulence = seed % 2 == 0 ? unit(engine) : 0.0;
  chain.wind.seed = engine();
  chain.max_substeps = 1 + static_cast<int>(engine() % 12);
  if (seed % 4 == 3) {
    for (DynamicJoint& joint : chain.joints) {
      if (engine() % 3 == 0) joint.overrides.drag = unit(engine);
      if (engine() % 3 == 0) joint.overrides.stiffness = unit(engine);
      if (engine() % 3 == 0) joint.overrides.rotation_blend = unit(engine);
      if (engine() % 3 == 0) joint.overrides.remove_twist = engine() % 2 == 0;
      if (engine() % 3 == 0) joint.overrides.wind_scale = 2.0 * unit(engine);
      if (engine() % 3 == 0) {
        std::uniform_real_distribution<double> g(-10.0, 10.0);
        joint.overrides.gravity = testing::DrawVec3(g, engine);
      }
    }
  }
  return chain;
}

// The outputs of one step through one of the two paths.
struct StepOutput {
  absl::Status status;
  DynamicState state;
  std::vector<Quat> rotations;
  std::vector<Quat> corrections;
  DynamicsReport report;
};

TEST(PreparedDynamicChainTest, StepsToTheSameBitsAsTheChainItself) {
  int compared = 0;
  for (int seed = 0; seed < 120; ++seed) {
    std::mt19937_64 engine(seed + 7);
    std::uniform_real_distribution<double> near(-0.15, 0.15);
    std::uniform_real_distribution<double> turn(-1.0, 1.0);
    const DynamicChain chain = RandomChain(seed, engine);
    ASSERT_TRUE(chain.Validate().ok()) << seed;
    absl::StatusOr<PreparedDynamicChain> prepared =
        PreparedDynamicChain::Create(chain);
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    const std::vector<Transform> rest =
        StraightPose(chain, Vec3(0.0, 1.5, 0.0), Vec3(0.3, -1.0, 0.1));
    std::vector<Collider> colliders;
    for (int c = 0; c < static_cast<int>(engine() % 5); ++c) {
      const Vec3 at = rest[engine() % rest.size()].translation +
                      testing::DrawVec3(near, engine);
      const Vec3 end = at + testing::DrawVec3(near, engine);
      colliders.push_back(CapsuleCollider(at, c % 2 ? end : at, 0.05));
    }
    StepOutput plain;
    StepOutput fast;
    for (int step = 0; step < 40; ++step) {
      std::vector<Transform> animated = rest;
      const Vec3 offset(0.1 * std::sin(0.3 * step), 0.0, 0.02 * step);
      for (Transform& transform : animated) {
        transform.translation += offset;
        transform.rotation = glm::normalize(testing::DrawQuat(turn, engine));
      }
      const double delta_time = step % 9 == 4 ? 0.3 : (step % 3) / 60.0;
      const bool reset = step == 25;
      for (StepOutput* output : {&plain, &fast}) {
        output->rotations.resize(chain.joints.size());
        output->corrections.resize(chain.joints.size());
        StepDynamicsJob job;
        if (output == &fast) {
          job.prepared_chain = &*prepared;
        } else {
          job.chain = &chain;
        }
        job.animated_world = animated;
        job.colliders_world = colliders;
        job.delta_time = delta_time;
        job.reset = reset;
        job.state = &output->state;
        job.rotations_world = absl::MakeSpan(output->rotations);
        job.corrections_local = absl::MakeSpan(output->corrections);
        job.report = &output->report;
        output->status = job.Run();
      }
      ASSERT_TRUE(plain.status.ok()) << plain.status;
      ASSERT_TRUE(fast.status.ok()) << fast.status;
      ASSERT_EQ(plain.report.substeps, fast.report.substeps);
      ASSERT_EQ(plain.report.reset, fast.report.reset);
      ASSERT_EQ(plain.state.time_remainder, fast.state.time_remainder);
      ASSERT_EQ(plain.state.noise_time, fast.state.noise_time);
      for (size_t j = 0; j < chain.joints.size(); ++j) {
        ASSERT_TRUE(SameBits(plain.state.positions[j], fast.state.positions[j]))
            << "seed " << seed << " step " << step << " joint " << j;
        ASSERT_TRUE(SameBits(plain.state.previous_positions[j],
                             fast.state.previous_positions[j]));
        ASSERT_TRUE(
            SameBits(plain.state.rotations[j], fast.state.rotations[j]));
        ASSERT_TRUE(SameBits(plain.rotations[j], fast.rotations[j]));
        ASSERT_TRUE(SameBits(plain.corrections[j], fast.corrections[j]));
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 10000);
}

// A strand whose joints all take the shortest arc has a fast path
// (two joints at a time); a leaf's rotation_blend and remove_twist change
// nothing (a leaf takes its parent's delta) but send the same strand down
// the general path. Both must give the same bits, careful cases included:
// animated bones of zero length, simulated bones turned back on the
// animated ones, animated rotations off unit.
TEST(PreparedDynamicChainTest, StrandFastPathMatchesTheGeneralPath) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  int compared = 0;
  for (int seed = 0; seed < 400; ++seed) {
    std::mt19937_64 engine(seed);
    const int count = 2 + seed % 19;
    DynamicChain fast = StraightChain(count, 0.1);
    DynamicChain general = fast;
    if (seed % 2 == 0) {
      general.joints.back().overrides.rotation_blend = 0.5;
    } else {
      general.joints.back().overrides.remove_twist = false;
    }
    std::vector<Transform> animated(count);
    std::vector<Vec3> positions(count);
    std::vector<Quat> stored(count);
    for (int i = 0; i < count; ++i) {
      animated[i].translation = testing::DrawVec3(unit, engine);
      animated[i].rotation = glm::normalize(testing::DrawQuat(unit, engine));
      if (engine() % 4 == 0) animated[i].rotation *= 1.0 + 1e-4 * unit(engine);
      positions[i] = testing::DrawVec3(unit, engine);
      stored[i] = glm::normalize(testing::DrawQuat(unit, engine));
      if (engine() % 5 == 0) stored[i] *= 1.0 + 1e-4 * unit(engine);
    }
    for (int i = 1; i < count; ++i) {
      const uint64_t draw = engine() % 8;
      if (draw == 0) animated[i].translation = animated[i - 1].translation;
      if (draw == 1) {  // the simulated bone turned back on the animated one
        positions[i] = positions[i - 1] -
                       (animated[i].translation - animated[i - 1].translation);
      }
    }
    std::vector<Quat> deltas[2] = {stored, stored};
    std::vector<Quat> rotations[2] = {std::vector<Quat>(count),
                                      std::vector<Quat>(count)};
    std::vector<Quat> corrections[2] = {std::vector<Quat>(count),
                                        std::vector<Quat>(count)};
    for (int path = 0; path < 2; ++path) {
      UpdateDynamicRotations(path == 0 ? fast : general, animated, positions,
                             1 + seed % 3, absl::MakeSpan(deltas[path]),
                             absl::MakeSpan(rotations[path]),
                             absl::MakeSpan(corrections[path]));
    }
    for (int i = 0; i < count; ++i) {
      ASSERT_TRUE(SameBits(deltas[0][i], deltas[1][i]))
          << "seed " << seed << " joint " << i;
      ASSERT_TRUE(SameBits(rotations[0][i], rotations[1][i]));
      ASSERT_TRUE(SameBits(corrections[0][i], corrections[1][i]));
      ++compared;
    }
  }
  EXPECT_EQ(compared, 4391);  // the sum of 2 + seed % 19
}

TEST(PreparedDynamicChainTest, CreateRefusesAnInvalidChainNamingTheField) {
  DynamicChain chain = StraightChain(4, 0.1);
  chain.joints[2].length = -1.0;
  const absl::StatusOr<PreparedDynamicChain> prepared =
      PreparedDynamicChain::Create(chain);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(prepared.status().message().substr(0, 17), "joints[2].length:");
}

TEST(PreparedDynamicChainTest, KeepsItsOwnCopyOfTheChain) {
  DynamicChain chain = StraightChain(4, 0.1);
  const absl::StatusOr<PreparedDynamicChain> prepared =
      PreparedDynamicChain::Create(chain);
  ASSERT_TRUE(prepared.ok());
  chain.joints[2].length = 0.5;
  EXPECT_EQ(prepared->chain().joints[2].length, 0.1);
  const PreparedDynamicChain copy = *prepared;  // shares the prepared data
  EXPECT_EQ(&copy.chain(), &prepared->chain());
}

// Every per-call check runs on the prepared path too, with the same status.
TEST(PreparedDynamicChainTest, RefusesWhatTheChainPathRefuses) {
  const DynamicChain chain = StraightChain(4, 0.1, 0.01);
  const absl::StatusOr<PreparedDynamicChain> prepared =
      PreparedDynamicChain::Create(chain);
  ASSERT_TRUE(prepared.ok());
  std::vector<Transform> animated =
      StraightPose(chain, Vec3(0.0, 1.5, 0.0), Vec3(0.0, -1.0, 0.0));
  std::vector<Collider> colliders = {SphereCollider(Vec3(0.0), 0.1)};
  DynamicState state;
  std::vector<Quat> corrections(4);
  DynamicsReport report;
  StepDynamicsJob job;
  job.prepared_chain = &*prepared;
  job.animated_world = animated;
  job.colliders_world = colliders;
  job.delta_time = 1.0 / 60.0;
  job.state = &state;
  job.corrections_local = absl::MakeSpan(corrections);
  job.report = &report;
  ASSERT_TRUE(job.Run().ok());
  const DynamicState good_state = state;

  // Each breaks one field; the prepared job and the chain job agree.
  const auto expect = [&](const char* prefix) {
    StepDynamicsJob with_chain = job;
    with_chain.prepared_chain = nullptr;
    with_chain.chain = &chain;
    const absl::Status expected = with_chain.Validate();
    const absl::Status status = job.Run();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_EQ(status, expected);
    EXPECT_EQ(status.message().substr(0, std::strlen(prefix)), prefix)
        << status;
  };
  animated[2].rotation = Quat(2.0, 0.0, 0.0, 0.0);
  expect("animated_world[2].rotation: not a unit quaternion");
  animated[2].rotation = IdentityQuat();
  colliders[0].radius = -1.0;
  expect("colliders_world[0].radius:");
  colliders[0].radius = 0.1;
  job.delta_time = -1.0;
  expect("delta_time:");
  job.delta_time = 1.0 / 60.0;
  state.positions[1].y = std::numeric_limits<double>::quiet_NaN();
  expect("state.positions[1]: not finite");
  state = good_state;
  state.time_remainder = 5.0;
  expect("state.time_remainder:");
  state = good_state;
  corrections.resize(3);
  job.corrections_local = absl::MakeSpan(corrections);
  expect("corrections_local: 3 entries for 4 joints");
}

TEST(PreparedDynamicChainTest, RefusesBothChainsOrAnEmptyOne) {
  const DynamicChain chain = StraightChain(3, 0.1);
  const absl::StatusOr<PreparedDynamicChain> prepared =
      PreparedDynamicChain::Create(chain);
  ASSERT_TRUE(prepared.ok());
  StepDynamicsJob job;
  job.chain = &chain;
  job.prepared_chain = &*prepared;
  absl::Status status = job.Validate();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "chain: set chain or prepared_chain, not both");
  const PreparedDynamicChain empty;
  job.chain = nullptr;
  job.prepared_chain = &empty;
  status = job.Validate();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message().substr(0, 22), "prepared_chain: empty ");
}

}  // namespace
}  // namespace ik
