// Chains along smooth target paths: seeded paths of targets made by
// in-limit poses moving smoothly (so every target is reachable within the
// limits; steps of at most 1.5 cm), for every solver, with and without a
// pole, with the incoming pose the previous answer ("warm"), a fixed
// in-limit pose, a separate smooth in-limit animation, or an animation near
// the goal (the pose that makes the target, each joint turned further by a
// smooth offset: what IK corrects in a game). A step counts as
// a snap when a joint turns by more than max(3 x the target's angular step
// about the chain's root, 5 degrees) and neither answer of the step says
// branch_switch nor has its EE axis near a singular direction of its plane
// (near_singularity); "flagged" counts the steps whose answer says
// branch_switch. Prints the figures docs/accuracy.md quotes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/base/joint_limits.h"
#include "ik/rig/solve_chain.h"
#include "independent_checks.h"
#include "random_poses.h"
#include "solve_chain_runner.h"
#include "tail_rig.h"

namespace ik {
namespace {

using ::ik::testing::RotationAngle;

// The angle, radians, between two directions (atan2 of the cross and dot
// products: accurate for small angles).
double AngleBetween(const Vec3& a, const Vec3& b) {
  return std::atan2(glm::length(glm::cross(a, b)), glm::dot(a, b));
}

enum class Incoming { kWarm, kFixed, kAnimated, kNear };
constexpr const char* kIncomingNames[] = {"warm", "fixed", "animated", "near"};

// The joints a chain solve turns: all but the tip.
int Turned(const Chain& chain) {
  return static_cast<int>(chain.joints.size()) - 1;
}

// `definition` with every joint's limit removed: the same skeleton and
// chains, free.
RigDefinition WithoutLimits(RigDefinition definition) {
  for (JointDefinition& joint : definition.joints) joint.limit = JointLimit();
  return definition;
}

// The chain's turned joints within their limits.
std::vector<Quat> InLimitRotations(const Rig& rig, const Chain& chain,
                                   std::mt19937_64& engine) {
  std::vector<Quat> rotations;
  for (int k = 0; k < Turned(chain); ++k) {
    rotations.push_back(
        testing::RandomRotationWithinLimit(rig.joint(chain.joints[k]), engine));
  }
  return rotations;
}

// `rest` with the chain's turned joints at `from` and `to` mixed by `t`
// (slerp).
std::vector<Transform> Between(const Rig& rig, const Chain& chain,
                               const std::vector<Quat>& from,
                               const std::vector<Quat>& to, double t) {
  std::vector<Transform> pose(rig.rest_pose().begin(), rig.rest_pose().end());
  for (int k = 0; k < Turned(chain); ++k) {
    pose[chain.joints[k]].rotation =
        glm::normalize(glm::slerp(from[k], to[k], t));
  }
  return pose;
}

// Two in-limit poses of the chain whose slerps stay within the limits all
// the way (checked at 65 points): a path that needs no clamp, so smooth.
struct InLimitPair {
  std::vector<Quat> from, to;
};
InLimitPair SmoothInLimitPair(const Rig& rig, const Chain& chain,
                              std::mt19937_64& engine) {
  for (;;) {
    InLimitPair pair{InLimitRotations(rig, chain, engine),
                     InLimitRotations(rig, chain, engine)};
    bool within = true;
    for (int i = 0; i <= 64 && within; ++i) {
      const std::vector<Transform> pose =
          Between(rig, chain, pair.from, pair.to, i / 64.0);
      for (int k = 0; k < Turned(chain) && within; ++k) {
        const JointDefinition& joint = rig.joint(chain.joints[k]);
        within = !ApplyJointLimit(joint.limit, joint.rest.rotation,
                                  pose[chain.joints[k]].rotation)
                      .clamped;
      }
    }
    if (within) return pair;
  }
}

// An animation near the goal: the pose that makes the target at `t` with
// each turned joint turned further by up to 0.35 rad, smoothly in `t`,
// about an axis of its own (both taken from the separate animation's
// rotations, so no further draws): an animated pose that IK corrects.
std::vector<Transform> NearTheGoal(const Rig& rig, const Chain& chain,
                                   const InLimitPair& path,
                                   const InLimitPair& animation, double t) {
  std::vector<Quat> near;
  for (int k = 0; k < Turned(chain); ++k) {
    const Quat& q = animation.from[k];
    const Vec3 axis = glm::normalize(Vec3(q.x, q.y, q.z) + Vec3(1e-3, 0, 0));
    const double phase = 2.0 * kPi * animation.to[k].w;
    near.push_back(glm::normalize(
        glm::slerp(path.from[k], path.to[k], t) *
        AngleAxis(0.35 * std::sin(2.0 * kPi * t + phase), axis)));
  }
  return Between(rig, chain, near, near, 0.0);
}

struct PathFigures {
  int steps = 0;
  int flagged = 0;   // the step's answer says branch_switch
  int singular = 0;  // else unflagged, an answer near a singular direction
  int snaps = 0;     // steps over the bound neither end flagged nor singular
  double largest_ratio = 0.0;  // of those other steps: turn / bound
  double largest_residual = 0.0;
  int unlisted = 0;  // answers' joints on a limit's boundary, not listed

