// Rotations in 48 bits, the "smallest three" encoding of ozz-animation's
// rotation keys and Glenn Fiedler's snapshot compression: a unit quaternion
// and its negation are one rotation, so the largest component (in
// magnitude) can be taken positive and rebuilt from the other three, each of
// which then lies in [-1/sqrt(2), 1/sqrt(2)] and is stored in 15 bits.
//
// The layout (ik.v1 CompactPose.quantized_rotations): a 48-bit little-endian
// integer whose bits 0-1 say which component is largest (0 x, 1 y, 2 z,
// 3 w), bits 2-16, 17-31 and 32-46 hold the other three in x, y, z, w order,
// bit 47 is 0. A code c stands for (c / 32767 * 2 - 1) / sqrt(2).
//
//   std::array<uint8_t, 6> bytes = PackSmallestThree(rotation);
//   Quat back = UnpackSmallestThree(bytes.data());  // within 1.4e-4 rad
#ifndef IK_BASE_SMALLEST_THREE_H_
#define IK_BASE_SMALLEST_THREE_H_

#include <array>
#include <cstdint>

#include "ik/base/math.h"

namespace ik {

inline constexpr int kSmallestThreeBytes = 6;

// `rotation` (any finite non-zero quaternion: it is normalised first) as 6
// bytes. A rotation that is not finite or zero packs as the identity.
std::array<std::uint8_t, kSmallestThreeBytes> PackSmallestThree(
    const Quat& rotation);

// The rotation 6 bytes at `bytes` stand for: the three stored components
// decoded, the largest rebuilt as sqrt(1 - a*a - b*b - c*c) (0 when that is
// negative), not normalised further. Bit 47 is ignored here: callers that
// take bytes from outside check it (SmallestThreeReservedBit).
Quat UnpackSmallestThree(const std::uint8_t* bytes);

// True when bit 47 of the 6 bytes at `bytes`, which must be 0, is set.
inline bool SmallestThreeReservedBit(const std::uint8_t* bytes) {
  return (bytes[5] & 0x80) != 0;
}

}  // namespace ik

#endif  // IK_BASE_SMALLEST_THREE_H_
