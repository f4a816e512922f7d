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

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

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
Transform Compose(const Transform& parent, const Transform& child);

// Applies `transform` to a point.
Vec3 TransformPoint(const Transform& transform, const Vec3& point);

// Applies the inverse of `transform` to a point (exact for any positive scale).
Vec3 InverseTransformPoint(const Transform& transform, const Vec3& point);

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

bool IsFinite(double value);
bool IsFinite(const Vec3& v);
bool IsFinite(const Quat& q);

// Finite, with every component within [-kMaxCoordinate, kMaxCoordinate].
bool IsWithinRange(const Vec3& v);

// The quaternion's norm (sqrt(x²+y²+z²+w²)).
double Norm(const Quat& q);

}  // namespace ik

#endif  // IK_MATH_H_
