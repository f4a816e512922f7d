#include "ik/base/smallest_three.h"

#include <cmath>

namespace ik {
namespace {

constexpr double kCodeMax = 32767.0;
constexpr std::uint64_t kCodeMask = 0x7FFF;
// sqrt(2) and 1/sqrt(2), correctly rounded.
constexpr double kSqrt2 = 1.4142135623730951;

double Component(const Quat& q, int i) {
  return i == 0 ? q.x : i == 1 ? q.y : i == 2 ? q.z : q.w;
}

}  // namespace

std::array<std::uint8_t, kSmallestThreeBytes> PackSmallestThree(
    const Quat& rotation) {
  const double norm = Norm(rotation);
  const Quat q =
      IsFinite(rotation) && norm > 0.0 ? rotation / norm : IdentityQuat();
  int largest = 0;
  for (int i = 1; i < 4; ++i) {
    if (std::abs(Component(q, i)) > std::abs(Component(q, largest))) {
      largest = i;
    }
  }
  const double sign = Component(q, largest) < 0.0 ? -1.0 : 1.0;
  std::uint64_t value = static_cast<std::uint64_t>(largest);
  int shift = 2;
  for (int i = 0; i < 4; ++i) {
    if (i == largest) continue;
    const double scaled = std::nearbyint(
        (sign * Component(q, i) * kSqrt2 + 1.0) * 0.5 * kCodeMax);
    const double clamped = std::fmin(std::fmax(scaled, 0.0), kCodeMax);
    value |= static_cast<std::uint64_t>(clamped) << shift;
    shift += 15;
  }
  std::array<std::uint8_t, kSmallestThreeBytes> bytes;
  for (int b = 0; b < kSmallestThreeBytes; ++b) {
    bytes[b] = static_cast<std::uint8_t>(value >> (8 * b));
  }
  return bytes;
}

Quat UnpackSmallestThree(const std::uint8_t* bytes) {
  std::uint64_t value = 0;
  for (int b = 0; b < kSmallestThreeBytes; ++b) {
    value |= static_cast<std::uint64_t>(bytes[b]) << (8 * b);
  }
  const int largest = static_cast<int>(value & 3);
  double components[4];
  double sum = 0.0;
  int shift = 2;
  for (int i = 0; i < 4; ++i) {
    if (i == largest) continue;
    const double code = static_cast<double>((value >> shift) & kCodeMask);
    const double c = (code / kCodeMax * 2.0 - 1.0) / kSqrt2;
    components[i] = c;
    sum += c * c;
    shift += 15;
  }
  const double rest = 1.0 - sum;
  components[largest] = rest > 0.0 ? std::sqrt(rest) : 0.0;
  return MakeQuat(components[0], components[1], components[2], components[3]);
}

}  // namespace ik
