// Property test of FabrikJob on two bones (three joints) without limits,
// where the first iteration is the closed form of where FABRIK's passes
// converge (ik/solvers/fabrik.h): over seeded random chains, poses and
// targets in reach, the answer is checked against textbook FABRIK on
// positions written here (from the same start, aimed as fabrik.h says, run
// until it stops moving), with forward kinematics by 4x4 matrices; and the
// shortcut taken when that iteration reaches the target is checked bit for
// bit against the iteration loop making the same iteration.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <glm/gtc/quaternion.hpp>
#include <random>
#include <vector>

#include "chain_fixtures.h"
#include "gtest/gtest.h"
#include "ik/solvers/fabrik.h"

namespace ik::testing {
namespace {

constexpr int kTriangleCases = 2000;

glm::dmat4 Matrix(const Transform& t) {
  return glm::translate(glm::dmat4(1.0), t.translation) *
         glm::mat4_cast(t.rotation) * glm::scale(glm::dmat4(1.0), t.scale);
}

// A random unit quaternion (uniform enough for a test).
Quat RandomRotation(std::mt19937_64& engine) {
  std::normal_distribution<double> normal;
  const Quat q(normal(engine), normal(engine), normal(engine), normal(engine));
  return q / std::sqrt(glm::dot(q, q));
}

Vec3 RandomDirection(std::mt19937_64& engine) {
  std::normal_distribution<double> normal;
  const Vec3 v(normal(engine), normal(engine), normal(engine));
  return v / glm::length(v);
}

// One random case: a chain with a random parent transform, bone lengths
// and pose, and a target strictly inside the ring the bones reach.
struct TriangleCase {
  Transform parent;
  std::vector<Transform> locals;
  Vec3 target{0.0};
};

TriangleCase RandomCase(std::mt19937_64& engine) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  TriangleCase out;
  out.parent.translation = Vec3(unit(engine), unit(engine), unit(engine));
  out.parent.rotation = RandomRotation(engine);
  const double l0 = 0.1 + 0.5 * unit(engine);
  const double l1 = 0.1 + 0.5 * unit(engine);
  out.locals.resize(3);
  out.locals[0].translation = Vec3(0.1, 0.2, 0.0);
  out.locals[1].translation = l0 * RandomDirection(engine);
  out.locals[2].translation = l1 * RandomDirection(engine);
  for (int i = 0; i < 3; ++i) out.locals[i].rotation = RandomRotation(engine);
  const double inner = std::abs(l0 - l1);
  const double outer = l0 + l1;
  const double distance =
      inner + (0.02 + 0.95 * unit(engine)) * (outer - inner);
  const Vec3 root =
      Vec3(Matrix(out.parent) * glm::dvec4(out.locals[0].translation, 1.0));
  out.target = root + distance * RandomDirection(engine);
  return out;
}

// Joint positions by matrices.
std::vector<Vec3> Positions(const Transform& parent,
                            const std::vector<Transform>& locals) {
  std::vector<Vec3> positions;
  glm::dmat4 world = Matrix(parent);
  for (const Transform& local : locals) {
    world = world * Matrix(local);
    positions.push_back(Vec3(world[3]));
  }
  return positions;
}

// Textbook FABRIK on positions from `p`, aimed first as fabrik.h says (a
// rigid turn about the root pointing root -> tip at the target, when the
// target is at least 99.5% as far from the root as the tip and the elbow is
// at least 1e-3 of the chain's length off the root -> tip line), until the
// elbow stops moving. Sets *ambiguous when the case sits so near one of
// those thresholds that rounding could decide it.
std::vector<Vec3> TextbookFabrik(std::vector<Vec3> p, const Vec3& target,
                                 bool* ambiguous) {
  const double l0 = glm::length(p[1] - p[0]);
  const double l1 = glm::length(p[2] - p[1]);
  const Vec3 reach = p[2] - p[0];
  const Vec3 wanted = target - p[0];
  const double ratio = glm::length(wanted) / glm::length(reach);
  const double bend = glm::length(glm::cross(p[1] - p[0], reach)) /
                      glm::length(reach) / (l0 + l1);
  *ambiguous = std::abs(ratio - 0.995) < 1e-6 || std::abs(bend - 1e-3) < 1e-6;
  if (ratio >= 0.995 && bend >= 1e-3) {
    const Vec3 axis = glm::cross(reach, wanted);
    const double angle = std::atan2(glm::length(axis), glm::dot(reach, wanted));
    const glm::dquat turn = glm::angleAxis(angle, axis / glm::length(axis));
    for (int i = 1; i < 3; ++i) p[i] = p[0] + turn * (p[i] - p[0]);
  }
  for (int iteration = 0; iteration < 1000000; ++iteration) {
    const Vec3 before = p[1];
    p[2] = target;
    p[1] = p[2] + l1 * glm::normalize(p[1] - p[2]);
    p[1] = p[0] + l0 * glm::normalize(p[1] - p[0]);
    p[2] = p[1] + l1 * glm::normalize(target - p[1]);
    if (glm::length(p[1] - before) < 1e-15 &&
        glm::length(p[2] - target) < 1e-12) {
      break;
    }
  }
  return p;
}

FabrikJob MakeJob(const TriangleCase& c, std::vector<Transform>& locals,
                  ChainWorkspace* workspace, SolveReport* report,
                  StopReason* stop) {
  FabrikJob job;
  job.parent_model = c.parent;
  job.locals = absl::MakeSpan(locals);
  job.target_model = c.target;
  job.tolerance = 1e-3;
  job.max_iterations = 300;
  job.workspace = workspace;
  job.report = report;
  job.stop_reason = stop;
  return job;
}

TEST(FabrikTrianglePropertyTest, LandsWhereTextbookFabrikConverges) {
  std::mt19937_64 engine(20261126);
  ChainWorkspace workspace;
  SolveReport report;
  StopReason stop = StopReason::kIterationCap;
  int compared = 0;
  double worst_elbow = 0.0;
  for (int i = 0; i < kTriangleCases; ++i) {
    const TriangleCase c = RandomCase(engine);
    bool ambiguous = false;
    const std::vector<Vec3> expected =
        TextbookFabrik(Positions(c.parent, c.locals), c.target, &ambiguous);
    if (ambiguous) continue;
    std::vector<Transform> locals = c.locals;
    FabrikJob job = MakeJob(c, locals, &workspace, &report, &stop);
    ASSERT_TRUE(job.Run().ok()) << "case " << i;
    const std::vector<Vec3> answer = Positions(c.parent, locals);
    ASSERT_EQ(stop, StopReason::kReached) << "case " << i;
    EXPECT_EQ(report.iterations, 1) << "case " << i;
    EXPECT_LT(glm::length(answer[2] - c.target), 1e-12) << "case " << i;
    EXPECT_NEAR(report.residual, glm::length(answer[2] - c.target), 1e-12);
    for (int k = 1; k < 3; ++k) {
      EXPECT_NEAR(glm::length(answer[k] - answer[k - 1]),
                  glm::length(c.locals[k].translation), 1e-12)
          << "case " << i << ", bone " << k;
    }
    const double elbow = glm::length(answer[1] - expected[1]);
    worst_elbow = std::max(worst_elbow, elbow);
    EXPECT_LT(elbow, 1e-7) << "case " << i;
    ++compared;
  }
  std::printf(
      "[ property ] two bones without limits: %d cases against textbook "
      "FABRIK, largest elbow difference %.3g m\n",
      compared, worst_elbow);
  EXPECT_GE(compared, kTriangleCases * 99 / 100);
}

// The shortcut that ends the solve when the closed-form iteration reaches
// the target gives the same bits as the iteration loop making that same
// iteration (forced with a zero tolerance and a cap of one iteration), and
// the same bits on every call.
TEST(FabrikTrianglePropertyTest, ShortcutMatchesTheIterationLoopBitForBit) {
  std::mt19937_64 engine(7031);
  ChainWorkspace workspace;
  SolveReport report;
  StopReason stop = StopReason::kIterationCap;
  for (int i = 0; i < kTriangleCases; ++i) {
    const TriangleCase c = RandomCase(engine);
    std::vector<Transform> shortcut = c.locals;
    FabrikJob job = MakeJob(c, shortcut, &workspace, &report, &stop);
    ASSERT_TRUE(job.Run().ok());
    ASSERT_EQ(stop, StopReason::kReached) << "case " << i;
    const SolveReport shortcut_report = report;

    std::vector<Transform> again = c.locals;
    job.locals = absl::MakeSpan(again);
    ASSERT_TRUE(job.Run().ok());
    EXPECT_EQ(std::memcmp(again.data(), shortcut.data(),
                          sizeof(Transform) * shortcut.size()),
              0)
        << "case " << i;

    std::vector<Transform> looped = c.locals;
    job.locals = absl::MakeSpan(looped);
    job.tolerance = 0.0;
    job.max_iterations = 1;
    ASSERT_TRUE(job.Run().ok());
    EXPECT_EQ(report.iterations, 1);
    EXPECT_EQ(std::memcmp(looped.data(), shortcut.data(),
                          sizeof(Transform) * shortcut.size()),
              0)
        << "case " << i;
    EXPECT_EQ(std::memcmp(&report.tip_model, &shortcut_report.tip_model,
                          sizeof(Vec3)),
              0)
        << "case " << i;
  }
}

}  // namespace
}  // namespace ik::testing
