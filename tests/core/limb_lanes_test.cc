// The limb starts in SIMD lanes (rig/limb_lanes.h) against
// StartMidWithinLimit, start by start: the same bits in the rotation, the
// hinge angle and the flags, over seeded hinge middle joints of every case
// the start tells apart (within the hinge; on its axis out of range; off
// its axis within range, by rounding or by far; off it and out of range; at
// the range's ends; a range of a whole turn; a twist near a half turn, where
// the angle is -pi or pi; an undefined twist; rotations off unit length;
// NaN), shuffled so every case meets every other in a group: in pairs, in
// fours (where the processor has AVX), and through StartLimbs on a rig's
// limbs with hinge, ball-and-socket and free middle joints, whose solves
// must match those started at once.
#include "rig/limb_lanes.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "base/trig_lanes.h"
#include "draws.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/rig/forward_kinematics.h"
#include "ik/rig/rig.h"
#include "rig/two_bone_limits.h"

namespace ik {
namespace {

using ::ik::testing::DrawQuat;
using ::ik::testing::DrawVec3;
using internal::JointConstraintOf;
using internal::MidStart;

constexpr int kCases = 11;
constexpr int kPerCase = 400;

bool SameBits(const MidStart& a, const MidStart& b) {
  return std::memcmp(&a.rotation, &b.rotation, sizeof(Quat)) == 0 &&
         std::memcmp(&a.hinge_angle, &b.hinge_angle, sizeof(double)) == 0 &&
         a.hinge == b.hinge && a.clamped == b.clamped;
}

struct HingeCase {
  JointDefinition mid;
  Quat rotation;
};

// A hinge middle joint and an incoming rotation of case `kind`.
HingeCase DrawCase(int kind, std::mt19937_64& engine) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_real_distribution<double> angle(-kPi, kPi);
  HingeCase out;
  JointDefinition& mid = out.mid;
  mid.rest.rotation = glm::normalize(DrawQuat(unit, engine));
  mid.limit.kind = JointLimit::Kind::kHinge;
  mid.limit.hinge.axis = glm::normalize(DrawVec3(unit, engine));
  double a = angle(engine);
  double b = angle(engine);
  if (a > b) std::swap(a, b);
  if (kind == 5) {  // a whole turn: no ends
    a = -kPi;
    b = kPi;
  }
  mid.limit.hinge.range = {a, b};
  DeriveLimitValues(&mid.limit);
  const Vec3& axis = mid.limit.hinge.axis;
  std::uniform_real_distribution<double> inside(a, b);
  double turn = inside(engine);
  if (kind == 2 || kind == 3) turn = b + 0.5 * (b - a) + 0.1;  // past max
  if (kind == 6)
    turn = std::uniform_int_distribution<int>(0, 1)(engine) ? a : b;
  if (kind == 7) turn = kPi * (1.0 - 1e-15 * std::abs(unit(engine)));
  Quat relative = AngleAxis(turn, axis);
  if (kind == 1 || kind == 3 || kind == 4) {  // off the axis
    const double off = kind == 1 ? 1e-13 : (kind == 4 ? 0.3 : 1e-3);
    relative = glm::normalize(
        AngleAxis(off * unit(engine), glm::normalize(DrawVec3(unit, engine))) *
        relative);
  }
  if (kind == 8) {  // the axis turned half round: no twist
    const Vec3 across =
        glm::normalize(glm::cross(axis, DrawVec3(unit, engine)));
    relative = Quat(0.0, across.x, across.y, across.z);
  }
  if (kind == 9) relative = glm::normalize(DrawQuat(unit, engine));
  out.rotation = mid.rest.rotation * relative;
  if (kind == 10) out.rotation *= 1.0 + 1e-9 * unit(engine);  // off unit
  if (kind == 10 && unit(engine) > 0.9) {
    out.rotation.y = std::numeric_limits<double>::quiet_NaN();
  }
  return out;
}

std::vector<HingeCase> DrawCases(std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<HingeCase> cases;
  for (int kind = 0; kind < kCases; ++kind) {
    for (int n = 0; n < kPerCase; ++n) cases.push_back(DrawCase(kind, engine));
  }
  std::shuffle(cases.begin(), cases.end(), engine);
  return cases;
}

MidStart Scalar(const HingeCase& c) {
  return internal::StartMidWithinLimit(c.mid, JointConstraintOf(c.mid),
                                       c.rotation);
}

// Every group of `width` consecutive cases through `start`, each against
// the scalar start; how many of them the limit clamped or moved.
template <int kWidth, typename Start>
void ExpectSameStarts(const std::vector<HingeCase>& cases, Start start) {
  int clamped = 0;
  int moved = 0;
  for (size_t i = 0; i + kWidth <= cases.size(); i += kWidth) {
    const JointDefinition* mids[kWidth];
    Quat rotations[kWidth];
    for (int k = 0; k < kWidth; ++k) {
      mids[k] = &cases[i + k].mid;
      rotations[k] = cases[i + k].rotation;
    }
    MidStart starts[kWidth];
    start(mids, rotations, starts);
    for (int k = 0; k < kWidth; ++k) {
      const MidStart expected = Scalar(cases[i + k]);
      ASSERT_TRUE(SameBits(starts[k], expected)) << "case " << i + k;
      clamped += expected.clamped ? 1 : 0;
      moved +=
          std::memcmp(&expected.rotation, &rotations[k], sizeof(Quat)) ? 1 : 0;
    }
  }
  // The draws reach the clamp's paths, not only the kept rotation.
  EXPECT_GT(clamped, kPerCase);
  EXPECT_GT(moved, 2 * kPerCase);
}

TEST(LimbLanesTest, PairsGiveTheScalarStartsBits) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    ExpectSameStarts<2>(DrawCases(seed), internal::StartHingePair);
  }
}

