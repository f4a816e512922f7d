// What a call run on the solver pool knows of its gRPC call: its client
// (whose share of the pool it uses) and whether it should stop (cancelled,
// or past its deadline); and the answer when the pool has no room for it.
#ifndef IK_SERVER_RPC_CALL_SCOPE_H_
#define IK_SERVER_RPC_CALL_SCOPE_H_

#include <grpcpp/grpcpp.h>

#include <string>

#include "absl/status/status.h"
#include "handlers/handlers.h"
#include "rpc/solver_pool.h"

namespace ik::server {

// Why a call taken from the pool should not run (cancelled, or past its
// deadline); OK when it should.
absl::Status Stopped(grpc::CallbackServerContext& context);

// The scope of a call of `caller` (callers.h) on `pool`: stopped as
// Stopped(context) says. `context` must outlive the scope.
CallScope ScopeOf(grpc::CallbackServerContext* context, SolverPool& pool,
                  std::string caller);

// The answer when the pool's queue is full (RESOURCE_EXHAUSTED).
absl::Status Busy();
// The answer when PostRequest refused a call (RESOURCE_EXHAUSTED): the
// queue full (Busy()), or the caller's waiting requests at their bound.
absl::Status Busy(SolverPool::Refused refused);

}  // namespace ik::server

#endif  // IK_SERVER_RPC_CALL_SCOPE_H_
