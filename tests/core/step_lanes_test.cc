// The dynamics steps side by side in SIMD lanes (RunStepDynamicsJobs, and
// dynamics_internal::RunSteps at both widths) against each job's own Run():
// seeded groups of jobs of one prepared chain -- strands and trees,
// colliders the joints run into, stiffness and wind overrides, steady and
// gusty wind, joints lying on their parents, resets and teleports, groups
// of every size, and groups that cannot share lanes (unequal substeps,
// follow-the-leader, a chain of its own) -- must give the same states,
// outputs and reports, bit for bit.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "draws.h"
#include "dynamics/dynamics_internal.h"
#include "gtest/gtest.h"
#include "ik/base/math.h"
#include "ik/dynamics/colliders.h"
#include "ik/dynamics/dynamic_chain.h"
#include "ik/dynamics/dynamics.h"
#include "ik/dynamics/prepared_dynamic_chain.h"

namespace ik {
namespace {

enum class Kind {
  kStrand,       // every parent the joint before
  kTree,         // parents anywhere earlier
  kOnParent,     // joints lying on their parents, no forces
  kUnshareable,  // groups that must run one job at a time
};

// One job's inputs and outputs, owned.
struct JobData {
  std::vector<Transform> animated;
  std::vector<Collider> colliders;
  DynamicState state;
  std::vector<Quat> rotations;
  std::vector<Quat> corrections;
  DynamicsReport report;
  double delta_time = 0.0;
  bool reset = false;

  StepDynamicsJob Job(const PreparedDynamicChain& chain) {
    StepDynamicsJob job;
    job.prepared_chain = &chain;
    job.animated_world = animated;
    job.colliders_world = colliders;
    job.delta_time = delta_time;
    job.reset = reset;
    job.state = &state;
    job.rotations_world = absl::MakeSpan(rotations);
    job.corrections_local = absl::MakeSpan(corrections);
    job.report = &report;
    return job;
  }
};

bool SameBits(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  return a.size() == b.size() &&
         (a.empty() ||
          std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec3)) == 0);
}
bool SameBits(const std::vector<Quat>& a, const std::vector<Quat>& b) {
  return a.size() == b.size() &&
         (a.empty() ||
          std::memcmp(a.data(), b.data(), a.size() * sizeof(Quat)) == 0);
}
bool SameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof(a)) == 0;
}

void ExpectSame(const JobData& alone, const JobData& lanes, int case_index,
                size_t job) {
  SCOPED_TRACE(::testing::Message() << "case " << case_index << " job " << job);
  EXPECT_TRUE(SameBits(alone.state.positions, lanes.state.positions));
  EXPECT_TRUE(
      SameBits(alone.state.previous_positions, lanes.state.previous_positions));
  EXPECT_TRUE(SameBits(alone.state.rotations, lanes.state.rotations));
  EXPECT_TRUE(SameBits(alone.state.time_remainder, lanes.state.time_remainder));
  EXPECT_TRUE(SameBits(alone.state.noise_time, lanes.state.noise_time));
  EXPECT_TRUE(SameBits(alone.rotations, lanes.rotations));
  EXPECT_TRUE(SameBits(alone.corrections, lanes.corrections));
  EXPECT_EQ(alone.report.substeps, lanes.report.substeps);
  EXPECT_EQ(alone.report.clamped, lanes.report.clamped);
  EXPECT_EQ(alone.report.reset, lanes.report.reset);
}

// A seeded chain of `kind`.
DynamicChain DrawChain(Kind kind, std::mt19937_64& engine) {
  std::uniform_int_distribution<int> joints(2, 18);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  DynamicChain chain;
  chain.joints.resize(static_cast<size_t>(joints(engine)));
  for (size_t i = 1; i < chain.joints.size(); ++i) {
    DynamicJoint& joint = chain.joints[i];
    joint.parent = static_cast<int>(i) - 1;
    if (kind == Kind::kTree) {
      joint.parent = std::uniform_int_distribution<int>(
          0, static_cast<int>(i) - 1)(engine);
    }
    joint.length = 0.02 + 0.08 * unit(engine);
    joint.radius = 0.03 * unit(engine);
    if (unit(engine) < 0.2) joint.overrides.stiffness = 0.3 * unit(engine);
    if (unit(engine) < 0.2) joint.overrides.drag = unit(engine);
    if (unit(engine) < 0.1) joint.overrides.wind_scale = 3.0 * unit(engine);
    if (unit(engine) < 0.1) {
      std::normal_distribution<double> normal(0.0, 5.0);
      joint.overrides.gravity = testing::DrawVec3(normal, engine);
    }
  }
  chain.drag = 0.2 * unit(engine);
  chain.stiffness = unit(engine) < 0.5 ? 0.0 : 0.1 * unit(engine);
  if (unit(engine) < 0.6) {
    chain.wind.strength = 8.0 * unit(engine);
    chain.wind.direction = Vec3(1.0, 0.0, 0.5);
    chain.wind.turbulence = unit(engine) < 0.5 ? 0.0 : unit(engine);
  }
  if (kind == Kind::kOnParent) {
    chain.gravity = Vec3(0.0);
    chain.wind = WindSettings();
    chain.stiffness = 0.0;
    for (DynamicJoint& joint : chain.joints) joint.overrides = {};
  }
  return chain;
}

