// ikd's Prometheus metrics (prometheus-cpp), served as text at
// http://<--metrics_listen>/metrics:
//
//   ikd_calls_total{method,code}           calls answered (TickStream: ticks)
//   ikd_calls_cancelled_total{method}      unary calls that ended before
//                                          their answer was sent (client
//                                          cancel, deadline, lost connection)
//   ikd_call_duration_seconds{method}      histogram, arrival to answer
//   ikd_request_bytes_total{method}        request bytes received
//   ikd_calls_in_flight                    received, not yet answered
//   ikd_solver_queue_tasks                 waiting for a solver thread
//   ikd_solver_threads                     the pool's size
//   ikd_registered{kind}                   rigs and terrains registered
//   ikd_registry_bytes, ikd_registry_budget_bytes
//   ikd_goals_total{solver}, ikd_goals_reached_total{solver}
//   ikd_solver_iterations_total{solver}    reach ratio: reached / goals
//   ikd_dynamic_chains_stepped_total, ikd_dynamics_substeps_total
//   ikd_grounded_legs_total
//   ikd_draining                           1 once SIGTERM came
//   ikd_recorded_calls_total, ikd_recording_bytes_total,
//   ikd_recording_dropped_total{reason}    with --record_dir
//   ikd_build_info{version,grpc_version,protobuf_version}  always 1
//
// Counters of calls are kept as calls end (Metrics is a CallObserver); the
// gauges and the solver totals are read when Prometheus scrapes.
#ifndef IK_SERVER_OPS_METRICS_H_
#define IK_SERVER_OPS_METRICS_H_

#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "absl/container/node_hash_map.h"
#include "absl/status/statusor.h"
#include "ops/call_record.h"
#include "ops/recorder.h"
#include "ops/solve_counters.h"

namespace ik::server {

// The live values read at each scrape; every function is called from the
// exposer's thread and must be thread-safe.
struct MetricSources {
  std::function<int()> calls_in_flight;
  std::function<int()> queued_tasks;
  int solver_threads = 0;
  std::function<int()> rigs;
  std::function<int()> terrains;
  std::function<std::int64_t()> registry_bytes;
  std::int64_t registry_budget_bytes = 0;
  std::function<bool()> draining;
  const SolveCounters* counters = nullptr;
  const RecorderCounters* recording = nullptr;  // null: not recording
};

class Metrics final : public CallObserver {
 public:
  // `methods`: the service's method names, whose series exist (at zero)
  // from the start.
  Metrics(MetricSources sources, const std::vector<std::string>& methods);
  ~Metrics() override;

  // Serves the metrics on `listen` (host:port; port 0: any free port);
  // INVALID_ARGUMENT naming --metrics_listen when it cannot bind.
  absl::Status Serve(const std::string& listen);
  // The port bound by Serve (0 before).
  int port() const { return port_; }

  void CallEnded(const CallRecord& record, absl::StatusCode code,
                 absl::Time end) override;
  void CallCancelled(const CallRecord& record) override;

  const std::shared_ptr<prometheus::Registry>& registry() const {
    return registry_;
  }

 private:
  class Live;  // the scrape-time gauges and totals

  static constexpr int kCodes = 17;  // google.rpc.Code 0..16

  struct PerMethod {
    prometheus::Histogram* duration = nullptr;
    prometheus::Counter* request_bytes = nullptr;
    prometheus::Counter* cancelled = nullptr;
    // ikd_calls_total's series by code, made on first use (Family::Add
    // builds a label map and takes a lock: not once per call).
    std::array<std::atomic<prometheus::Counter*>, kCodes> calls{};
  };

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& calls_;
  prometheus::Family<prometheus::Histogram>& durations_;
  prometheus::Family<prometheus::Counter>& request_bytes_;
  prometheus::Family<prometheus::Counter>& cancelled_;
  // Filled in the constructor, its keys read-only after: no lock.
  absl::node_hash_map<std::string, PerMethod> methods_;
  std::shared_ptr<Live> live_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_ = 0;
};

}  // namespace ik::server

#endif  // IK_SERVER_OPS_METRICS_H_
