// What the grounding tests share: a runner that owns the job's buffers,
// and checks written independently of the pass (world positions by
// matrices, world rotations by quaternion products).
#ifndef IK_TESTS_CORE_GROUNDING_FIXTURES_H_
#define IK_TESTS_CORE_GROUNDING_FIXTURES_H_

#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "humanoid_rig.h"
#include "ik/base/math.h"
#include "ik/character/character.h"
#include "ik/ground/grounding.h"
#include "ik/ground/terrain.h"
#include "ik/rig/rig.h"
#include "independent_checks.h"

namespace ik::testing {

// World rotation of `joint`: the root's, then each ancestor's local rotation
// down to the joint's.
inline Quat WorldRotation(const Rig& rig, absl::Span<const Transform> locals,
                          const Transform& root, int joint) {
  Quat rotation = locals[joint].rotation;
  for (int j = rig.parents()[joint]; j != kNoParent; j = rig.parents()[j]) {
    rotation = locals[j].rotation * rotation;
  }
  return root.rotation * rotation;
}

// Rest-pose model rotation of `joint`.
inline Quat RestModelRotation(const Rig& rig, int joint) {
  return WorldRotation(rig, rig.rest_pose(), Transform(), joint);
}

// The world direction a foot's sole faces (away from the ground): model up
// as the rest pose holds the foot, turned with the ankle.
inline Vec3 SoleUp(const Rig& rig, absl::Span<const Transform> locals,
                   const Transform& root, int ankle) {
  return WorldRotation(rig, locals, root, ankle) *
         (glm::conjugate(RestModelRotation(rig, ankle)) * Vec3(0, 1, 0));
}

// Everything one GroundFeetJob::Run needs, owned.
struct GroundingRun {
  std::vector<Transform> locals;  // in: the animated pose; out: the answer
  std::vector<FootResult> feet;
  GroundFeetReport report;
  absl::Status status;

  // The answer's root.
  Transform Lowered(const Transform& root) const {
    Transform lowered = root;
    lowered.translation += report.root_offset;
    return lowered;
  }
};

inline GroundingRun RunGrounding(
    const Character& character, std::vector<Transform> locals,
    const Transform& root, const Ground& ground, std::vector<double> weights,
    std::optional<GroundSmoothing> smoothing = std::nullopt) {
  GroundingRun run;
  run.locals = std::move(locals);
  run.feet.resize(character.legs.size());
  GroundFeetJob job;
  job.rig = &character.rig;
  job.legs = character.legs;
  job.root = root;
  job.locals = absl::MakeSpan(run.locals);
  job.ground = ground;
  job.weights = weights;
  job.smoothing = smoothing;
  job.feet = absl::MakeSpan(run.feet);
  job.report = &run.report;
  run.status = job.Run();
  return run;
}

// An infinite plane.
inline GroundPlane Plane(const Vec3& point, const Vec3& normal) {
  GroundPlaneDefinition definition;
  definition.point = point;
  definition.normal = normal;
  return *GroundPlane::Create(definition);
}

// A horizontal plane at `height` over [min_x, max_x] x [min_z, max_z].
inline GroundPlane Floor(double height, double min_x, double max_x,
                         double min_z, double max_z) {
  GroundPlaneDefinition definition;
  definition.point = Vec3(0.0, height, 0.0);
  definition.rectangle_xz = RectangleXZ{min_x, max_x, min_z, max_z};
  return *GroundPlane::Create(definition);
}

// A root turned `yaw` radians about +Y and moved to `translation`.
inline Transform YawedRoot(double yaw, const Vec3& translation) {
  Transform root;
  root.rotation = AngleAxis(yaw, Vec3(0, 1, 0));
  root.translation = translation;
  return root;
}

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_GROUNDING_FIXTURES_H_
