// TickBatchJob: the batch gives, bit for bit, what the single jobs give one
// character at a time (seeded crowds of the example humanoid on a tilted
// plane), fails a job without touching the rest, and checks its own spans.
#include "ik/character/tick_batch.h"

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "single_character_jobs.h"
#include "tick_batch_crowd.h"

namespace ik {
namespace {

using tick_batch_testing::Crowd;
using tick_batch_testing::Humanoid;
using tick_batch_testing::SameBits;
using tick_batch_testing::TiltedPlane;

TEST(TickBatchTest, GivesTheSingleJobsAnswersBitForBit) {
  const Character& character = Humanoid();
  const GroundPlane plane = TiltedPlane();
  Ground ground;
  ground.planes = absl::MakeConstSpan(&plane, 1);
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    Crowd batch_crowd(60, seed);
    Crowd single_crowd(60, seed);
    TickScratch scratch;
    TickBatchJob batch;
    batch.character = &character;
    batch.ground = ground;
    batch.characters = absl::MakeSpan(batch_crowd.ticks);
    batch.scratch = &scratch;
    // Three ticks: dynamics continues from the states the batch kept.
    for (int t = 0; t < 3; ++t) {
      ASSERT_TRUE(batch.Run().ok());
      for (CharacterTick& tick : single_crowd.ticks) {
        ASSERT_TRUE(
            testing::RunSingleCharacterJobs(character, ground, tick).ok());
      }
      for (size_t k = 0; k < batch_crowd.ticks.size(); ++k) {
        const CharacterTick& a = batch_crowd.ticks[k];
        const CharacterTick& b = single_crowd.ticks[k];
        SCOPED_TRACE(::testing::Message()
                     << "seed " << seed << " tick " << t << " character " << k);
        ASSERT_TRUE(a.ground_status.ok()) << a.ground_status;
        ASSERT_TRUE(a.goals_status.ok()) << a.goals_status;
        ASSERT_TRUE(a.dynamics_status.ok()) << a.dynamics_status;
        EXPECT_TRUE(SameBits(&a.root, &b.root, sizeof(Transform)));
        EXPECT_TRUE(SameBits(a.locals.data(), b.locals.data(),
                             a.locals.size() * sizeof(Transform)));
        for (size_t i = 0; i < a.goal_results.size(); ++i) {
          EXPECT_TRUE(SameBits(&a.goal_results[i].tip_world,
                               &b.goal_results[i].tip_world, sizeof(Vec3)));
          EXPECT_EQ(a.goal_results[i].limited_joints,
                    b.goal_results[i].limited_joints);
        }
        const std::vector<Vec3>& pa = a.dynamic_states[0].positions;
        const std::vector<Vec3>& pb = b.dynamic_states[0].positions;
        ASSERT_EQ(pa.size(), pb.size());
        EXPECT_TRUE(SameBits(pa.data(), pb.data(), pa.size() * sizeof(Vec3)));
        EXPECT_TRUE(a.feet[0].grounded && a.feet[1].grounded);
      }
    }
  }
}

TEST(TickBatchTest, AFailedGoalPutsTheGoalsJointsBackAndTheRestRuns) {
  const Character& character = Humanoid();
  const GroundPlane plane = TiltedPlane();
  Crowd crowd(4, 7);
  Crowd reference(4, 7);
  crowd.goals[2][1].target_world.x = std::nan("");
  crowd.ticks[2].goals = crowd.goals[2];
  TickScratch scratch;
  TickBatchJob batch;
  batch.character = &character;
  batch.ground.planes = absl::MakeConstSpan(&plane, 1);
  batch.characters = absl::MakeSpan(crowd.ticks);
  batch.scratch = &scratch;
  ASSERT_TRUE(batch.Run().ok());
  const CharacterTick& failed = crowd.ticks[2];
  EXPECT_EQ(failed.goals_status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(failed.goals_status.message(),
                               "goals[1].target: not finite"))
      << failed.goals_status;
  EXPECT_TRUE(failed.ground_status.ok());
  EXPECT_TRUE(failed.dynamics_status.ok());
  // The reference: the same character with no goals at all.
  reference.ticks[2].goals = {};
  reference.ticks[2].goal_results = {};
  batch.characters = absl::MakeSpan(reference.ticks);
  ASSERT_TRUE(batch.Run().ok());
  EXPECT_TRUE(SameBits(failed.locals.data(), reference.ticks[2].locals.data(),
                       failed.locals.size() * sizeof(Transform)));
  // The other characters solved their goals.
  for (const int k : {0, 1, 3}) {
    EXPECT_TRUE(crowd.ticks[k].goals_status.ok());
  }
}

TEST(TickBatchTest, AFailedDynamicsStepLeavesThePoseAsTheGoalsLeftIt) {
  const Character& character = Humanoid();
  Crowd crowd(2, 11);
  Crowd reference(2, 11);
  crowd.ticks[1].delta_time = -1.0;
  reference.ticks[1].dynamic_states = {};
  reference.ticks[1].dynamic_reports = {};
  TickScratch scratch;
  TickBatchJob batch;
  batch.character = &character;
  batch.characters = absl::MakeSpan(crowd.ticks);
  batch.scratch = &scratch;
  ASSERT_TRUE(batch.Run().ok());
  batch.characters = absl::MakeSpan(reference.ticks);
  ASSERT_TRUE(batch.Run().ok());
  EXPECT_TRUE(crowd.ticks[0].dynamics_status.ok());
  EXPECT_EQ(crowd.ticks[1].dynamics_status.code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      absl::StrContains(crowd.ticks[1].dynamics_status.message(), "delta_time"))
      << crowd.ticks[1].dynamics_status;
  EXPECT_TRUE(SameBits(crowd.ticks[1].locals.data(),
                       reference.ticks[1].locals.data(),
                       crowd.locals[1].size() * sizeof(Transform)));
}

TEST(TickBatchTest, RejectsSpansThatDoNotFitWithTheirPaths) {
  const Character& character = Humanoid();
  TickScratch scratch;
  const auto expect_error = [&](Crowd& crowd, const char* prefix) {
    TickBatchJob batch;
    batch.character = &character;
    batch.characters = absl::MakeSpan(crowd.ticks);
    batch.scratch = &scratch;
    const absl::Status status = batch.Run();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_TRUE(absl::StartsWith(status.message(), prefix)) << status;
  };
  {
    Crowd crowd(4, 1);
    crowd.ticks[3].locals = crowd.ticks[3].locals.subspan(0, 12);
    expect_error(crowd,
                 "characters[3].locals: 12 transforms for rig 'humanoid'");
  }
  {
    Crowd crowd(2, 1);
    crowd.ticks[1].feet = crowd.ticks[1].feet.subspan(0, 1);
    expect_error(crowd, "characters[1].feet: 1 results");
  }
  {
    Crowd crowd(2, 1);
    crowd.ticks[0].goal_results = crowd.ticks[0].goal_results.subspan(0, 1);
    expect_error(crowd, "characters[0].goal_results: 1 results for goals");
  }
  {
    Crowd crowd(2, 1);
    crowd.ticks[1].dynamic_reports = {};
    expect_error(crowd, "characters[1].dynamic_reports: 0 reports");
  }
  Crowd crowd(1, 1);
  TickBatchJob batch;
  batch.characters = absl::MakeSpan(crowd.ticks);
  batch.scratch = &scratch;
  EXPECT_TRUE(absl::StartsWith(batch.Run().message(), "character: not set"));
  batch.character = &character;
  batch.scratch = nullptr;
  EXPECT_TRUE(absl::StartsWith(batch.Run().message(), "scratch: not set"));
}

}  // namespace
}  // namespace ik
