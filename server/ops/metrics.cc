#include "ops/metrics.h"

#include <google/protobuf/stubs/common.h>
#include <grpcpp/grpcpp.h>
#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <exception>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "ik/rig/rig.h"

#ifndef IK_VERSION
#define IK_VERSION "unknown"
#endif

namespace ik::server {
namespace {

// Call durations: from 50 µs (a registry read) to 10 s (a tick of
// thousands of characters on a busy host).
const prometheus::Histogram::BucketBoundaries& DurationBuckets() {
  static const auto* buckets = new prometheus::Histogram::BucketBoundaries{
      0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
      0.05,    0.1,    0.25,    0.5,    1,     2.5,    5,     10};
  return *buckets;
}

const char* SolverLabel(SolverKind kind) {
  switch (kind) {
    case SolverKind::kAuto:
      return "auto";
    case SolverKind::kTwoBone:
      return "two_bone";
    case SolverKind::kFabrik:
      return "fabrik";
    case SolverKind::kCcd:
      return "ccd";
    case SolverKind::kTorque:
      return "torque";
  }
  return "unknown";
}

prometheus::MetricFamily Family(std::string name, std::string help,
                                prometheus::MetricType type) {
  prometheus::MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = type;
  return family;
}

void AddValue(prometheus::MetricFamily& family, double value,
              std::vector<prometheus::ClientMetric::Label> labels = {}) {
  prometheus::ClientMetric metric;
  metric.label = std::move(labels);
  if (family.type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  family.metric.push_back(std::move(metric));
}

// The gauges of the service, the solver pool and the registries.
void AddServiceGauges(const MetricSources& sources,
                      std::vector<prometheus::MetricFamily>& out) {
  using prometheus::MetricType;
  auto gauge = [&out](std::string name, std::string help, double value) {
    out.push_back(Family(std::move(name), std::move(help), MetricType::Gauge));
    AddValue(out.back(), value);
  };
  gauge("ikd_calls_in_flight", "IkService calls received and not yet answered",
        sources.calls_in_flight());
  gauge("ikd_solver_queue_tasks",
        "calls and tick pieces waiting for a solver thread",
        sources.queued_tasks());
  gauge("ikd_solver_threads", "threads of the solver pool",
        sources.solver_threads);
  gauge("ikd_registry_bytes",
        "memory held by the registered rigs and terrains, bytes",
        static_cast<double>(sources.registry_bytes()));
  gauge("ikd_registry_budget_bytes",
        "memory the registered rigs and terrains may hold "
        "(--max_registry_bytes)",
        static_cast<double>(sources.registry_budget_bytes));
  gauge("ikd_draining", "1 once ikd drains (SIGTERM), else 0",
        sources.draining() ? 1 : 0);
  out.push_back(Family("ikd_registered", "rigs and terrains registered",
                       MetricType::Gauge));
  AddValue(out.back(), sources.rigs(), {{"kind", "rig"}});
  AddValue(out.back(), sources.terrains(), {{"kind", "terrain"}});
}

// The solvers' totals: goals, goals reached and iterations per solver, and
// the dynamics' and grounding's counts.
void AddSolveCounters(const SolveCounters& counters,
                      std::vector<prometheus::MetricFamily>& out) {
  using prometheus::MetricType;
  prometheus::MetricFamily goals =
      Family("ikd_goals_total", "chain goals solved", MetricType::Counter);
  prometheus::MetricFamily reached =
      Family("ikd_goals_reached_total",
             "chain goals solved within their tolerance", MetricType::Counter);
  prometheus::MetricFamily iterations =
      Family("ikd_solver_iterations_total",
             "solver iterations run for chain goals (1 per analytic solve)",
             MetricType::Counter);
  for (int i = 0; i < SolveCounters::kSolvers; ++i) {
    const auto kind = static_cast<SolverKind>(i);
    if (kind == SolverKind::kAuto) continue;  // resolved before solving
    const SolveCounters::PerSolver totals = counters.solver(kind);
    const std::vector<prometheus::ClientMetric::Label> solver = {
        {"solver", SolverLabel(kind)}};
    AddValue(goals, static_cast<double>(totals.goals), solver);
    AddValue(reached, static_cast<double>(totals.reached), solver);
    AddValue(iterations, static_cast<double>(totals.iterations), solver);
  }
  out.push_back(std::move(goals));
  out.push_back(std::move(reached));
  out.push_back(std::move(iterations));
  auto counter = [&out](std::string name, std::string help, double value) {
    out.push_back(
        Family(std::move(name), std::move(help), MetricType::Counter));
    AddValue(out.back(), value);
  };
  counter("ikd_dynamic_chains_stepped_total", "dynamic chains stepped",
          static_cast<double>(counters.dynamic_chains()));
  counter("ikd_dynamics_substeps_total",
          "fixed substeps run by the dynamic chains stepped",
          static_cast<double>(counters.substeps()));
  counter("ikd_grounded_legs_total", "legs put on the ground",
          static_cast<double>(counters.grounded_legs()));
}

// A recording's counts (--record_dir).
void AddRecorderCounters(const RecorderCounters& counters,
                         std::vector<prometheus::MetricFamily>& out) {
  using prometheus::MetricType;
  out.push_back(Family("ikd_recorded_calls_total",
                       "calls written to the recording (TickStream: ticks)",
                       MetricType::Counter));
  AddValue(out.back(), static_cast<double>(counters.recorded.load()));
  out.push_back(Family("ikd_recording_bytes_total",
                       "bytes written to the recording's files",
                       MetricType::Counter));
  AddValue(out.back(), static_cast<double>(counters.bytes_written.load()));
  out.push_back(Family("ikd_recording_dropped_total",
                       "calls the recording dropped, by reason",
                       MetricType::Counter));
  const std::pair<const char*, const std::atomic<std::int64_t>*> reasons[] = {
      {"buffer_full", &counters.dropped_buffer_full},
      {"write_failed", &counters.dropped_write_failed},
      {"stream_broken", &counters.dropped_stream_broken},
      {"changed", &counters.dropped_changed}};
  for (const auto& [reason, count] : reasons) {
    AddValue(out.back(), static_cast<double>(count->load()),
             {{"reason", reason}});
  }
}

}  // namespace

// The values read at each scrape: gauges from the service, the pool and
// the registries, and the solvers' totals (counters).
class Metrics::Live final : public prometheus::Collectable {
 public:
  explicit Live(MetricSources sources) : sources_(std::move(sources)) {}

