// ChainJob::Validate, which FabrikJob::Run and CcdJob::Run call first: one
// block per invalid input, each with its status code and field.
#include "ik/solvers/chain_job.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "chain_fixtures.h"
#include "gtest/gtest.h"
#include "ik/solvers/ccd.h"
#include "ik/solvers/fabrik.h"

namespace ik {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

class ChainJobValidateTest : public ::testing::Test {
 protected:
  ChainJobValidateTest() : chain_(Vec3(0.0, 1.0, 0.0), {0.3, 0.25}) {}

  ChainJob Job() {
    return chain_.MakeJob<ChainJob>(Vec3(0.2, 1.3, 0.1), &workspace_, &report_);
  }

  // Validate, FabrikJob::Run and CcdJob::Run all fail alike, and a failed
  // Run leaves the pose alone.
  void ExpectInvalid(const ChainJob& job, const std::string& message) {
    const absl::Status status = job.Validate();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_TRUE(absl::StartsWith(status.message(), message))
        << status.message() << " does not start with " << message;
    std::vector<Transform> before(job.locals.begin(), job.locals.end());
    EXPECT_EQ(FabrikJob{job}.Run(), status);
    EXPECT_EQ(CcdJob{job}.Run(), status);
    if (!job.locals.empty()) {
      EXPECT_EQ(std::memcmp(before.data(), job.locals.data(),
                            before.size() * sizeof(Transform)),
                0);
    }
  }

