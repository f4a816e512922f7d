// The harness of the path tests (two_bone_path_test.cc, chain_path_test.cc):
// seeded paths of targets made by in-limit poses moving smoothly (so every
// target is reachable within the limits; steps of at most 1.5 cm), followed
// by a chain's solver with the incoming pose the previous answer ("warm"), a
// fixed in-limit pose, a separate smooth in-limit animation that eases in
// and out (there and back), or an animation near the goal (the pose that
// makes the target, each joint turned further by a smooth offset: what IK
// corrects in a game). A step's bound is max(3 x (the target's angular
// step + the incoming tip's angular step) about the chain's root,
// 5 degrees) plus the largest turn of a joint of the incoming pose (both
// none for the previous answer fed back); it counts as a snap when a joint
// turns by more than that and neither answer of the step says
// branch_switch nor has its EE axis near a singular direction of its plane
// (near_singularity); "flagged" counts the steps whose answer says
// branch_switch. FollowPaths prints the figures docs/accuracy.md quotes.
#ifndef IK_TESTS_CORE_CHAIN_PATHS_H_
#define IK_TESTS_CORE_CHAIN_PATHS_H_

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "ik/base/joint_limits.h"
#include "ik/rig/rig.h"
#include "ik/rig/solve_chain.h"
#include "independent_checks.h"
#include "random_poses.h"
#include "solve_chain_runner.h"

