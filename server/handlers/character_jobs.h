// One character's jobs -- grounding, chain goals, dynamics -- read from the
// requests of GroundFeet, SolveChain and StepDynamics into the core's
// CharacterTick, run through the core's TickBatchJob (the one per-character
// sequence: a tick character and a single GroundFeet or StepDynamics call
// both run it), and answered as the batch reports each job that succeeded.
// The server converts; the core runs.
//
//   CharacterJobs& jobs = CharacterJobs::ForThisThread();
//   jobs.Start(entry, pose, AnswerForm::kTick, /*read_back=*/true, limits,
//              counters);
//   absl::Status ground = jobs.AddGrounding(request.ground(), ...);
//   jobs.Run();
//   // jobs.grounding_status(), goals_status(), dynamics_status()
#ifndef IK_SERVER_HANDLERS_CHARACTER_JOBS_H_
#define IK_SERVER_HANDLERS_CHARACTER_JOBS_H_

#include <list>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "convert/values.h"
#include "ik/character/tick_batch.h"
#include "ik/v1/ik.pb.h"
#include "ops/solve_counters.h"
#include "service_limits.h"
#include "state/rig_registry.h"

namespace ik::server {

class RequestGround;  // request_ground.h

// SolveChain's `goals` on `rig`, converted into `converted` (ad-hoc chains in
// `ad_hoc_chains`, which must outlive them) and held to the limits:
// RESOURCE_EXHAUSTED for more goals than --max_goals_per_request, or goals
// that may take more work (work.h) than a character may ask
// (--max_work_per_character). Their work into `*work` (when not null).
absl::Status ReadGoals(
    const google::protobuf::RepeatedPtrField<v1::ChainGoal>& goals,
    const Rig& rig, const ServiceLimits& limits,
    std::list<Chain>& ad_hoc_chains, std::vector<ChainGoal>& converted,
    std::int64_t* work = nullptr);

// Not thread-safe: one per thread (ForThisThread), whose buffers every
// character the thread runs reuses, so a character like one before it
// allocates nothing.
class CharacterJobs final : public TickJobObserver {
 public:
  // The thread's `slot`-th (of kTickGroupCharacters, for a group run side
  // by side: RunGroup).
  static CharacterJobs& ForThisThread(size_t slot = 0);

  // A new character of `entry`'s rig on `pose` (worked on in place; it and
  // `entry` must outlive Run()), answered in `form`, held to `limits`
  // (which must outlive the character), its work counted in `counters`.
  // `read_back`: each job reads the answer of the one before as a caller
  // chaining the single RPCs would (a tick's jobs).
  void Start(const RigEntry& entry, DensePose& pose, AnswerForm form,
             bool read_back, const ServiceLimits& limits,
             SolveCounters& counters);

  // The jobs, each at most once, run in this order whatever the order they
  // are added in. Each checks its request (errors name its fields, e.g.
  // "weights[1]", "goals[2].target", "states[0].chain") and is not added
  // when that fails. Answers go where given once the job succeeded; a job
  // that fails leaves its answer as it was. A job whose work (work.h)
  // alone is more than a character may ask is refused with
  // RESOURCE_EXHAUSTED (--max_work_per_character).
  //
  // GroundFeet's pass over `ground` (`request`'s rig, revision, pose and
  // ground are not read); null `answer`: none written. `ground` must outlive
  // Run().
  absl::Status AddGrounding(const v1::GroundFeetRequest& request,
                            const RequestGround& ground,
                            v1::GroundFeetResponse* answer);
  // SolveChain's goals, in order, all or none; null `results`: none written.
  absl::Status AddGoals(
      const google::protobuf::RepeatedPtrField<v1::ChainGoal>& goals,
      google::protobuf::RepeatedPtrField<v1::GoalResult>* results);
  // StepDynamics' step (`request`'s rig, revision and pose are not read;
  // `request` must outlive Run()), one result per chain stepped.
  absl::Status AddDynamics(const v1::StepDynamicsRequest& request,
                           v1::StepDynamicsResponse& answer);

  // From here to the next Start, the jobs added are checked and their work
  // counted, nothing else: they cannot Run().
  void CountOnly() { counting_only_ = true; }
  // The work of the jobs added (work.h).
  std::int64_t work() const { return work_; }
  // RESOURCE_EXHAUSTED (no field: the caller roots it at the character)
  // when the jobs added together may take more work than a character may
  // ask; then do not Run().
  absl::Status WithinCharacterBudget() const;

  // Runs the jobs added on the pose, each on what the one before left (a
  // job that fails leaves it as it found it); the root is lowered by
  // grounding. Counted as core time, less the answers' writing.
  void Run();
  // Run for several characters of one rig (the same RigEntry), side by
  // side in one TickBatchJob (at most kTickGroupCharacters, each a distinct
  // CharacterJobs started on its own pose): each gets what its own Run
  // gives.
  static void RunGroup(absl::Span<CharacterJobs* const> group);

  // Each job's outcome: OK when it succeeded or was not added.
  const absl::Status& grounding_status() const { return tick_.ground_status; }
  const absl::Status& goals_status() const { return tick_.goals_status; }
  // Errors about a packed state name its packed number
  // ("states[0].packed[13]").
  absl::Status dynamics_status() const;

 private:
  // A job of `work` (`whose` work, "grounding's"; `model`: how it is
  // counted) into `job_work` and the character's; RESOURCE_EXHAUSTED
  // naming `field` when it alone is more than a character may ask.
  absl::Status Count(std::int64_t work, absl::string_view field,
                     absl::string_view whose, absl::string_view model,
                     std::int64_t& job_work);

  void Grounded(const CharacterTick& tick) override;
  void GoalSolved(const CharacterTick& tick, size_t goal) override;
  void DynamicsStepped(const CharacterTick& tick,
                       absl::Span<const Quat> rotations) override;

  const RigEntry* entry_ = nullptr;
  DensePose* pose_ = nullptr;
  AnswerForm form_ = AnswerForm::kFull;
  const ServiceLimits* limits_ = nullptr;
  SolveCounters* counters_ = nullptr;
  // The work of the jobs added, and of each.
  std::int64_t work_ = 0;
  std::int64_t grounding_work_ = 0;
  std::int64_t goals_work_ = 0;
  std::int64_t dynamics_work_ = 0;
  bool counting_only_ = false;
  CharacterTick tick_;
  TickScratch scratch_;

  // Grounding.
  const RequestGround* ground_ = nullptr;
  Ground ground_view_;
  std::vector<double> weights_;
  std::vector<Vec3> previous_offsets_;
  std::vector<FootResult> feet_;
  v1::GroundFeetResponse* ground_answer_ = nullptr;

  // Goals.
  std::list<Chain> ad_hoc_chains_;
  std::vector<ChainGoal> goals_;
  std::vector<ChainSolveResult> goal_results_;
  google::protobuf::RepeatedPtrField<v1::GoalResult>* goal_answers_ = nullptr;
  SolveCounters::Goals* goals_counted_ = nullptr;

  // Dynamics.
  const v1::StepDynamicsRequest* dynamics_ = nullptr;
  std::vector<int> chains_;
  std::vector<int> state_of_chain_;
  std::vector<DynamicState> states_;
  std::vector<std::string> state_paths_;
  std::vector<DynamicsReport> reports_;
  std::optional<WindSettings> wind_;
  v1::StepDynamicsResponse* dynamics_answer_ = nullptr;
};

}  // namespace ik::server

#endif  // IK_SERVER_HANDLERS_CHARACTER_JOBS_H_
