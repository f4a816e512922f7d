// FABRIK without joint limits on two bones (three joints): the pose its
// passes converge to, in closed form (ik/solvers/fabrik.h).
#include <cmath>

#include "ik/base/validate.h"
#include "solvers/chain_internal.h"
#include "solvers/fabrik_internal.h"

namespace ik::internal {
namespace {

// `v` turned by the shortest arc from `from` to `to` (ShortestArc's turn),
// times a positive factor: with the arc as the quaternion (w, a), w =
// |from||to| + from.to and a = from x to, (w, a) v (w, a)* = (w^2 - a.a) v +
// 2 (a.v) a + 2 w (a x v) is the turned `v` times |(w, a)|^2. One square
// root, no division.
Vec3 TurnedByArcScaled(const Vec3& from, const Vec3& to, const Vec3& v) {
  const double from_squared = glm::dot(from, from);
  const double to_squared = glm::dot(to, to);
  if (!(from_squared >= kMinDirectionSquared) ||
      !(to_squared >= kMinDirectionSquared)) {
    return v;  // ShortestArc's identity
  }
  const double lengths = std::sqrt(from_squared * to_squared);
  const double w = lengths + glm::dot(from, to);
  if (w < 1e-12 * lengths) return FromTo(from, to) * v;  // as ShortestArc
  const Vec3 axis = glm::cross(from, to);
  return (w * w - glm::dot(axis, axis)) * v + (2.0 * glm::dot(axis, v)) * axis +
         (2.0 * w) * glm::cross(axis, v);
}

// Relative to its distance from the root, the least distance of the start
// pose's elbow from the root -> target line for the closed form below: the
// plane it spans with that line is then resolved to about 1e-10 rad.
constexpr double kMinElbowAcross = 1e-6;

// The part across `wanted` of `elbow` (both from the root) turned by the
// aim, the shortest arc from `reach` to `wanted`, times a positive factor,
// and its squared length: with n = reach x wanted (the turn's axis), m = n
// x reach and k = n x wanted, the turn takes n to itself and m's direction
// to k's, so the part of `elbow` across `reach` goes to (e.n) n / |n|^2 +
// (e.m) k / (|n|^2 |reach||wanted|), which is parallel to
// |reach||wanted| (e.n) n + (e.m) k. Its squared length needs no square
// root (n is perpendicular to k), so the one square root here runs beside
// the division and square root that scale it. False when the turn is too
// small or too near a half turn for n to give its axis (to about 1e-6
// rad): TurnedByArcScaled then.
bool AimedAcross(const Vec3& reach, const Vec3& wanted, const Vec3& elbow,
                 Vec3* across, double* across_squared) {
  const Vec3 axis = glm::cross(reach, wanted);
  const double axis_squared = glm::dot(axis, axis);
  const double reach_squared = glm::dot(reach, reach);
  const double wanted_squared = glm::dot(wanted, wanted);
  const double lengths_squared = reach_squared * wanted_squared;
  if (!(axis_squared >= kMinElbowAcross * kMinElbowAcross * lengths_squared)) {
    return false;
  }
  const double reach_wanted = glm::dot(reach, wanted);
  const double along_axis = glm::dot(elbow, axis);
  // e.m = e.(wanted |reach|^2 - reach (reach.wanted)); k = wanted
  // (reach.wanted) - reach |wanted|^2.
  const double along_m = glm::dot(elbow, wanted) * reach_squared -
                         glm::dot(elbow, reach) * reach_wanted;
  *across_squared = axis_squared * (lengths_squared * along_axis * along_axis +
                                    wanted_squared * along_m * along_m);
  *across = (std::sqrt(lengths_squared) * along_axis) * axis +
            along_m * (reach_wanted * wanted - wanted_squared * reach);
  return true;
}

}  // namespace

// Two bones: where FABRIK's passes converge, in closed form. Every point a
// pass places lies in the half-plane bounded by the root -> target line
// that holds the elbow the iterations start from (after the aim): the
// backward pass puts the elbow on the ray from the target through it, the
// forward pass on the ray from the root through that, and the tip on the
// ray from there through the target. The one pose of that half-plane with
// both bones' lengths and the tip on the target, the passes' only fixed
// point there, has its elbow at the triangle's apex: a = (d^2 + l0^2 -
// l1^2) / (2 d) along the line (d the target's distance from the root) and
// h = sqrt(l0^2 - a^2) across it. From the pose in `points`, writes that
// one into `apex` (root, elbow, target) and returns true; false, writing
// nothing, when the target is not strictly within the ring the bones reach
// (h^2 <= 0) or the elbow lies (almost) on the line, where the passes never
// leave it.
bool TriangleApex(const ChainJob& job, const Vec3& root_position,
                  const Vec3* points, Vec3* apex) {
  const double l0 = job.workspace->lengths[0];
  const double l1 = job.workspace->lengths[1];
  const Vec3 wanted = job.target_model - root_position;
  const double distance_squared = glm::dot(wanted, wanted);
  if (!(distance_squared >= kMinDirectionSquared)) return false;
  const double inverse_squared = 1.0 / distance_squared;
  // a / d: a along the line is `wanted` times it, with no square root.
  const double along =
      0.5 * (distance_squared + l0 * l0 - l1 * l1) * inverse_squared;
  const double height_squared = l0 * l0 - along * along * distance_squared;
  if (!(height_squared > 0.0)) return false;
  // Only the elbow's side of the line matters: the aim's turn is applied
  // to it up to a positive factor.
  const Vec3 elbow = points[1] - root_position;
  Vec3 across;
  double across_squared;
  const bool aim = AimApplies(job, root_position, l0 + l1, points);
  if (!aim || !AimedAcross(points[2] - root_position, wanted, elbow, &across,
                           &across_squared)) {
    const Vec3 turned =
        aim ? TurnedByArcScaled(points[2] - root_position, wanted, elbow)
            : elbow;
    across = turned - (glm::dot(turned, wanted) * inverse_squared) * wanted;
    across_squared = glm::dot(across, across);
    if (!(across_squared >=
          kMinElbowAcross * kMinElbowAcross * glm::dot(turned, turned))) {
      return false;
    }
  }
  apex[0] = root_position;
  apex[1] = root_position + wanted * along +
            across * std::sqrt(height_squared / across_squared);
  apex[2] = job.target_model;
  return true;
}

namespace {

// ShortestArc for two directions whose lengths multiply to `lengths`
// (known: no square root for it).
Quat ArcOfKnownLengths(const Vec3& from, const Vec3& to, double lengths) {
  const double w = lengths + glm::dot(from, to);
  if (w < 1e-12 * lengths) return FromTo(from, to);  // (nearly) opposite
  const Vec3 v = glm::cross(from, to);
  const double scale = 1.0 / std::sqrt(w * w + glm::dot(v, v));
  return Quat(w * scale, v.x * scale, v.y * scale, v.z * scale);
}

// TriangleApex's pose turned into rotations, and its forward kinematics.
struct TrianglePose {
  Quat locals[2];
  Quat models[2];
  Vec3 elbow;
  Vec3 tip;
};

// TriangleApex's pose turned into rotations as ConvertPositions does: each
// bone swings by the shortest arc in model space from its direction under
// the current locals (read off the workspace's forward kinematics of them)
// onto the one the pose gives it, the two arcs independent of each other;
// each joint's local rotation follows from its and its parent's new model
// rotations. Both bones have their lengths to rounding in both poses: each
// arc's |from||to| is the bone's length squared. Then the forward
// kinematics of the result (the same operations as ChainForwardKinematics:
// the same bits). Writes nothing.
[[gnu::always_inline]] inline TrianglePose ConvertTriangle(const ChainJob& job,
                                                           const Vec3* apex) {
  const ChainWorkspace& ws = *job.workspace;
  const double l0 = ws.lengths[0];
  const double l1 = ws.lengths[1];
  const Vec3* points = ws.positions.data();
  const Quat turned0 =
      ArcOfKnownLengths(points[1] - points[0], apex[1] - apex[0], l0 * l0) *
      ws.rotations[0];
  const Quat turned1 =
      ArcOfKnownLengths(points[2] - points[1], apex[2] - apex[1], l1 * l1) *
      ws.rotations[1];
  TrianglePose pose;
  pose.locals[0] = Renormalized(glm::conjugate(ws.parent_rotation) * turned0);
  pose.locals[1] = Renormalized(glm::conjugate(turned0) * turned1);
  pose.models[0] = ws.parent_rotation * pose.locals[0];
  pose.elbow = apex[0] + pose.models[0] * ws.bones[0];
  pose.models[1] = pose.models[0] * pose.locals[1];
  pose.tip = pose.elbow + pose.models[1] * ws.bones[1];
  return pose;
}

// Sets the locals to `pose` and the workspace's forward kinematics to its.
void WriteTriangle(const ChainJob& job, const Vec3& root_position,
                   const TrianglePose& pose) {
  ChainWorkspace& ws = *job.workspace;
  job.locals[0].rotation = pose.locals[0];
  job.locals[1].rotation = pose.locals[1];
  ws.positions[0] = root_position;
  ws.positions[1] = pose.elbow;
  ws.positions[2] = pose.tip;
  ws.rotations[0] = pose.models[0];
  ws.rotations[1] = pose.models[1];
}

}  // namespace

void SetTriangle(const ChainJob& job, const Vec3& root_position,
                 const Vec3* apex) {
  WriteTriangle(job, root_position, ConvertTriangle(job, apex));
}

bool ReachTriangleAtOnce(const ChainJob& job, const Vec3& root_position) {
  Vec3 apex[3];
  if (!TriangleApex(job, root_position, job.workspace->positions.data(),
                    apex)) {
    return false;
  }
  const TrianglePose pose = ConvertTriangle(job, apex);
  if (!(SquaredDistance(pose.tip, job.target_model) <=
        job.tolerance * job.tolerance)) {
    return false;
  }
  // The workspace's contents mean nothing after the solve: the locals only.
  job.locals[0].rotation = pose.locals[0];
  job.locals[1].rotation = pose.locals[1];
  ReportChainJob(job, pose.tip, /*iterations=*/1, StopReason::kReached,
                 /*limited_mask=*/0);
  return true;
}

}  // namespace ik::internal