TEST(LimbLanesTest, FoursGiveTheScalarStartsBits) {
  if (!internal::HasAvxLanes()) GTEST_SKIP() << "no AVX on this processor";
  for (std::uint64_t seed : {4u, 5u, 6u}) {
    ExpectSameStarts<4>(DrawCases(seed), internal::StartHingeQuad);
  }
}

// Limbs of the humanoid: hinge middle joints (arms, legs), a ball-and-
// socket one (the clavicle's arm) and a free limb (the spine).
// (joint indices in HumanoidDefinition's order).
constexpr internal::TwoBoneJoints kLimbs[] = {
    {6, 7, 8}, {10, 11, 12}, {13, 14, 15}, {17, 18, 19}, {5, 6, 7}, {0, 1, 2}};

TEST(LimbLanesTest, StartedLimbsSolveAsTheLimbsStartedAtOnce) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok()) << rig.status();
  for (const internal::TwoBoneJoints& limb : kLimbs) {
    ASSERT_EQ(rig->joint(limb.mid).parent, limb.root);
    ASSERT_EQ(rig->joint(limb.tip).parent, limb.mid);
  }
  std::mt19937_64 engine(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> pick(0, std::size(kLimbs) - 1);
  int hinged_groups = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<Transform> locals(rig->rest_pose().begin(),
                                  rig->rest_pose().end());
    for (Transform& local : locals) {
      local.rotation = glm::normalize(
          local.rotation * AngleAxis(0.3 * unit(engine),
                                     glm::normalize(DrawVec3(unit, engine))));
    }
    const int count = 1 + round % 6;
    internal::TwoBoneJoints joints[6];
    std::vector<Transform> models(locals.size());
    LocalToModelJob fk;
    fk.parents = rig->parents();
    fk.locals = locals;
    fk.models = absl::MakeSpan(models);
    ASSERT_TRUE(fk.Run().ok());
    std::optional<internal::TwoBoneLimbSolve> now[6];
    std::optional<internal::TwoBoneLimbSolve> later[6];
    SolveReport reports[12];
    internal::TwoBoneLimbSolve* limbs[6];
    int hinges = 0;
    for (int k = 0; k < count; ++k) {
      joints[k] = kLimbs[pick(engine)];
      hinges +=
          rig->joint(joints[k].mid).limit.kind == JointLimit::Kind::kHinge;
      const Vec3 target =
          models[joints[k].root].translation + 0.6 * DrawVec3(unit, engine);
      const Vec3 pole =
          models[joints[k].mid].translation + DrawVec3(unit, engine);
      for (std::optional<internal::TwoBoneLimbSolve>* solve :
           {&now[k], &later[k]}) {
        const bool at_once = solve == &now[k];
        solve->emplace(
            *rig, joints[k], models[joints[k].root], target, pole, 1e-9,
            k % 2 == 0, locals, &reports[2 * k + at_once],
            at_once ? internal::LimbStart::kNow : internal::LimbStart::kLater);
      }
      limbs[k] = &*later[k];
    }
    internal::StartLimbs(absl::MakeConstSpan(limbs, count));
    hinged_groups += hinges >= 2 ? 1 : 0;
    for (int k = 0; k < count; ++k) {
      ASSERT_FALSE(later[k]->awaiting_start());
      std::vector<Transform> a = locals;
      std::vector<Transform> b = locals;
      std::uint64_t mask_a = 0;
      std::uint64_t mask_b = 0;
      const absl::Status status_a =
          now[k]->Finish(now[k]->job().Run(), absl::MakeSpan(a), &mask_a);
      const absl::Status status_b =
          later[k]->Finish(later[k]->job().Run(), absl::MakeSpan(b), &mask_b);
      ASSERT_EQ(status_a, status_b);
      EXPECT_EQ(mask_a, mask_b);
      ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(Transform)),
                0)
          << "round " << round << " limb " << k;
    }
  }
  EXPECT_GT(hinged_groups, 100);
}

}  // namespace
}  // namespace ik
