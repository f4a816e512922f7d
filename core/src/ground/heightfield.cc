#include "ik/ground/heightfield.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ik/base/validate.h"
#include "ik/geometry/aabb.h"
#include "ik/geometry/ray_triangle.h"

namespace ik {
namespace {

// Cells within this many cell widths of a traversal step's segment are
// tested too (see the header).
constexpr double kCellPadding = 1e-6;
// On top of kCellPadding: the relative rounding of a coordinate far from
// the ray's origin, as seen by the triangle test (about 90 ulps)...
constexpr double kRoundingSlack = 1e-14;
// ...capped so that absurd inputs (micrometre cells a million kilometres
// away) cannot make a step test thousands of cells.
constexpr double kMaxCellPadding = 4.0;

absl::Status ValidateSpacing(double spacing, absl::string_view path,
                             absl::string_view field) {
  if (spacing >= kMinHeightfieldSpacing && IsFinite(spacing)) {
    return absl::OkStatus();
  }
  return InvalidField(
      path, field,
      absl::StrCat("must be finite and at least ", kMinHeightfieldSpacing,
                   " m, got ", spacing));
}

// The origin, the spacings and the grid's size.
absl::Status ValidateGridShape(const HeightfieldDefinition& definition,
                               absl::string_view path) {
  if (!IsFinite(definition.origin)) {
    return InvalidField(path, "origin", "not finite");
  }
  if (!IsWithinRange(definition.origin)) {
    return InvalidField(path, "origin",
                        absl::StrCat("beyond ", kMaxCoordinate, " m"));
  }
  if (absl::Status status =
          ValidateSpacing(definition.spacing_x, path, "spacing_x");
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          ValidateSpacing(definition.spacing_z, path, "spacing_z");
      !status.ok()) {
    return status;
  }
  if (definition.columns < 2) {
    return InvalidField(
        path, "columns",
        absl::StrCat("at least 2 needed, got ", definition.columns));
  }
  if (definition.rows < 2) {
    return InvalidField(
        path, "rows", absl::StrCat("at least 2 needed, got ", definition.rows));
  }
  return absl::OkStatus();
}

// The number of heights against the grid and the limit.
absl::Status ValidateSampleCount(const HeightfieldDefinition& definition,
                                 absl::string_view path) {
  const std::int64_t samples =
      static_cast<std::int64_t>(definition.columns) * definition.rows;
  if (samples > kMaxHeightfieldSamples) {
    return absl::ResourceExhaustedError(absl::StrCat(
        path, ".heights: ", definition.columns, " x ", definition.rows,
        " samples, at most ", kMaxHeightfieldSamples));
  }
  if (definition.heights.size() != static_cast<size_t>(samples)) {
    return InvalidField(
        path, "heights",
        absl::StrCat(definition.heights.size(), " values, expected ", samples,
                     " (", definition.columns, " columns x ", definition.rows,
                     " rows)"));
  }
  return absl::OkStatus();
}

// Every vertex within kMaxCoordinate: the far corner, as Heightfield::Vertex
// computes it, then each height.
absl::Status ValidateExtent(const HeightfieldDefinition& definition,
                            absl::string_view path) {
  if (!(std::abs(definition.origin.x +
                 (definition.columns - 1) * definition.spacing_x) <=
        kMaxCoordinate)) {
    return InvalidField(
        path, "spacing_x",
        absl::StrCat("the grid reaches beyond ", kMaxCoordinate, " m"));
  }
  if (!(std::abs(definition.origin.z +
                 (definition.rows - 1) * definition.spacing_z) <=
        kMaxCoordinate)) {
    return InvalidField(
        path, "spacing_z",
        absl::StrCat("the grid reaches beyond ", kMaxCoordinate, " m"));
  }
  for (size_t i = 0; i < definition.heights.size(); ++i) {
    const double height = definition.heights[i];
    if (!IsFinite(height)) {
      return InvalidField(path, absl::StrCat("heights[", i, "]"), "not finite");
    }
    if (!(std::abs(definition.origin.y + height) <= kMaxCoordinate)) {
      return InvalidField(path, absl::StrCat("heights[", i, "]"),
                          absl::StrCat("beyond ", kMaxCoordinate, " m"));
    }
  }
  return absl::OkStatus();
}

absl::Status Validate(const HeightfieldDefinition& definition,
                      absl::string_view path) {
  if (absl::Status status = ValidateGridShape(definition, path); !status.ok()) {
    return status;
  }
  if (absl::Status status = ValidateSampleCount(definition, path);
      !status.ok()) {
    return status;
  }
  return ValidateExtent(definition, path);
}

// The cell containing cell coordinate `u`, clamped to [0, cells - 1].
int CellIndex(double u, int cells) {
  if (!(u >= 0.0)) return 0;
  if (!(u < cells)) return cells - 1;
  return std::min(static_cast<int>(u), cells - 1);
}

// Where the ray, moving by `step` cell widths per metre from cell coordinate
// `start`, crosses the far border of cell `cell`: infinity when it does not
// move along this axis.
double NextBorderDistance(double start, double step, int cell) {
  if (step > 0.0) return (cell + 1 - start) / step;
  if (step < 0.0) return (cell - start) / step;
  return kInfinity;
}

// The padding, in cell widths, for a ray along one axis (see the constants).
double CellPadding(double origin, double grid_origin, double direction,
                   double max_distance, double spacing) {
  const double scale = std::abs(origin - grid_origin) + std::abs(origin) +
                       std::abs(direction) * max_distance;
  return std::min(kCellPadding + kRoundingSlack * scale / spacing,
                  kMaxCellPadding);
}

// Amanatides and Woo's walk over the cells in XZ: cell coordinates along
// the ray are u(t) = u_start + u_step * t (and v), the walk's cell and the
// distances at which the ray crosses that cell's next borders. The walk's
// own cell indices only pace the steps; which cells get tested is decided
// from each step's padded segment.
struct CellWalk {
  double u_start = 0.0;
  double u_step = 0.0;
  double v_start = 0.0;
  double v_step = 0.0;
  double u_pad = 0.0;  // cell widths, see CellPadding
  double v_pad = 0.0;
  int column = 0;
  int row = 0;
  int column_step = 1;
  int row_step = 1;
  double next_u_border = kInfinity;
  double next_v_border = kInfinity;
};

// The walk from the ray's `entry` into the grid, `exit` where it leaves its
// padded bounds.
CellWalk StartCellWalk(const Ray& ray, const Heightfield& field, double entry,
                       double exit) {
  const Vec3& origin = ray.origin();
  const Vec3& direction = ray.direction();
  const Vec3& grid_origin = field.origin();
  CellWalk walk;
  walk.u_start = (origin.x - grid_origin.x) / field.spacing_x();
  walk.u_step = direction.x / field.spacing_x();
  walk.v_start = (origin.z - grid_origin.z) / field.spacing_z();
  walk.v_step = direction.z / field.spacing_z();
  walk.u_pad = CellPadding(origin.x, grid_origin.x, direction.x, exit,
                           field.spacing_x());
  walk.v_pad = CellPadding(origin.z, grid_origin.z, direction.z, exit,
                           field.spacing_z());
  walk.column =
      CellIndex(walk.u_start + walk.u_step * entry, field.columns() - 1);
  walk.row = CellIndex(walk.v_start + walk.v_step * entry, field.rows() - 1);
  walk.column_step = walk.u_step > 0.0 ? 1 : -1;
  walk.row_step = walk.v_step > 0.0 ? 1 : -1;
  walk.next_u_border =
      NextBorderDistance(walk.u_start, walk.u_step, walk.column);
  walk.next_v_border = NextBorderDistance(walk.v_start, walk.v_step, walk.row);
  return walk;
}

// Steps the walk across the nearer border; false when that leaves the grid.
bool AdvanceCellWalk(int cells_x, int cells_z, CellWalk* walk) {
  if (walk->next_u_border <= walk->next_v_border) {
    walk->column += walk->column_step;
    if (walk->column < 0 || walk->column >= cells_x) return false;
    walk->next_u_border =
        NextBorderDistance(walk->u_start, walk->u_step, walk->column);
  } else {
    walk->row += walk->row_step;
    if (walk->row < 0 || walk->row >= cells_z) return false;
    walk->next_v_border =
        NextBorderDistance(walk->v_start, walk->v_step, walk->row);
  }
  return true;
}

// The cells, inclusive, within the padding of the ray's segment
// [segment_start, segment_end].
struct CellRange {
  int column_min = 0;
  int column_max = 0;
  int row_min = 0;
  int row_max = 0;
};

CellRange PaddedSegmentCells(const CellWalk& walk, double segment_start,
                             double segment_end, int cells_x, int cells_z) {
  const double u_a = walk.u_start + walk.u_step * segment_start;
  const double u_b = walk.u_start + walk.u_step * segment_end;
  const double v_a = walk.v_start + walk.v_step * segment_start;
  const double v_b = walk.v_start + walk.v_step * segment_end;
  CellRange range;
  range.column_min = CellIndex(std::min(u_a, u_b) - walk.u_pad, cells_x);
  range.column_max = CellIndex(std::max(u_a, u_b) + walk.u_pad, cells_x);
  range.row_min = CellIndex(std::min(v_a, v_b) - walk.v_pad, cells_z);
  range.row_max = CellIndex(std::max(v_a, v_b) + walk.v_pad, cells_z);
  return range;
}

// The hit on triangle `primitive` (2 per cell, cells row by row) at
// `distance` along the ray.
RayHit HitOnPrimitive(const Heightfield& field, const Ray& ray, int primitive,
                      double distance) {
  const int cells_x = field.columns() - 1;
  const int cell = primitive / 2;
  const int hit_column = cell % cells_x;
  const int hit_row = cell / cells_x;
  const Vec3 corner00 = field.Vertex(hit_column, hit_row);
  const Vec3 corner11 = field.Vertex(hit_column + 1, hit_row + 1);
  const Vec3& direction = ray.direction();
  const Vec3 normal =
      primitive % 2 == 0
          ? FacingNormal(corner00, field.Vertex(hit_column + 1, hit_row),
                         corner11, direction)
          : FacingNormal(corner00, corner11,
                         field.Vertex(hit_column, hit_row + 1), direction);
  RayHit hit;
  hit.hit = true;
  hit.distance = distance;
  hit.point = ray.PointAt(distance);
  hit.normal = normal;
  hit.kind = GroundKind::kHeightfield;
  hit.primitive = primitive;
  return hit;
}

}  // namespace

absl::StatusOr<Heightfield> Heightfield::Create(
    HeightfieldDefinition definition, absl::string_view path) {
  if (absl::Status status = Validate(definition, path); !status.ok()) {
    return status;
  }
  Heightfield field;
  field.origin_ = definition.origin;
  field.spacing_x_ = definition.spacing_x;
  field.spacing_z_ = definition.spacing_z;
  field.columns_ = definition.columns;
  field.rows_ = definition.rows;
  field.heights_ = std::move(definition.heights);
  const auto [lowest, highest] =
      std::minmax_element(field.heights_.begin(), field.heights_.end());
  field.bounds_.Extend(
      Vec3(field.origin_.x, field.origin_.y + *lowest, field.origin_.z));
  const Vec3 far_corner = field.Vertex(field.columns_ - 1, field.rows_ - 1);
  field.bounds_.Extend(
      Vec3(far_corner.x, field.origin_.y + *highest, far_corner.z));
  field.padded_bounds_ = PaddedForRays(field.bounds_);
  return field;
}

RayHit Heightfield::Raycast(const Vec3& origin, const Vec3& direction,
                            double max_distance) const {
  const std::optional<Ray> ray = Ray::Make(origin, direction);
  if (!ray.has_value()) return RayHit();
  return Raycast(*ray, max_distance);
}

template <typename Axes>
void Heightfield::TestCells(const Ray& ray, const Axes& axes, int column_min,
                            int column_max, int row_min, int row_max,
                            double* best_distance, int* best_primitive) const {
  for (int row = row_min; row <= row_max; ++row) {
    for (int column = column_min; column <= column_max; ++column) {
      const Vec3 corner00 = Vertex(column, row);
      const Vec3 corner10 = Vertex(column + 1, row);
      const Vec3 corner11 = Vertex(column + 1, row + 1);
      const Vec3 corner01 = Vertex(column, row + 1);
      const int first = 2 * (row * (columns_ - 1) + column);
      for (int half = 0; half < 2; ++half) {
        // Half 0: (00, 10, 11); half 1: (00, 11, 01).
        const Vec3& second = half == 0 ? corner10 : corner11;
        const Vec3& last = half == 0 ? corner11 : corner01;
        double distance;
        if (!IntersectTriangleWithAxes(ray, axes, corner00, second, last,
                                       *best_distance, &distance)) {
          continue;
        }
        const int primitive = first + half;
        // IntersectTriangle guarantees distance <= *best_distance.
        if (*best_primitive < 0 || distance < *best_distance ||
            (distance == *best_distance && primitive < *best_primitive)) {
          *best_distance = distance;
          *best_primitive = primitive;
        }
      }
    }
  }
}

void Heightfield::PrefetchVertical(absl::Span<const Vec3> points) const {
  for (const Vec3& point : points) {
    const int column =
        CellIndex((point.x - origin_.x) / spacing_x_, columns_ - 1);
    const int row = CellIndex((point.z - origin_.z) / spacing_z_, rows_ - 1);
    const double* corner =
        &heights_[static_cast<size_t>(row) * columns_ + column];
    __builtin_prefetch(corner);
    __builtin_prefetch(corner + columns_ + 1);
  }
}

// Raycast's walk makes one step for a vertical ray (its cell coordinates do
// not move): the cells within the padding of the ray's (u, v). The same
// cells, found without the walk.
RayHit Heightfield::RaycastVertical(const Ray& ray, double max_distance,
                                    double exit) const {
  const Vec3& origin = ray.origin();
  const Vec3& direction = ray.direction();
  const double u = (origin.x - origin_.x) / spacing_x_;
  const double v = (origin.z - origin_.z) / spacing_z_;
  const double u_pad =
      CellPadding(origin.x, origin_.x, direction.x, exit, spacing_x_);
  const double v_pad =
      CellPadding(origin.z, origin_.z, direction.z, exit, spacing_z_);
  const int cells_x = columns_ - 1;
  const int cells_z = rows_ - 1;
  const int column_min = CellIndex(u - u_pad, cells_x);
  const int column_max = CellIndex(u + u_pad, cells_x);
  const int row_min = CellIndex(v - v_pad, cells_z);
  const int row_max = CellIndex(v + v_pad, cells_z);
  double best_distance = max_distance;
  int best_primitive = -1;
  if (IsDownRayAxes(ray)) {
    TestCells(ray, DownRayAxes(), column_min, column_max, row_min, row_max,
              &best_distance, &best_primitive);
  } else {
    TestCells(ray, RayAxes(ray), column_min, column_max, row_min, row_max,
              &best_distance, &best_primitive);
  }
  if (best_primitive < 0) return RayHit();
  return HitOnPrimitive(*this, ray, best_primitive, best_distance);
}

RayHit Heightfield::Raycast(const Ray& ray, double max_distance) const {
  if (!IsValidMaxDistance(max_distance)) return RayHit();
  double entry = 0.0;
  double exit = 0.0;
  if (!ClipRayToAabb(ray, padded_bounds_, max_distance, &entry, &exit)) {
    return RayHit();
  }
  if (ray.direction().x == 0.0 && ray.direction().z == 0.0) {
    return RaycastVertical(ray, max_distance, exit);
  }
  const int cells_x = columns_ - 1;
  const int cells_z = rows_ - 1;
  CellWalk walk = StartCellWalk(ray, *this, entry, exit);
  double best_distance = max_distance;
  int best_primitive = -1;
  const RayAxes axes(ray);
  double segment_start = entry;
  while (true) {
    const double segment_end = std::max(
        segment_start,
        std::min(std::min(walk.next_u_border, walk.next_v_border), exit));
    const CellRange cells =
        PaddedSegmentCells(walk, segment_start, segment_end, cells_x, cells_z);
    TestCells(ray, axes, cells.column_min, cells.column_max, cells.row_min,
              cells.row_max, &best_distance, &best_primitive);
    // Later steps only reach farther than segment_end (cells near its end
    // were tested with this step).
    if (best_primitive >= 0 && best_distance <= segment_end) break;
    if (segment_end >= exit) break;
    if (!AdvanceCellWalk(cells_x, cells_z, &walk)) break;
    segment_start = segment_end;
  }
  if (best_primitive < 0) return RayHit();
  return HitOnPrimitive(*this, ray, best_primitive, best_distance);
}

}  // namespace ik
