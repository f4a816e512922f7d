// RunTwoBoneJobs against TwoBoneJob::Run, job by job: the same status and
// the same bits in every output, over seeded limbs of every kind the solve
// tells apart (bent and reachable with a pole; no pole; out of reach beyond
// and within; straight; the pole on the root-target line; the target on the
// root; a hinge axis and a narrow turn range with a pole, or a wide one
// without; limbs too small for the twisted swing; rotations off unit length
// within tolerance; invalid inputs and missing outputs), shuffled so that
// every kind meets every other in a group: through RunTwoBoneJobs (groups
// of four on AVX, else pairs), and through the pairs and the groups of four
// directly.
#include "solvers/two_bone_lanes.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "base/trig_lanes.h"
#include "draws.h"
#include "gtest/gtest.h"
#include "ik/base/math.h"
#include "ik/solvers/two_bone.h"

namespace ik {
namespace {

using ::ik::testing::DrawQuat;
using ::ik::testing::DrawVec3;

constexpr int kKinds = 13;
constexpr int kPerKind = 600;

struct Outputs {
  Quat root_correction{0.0, 0.0, 0.0, 0.0};
  Quat mid_correction{0.0, 0.0, 0.0, 0.0};
  SolveReport report;
  bool clamped = true;
};

// A limb of `kind`, its outputs left unwired.
TwoBoneJob DrawJob(int kind, std::mt19937_64& engine) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_real_distribution<double> bend(0.05, 3.0);
  std::uniform_real_distribution<double> length(0.1, 0.6);
  const double scale = kind == 9 ? 1e-4 : 1.0;  // kind 9: a tiny limb
  const double l1 = scale * length(engine);
  const double l2 = scale * length(engine);
  const Quat root_rotation = glm::normalize(DrawQuat(unit, engine));
  const Vec3 root = DrawVec3(unit, engine);
  const Vec3 upper_direction = glm::normalize(DrawVec3(unit, engine));
  Vec3 across = glm::cross(upper_direction, DrawVec3(unit, engine));
  across = glm::normalize(across);
  const double angle = kind == 4 ? 0.0 : bend(engine);  // 4: straight
  const Vec3 lower_direction =
      std::cos(angle) * upper_direction + std::sin(angle) * across;
  TwoBoneJob job;
  job.root_model.translation = root;
  job.root_model.rotation = root_rotation;
  job.mid_model.translation = root + l1 * upper_direction;
  job.mid_model.rotation = glm::normalize(DrawQuat(unit, engine));
  job.tip_model.translation = job.mid_model.translation + l2 * lower_direction;
  const Vec3 direction = glm::normalize(DrawVec3(unit, engine));
  std::uniform_real_distribution<double> reach(std::abs(l1 - l2) * 1.001,
                                               (l1 + l2) * 0.999);
  double distance = reach(engine);
  if (kind == 2) distance = (l1 + l2) * (1.0 + 0.5 * std::abs(unit(engine)));
  if (kind == 3) distance = std::abs(l1 - l2) * 0.5 * std::abs(unit(engine));
  job.target_model = root + distance * direction;
  if (kind == 6) job.target_model = root;
  if (kind != 1 && kind != 12) {
    job.pole_model = root + scale * DrawVec3(unit, engine);
  }
  if (kind == 5) job.pole_model = root + 2.0 * distance * direction;
  if (kind == 7) {
    job.mid_axis_model = glm::normalize(glm::cross(upper_direction, across));
    job.mid_turn_range =
        AngleRange{-0.5 * std::abs(unit(engine)), 1.5 * std::abs(unit(engine))};
  }
  if (kind == 8) {  // rotations off unit length by up to 1e-6
    const double off = 1.0 + 1e-6 * unit(engine);
    job.root_model.rotation = job.root_model.rotation * off;
    job.mid_model.rotation = job.mid_model.rotation * (2.0 - off);
  }
  if (kind == 10) {  // invalid input, each a different way
    switch (static_cast<int>(engine() % 4)) {
      case 0:
        job.target_model.y = std::numeric_limits<double>::quiet_NaN();
        break;
      case 1:
        job.mid_model.rotation = job.mid_model.rotation * 1.5;
        break;
      case 2:
        job.tolerance = -1.0;
        break;
      default:
        job.tip_model.translation = job.mid_model.translation;
        break;
    }
  }
  job.tolerance = kind == 11 ? 0.0 : job.tolerance;
  return job;
}

// `job` with its outputs wired to `out` (kind 10 may leave the report out).
TwoBoneJob Wired(TwoBoneJob job, Outputs& out, bool with_report) {
  job.root_correction = &out.root_correction;
  job.mid_correction = &out.mid_correction;
  job.report = with_report ? &out.report : nullptr;
  job.mid_turn_clamped = &out.clamped;
  return job;
}

bool SameBits(const Outputs& a, const Outputs& b) {
  return std::memcmp(&a.root_correction, &b.root_correction, sizeof(Quat)) ==
             0 &&
         std::memcmp(&a.mid_correction, &b.mid_correction, sizeof(Quat)) == 0 &&
         std::memcmp(&a.report.tip_model, &b.report.tip_model, sizeof(Vec3)) ==
             0 &&
         std::memcmp(&a.report.residual, &b.report.residual, sizeof(double)) ==
             0 &&
         a.report.reached == b.report.reached &&
         a.report.iterations == b.report.iterations && a.clamped == b.clamped;
}

// Draws `per_kind` jobs of each of `kinds` in a seeded shuffle (plus one of
// the first kind: an odd count, so the last runs alone), solves them with
// RunTwoBoneJobs and each alone with Run, and expects the same status and
// bits job by job. Returns how many failed and how many reached.
// How the jobs are grouped: as RunTwoBoneJobs groups them, in pairs, or in
// groups of four (the last few alone).
enum class Grouping { kRunTwoBoneJobs, kPairs, kQuads };

void Solve(Grouping grouping, const std::vector<TwoBoneJob>& jobs,
           std::vector<absl::Status>& statuses) {
  size_t i = 0;
  switch (grouping) {
    case Grouping::kRunTwoBoneJobs:
      EXPECT_TRUE(RunTwoBoneJobs(jobs, absl::MakeSpan(statuses)).ok());
      return;
    case Grouping::kPairs:
      for (; i + 1 < jobs.size(); i += 2) {
        internal::RunTwoBoneJobPair(jobs[i], jobs[i + 1], &statuses[i]);
      }
      break;
    case Grouping::kQuads:
      for (; i + 3 < jobs.size(); i += 4) {
        const TwoBoneJob* const group[4] = {&jobs[i], &jobs[i + 1],
                                            &jobs[i + 2], &jobs[i + 3]};
        internal::RunTwoBoneJobQuad(group, &statuses[i]);
      }
      break;
  }
  for (; i < jobs.size(); ++i) statuses[i] = jobs[i].Run();
}

std::pair<int, int> ExpectRunsBits(const std::vector<int>& kinds_drawn,
                                   int per_kind, std::uint64_t seed,
                                   Grouping grouping) {
  std::mt19937_64 engine(seed);
  std::vector<int> kinds;
  for (const int kind : kinds_drawn) kinds.insert(kinds.end(), per_kind, kind);
  std::shuffle(kinds.begin(), kinds.end(), engine);
  kinds.push_back(kinds_drawn.front());
  const size_t count = kinds.size();
  std::vector<Outputs> single(count);
  std::vector<Outputs> paired(count);
  std::vector<TwoBoneJob> jobs;
  std::vector<TwoBoneJob> single_jobs;
  for (size_t i = 0; i < count; ++i) {
    const TwoBoneJob job = DrawJob(kinds[i], engine);
    const bool with_report = !(kinds[i] == 10 && engine() % 3 == 0);
    jobs.push_back(Wired(job, paired[i], with_report));
    single_jobs.push_back(Wired(job, single[i], with_report));
  }
  std::vector<absl::Status> statuses(count, absl::UnknownError("unset"));
  Solve(grouping, jobs, statuses);
  int failed = 0;
  int reached = 0;
  for (size_t i = 0; i < count; ++i) {
    const absl::Status expected = single_jobs[i].Run();
    EXPECT_EQ(statuses[i], expected) << "job " << i << ", kind " << kinds[i];
    EXPECT_TRUE(SameBits(single[i], paired[i]))
        << "job " << i << ", kind " << kinds[i];
    if (::testing::Test::HasFailure()) break;
    failed += !expected.ok();
    reached += expected.ok() && single[i].report.reached;
  }
  return {failed, reached};
}

class RunTwoBoneJobsTest : public ::testing::TestWithParam<Grouping> {
 protected:
  void SetUp() override {
    if (GetParam() == Grouping::kQuads && !internal::HasAvxLanes()) {
      GTEST_SKIP() << "no AVX on this processor";
    }
  }
};

TEST_P(RunTwoBoneJobsTest, EveryJobGetsRunsBitsAndStatus) {
  std::vector<int> kinds(kKinds);
  for (int kind = 0; kind < kKinds; ++kind) kinds[kind] = kind;
  const auto [failed, reached] =
      ExpectRunsBits(kinds, kPerKind, 18, GetParam());
  // The kinds did what they are for: the invalid ones failed, most of the
  // others reached their targets.
  EXPECT_GE(failed, kPerKind);
  EXPECT_GT(reached, 6 * kPerKind);
}

// Limbs on a hinge take the lanes only with each other (a group's jobs
// take one frame): all of them here, with a narrow range and a pole or a
// wide range and none.
TEST_P(RunTwoBoneJobsTest, HingedLimbsGetRunsBitsAndStatus) {
  const auto [failed, reached] = ExpectRunsBits({7, 12}, 2000, 19, GetParam());
  EXPECT_EQ(failed, 0);
  EXPECT_GT(reached, 2000);
}

INSTANTIATE_TEST_SUITE_P(Groupings, RunTwoBoneJobsTest,
                         ::testing::Values(Grouping::kRunTwoBoneJobs,
                                           Grouping::kPairs, Grouping::kQuads),
                         [](const ::testing::TestParamInfo<Grouping>& info) {
                           return std::string(
                               info.param == Grouping::kRunTwoBoneJobs
                                   ? "RunTwoBoneJobs"
                               : info.param == Grouping::kPairs ? "Pairs"
                                                                : "Quads");
                         });

TEST(RunTwoBoneJobsSizesTest, SizesMustMatch) {
  std::vector<TwoBoneJob> jobs(3);
  std::vector<absl::Status> statuses(2);
  const absl::Status status = RunTwoBoneJobs(jobs, absl::MakeSpan(statuses));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(status.message(), "statuses: 2 for 3 jobs"))
      << status;
  EXPECT_TRUE(RunTwoBoneJobs({}, {}).ok());
}

}  // namespace
}  // namespace ik
