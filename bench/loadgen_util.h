// What the load generator's modes share: percentiles of sorted latencies and
// another process's CPU time.
#ifndef IK_BENCH_LOADGEN_UTIL_H_
#define IK_BENCH_LOADGEN_UTIL_H_

#include <vector>

namespace ik::loadgen {

// The p-th percentile (0..100) of `sorted`; 0 when empty.
double Percentile(const std::vector<double>& sorted, double p);

// CPU seconds (user + system) process `pid` has used; 0 when unknown.
double ProcessCpuSeconds(int pid);

}  // namespace ik::loadgen

#endif  // IK_BENCH_LOADGEN_UTIL_H_
