// Prints two digests over a seeded sweep of arguments: of the host libm's
// sin, cos, atan2, acos, asin and pow, and of the core's (ik/base/trig.h).
// golden_across_libm.sh runs it with glibc's FMA/AVX2 builds allowed and
// masked: the libm digest shows whether the mask changes anything on this
// CPU, the core's must not change.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>

#include "ik/base/trig.h"

namespace {

class Digest {
 public:
  void Add(double value) {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    state_ = (state_ ^ bits) * 1099511628211ull;  // FNV-1a over words
  }
  std::uint64_t value() const { return state_; }

 private:
  std::uint64_t state_ = 1469598103934665603ull;
};

}  // namespace

int main() {
  std::mt19937_64 random(0x11b3);
  std::uniform_real_distribution<double> angle(-10.0, 10.0);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  Digest libm;
  Digest core;
  for (int i = 0; i < 200000; ++i) {
    const double a = angle(random);
    const double b = angle(random);
    const double u = unit(random);
    const double base = 1.0 + std::abs(u);
    libm.Add(std::sin(a));
    libm.Add(std::cos(a));
    libm.Add(std::atan2(a, b));
    libm.Add(std::acos(u));
    libm.Add(std::asin(u));
    libm.Add(std::pow(base, b));
    core.Add(ik::Sin(a));
    core.Add(ik::Cos(a));
    core.Add(ik::Atan2(a, b));
    core.Add(ik::Acos(u));
    core.Add(ik::Asin(u));
    core.Add(ik::Pow(base, b));
  }
  std::printf("libm %016llx\ncore %016llx\n",
              static_cast<unsigned long long>(libm.value()),
              static_cast<unsigned long long>(core.value()));
  return 0;
}
