// The pose check: what is wrong with a pose an untrusted client claims, and
// the nearest pose the rig allows. A game server that takes poses from its
// clients checks them here before trusting (or repairing) them.
//
//   std::vector<ik::PoseViolation> violations;
//   std::vector<ik::Transform> repaired(rig.joint_count());
//   ik::PoseCheckJob check;
//   check.rig = &rig;
//   check.claimed = claimed;  // raw: may hold NaN, non-unit rotations, ...
//   check.violations = &violations;
//   check.repaired = absl::MakeSpan(repaired);
//   absl::Status status = check.Run();
#ifndef IK_RIG_POSE_CHECK_H_
#define IK_RIG_POSE_CHECK_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"

namespace ik {

// One thing wrong with one joint of a claimed pose.
struct PoseViolation {
  enum class Kind {
    // The rotation has a NaN or infinite component (amount 0).
    kRotationNotFinite,
    // The rotation's norm is off 1 by more than kUnitQuatTolerance (amount:
    // |norm - 1|); a zero rotation counts here with amount 1.
    kRotationNotUnit,
    // The (normalised) rotation is outside the joint's limit (amount: the
    // angle, radians, the limit's clamp turns it by).
    kOutsideLimit,
    // The translation (the bone to the parent) is not finite, or differs from
    // the rig's by more than the tolerance: a bone length or direction the
    // rig does not have (amount: the distance, metres; 0 when not finite).
    kTranslation,
    // The scale is not finite or differs from the rig's by more than the
    // tolerance in any axis (amount: the largest difference; 0 when not
    // finite).
    kScale,
  };
  int joint = -1;
  Kind kind = Kind::kOutsideLimit;
  // Always finite: for any finite input, an amount beyond the largest
  // double (a norm or a difference of numbers near it) is the largest
  // double.
  double amount = 0.0;
};

// Checks every joint of `claimed` (local transforms, one per joint of the
// rig, raw as received) and writes into `repaired` the nearest pose the rig
// allows: each rotation made finite (the rest rotation if not) and unit,
// then held to the joint's limit; translations and scales the rig's rest
// ones. Violations are listed joint by joint, in the order of Kind. A
// rotation replaced by the rest rotation (not finite, or zero) is within the
// limit (a rig's rest pose is within its limits: Rig::Create refuses one
// that is not).
struct PoseCheckJob {
  const Rig* rig = nullptr;
  absl::Span<const Transform> claimed;
  // Translations and scales within this of the rig's (metres, and scale
  // units) count as the rig's. Finite, >= 0.
  double tolerance = 1e-6;
  std::vector<PoseViolation>* violations = nullptr;  // cleared, then filled
  absl::Span<Transform> repaired;                    // one per joint

  // Sizes and the tolerance; the claimed values themselves are what the
  // check reports, never an error.
  absl::Status Validate() const;
  absl::Status Run() const;
};

}  // namespace ik

#endif  // IK_RIG_POSE_CHECK_H_