namespace ik::testing {

// The angle, radians, between two directions (atan2 of the cross and dot
// products: accurate for small angles).
inline double AngleBetween(const Vec3& a, const Vec3& b) {
  return std::atan2(glm::length(glm::cross(a, b)), glm::dot(a, b));
}

enum class Incoming { kWarm, kFixed, kAnimated, kNear };
inline constexpr const char* kIncomingNames[] = {"warm", "fixed", "animated",
                                                 "near"};

// The joints a chain solve turns: all but the tip.
inline int Turned(const Chain& chain) {
  return static_cast<int>(chain.joints.size()) - 1;
}

// `definition` with every joint's limit removed: the same skeleton and
// chains, free.
inline RigDefinition WithoutLimits(RigDefinition definition) {
  for (JointDefinition& joint : definition.joints) joint.limit = JointLimit();
  return definition;
}

// The chain's turned joints within their limits.
inline std::vector<Quat> InLimitRotations(const Rig& rig, const Chain& chain,
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
inline std::vector<Transform> Between(const Rig& rig, const Chain& chain,
                                      const std::vector<Quat>& from,
                                      const std::vector<Quat>& to, double t) {
  std::vector<Transform> pose(rig.rest_pose().begin(), rig.rest_pose().end());
  for (int k = 0; k < Turned(chain); ++k) {
    pose[chain.joints[k]].rotation =
        glm::normalize(glm::slerp(from[k], to[k], t));
  }
  return pose;
}

// An animation's phase at `t` in [0, 1]: there and back, easing in and out
// as an engine's clips do (still at the ends and the turn, up to pi / 2 times
// its mean rate between them).
inline double Eased(double t) { return 0.5 - 0.5 * std::cos(2.0 * kPi * t); }

// Two in-limit poses of the chain whose slerps stay within the limits all
// the way (checked at 65 points): a path that needs no clamp, so smooth.
struct InLimitPair {
  std::vector<Quat> from, to;
};
inline InLimitPair SmoothInLimitPair(const Rig& rig, const Chain& chain,
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
inline std::vector<Transform> NearTheGoal(const Rig& rig, const Chain& chain,
                                          const InLimitPair& path,
                                          const InLimitPair& animation,
                                          double t) {
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
  // Of those whose answers are both further than the case's clearance from
  // a singular direction (singularity_angle).
  double largest_clear_ratio = 0.0;
  double largest_residual = 0.0;
  int unlisted = 0;  // answers' joints on a limit's boundary, not listed

  void Add(const PathFigures& path) {
    steps += path.steps;
    flagged += path.flagged;
    singular += path.singular;
    snaps += path.snaps;
    largest_ratio = std::max(largest_ratio, path.largest_ratio);
    largest_clear_ratio =
        std::max(largest_clear_ratio, path.largest_clear_ratio);
    largest_residual = std::max(largest_residual, path.largest_residual);
    unlisted += path.unlisted;
  }
};

// Whether the ball-and-socket `joint` at local rotation `rotation` sits on
// its limit's boundary within 1e-10 rad: its bone on the cone's edge, or
// its twist about the bone at an end of the range (the swing-twist split
// computed here, apart from the core's).
inline bool OnBallSocketBoundary(const JointDefinition& joint,
                                 const Quat& rotation) {
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
  double clearance = 20.0 * kPi / 180.0;  // for largest_clear_ratio
};

inline PathFigures FollowPath(const PathCase& c, std::mt19937_64& engine) {
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
  std::vector<Quat> incoming_before;
  Vec3 incoming_tip_before(0.0);
  Vec3 target_before(0.0);
  bool flagged_before = false;
  bool singular_before = false;
  double singularity_before = kPi;
  for (int i = 0; i <= steps; ++i) {
    const double t = static_cast<double>(i) / steps;
    goal.target_world = target_at(t);
    std::vector<Transform> locals =
        c.incoming == Incoming::kWarm ? answer
        : c.incoming == Incoming::kFixed
            ? Between(rig, chain, fixed, fixed, 0.0)
        : c.incoming == Incoming::kAnimated
            ? Between(rig, chain, animation.from, animation.to, Eased(t))
            : NearTheGoal(rig, chain, path, animation, t);
    std::vector<Quat> incoming_now;
    for (int k = 0; k < Turned(chain); ++k) {
      incoming_now.push_back(locals[chain.joints[k]].rotation);
    }
    const Vec3 incoming_tip =
        testing::ModelTransforms(rig, locals)[tip].translation;
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
      double turn = 0.0;
      double incoming_turn = 0.0;
      for (int k = 0; k < Turned(chain); ++k) {
        turn = std::max(turn, RotationAngle(before[k], now[k]));
        if (c.incoming != Incoming::kWarm) {
          incoming_turn =
              std::max(incoming_turn,
                       RotationAngle(incoming_before[k], incoming_now[k]));
        }
      }
      const double incoming_tip_step =
          c.incoming == Incoming::kWarm
              ? 0.0
              : AngleBetween(incoming_tip_before - root, incoming_tip - root);
      const double bound =
          std::max(3.0 * (target_step + incoming_tip_step), 5.0 * kPi / 180.0) +
          incoming_turn;
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
        if (std::min(singularity_before, result->singularity_angle) >
            c.clearance) {
          figures.largest_clear_ratio =
              std::max(figures.largest_clear_ratio, turn / bound);
        }
      }
    }
    flagged_before = result->report.branch_switch;
    singular_before = result->near_singularity;
    singularity_before = result->singularity_angle;
    before = now;
    incoming_before = incoming_now;
    incoming_tip_before = incoming_tip;
    target_before = goal.target_world;
    answer = locals;
  }
  return figures;
}

// 20 seeded paths of `c` (its incoming mode and pole as given), the figures
// printed.
inline PathFigures FollowPaths(PathCase c, const char* label) {
  std::mt19937_64 engine(20261127);
  PathFigures all;
  for (int path = 0; path < 20; ++path) all.Add(FollowPath(c, engine));
  std::printf(
      "[ path ] %-22s %-8s %-7s: %d steps, %d flagged, %d near a singular "
      "direction, %d others over the bound (largest %.2f x, %.2f x %.0f deg "
      "clear of one), largest residual %.2g m, %d joints on a limit "
      "unlisted\n",
      label, kIncomingNames[static_cast<int>(c.incoming)],
      c.pole_offset.has_value() ? "pole" : "no pole", all.steps, all.flagged,
      all.singular, all.snaps, all.largest_ratio, all.largest_clear_ratio,
      c.clearance * 180.0 / kPi, all.largest_residual, all.unlisted);
  return all;
}

// A two-bone path case: `chain` of `rig`, with the pole at `pole_offset`
// from its root when `with_pole`.
inline PathCase TwoBoneCase(const Rig& rig, const Chain& chain,
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

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_CHAIN_PATHS_H_
