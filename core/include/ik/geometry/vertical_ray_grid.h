// A uniform grid over the XZ plane listing, per cell, the primitives whose
// boxes reach into it: the candidates for a vertical ray (direction
// (0, +-1, 0), as the grounding pass casts every ray) in one lookup instead
// of a walk down a BVH.
//
// Each primitive's box is padded as the BVH pads its nodes (PaddedForRays)
// and listed in every cell its XZ extent overlaps, cells found by one
// monotone function of the coordinate that the queries use too: a point in
// a padded box maps to a cell between those of the box's corners, so the
// cell of (x, z) lists every primitive whose padded box contains (x, z),
// bit for bit, whatever the rounding. Lists are in ascending primitive
// index. A cell that would list more than kMaxGridCellPrimitives primitives
// (a dense object on a sparse floor) lists none and says so: its rays take
// the BVH.
//
// Resolution: a few cell sizes around one cell per two primitives are
// tried (counting only); the one with the fewest expected candidates per
// query (uniform over the grid, an overfull cell counted as
// kOverfullCellCost) within kGridBytesPerPrimitive bytes per primitive wins,
// ties to the finer. No grid (every query unlisted) when none fits.
// Deterministic: the same boxes give the same grid.
//
//   ik::VerticalRayGrid grid = ik::VerticalRayGrid::Build(boxes);
//   absl::Span<const std::int32_t> candidates;
//   switch (grid.Find(origin.x, origin.z, &candidates)) { ... }
//
// Immutable after Build and safe to query from many threads at once.
#ifndef IK_VERTICAL_RAY_GRID_H_
#define IK_VERTICAL_RAY_GRID_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "ik/geometry/aabb.h"

namespace ik {

inline constexpr int kMaxGridCellPrimitives = 32;
// The grid's memory (cell offsets and lists) at most this many bytes per
// primitive, or 4 KiB for small meshes.
inline constexpr double kGridBytesPerPrimitive = 24.0;

// Maps a coordinate to a cell index along one axis: floor((v - minimum) *
// scale) clamped to [0, count - 1]. Monotone in v (each rounding step is),
// which is what makes the grid conservative.
struct GridAxis {
  double minimum = 0.0;
  double scale = 0.0;
  int count = 1;

  int operator()(double value) const {
    const double position = (value - minimum) * scale;
    if (!(position >= 1.0)) return 0;
    if (!(position < count - 1)) return count - 1;
    return static_cast<int>(position);
  }
};

class VerticalRayGrid {
 public:
  enum class Lookup {
    kOutside,   // no primitive's padded box contains (x, z)
    kListed,    // *candidates holds every primitive whose padded box does
    kUnlisted,  // not known here (overfull cell, or no grid): ask the BVH
  };

  // No grid: every lookup is kUnlisted.
  VerticalRayGrid() = default;

  // Over `boxes` (one per primitive, finite, non-empty, within
  // +-kMaxCoordinate; the caller validates). At most 2^24 - 1 boxes.
  static VerticalRayGrid Build(absl::Span<const Aabb> boxes);

  Lookup Find(double x, double z,
              absl::Span<const std::int32_t>* candidates) const {
    if (offsets_.empty()) return Lookup::kUnlisted;
    if (!(x >= min_x_ && x <= max_x_ && z >= min_z_ && z <= max_z_)) {
      return Lookup::kOutside;
    }
    const size_t cell = static_cast<size_t>(axis_z_(z)) * axis_x_.count +
                        static_cast<size_t>(axis_x_(x));
    const std::uint32_t begin = offsets_[cell];
    if ((begin & kOverfull) != 0) return Lookup::kUnlisted;
    const std::uint32_t end = offsets_[cell + 1] & ~kOverfull;
    *candidates = absl::MakeConstSpan(lists_.data() + begin, end - begin);
    return Lookup::kListed;
  }

  // Hints that Find(x, z) will follow: starts loading the cell's offsets
  // into the cache. No effect on any answer.
  void PrefetchCell(double x, double z) const {
    if (offsets_.empty()) return;
    if (!(x >= min_x_ && x <= max_x_ && z >= min_z_ && z <= max_z_)) return;
    __builtin_prefetch(offsets_.data() +
                       static_cast<size_t>(axis_z_(z)) * axis_x_.count +
                       static_cast<size_t>(axis_x_(x)));
  }

  bool empty() const { return offsets_.empty(); }
  int columns() const { return axis_x_.count; }  // cells along X
  int rows() const { return axis_z_.count; }     // cells along Z
  // Entries in the cells' lists (primitives counted once per cell).
  size_t listed() const { return lists_.size(); }
  // Bytes held on the heap.
  size_t memory_bytes() const {
    return offsets_.capacity() * sizeof(std::uint32_t) +
           lists_.capacity() * sizeof(std::int32_t);
  }

 private:
  // Set on a cell's offset when the cell lists nothing because it would
  // list too much.
  static constexpr std::uint32_t kOverfull = 0x80000000u;

  GridAxis axis_x_;
  GridAxis axis_z_;
  // The padded boxes' XZ bounds.
  double min_x_ = 0.0;
  double max_x_ = 0.0;
  double min_z_ = 0.0;
  double max_z_ = 0.0;
  // Cell c (row-major, z major) lists lists_[offsets_[c], offsets_[c + 1])
  // (kOverfull masked off); columns() * rows() + 1 entries.
  std::vector<std::uint32_t> offsets_;
  std::vector<std::int32_t> lists_;
};

}  // namespace ik

#endif  // IK_VERTICAL_RAY_GRID_H_
