// Legs of a rig, for the grounding pass (ik/ground/grounding.h): which
// joints make each leg and how its rays are cast.
//
// A character lists legs by joint name (LegDefinition); BuildLegs checks
// them against its rig and gives the resolved form (Leg, joint indices),
// which the grounding pass (ik/ground/grounding.h) reads.
#ifndef IK_LEG_H_
#define IK_LEG_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"

namespace ik {

// Defaults of the per-leg settings, metres and radians.
inline constexpr double kDefaultAnkleHeight = 0.08;
inline constexpr double kDefaultToeForward = 0.15;
inline constexpr double kDefaultRayAboveHip = 0.1;
inline constexpr double kDefaultRayBelowAnkle = 0.5;
inline constexpr double kDefaultMaxPelvisDrop = 0.3;
inline constexpr double kDefaultMaxFootTilt = 0.6;  // about 34 degrees
// Upper bound of every distance setting, metres.
inline constexpr double kMaxLegDistance = 100.0;

// The settings every leg has, whether named or resolved. Distances are
// world-space metres (the character's scale does not apply); how the
// grounding pass uses each: ik/ground/grounding.h.
struct LegSettings {
  // Height of the ankle joint above the sole, metres, >= 0: a ground hit is
  // raised by this much, along the ground's normal, to give the ankle's
  // goal.
  double ankle_height = kDefaultAnkleHeight;
  // The toe ray is cast this far ahead of the ankle along the character's
  // forward axis, metres, > 0. With a toe joint the ray goes through the
  // toe instead (and this is its fallback when the toe sits on the ankle
  // in plan view).
  double toe_forward = kDefaultToeForward;
  // The leg ray starts this far above the hip (world up), metres, >= 0 (the
  // toe ray this far above the knee) ...
  double ray_above_hip = kDefaultRayAboveHip;
  // ... and reaches this far below the animated ankle, metres, > 0: hits
  // below the sole but within this reach give the planted goal (the toe
  // ray this far below the toe point).
  double ray_below_ankle = kDefaultRayBelowAnkle;
  // Most the pelvis may be lowered so that this leg reaches its goal,
  // metres, >= 0 (the character's drop is the largest any leg asks for,
  // clamped to the smallest of its legs' maxima).
  double max_pelvis_drop = kDefaultMaxPelvisDrop;
  // Most the foot may be tilted to follow the ground, radians, in [0, pi/2].
  double max_foot_tilt = kDefaultMaxFootTilt;
};

// A leg by joint names, as a rig definition gives it.
struct LegDefinition {
  std::string name;
  std::string hip;    // joint name
  std::string knee;   // joint name, a child of hip
  std::string ankle;  // joint name, a child of knee
  std::string toe;    // optional (empty: none); a descendant of ankle
  LegSettings settings;
};

// A validated leg: joint indices of its rig (toe = -1 when it has none),
// and what the grounding pass would otherwise look up in the rig per call.
struct Leg {
  std::string name;
  int hip = -1;
  int knee = -1;
  int ankle = -1;
  int toe = -1;
  LegSettings settings;
  // The hip's ancestors, top-most first (each the parent of the next): what
  // forward kinematics visits on the way down to the leg (as
  // Chain::ancestors).
  std::vector<int> ancestors;
  // The ankle's rest rotation in model space: the rest local rotations
  // from the ankle up to its root, multiplied bottom-up. The rest pose
  // holds the sole level in this frame.
  Quat ankle_rest_model{1.0, 0.0, 0.0, 0.0};
  // For a hinge knee, its local rotation at the middle of its range: the
  // grounding pass's pole lies where the knee goes when bent so, the hip as
  // animated (the side and plane the hinge bends the leg in). Unset for
  // other knees.
  std::optional<Quat> knee_bent;
};

// Validates `definitions` against `rig` and builds its legs, in order.
// Checks: names (ValidateName) unique among the legs; hip -> knee -> ankle
// joints of the rig, each the parent of the next, with bones of at least
// kMinBoneLength in the rest pose; a toe, if named, below the ankle;
// settings in range. Errors name "legs[i].<field>": INVALID_ARGUMENT, or
// NOT_FOUND for a joint the rig lacks.
absl::StatusOr<std::vector<Leg>> BuildLegs(
    const Rig& rig, absl::Span<const LegDefinition> definitions);

}  // namespace ik

#endif  // IK_LEG_H_
