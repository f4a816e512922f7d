// TickBatchJob (ik/character/tick_batch.h): the batch's checks, the
// set-up shared by its characters, and each character's three jobs.
#include "ik/character/tick_batch.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "ik/dynamics/rig_dynamics.h"

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

// With read_back, the rotations of `tick.locals` before a job.
void BeforeJob(const TickBatchJob& batch, const CharacterTick& tick) {
  if (!tick.read_back) return;
  std::vector<Quat>& before = batch.scratch->before_job;
  before.resize(tick.locals.size());
  for (size_t j = 0; j < tick.locals.size(); ++j) {
    before[j] = tick.locals[j].rotation;
  }
}

// With read_back, after a job that succeeded: each rotation it changed
// divided by its norm, as the next single job would read it.
void ReadBack(const TickBatchJob& batch, CharacterTick& tick) {
  if (!tick.read_back) return;
  const std::vector<Quat>& before = batch.scratch->before_job;
  for (size_t j = 0; j < tick.locals.size(); ++j) {
    Quat& rotation = tick.locals[j].rotation;
    if (std::memcmp(&rotation, &before[j], sizeof(Quat)) != 0) {
      rotation = rotation / Norm(rotation);
    }
  }
}

void GroundCharacter(const TickBatchJob& batch, CharacterTick& tick) {
  if (!tick.ground_feet) return;
  GroundFeetJob job;
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
  BeforeJob(batch, tick);
  tick.ground_status = job.Run();
  if (!tick.ground_status.ok()) return;
  tick.root.translation += tick.ground_report.root_offset;
  if (tick.observer != nullptr) tick.observer->Grounded(tick);
  ReadBack(batch, tick);
}

// All or none: the goals' joints are saved before the first goal and put
// back (in reverse, so a joint of two chains ends as it began) when one
// fails.
void SolveCharacterGoals(const TickBatchJob& batch, CharacterTick& tick) {
  if (tick.goals.empty()) return;
  std::vector<Transform>& before = batch.scratch->goal_joints_before;
  before.clear();
  for (const ChainGoal& goal : tick.goals) {
    if (goal.chain == nullptr) continue;  // the job reports it
    for (const int joint : goal.chain->joints) {
      if (joint >= 0 && static_cast<size_t>(joint) < tick.locals.size()) {
        before.push_back(tick.locals[joint]);
      }
    }
  }
  SolveChainJob job;
  job.rig = &batch.character->rig;
  job.root = tick.root;
  job.locals = tick.locals;
  job.pose_path = tick.pose_path;
  job.workspace = &batch.scratch->chain;
  BeforeJob(batch, tick);
  for (size_t i = 0; i < tick.goals.size(); ++i) {
    job.goal = &tick.goals[i];
    job.result = &tick.goal_results[i];
    tick.goals_status = job.Run();
    if (tick.goals_status.ok()) {
      if (tick.observer != nullptr) tick.observer->GoalSolved(tick, i);
      continue;
    }
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
    return;
  }
  ReadBack(batch, tick);
}

// The chain the `i`-th state of `tick` is for.
const DynamicChainBinding& ChainStepped(const Character& character,
                                        const CharacterTick& tick, size_t i) {
  return character
      .dynamic_chains[tick.dynamic_chains.empty() ? i : tick.dynamic_chains[i]];
}

// Every chain steps on the same pose; their rotations are set once all
// have stepped (none when one fails).
void StepCharacterDynamics(const TickBatchJob& batch, CharacterTick& tick) {
  if (tick.dynamic_states.empty()) return;
  const Character& character = *batch.character;
  TickScratch& scratch = *batch.scratch;
  character.DynamicsWorld(tick.locals, tick.root,
                          absl::MakeSpan(scratch.world));
  size_t offset = 0;
  for (size_t i = 0; i < tick.dynamic_states.size(); ++i) {
    const DynamicChainBinding& chain = ChainStepped(character, tick, i);
    RigDynamicsStep step;
    step.rig = &character.rig;
    step.colliders = character.colliders;
    step.chain = &chain;
    step.models_world = scratch.world;
    step.locals = tick.locals;
    step.delta_time = tick.delta_time;
    step.reset = tick.reset_dynamics;
    step.wind = tick.wind;
    step.state = &tick.dynamic_states[i];
    step.state_path =
        tick.state_paths.empty() ? scratch.state_paths[i] : tick.state_paths[i];
    step.rotations_local =
        absl::MakeSpan(scratch.rotations).subspan(offset, chain.joints.size());
    step.report = &tick.dynamic_reports[i];
    tick.dynamics_status = step.Run();
    if (!tick.dynamics_status.ok()) return;
    offset += chain.joints.size();
  }
  if (tick.observer != nullptr) {
    tick.observer->DynamicsStepped(
        tick, absl::MakeConstSpan(scratch.rotations).subspan(0, offset));
  }
  BeforeJob(batch, tick);
  offset = 0;
  for (size_t i = 0; i < tick.dynamic_states.size(); ++i) {
    const DynamicChainBinding& chain = ChainStepped(character, tick, i);
    for (size_t k = 0; k < chain.joints.size(); ++k) {
      if (chain.turns[k]) {
        tick.locals[chain.joints[k]].rotation = scratch.rotations[offset + k];
      }
    }
    offset += chain.joints.size();
  }
  ReadBack(batch, tick);
}

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
  scratch->rotations.resize(chain_joints);
  scratch->world.resize(character->rig.joint_count());
  // Kept from call to call: the paths are made once per number of chains.
  for (size_t c = scratch->state_paths.size();
       c < character->dynamic_chains.size(); ++c) {
    scratch->state_paths.push_back(absl::StrCat("dynamic_states[", c, "]"));
  }
  scratch->all_planted.assign(character->legs.size(), 1.0);
  for (CharacterTick& tick : characters) {
    tick.ground_status = absl::OkStatus();
    tick.goals_status = absl::OkStatus();
    tick.dynamics_status = absl::OkStatus();
    GroundCharacter(*this, tick);
    SolveCharacterGoals(*this, tick);
    StepCharacterDynamics(*this, tick);
  }
  return absl::OkStatus();
}

}  // namespace ik
