// What the solvers did since ikd started, for its metrics (metrics.h):
// goals solved and reached and the iterations they took, per solver;
// dynamic chains stepped and their substeps; legs grounded. Thread-safe:
// relaxed atomic totals, to which a job adds once (Goals::Flush), not once
// per goal, so threads solving side by side rarely touch the same line.
#ifndef IK_SERVER_OPS_SOLVE_COUNTERS_H_
#define IK_SERVER_OPS_SOLVE_COUNTERS_H_

#include <array>
#include <atomic>
#include <cstdint>

#include "ik/rig/rig.h"

namespace ik::server {

class SolveCounters {
 public:
  static constexpr int kSolvers = static_cast<int>(SolverKind::kTorque) + 1;

  struct PerSolver {
    std::int64_t goals = 0;
    std::int64_t reached = 0;
    std::int64_t iterations = 0;
  };

  // One job's goals, counted locally and added to the totals when it ends
  // (also on an early return).
  class Goals {
   public:
    explicit Goals(SolveCounters* counters) : counters_(counters) {}
    ~Goals() { Flush(); }
    Goals(const Goals&) = delete;
    Goals& operator=(const Goals&) = delete;

    void Add(SolverKind solver, bool reached, int iterations) {
      PerSolver& counted = counted_[static_cast<int>(solver)];
      ++counted.goals;
      counted.reached += reached ? 1 : 0;
      counted.iterations += iterations;
    }

    void Flush() {
      if (counters_ == nullptr) return;
      for (int i = 0; i < kSolvers; ++i) {
        if (counted_[i].goals == 0) continue;
        Totals& totals = counters_->solvers_[i];
        totals.goals.fetch_add(counted_[i].goals, std::memory_order_relaxed);
        totals.reached.fetch_add(counted_[i].reached,
                                 std::memory_order_relaxed);
        totals.iterations.fetch_add(counted_[i].iterations,
                                    std::memory_order_relaxed);
        counted_[i] = PerSolver();
      }
    }

   private:
    SolveCounters* counters_;
    std::array<PerSolver, kSolvers> counted_{};
  };

  void AddDynamics(std::int64_t chains, std::int64_t substeps) {
    dynamic_chains_.fetch_add(chains, std::memory_order_relaxed);
    substeps_.fetch_add(substeps, std::memory_order_relaxed);
  }
  void AddGrounding(std::int64_t legs) {
    grounded_legs_.fetch_add(legs, std::memory_order_relaxed);
  }

  PerSolver solver(SolverKind kind) const {
    const Totals& totals = solvers_[static_cast<int>(kind)];
    return {totals.goals.load(std::memory_order_relaxed),
            totals.reached.load(std::memory_order_relaxed),
            totals.iterations.load(std::memory_order_relaxed)};
  }
  std::int64_t dynamic_chains() const {
    return dynamic_chains_.load(std::memory_order_relaxed);
  }
  std::int64_t substeps() const {
    return substeps_.load(std::memory_order_relaxed);
  }
  std::int64_t grounded_legs() const {
    return grounded_legs_.load(std::memory_order_relaxed);
  }

 private:
  struct Totals {
    std::atomic<std::int64_t> goals{0};
    std::atomic<std::int64_t> reached{0};
    std::atomic<std::int64_t> iterations{0};
  };
  std::array<Totals, kSolvers> solvers_;
  std::atomic<std::int64_t> dynamic_chains_{0};
  std::atomic<std::int64_t> substeps_{0};
  std::atomic<std::int64_t> grounded_legs_{0};
};

}  // namespace ik::server

#endif  // IK_SERVER_OPS_SOLVE_COUNTERS_H_
