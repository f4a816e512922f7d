// IkService on gRPC's callback API, each method taking its request as bytes
// and parsing it itself (raw_call.h). The registry methods run their
// handler inline on the callback thread (short, never blocking); the
// solving methods (SolveChain, GroundFeet, StepDynamics, Tick, TickStream)
// and the registrations post theirs to the solver pool in their caller's
// turn, which finishes the call with the handler's status, so gRPC's
// threads (and the health service on them) stay free. Only a single call
// whose counted work is tiny (kInlineWork, work.h: a few microseconds, less
// than gRPC's own cost for any call) runs where it arrived, at once,
// whatever waits on the pool.
#ifndef IK_SERVER_RPC_IK_SERVICE_H_
#define IK_SERVER_RPC_IK_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "handlers/handlers.h"
#include "ik/v1/ik.grpc.pb.h"
#include "ops/access_tokens.h"
#include "ops/call_record.h"
#include "ops/recorder.h"
#include "rpc/call_gate.h"
#include "rpc/callers.h"
#include "rpc/raw_call.h"
#include "rpc/solver_pool.h"
#include "rpc/tick_stream.h"
#include "rpc/unread_answers.h"

namespace ik::server {

// Every method of ik.v1.IkService on raw bytes (raw_call.h says why).
using RawIkService = v1::IkService::WithRawCallbackMethod_RegisterRig<
    v1::IkService::WithRawCallbackMethod_GetRig<
        v1::IkService::WithRawCallbackMethod_ListRigs<
            v1::IkService::WithRawCallbackMethod_DeleteRig<
                v1::IkService::WithRawCallbackMethod_SolveChain<
                    v1::IkService::WithRawCallbackMethod_StepDynamics<
                        v1::IkService::WithRawCallbackMethod_GroundFeet<
                            v1::IkService::WithRawCallbackMethod_RegisterTerrain<
                                v1::IkService::WithRawCallbackMethod_ListTerrains<
                                    v1::IkService::WithRawCallbackMethod_DeleteTerrain<
                                        v1::IkService::WithRawCallbackMethod_Tick<
                                            v1::IkService::
                                                WithRawCallbackMethod_TickStream<
                                                    v1::IkService::
                                                        Service>>>>>>>>>>>>;

class IkService final : public RawIkService {
 public:
  // The registries, the pool, the state store (null: registrations are not
  // kept) and the access tokens (null: every call is allowed) must outlive
  // the service. `trusted_proxies`: the peer addresses whose
  // x-forwarded-for names the caller (callers.h).
  IkService(RigRegistry& rigs, TerrainRegistry& terrains,
            const ServiceLimits& limits, SolverPool& pool,
            const StateStore* store = nullptr,
            const AccessTokens* tokens = nullptr,
            std::vector<std::string> trusted_proxies = {});

