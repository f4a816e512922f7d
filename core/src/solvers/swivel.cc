#include "ik/solvers/swivel.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

#include "ik/base/trig.h"
#include "ik/base/validate.h"

namespace ik {
namespace {

// Vectors shorter than this (unit directions' leftovers) count as zero.
// An end effector closer than this to the start, metres, gives no EE axis.
constexpr double kMinAxisLength = 1e-9;
// A target closer than this to the start joint, metres, gives no EE axis.
constexpr double kMinTargetDistance = 1e-6;
// Middle joints within this fraction of the chain's span of the EE axis
// count as on it: the chain is straight.
constexpr double kStraightFraction = 1e-6;
// Offsets whose two principal spreads differ by less than this fraction of
// their sum leave no plane closest to the joints.
constexpr double kIsotropicFraction = 1e-9;
// Offsets along the fitted bend that sum to less than this fraction of their
// magnitudes cancel: the farthest joint decides the side.
constexpr double kCancellingFraction = 1e-9;

}  // namespace

Vec3 ZeroPlaneNormal(const ZeroPlaneMap& map, const Vec3& ee_axis) {
  const double height = glm::dot(map.normal, ee_axis);
  const Vec3 across = map.normal - height * ee_axis;
  const double length = glm::length(across);
  if (length > kMinDirectionLength) return across / length;
  // At a pole: the limit along the meridian through u0, where
  // N = cos(lat) n0 - sin(lat) u0.
  return height > 0.0 ? -map.axis : map.axis;
}

double AngleToSingularity(const ZeroPlaneMap& map, const Vec3& ee_axis) {
  // acos(|cos|) loses precision near the poles, asin(sin) near the equator:
  // each takes the half where it is well conditioned (and both cost less
  // than atan2).
  const double cosine = std::abs(glm::dot(map.normal, ee_axis));
  if (cosine < 0.7071067811865476) return Acos(cosine);
  return Asin(std::min(1.0, glm::length(glm::cross(map.normal, ee_axis))));
}

Vec3 SwivelBendDirection(const ZeroPlaneMap& map, const Vec3& ee_axis,
                         double swivel) {
  // R(d, psi) (N x d) = cos(psi) (N x d) + sin(psi) d x (N x d), and
  // d x (N x d) = N for unit d across N.
  const Vec3 normal = ZeroPlaneNormal(map, ee_axis);
  return Cos(swivel) * glm::cross(normal, ee_axis) + Sin(swivel) * normal;
}

std::optional<Vec3> FitBendDirection(absl::Span<const Vec3> positions,
                                     const Vec3& axis) {
  if (positions.size() < 3) return std::nullopt;
  const Vec3& start = positions.front();
  double span = 0.0;
  for (const Vec3& position : positions) {
    span = std::max(span, glm::length(position - start));
  }
  const absl::Span<const Vec3> middle = positions.subspan(1);
  const size_t middle_count = positions.size() - 2;
  auto offset_of = [&](size_t i) {
    const Vec3 offset = middle[i] - start;
    return offset - glm::dot(offset, axis) * axis;
  };
  double largest_offset = 0.0;
  for (size_t i = 0; i < middle_count; ++i) {
    largest_offset = std::max(largest_offset, glm::length(offset_of(i)));
  }
  if (!(largest_offset > kStraightFraction * span)) return std::nullopt;
  if (middle_count == 1) return offset_of(0) / largest_offset;

  // The plane through the axis closest to the offsets: the major principal
  // direction of their 2x2 second-moment matrix [[a, c], [c, b]] in a basis
  // across the axis. Its eigenvector for the larger eigenvalue
  // (a + b) / 2 + r is (half + r, c) or, equally, (c, r - half), with
  // half = (a - b) / 2; the first is the better conditioned when a >= b.
  const Vec3 first = AnyPerpendicular(axis);
  const Vec3 second = glm::cross(axis, first);
  double a = 0.0;
  double b = 0.0;
  double c = 0.0;
  for (size_t i = 0; i < middle_count; ++i) {
    const Vec3 offset = offset_of(i);
    const double x = glm::dot(offset, first);
    const double y = glm::dot(offset, second);
    a += x * x;
    b += y * y;
    c += x * y;
  }
  const double half = 0.5 * (a - b);
  const double r = std::sqrt(half * half + c * c);
  if (!(2.0 * r > kIsotropicFraction * (a + b))) return std::nullopt;
  Vec3 direction = half >= 0.0 ? (half + r) * first + c * second
                               : c * first + (r - half) * second;
  direction = glm::normalize(direction);

  double sum = 0.0;
  double magnitude_sum = 0.0;
  double farthest = 0.0;
  for (size_t i = 0; i < middle_count; ++i) {
    const double along = glm::dot(offset_of(i), direction);
    sum += along;
    magnitude_sum += std::abs(along);
    if (std::abs(along) > std::abs(farthest)) farthest = along;
  }
  const double side =
      std::abs(sum) > kCancellingFraction * magnitude_sum ? sum : farthest;
  return side < 0.0 ? -direction : direction;
}

std::optional<ZeroPlaneMap> MakeZeroPlaneMap(absl::Span<const Vec3> positions) {
  if (positions.size() < 3) return std::nullopt;
  const Vec3 axis = positions.back() - positions.front();
  const double length = glm::length(axis);
  if (!(length >= kMinAxisLength)) return std::nullopt;
  ZeroPlaneMap map;
  map.axis = axis / length;
  const std::optional<Vec3> bend = FitBendDirection(positions, map.axis);
  if (!bend.has_value()) return std::nullopt;
  map.normal = glm::normalize(glm::cross(map.axis, *bend));
  return map;
}

std::optional<ZeroPlaneMap> ChainZeroPlaneMap(
    absl::Span<const Transform> path_locals, size_t ancestor_count,
    SwivelSpace space) {
  if (path_locals.size() < ancestor_count + 3) return std::nullopt;
  Transform parent_model;  // identity: a rig's roots live in model space
  Transform model;
  std::vector<Vec3> positions;
  positions.reserve(path_locals.size() - ancestor_count);
  for (size_t i = 0; i < path_locals.size(); ++i) {
    model = i == 0 ? path_locals[0] : Compose(model, path_locals[i]);
    if (i + 1 == ancestor_count) parent_model = model;
    if (i >= ancestor_count) positions.push_back(model.translation);
  }
  if (space == SwivelSpace::kStartParent) {
    for (Vec3& position : positions) {
      position = InverseTransformPoint(parent_model, position);
    }
  }
  return MakeZeroPlaneMap(positions);
}

std::optional<double> MeasureSwivel(const ZeroPlaneMap& map,
                                    absl::Span<const Vec3> positions) {
  if (positions.size() < 3) return std::nullopt;
  const Vec3 axis = positions.back() - positions.front();
  const double length = glm::length(axis);
  if (!(length >= kMinAxisLength)) return std::nullopt;
  const Vec3 ee_axis = axis / length;
  const std::optional<Vec3> bend = FitBendDirection(positions, ee_axis);
  if (!bend.has_value()) return std::nullopt;
  return SignedAngleAbout(SwivelBendDirection(map, ee_axis, 0.0), *bend,
                          ee_axis);
}

SwivelPlacement PlaceSwivel(const ZeroPlaneMap& map, SwivelSpace space,
                            const Transform& root,
                            const Transform& parent_model,
                            absl::Span<const Vec3> preferred_model,
                            const Vec3& target_model, double swivel) {
  SwivelPlacement placement;
  placement.start = preferred_model.front();
  const bool in_parent = space == SwivelSpace::kStartParent;
  auto to_map = [&](const Vec3& point_model) {
    return in_parent ? InverseTransformPoint(parent_model, point_model)
                     : TransformPoint(root, point_model);
  };
  const Vec3 start_map = to_map(placement.start);
  Vec3 axis_map = to_map(target_model) - start_map;
  Vec3 axis_model = target_model - placement.start;
  if (!(glm::length(axis_map) > kMinTargetDistance) ||
      !(glm::length(axis_model) > kMinTargetDistance)) {
    axis_map = to_map(preferred_model.back()) - start_map;
    axis_model = preferred_model.back() - placement.start;
    if (!(glm::length(axis_map) > kMinTargetDistance) ||
        !(glm::length(axis_model) > kMinTargetDistance)) {
      // Folded onto its start as well: the map's own axis.
      axis_map = map.axis;
      axis_model = in_parent ? parent_model.rotation * map.axis
                             : glm::conjugate(root.rotation) * map.axis;
    }
  }
  axis_map = glm::normalize(axis_map);
  placement.axis = glm::normalize(axis_model);
  placement.singularity_angle = AngleToSingularity(map, axis_map);

  const Vec3 bend_point_map =
      start_map + SwivelBendDirection(map, axis_map, swivel);
  const Vec3 bend_offset =
      (in_parent ? TransformPoint(parent_model, bend_point_map)
                 : InverseTransformPoint(root, bend_point_map)) -
      placement.start;
  const Vec3 bend_across =
      bend_offset - glm::dot(bend_offset, placement.axis) * placement.axis;
  const double bend_length = glm::length(bend_across);
  placement.bend = bend_length > kMinDirectionLength
                       ? bend_across / bend_length
                       : AnyPerpendicular(placement.axis);

  const Vec3 preferred_offset = preferred_model.back() - placement.start;
  const double preferred_length = glm::length(preferred_offset);
  if (!(preferred_length > kMinTargetDistance)) return placement;
  const Vec3 preferred_axis = preferred_offset / preferred_length;
  const std::optional<Vec3> preferred_bend =
      FitBendDirection(preferred_model, preferred_axis);
  if (preferred_bend.has_value()) {
    placement.turn = FrameRotation(preferred_axis, *preferred_bend,
                                   placement.axis, placement.bend);
  }
  return placement;
}

Quat FrameRotation(const Vec3& from_axis, const Vec3& from_bend,
                   const Vec3& to_axis, const Vec3& to_bend) {
  // M = [to] [from]^T for the orthonormal frames (axis, bend, axis x bend).
  const glm::dmat3 from(from_axis, from_bend, glm::cross(from_axis, from_bend));
  const glm::dmat3 to(to_axis, to_bend, glm::cross(to_axis, to_bend));
  return glm::normalize(glm::quat_cast(to * glm::transpose(from)));
}

}  // namespace ik
