// Heightfield ground: a regular grid of heights.
//
// Sample (column, row) sits at world position
//   origin + (column * spacing_x, heights[row * columns + column],
//             row * spacing_z),
// columns along +X, rows along +Z (row-major, row = z index). The surface
// is two triangles per cell, split along the diagonal from (column, row) to
// (column + 1, row + 1):
//   half 0: (c, r), (c + 1, r), (c + 1, r + 1)
//   half 1: (c, r), (c + 1, r + 1), (c, r + 1)
// so it is continuous and piecewise planar, exact for any surface that is
// linear over each triangle (planes, ramps and steps whose kinks lie on grid
// lines), and identical to a triangle mesh built from the same samples (the
// tests hold it to that, bit for bit). RayHit::primitive is
// 2 * (row * (columns - 1) + column) + half. Outside the grid's XZ
// rectangle there is no ground.
//
// Queries: the ray is clipped to the grid's box, then walked cell by cell
// in XZ (Amanatides and Woo's grid traversal). Each step tests the two
// triangles of every cell within 1e-6 cell widths of the step's segment, so
// a ray along a grid line or through a grid vertex is never lost to the
// rounding of the cell index; the triangle test itself is watertight
// (ik/geometry/ray_triangle.h). A downward vertical ray costs one clip and one
// or two cells; a ray across the grid costs about two triangle tests per cell
// crossed. Of several triangles at exactly the same distance the lowest
// primitive index wins.
//
//   ik::HeightfieldDefinition def;
//   def.columns = 3;
//   def.rows = 2;
//   def.heights = {0.0, 0.1, 0.2,
//                  0.0, 0.1, 0.2};
//   absl::StatusOr<ik::Heightfield> field = ik::Heightfield::Create(def);
//   ik::RayHit hit = field->Raycast({0.5, 1.0, 0.5}, {0, -1, 0}, 2.0);
//
// Immutable after Create; const methods are safe to call from many threads
// at once (share as std::shared_ptr<const Heightfield>). Queries allocate
// nothing.
#ifndef IK_HEIGHTFIELD_H_
#define IK_HEIGHTFIELD_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/geometry/aabb.h"
#include "ik/geometry/ray.h"

namespace ik {

// Size limit the core itself enforces (the server may set a lower one).
inline constexpr int kMaxHeightfieldSamples = 1 << 24;  // 16,777,216
// Grid spacing at least this, metres.
inline constexpr double kMinHeightfieldSpacing = 1e-6;

struct HeightfieldDefinition {
  // World position of sample (0, 0) at height 0. Within +-kMaxCoordinate.
  Vec3 origin{0.0};
  // Metres between samples along X and Z; >= kMinHeightfieldSpacing. The
  // whole grid must lie within +-kMaxCoordinate.
  double spacing_x = 1.0;
  double spacing_z = 1.0;
  // Samples along X and Z; each >= 2; columns * rows <=
  // kMaxHeightfieldSamples.
  int columns = 0;
  int rows = 0;
  // columns * rows heights, metres, row-major; each finite, and
  // origin.y + height within +-kMaxCoordinate.
  std::vector<double> heights;
};

class Heightfield {
 public:
  // Validates. Field paths start with `path`:
  //   INVALID_ARGUMENT: "heightfield.origin: not finite",
  //   "heightfield.spacing_x: must be at least 1e-06 m, got 0",
  //   "heightfield.columns: at least 2 needed, got 1",
  //   "heightfield.heights: 11 values, expected 12 (3 columns x 4 rows)",
  //   "heightfield.heights[12]: not finite", "heightfield.spacing_z: the grid
  //   reaches beyond 1e+09 m";
  //   RESOURCE_EXHAUSTED: "heightfield.heights: 5000 x 5000 samples, at most
  //   16777216".
  static absl::StatusOr<Heightfield> Create(
      HeightfieldDefinition definition, absl::string_view path = "heightfield");

  // The nearest hit within [0, max_distance] (kind kHeightfield), or a miss
  // (also for a ray Ray::Make refuses or an invalid max_distance).
  RayHit Raycast(const Vec3& origin, const Vec3& direction,
                 double max_distance) const;
  RayHit Raycast(const Ray& ray, double max_distance) const;

  // Hints that rays straight up or down through `points` (their x and z)
  // will follow: starts loading the heights of their cells into the cache,
  // for all the points at once. No effect on any answer.
  void PrefetchVertical(absl::Span<const Vec3> points) const;

  // World position of sample (column, row); both in range. Every triangle
  // is built from exactly these values.
  Vec3 Vertex(int column, int row) const {
    return Vec3(
        origin_.x + column * spacing_x_,
        origin_.y + heights_[static_cast<size_t>(row) * columns_ + column],
        origin_.z + row * spacing_z_);
  }

  const Vec3& origin() const { return origin_; }
  double spacing_x() const { return spacing_x_; }
  double spacing_z() const { return spacing_z_; }
  int columns() const { return columns_; }
  int rows() const { return rows_; }
  absl::Span<const double> heights() const { return heights_; }
  // Triangles in the surface: 2 * (columns - 1) * (rows - 1).
  int triangle_count() const { return 2 * (columns_ - 1) * (rows_ - 1); }
  // The box around every sample (not padded).
  const Aabb& bounds() const { return bounds_; }
  // Bytes held on the heap (the heights).
  size_t memory_bytes() const { return heights_.capacity() * sizeof(double); }

 private:
  Heightfield() = default;

  // Tests the cells in [column_min, column_max] x [row_min, row_max] (all
  // within the grid), keeping the nearest hit. `axes`: the ray's
  // watertight-test axes (ik/geometry/ray_triangle.h).
  template <typename Axes>
  void TestCells(const Ray& ray, const Axes& axes, int column_min,
                 int column_max, int row_min, int row_max,
                 double* best_distance, int* best_primitive) const;

  // Raycast for a ray straight up or down that the grid's padded box
  // clipped to end at `exit`.
  RayHit RaycastVertical(const Ray& ray, double max_distance,
                         double exit) const;

  Vec3 origin_{0.0};
  double spacing_x_ = 1.0;
  double spacing_z_ = 1.0;
  int columns_ = 0;
  int rows_ = 0;
  std::vector<double> heights_;
  Aabb bounds_;
  Aabb padded_bounds_;
};

}  // namespace ik

#endif  // IK_HEIGHTFIELD_H_
