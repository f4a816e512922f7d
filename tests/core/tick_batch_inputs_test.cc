// TickBatchJob's inputs beyond the jobs themselves: read_back (each job
// sees its predecessor's answer as a caller chaining the single jobs reads
// it), the observer, the listed dynamic chains with reset, wind and state
// paths, and the caller's ground tolerance and pose path.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "ik/character/tick_batch.h"
#include "ik/dynamics/rig_dynamics.h"
#include "single_character_jobs.h"
#include "tick_batch_crowd.h"

namespace ik {
namespace {

using tick_batch_testing::Crowd;
using tick_batch_testing::Humanoid;
using tick_batch_testing::RunBatch;
using tick_batch_testing::SameBits;
using tick_batch_testing::TiltedPlane;

// Every rotation of `locals` that differs (by bits) from `before` made unit
// (ik::Unit, as ValidateTransform reads a rotation), written from
// read_back's description.
void Normalize(absl::Span<Transform> locals,
               const std::vector<Transform>& before) {
  for (size_t j = 0; j < locals.size(); ++j) {
    if (!SameBits(&locals[j].rotation, &before[j].rotation, sizeof(Quat))) {
      locals[j].rotation = Unit(locals[j].rotation);
    }
  }
}

TEST(TickBatchTest, ReadBackIsEachJobAloneWithItsAnswerReadBetween) {
  const GroundPlane plane = TiltedPlane();
  Crowd whole(24, 5);
  for (CharacterTick& tick : whole.ticks) tick.read_back = true;
  RunBatch(whole, plane);
  // The same crowd job by job: a batch per job, each changed rotation
  // normalised before the next.
  Crowd stepwise(24, 5);
  std::vector<CharacterTick> all = stepwise.ticks;
  for (int job = 0; job < 3; ++job) {
    std::vector<std::vector<Transform>> before(stepwise.locals);
    for (size_t k = 0; k < all.size(); ++k) {
      CharacterTick& tick = stepwise.ticks[k];
      tick.ground_feet = job == 0;
      tick.goals = job == 1 ? all[k].goals : absl::Span<const ChainGoal>();
      tick.goal_results =
          job == 1 ? all[k].goal_results : absl::Span<ChainSolveResult>();
      tick.dynamic_states =
          job == 2 ? all[k].dynamic_states : absl::Span<DynamicState>();
      tick.dynamic_reports =
          job == 2 ? all[k].dynamic_reports : absl::Span<DynamicsReport>();
    }
    RunBatch(stepwise, plane);
    for (size_t k = 0; k < all.size(); ++k) {
      Normalize(stepwise.ticks[k].locals, before[k]);
    }
  }
  for (size_t k = 0; k < all.size(); ++k) {
    SCOPED_TRACE(k);
    const CharacterTick& a = whole.ticks[k];
    const CharacterTick& b = stepwise.ticks[k];
    ASSERT_TRUE(a.ground_status.ok() && a.goals_status.ok() &&
                a.dynamics_status.ok());
    EXPECT_TRUE(SameBits(&a.root, &b.root, sizeof(Transform)));
    EXPECT_TRUE(SameBits(a.locals.data(), b.locals.data(),
                         a.locals.size() * sizeof(Transform)));
    const std::vector<Vec3>& pa = a.dynamic_states[0].positions;
    const std::vector<Vec3>& pb = b.dynamic_states[0].positions;
    EXPECT_TRUE(SameBits(pa.data(), pb.data(), pa.size() * sizeof(Vec3)));
    // Every job's answer is unit to rounding already (kUnitRounding), so
    // the read-back keeps its bits: the batch without it gives the same.
    for (const Transform& local : a.locals) {
      EXPECT_LE(std::abs(Norm(local.rotation) - 1.0), kUnitRounding);
    }
    Crowd raw(24, 5);
    RunBatch(raw, plane);
    EXPECT_TRUE(SameBits(a.locals.data(), raw.ticks[k].locals.data(),
                         a.locals.size() * sizeof(Transform)));
  }
}

// Records what the observer is told, with the locals at the time.
class Recorder : public TickJobObserver {
 public:
  void Grounded(const CharacterTick& tick) override {
    calls.push_back("ground");
    grounded.assign(tick.locals.begin(), tick.locals.end());
  }
  void GoalSolved(const CharacterTick& tick, size_t goal) override {
    calls.push_back("goal " + std::to_string(goal));
    last_goal.assign(tick.locals.begin(), tick.locals.end());
  }
  void DynamicsStepped(const CharacterTick& /*tick*/,
                       absl::Span<const Quat> rotations) override {
    calls.push_back("dynamics");
    stepped.assign(rotations.begin(), rotations.end());
  }
  std::vector<std::string> calls;
  std::vector<Transform> grounded;
  std::vector<Transform> last_goal;
  std::vector<Quat> stepped;
};

TEST(TickBatchTest, TheObserverSeesEachJobsOwnAnswerBeforeReadBack) {
  const GroundPlane plane = TiltedPlane();
  Crowd observed(3, 9);
  Recorder recorder;
  observed.ticks[1].observer = &recorder;
  observed.ticks[1].read_back = true;
  RunBatch(observed, plane);
  EXPECT_EQ(recorder.calls, (std::vector<std::string>{"ground", "goal 0",
                                                      "goal 1", "dynamics"}));
  // Grounding alone, without read-back: the bits the observer saw.
  Crowd grounded(3, 9);
  for (CharacterTick& tick : grounded.ticks) {
    tick.goals = {};
    tick.goal_results = {};
    tick.dynamic_states = {};
    tick.dynamic_reports = {};
  }
  RunBatch(grounded, plane);
  ASSERT_EQ(recorder.grounded.size(), grounded.locals[1].size());
  EXPECT_TRUE(SameBits(recorder.grounded.data(), grounded.locals[1].data(),
                       recorder.grounded.size() * sizeof(Transform)));
  const DynamicChainBinding& ponytail = Humanoid().dynamic_chains[0];
  ASSERT_EQ(recorder.stepped.size(), ponytail.joints.size());
  for (size_t k = 0; k < ponytail.joints.size(); ++k) {
    if (!ponytail.turns[k]) continue;
    const Quat& q = recorder.stepped[k];
    EXPECT_TRUE(SameBits(&observed.locals[1][ponytail.joints[k]].rotation,
                         &static_cast<const Quat&>(q / Norm(q)),
                         sizeof(Quat)) ||
                SameBits(&observed.locals[1][ponytail.joints[k]].rotation, &q,
                         sizeof(Quat)));
  }
  // A failed goal is not reported, nor are the goals after it.
  Crowd failing(3, 9);
  failing.goals[0][0].target_world.x = std::nan("");
  failing.ticks[0].goals = failing.goals[0];
  Recorder told;
  failing.ticks[0].observer = &told;
  RunBatch(failing, plane);
  EXPECT_EQ(told.calls, (std::vector<std::string>{"ground", "dynamics"}));
}

TEST(TickBatchTest, StepsTheListedChainsWithTheirResetWindAndPaths) {
  const Character& character = Humanoid();
  const GroundPlane plane = TiltedPlane();
  WindSettings wind;
  wind.direction = Vec3(1.0, 0.0, 0.0);
  wind.strength = 3.0;
  const int only[] = {0};
  const std::string paths[] = {"states[4]"};
  Crowd crowd(2, 13);
  Crowd reference(2, 13);
  // Two ticks: the second continues (or, reset, restarts) from the first.
  for (int t = 0; t < 2; ++t) {
    for (CharacterTick& tick : crowd.ticks) {
      tick.dynamic_chains = only;
      tick.wind = &wind;
      tick.reset_dynamics = t == 1;
      tick.state_paths = paths;
    }
    RunBatch(crowd, plane);
    // The reference: grounding and goals in the batch, then the step by
    // hand on the pose they left.
    for (CharacterTick& tick : reference.ticks) {
      tick.dynamic_states = {};
      tick.dynamic_reports = {};
    }
    RunBatch(reference, plane);
    for (size_t k = 0; k < 2; ++k) {
      SCOPED_TRACE(k);
      CharacterTick& tick = reference.ticks[k];
      std::vector<Transform> world(character.rig.joint_count());
      character.DynamicsWorld(tick.locals, tick.root, absl::MakeSpan(world));
      const DynamicChainBinding& chain = character.dynamic_chains[0];
      std::vector<Quat> rotations(chain.joints.size());
      RigDynamicsStep step;
      step.rig = &character.rig;
      step.colliders = character.colliders;
      step.chain = &chain;
      step.models_world = world;
      step.locals = tick.locals;
      step.delta_time = tick.delta_time;
      step.reset = t == 1;
      step.wind = &wind;
      step.state = &reference.states[k][0];
      step.rotations_local = absl::MakeSpan(rotations);
      step.report = &reference.reports[k][0];
      ASSERT_TRUE(step.Run().ok());
      for (size_t j = 0; j < chain.joints.size(); ++j) {
        if (chain.turns[j])
          tick.locals[chain.joints[j]].rotation = rotations[j];
      }
      ASSERT_TRUE(crowd.ticks[k].dynamics_status.ok());
      EXPECT_TRUE(SameBits(crowd.ticks[k].locals.data(), tick.locals.data(),
                           tick.locals.size() * sizeof(Transform)));
      const std::vector<Vec3>& pa = crowd.states[k][0].positions;
      const std::vector<Vec3>& pb = reference.states[k][0].positions;
      ASSERT_EQ(pa.size(), pb.size());
      EXPECT_TRUE(SameBits(pa.data(), pb.data(), pa.size() * sizeof(Vec3)));
      EXPECT_EQ(crowd.reports[k][0].reset, reference.reports[k][0].reset);
      // Put the reference's dynamics back for the next tick's reset.
      tick.dynamic_states = absl::MakeSpan(reference.states[k]);
      tick.dynamic_reports = absl::MakeSpan(reference.reports[k]);
    }
  }
  // A state that fails names its path.
  crowd.ticks[0].delta_time = -1.0;
  RunBatch(crowd, plane);
  EXPECT_TRUE(
      absl::StrContains(crowd.ticks[0].dynamics_status.message(), "delta_time"))
      << crowd.ticks[0].dynamics_status;
  // Chains that are not the character's, or listed twice.
  TickScratch scratch;
  TickBatchJob batch;
  batch.character = &character;
  batch.scratch = &scratch;
  const int twice[] = {0, 0};
  const int unknown[] = {3};
  for (absl::Span<const int> listed :
       {absl::Span<const int>(twice), absl::Span<const int>(unknown)}) {
    Crowd bad(1, 1);
    bad.ticks[0].dynamic_chains = listed;
    batch.characters = absl::MakeSpan(bad.ticks);
    const absl::Status status = batch.Run();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(
        absl::StartsWith(status.message(), "characters[0].dynamic_chains["))
        << status;
  }
}

TEST(TickBatchTest, GroundToleranceAndPosePathReachTheJobs) {
  const Character& character = Humanoid();
  const GroundPlane plane = TiltedPlane();
  Ground ground;
  ground.planes = absl::MakeConstSpan(&plane, 1);
  // Tolerances from none to generous: the feet's `reached` follows them, as
  // the grounding job run alone with each gives it.
  const double tolerances[] = {0.0, 1e-9, 1e-4, 0.05, 0.5};
  Crowd batch_crowd(40, 11);
  Crowd single_crowd(40, 11);
  for (Crowd* crowd : {&batch_crowd, &single_crowd}) {
    for (size_t k = 0; k < crowd->ticks.size(); ++k) {
      crowd->ticks[k].ground_tolerance = tolerances[k % 5];
    }
  }
  RunBatch(batch_crowd, plane);
  for (size_t k = 0; k < batch_crowd.ticks.size(); ++k) {
    CharacterTick& single = single_crowd.ticks[k];
    ASSERT_TRUE(
        testing::RunSingleCharacterJobs(character, ground, single).ok());
    const CharacterTick& tick = batch_crowd.ticks[k];
    ASSERT_TRUE(tick.ground_status.ok()) << tick.ground_status;
    for (size_t leg = 0; leg < tick.feet.size(); ++leg) {
      EXPECT_EQ(tick.feet[leg].reached, single.feet[leg].reached)
          << "character " << k << " leg " << leg;
    }
    EXPECT_TRUE(SameBits(tick.locals.data(), single.locals.data(),
                         tick.locals.size() * sizeof(Transform)));
  }
  // Errors about the pose and the tolerance name the caller's fields.
  Crowd bad(2, 3);
  bad.ticks[0].pose_path = "characters[0].pose";
  bad.ticks[0].root.scale = Vec3(0.0);
  bad.ticks[0].goals = {};
  bad.ticks[0].goal_results = {};
  bad.ticks[1].ground_tolerance = -1.0;
  RunBatch(bad, plane);
  EXPECT_TRUE(absl::StartsWith(bad.ticks[0].ground_status.message(),
                               "characters[0].pose.root"))
      << bad.ticks[0].ground_status;
  EXPECT_TRUE(
      absl::StartsWith(bad.ticks[1].ground_status.message(), "tolerance"))
      << bad.ticks[1].ground_status;
  EXPECT_TRUE(bad.ticks[1].goals_status.ok()) << bad.ticks[1].goals_status;
}

}  // namespace
}  // namespace ik
