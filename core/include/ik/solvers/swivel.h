// Swivel angle, solver plane and the zero-plane map, as Autodesk 3ds Max's
// history-independent (HI) IK solver defines them.
//
// With only a position goal a chain keeps one free degree of freedom: a turn
// about its end-effector (EE) axis, the line from the start joint (the
// chain's root) to the end effector. The solver plane contains that axis and,
// as nearly as possible, the chain's other joints; the swivel angle says
// where it lies. It is measured from a zero plane which the zero-plane map
// gives as a function of the EE axis's direction alone, so a swivel solve
// depends on the request only, never on an earlier pose.
//
//   const ik::ZeroPlaneMap& map = *chain.zero_plane_map;
//   ik::Vec3 bend = ik::SwivelBendDirection(map, ee_axis, 0.5);
//   bool flips_nearby = ik::AngleToSingularity(map, ee_axis) < 0.17;
//
// The default map (the HI solver's, here as rules A and B), built from the
// chain's preferred pose. Let u0 be the preferred EE axis (unit), b0 the
// preferred bend direction (unit, across u0: the side of the axis the middle
// joints lie on; see FitBendDirection) and n0 = u0 x b0 the preferred solver
// plane's normal. The sphere of EE-axis directions d has
//   - its equator in the preferred solver plane: the great circle of the
//     directions across n0 (through u0 and b0);
//   - its poles at +n0 and -n0;
//   - meridians: the great circles through both poles.
// Rule A: on the equator the zero plane's normal is n0. Rule B: elsewhere,
// the meridian through d meets the equator at e = (d - (d.n0) n0) / |...|
// (the nearer of its two crossings); carrying n0 from e to d along the
// meridian keeps it the meridian's northward tangent, which at latitude
// lat (sin lat = n0.d) is
//   N(d) = cos(lat) n0 - sin(lat) e = (n0 - (n0.d) d) / |n0 - (n0.d) d|,
// i.e. n0 projected onto the plane across d. N is smooth everywhere but at
// the poles, where every meridian arrives from another side: the map's two
// singular directions are d = +-n0 (no continuous tangent field exists on a
// sphere, so some flip is unavoidable). An EE axis passing through a pole
// flips the zero plane by up to a half turn; AngleToSingularity measures how
// close it is.
//
// The swivel angle psi turns the zero plane about d (right-hand rule): the
// solver plane's normal is n(psi) = R(d, psi) N(d) and the middle joints
// bend towards b(psi) = n(psi) x d. At the preferred pose b(0) = b0; moving
// the target within the preferred plane keeps the chain in it (rule A), and
// moving it along a meridian keeps the plane upright (rule B).
//
// Everything here is a pure function of its arguments: thread-safe, no
// allocation, the same bits for the same inputs.
#ifndef IK_SWIVEL_H_
#define IK_SWIVEL_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/types/span.h"
#include "ik/base/math.h"

