// The logic of each IkService method, free of gRPC: convert the request
// (validating, with field paths), call the core, convert the answer. The
// callback service (rpc/ik_service.h) only wires these to reactors. One
// file per RPC family: registry_handlers.cc, solve_handler.cc,
// ground_handler.cc, dynamics_handler.cc, tick_handler.cc.
//
// Thread-safe: any number of calls may run at once.
#ifndef IK_SERVER_HANDLERS_HANDLERS_H_
#define IK_SERVER_HANDLERS_HANDLERS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "convert/values.h"
#include "ik/rig/solve_chain.h"
#include "ik/v1/ik.pb.h"
#include "ik/wire/tick_bytes.pb.h"
#include "ops/solve_counters.h"
#include "rpc/solver_pool.h"
#include "service_limits.h"
#include "state/rig_registry.h"
#include "state/state_store.h"
#include "state/terrain_registry.h"

namespace ik::server {

class RequestGround;  // request_ground.h
struct TickPoses;     // tick_handler.cc
class TickBaselines;  // tick_baselines.h

// What a tick says for all its characters.
struct TickSettings {
  // The tick's shared_ground converted; null without one.
  const RequestGround* shared_ground = nullptr;
  AnswerForm form = AnswerForm::kTick;
  v1::TickDetail detail = v1::TICK_DETAIL_FULL;
};

// Where a call runs: the pool its work is spread over, the client whose
// share of the pool it uses, and whether it should stop (cancelled, or past
// its deadline) -- asked before each character of a tick.
struct CallScope {
  SolverPool* pool = nullptr;
  std::string client;
  std::function<bool()> stopped = [] { return false; };
  // Lets other clients' waiting calls run here, between two pieces of this
  // call's work (SolverPool::Yield).
  void Yield() const {
    if (pool != nullptr) pool->Yield(client);
  }
};

class IkHandlers {
 public:
  // The registries (and the state store, if any: registrations are then
  // made durable in it before they are acknowledged) must outlive the
  // handlers.
  IkHandlers(RigRegistry& registry, TerrainRegistry& terrains,
             const ServiceLimits& limits, const StateStore* store = nullptr)
      : registry_(registry),
        terrains_(terrains),
        limits_(limits),
        store_(store) {}

  absl::Status RegisterRig(const v1::RegisterRigRequest& request,
                           v1::RegisterRigResponse& response);
  absl::Status GetRig(const v1::GetRigRequest& request,
                      v1::GetRigResponse& response);
  absl::Status ListRigs(const v1::ListRigsRequest& request,
                        v1::ListRigsResponse& response);
  absl::Status DeleteRig(const v1::DeleteRigRequest& request,
                         v1::DeleteRigResponse& response);
  // Yields to other clients between goals when given the call's scope.
  absl::Status SolveChain(const v1::SolveChainRequest& request,
                          v1::SolveChainResponse& response,
                          const CallScope* scope = nullptr);
  // In dynamics_handler.cc.
  absl::Status StepDynamics(const v1::StepDynamicsRequest& request,
                            v1::StepDynamicsResponse& response);
  absl::Status RegisterTerrain(const v1::RegisterTerrainRequest& request,
                               v1::RegisterTerrainResponse& response);
  absl::Status ListTerrains(const v1::ListTerrainsRequest& request,
                            v1::ListTerrainsResponse& response);
  absl::Status DeleteTerrain(const v1::DeleteTerrainRequest& request,
                             v1::DeleteTerrainResponse& response);
  // In ground_handler.cc.
  absl::Status GroundFeet(const v1::GroundFeetRequest& request,
                          v1::GroundFeetResponse& response);
  // In tick_handler.cc: the characters spread over the scope's pool (the
  // calling thread takes part); answers as the single RPCs give them. A
  // character not yet started when the call stops gets CANCELLED.
  absl::Status Tick(const v1::TickRequest& request, v1::TickResponse& response,
                    const CallScope& scope);
  // The same over the tick's bytes (ik/wire/tick_bytes.proto), the form the
  // service reads and writes: each character is parsed, run and written on
  // the thread that takes it, so no part of a tick's work is serial. A
  // character whose bytes do not parse fails alone (INVALID_ARGUMENT,
  // "characters[k]"). `baselines`: a TickStream's (tick_baselines.h), which
  // its characters may build on; null on a unary Tick.
  absl::Status Tick(const wire::TickRequestBytes& request,
                    wire::TickResponseBytes& response, const CallScope& scope,
                    TickBaselines* baselines = nullptr);

