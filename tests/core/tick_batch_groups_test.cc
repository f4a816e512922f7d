// TickBatchJob's groups: characters run side by side (a job for each of a
// group of kTickGroupCharacters, their two-bone solves together in SIMD
// lanes) give each character, bit for bit, what it gets alone in a batch of
// one, where every solve is one at a time: seeded mixed crowds of the
// example humanoid (grounded or not, on a plane, a heightfield, a mesh or
// nothing, with weights and smoothing; goals of every solver with poles,
// swivels, orientations, joint limits and failures; dynamics on, off and
// reset), crowds of every size about the group's, over two ticks. Answers,
// statuses and what each character's observer is told, in order.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "goal_draws.h"
#include "gtest/gtest.h"
#include "ik/character/tick_batch.h"
#include "ik/dynamics/wind_noise.h"
#include "ik/ground/heightfield.h"
#include "ik/ground/triangle_mesh.h"
#include "terrain_shapes.h"
#include "tick_batch_crowd.h"

namespace ik {
namespace {

using tick_batch_testing::Humanoid;
using tick_batch_testing::TiltedPlane;

// The bytes of `value` appended to `out`.
template <typename T>
void Put(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}
void Put(std::string& out, const Vec3& v) {
  Put(out, v.x);
  Put(out, v.y);
  Put(out, v.z);
}
void Put(std::string& out, const absl::Status& status) {
  out += status.ToString();
  out += '|';
}
void PutPose(std::string& out, const CharacterTick& tick) {
  out.append(reinterpret_cast<const char*>(tick.locals.data()),
             tick.locals.size() * sizeof(Transform));
  out.append(reinterpret_cast<const char*>(&tick.root), sizeof(Transform));
}
void PutGoal(std::string& out, const ChainSolveResult& result) {
  Put(out, result.tip_world);
  Put(out, result.report.residual);
  Put(out, result.report.reached);
  Put(out, result.report.iterations);
  Put(out, result.report.tip_model);
  Put(out, result.report.branch_switch);
  Put(out, static_cast<int>(result.solver));
  Put(out, static_cast<int>(result.stop_reason));
  Put(out, result.singularity_angle);
  Put(out, result.near_singularity);
  for (const int joint : result.limited_joints) Put(out, joint);
}

// Every answer of a character, as bytes.
std::string Answers(const CharacterTick& tick) {
  std::string out;
  PutPose(out, tick);
  Put(out, tick.ground_status);
  Put(out, tick.goals_status);
  Put(out, tick.dynamics_status);
  for (const FootResult& foot : tick.feet) {
    Put(out, foot.ground_found);
    Put(out, foot.contact_point);
    Put(out, foot.contact_normal);
    Put(out, foot.grounded);
    Put(out, foot.goal);
    Put(out, foot.reached);
    Put(out, foot.moved);
    Put(out, foot.foot_offset);
    Put(out, foot.tilt);
    Put(out, foot.tilt_clamped);
    Put(out, foot.branch_switch);
  }
  Put(out, tick.ground_report.pelvis_drop);
  Put(out, tick.ground_report.pelvis_drop_target);
  Put(out, tick.ground_report.pelvis_drop_clamped);
  Put(out, tick.ground_report.root_offset);
  for (const ChainSolveResult& result : tick.goal_results) PutGoal(out, result);
  for (size_t c = 0; c < tick.dynamic_states.size(); ++c) {
    const DynamicState& state = tick.dynamic_states[c];
    for (const Vec3& p : state.positions) Put(out, p);
    for (const Vec3& p : state.previous_positions) Put(out, p);
    Put(out, state.time_remainder);
    Put(out, state.noise_time);
    Put(out, tick.dynamic_reports[c].substeps);
    Put(out, tick.dynamic_reports[c].clamped);
    Put(out, static_cast<int>(tick.dynamic_reports[c].reset));
  }
  return out;
}

// What a character's observer is told, in order, with the pose each time.
class Recorder : public TickJobObserver {
 public:
  void Grounded(const CharacterTick& tick) override {
    log += "grounded:";
    PutPose(log, tick);
  }
  void GoalSolved(const CharacterTick& tick, size_t goal) override {
    log += absl::StrCat("goal ", goal, ":");
    PutGoal(log, tick.goal_results[goal]);
    PutPose(log, tick);
  }
  void DynamicsStepped(const CharacterTick& tick,
                       absl::Span<const Quat> rotations) override {
    log += "dynamics:";
    log.append(reinterpret_cast<const char*>(rotations.data()),
               rotations.size() * sizeof(Quat));
    PutPose(log, tick);
  }
  std::string log;
};

// The grounds a character may stand on.
struct Grounds {
  Grounds()
      : plane(TiltedPlane()),
        field(*Heightfield::Create(testing::SampledHeightfield(
            Height, Vec3(-3.0, -1.0, -3.0), 0.1, 0.1, 61, 61))),
        mesh(MakeMesh()) {
    kinds[0].planes = absl::MakeConstSpan(&plane, 1);
    kinds[1].heightfields = absl::MakeConstSpan(fields, 1);
    kinds[2].meshes = absl::MakeConstSpan(meshes, 1);
    kinds[3].planes = absl::MakeConstSpan(&plane, 1);
    kinds[3].meshes = absl::MakeConstSpan(meshes, 1);
    // kinds[4]: no ground at all (every ray misses).
  }
  static double Height(double x, double z) {
    return -0.05 + 0.1 * x - 0.08 * z +
           0.05 * std::sin(3.0 * x) * std::cos(2.0 * z);
  }
  static TriangleMesh MakeMesh() {
    std::mt19937_64 engine(23);
    return *TriangleMesh::Create(testing::GridMesh(
        Height, Vec3(-3.0, -1.0, -3.0), 0.1, 0.1, 61, 61, engine));
  }
  GroundPlane plane;
  Heightfield field;
  TriangleMesh mesh;
  const Heightfield* fields[1] = {&field};
  const TriangleMesh* meshes[1] = {&mesh};
  Ground kinds[5];
};

// A seeded crowd with every kind of job, some of them failing.
struct MixedCrowd {
  MixedCrowd(int count, std::uint64_t seed, const Grounds& grounds)
      : base(count, seed) {
    const Rig& rig = Humanoid().rig;
    std::mt19937_64 engine(seed * 7919 + 1);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    std::uniform_int_distribution<int> pick(0, 99);
    weights.resize(count);
    offsets.resize(count);
    recorders.resize(count);
    for (int k = 0; k < count; ++k) {
      CharacterTick& tick = base.ticks[k];
      tick.observer = &recorders[k];
      tick.read_back = pick(engine) < 50;
      tick.ground_feet = pick(engine) < 80;
      const int ground = pick(engine) % 6;
      if (ground < 5) tick.ground = &grounds.kinds[ground];
      if (pick(engine) < 30) {
        weights[k] = {0.5 + 0.5 * unit(engine), 0.5 + 0.5 * unit(engine)};
        tick.leg_weights = weights[k];
      }
      if (pick(engine) < 30) {
        offsets[k] = {0.02 * Vec3(unit(engine), unit(engine), unit(engine)),
                      0.02 * Vec3(unit(engine), unit(engine), unit(engine))};
        GroundSmoothing smoothing;
        smoothing.previous_pelvis_drop = 0.05 * (1.0 + unit(engine));
        smoothing.previous_foot_offsets = offsets[k];
        smoothing.delta_time = 1.0 / 60.0;
        tick.smoothing = smoothing;
      }
      std::vector<ChainGoal>& goals = base.goals[k];
      goals.resize(pick(engine) % 4);
      for (size_t g = 0; g < goals.size(); ++g) {
        goals[g] = testing::DrawHumanoidGoal(rig, g, engine);
      }
      base.results[k].assign(goals.size(), ChainSolveResult());
      tick.goals = goals;
      tick.goal_results = absl::MakeSpan(base.results[k]);
      const int dynamics = pick(engine);
      if (dynamics < 15) {
        tick.dynamic_states = {};
        tick.dynamic_reports = {};
      }
      tick.reset_dynamics = dynamics >= 15 && dynamics < 25;
      tick.delta_time = pick(engine) < 20 ? 1.0 / 30.0 : 1.0 / 60.0;
      if (pick(engine) < 25) tick.wind = &gust;
      corrupt.push_back(pick(engine) < 20);
    }
  }

