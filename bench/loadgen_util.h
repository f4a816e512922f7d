// What the load generator's modes share: percentiles of sorted latencies and
// another process's CPU time and resident memory.
#ifndef IK_BENCH_LOADGEN_UTIL_H_
#define IK_BENCH_LOADGEN_UTIL_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ik/v1/values.pb.h"

namespace ik::loadgen {

// Seeded points in the box of half size `half_size` around `center`
// (x, y, z).
class BoxPoints {
 public:
  BoxPoints(std::uint64_t seed, const std::vector<double>& center,
            double half_size)
      : rng_(seed), center_(center), offset_(-half_size, half_size) {}
  void Next(v1::Vec3* point) {
    point->set_x(center_[0] + offset_(rng_));
    point->set_y(center_[1] + offset_(rng_));
    point->set_z(center_[2] + offset_(rng_));
  }

 private:
  std::mt19937_64 rng_;
  std::vector<double> center_;
  std::uniform_real_distribution<double> offset_;
};

// The p-th percentile (0..100) of `sorted`; 0 when empty.
double Percentile(const std::vector<double>& sorted, double p);

// CPU seconds (user + system) process `pid` has used; 0 when unknown.
double ProcessCpuSeconds(int pid);

// Bytes of process `pid`'s memory resident now (VmRSS, /proc/PID/status);
// 0 when unknown.
std::int64_t ProcessResidentBytes(int pid);

// CPU seconds process `pid`'s threads named `name` (/proc/PID/task/*/comm)
// have used, to the nanosecond (schedstat); 0 when none is.
double ThreadCpuSeconds(int pid, const std::string& name);

}  // namespace ik::loadgen

#endif  // IK_BENCH_LOADGEN_UTIL_H_