  void Add(const PathFigures& path) {
    steps += path.steps;
    flagged += path.flagged;
    singular += path.singular;
    snaps += path.snaps;
    largest_ratio = std::max(largest_ratio, path.largest_ratio);
    largest_residual = std::max(largest_residual, path.largest_residual);
    unlisted += path.unlisted;
  }
};

// Whether the ball-and-socket `joint` at local rotation `rotation` sits on
// its limit's boundary within 1e-10 rad: its bone on the cone's edge, or
// its twist about the bone at an end of the range (the swing-twist split
// computed here, apart from the core's).
bool OnBallSocketBoundary(const JointDefinition& joint, const Quat& rotation) {
  const BallSocketLimit& ball = joint.limit.ball_socket;
  const Quat relative = glm::conjugate(joint.rest.rotation) * rotation;
  const Vec3 bone = relative * ball.twist_axis;
  if (std::abs(AngleBetween(bone, ball.axis) - ball.swing_max) < 1e-10) {
    return true;
  }
  if (!ball.has_twist) return false;
  const double along = glm::dot(Vec3(relative.x, relative.y, relative.z),
                                glm::normalize(ball.twist_axis));
  const double twist =
      std::remainder(2.0 * std::atan2(along, relative.w), 2.0 * kPi);
  return std::abs(twist - ball.twist.min) < 1e-10 ||
         std::abs(twist - ball.twist.max) < 1e-10;
}

// What one path runs: the chain, its solver, a pole or none, the incoming
// pose.
struct PathCase {
  const Rig* rig = nullptr;
  const Chain* chain = nullptr;
  std::optional<SolverKind> solver;
  std::optional<Vec3> pole_offset;  // from the chain's root
  Incoming incoming = Incoming::kWarm;
  bool history_free = false;
};

PathFigures FollowPath(const PathCase& c, std::mt19937_64& engine) {
  const Rig& rig = *c.rig;
  const Chain& chain = *c.chain;
  const InLimitPair path = SmoothInLimitPair(rig, chain, engine);
  const std::vector<Quat> fixed = InLimitRotations(rig, chain, engine);
  const InLimitPair animation = SmoothInLimitPair(rig, chain, engine);
  const int tip = chain.joints.back();
  const auto target_at = [&](double t) {
    return testing::ModelTransforms(
               rig, Between(rig, chain, path.from, path.to, t))[tip]
        .translation;
  };
  // Steps of at most 1.5 cm (measured along a fine sampling of the path).
  double length = 0.0;
  for (int i = 0; i < 400; ++i) {
    length += glm::length(target_at((i + 1) / 400.0) - target_at(i / 400.0));
  }
  const int steps = std::max(100, static_cast<int>(std::ceil(length / 0.015)));
  const Vec3 root =
      testing::ModelTransforms(rig, rig.rest_pose())[chain.joints[0]]
          .translation;
  ChainGoal goal;
  goal.chain = &chain;
  goal.solver = c.solver;
  goal.history_free = c.history_free;
  if (c.pole_offset.has_value()) goal.pole_world = root + *c.pole_offset;
  testing::ChainSolveRunner solver(rig);
  PathFigures figures;
  std::vector<Transform> answer = Between(rig, chain, path.from, path.to, 0.0);
  std::vector<Quat> before;
  Vec3 target_before(0.0);
  bool flagged_before = false;
  bool singular_before = false;
  for (int i = 0; i <= steps; ++i) {
    const double t = static_cast<double>(i) / steps;
    goal.target_world = target_at(t);
    std::vector<Transform> locals =
        c.incoming == Incoming::kWarm ? answer
        : c.incoming == Incoming::kFixed
            ? Between(rig, chain, fixed, fixed, 0.0)
        : c.incoming == Incoming::kAnimated
            ? Between(rig, chain, animation.from, animation.to, t)
            : NearTheGoal(rig, chain, path, animation, t);
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(goal, Transform(), absl::MakeSpan(locals));
    EXPECT_TRUE(result.ok()) << result.status();
    if (!result.ok()) return figures;
    figures.largest_residual =
        std::max(figures.largest_residual, result->report.residual);
    for (int k = 0; k < Turned(chain); ++k) {
      const JointDefinition& joint = rig.joint(chain.joints[k]);
      if (joint.limit.kind == JointLimit::Kind::kBallSocket &&
          OnBallSocketBoundary(joint, locals[chain.joints[k]].rotation) &&
          std::find(result->limited_joints.begin(),
                    result->limited_joints.end(),
                    chain.joints[k]) == result->limited_joints.end()) {
        ++figures.unlisted;
      }
    }
    std::vector<Quat> now;
    for (int k = 0; k < Turned(chain); ++k) {
      now.push_back(locals[chain.joints[k]].rotation);
    }
    if (i > 0) {
      const double target_step =
          AngleBetween(target_before - root, goal.target_world - root);
      const double bound = std::max(3.0 * target_step, 5.0 * kPi / 180.0);
      double turn = 0.0;
      for (int k = 0; k < Turned(chain); ++k) {
        turn = std::max(turn, RotationAngle(before[k], now[k]));
      }
      ++figures.steps;
      // A jump sits next to a flagged answer on either side of the step.
      const bool flagged = flagged_before || result->report.branch_switch;
      const bool singular = singular_before || result->near_singularity;
      figures.flagged += result->report.branch_switch;
      if (flagged) {
        // excused
      } else if (singular) {
        ++figures.singular;
      } else {
        figures.snaps += turn > bound;
        figures.largest_ratio = std::max(figures.largest_ratio, turn / bound);
      }
    }
    flagged_before = result->report.branch_switch;
    singular_before = result->near_singularity;
    before = now;
    target_before = goal.target_world;
    answer = locals;
  }
  return figures;
}

// 20 seeded paths of `c` (its incoming mode and pole as given), the figures
// printed.
PathFigures FollowPaths(PathCase c, const char* label) {
  std::mt19937_64 engine(20261127);
  PathFigures all;
  for (int path = 0; path < 20; ++path) all.Add(FollowPath(c, engine));
  std::printf(
      "[ path ] %-22s %-8s %-7s: %d steps, %d flagged, %d near a singular "
      "direction, %d others over the bound (largest %.2f x), largest "
      "residual %.2g m, %d joints on a limit unlisted\n",
      label, kIncomingNames[static_cast<int>(c.incoming)],
      c.pole_offset.has_value() ? "pole" : "no pole", all.steps, all.flagged,
      all.singular, all.snaps, all.largest_ratio, all.largest_residual,
      all.unlisted);
  return all;
}

// A two-bone path case: `chain` of `rig`, with the pole at `pole_offset`
// from its root when `with_pole`.
PathCase TwoBoneCase(const Rig& rig, const Chain& chain,
                     const Vec3& pole_offset, bool with_pole,
                     Incoming incoming) {
  PathCase c;
  c.rig = &rig;
  c.chain = &chain;
  c.solver = SolverKind::kTwoBone;
  if (with_pole) c.pole_offset = pole_offset;
  c.incoming = incoming;
  return c;
}

class TwoBonePathTest : public ::testing::TestWithParam<const char*> {};

// The two-bone limbs: exact on every step; a step over the bound has a
// flagged answer or one near a singular direction, up to the rates of arc
// ends near tangency, of the shortest-arc swing from poses far from the
// target and of the pole's plane just outside the flip warning (under 2 x
// the bound; without a pole, warm or near the goal, under 1 x); flagged answers
// (no allowed arc holds the incoming swivel) stay within 1 % of the steps, with
// an animation near the goal too.
TEST_P(TwoBonePathTest, ExactAlongSmoothPaths) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok());
  const Chain& chain = *rig->FindChain(GetParam());
  // A pole where the middle joint points: behind an elbow, before a knee
  // (the humanoid faces +z; its legs are the limbs whose tip is lower).
  const std::vector<Transform> rest =
      testing::ModelTransforms(*rig, rig->rest_pose());
  const bool leg = rest[chain.joints[2]].translation.y <
                   rest[chain.joints[0]].translation.y - 0.5;
  for (const Incoming incoming : {Incoming::kWarm, Incoming::kFixed,
                                  Incoming::kAnimated, Incoming::kNear}) {
    for (const bool with_pole : {false, true}) {
      const PathFigures all = FollowPaths(
          TwoBoneCase(*rig, chain, Vec3(0.0, -0.5, leg ? 0.5 : -0.5), with_pole,
                      incoming),
          GetParam());
      EXPECT_LE(all.largest_residual, 1e-6);
      EXPECT_LT(all.largest_ratio, 2.0);
      // Without a pole, fed the previous answer or an animation near the
      // goal: within the bound itself.
      if (!with_pole &&
          (incoming == Incoming::kWarm || incoming == Incoming::kNear)) {
        EXPECT_LT(all.largest_ratio, 1.0);
      }
      EXPECT_LE(all.flagged, all.steps / 100);
      EXPECT_EQ(all.unlisted, 0);
    }
  }
}

