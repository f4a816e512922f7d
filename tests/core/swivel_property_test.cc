// Seeded properties of solves with a swivel angle on the example humanoid,
// for every solver, with and without joint limits: sweeps through a full
// turn, history independence, continuity along paths away from the
// singular directions, and the flip flag where paths cross them. Figures
// are printed for the README.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "ik/rig/solve_chain.h"
#include "ik/solvers/swivel.h"
#include "random_poses.h"
#include "swivel_fixtures.h"

namespace ik::testing {
namespace {

Vec3 DirectionAwayFromPoles(const ZeroPlaneMap& map, double min_angle,
                            std::mt19937_64& engine) {
  Vec3 direction = RandomDirection(engine);
  while (AngleToSingularity(map, direction) < min_angle) {
    direction = RandomDirection(engine);
  }
  return direction;
}

double ArcAngle(const Vec3& from, const Vec3& to) {
  return std::atan2(glm::length(glm::cross(from, to)), glm::dot(from, to));
}

// Turns unit `from` towards unit `to` along their great circle by the
// fraction `t`.
Vec3 AlongArc(const Vec3& from, const Vec3& to, double t) {
  return AngleAxis(ArcAngle(from, to) * t,
                   glm::normalize(glm::cross(from, to))) *
         from;
}

TEST_F(SwivelSolveTest, ASweepTurnsTheMiddleJointsOnCirclesAboutTheEEAxis) {
  constexpr int kSteps = 72;
  std::mt19937_64 engine(20240601);
  std::uniform_real_distribution<double> fraction(0.4, 0.85);
  for (const Rig* rig : {&*free_rig_, &*rig_}) {
    for (const Case& c : kSwivelCases) {
      const Chain& chain = *rig->FindChain(c.chain);
      const ZeroPlaneMap& map = *chain.zero_plane_map;
      const double reach = Reach(*rig, chain);
      double residual = 0.0, radius = 0.0, step = 0.0, swivel_error = 0.0;
      int reached = 0, clean = 0, solves = 0;
      for (int trial = 0; trial < 10; ++trial) {
        const Vec3 direction = DirectionAwayFromPoles(map, 0.35, engine);
        Solver solver(*rig, Transform());
        const Vec3 target =
            solver.Target(chain, direction, fraction(engine) * reach);
        std::vector<std::vector<Vec3>> sweep;
        for (int k = 0; k <= kSteps; ++k) {
          const double swivel = 2.0 * kPi * k / kSteps;
          absl::StatusOr<ChainSolveResult> result =
              solver.Solve(chain, c.solver, target, swivel);
          ASSERT_TRUE(result.ok()) << result.status();
          ++solves;
          reached += result->report.reached;
          sweep.push_back(solver.MapPositions(chain));
          if (rig == &*rig_ && !result->limited_joints.empty()) continue;
          ++clean;
          residual = std::max(residual, result->report.residual);
          const std::optional<double> measured =
              MeasureSwivel(map, sweep.back());
          ASSERT_TRUE(measured.has_value());
          // The plane's angle: the side a zig-zag chain's offsets sum to
          // may differ from the side the solve kept (see FinishSwivel).
          const double period =
              c.solver == SolverKind::kTwoBone ? 2.0 * kPi : kPi;
          swivel_error =
              std::max(swivel_error,
                       std::abs(std::remainder(*measured - swivel, period)));
          if (k == 0 || rig == &*rig_) continue;
          // Each middle joint keeps its height along the axis and its
          // distance from it, and turns by the swivel's step about it.
          for (size_t m = 1; m + 1 < chain.joints.size(); ++m) {
            const Vec3 now = sweep[k][m] - sweep[k][0];
            const Vec3 before = sweep[k - 1][m] - sweep[k - 1][0];
            const Vec3 first = sweep[0][m] - sweep[0][0];
            auto across = [&](const Vec3& v) {
              return glm::length(v - glm::dot(v, direction) * direction);
            };
            radius = std::max({radius, std::abs(across(now) - across(first)),
                               std::abs(glm::dot(now - first, direction))});
            if (across(first) < 0.01) continue;  // the turn is ill-defined
            step = std::max(step,
                            std::abs(SignedAngleAbout(before, now, direction) -
                                     2.0 * kPi / kSteps));
          }
        }
      }
      std::printf(
          "%s %-18s %-7s: %d/%d sweep answers reach the target, %d free of "
          "limits; of those: residual <= %.2g m, swivel error <= %.2g rad, "
          "circle error <= %.2g m, step error <= %.2g rad\n",
          rig == &*rig_ ? "limited" : "free   ", c.chain,
          c.solver == SolverKind::kTwoBone  ? "2-bone"
          : c.solver == SolverKind::kFabrik ? "FABRIK"
                                            : "CCD",
          reached, solves, clean, residual, swivel_error, radius, step);
      EXPECT_LE(residual, chain.tolerance) << c.chain;
      if (rig == &*free_rig_) {
        EXPECT_EQ(reached, solves) << c.chain;
        const bool two_bone = c.solver == SolverKind::kTwoBone;
        EXPECT_LT(swivel_error, two_bone ? 1e-9 : 0.02) << c.chain;
        EXPECT_LT(radius, two_bone ? 1e-9 : 4.0 * chain.tolerance) << c.chain;
        EXPECT_LT(step, two_bone ? 1e-9 : 0.02) << c.chain;
      } else {
        EXPECT_LT(swivel_error, 0.02) << c.chain;
      }
    }
  }
}

TEST_F(SwivelSolveTest, AnswersDependOnlyOnTheRequestNotOnEarlierSolves) {
  std::mt19937_64 engine(77031);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int compared = 0;
  for (const Rig* rig : {&*rig_, &*free_rig_}) {
    for (const Case& c : kSwivelCases) {
      for (SwivelSpace space :
           {SwivelSpace::kStartParent, SwivelSpace::kWorld}) {
        const Chain chain = ChainIn(*rig, c.chain, space);
        const double reach = Reach(*rig, chain);
        for (int trial = 0; trial < 25; ++trial) {
          Transform root;
          root.translation = 4.0 * (DrawVec3(unit, engine) - 0.5);
          const double angle = kPi * (2.0 * unit(engine) - 1.0);
          root.rotation = AngleAxis(angle, RandomDirection(engine));
          root.scale = Vec3(0.5 + 1.5 * unit(engine));
          const Vec3 direction = RandomDirection(engine);
          const double distance = (0.2 + 0.9 * unit(engine)) * reach;
          const double swivel = 8.0 * unit(engine) - 4.0;
          Solver fresh(*rig, root);
          Solver moved(*rig, root);
          moved.pose() = RandomChainPose(*rig, chain, rig->rest_pose(), engine);
          std::optional<double> earlier_swivel;
          if (unit(engine) < 0.5) earlier_swivel = unit(engine) * 6.0;
          const Vec3 earlier_direction = RandomDirection(engine);
          const double earlier_distance = unit(engine) * reach;
          ASSERT_TRUE(moved
                          .Solve(chain, c.solver,
                                 moved.Target(chain, earlier_direction,
                                              earlier_distance),
                                 earlier_swivel)
                          .ok());
          const Vec3 target = fresh.Target(chain, direction, distance);
          absl::StatusOr<ChainSolveResult> a =
              fresh.Solve(chain, c.solver, target, swivel);
          absl::StatusOr<ChainSolveResult> b =
              moved.Solve(chain, c.solver, target, swivel);
          ASSERT_TRUE(a.ok() && b.ok());
          const std::vector<Quat> first = fresh.Rotations(chain);
          const std::vector<Quat> second = moved.Rotations(chain);
          EXPECT_EQ(std::memcmp(first.data(), second.data(),
                                first.size() * sizeof(Quat)),
                    0)
              << c.chain << " trial " << trial;
          EXPECT_EQ(a->report.residual, b->report.residual);
          EXPECT_EQ(a->singularity_angle, b->singularity_angle);
          EXPECT_EQ(a->near_singularity, b->near_singularity);
          EXPECT_EQ(a->limited_joints, b->limited_joints);
          ++compared;
        }
      }
    }
  }
  std::printf("history independence: %d answers bit-identical\n", compared);
}

// The largest turn of any joint between consecutive answers along seeded
// smooth paths, per unit of step (EE-axis angle + distance / reach +
// swivel change, radians).
struct PathFigures {
  double largest_ratio = 0.0;
  // Over the steps between two answers that no limit held.
  double largest_free_ratio = 0.0;
  int limited = 0;  // answers with a joint held at its limit
  double largest_turn = 0.0;
  bool largest_turn_flagged = false;
  int flagged = 0;
  int solves = 0;
};

PathFigures FollowPath(const Rig& rig, const Chain& chain, SolverKind kind,
                       const Vec3& from, const Vec3& to, double distance_from,
                       double distance_to, double swivel_from, double swivel_to,
                       int steps) {
  PathFigures figures;
  const double reach = Reach(rig, chain);
  Solver solver(rig, Transform());
  std::vector<Quat> before;
  bool before_flagged = false;
  bool before_limited = false;
  for (int i = 0; i <= steps; ++i) {
    const double t = static_cast<double>(i) / steps;
    absl::StatusOr<ChainSolveResult> result = solver.Solve(
        chain, kind,
        solver.Target(chain, AlongArc(from, to, t),
                      distance_from + t * (distance_to - distance_from)),
        swivel_from + t * (swivel_to - swivel_from));
    EXPECT_TRUE(result.ok()) << result.status();
    if (!result.ok()) return figures;
    ++figures.solves;
    figures.flagged += result->near_singularity;
    const bool limited = !result->limited_joints.empty();
    figures.limited += limited;
    const std::vector<Quat> now = solver.Rotations(chain);
    if (i > 0) {
      const double step =
          ArcAngle(from, to) / steps +
          std::abs(distance_to - distance_from) / steps / reach +
          std::abs(swivel_to - swivel_from) / steps;
      double turn = 0.0;
      for (size_t k = 0; k + 1 < now.size(); ++k) {
        turn = std::max(turn, RotationAngle(before[k], now[k]));
      }
      figures.largest_ratio = std::max(figures.largest_ratio, turn / step);
      if (!limited && !before_limited) {
        figures.largest_free_ratio =
            std::max(figures.largest_free_ratio, turn / step);
      }
      if (turn > figures.largest_turn) {
        figures.largest_turn = turn;
        figures.largest_turn_flagged =
            before_flagged || result->near_singularity;
      }
    }
    before = now;
    before_flagged = result->near_singularity;
    before_limited = limited;
  }
  return figures;
}

const char* SolverName(SolverKind kind) {
  return kind == SolverKind::kTwoBone  ? "2-bone"
         : kind == SolverKind::kFabrik ? "FABRIK"
                                       : "CCD";
}

// The paths' EE axes stay this far from the singular directions.
constexpr double kPathPoleAngle = 20.0 * kPi / 180.0;
// A joint turns at most this many radians per radian of step along them
// (step: EE-axis angle + distance / reach + swivel change). Measured, the
// same with GCC and clang (the draws are sequenced): 1.9 for the two-bone
// solver, 12.9 for FABRIK and 73.5 for CCD. CCD's sweep solves the shoulder
// and elbow exactly (its two-bone step) whenever the target is within the
// arm's reach from the unmoved clavicle, and near that arm's full stretch
// the elbow's bend changes fast with the distance (a singularity of the
// two-bone map, as the plane's poles are of the swivel): one step of 0.37
// degrees turns the shoulder 27 degrees. So FABRIK and CCD exceed 3 radians
// per radian of step; a flip still stands out, turning joints by half a turn
// in one step.
double TurnPerStep(SolverKind kind) {
  return kind == SolverKind::kTwoBone  ? 4.0
         : kind == SolverKind::kFabrik ? 20.0
                                       : 110.0;
}

TEST_F(SwivelSolveTest, SmoothPathsAwayFromTheSingularDirectionsNeverFlip) {
  std::mt19937_64 engine(4242);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const Rig* rig : {&*free_rig_, &*rig_}) {
    const bool limited = rig == &*rig_;
    for (const Case& c : kSwivelCases) {
      const Chain& chain = *rig->FindChain(c.chain);
      const ZeroPlaneMap& map = *chain.zero_plane_map;
      const double reach = Reach(*rig, chain);
      // Limits clamp turns of their own; within them the swivel is tame.
      const double swivel_range = limited ? 0.5 : kPi;
      PathFigures all;
      for (int path = 0; path < 20; ++path) {
        Vec3 from;
        Vec3 to;
        bool away = false;
        while (!away) {
          from = DirectionAwayFromPoles(map, kPathPoleAngle, engine);
          to = DirectionAwayFromPoles(map, kPathPoleAngle, engine);
          away = ArcAngle(from, to) < kPi / 2;
          for (int i = 0; away && i <= 90; ++i) {
            away = AngleToSingularity(map, AlongArc(from, to, i / 90.0)) >=
                   kPathPoleAngle;
          }
        }
        // Drawn in order (as arguments, the compiler would pick the order).
        const double distance_from = (0.45 + 0.4 * unit(engine)) * reach;
        const double distance_to = (0.45 + 0.4 * unit(engine)) * reach;
        const double swivel_from = swivel_range * (2.0 * unit(engine) - 1.0);
        const double swivel_to = swivel_range * (2.0 * unit(engine) - 1.0);
        const PathFigures figures =
            FollowPath(*rig, chain, c.solver, from, to, distance_from,
                       distance_to, swivel_from, swivel_to, 100);
        all.largest_ratio = std::max(all.largest_ratio, figures.largest_ratio);
        all.largest_free_ratio =
            std::max(all.largest_free_ratio, figures.largest_free_ratio);
        all.limited += figures.limited;
        all.largest_turn = std::max(all.largest_turn, figures.largest_turn);
        all.flagged += figures.flagged;
        all.solves += figures.solves;
      }
      std::printf(
          "%s %-18s %-6s: %d answers on 20 paths >= 20 deg from the singular "
          "directions, %d flagged, %d held by a limit; largest joint turn "
          "%.1f deg in one step, %.1f rad per rad of step (%.1f between "
          "answers free of limits)\n",
          limited ? "limited" : "free   ", c.chain, SolverName(c.solver),
          all.solves, all.flagged, all.limited, all.largest_turn * 180.0 / kPi,
          all.largest_ratio, all.largest_free_ratio);
      EXPECT_EQ(all.flagged, 0) << c.chain;
      // Limits clamp with turns of their own (a swing-twist clamp jumps
      // where the swing nears a half turn); between answers no limit holds,
      // the bound applies with limits too.
      EXPECT_LT(all.largest_free_ratio, TurnPerStep(c.solver)) << c.chain;
      if (!limited) {
        EXPECT_EQ(all.largest_ratio, all.largest_free_ratio);
      }
    }
  }
}

TEST_F(SwivelSolveTest, TheFlipFlagMarksWhereThePlaneFlips) {
  std::mt19937_64 engine(1717);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const Case& c : kSwivelCases) {
    const Chain& chain = *free_rig_->FindChain(c.chain);
    const ZeroPlaneMap& map = *chain.zero_plane_map;
    const double reach = Reach(*free_rig_, chain);
    double smallest_flip = kPi;
    for (int path = 0; path < 10; ++path) {
      // Along a meridian through a pole, from 40 degrees on one side to 40
      // on the other.
      const Vec3 pole = unit(engine) < 0.5 ? map.normal : -map.normal;
      const Vec3 side =
          glm::normalize(glm::cross(pole, RandomDirection(engine)));
      const double offset = 40.0 * kPi / 180.0;
      const double swivel = kPi * (2.0 * unit(engine) - 1.0);
      const PathFigures figures =
          FollowPath(*free_rig_, chain, c.solver,
                     std::cos(offset) * pole + std::sin(offset) * side,
                     std::cos(offset) * pole - std::sin(offset) * side,
                     0.6 * reach, 0.6 * reach, swivel, swivel, 160);
      EXPECT_TRUE(figures.largest_turn_flagged) << c.chain;
      EXPECT_GT(figures.largest_ratio, TurnPerStep(c.solver)) << c.chain;
      // The 41 answers within 10 degrees of the pole, give or take the two
      // on the boundary.
      EXPECT_GE(figures.flagged, 39) << c.chain;
      EXPECT_LE(figures.flagged, 41) << c.chain;
      smallest_flip = std::min(smallest_flip, figures.largest_turn);
    }
    std::printf(
        "%-18s %-6s: crossing a singular direction, the largest joint turn "
        "in one 0.5 deg step is >= %.1f deg, always at a flagged answer\n",
        c.chain, SolverName(c.solver), smallest_flip * 180.0 / kPi);
  }

  // Uniformly random EE axes: two caps of 10 degrees, 1 - cos(10 deg) of
  // the sphere.
  const Chain& arm = *rig_->FindChain("left_arm");
  Solver solver(*rig_, Transform());
  constexpr int kSamples = 20000;
  int flagged = 0;
  for (int i = 0; i < kSamples; ++i) {
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(arm, SolverKind::kTwoBone,
                     solver.Target(arm, RandomDirection(engine), 0.4), 0.0);
    ASSERT_TRUE(result.ok()) << result.status();
    flagged += result->near_singularity;
  }
  const double rate = static_cast<double>(flagged) / kSamples;
  const double expected = 1.0 - std::cos(kDefaultFlipWarningAngle);
  std::printf(
      "flip flag on %.2f%% of uniformly random EE axes (%.2f%% of the "
      "sphere is within 10 deg of a singular direction)\n",
      100.0 * rate, 100.0 * expected);
  EXPECT_NEAR(rate, expected, 0.003);
}

}  // namespace
}  // namespace ik::testing
