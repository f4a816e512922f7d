// The time the process spends inside the core's jobs (GroundFeetJob,
// SolveChainJob, forward kinematics and RigDynamicsStep, PoseCheckJob), summed
// over threads, so a benchmark can hold what a call costs against what its
// solving costs. Off unless enabled: a disabled scope costs one relaxed load.
//
//   CoreTime::Enable(true);
//   CoreTime::Reset();
//   handlers.Tick(request, response, scope);
//   std::int64_t solving = CoreTime::Nanos();
//
// The handlers run every core job through RunCore(job).
#ifndef IK_SERVER_RPC_CORE_TIME_H_
#define IK_SERVER_RPC_CORE_TIME_H_

#include <atomic>
#include <chrono>
#include <cstdint>

namespace ik::server {

class CoreTime {
 public:
  // Process-wide switch.
  static void Enable(bool on) { enabled_.store(on, std::memory_order_relaxed); }
  static bool enabled() { return enabled_.load(std::memory_order_relaxed); }
  // The time in the core's jobs since the last reset, all threads, ns.
  static std::int64_t Nanos() {
    return total_nanos_.load(std::memory_order_relaxed);
  }
  static void Reset() { total_nanos_.store(0, std::memory_order_relaxed); }

  // Adds `kSign` times the time from construction to destruction to the
  // total, when enabled.
  template <int kSign>
  class Timed {
   public:
    Timed() : on_(enabled()) {
      if (on_) start_ = std::chrono::steady_clock::now();
    }
    ~Timed() {
      if (on_) {
        total_nanos_.fetch_add(
            kSign * std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - start_)
                        .count(),
            std::memory_order_relaxed);
      }
    }
    Timed(const Timed&) = delete;
    Timed& operator=(const Timed&) = delete;

   private:
    bool on_;
    std::chrono::steady_clock::time_point start_;
  };
  // Core time: from construction to destruction.
  using Scope = Timed<1>;
  // Taken off the total: work a core job's caller does while a Scope runs
  // (writing an answer as the job reports it).
  using Excluded = Timed<-1>;

 private:
  static inline std::atomic<bool> enabled_{false};
  static inline std::atomic<std::int64_t> total_nanos_{0};
};

// job.Run(), timed as core time.
template <typename Job>
auto RunCore(const Job& job) {
  CoreTime::Scope scope;
  return job.Run();
}

}  // namespace ik::server

#endif  // IK_SERVER_RPC_CORE_TIME_H_
