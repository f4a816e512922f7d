// IkHandlers::StepDynamics: one time step of a rig's dynamic chains.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "convert/dynamics.h"
#include "convert/rig.h"
#include "convert/values.h"
#include "handlers/handlers.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "ik/dynamics/rig_dynamics.h"
#include "rpc/core_time.h"

namespace ik::server {
namespace {

// The chains a request steps, each once, into `chains`: those it names, or
// all of them.
absl::Status ChainsToStep(const v1::StepDynamicsRequest& request,
                          const Character& character,
                          std::vector<const DynamicChainBinding*>& chains) {
  const Rig& rig = character.rig;
  chains.clear();
  if (request.chains_size() == 0) {
    if (character.dynamic_chains.empty()) {
      return FieldError(
          absl::StatusCode::kFailedPrecondition, "rig",
          absl::StrCat("rig '", rig.name(), "' has no dynamic chains"));
    }
    for (const DynamicChainBinding& chain : character.dynamic_chains) {
      chains.push_back(&chain);
    }
  }
  for (int i = 0; i < request.chains_size(); ++i) {
    const DynamicChainBinding* chain =
        character.FindDynamicChain(request.chains(i));
    const std::string path = absl::StrCat("chains[", i, "]");
    if (chain == nullptr) {
      return FieldError(
          absl::StatusCode::kNotFound, path,
          absl::StrCat("rig ", Quoted(rig.name()), " has no dynamic chain ",
                       Quoted(request.chains(i))));
    }
    for (const DynamicChainBinding* seen : chains) {
      if (seen == chain) {
        return InvalidField(path, absl::StrCat("dynamic chain '", chain->name,
                                               "' is listed twice"));
      }
    }
    chains.push_back(chain);
  }
  return absl::OkStatus();
}

// The request's state for each of `chains` into `state_of_chain` (its
// index in request.states, or -1 for none): one per stepped chain at most,
// made with the rig's current revision.
absl::Status StatesByChain(const v1::StepDynamicsRequest& request,
                           absl::Span<const DynamicChainBinding* const> chains,
                           const Rig& rig, absl::string_view revision,
                           std::vector<int>& state_of_chain) {
  state_of_chain.assign(chains.size(), -1);
  for (int i = 0; i < request.states_size(); ++i) {
    const v1::DynamicChainState& state = request.states(i);
    const std::string path = absl::StrCat("states[", i, "]");
    size_t stepped = 0;
    while (stepped < chains.size() && chains[stepped]->name != state.chain()) {
      ++stepped;
    }
    if (stepped == chains.size()) {
      return InvalidField(absl::StrCat(path, ".chain"),
                          absl::StrCat(Quoted(state.chain()),
                                       " is not a dynamic chain this request "
                                       "steps"));
    }
    if (state_of_chain[stepped] >= 0) {
      return InvalidField(
          absl::StrCat(path, ".chain"),
          absl::StrCat("a second state for ", Quoted(state.chain())));
    }
    state_of_chain[stepped] = i;
    if (absl::Status status = CheckStateForm(state, path); !status.ok()) {
      return status;
    }
    if (!state.revision().empty() && state.revision() != revision) {
      return FieldError(
          absl::StatusCode::kFailedPrecondition,
          absl::StrCat(path, ".revision"),
          absl::StrCat("the state was made with ", state.revision(),
                       " but rig '", rig.name(), "' is now ", revision,
                       " (reset the chain: send no state)"));
    }
  }
  return absl::OkStatus();
}

// One step of `chain` from the request's state `state_index` (-1: none)
// on the pose (`world`: its world transforms), as the answer's result; the
// chain's new local rotations are appended to `stepped`.
absl::Status StepChain(const v1::StepDynamicsRequest& request,
                       const Character& character,
                       const DynamicChainBinding& chain, int state_index,
                       absl::Span<const Transform> world,
                       absl::Span<const Transform> locals,
                       const WindSettings* wind, absl::string_view revision,
                       AnswerForm form, v1::DynamicChainResult& result,
                       std::vector<std::pair<int, Quat>>& stepped) {
  // This thread's, reused (nothing here yields to another call).
  thread_local DynamicState state;
  std::string state_path = "states";
  if (state_index >= 0) {
    StateFromProto(request.states(state_index), state);
    state_path = absl::StrCat("states[", state_index, "]");
  } else {  // none: an empty state, the chain starts from rest
    StateFromProto(v1::DynamicChainState::default_instance(), state);
  }
  thread_local std::vector<Quat> rotations;
  rotations.assign(chain.joints.size(), IdentityQuat());
  DynamicsReport report;
  RigDynamicsStep step;
  step.rig = &character.rig;
  step.colliders = character.colliders;
  step.chain = &chain;
  step.models_world = world;
  step.locals = locals;
  step.delta_time = request.delta_time();
  step.reset = request.reset();
  step.wind = wind;
  step.state = &state;
  step.state_path = state_path;
  step.rotations_local = absl::MakeSpan(rotations);
  step.report = &report;
  if (absl::Status status = RunCore(step); !status.ok()) {
    return state_index >= 0
               ? InStateForm(status, request.states(state_index), state_path)
               : status;
  }
  DynamicChainResultToProto(character.rig, chain, rotations, state, report,
                            revision, form, result);
  for (size_t k = 0; k < chain.joints.size(); ++k) {
    if (chain.turns[k]) stepped.emplace_back(chain.joints[k], rotations[k]);
  }
  return absl::OkStatus();
}

// What a step reads from the request besides the pose, checked: its
// delta_time, the chains it steps, each one's index in request.states (-1:
// none) and its wind.
absl::Status ReadStepRequest(const v1::StepDynamicsRequest& request,
                             const Character& character,
                             const std::string& revision,
                             std::vector<const DynamicChainBinding*>& chains,
                             std::vector<int>& state_of_chain,
                             std::optional<WindSettings>& wind) {
  if (!(request.delta_time() >= 0.0) || !IsFinite(request.delta_time())) {
    return InvalidField(
        "delta_time",
        absl::StrCat(request.delta_time(), " is not a finite time >= 0"));
  }
  if (absl::Status status = ChainsToStep(request, character, chains);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = StatesByChain(request, chains, character.rig,
                                          revision, state_of_chain);
      !status.ok()) {
    return status;
  }
  if (request.has_wind()) {
    wind = WindFromProto(request.wind());
    if (absl::Status status = wind->Validate("wind"); !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status IkHandlers::StepDynamics(const v1::StepDynamicsRequest& request,
                                      v1::StepDynamicsResponse& response) {
  absl::StatusOr<std::shared_ptr<const RigEntry>> entry =
      PinnedRig(request.rig(), request.revision());
  if (!entry.ok()) return entry.status();
  absl::StatusOr<DensePose> pose =
      PoseFromProto(request.pose(), (*entry)->rig());
  if (!pose.ok()) return pose.status();
  return StepPoseDynamics(**entry, request, *pose, AnswerForm::kFull, response);
}

absl::Status IkHandlers::StepPoseDynamics(
    const RigEntry& entry, const v1::StepDynamicsRequest& request,
    DensePose& pose, AnswerForm form,
    v1::StepDynamicsResponse& response) const {
  const Character& character = entry.character;
  const Rig& rig = character.rig;
  const std::string& revision = entry.revision;
  // This thread's, reused (nothing here yields to another call).
  thread_local std::vector<const DynamicChainBinding*> chains;
  thread_local std::vector<int> state_of_chain;
  std::optional<WindSettings> wind;
  if (absl::Status status = ReadStepRequest(request, character, revision,
                                            chains, state_of_chain, wind);
      !status.ok()) {
    return status;
  }

  // This thread's, reused (nothing here yields to another call): the world
  // transforms of the joints dynamics reads (the rest are stale, never
  // read), as forward kinematics of the whole pose gives them.
  thread_local std::vector<Transform> world;
  world.resize(rig.joint_count());
  {
    CoreTime::Scope core;
    character.DynamicsWorld(pose.locals, pose.root, absl::MakeSpan(world));
  }

  if (form == AnswerForm::kFull) response.set_revision(revision);
  // Every chain steps on the incoming pose; their rotations are set after.
  thread_local std::vector<std::pair<int, Quat>> stepped;
  stepped.clear();
  for (size_t c = 0; c < chains.size(); ++c) {
    if (absl::Status status =
            StepChain(request, character, *chains[c], state_of_chain[c], world,
                      pose.locals, wind.has_value() ? &*wind : nullptr,
                      revision, form, *response.add_results(), stepped);
        !status.ok()) {
      return status;
    }
  }
  for (const auto& [joint, rotation] : stepped) {
    pose.locals[joint].rotation = rotation;
  }
  std::int64_t substeps = 0;
  for (const v1::DynamicChainResult& result : response.results()) {
    substeps += result.substeps();
  }
  counters_.AddDynamics(response.results_size(), substeps);
  return absl::OkStatus();
}

}  // namespace ik::server