// The animated pose: hanging from `root` along a drawn direction, a bend
// per joint, drawn rotations.
std::vector<Transform> DrawPose(const DynamicChain& chain, const Vec3& root,
                                std::mt19937_64& engine) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> spread(-0.4, 0.4);
  std::vector<Transform> pose(chain.joints.size());
  pose[0].translation = root;
  for (size_t i = 0; i < pose.size(); ++i) {
    pose[i].rotation = glm::normalize(testing::DrawQuat(normal, engine));
    if (i == 0) continue;
    const Vec3 bend = testing::DrawVec3(spread, engine);
    const Vec3 direction = glm::normalize(Vec3(0.0, -1.0, 0.0) + bend);
    const DynamicJoint& joint = chain.joints[i];
    pose[i].translation =
        pose[joint.parent].translation + joint.length * direction;
  }
  return pose;
}

// Spheres and capsules about the pose's joints, some overlapping them.
std::vector<Collider> DrawColliders(const std::vector<Transform>& pose,
                                    size_t count, std::mt19937_64& engine) {
  std::uniform_int_distribution<size_t> joint(0, pose.size() - 1);
  std::uniform_real_distribution<double> offset(-0.08, 0.08);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Collider> colliders(count);
  for (Collider& collider : colliders) {
    const Vec3 at = pose[joint(engine)].translation;
    const Vec3 start = at + testing::DrawVec3(offset, engine);
    const double radius = 0.01 + 0.08 * unit(engine);
    collider =
        unit(engine) < 0.5
            ? SphereCollider(start, radius)
            : CapsuleCollider(start, start + testing::DrawVec3(offset, engine),
                              radius);
  }
  return colliders;
}

// A job of `chain` with `colliders` colliders whose state has stepped a
// few times from rest (or is empty, for a first step).
JobData DrawJob(Kind kind, const PreparedDynamicChain& prepared,
                size_t colliders, std::mt19937_64& engine) {
  const DynamicChain& chain = prepared.chain();
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_real_distribution<double> place(-0.5, 0.5);
  const Vec3 root = Vec3(0.0, 1.6, 0.0) + testing::DrawVec3(place, engine);
  JobData data;
  const size_t joints = chain.joints.size();
  data.rotations.resize(joints);
  data.corrections.resize(joints);
  data.animated = DrawPose(chain, root, engine);
  data.colliders = DrawColliders(data.animated, colliders, engine);
  data.delta_time = 1.0 / 60.0;
  const int warm_up = unit(engine) < 0.1 ? 0 : 3;
  for (int step = 0; step < warm_up; ++step) {
    if (!data.Job(prepared).Run().ok()) ADD_FAILURE() << "warm-up step";
  }
  // This step: the root moved a little (or teleported), a new pose.
  const double move = unit(engine) < 0.05 ? 3.0 : 0.03;
  std::uniform_real_distribution<double> shift(-move, move);
  std::vector<Transform> next =
      DrawPose(chain, root + testing::DrawVec3(shift, engine), engine);
  if (kind == Kind::kOnParent) {
    // Still root, no forces: each joint sent onto its parent stays there,
    // and the length correction meets a zero offset.
    next = data.animated;
    if (!data.state.positions.empty()) {
      for (size_t i = 1; i < joints; ++i) {
        if (unit(engine) < 0.4) {
          const int parent = chain.joints[i].parent;
          data.state.positions[i] = data.state.positions[parent];
          data.state.previous_positions[i] = data.state.positions[i];
        }
      }
    }
  }
  data.animated = next;
  data.reset = unit(engine) < 0.05;
  if (kind == Kind::kUnshareable && unit(engine) < 0.5) {
    data.delta_time = (unit(engine) < 0.5 ? 1.0 : 3.0) / 120.0;
  }
  return data;
}

