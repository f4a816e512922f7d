// ozz_bench's reporter (bench/ozz_bench.cc): Google Benchmark's console
// output, then a closing table of ikd's and ozz-animation's median CPU
// time per solve (per character for the crowd), side by side, with their
// ratio.
#ifndef IK_BENCH_OZZ_TABLE_REPORTER_H_
#define IK_BENCH_OZZ_TABLE_REPORTER_H_

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"

namespace ik::bench {

// The console output, plus each benchmark's median CPU time (or its one
// run's, without repetitions) for the closing table.
class TableReporter : public benchmark::ConsoleReporter {
 public:
  TableReporter() : ConsoleReporter(OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const std::string& name = run.run_name.function_name;
      // Nanoseconds, whatever unit the benchmark reports in.
      const double ns = run.GetAdjustedCPUTime() * 1e9 /
                        benchmark::GetTimeUnitMultiplier(run.time_unit);
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name == "median") {
        medians_[name] = ns;
      } else if (run.run_type == Run::RT_Iteration) {
        singles_[name] = ns;
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }

  // `crowd_characters`: the characters of BM_IkdCrowdCharacter's and
  // BM_OzzCrowdCharacter's iterations (bench/ozz_crowd.h).
  void PrintTable(int crowd_characters) const {
    std::printf("\n%-50s %8s %8s %10s\n", "median CPU time per solve", "ikd ns",
                "ozz ns", "ikd / ozz");
    PrintRow("two-bone job alone, with a pole", "TwoBonePole");
    PrintRow("the same jobs in pairs (RunTwoBoneJobs), per job",
             "TwoBonePolePairs", "TwoBonePole", 2.0);
    PrintRow("the same jobs four at a time (AVX lanes), per job",
             "TwoBonePoleQuads", "TwoBonePole", 4.0);
    PrintRow("whole goal: FK, solve, apply, re-measure", "WholeGoal");
    PrintRow("whole goals four at a time (RunSolveChainJobs)", "WholeGoalQuads",
             "WholeGoal", 4.0);
    PrintRow("the crowd's whole character, per character", "CrowdCharacter", "",
             crowd_characters, crowd_characters);
  }

 private:
  double Time(const std::string& name) const {
    if (auto it = medians_.find(name); it != medians_.end()) return it->second;
    if (auto it = singles_.find(name); it != singles_.end()) return it->second;
    return 0.0;
  }

  // ikd's BM_Ikd<suffix> against ozz's BM_Ozz<ozz_suffix, or suffix>, each
  // time divided by the solves of its iterations.
  void PrintRow(const char* label, const std::string& suffix,
                const std::string& ozz_suffix = "",
                double ikd_per_iteration = 1.0,
                double ozz_per_iteration = 1.0) const {
    const double ikd = Time("BM_Ikd" + suffix) / ikd_per_iteration;
    const double ozz =
        Time("BM_Ozz" + (ozz_suffix.empty() ? suffix : ozz_suffix)) /
        ozz_per_iteration;
    if (ikd == 0.0 || ozz == 0.0) return;  // filtered out
    std::printf("%-50s %8.1f %8.1f %10.2f\n", label, ikd, ozz, ikd / ozz);
  }

  std::map<std::string, double> medians_;
  std::map<std::string, double> singles_;
};

}  // namespace ik::bench

#endif  // IK_BENCH_OZZ_TABLE_REPORTER_H_