  testing::TestChain chain_;
  ChainWorkspace workspace_;
  SolveReport report_;
};

TEST_F(ChainJobValidateTest, AcceptsAValidJob) {
  EXPECT_TRUE(Job().Validate().ok());
}

TEST_F(ChainJobValidateTest, RejectsMissingWorkspaceAndReport) {
  ChainJob job = Job();
  job.workspace = nullptr;
  ExpectInvalid(job, "workspace: null");
  job = Job();
  job.report = nullptr;
  ExpectInvalid(job, "report: null output");
}

TEST_F(ChainJobValidateTest, AcceptsMissingOptionalOutputs) {
  ChainJob job = Job();
  job.stop_reason = nullptr;
  job.limited_mask = nullptr;
  EXPECT_TRUE(FabrikJob{job}.Run().ok());
}

TEST_F(ChainJobValidateTest, RejectsChainsOfWrongLength) {
  ChainJob job = Job();
  job.locals = job.locals.subspan(0, 1);
  ExpectInvalid(job, "locals: 1 joints; a chain has 2..64");
  std::vector<Transform> long_chain(65);
  for (Transform& local : long_chain) local.translation = Vec3(0.1, 0, 0);
  job.locals = absl::MakeSpan(long_chain);
  ExpectInvalid(job, "locals: 65 joints; a chain has 2..64");
}

TEST_F(ChainJobValidateTest, RejectsConstraintsOfTheWrongCount) {
  ChainJob job = Job();
  job.constraints = job.constraints.subspan(0, 2);
  ExpectInvalid(job, "constraints: 2 for 3 joints");
}

TEST_F(ChainJobValidateTest, RejectsABadParentTransform) {
  ChainJob job = Job();
  job.parent_model.translation.y = kNan;
  ExpectInvalid(job, "parent_model.translation: not finite");
  job = Job();
  job.parent_model.translation.x = 2e9;
  ExpectInvalid(job, "parent_model.translation: not finite or beyond");
  job = Job();
  job.parent_model.scale.z = 0.0;
  ExpectInvalid(job, "parent_model.scale: must be finite and positive");
  job = Job();
  job.parent_model.rotation = Quat(0.0, 0.0, 0.0, 0.0);
  ExpectInvalid(job, "parent_model.rotation: not a unit quaternion (norm 0)");
}

TEST_F(ChainJobValidateTest, RejectsBadLocalsNamingTheJoint) {
  ChainJob job = Job();
  job.locals[1].translation.z = kInf;
  ExpectInvalid(job, "locals[1].translation: not finite");
  chain_.locals()[1].translation.z = 0.0;
  job = Job();
  job.locals[2].rotation = Quat(2.0, 0.0, 0.0, 0.0);
  ExpectInvalid(job, "locals[2].rotation: not a unit quaternion (norm 2)");
  job.locals[2].rotation = IdentityQuat();
  job.locals[0].scale = Vec3(1.0, -1.0, 1.0);
  ExpectInvalid(job, "locals[0].scale: must be finite and positive");
  job.locals[0].scale = Vec3(1.0);
  job.locals[2].translation = Vec3(1e-10, 0.0, 0.0);
  ExpectInvalid(job,
                "locals[2].translation: zero-length bone from the previous "
                "joint");
}

TEST_F(ChainJobValidateTest, RejectsChainsReachingBeyondTheCoordinateRange) {
  ChainJob job = Job();
  job.locals[1].translation = Vec3(6e8, 0.0, 0.0);
  job.locals[2].translation = Vec3(6e8, 0.0, 0.0);
  ExpectInvalid(job, "locals: the chain reaches beyond 1e+09 m");
}

TEST_F(ChainJobValidateTest, RejectsABadTarget) {
  ChainJob job = Job();
  job.target_model = Vec3(kNan, 0.0, 0.0);
  ExpectInvalid(job, "target_model: not finite or beyond");
  job.target_model = Vec3(0.0, -2e9, 0.0);
  ExpectInvalid(job, "target_model: not finite or beyond");
}

TEST_F(ChainJobValidateTest, RejectsBadIterationCapsAndTolerances) {
  ChainJob job = Job();
  job.max_iterations = 0;
  ExpectInvalid(job, "max_iterations: must be at least 1, got 0");
  job = Job();
  job.tolerance = -1e-3;
  ExpectInvalid(job, "tolerance: must be finite and >= 0, got -0.001");
  job.tolerance = kNan;
  ExpectInvalid(job, "tolerance: must be finite and >= 0, got nan");
}

// Run validates and prepares the chain in one pass that builds no status,
// and calls Validate only when that pass finds something wrong: over seeded
// jobs with one or two fields spoiled (NaN, infinities, zero and negative
// scales, non-unit rotations, short bones, far coordinates, bad settings),
// Run fails exactly when Validate does, with its status, leaving the pose
// alone.
TEST_F(ChainJobValidateTest, RunRejectsExactlyWhatValidateRejects) {
  std::mt19937_64 engine(424242);
  const double values[] = {kNan, kInf,   -kInf, 0.0,   -1.0,  1e-12, 2e8,
                           6e8,  1.0005, 1.01,  0.999, 1e300, 1e-300};
  std::uniform_int_distribution<int> value(0, 12);
  std::uniform_int_distribution<int> field(0, 11);
  std::uniform_int_distribution<int> component(0, 3);
  std::uniform_int_distribution<int> joint(0, 2);
  int rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    ChainJob job = Job();
    std::vector<Transform> locals(job.locals.begin(), job.locals.end());
    job.locals = absl::MakeSpan(locals);
    Transform parent;
    parent.translation = Vec3(0.1, 0.2, 0.3);
    job.parent_model = parent;
    const int spoils = 1 + (i % 2);
    for (int k = 0; k < spoils; ++k) {
      const double v = values[value(engine)];
      const int c = component(engine);
      Transform& local = locals[joint(engine)];
      switch (field(engine)) {
        case 0:
          local.translation[c % 3] = v;
          break;
        case 1:
          local.rotation[c] = v;
          break;
        case 2:
          local.rotation = local.rotation * v;
          break;
        case 3:
          local.scale[c % 3] = v;
          break;
        case 4:
          local.scale = Vec3(v);
          break;
        case 5:
          job.parent_model.translation[c % 3] = v;
          break;
        case 6:
          job.parent_model.rotation = job.parent_model.rotation * v;
          break;
        case 7:
          job.parent_model.scale[c % 3] = v;
          break;
        case 8:
          job.target_model[c % 3] = v;
          break;
        case 9:
          job.tolerance = v;
          break;
        case 10:
          job.max_iterations =
              std::abs(v) < 1e9 ? static_cast<int>(v) : 0;  // NaN too
          break;
        default:
          local.translation = local.translation * v;
          break;
      }
    }
    const absl::Status status = job.Validate();
    const std::vector<Transform> before = locals;
    const absl::Status fabrik = FabrikJob{job}.Run();
    if (!status.ok()) {
      ++rejected;
      EXPECT_EQ(fabrik, status) << "case " << i;
      EXPECT_EQ(std::memcmp(before.data(), locals.data(),
                            before.size() * sizeof(Transform)),
                0)
          << "case " << i;
      EXPECT_EQ(CcdJob{job}.Run(), status) << "case " << i;
    } else {
      EXPECT_TRUE(fabrik.ok()) << "case " << i << ": " << fabrik;
    }
  }
  EXPECT_GT(rejected, 10000);
}

}  // namespace
}  // namespace ik