// Runs `group` through the lanes at `width` (dynamics_internal::RunSteps,
// as RunStepDynamicsJobs does at the widest).
void RunInLanes(std::vector<JobData>& group,
                const PreparedDynamicChain* chains[],
                dynamics_internal::StepWidth width) {
  dynamics_internal::LaneRoom room;
  for (size_t first = 0; first < group.size();
       first += dynamics_internal::kStepLanes) {
    const size_t end =
        std::min(group.size(), first + dynamics_internal::kStepLanes);
    StepDynamicsJob jobs[dynamics_internal::kStepLanes];
    const StepDynamicsJob* ready[dynamics_internal::kStepLanes];
    const dynamics_internal::ChainView* views[dynamics_internal::kStepLanes];
    int count = 0;
    for (size_t k = first; k < end; ++k) {
      jobs[count] = group[k].Job(*chains[k]);
      ASSERT_TRUE(jobs[count].Validate().ok());
      ready[count] = &jobs[count];
      views[count] = &chains[k]->layout().view;
      ++count;
    }
    dynamics_internal::RunSteps(views, ready, count, room, width);
  }
}

// Whether a joint ends touching a collider: within the sum of the radii of
// the collider's segment, up to rounding (an independent check).
int Contacts(const DynamicChain& chain, const JobData& data) {
  int contacts = 0;
  for (size_t i = 1; i < chain.joints.size(); ++i) {
    const Vec3& p = data.state.positions[i];
    for (const Collider& collider : data.colliders) {
      const Vec3 axis = collider.end - collider.start;
      const double axis_sq = glm::dot(axis, axis);
      double t =
          axis_sq > 0.0 ? glm::dot(p - collider.start, axis) / axis_sq : 0.0;
      t = std::clamp(t, 0.0, 1.0);
      const double gap = glm::length(p - (collider.start + axis * t));
      if (gap <= collider.radius + chain.joints[i].radius + 1e-9) ++contacts;
    }
  }
  return contacts;
}

struct Tally {
  int groups_sharing_lanes = 0;  // 2+ jobs of one chain, equal substeps
  int contacts = 0;
  int on_parent = 0;
};

// `cases` seeded groups of `kind`, each compared at both widths.
Tally CompareGroups(Kind kind, int cases, uint64_t seed) {
  std::mt19937_64 engine(seed);
  Tally tally;
  for (int c = 0; c < cases; ++c) {
    DynamicChain chain = DrawChain(kind, engine);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    if (kind == Kind::kUnshareable && unit(engine) < 0.3) {
      chain.follow_the_leader = 0.9;
    }
    const absl::StatusOr<PreparedDynamicChain> prepared =
        PreparedDynamicChain::Create(chain);
    if (!prepared.ok()) {
      ADD_FAILURE() << prepared.status();
      return tally;
    }
    // A second prepared copy of the chain: jobs of it never share lanes
    // with the first's.
    const absl::StatusOr<PreparedDynamicChain> other =
        PreparedDynamicChain::Create(chain);
    const int size = std::uniform_int_distribution<int>(1, 9)(engine);
    // Characters of one kind carry as many colliders; in groups that
    // cannot share lanes some differ.
    const size_t colliders =
        std::uniform_int_distribution<size_t>(0, 6)(engine);
    std::vector<JobData> alone;
    std::vector<const PreparedDynamicChain*> chains;
    for (int k = 0; k < size; ++k) {
      const bool own = kind == Kind::kUnshareable && unit(engine) < 0.2;
      chains.push_back(own ? &*other : &*prepared);
      const size_t own_colliders =
          kind == Kind::kUnshareable && unit(engine) < 0.3 ? colliders + 1
                                                           : colliders;
      alone.push_back(DrawJob(kind, *chains.back(), own_colliders, engine));
      if (kind == Kind::kOnParent) {
        for (size_t i = 1; i < chain.joints.size(); ++i) {
          const int parent = chain.joints[i].parent;
          tally.on_parent += !alone.back().state.positions.empty() &&
                             !alone.back().reset &&
                             alone.back().state.positions[i] ==
                                 alone.back().state.positions[parent];
        }
      }
    }
    std::vector<JobData> widest = alone;
    std::vector<JobData> pairs = alone;
    std::vector<JobData> public_api = alone;
    for (size_t k = 0; k < alone.size(); ++k) {
      EXPECT_TRUE(alone[k].Job(*chains[k]).Run().ok());
    }
    RunInLanes(widest, chains.data(), dynamics_internal::StepWidth::kWidest);
    RunInLanes(pairs, chains.data(), dynamics_internal::StepWidth::kPairs);
    std::vector<StepDynamicsJob> jobs;
    for (size_t k = 0; k < public_api.size(); ++k) {
      jobs.push_back(public_api[k].Job(*chains[k]));
    }
    std::vector<const StepDynamicsJob*> pointers;
    for (const StepDynamicsJob& job : jobs) pointers.push_back(&job);
    std::vector<absl::Status> statuses(jobs.size(),
                                       absl::UnknownError("unset"));
    EXPECT_TRUE(RunStepDynamicsJobs(pointers, absl::MakeSpan(statuses)).ok());
    for (size_t k = 0; k < alone.size(); ++k) {
      EXPECT_TRUE(statuses[k].ok()) << statuses[k];
      ExpectSame(alone[k], widest[k], c, k);
      ExpectSame(alone[k], pairs[k], c, k);
      ExpectSame(alone[k], public_api[k], c, k);
      tally.contacts += Contacts(chain, alone[k]);
    }
    for (size_t first = 0; first < alone.size(); first += 4) {
      const size_t end = std::min(alone.size(), first + 4);
      bool shared = end - first >= 2 && chain.follow_the_leader == 0.0;
      for (size_t k = first; k < end; ++k) {
        shared = shared && chains[k] == chains[first] &&
                 alone[k].report.substeps == alone[first].report.substeps &&
                 alone[k].report.substeps > 0 &&
                 alone[k].colliders.size() == alone[first].colliders.size();
      }
      tally.groups_sharing_lanes += shared;
    }
  }
  return tally;
}

