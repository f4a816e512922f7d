// TickBatchJob (ik/character/tick_batch.h): the batch's checks, the
// set-up shared by its characters, and each character's three jobs.
#include "ik/character/tick_batch.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "dynamics/dynamics_internal.h"
#include "ground/grounding_internal.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "ik/dynamics/rig_dynamics.h"
#include "rig/solve_chain_internal.h"

namespace ik {
namespace {

// "characters[k].<field>: <n> <what> for <m> <of what>".
absl::Status SizeMismatch(size_t k, const char* field, size_t given,
                          const char* what, size_t wanted,
                          absl::string_view of_what) {
  return InvalidField(
      absl::StrCat("characters[", k, "].", field),
      absl::StrCat(given, " ", what, " for ", of_what, " of ", wanted));
}

// "rig \"<name>\"", for the messages: built on the error path only.
std::string RigNamed(const Character& character) {
  return absl::StrCat("rig ", Quoted(character.rig.name()));
}

absl::Status CheckCharacterSpans(const Character& character, size_t k,
                                 const CharacterTick& tick) {
  const size_t joints = static_cast<size_t>(character.rig.joint_count());
  if (tick.locals.size() != joints) {
    return SizeMismatch(k, "locals", tick.locals.size(), "transforms", joints,
                        RigNamed(character) + " joints");
  }
  if (tick.ground_feet && tick.feet.size() != character.legs.size()) {
    return SizeMismatch(k, "feet", tick.feet.size(), "results",
                        character.legs.size(), RigNamed(character) + " legs");
  }
  if (tick.goal_results.size() != tick.goals.size()) {
    return SizeMismatch(k, "goal_results", tick.goal_results.size(), "results",
                        tick.goals.size(), "goals");
  }
  const size_t all_chains = character.dynamic_chains.size();
  for (size_t i = 0; i < tick.dynamic_chains.size(); ++i) {
    const int c = tick.dynamic_chains[i];
    const bool listed_before =
        std::find(tick.dynamic_chains.begin(),
                  tick.dynamic_chains.begin() + static_cast<ptrdiff_t>(i),
                  c) != tick.dynamic_chains.begin() + static_cast<ptrdiff_t>(i);
    if (c < 0 || static_cast<size_t>(c) >= all_chains || listed_before) {
      return InvalidField(
          absl::StrCat("characters[", k, "].dynamic_chains[", i, "]"),
          absl::StrCat(c, ": not a dynamic chain of ", RigNamed(character),
                       " listed once (", all_chains, " chains)"));
    }
  }
  const size_t chains =
      tick.dynamic_chains.empty() ? all_chains : tick.dynamic_chains.size();
  if (!tick.dynamic_states.empty() && tick.dynamic_states.size() != chains) {
    return SizeMismatch(k, "dynamic_states", tick.dynamic_states.size(),
                        "states", chains, "dynamic chains stepped");
  }
  if (!tick.state_paths.empty() &&
      tick.state_paths.size() != tick.dynamic_states.size()) {
    return SizeMismatch(k, "state_paths", tick.state_paths.size(), "paths",
                        tick.dynamic_states.size(), "states");
  }
  if (tick.dynamic_reports.size() != tick.dynamic_states.size()) {
    return SizeMismatch(k, "dynamic_reports", tick.dynamic_reports.size(),
                        "reports", tick.dynamic_states.size(), "states");
  }
  return absl::OkStatus();
}

// With read_back, the rotations of `tick.locals` before a job, into the
// buffer of the group's `slot`-th character.
void BeforeJob(const TickBatchJob& batch, const CharacterTick& tick,
               size_t slot) {
  if (!tick.read_back) return;
  std::vector<Quat>& before = batch.scratch->before_job[slot];
  before.resize(tick.locals.size());
  for (size_t j = 0; j < tick.locals.size(); ++j) {
    before[j] = tick.locals[j].rotation;
  }
}

// With read_back, after a job that succeeded: each rotation it changed
// made unit (Unit), as the next single job would read it.
void ReadBack(const TickBatchJob& batch, CharacterTick& tick, size_t slot) {
  if (!tick.read_back) return;
  const std::vector<Quat>& before = batch.scratch->before_job[slot];
  for (size_t j = 0; j < tick.locals.size(); ++j) {
    Quat& rotation = tick.locals[j].rotation;
    if (std::memcmp(&rotation, &before[j], sizeof(Quat)) != 0) {
      rotation = Unit(rotation);
    }
  }
}

// The characters of a group that a job runs for, by their place in it.
struct GroupSlots {
  size_t count = 0;
  size_t slot[kTickGroupCharacters];
};

void FillGroundJob(const TickBatchJob& batch, CharacterTick& tick,
                   GroundFeetJob& job) {
  job.rig = &batch.character->rig;
  job.legs = batch.character->legs;
  job.root = tick.root;
  job.locals = tick.locals;
  job.pose_path = tick.pose_path;
  job.ground = tick.ground != nullptr ? *tick.ground : batch.ground;
  job.weights = tick.leg_weights.empty()
                    ? absl::MakeConstSpan(batch.scratch->all_planted)
                    : tick.leg_weights;
  job.smoothing = tick.smoothing;
  job.tolerance = tick.ground_tolerance;
  job.feet = tick.feet;
  job.report = &tick.ground_report;
}

// The group's grounding, its legs' solves side by side
// (internal::RunGroundFeetJobs).
void GroundGroup(const TickBatchJob& batch, absl::Span<CharacterTick> group) {
  GroundFeetJob jobs[kTickGroupCharacters];
  const GroundFeetJob* run[kTickGroupCharacters];
  GroupSlots grounded;
  for (size_t k = 0; k < group.size(); ++k) {
    if (!group[k].ground_feet) continue;
    FillGroundJob(batch, group[k], jobs[grounded.count]);
    BeforeJob(batch, group[k], k);
    run[grounded.count] = &jobs[grounded.count];
    grounded.slot[grounded.count++] = k;
  }
  absl::Status statuses[kTickGroupCharacters];
  internal::RunGroundFeetJobs(absl::MakeConstSpan(run, grounded.count),
                              statuses);
  for (size_t i = 0; i < grounded.count; ++i) {
    CharacterTick& tick = group[grounded.slot[i]];
    tick.ground_status = std::move(statuses[i]);
    if (!tick.ground_status.ok()) continue;
    tick.root.translation += tick.ground_report.root_offset;
    if (tick.observer != nullptr) tick.observer->Grounded(tick);
    ReadBack(batch, tick, grounded.slot[i]);
  }
}

// The joints of every goal's chain of `tick`, in order (all-or-none).
void SaveGoalJoints(const CharacterTick& tick, std::vector<Transform>& before) {
  before.clear();
  for (const ChainGoal& goal : tick.goals) {
    if (goal.chain == nullptr) continue;  // the job reports it
    for (const int joint : goal.chain->joints) {
      if (joint >= 0 && static_cast<size_t>(joint) < tick.locals.size()) {
        before.push_back(tick.locals[joint]);
      }
    }
  }
}

// A goal of `tick` failed: its goals' joints put back as SaveGoalJoints
// found them (in reverse, so a joint of two chains ends as it began).
void PutBackGoalJoints(CharacterTick& tick,
                       const std::vector<Transform>& before) {
  size_t saved = before.size();
  for (size_t g = tick.goals.size(); g-- > 0;) {
    const Chain* chain = tick.goals[g].chain;
    if (chain == nullptr) continue;
    for (size_t k = chain->joints.size(); k-- > 0;) {
      const int joint = chain->joints[k];
      if (joint >= 0 && static_cast<size_t>(joint) < tick.locals.size()) {
        tick.locals[joint] = before[--saved];
      }
    }
  }
}

// The group's goals: the i-th goal of every character whose goals have not
// failed, the two-bone solves among them side by side
// (internal::RunChainGoalGroup), then the (i + 1)-th.
static_assert(kTickGroupCharacters <= internal::kChainGoalLanes);
class GroupGoals {
 public:
  GroupGoals(const TickBatchJob& batch, absl::Span<CharacterTick> group)
      : batch_(batch), group_(group) {}

