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
#include "state/call_uses.h"
#include "state/rig_registry.h"
#include "state/state_store.h"
#include "state/terrain_registry.h"

namespace ik::server {

class CharacterJobs;    // character_jobs.h
class RequestGround;    // request_ground.h
struct TickPoses;       // tick_handler.cc
struct TickSlot;        // tick_handler.cc
struct TickChunkEntry;  // tick_handler.cc
struct ReadTick;        // tick_handler.cc
class TickBaselines;    // tick_baselines.h
struct CharacterUses;   // tick_uses.h

// What adding each of a tick character's jobs said (OK: added, or none).
struct CharacterJobStatuses {
  absl::Status ground;
  absl::Status goals;
  absl::Status dynamics;
};

// What a tick says for all its characters.
struct TickSettings {
  // The tick's shared_ground converted; null without one.
  const RequestGround* shared_ground = nullptr;
  AnswerForm form = AnswerForm::kTick;
  v1::TickDetail detail = v1::TICK_DETAIL_FULL;
  // When the call is recorded: what each character used, by index
  // (tick_uses.h).
  CharacterUses* character_uses = nullptr;
};

// Where a call runs: the pool its work is spread over, the client whose
// share of the pool it uses, and whether it should stop -- asked before
// each character of a tick and between goals: OK when it should run on,
// else why (CANCELLED, or DEADLINE_EXCEEDED past its deadline).
struct CallScope {
  SolverPool* pool = nullptr;
  std::string client;
  std::function<absl::Status()> stopped = [] { return absl::OkStatus(); };
  // When the call is recorded: the rigs and terrains it used (a tick's).
  CallUses* uses = nullptr;
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
  // In solve_handler.cc. Yields to other clients between goals when given
  // the call's scope.
  absl::Status SolveChain(const v1::SolveChainRequest& request,
                          v1::SolveChainResponse& response,
                          const CallScope* scope = nullptr);
  // In dynamics_handler.cc.
  absl::Status StepDynamics(const v1::StepDynamicsRequest& request,
                            v1::StepDynamicsResponse& response);
  // Yields to other clients between pieces of a mesh's build when given
  // the call's scope.
  absl::Status RegisterTerrain(const v1::RegisterTerrainRequest& request,
                               v1::RegisterTerrainResponse& response,
                               const CallScope* scope = nullptr);
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

  // The work (work.h) a single call asks, counted as its handler counts it,
  // before any of it runs; 0 for a request its handler refuses before it
  // solves (an unknown rig, a bad goal, a budget exceeded). In
  // call_work.cc. The service runs a call on the thread it arrived on only
  // when this is at most kInlineWork.
  std::int64_t Work(const v1::SolveChainRequest& request) const;
  std::int64_t Work(const v1::GroundFeetRequest& request) const;
  std::int64_t Work(const v1::StepDynamicsRequest& request) const;

  // What the calls' jobs did since the handlers were made.
  const SolveCounters& counters() const { return counters_; }

 private:
  // The tick-wide part of either form of a tick: its checks (count,
  // detail), its shared ground converted into `shared` (left empty without
  // one), what it says for every character into `tick`, and `response`
  // given its sequence and an empty answer per character.
  template <typename Request, typename Response>
  absl::Status StartTick(const Request& request, Response& response,
                         std::optional<RequestGround>& shared,
                         TickSettings& tick) const;
  // A tick's characters parsed, made complete from `baselines` (null: none
  // allowed) and their work estimated, spread over the scope's pool, into
  // `read`.
  void ReadCharacters(const wire::TickRequestBytes& request,
                      const TickSettings& tick, const CallScope& scope,
                      TickBaselines* baselines, ReadTick& read) const;
  // The work (work.h) character `character` of a tick may take, 0 when it
  // will be refused (an unknown rig, a job or the character over its own
  // budget), counted before any character runs.
  std::int64_t CharacterWork(const v1::TickCharacter& character, int index,
                             const TickSettings& tick) const;
  // RESOURCE_EXHAUSTED ("characters") when a tick's answer of `bytes` is
  // more than one answer may hold (--max_answer_bytes).
  absl::Status WithinAnswerLimit(std::int64_t bytes) const;
  // RESOURCE_EXHAUSTED ("characters") when the characters' `work` summed
  // is more than a call may ask (--max_work_per_call).
  absl::Status WithinCallBudget(absl::Span<const std::int64_t> work) const;
  // Characters [first, first + size) of a tick read as `read`, run as a
  // chunk (RunTickChunk), each answer kept for its baseline and serialised
  // into `response`.
  void RunReadChunk(const ReadTick& read, int first, int size,
                    const TickSettings& tick, const CallScope& scope,
                    TickBaselines* baselines,
                    wire::TickResponseBytes& response) const;
  // A chunk of a tick's characters, `first` the index of entries[0]: each
  // into its `out`, or CANCELLED when the call has stopped; those of one
  // rig side by side (CharacterJobs::RunGroup). An entry without a
  // character is answered already.
  void RunTickChunk(absl::Span<const TickChunkEntry> entries, int first,
                    const TickSettings& tick, const CallScope& scope) const;
  // Character `index` of a tick, up to its jobs' run, in `slot` (of this
  // thread, the `number`-th of its chunk): its rig, its pose read (and
  // checked) and its jobs added to the slot's CharacterJobs. False when its
  // answer in `out` is complete without a run.
  bool StartCharacter(const v1::TickCharacter& character, int index,
                      const TickSettings& tick, TickSlot& slot, size_t number,
                      v1::TickCharacterResult& out) const;
  // After the run: each job's outcome and the answer pose into `out`.
  void FinishCharacter(const v1::TickCharacter& character, int index,
                       TickSlot& slot, v1::TickCharacterResult& out) const;
  // The character's pose read into poses.incoming and, checked or as sent,
  // into poses.pose. False (with the character's status set) when it
  // cannot be used.
  bool StartCharacterPose(const v1::TickCharacter& character, int index,
                          const Rig& rig, TickPoses& poses,
                          v1::TickCharacterResult& out) const;
  // The character's jobs added to `jobs` (its own ground, if any, built
  // into `own_ground`), their answers to go into `out`: what adding each
  // said (a job that could not be added does not run).
  CharacterJobStatuses AddCharacterJobs(
      const v1::TickCharacter& character, const TickSettings& tick,
      std::optional<RequestGround>& own_ground, CharacterJobs& jobs,
      v1::TickCharacterResult& out) const;
  // Each job's error, if any, rooted under character `index` into its
  // status in `out` (its answer cleared).
  void CharacterJobOutcomes(int index, const CharacterJobStatuses& added,
                            const CharacterJobs& jobs,
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