  std::vector<prometheus::MetricFamily> Collect() const override {
    std::vector<prometheus::MetricFamily> out;
    AddServiceGauges(sources_, out);
    AddSolveCounters(*sources_.counters, out);
    if (sources_.recording != nullptr) {
      AddRecorderCounters(*sources_.recording, out);
    }
    return out;
  }

 private:
  const MetricSources sources_;
};

Metrics::Metrics(MetricSources sources, const std::vector<std::string>& methods)
    : registry_(std::make_shared<prometheus::Registry>()),
      calls_(prometheus::BuildCounter()
                 .Name("ikd_calls_total")
                 .Help("IkService calls answered, by method and status code "
                       "(TickStream: ticks answered)")
                 .Register(*registry_)),
      durations_(prometheus::BuildHistogram()
                     .Name("ikd_call_duration_seconds")
                     .Help("IkService calls from arrival to answer, seconds")
                     .Register(*registry_)),
      request_bytes_(prometheus::BuildCounter()
                         .Name("ikd_request_bytes_total")
                         .Help("request bytes received, by method")
                         .Register(*registry_)),
      cancelled_(prometheus::BuildCounter()
                     .Name("ikd_calls_cancelled_total")
                     .Help("unary calls that ended before their answer was "
                           "sent: cancelled by the client, past their "
                           "deadline or their connection lost, by method")
                     .Register(*registry_)),
      live_(std::make_shared<Live>(std::move(sources))) {
  for (const std::string& method : methods) {
    PerMethod& per_method = methods_[method];
    per_method.duration =
        &durations_.Add({{"method", method}}, DurationBuckets());
    per_method.request_bytes = &request_bytes_.Add({{"method", method}});
    per_method.cancelled = &cancelled_.Add({{"method", method}});
    per_method.calls[0] = &calls_.Add({{"method", method}, {"code", "OK"}});
  }
  prometheus::BuildGauge()
      .Name("ikd_build_info")
      .Help("the running ikd's versions; always 1")
      .Register(*registry_)
      .Add({{"version", IK_VERSION},
            {"grpc_version", grpc::Version()},
            {"protobuf_version", google::protobuf::internal::VersionString(
                                     GOOGLE_PROTOBUF_VERSION)}})
      .Set(1);
}

Metrics::~Metrics() = default;

absl::Status Metrics::Serve(const std::string& listen) {
  try {
    exposer_ = std::make_unique<prometheus::Exposer>(listen);
  } catch (const std::exception& error) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--metrics_listen ", listen, ": cannot serve: ", error.what()));
  }
  exposer_->RegisterCollectable(registry_);
  exposer_->RegisterCollectable(live_);
  const std::vector<int> ports = exposer_->GetListeningPorts();
  port_ = ports.empty() ? 0 : ports.front();
  return absl::OkStatus();
}

void Metrics::CallEnded(const CallRecord& record, absl::StatusCode code,
                        absl::Time end) {
  auto found = methods_.find(record.method);
  const int code_index = static_cast<int>(code);
  if (found == methods_.end() || code_index < 0 || code_index >= kCodes) {
    calls_
        .Add({{"method", std::string(record.method)},
              {"code", absl::StatusCodeToString(code)}})
        .Increment();
    return;
  }
  PerMethod& method = found->second;
  prometheus::Counter* calls =
      method.calls[code_index].load(std::memory_order_acquire);
  if (calls == nullptr) {  // Add gives every thread the same series
    calls = &calls_.Add({{"method", std::string(record.method)},
                         {"code", absl::StatusCodeToString(code)}});
    method.calls[code_index].store(calls, std::memory_order_release);
  }
  calls->Increment();
  method.duration->Observe(absl::ToDoubleSeconds(end - record.start));
  method.request_bytes->Increment(static_cast<double>(record.request_bytes));
}

void Metrics::CallCancelled(const CallRecord& record) {
  auto found = methods_.find(record.method);
  if (found == methods_.end()) {
    cancelled_.Add({{"method", std::string(record.method)}}).Increment();
    return;
  }
  found->second.cancelled->Increment();
}

}  // namespace ik::server
