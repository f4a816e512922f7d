// Property test of FabrikJob without limits on the 3-joint arm and the tail,
// checked with tests/core/independent_checks.h.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <glm/gtc/matrix_transform.hpp>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/rig/solve_chain.h"
#include "ik/solvers/fabrik.h"
#include "independent_checks.h"
#include "random_poses.h"
#include "tail_rig.h"

namespace ik {
namespace {

using ::ik::testing::kCases;
using ::ik::testing::kHitDistance;
using ::ik::testing::kLengthSlack;
using ::ik::testing::kRequiredHitRate;
using ::ik::testing::kSeed;
using ::ik::testing::Matrix;
using ::ik::testing::Percentiles;
using ::ik::testing::Summarize;

TEST(FabrikWithoutLimitsPropertyTest, ReachesReachableTargets) {
  for (const bool tail : {false, true}) {
    absl::StatusOr<Rig> rig =
        tail ? testing::TailRig() : testing::HumanoidRig();
    ASSERT_TRUE(rig.ok()) << rig.status();
    const Chain* chain = rig->FindChain(tail ? "tail" : "left_arm");
    ASSERT_NE(chain, nullptr);
    const std::vector<Transform> models =
        testing::ModelTransforms(*rig, rig->rest_pose());
    const int parent = rig->parents()[chain->joints[0]];
    std::vector<Transform> rest;
    for (const int joint : chain->joints) {
      rest.push_back(rig->rest_pose()[joint]);
    }
    std::vector<double> lengths;
    for (size_t k = 1; k < rest.size(); ++k) {
      lengths.push_back(glm::length(rest[k].translation));
    }
    std::mt19937_64 engine(kSeed + 2);
    ChainWorkspace workspace;
    SolveReport report;
    FabrikJob job;
    job.parent_model = parent == kNoParent ? Transform() : models[parent];
    job.tolerance = kHitDistance;
    job.max_iterations = 300;
    job.workspace = &workspace;
    job.report = &report;
    int hits = 0;
    std::vector<int> iterations;
    for (int i = 0; i < kCases; ++i) {
      std::vector<Transform> locals = rest;
      job.locals = absl::MakeSpan(locals);
      job.target_model = testing::ReachableTarget(*rig, *chain, engine);
      ASSERT_TRUE(job.Run().ok()) << "case " << i;
      // The answer by matrices, from the parent's model transform.
      glm::dmat4 world = Matrix(job.parent_model);
      Vec3 previous(0.0);
      for (size_t k = 0; k < locals.size(); ++k) {
        world = world * Matrix(locals[k]);
        const Vec3 position(world[3]);
        if (k > 0) {
          ASSERT_NEAR(glm::length(position - previous), lengths[k - 1],
                      kLengthSlack * lengths[k - 1])
              << "case " << i << ", bone " << k;
        }
        previous = position;
      }
      const double distance = glm::length(previous - job.target_model);
      ASSERT_NEAR(report.residual, distance, 1e-9) << "case " << i;
      if (distance <= kHitDistance) ++hits;
      iterations.push_back(report.iterations);
    }
    const double rate = static_cast<double>(hits) / kCases;
    const Percentiles stats = Summarize(iterations);
    std::printf(
        "[ property ] %s_fabrik without limits: within %g m of %d reachable "
        "targets: %.2f%%; iterations mean %.2f, p99 %d, max %d\n",
        tail ? "tail" : "left_arm", kHitDistance, kCases, 100.0 * rate,
        stats.mean, stats.p99, stats.max);
    EXPECT_GE(rate, kRequiredHitRate) << (tail ? "tail" : "left_arm");
  }
}

// Targets of the clavicle arm's seeded sequence above where FABRIK's
// passes stall against the shoulder's limits (1 to 72 iterations in, found
// with the CCD sweeps switched off): FABRIK reaches them by finishing with
// CCD sweeps within the chain's iteration cap.

}  // namespace
}  // namespace ik