namespace ik {

// The space the zero-plane map's sphere is fixed in (the HI solver's "parent
// space"); it decides whether the chain turns with its parent and where the
// singular directions lie in the world.
enum class SwivelSpace {
  // The start joint's parent's local space (model space for a rig root):
  // the map turns with the parent (e.g. the chest for an arm), so the
  // singular directions stay put relative to the body.
  kStartParent,
  // World space (the goal's parent): the map stays put while the character
  // moves and turns. Built from the preferred pose read as world space (the
  // character at the origin with an identity root).
  kWorld,
};

// Default Chain::flip_warning_angle: 10 degrees, radians.
inline constexpr double kDefaultFlipWarningAngle = 0.17453292519943295;

// One joint's local rotation in a chain's preferred pose.
struct PreferredJointRotation {
  std::string joint;  // joint name: a joint of the chain or an ancestor
  Quat rotation{1.0, 0.0, 0.0, 0.0};  // local, unit (normalised by Create)
};

// The default zero-plane map of a chain, in its SwivelSpace.
struct ZeroPlaneMap {
  Vec3 axis{1.0, 0.0, 0.0};    // u0: the preferred EE axis, unit
  Vec3 normal{0.0, 1.0, 0.0};  // n0 = u0 x b0, unit, across u0; the poles
};

// N(ee_axis): the zero plane's unit normal, across `ee_axis` (a unit
// direction in the map's space). At a pole exactly (within 1e-12) returns
// the limit along the meridian through u0: -u0 at +n0, +u0 at -n0.
Vec3 ZeroPlaneNormal(const ZeroPlaneMap& map, const Vec3& ee_axis);

// Angle, radians in [0, pi/2], from the unit `ee_axis` to the nearer of the
// map's singular directions +-n0: acos(|n0 . ee_axis|).
double AngleToSingularity(const ZeroPlaneMap& map, const Vec3& ee_axis);

// b(swivel): the unit direction, across the unit `ee_axis`, towards which
// the middle joints bend for `swivel` radians (any finite value).
Vec3 SwivelBendDirection(const ZeroPlaneMap& map, const Vec3& ee_axis,
                         double swivel);

// The bend direction of a chain with joints at `positions` (start first,
// end effector last) about the line through positions[0] along the unit
// `axis`: the unit direction across `axis` of the plane through that line
// closest (least squares) to the middle joints, pointing to the side where
// their offsets from the line sum positive (for offsets that cancel, the
// side of the farthest one). nullopt when the middle joints lie within
// 1e-6 of the chain's span of the line, or leave no plane closest to them.
std::optional<Vec3> FitBendDirection(absl::Span<const Vec3> positions,
                                     const Vec3& axis);

// The map of a chain with joints at `positions` (start first, end effector
// last, at least 3) in its preferred pose, in the positions' space. nullopt
// when the end effector sits on the start or the chain is straight (no
// preferred solver plane).
std::optional<ZeroPlaneMap> MakeZeroPlaneMap(absl::Span<const Vec3> positions);

// The map of a chain from the local transforms of its preferred pose along
// the rig path from a rig root down to the end effector: `path_locals`
// holds the start joint's `ancestor_count` ancestors (top-most first), then
// the chain's joints. The positions are taken into `space`: the start
// joint's parent's local space (kStartParent) or model space (kWorld).
std::optional<ZeroPlaneMap> ChainZeroPlaneMap(
    absl::Span<const Transform> path_locals, size_t ancestor_count,
    SwivelSpace space);

// The swivel angle, radians in (-pi, pi], of a chain with joints at
// `positions` (map space, start first): the turn about the chain's EE axis
// from b(0) to its fitted bend direction. nullopt when the chain is
// straight or its end effector sits on its start.
std::optional<double> MeasureSwivel(const ZeroPlaneMap& map,
                                    absl::Span<const Vec3> positions);

// The rotation taking the orthonormal pair (from_axis, from_bend) onto
// (to_axis, to_bend): all four unit, each bend across its axis.
Quat FrameRotation(const Vec3& from_axis, const Vec3& from_bend,
                   const Vec3& to_axis, const Vec3& to_bend);

// Where one swivel solve puts a chain, model space.
struct SwivelPlacement {
  Vec3 start{0.0};                 // the start joint
  Vec3 axis{1.0, 0.0, 0.0};        // unit, start -> target
  Vec3 bend{0.0, 1.0, 0.0};        // unit, across `axis`: b(swivel)
  Quat turn{1.0, 0.0, 0.0, 0.0};   // takes the preferred chain into the plane
  double singularity_angle = 0.0;  // AngleToSingularity of the EE axis
};

// The solver plane for `swivel` radians of a chain whose joints, in its
// preferred pose under the current parents, are at `preferred_model` (model
// space, start first, at least 3), and the model-space turn about the start
// joint that takes that chain onto it: its EE axis along `axis` and its
// fitted bend along `bend` (identity when it is straight). The EE axis goes
// into the map's `space` through `parent_model` (the start joint's parent,
// model space) or `root` (model -> world); points map affinely, so the plane
// through start, target and start + b(swivel) in map space is the one in
// model space. A target within 1e-6 of the start: the preferred EE axis
// stands in.
SwivelPlacement PlaceSwivel(const ZeroPlaneMap& map, SwivelSpace space,
                            const Transform& root,
                            const Transform& parent_model,
                            absl::Span<const Vec3> preferred_model,
                            const Vec3& target_model, double swivel);

}  // namespace ik

#endif  // IK_SWIVEL_H_