// The same paths with the history-free choice (the allowed solution nearest
// the pole's or bend plane): the harness sees the snaps the rule removes.
TEST(TwoBonePathTest, TheHistoryFreeChoiceSnapsOnTheSamePaths) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok());
  const Chain& chain = *rig->FindChain("right_arm");
  double largest = 0.0;
  for (const Incoming incoming :
       {Incoming::kWarm, Incoming::kFixed, Incoming::kAnimated}) {
    for (const bool with_pole : {false, true}) {
      PathCase c =
          TwoBoneCase(*rig, chain, Vec3(0.0, -0.5, -0.5), with_pole, incoming);
      c.history_free = true;
      largest = std::max(
          largest, FollowPaths(c, "right_arm history-free").largest_ratio);
    }
  }
  EXPECT_GT(largest, 10.0);
}

// The same limbs without limits (targets from free poses): exact, none
// flagged (no limit closes an arc), and every step away from the singular
// directions -- the free middle joint's included: the incoming limb near
// straight, where the plane it bends in flips -- under 4 x the bound (the
// largest, 3.6 x, the shortest-arc swing of an animated leg 14 degrees from
// the direction opposite it, just outside the 10 degree warning); fed the
// previous answer or an animation near the goal, without a pole, within
// the bound itself.
TEST_P(TwoBonePathTest, FreeLimbsStayWithinTheBound) {
  absl::StatusOr<Rig> rig =
      Rig::Create(WithoutLimits(testing::HumanoidRigDefinition()));
  ASSERT_TRUE(rig.ok());
  const Chain& chain = *rig->FindChain(GetParam());
  const std::vector<Transform> rest =
      testing::ModelTransforms(*rig, rig->rest_pose());
  const bool leg = rest[chain.joints[2]].translation.y <
                   rest[chain.joints[0]].translation.y - 0.5;
  const std::string label = std::string(GetParam()) + " free";
  for (const Incoming incoming : {Incoming::kWarm, Incoming::kFixed,
                                  Incoming::kAnimated, Incoming::kNear}) {
    for (const bool with_pole : {false, true}) {
      const PathFigures all = FollowPaths(
          TwoBoneCase(*rig, chain, Vec3(0.0, -0.5, leg ? 0.5 : -0.5), with_pole,
                      incoming),
          label.c_str());
      EXPECT_LE(all.largest_residual, 1e-6);
      EXPECT_LT(all.largest_ratio, 4.0);
      if (!with_pole &&
          (incoming == Incoming::kWarm || incoming == Incoming::kNear)) {
        EXPECT_LT(all.largest_ratio, 1.0);
      }
      EXPECT_EQ(all.flagged, 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Limbs, TwoBonePathTest,
                         ::testing::Values("left_arm", "right_arm", "left_leg",
                                           "right_leg"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

// The two-bone solver's own plane flips where the target lies opposite the
// limb's root -> tip (keeping the incoming bend plane is a shortest-arc
// swing) and where a pole crosses the root -> target line: targets at the
// rest limb's own distance (so the bend stays as it came) turned by a known
// angle from those directions report that angle, and flag it within the
// chain's flip_warning_angle.
TEST(TwoBoneSingularityTest, ReportsTheSingularDirectionsOfItsOwnPlane) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok());
  for (const char* name : {"left_arm", "right_leg"}) {
    const Chain& chain = *rig->FindChain(name);
    const std::vector<Transform> model =
        testing::ModelTransforms(*rig, rig->rest_pose());
    const Vec3 root = model[chain.joints[0]].translation;
    const Vec3 limb = model[chain.joints[2]].translation - root;
    const Vec3 across = glm::normalize(glm::cross(limb, Vec3(0.3, 0.5, 0.8)));
    testing::ChainSolveRunner solver(*rig);
    for (const double angle : {0.02, 0.1, 0.3, 1.0}) {
      // Opposite the rest limb, turned by `angle`.
      ChainGoal goal;
      goal.chain = &chain;
      goal.target_world = root + AngleAxis(angle, across) * -limb;
      std::vector<Transform> locals(rig->rest_pose().begin(),
                                    rig->rest_pose().end());
      absl::StatusOr<ChainSolveResult> result =
          solver.Solve(goal, Transform(), absl::MakeSpan(locals));
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_NEAR(result->singularity_angle, angle, 1e-6) << name;
      EXPECT_EQ(result->near_singularity, angle <= chain.flip_warning_angle)
          << name << " " << angle;
      // A pole on the line through the root, turned by angle / 2 (nearer
      // than the opposite direction), towards a target along the limb.
      goal.target_world = root + limb;
      goal.pole_world = root + AngleAxis(0.5 * angle, across) * (-0.5 * limb);
      locals.assign(rig->rest_pose().begin(), rig->rest_pose().end());
      result = solver.Solve(goal, Transform(), absl::MakeSpan(locals));
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_NEAR(result->singularity_angle, 0.5 * angle, 1e-6) << name;
    }
  }
}

// A middle joint without a hinge bends in the incoming limb's plane: an
// incoming limb bent by a small angle from straight (or from folded)
// reports that angle, and within the warning angle near_singularity; a
// hinge bends about its axis and reports none of it.
TEST(TwoBoneSingularityTest, ReportsAnIncomingLimbNearStraight) {
  absl::StatusOr<Rig> free_rig =
      Rig::Create(WithoutLimits(testing::HumanoidRigDefinition()));
  absl::StatusOr<Rig> hinged = testing::HumanoidRig();
  ASSERT_TRUE(free_rig.ok());
  ASSERT_TRUE(hinged.ok());
  for (const Rig* rig : {&*free_rig, &*hinged}) {
    const Chain& chain = *rig->FindChain("left_arm");
    const int mid = chain.joints[1];
    // Across the upper arm (along +x in the shoulder's frame).
    const Vec3 axis = glm::normalize(Vec3(0.0, -1.0, 0.2));
    testing::ChainSolveRunner solver(*rig);
    for (const double bend : {0.02, 0.1, kPi - 0.05, 0.6}) {
      std::vector<Transform> locals(rig->rest_pose().begin(),
                                    rig->rest_pose().end());
      const JointDefinition& elbow = rig->joint(mid);
      // The elbow straight (its bone along the upper arm's), then bent
      // about an axis across both.
      const Vec3 lower = rig->joint(chain.joints[2]).rest.translation;
      locals[mid].rotation =
          AngleAxis(bend, axis) * FromTo(lower, elbow.rest.translation);
      const std::vector<Transform> model =
          testing::ModelTransforms(*rig, locals);
      ChainGoal goal;
      goal.chain = &chain;
      // A target well inside the reach, off the limb's singular directions.
      goal.target_world =
          model[chain.joints[0]].translation + Vec3(0.1, -0.3, 0.25);
      absl::StatusOr<ChainSolveResult> result =
          solver.Solve(goal, Transform(), absl::MakeSpan(locals));
      ASSERT_TRUE(result.ok()) << result.status();
      const double from_line = std::min(bend, kPi - bend);
      if (rig == &*free_rig) {
        EXPECT_NEAR(result->singularity_angle, from_line, 1e-9) << bend;
        EXPECT_EQ(result->near_singularity,
                  from_line <= chain.flip_warning_angle)
            << bend;
      } else {
        EXPECT_GT(result->singularity_angle, chain.flip_warning_angle) << bend;
      }
    }
  }
}

// The iterative solvers along the same paths: the clavicle arm (four
// joints) with FABRIK, CCD and torque, and the tail with each. Every
// solver reaches every target within the chain's tolerance (where one stops
// short it retries: the answer may name another solver) and every joint an
// answer leaves on its limit is in limited_joints. On the arm flagged
// answers stay rare, and fed their previous answer its solvers keep its
// last limb's swivel: no step over twice the bound (the history-free
// choice, below, flips it). The snaps are measured and printed
// (docs/accuracy.md).
TEST(IterativePathTest, FollowsSmoothPaths) {
  absl::StatusOr<Rig> humanoid = testing::HumanoidRig();
  ASSERT_TRUE(humanoid.ok());
  absl::StatusOr<Rig> tail = Rig::Create(testing::TailRigDefinition());
  ASSERT_TRUE(tail.ok());
  struct Named {
    const Rig* rig;
    const char* chain;
  };
  for (const Named named :
       {Named{&*humanoid, "left_arm_clavicle"}, Named{&*tail, "tail"}}) {
    const Chain& chain = *named.rig->FindChain(named.chain);
    for (const SolverKind solver :
         {SolverKind::kFabrik, SolverKind::kCcd, SolverKind::kTorque}) {
      for (const Incoming incoming : {Incoming::kWarm, Incoming::kFixed,
                                      Incoming::kAnimated, Incoming::kNear}) {
        PathCase c;
        c.rig = named.rig;
        c.chain = &chain;
        c.solver = solver;
        c.incoming = incoming;
        const std::string label = std::string(named.chain) +
                                  (solver == SolverKind::kFabrik ? " fabrik"
                                   : solver == SolverKind::kCcd  ? " ccd"
                                                                 : " torque");
        const PathFigures all = FollowPaths(c, label.c_str());
        // Every solver from every start: where one stops short it retries
        // (the torque solver with the last limb aimed at the target, then
        // FABRIK finishing from its answer).
        EXPECT_LE(all.largest_residual, chain.tolerance + 1e-9) << label;
        EXPECT_EQ(all.unlisted, 0) << label;
        if (named.rig == &*humanoid) {
          EXPECT_LE(all.flagged, all.steps / 50) << label;
          if (incoming == Incoming::kWarm) {
            EXPECT_LT(all.largest_ratio, 2.0) << label;
          }
        }
      }
    }
  }
}

// FABRIK on the clavicle arm fed its previous answer, history-free: the
// iterations' own turn of the last limb about its root -> tip axis drifts
// and flips, the snaps the continuity rule removes.
TEST(IterativePathTest, TheHistoryFreeChoiceSnapsOnTheSamePaths) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok());
  PathCase c;
  c.rig = &*rig;
  c.chain = rig->FindChain("left_arm_clavicle");
  c.solver = SolverKind::kFabrik;
  c.history_free = true;
  EXPECT_GT(
      FollowPaths(c, "left_arm_clavicle history-free fabrik").largest_ratio,
      5.0);
}

}  // namespace
}  // namespace ik
