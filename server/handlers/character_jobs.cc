// CharacterJobs (character_jobs.h): the single RPCs' requests read into the
// core's CharacterTick, the batch run, and the answers written as it
// reports each job.
#include "handlers/character_jobs.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "convert/dynamics.h"
#include "convert/ground.h"
#include "convert/rig.h"
#include "convert/solve.h"
#include "handlers/request_ground.h"
#include "handlers/work.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "rpc/core_time.h"

namespace ik::server {
namespace {

// `goals` converted on `rig` into `converted`; the ad-hoc chains they
// name live in `ad_hoc_chains`, which must outlive them.
absl::Status GoalsFromProto(
    const google::protobuf::RepeatedPtrField<v1::ChainGoal>& goals,
    const Rig& rig, std::list<Chain>& ad_hoc_chains,
    std::vector<ChainGoal>& converted) {
  converted.clear();
  converted.reserve(goals.size());
  for (int i = 0; i < goals.size(); ++i) {
    absl::StatusOr<ChainGoal> goal =
        GoalFromProto(goals[i], rig, i, ad_hoc_chains);
    if (!goal.ok()) return goal.status();
    converted.push_back(*goal);
  }
  return absl::OkStatus();
}

// " exceeds the limit of <limit> per character (ikd
// --max_work_per_character)": how every work refusal ends.
std::string PerCharacterLimit(const ServiceLimits& limits) {
  return absl::StrCat(" exceeds the limit of ", limits.max_work_per_character,
                      " per character (ikd --max_work_per_character)");
}

// The work `goals` may take into `*work`; RESOURCE_EXHAUSTED when it is
// more than a character may ask.
absl::Status WithinWorkBudget(absl::Span<const ChainGoal> goals,
                              const ServiceLimits& limits, std::int64_t* work) {
  *work = 0;
  for (size_t i = 0; i < goals.size(); ++i) {
    const std::int64_t goal_work = GoalWork(goals[i]);
    *work += goal_work;
    if (goal_work > limits.max_work_per_character &&
        goals[i].max_iterations.has_value()) {
      return FieldError(
          absl::StatusCode::kResourceExhausted,
          absl::StrCat("goals[", i, "].max_iterations"),
          absl::StrCat("the goal's work, ", *goals[i].max_iterations,
                       " iterations on ", goals[i].chain->joints.size(),
                       " joints,", PerCharacterLimit(limits)));
    }
  }
  if (*work <= limits.max_work_per_character) return absl::OkStatus();
  return FieldError(
      absl::StatusCode::kResourceExhausted, "goals",
      absl::StrCat(
          "the goals' work, ", *work,
          " (per goal, its joints times its iteration cap and a fixed part),",
          PerCharacterLimit(limits)));
}

// The chains a request steps, each once, into `chains` (indices into
// character.dynamic_chains): those it names, or all of them.
absl::Status ChainsToStep(const v1::StepDynamicsRequest& request,
                          const Character& character,
                          std::vector<int>& chains) {
  const Rig& rig = character.rig;
  chains.clear();
  if (request.chains_size() == 0) {
    if (character.dynamic_chains.empty()) {
      return FieldError(
          absl::StatusCode::kFailedPrecondition, "rig",
          absl::StrCat("rig '", rig.name(), "' has no dynamic chains"));
    }
    for (size_t c = 0; c < character.dynamic_chains.size(); ++c) {
      chains.push_back(static_cast<int>(c));
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
    const int index = static_cast<int>(chain - character.dynamic_chains.data());
    if (std::find(chains.begin(), chains.end(), index) != chains.end()) {
      return InvalidField(path, absl::StrCat("dynamic chain '", chain->name,
                                             "' is listed twice"));
    }
    chains.push_back(index);
  }
  return absl::OkStatus();
}

// The request's state for each of `chains` into `state_of_chain` (its
// index in request.states, or -1 for none): one per stepped chain at most,
// made with the rig's current revision.
absl::Status StatesByChain(const v1::StepDynamicsRequest& request,
                           absl::Span<const int> chains,
                           const Character& character,
                           absl::string_view revision,
                           std::vector<int>& state_of_chain) {
  const Rig& rig = character.rig;
  state_of_chain.assign(chains.size(), -1);
  for (int i = 0; i < request.states_size(); ++i) {
    const v1::DynamicChainState& state = request.states(i);
    const std::string path = absl::StrCat("states[", i, "]");
    size_t stepped = 0;
    while (stepped < chains.size() &&
           character.dynamic_chains[chains[stepped]].name != state.chain()) {
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

// What a step reads from the request besides the pose, checked: its
// delta_time, the chains it steps, each one's index in request.states (-1:
// none) and its wind.
absl::Status ReadStepRequest(const v1::StepDynamicsRequest& request,
                             const Character& character,
                             const std::string& revision,
                             std::vector<int>& chains,
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
  if (absl::Status status =
          StatesByChain(request, chains, character, revision, state_of_chain);
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

absl::Status ReadGoals(
    const google::protobuf::RepeatedPtrField<v1::ChainGoal>& goals,
    const Rig& rig, const ServiceLimits& limits,
    std::list<Chain>& ad_hoc_chains, std::vector<ChainGoal>& converted,
    std::int64_t* work) {
  if (goals.size() > limits.max_goals_per_request) {
    return FieldError(
        absl::StatusCode::kResourceExhausted, "goals",
        absl::StrCat(goals.size(), " goals exceed the limit of ",
                     limits.max_goals_per_request, " per request"));
  }
  if (absl::Status status =
          GoalsFromProto(goals, rig, ad_hoc_chains, converted);
      !status.ok()) {
    return status;
  }
  std::int64_t goals_work = 0;
  absl::Status within = WithinWorkBudget(converted, limits, &goals_work);
  if (work != nullptr) *work = goals_work;
  return within;
}

CharacterJobs& CharacterJobs::ForThisThread(size_t slot) {
  // On the heap: a thread that never runs a character pays nothing.
  thread_local std::array<std::unique_ptr<CharacterJobs>, kTickGroupCharacters>
      jobs;
  if (jobs[slot] == nullptr) jobs[slot] = std::make_unique<CharacterJobs>();
  return *jobs[slot];
}

void CharacterJobs::Start(const RigEntry& entry, DensePose& pose,
                          AnswerForm form, bool read_back,
                          const ServiceLimits& limits,
                          SolveCounters& counters) {
  entry_ = &entry;
  pose_ = &pose;
  form_ = form;
  limits_ = &limits;
  counters_ = &counters;
  work_ = grounding_work_ = goals_work_ = dynamics_work_ = 0;
  counting_only_ = false;
  tick_ = CharacterTick();
  tick_.root = pose.root;
  tick_.locals = absl::MakeSpan(pose.locals);
  tick_.pose_path = "pose";
  tick_.read_back = read_back;
  tick_.observer = this;
  ground_ = nullptr;
  ground_answer_ = nullptr;
  goal_answers_ = nullptr;
  dynamics_ = nullptr;
  dynamics_answer_ = nullptr;
}

absl::Status CharacterJobs::AddGrounding(const v1::GroundFeetRequest& request,
                                         const RequestGround& ground,
                                         v1::GroundFeetResponse* answer) {
  const Character& character = entry_->character;
  if (character.legs.empty()) {
    return FieldError(absl::StatusCode::kFailedPrecondition, "rig",
                      absl::StrCat("'", character.rig.name(),
                                   "' has no legs (Rig.legs) to ground"));
  }
  if (absl::Status status = CheckSmoothingLimits(request); !status.ok()) {
    return status;
  }
  if (absl::Status status = Count(
          GroundingWork(character, ground.view()), "ground", "grounding's",
          "per leg: 3 joints and 2 rays, each testing every plane, heightfield "
          "and the triangles a ray may meet",
          grounding_work_);
      !status.ok() || counting_only_) {
    return status;
  }
  // The core checks the weights ("weights: 1 values for rig 'humanoid' of
  // 2 legs", "weights[1]: ...") and the smoothing.
  weights_.assign(request.weights().begin(), request.weights().end());
  tick_.leg_weights = weights_;
  tick_.smoothing = SmoothingFromProto(request, previous_offsets_);
  tick_.ground_tolerance =
      request.has_tolerance() ? request.tolerance() : kDefaultTolerance;
  feet_.assign(character.legs.size(), FootResult());
  tick_.feet = absl::MakeSpan(feet_);
  ground_ = &ground;
  ground_view_ = ground.view();
  tick_.ground = &ground_view_;
  tick_.ground_feet = true;
  ground_answer_ = answer;
  return absl::OkStatus();
}

absl::Status CharacterJobs::AddGoals(
    const google::protobuf::RepeatedPtrField<v1::ChainGoal>& goals,
    google::protobuf::RepeatedPtrField<v1::GoalResult>* results) {
  ad_hoc_chains_.clear();
  std::int64_t work = 0;
  if (absl::Status status = ReadGoals(goals, entry_->rig(), *limits_,
                                      ad_hoc_chains_, goals_, &work);
      !status.ok()) {
    return status;
  }
  goals_work_ = work;
  work_ += work;
  goal_results_.resize(goals_.size());
  tick_.goals = goals_;
  tick_.goal_results = absl::MakeSpan(goal_results_);
  goal_answers_ = results;
  return absl::OkStatus();
}

absl::Status CharacterJobs::AddDynamics(const v1::StepDynamicsRequest& request,
                                        v1::StepDynamicsResponse& answer) {
  const Character& character = entry_->character;
  wind_.reset();
  if (absl::Status status =
          ReadStepRequest(request, character, entry_->revision, chains_,
                          state_of_chain_, wind_);
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          Count(DynamicsWork(character, chains_), "chains", "the dynamics'",
                "per chain stepped: joints x most substeps x (colliders + 1)",
                dynamics_work_);
      !status.ok() || counting_only_) {
    return status;
  }
  const size_t chains = chains_.size();
  states_.resize(chains);
  state_paths_.resize(chains);
  reports_.assign(chains, DynamicsReport());
  for (size_t c = 0; c < chains; ++c) {
    // No state: an empty one, the chain starts from rest.
    const int index = state_of_chain_[c];
    StateFromProto(index >= 0 ? request.states(index)
                              : v1::DynamicChainState::default_instance(),
                   states_[c]);
    std::string& path = state_paths_[c];
    path = "states";
    if (index >= 0) absl::StrAppend(&path, "[", index, "]");
  }
  tick_.dynamic_chains = chains_;
  tick_.dynamic_states = absl::MakeSpan(states_);
  tick_.state_paths = state_paths_;
  tick_.dynamic_reports = absl::MakeSpan(reports_);
  tick_.delta_time = request.delta_time();
  tick_.reset_dynamics = request.reset();
  tick_.wind = wind_.has_value() ? &*wind_ : nullptr;
  dynamics_ = &request;
  dynamics_answer_ = &answer;
  return absl::OkStatus();
}

absl::Status CharacterJobs::Count(std::int64_t work, absl::string_view field,
                                  absl::string_view whose,
                                  absl::string_view model,
                                  std::int64_t& job_work) {
  if (work > limits_->max_work_per_character) {
    return FieldError(absl::StatusCode::kResourceExhausted, field,
                      absl::StrCat(whose, " work, ", work, " (", model, "),",
                                   PerCharacterLimit(*limits_)));
  }
  job_work = work;
  work_ += work;
  return absl::OkStatus();
}

absl::Status CharacterJobs::WithinCharacterBudget() const {
  if (work_ <= limits_->max_work_per_character) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrCat("its jobs' work, ", work_, " (grounding ", grounding_work_,
                   ", goals ", goals_work_, ", dynamics ", dynamics_work_, "),",
                   PerCharacterLimit(*limits_)));
}

void CharacterJobs::Run() {
  CharacterJobs* const self = this;
  RunGroup(absl::MakeConstSpan(&self, 1));
}

void CharacterJobs::RunGroup(absl::Span<CharacterJobs* const> group) {
  // The batch runs on copies of the characters' ticks, side by side; each
  // character's observer is its own CharacterJobs, told of its own copy.
  CharacterTick ticks[kTickGroupCharacters];
  std::optional<SolveCounters::Goals> counted[kTickGroupCharacters];
  for (size_t k = 0; k < group.size(); ++k) {
    ticks[k] = group[k]->tick_;
    group[k]->goals_counted_ = &counted[k].emplace(group[k]->counters_);
  }
  TickBatchJob batch;
  batch.character = &group[0]->entry_->character;
  batch.characters = absl::MakeSpan(ticks, group.size());
  batch.scratch = &group[0]->scratch_;
  absl::Status run;
  {
    CoreTime::Scope core;
    run = batch.Run();
  }
  for (size_t k = 0; k < group.size(); ++k) {
    CharacterJobs& jobs = *group[k];
    jobs.goals_counted_ = nullptr;
    counted[k].reset();
    if (!run.ok()) {  // spans this class sized: not the caller's input
      jobs.tick_.ground_status = jobs.tick_.goals_status =
          jobs.tick_.dynamics_status = absl::InternalError(run.message());
      continue;
    }
    jobs.tick_ = std::move(ticks[k]);
    jobs.pose_->root = jobs.tick_.root;
  }
}

absl::Status CharacterJobs::dynamics_status() const {
  absl::Status status = tick_.dynamics_status;
  if (status.ok() || dynamics_ == nullptr) return status;
  for (size_t c = 0; c < state_of_chain_.size(); ++c) {
    if (state_of_chain_[c] < 0) continue;
    status = InStateForm(status, dynamics_->states(state_of_chain_[c]),
                         state_paths_[c]);
  }
  return status;
}

void CharacterJobs::Grounded(const CharacterTick& tick) {
  CoreTime::Excluded answering;
  counters_->AddGrounding(static_cast<std::int64_t>(tick.feet.size()));
  if (ground_answer_ == nullptr) return;
  const Character& character = entry_->character;
  if (form_ == AnswerForm::kFull)
    ground_answer_->set_revision(entry_->revision);
  GroundFeetAnswerToProto(character.rig, character.legs, tick.locals,
                          tick.ground_report, tick.feet, form_,
                          *ground_answer_);
  for (const std::shared_ptr<const TerrainEntry>& terrain :
       ground_->terrains()) {
    ground_answer_->add_terrain_revisions(terrain->revision);
  }
}

void CharacterJobs::GoalSolved(const CharacterTick& tick, size_t goal) {
  CoreTime::Excluded answering;
  const ChainSolveResult& result = tick.goal_results[goal];
  goals_counted_->Add(result.solver, result.report.reached,
                      result.report.iterations);
  if (goal_answers_ == nullptr) return;
  GoalResultToProto(tick.goals[goal], entry_->rig(), result, tick.locals, form_,
                    *goal_answers_->Add());
}

void CharacterJobs::DynamicsStepped(const CharacterTick& tick,
                                    absl::Span<const Quat> rotations) {
  CoreTime::Excluded answering;
  const Character& character = entry_->character;
  if (form_ == AnswerForm::kFull) {
    dynamics_answer_->set_revision(entry_->revision);
  }
  std::int64_t substeps = 0;
  size_t offset = 0;
  for (size_t c = 0; c < tick.dynamic_states.size(); ++c) {
    const DynamicChainBinding& chain =
        character.dynamic_chains[tick.dynamic_chains[c]];
    DynamicChainResultToProto(
        character.rig, chain, rotations.subspan(offset, chain.joints.size()),
        tick.dynamic_states[c], tick.dynamic_reports[c], entry_->revision,
        form_, *dynamics_answer_->add_results());
    offset += chain.joints.size();
    substeps += tick.dynamic_reports[c].substeps;
  }
  counters_->AddDynamics(static_cast<std::int64_t>(tick.dynamic_states.size()),
                         substeps);
}

}  // namespace ik::server