  void Run() {
    size_t most = 0;
    for (size_t k = 0; k < group_.size(); ++k) {
      CharacterTick& tick = group_[k];
      if (tick.goals.empty()) continue;
      SaveGoalJoints(tick, batch_.scratch->goal_joints_before[k]);
      SolveChainJob& job = jobs_[k];
      job.rig = &batch_.character->rig;
      job.root = tick.root;
      job.locals = tick.locals;
      job.pose_path = tick.pose_path;
      job.workspace = &batch_.scratch->chain[k];
      BeforeJob(batch_, tick, k);
      most = std::max(most, tick.goals.size());
    }
    for (size_t i = 0; i < most; ++i) SolveGoal(i);
    for (size_t k = 0; k < group_.size(); ++k) {
      if (!group_[k].goals.empty() && group_[k].goals_status.ok()) {
        ReadBack(batch_, group_[k], k);
      }
    }
  }

 private:
  void SolveGoal(size_t i) {
    GroupSlots solving;
    const SolveChainJob* ready[kTickGroupCharacters];
    for (size_t k = 0; k < group_.size(); ++k) {
      CharacterTick& tick = group_[k];
      if (i >= tick.goals.size() || !tick.goals_status.ok()) continue;
      jobs_[k].goal = &tick.goals[i];
      jobs_[k].result = &tick.goal_results[i];
      ready[solving.count] = &jobs_[k];
      solving.slot[solving.count++] = k;
    }
    absl::Status statuses[kTickGroupCharacters];
    internal::RunChainGoalGroup(absl::MakeConstSpan(ready, solving.count),
                                steps_, statuses);
    for (size_t p = 0; p < solving.count; ++p) {
      Solved(solving.slot[p], i, statuses[p]);
    }
  }

