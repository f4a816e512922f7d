// Math vocabulary of the ikd core: vectors, quaternions and transforms in
// double precision on GLM.
//
// This is the only header that includes GLM; the GLM_* configuration lives in
// the core target's public compile definitions (core/CMakeLists.txt), never
// per file.
//
// Conventions: metres, radians; right-handed, +Y up, character forward +Z.
// GLM's quaternion constructor is (w, x, y, z): use MakeQuat(x, y, z, w) for
// data that arrives in wire order.
//
//   ik::Transform shoulder_model = ...;
//   ik::Vec3 elbow_model = ik::TransformPoint(shoulder_model, {0, -0.3, 0});
#ifndef IK_MATH_H_
#define IK_MATH_H_

#include <cmath>
#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>
#include <limits>

namespace ik {

using Vec3 = glm::dvec3;
using Quat = glm::dquat;

inline constexpr double kPi = 3.14159265358979323846;

// Solvers reject model-space coordinates beyond this magnitude, metres: their
// squares stay far from overflow (so no NaN) and doubles still resolve them to
// better than a micrometre.
inline constexpr double kMaxCoordinate = 1e9;

// Builds a quaternion from components in wire order (x, y, z, w).
inline Quat MakeQuat(double x, double y, double z, double w) {
  return Quat(w, x, y, z);
}

inline Quat IdentityQuat() { return Quat(1.0, 0.0, 0.0, 0.0); }

// Scale, then rotation, then translation. Identity by default.
struct Transform {
  Vec3 translation{0.0, 0.0, 0.0};
  Quat rotation{1.0, 0.0, 0.0, 0.0};
  Vec3 scale{1.0, 1.0, 1.0};
};

// parent * child: the child's transform expressed in the parent's space.
// Scale composes component-wise without shear (exact for uniform scale).
inline Transform Compose(const Transform& parent, const Transform& child) {
  Transform result;
  result.translation =
      parent.translation + parent.rotation * (parent.scale * child.translation);
  result.rotation = parent.rotation * child.rotation;
  result.scale = parent.scale * child.scale;
  return result;
}

// Applies `transform` to a point.
inline Vec3 TransformPoint(const Transform& transform, const Vec3& point) {
  return transform.translation + transform.rotation * (transform.scale * point);
}

// Applies the inverse of `transform` to a point (exact for any positive scale).
inline Vec3 InverseTransformPoint(const Transform& transform,
                                  const Vec3& point) {
  const Vec3 turned =
      glm::conjugate(transform.rotation) * (point - transform.translation);
  // x / 1 is x: the three divisions only for a scale other than 1.
  if (transform.scale == Vec3(1.0)) return turned;
  return turned / transform.scale;
}

// +infinity.
inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Below this value of 1 + cos(angle) two unit directions count as opposite
// (and w = |a||b| + a.b of a shortest arc is below this fraction of |a||b|):
// their cross product then carries too few significant bits to give an axis
// (it is ~sqrt(2e-12) long at the threshold, so still well resolved above
// it), and FromTo's careful path takes over.
inline constexpr double kOppositeThreshold = 1e-12;

// The shortest-arc rotation turning direction `from` into direction `to`.
// Neither needs to be unit length. Returns identity when either is shorter
// than 1e-12; for opposite directions, a half turn about a deterministic axis
// perpendicular to `from`.
Quat FromTo(const Vec3& from, const Vec3& to);

// A unit vector perpendicular to `v` (v must not be zero), chosen
// deterministically from v's smallest component.
Vec3 AnyPerpendicular(const Vec3& v);

// Signed angle, radians in (-pi, pi], turning `from` into `to` about `axis`,
// measured after projecting both onto the plane normal to `axis`. `axis`
// must be unit length. Returns 0 when either projection is degenerate.
double SignedAngleAbout(const Vec3& from, const Vec3& to, const Vec3& axis);

// Rotation by `angle` radians about unit `axis` (right-hand rule).
Quat AngleAxis(double angle, const Vec3& axis);

// Spherical linear interpolation from `from` (t = 0) to `to` (t = 1) along
// the shorter arc; unit inputs give a unit result. Uses ik/base/trig.h, so
// it gives the same bits on every CPU (glm::slerp calls the host's libm).
Quat Slerp(const Quat& from, const Quat& to, double t);

inline bool IsFinite(double value) { return std::isfinite(value); }
inline bool IsFinite(const Vec3& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}
inline bool IsFinite(const Quat& q) {
  return std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z) &&
         std::isfinite(q.w);
}