  // Puts a NaN into the dynamics state of the characters drawn for it (the
  // step must then fail for them alone, whatever their group).
  void CorruptStates() {
    for (size_t k = 0; k < corrupt.size(); ++k) {
      CharacterTick& tick = base.ticks[k];
      if (!corrupt[k] || tick.dynamic_states.empty() ||
          tick.dynamic_states[0].positions.size() < 2) {
        continue;
      }
      tick.dynamic_states[0].positions[1].x = std::nan("");
      tick.reset_dynamics = false;
    }
  }

  tick_batch_testing::Crowd base;
  // A gusty wind some characters' dynamics take instead of the rig's.
  WindSettings gust = [] {
    WindSettings wind;
    wind.strength = 6.0;
    wind.direction = Vec3(1.0, 0.0, 0.4);
    wind.turbulence = 0.7;
    return wind;
  }();
  std::vector<bool> corrupt;
  std::vector<std::vector<double>> weights;
  std::vector<std::vector<Vec3>> offsets;
  std::vector<Recorder> recorders;
};

absl::Status RunBatch(absl::Span<CharacterTick> ticks, const Ground& ground,
                      TickScratch& scratch) {
  TickBatchJob batch;
  batch.character = &Humanoid();
  batch.ground = ground;
  batch.characters = ticks;
  batch.scratch = &scratch;
  return batch.Run();
}

TEST(TickBatchGroupsTest, EachCharacterGetsWhatItGetsAloneBitForBit) {
  const Grounds grounds;
  int goals_failed = 0, goals_solved = 0, grounded = 0, swivels = 0;
  int dynamics_failed = 0, winds = 0;
  for (const int count : {1, 3, 4, 5, 9, 23}) {
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
      MixedCrowd together(count, seed, grounds);
      MixedCrowd alone(count, seed, grounds);
      TickScratch together_scratch, alone_scratch;
      for (int t = 0; t < 2; ++t) {
        if (t == 1) {
          together.CorruptStates();
          alone.CorruptStates();
        }
        ASSERT_TRUE(RunBatch(absl::MakeSpan(together.base.ticks),
                             grounds.kinds[0], together_scratch)
                        .ok());
        for (CharacterTick& tick : alone.base.ticks) {
          ASSERT_TRUE(RunBatch(absl::MakeSpan(&tick, 1), grounds.kinds[0],
                               alone_scratch)
                          .ok());
        }
        for (int k = 0; k < count; ++k) {
          SCOPED_TRACE(::testing::Message()
                       << "count " << count << " seed " << seed << " tick " << t
                       << " character " << k);
          const CharacterTick& a = together.base.ticks[k];
          EXPECT_EQ(Answers(a), Answers(alone.base.ticks[k]));
          EXPECT_EQ(together.recorders[k].log, alone.recorders[k].log);
          goals_failed += !a.goals_status.ok();
          goals_solved += a.goals_status.ok() ? a.goals.size() : 0;
          grounded += a.ground_feet && a.ground_status.ok();
          for (const ChainGoal& goal : a.goals)
            swivels += goal.swivel.has_value();
          dynamics_failed += !a.dynamics_status.ok();
          winds += a.wind != nullptr && !a.dynamic_states.empty();
        }
      }
    }
  }
  // The crowds hold what the test is about.
  EXPECT_GT(goals_failed, 10);
  EXPECT_GT(goals_solved, 200);
  EXPECT_GT(grounded, 200);
  EXPECT_GT(swivels, 40);
  EXPECT_GT(dynamics_failed, 5);
  EXPECT_GT(winds, 20);
}

}  // namespace
}  // namespace ik