  void Solved(size_t k, size_t i, const absl::Status& status) {
    CharacterTick& tick = group_[k];
    if (!status.ok()) {
      tick.goals_status = status;
      PutBackGoalJoints(tick, batch_.scratch->goal_joints_before[k]);
      return;
    }
    if (tick.observer != nullptr) tick.observer->GoalSolved(tick, i);
  }

  const TickBatchJob& batch_;
  absl::Span<CharacterTick> group_;
  SolveChainJob jobs_[kTickGroupCharacters];
  internal::ChainGoalSteps steps_[kTickGroupCharacters];
};

// The chain the `i`-th state of `tick` is for.
const DynamicChainBinding& ChainStepped(const Character& character,
                                        const CharacterTick& tick, size_t i) {
  return character
      .dynamic_chains[tick.dynamic_chains.empty() ? i : tick.dynamic_chains[i]];
}

// The i-th chain stepped of `tick` (slot `k` of the group), its rotations
// into the character's buffer from `offset` on.
void FillDynamicsStep(const TickBatchJob& batch, const CharacterTick& tick,
                      size_t k, size_t i, size_t offset,
                      RigDynamicsStep& step) {
  const Character& character = *batch.character;
  TickScratch& scratch = *batch.scratch;
  const DynamicChainBinding& chain = ChainStepped(character, tick, i);
  step.rig = &character.rig;
  step.colliders = character.colliders;
  step.chain = &chain;
  step.models_world = scratch.world[k];
  step.locals = tick.locals;
  step.delta_time = tick.delta_time;
  step.reset = tick.reset_dynamics;
  step.wind = tick.wind;
  step.state = &tick.dynamic_states[i];
  step.state_path =
      tick.state_paths.empty() ? scratch.state_paths[i] : tick.state_paths[i];
  step.rotations_local =
      absl::MakeSpan(scratch.rotations[k]).subspan(offset, chain.joints.size());
  step.report = &tick.dynamic_reports[i];
}

// The group's dynamics: every chain of a character steps on the same pose
// (the one the goals left), the i-th chains of the group's characters side
// by side (dynamics_internal::RunRigDynamicsSteps); a character's rotations
// are set once all its chains have stepped (none when one fails).
class GroupDynamics {
 public:
  GroupDynamics(const TickBatchJob& batch, absl::Span<CharacterTick> group)
      : batch_(batch), group_(group) {}

  void Run() {
    size_t most = 0;
    for (size_t k = 0; k < group_.size(); ++k) {
      const CharacterTick& tick = group_[k];
      offsets_[k] = 0;
      if (tick.dynamic_states.empty()) continue;
      batch_.character->DynamicsWorld(tick.locals, tick.root,
                                      absl::MakeSpan(batch_.scratch->world[k]));
      most = std::max(most, tick.dynamic_states.size());
    }
    for (size_t i = 0; i < most; ++i) StepChains(i);
    for (size_t k = 0; k < group_.size(); ++k) {
      if (!group_[k].dynamic_states.empty() && group_[k].dynamics_status.ok()) {
        SetRotations(group_[k], k);
      }
    }
  }

