// What the solvers did since ikd started, for its metrics (metrics.h):
// goals solved and reached and the iterations they took, per solver;
// dynamic chains stepped and their substeps; legs grounded. Thread-safe:
// relaxed atomic totals in shards of a cache line each, a thread adding to
// its own shard (threads solving side by side never bounce a line between
// their cores), and a job adds once (Goals::Flush), not once per goal.
// Reading sums the shards.
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
        Totals& totals = counters_->Mine().solvers[i];
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
    Shard& shard = Mine();
    shard.dynamic_chains.fetch_add(chains, std::memory_order_relaxed);
    shard.substeps.fetch_add(substeps, std::memory_order_relaxed);
  }
  void AddGrounding(std::int64_t legs) {
    Mine().grounded_legs.fetch_add(legs, std::memory_order_relaxed);
  }

  PerSolver solver(SolverKind kind) const {
    PerSolver sum;
    for (const Shard& shard : shards_) {
      const Totals& totals = shard.solvers[static_cast<int>(kind)];
      sum.goals += totals.goals.load(std::memory_order_relaxed);
      sum.reached += totals.reached.load(std::memory_order_relaxed);
      sum.iterations += totals.iterations.load(std::memory_order_relaxed);
    }
    return sum;
  }
  std::int64_t dynamic_chains() const { return Sum(&Shard::dynamic_chains); }
  std::int64_t substeps() const { return Sum(&Shard::substeps); }
  std::int64_t grounded_legs() const { return Sum(&Shard::grounded_legs); }

 private:
  static constexpr int kShards = 16;
  struct Totals {
    std::atomic<std::int64_t> goals{0};
    std::atomic<std::int64_t> reached{0};
    std::atomic<std::int64_t> iterations{0};
  };
  struct alignas(64) Shard {
    std::array<Totals, kSolvers> solvers;
    std::atomic<std::int64_t> dynamic_chains{0};
    std::atomic<std::int64_t> substeps{0};
    std::atomic<std::int64_t> grounded_legs{0};
  };

  // The calling thread's shard: threads are dealt the shards in turn as
  // they first count.
  Shard& Mine() {
    static std::atomic<int> next{0};
    thread_local const int index =
        next.fetch_add(1, std::memory_order_relaxed) % kShards;
    return shards_[index];
  }
  std::int64_t Sum(std::atomic<std::int64_t> Shard::*counter) const {
    std::int64_t sum = 0;
    for (const Shard& shard : shards_) {
      sum += (shard.*counter).load(std::memory_order_relaxed);
    }
    return sum;
  }

  std::array<Shard, kShards> shards_;
};

}  // namespace ik::server

#endif  // IK_SERVER_OPS_SOLVE_COUNTERS_H_