TEST(StepLanesTest, StrandsGiveEachJobsOwnBits) {
  const Tally tally = CompareGroups(Kind::kStrand, 400, 0x5eed0001);
  EXPECT_GT(tally.groups_sharing_lanes, 250);
  EXPECT_GT(tally.contacts, 500);
}

TEST(StepLanesTest, TreesGiveEachJobsOwnBits) {
  const Tally tally = CompareGroups(Kind::kTree, 300, 0x5eed0002);
  EXPECT_GT(tally.groups_sharing_lanes, 200);
  EXPECT_GT(tally.contacts, 1000);
}

TEST(StepLanesTest, JointsOnTheirParentsGiveEachJobsOwnBits) {
  const Tally tally = CompareGroups(Kind::kOnParent, 200, 0x5eed0003);
  EXPECT_GT(tally.groups_sharing_lanes, 100);
  EXPECT_GT(tally.on_parent, 1500);
}

TEST(StepLanesTest, GroupsThatCannotShareLanesRunEachJobAlone) {
  CompareGroups(Kind::kUnshareable, 300, 0x5eed0004);
}

TEST(StepLanesTest, MismatchedSpansAndNullJobsAreRefused) {
  const DynamicChain chain = [] {
    DynamicChain c;
    c.joints.resize(2);
    c.joints[1].parent = 0;
    c.joints[1].length = 0.1;
    return c;
  }();
  const absl::StatusOr<PreparedDynamicChain> prepared =
      PreparedDynamicChain::Create(chain);
  ASSERT_TRUE(prepared.ok());
  JobData data;
  data.animated.resize(2);
  data.animated[1].translation = Vec3(0.0, -0.1, 0.0);
  data.rotations.resize(2);
  data.corrections.resize(2);
  data.delta_time = 1.0 / 60.0;
  const StepDynamicsJob job = data.Job(*prepared);
  const StepDynamicsJob* jobs[2] = {&job, nullptr};
  absl::Status statuses[2];
  const absl::Status sizes = RunStepDynamicsJobs(absl::MakeConstSpan(jobs, 2),
                                                 absl::MakeSpan(statuses, 1));
  EXPECT_EQ(sizes.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(sizes.message(), "statuses: 1 for 2 jobs");
  const absl::Status null = RunStepDynamicsJobs(absl::MakeConstSpan(jobs, 2),
                                                absl::MakeSpan(statuses, 2));
  EXPECT_EQ(null.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(null.message(), "jobs[1]: null");
  EXPECT_TRUE(data.state.positions.empty());  // nothing ran
}

TEST(StepLanesTest, AnInvalidJobGetsItsOwnErrorAndTheOthersRun) {
  DynamicChain chain;
  chain.joints.resize(3);
  for (int i = 1; i < 3; ++i) {
    chain.joints[i].parent = i - 1;
    chain.joints[i].length = 0.1;
  }
  const absl::StatusOr<PreparedDynamicChain> prepared =
      PreparedDynamicChain::Create(chain);
  ASSERT_TRUE(prepared.ok());
  std::mt19937_64 engine(7);
  std::vector<JobData> data;
  for (int k = 0; k < 4; ++k) {
    data.push_back(DrawJob(Kind::kStrand, *prepared, 2, engine));
  }
  data[2].delta_time = -1.0;
  std::vector<JobData> alone = data;
  std::vector<StepDynamicsJob> jobs;
  for (JobData& d : data) jobs.push_back(d.Job(*prepared));
  const StepDynamicsJob* pointers[4] = {&jobs[0], &jobs[1], &jobs[2], &jobs[3]};
  absl::Status statuses[4];
  ASSERT_TRUE(RunStepDynamicsJobs(pointers, absl::MakeSpan(statuses)).ok());
  for (int k = 0; k < 4; ++k) {
    const absl::Status own = alone[k].Job(*prepared).Run();
    EXPECT_EQ(statuses[k], own);
    ExpectSame(alone[k], data[k], 0, static_cast<size_t>(k));
  }
  EXPECT_EQ(statuses[2].code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ik