 private:
  void StepChains(size_t i) {
    RigDynamicsStep steps[kTickGroupCharacters];
    const RigDynamicsStep* run[kTickGroupCharacters];
    GroupSlots stepping;
    for (size_t k = 0; k < group_.size(); ++k) {
      const CharacterTick& tick = group_[k];
      if (i >= tick.dynamic_states.size() || !tick.dynamics_status.ok()) {
        continue;
      }
      FillDynamicsStep(batch_, tick, k, i, offsets_[k], steps[stepping.count]);
      run[stepping.count] = &steps[stepping.count];
      stepping.slot[stepping.count++] = k;
    }
    absl::Status statuses[kTickGroupCharacters];
    dynamics_internal::RunRigDynamicsSteps(
        absl::MakeConstSpan(run, stepping.count), statuses);
    for (size_t p = 0; p < stepping.count; ++p) {
      const size_t k = stepping.slot[p];
      group_[k].dynamics_status = std::move(statuses[p]);
      offsets_[k] += steps[p].chain->joints.size();
    }
  }

  void SetRotations(CharacterTick& tick, size_t k) {
    const Character& character = *batch_.character;
    const std::vector<Quat>& rotations = batch_.scratch->rotations[k];
    if (tick.observer != nullptr) {
      tick.observer->DynamicsStepped(
          tick, absl::MakeConstSpan(rotations).subspan(0, offsets_[k]));
    }
    BeforeJob(batch_, tick, k);
    size_t offset = 0;
    for (size_t i = 0; i < tick.dynamic_states.size(); ++i) {
      const DynamicChainBinding& chain = ChainStepped(character, tick, i);
      for (size_t j = 0; j < chain.joints.size(); ++j) {
        if (chain.turns[j]) {
          tick.locals[chain.joints[j]].rotation = rotations[offset + j];
        }
      }
      offset += chain.joints.size();
    }
    ReadBack(batch_, tick, k);
  }

  const TickBatchJob& batch_;
  absl::Span<CharacterTick> group_;
  size_t offsets_[kTickGroupCharacters];
};

}  // namespace

absl::Status TickBatchJob::Validate() const {
  if (character == nullptr) return InvalidField("character", "not set");
  if (scratch == nullptr) return InvalidField("scratch", "not set");
  if (absl::Status status = ground.Validate("ground"); !status.ok()) {
    return status;
  }
  for (size_t k = 0; k < characters.size(); ++k) {
    if (absl::Status status = CheckCharacterSpans(*character, k, characters[k]);
        !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

absl::Status TickBatchJob::Run() const {
  if (absl::Status status = Validate(); !status.ok()) return status;
  // Once per batch: the buffers' sizes and what dynamics reads.
  size_t chain_joints = 0;
  for (const DynamicChainBinding& chain : character->dynamic_chains) {
    chain_joints += chain.joints.size();
  }
  for (size_t k = 0; k < kTickGroupCharacters; ++k) {
    scratch->rotations[k].resize(chain_joints);
    scratch->world[k].resize(character->rig.joint_count());
  }
  // Kept from call to call: the paths are made once per number of chains.
  for (size_t c = scratch->state_paths.size();
       c < character->dynamic_chains.size(); ++c) {
    scratch->state_paths.push_back(absl::StrCat("dynamic_states[", c, "]"));
  }
  scratch->all_planted.assign(character->legs.size(), 1.0);
  const size_t group = std::min(kTickGroupCharacters, characters.size());
  if (scratch->chain.size() < group) scratch->chain.resize(group);
  for (size_t first = 0; first < characters.size();
       first += kTickGroupCharacters) {
    const absl::Span<CharacterTick> group =
        characters.subspan(first, kTickGroupCharacters);
    for (CharacterTick& tick : group) {
      tick.ground_status = absl::OkStatus();
      tick.goals_status = absl::OkStatus();
      tick.dynamics_status = absl::OkStatus();
    }
    GroundGroup(*this, group);
    GroupGoals(*this, group).Run();
    GroupDynamics(*this, group).Run();
  }
  return absl::OkStatus();
}

}  // namespace ik