// Finite, with every component within [-kMaxCoordinate, kMaxCoordinate].
inline bool IsWithinRange(const Vec3& v) {
  // Written so that NaN fails every comparison.
  return std::abs(v.x) <= kMaxCoordinate && std::abs(v.y) <= kMaxCoordinate &&
         std::abs(v.z) <= kMaxCoordinate;
}

// `q` scaled to unit length, for a quaternion already within rounding of it
// (a product of unit quaternions): one Newton step of 1/sqrt(|q|^2) from 1,
// q (3 - |q|^2) / 2, no square root or division. For |q|^2 = 1 + e the step
// is off by 3e^2/8, below a double's rounding for |e| <= 1e-8; further off,
// glm::normalize.
inline Quat NormalizeNearUnit(const Quat& q) {
  const double norm_squared = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
  if (!(std::abs(norm_squared - 1.0) <= 1e-8)) return glm::normalize(q);
  const double scale = 1.5 - 0.5 * norm_squared;
  return Quat(q.w * scale, q.x * scale, q.y * scale, q.z * scale);
}

// The sums of squares within which Norm's plain formula neither overflows
// nor loses digits to underflow.
inline constexpr double kLeastPlainSquares = 1e-280;
inline constexpr double kMostPlainSquares = 1e280;

// The norm of a quaternion whose sum of squares is outside the plain range:
// computed on it divided by its largest magnitude, so any finite input
// gives a finite result (up to the largest double; beyond it, +infinity).
// A NaN or infinite component gives the plain sum's square root.
double ScaledNorm(const Quat& q);

// The quaternion's norm (sqrt(x²+y²+z²+w²)), for any finite q without
// overflow or underflow (the plain formula's bits wherever it is exact
// enough: sums of squares in [1e-280, 1e280]).
inline double Norm(const Quat& q) {
  const double squares = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
  if (squares >= kLeastPlainSquares && squares <= kMostPlainSquares) {
    return std::sqrt(squares);
  }
  return ScaledNorm(q);
}

// The vector's length, as Norm (glm::length's bits in the plain range).
inline double Length(const Vec3& v) {
  return Norm(MakeQuat(v.x, v.y, v.z, 0.0));
}

// How far a computed norm may be from 1 for a value to count as unit
// already. Dividing any finite, non-zero quaternion or vector by its norm
// leaves it within this (math_test checks seeded values of every
// magnitude), so Unit is idempotent: Unit(Unit(q)) is Unit(q), bit for bit.
inline constexpr double kUnitRounding =
    8 * std::numeric_limits<double>::epsilon();

// q on the unit sphere, canonically: q itself when `norm` (its Norm) is 1
// to rounding, else q / norm. A rig's rotations and axes, a pose's
// rotations, a repair's and a job's answer read by the next job all go
// through it, so a value that is unit already keeps its bits: a rig's
// stored form registers to the same revision, and a repaired rotation is
// the final rotation.
inline Quat Unit(const Quat& q, double norm) {
  return std::abs(norm - 1.0) <= kUnitRounding ? q : q / norm;
}
inline Quat Unit(const Quat& q) { return Unit(q, Norm(q)); }
inline Vec3 Unit(const Vec3& v, double length) {
  return std::abs(length - 1.0) <= kUnitRounding ? v : v / length;
}

}  // namespace ik

#endif  // IK_MATH_H_