  grpc::ServerUnaryReactor* RegisterRig(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetRig(grpc::CallbackServerContext* context,
                                   const grpc::ByteBuffer* request,
                                   grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListRigs(grpc::CallbackServerContext* context,
                                     const grpc::ByteBuffer* request,
                                     grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* DeleteRig(grpc::CallbackServerContext* context,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* SolveChain(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* StepDynamics(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GroundFeet(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* RegisterTerrain(
      grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListTerrains(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* DeleteTerrain(grpc::CallbackServerContext* context,
                                          const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* Tick(grpc::CallbackServerContext* context,
                                 const grpc::ByteBuffer* request,
                                 grpc::ByteBuffer* response) override;
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* TickStream(
      grpc::CallbackServerContext* context) override;

  // Reports every call's end to `observer` (metrics, access log), which
  // must outlive the service. Only before the service is registered with a
  // gRPC server.
  void AddObserver(CallObserver* observer) { observers_.push_back(observer); }
  // Hands the calls of the methods `recorder` records to it (it must outlive
  // the service). Only before the service is registered.
  void SetRecorder(Recorder* recorder) { recorder_ = recorder; }
  // Whether any observer wants each call's peer.
  bool observers_want_peer() const;
  // Bytes of answers written and not yet read (unread_answers.h).
  const UnreadAnswers& unread_answers() const { return unread_; }
  // Solving calls run on the thread they arrived on (RunsInline) so far.
  std::int64_t inline_calls() const {
    return inline_calls_.load(std::memory_order_relaxed);
  }
  // Calls received and not yet answered (the drain waits for them).
  int calls_inside() const { return gate_.inside(); }
  bool draining() const { return gate_.closed(); }
  const IkHandlers& handlers() const { return handlers_; }

  // Starts the drain: every call from now on is answered UNAVAILABLE; open
  // TickStreams end after the tick in progress. Calls already received run
  // to the end (see WaitIdle).
  void Drain();
  // Waits until no received call is left or `deadline` passes; true when
  // none is left.
  bool WaitIdle(absl::Time deadline) { return gate_.WaitIdle(deadline); }

 private:
  // OK when the call's bearer token grants `needed` (or no tokens are
  // configured); `method` names the call in the message.
  absl::Status Authorize(grpc::CallbackServerContext* context, Role needed,
                         absl::string_view method) const;
  // Lets the call in: through the gate, its token checked (registrations
  // and deletions need the admin role), its caller's unread answers within
  // their bounds, its request parsed (when `parse`); otherwise answers it
  // (leaving the gate) and returns false.
  template <typename Request, typename Response>
  bool Admit(grpc::CallbackServerContext* context,
             const grpc::ByteBuffer* request,
             UnaryCall<Request, Response>* call, bool parse = true);
  // Admits the call, runs handler(request, response) here,
  // on gRPC's thread, and finishes the call with its status (the registry
  // methods: short, never blocking).
  template <typename Request, typename Response, typename Handler>
  grpc::ServerUnaryReactor* Inline(grpc::CallbackServerContext* context,
                                   const grpc::ByteBuffer* request,
                                   grpc::ByteBuffer* response, Handler handler);
  // The same with handler(request, response, scope) run on the pool in its
  // caller's turn (ScopeOf); a call that RunsInline runs here instead, at
  // once.
  template <typename Request, typename Response, typename Handler>
  grpc::ServerUnaryReactor* OnPool(grpc::CallbackServerContext* context,
                                   const grpc::ByteBuffer* request,
                                   grpc::ByteBuffer* response, Handler handler);
  // The scope a call's handler runs in: its caller's turns on the pool,
  // whether it stopped, what a recorded call used.
  template <typename Request, typename Response>
  CallScope ScopeOf(grpc::CallbackServerContext* context,
                    UnaryCall<Request, Response>& call);
  // Whether a call of `request` may run on the thread it arrived on: a
  // SolveChain, GroundFeet or StepDynamics whose work (IkHandlers::Work) is
  // at most kInlineWork (work.h).
  template <typename Request>
  bool RunsInline(const Request& request) const;
  // Both for a handler that is just an IkHandlers method.
  template <typename Request, typename Response>
  using Method = absl::Status (IkHandlers::*)(const Request&, Response&);
  template <typename Request, typename Response>
  grpc::ServerUnaryReactor* Inline(grpc::CallbackServerContext* context,
                                   const grpc::ByteBuffer* request,
                                   grpc::ByteBuffer* response,
                                   Method<Request, Response> method);
  template <typename Request, typename Response>
  grpc::ServerUnaryReactor* OnPool(grpc::CallbackServerContext* context,
                                   const grpc::ByteBuffer* request,
                                   grpc::ByteBuffer* response,
                                   Method<Request, Response> method);

  IkHandlers handlers_;
  SolverPool& pool_;
  const AccessTokens* const tokens_;
  // Whose turn on the pool a call takes.
  const Callers callers_;
  // The answers written and not yet read, by caller.
  UnreadAnswers unread_;
  std::vector<CallObserver*> observers_;
  Recorder* recorder_ = nullptr;
  // Every call enters here; the drain closes it.
  CallGate gate_;
  TickStreams streams_;
  std::atomic<std::int64_t> inline_calls_{0};
};

}  // namespace ik::server

#endif  // IK_SERVER_RPC_IK_SERVICE_H_
