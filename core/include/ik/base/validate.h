// The core's validation vocabulary: every tolerance an input check uses and
// every check shared by more than one module, defined once. Each check
// returns OK or a FieldError (ik/base/field_error.h) whose message starts with
// the field path it is given; the OK paths build no strings.
#ifndef IK_VALIDATE_H_
#define IK_VALIDATE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ik/base/field_error.h"
#include "ik/base/math.h"

namespace ik {

// A rotation is accepted when its norm is within this of 1 (and normalised).
inline constexpr double kUnitQuatTolerance = 1e-3;
// The same test on the squared norm, for checks that skip the square root:
// |q|^2 within this of 1 (|q| within about 1e-3).
inline constexpr double kUnitNormSquaredTolerance = 2e-3;
// Directions shorter than this, metres (or unit-free for axes), have no
// direction: normalising them is refused or skipped.
inline constexpr double kMinDirectionLength = 1e-12;
// Its square (1e-24 exactly as doubles go), for tests on squared lengths.
inline constexpr double kMinDirectionSquared =
    kMinDirectionLength * kMinDirectionLength;

// Names of rigs, terrains, joints, chains, legs, colliders and dynamic
// chains: 1..kMaxNameLength characters, each a letter, a digit, '_', '-' or
// '.'.
inline constexpr int kMaxNameLength = 128;

// OK when `name` follows the rule above, else INVALID_ARGUMENT naming
// `path` ("rig.joints[3].name: 'a/b c' is not a valid name (...)").
absl::Status ValidateName(absl::string_view name, absl::string_view path);

// A request string for an error message: in single quotes, cut to at most
// kMaxNameLength characters with "..." after it when longer.
std::string Quoted(absl::string_view text);

// INVALID_ARGUMENT "<path>: must be within [low, high]<unit>, got <value>".
absl::Status OutOfRange(absl::string_view path, double value, double low,
                        double high, absl::string_view unit = "");

// The error CheckPoint returns for a point that fails it.
absl::Status PointError(const Vec3& point, absl::string_view path);

// OK when `point` is finite and every component is within kMaxCoordinate;
// else "<path>: not finite" or "<path>: beyond 1e+09 m from the origin".
inline absl::Status CheckPoint(const Vec3& point, absl::string_view path) {
  if (IsWithinRange(point)) return absl::OkStatus();  // false for NaN too
  return PointError(point, path);
}

}  // namespace ik

#endif  // IK_VALIDATE_H_
