// IkService on gRPC's callback API. The registry methods run their handler
// inline on the callback thread (short, never blocking); the solving methods
// (SolveChain, GroundFeet, StepDynamics, Tick) post theirs to the solver
// pool, which finishes the default reactor with the handler's status, so
// gRPC's threads (and the health service on them) stay free.
#ifndef IK_SERVER_IK_SERVICE_H_
#define IK_SERVER_IK_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "ik/v1/ik.grpc.pb.h"
#include "server/arena_allocator.h"
#include "server/call_gate.h"
#include "server/handlers.h"
#include "server/solver_pool.h"

namespace ik::server {

// absl::Status -> grpc::Status; the codes share their numbering. A status
// that names its field (ik/base/field_error.h) also carries, in the status
// details (gRPC's richer error model, the `grpc-status-details-bin` trailer), a
// google.rpc.Status with the same code and message whose details hold one
// google.rpc.BadRequest with a field violation {field: the path,
// description: the message without the path}.
grpc::Status ToGrpcStatus(const absl::Status& status);

// The open TickStreams, each counted in the call gate while open; on a
// drain each answers the tick it has, then ends. Thread-safe.
class TickStreams {
 public:
  class Stream {
   public:
    // Ends the stream after the tick in progress (at once when idle).
    virtual void Drain() = 0;

   protected:
    ~Stream() = default;
  };

  explicit TickStreams(CallGate& gate) : gate_(gate) {}
  // False (nothing added) when the gate is closed.
  bool Add(Stream* stream) ABSL_LOCKS_EXCLUDED(mutex_);
  void Remove(Stream* stream) ABSL_LOCKS_EXCLUDED(mutex_);
  // Drains every open stream; a stream's Drain runs under this lock, which
  // Remove takes, so a stream is not destroyed while it is being drained.
  void Drain() ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  CallGate& gate_;
  absl::Mutex mutex_;
  absl::flat_hash_set<Stream*> streams_ ABSL_GUARDED_BY(mutex_);
};

class IkService final : public v1::IkService::CallbackService {
 public:
  // The registries, the pool and the state store (null: registrations are
  // not kept) must outlive the service.
  IkService(RigRegistry& rigs, TerrainRegistry& terrains,
            const ServiceLimits& limits, SolverPool& pool,
            const StateStore* store = nullptr);

  grpc::ServerUnaryReactor* RegisterRig(
      grpc::CallbackServerContext* context,
      const v1::RegisterRigRequest* request,
      v1::RegisterRigResponse* response) override;
  grpc::ServerUnaryReactor* GetRig(grpc::CallbackServerContext* context,
                                   const v1::GetRigRequest* request,
                                   v1::GetRigResponse* response) override;
  grpc::ServerUnaryReactor* ListRigs(grpc::CallbackServerContext* context,
                                     const v1::ListRigsRequest* request,
                                     v1::ListRigsResponse* response) override;
  grpc::ServerUnaryReactor* DeleteRig(grpc::CallbackServerContext* context,
                                      const v1::DeleteRigRequest* request,
                                      v1::DeleteRigResponse* response) override;
  grpc::ServerUnaryReactor* SolveChain(
      grpc::CallbackServerContext* context,
      const v1::SolveChainRequest* request,
      v1::SolveChainResponse* response) override;
  grpc::ServerUnaryReactor* StepDynamics(
      grpc::CallbackServerContext* context,
      const v1::StepDynamicsRequest* request,
      v1::StepDynamicsResponse* response) override;
  grpc::ServerUnaryReactor* GroundFeet(
      grpc::CallbackServerContext* context,
      const v1::GroundFeetRequest* request,
      v1::GroundFeetResponse* response) override;
  grpc::ServerUnaryReactor* RegisterTerrain(
      grpc::CallbackServerContext* context,
      const v1::RegisterTerrainRequest* request,
      v1::RegisterTerrainResponse* response) override;
  grpc::ServerUnaryReactor* ListTerrains(
      grpc::CallbackServerContext* context,
      const v1::ListTerrainsRequest* request,
      v1::ListTerrainsResponse* response) override;
  grpc::ServerUnaryReactor* DeleteTerrain(
      grpc::CallbackServerContext* context,
      const v1::DeleteTerrainRequest* request,
      v1::DeleteTerrainResponse* response) override;
  grpc::ServerUnaryReactor* Tick(grpc::CallbackServerContext* context,
                                 const v1::TickRequest* request,
                                 v1::TickResponse* response) override;
  grpc::ServerBidiReactor<v1::TickRequest, v1::TickResponse>* TickStream(
      grpc::CallbackServerContext* context) override;

  // Starts the drain: every call from now on is answered UNAVAILABLE; open
  // TickStreams end after the tick in progress. Calls already received run
  // to the end (see WaitIdle).
  void Drain();
  // Waits until no received call is left or `deadline` passes; true when
  // none is left.
  bool WaitIdle(absl::Time deadline) { return gate_.WaitIdle(deadline); }

 private:
  // Runs `handler` here, on gRPC's thread, and finishes the call with its
  // status (the registry methods: short, never blocking).
  template <typename Handler>
  grpc::ServerUnaryReactor* Inline(grpc::CallbackServerContext* context,
                                   Handler handler);
  // Runs `handler` on the pool and finishes the call with its status.
  template <typename Handler>
  grpc::ServerUnaryReactor* OnPool(grpc::CallbackServerContext* context,
                                   Handler handler);

  IkHandlers handlers_;
  SolverPool& pool_;
  // Every call enters here; the drain closes it.
  CallGate gate_;
  TickStreams streams_;
  // The solving methods' requests and answers live on a per-call arena.
  ArenaMessageAllocator<v1::SolveChainRequest, v1::SolveChainResponse>
      solve_chain_allocator_;
  ArenaMessageAllocator<v1::GroundFeetRequest, v1::GroundFeetResponse>
      ground_feet_allocator_;
  ArenaMessageAllocator<v1::StepDynamicsRequest, v1::StepDynamicsResponse>
      step_dynamics_allocator_;
  ArenaMessageAllocator<v1::TickRequest, v1::TickResponse> tick_allocator_;
};

}  // namespace ik::server

#endif  // IK_SERVER_IK_SERVICE_H_