  // The jobs on one character's pose, shared by the single RPCs and Tick.
  // Answers are written as `form` says. Each names the fields of its own
  // request message (e.g. "goals[2].target",
  // "weights[1]"); a tick roots them under its character.
  //
  // SolveChain's goals, solved in order on `pose`, their results appended to
  // `results` (none written when null: a tick's TICK_DETAIL_POSE); with a
  // scope, other clients' calls may run between goals.
  absl::Status SolveGoals(
      const RigEntry& entry,
      const google::protobuf::RepeatedPtrField<v1::ChainGoal>& goals,
      DensePose& pose, AnswerForm form,
      google::protobuf::RepeatedPtrField<v1::GoalResult>* results,
      const CallScope* scope = nullptr) const;
  // GroundFeet's pass on `pose` over `ground` (the request's `ground`
  // converted; `request`'s rig, revision, pose and ground are not read):
  // the legs' joints of `pose` take their grounded rotations and pose.root
  // is lowered by the answer's root_offset. The answer goes to `response`
  // (nothing written when null: a tick's TICK_DETAIL_POSE).
  absl::Status GroundPose(const RigEntry& entry,
                          const v1::GroundFeetRequest& request,
                          const RequestGround& ground, DensePose& pose,
                          AnswerForm form,
                          v1::GroundFeetResponse* response) const;
  // StepDynamics on `pose` (`request`'s rig, revision and pose are not
  // read); the stepped chains' joints of `pose` take their new rotations.
  absl::Status StepPoseDynamics(const RigEntry& entry,
                                const v1::StepDynamicsRequest& request,
                                DensePose& pose, AnswerForm form,
                                v1::StepDynamicsResponse& response) const;

  // What the jobs above did since the handlers were made.
  const SolveCounters& counters() const { return counters_; }

 private:
  // RESOURCE_EXHAUSTED when `goals` may take more than the work budget
  // (--max_work_per_call): the sum over goals of chain joints times
  // iteration cap.
  absl::Status WithinWorkBudget(absl::Span<const ChainGoal> goals) const;

  // The tick-wide part of either form of a tick: its checks (count,
  // detail), its shared ground converted into `shared` (left empty without
  // one), what it says for every character into `tick`, and `response`
  // given its sequence and an empty answer per character.
  template <typename Request, typename Response>
  absl::Status StartTick(const Request& request, Response& response,
                         std::optional<RequestGround>& shared,
                         TickSettings& tick) const;
  // Character `index` of a tick into `out`, or CANCELLED when the call has
  // stopped.
  void TickCharacter(const v1::TickCharacter& character, int index,
                     const TickSettings& tick, const CallScope& scope,
                     v1::TickCharacterResult& out) const;
  // Character `index` of a tick into `out`: its pose read (and checked),
  // then its jobs in order -- grounding, goals, dynamics -- each on the pose
  // the ones before it left, then its answer pose.
  void RunCharacter(const v1::TickCharacter& character, int index,
                    const TickSettings& tick,
                    v1::TickCharacterResult& out) const;
  // The character's pose read into poses.incoming and, checked or as sent,
  // into poses.pose. False (with the character's status set) when it
  // cannot be used.
  bool StartCharacterPose(const v1::TickCharacter& character, int index,
                          const Rig& rig, TickPoses& poses,
                          v1::TickCharacterResult& out) const;
  // The character's grounding job on poses.pose, over its own ground or the
  // tick's shared one.
  void GroundCharacter(const v1::GroundFeetRequest& ground, int index,
                       const RigEntry& rig_entry,
                       const RequestGround* shared_ground, AnswerForm form,
                       bool pose_only, TickPoses& poses,
                       v1::TickCharacterResult& out) const;

  // The rig a solve names (`rig` required), pinned to `revision` if set.
  absl::StatusOr<std::shared_ptr<const RigEntry>> PinnedRig(
      absl::string_view name, absl::string_view revision) const;

  RigRegistry& registry_;
  TerrainRegistry& terrains_;
  const ServiceLimits limits_;
  const StateStore* const store_;
  mutable SolveCounters counters_;
};

}  // namespace ik::server

#endif  // IK_SERVER_HANDLERS_HANDLERS_H_
