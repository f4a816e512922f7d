// A uniform grid over the XZ plane listing, per cell, the primitives whose
// boxes reach into it: the candidates for a vertical ray (direction
// (0, +-1, 0), as the grounding pass casts every ray) in one lookup instead
// of a walk down a BVH.
//
// Each primitive's box is padded as the BVH pads its nodes (PaddedForRays)
// and listed in every cell its XZ extent overlaps, with the quarters of the
// cell (2 x 2 sub-cells) it overlaps: sub-cells are found by one monotone
// function of the coordinate that the queries use too, so a point in a
// padded box maps to a sub-cell between those of the box's corners, and the
// entries of the point's cell marked with the point's quarter include every
// primitive whose padded box contains (x, z), bit for bit, whatever the
// rounding. A query skips the other entries (on a terrain mesh about 4 of a
// cell's 7) without reading their primitives. Lists are in ascending
// primitive index. A cell that would list more than kMaxGridCellPrimitives
// primitives (a dense object on a sparse floor) lists none and says so: its
// rays take the BVH.
//
// Resolution: the finest of 1.4 to 0.25 cells per primitive whose cell
// offsets and lists (overfull cells list nothing) fit in
// kGridBytesPerPrimitive bytes per primitive; no grid (every query
// unlisted) when none does.
// Deterministic: the same boxes give the same grid.
//
//   ik::VerticalRayGrid grid = ik::VerticalRayGrid::Build(boxes);
//   absl::Span<const std::int32_t> candidates;
//   switch (grid.Find(origin.x, origin.z, &candidates)) { ... }
//
// Immutable after Build and safe to query from many threads at once.
#ifndef IK_VERTICAL_RAY_GRID_H_
#define IK_VERTICAL_RAY_GRID_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/types/span.h"
#include "ik/base/pacer.h"
#include "ik/geometry/aabb.h"

namespace ik {

inline constexpr int kMaxGridCellPrimitives = 32;
// A list entry: the primitive's index in its low kGridIndexBits bits, and
// above them one bit per quarter of the cell that its padded box reaches.
inline constexpr int kGridIndexBits = 24;
inline constexpr std::int32_t kGridIndexMask = (1 << kGridIndexBits) - 1;
// The grid's memory (cell offsets and lists) at most this many bytes per
// primitive, or 4 KiB for small meshes.
inline constexpr double kGridBytesPerPrimitive = 24.0;

// Maps a coordinate to a sub-cell index (half a cell) along one axis:
// floor((v - minimum) * scale) clamped to [0, count - 1]. Monotone in v (each
// rounding step is), which is what makes the grid conservative.
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
    kListed,    // the entries of *candidates with *quarter set hold every
                // primitive whose padded box does
    kUnlisted,  // not known here (overfull cell, or no grid): ask the BVH
  };

  // No grid: every lookup is kUnlisted.
  VerticalRayGrid() = default;

  // Over `boxes` (one per primitive, finite, non-empty, within
  // +-kMaxCoordinate; the caller validates). At most 2^24 - 1 boxes.
  // `pause` is called between pieces of the build (ik/base/pacer.h).
  static VerticalRayGrid Build(absl::Span<const Aabb> boxes,
                               absl::FunctionRef<void()> pause = NoPause);

  // On kListed, `*quarter` is the entry bit of (x, z)'s quarter of its
  // cell: an entry without it cannot contain (x, z).
  Lookup Find(double x, double z, absl::Span<const std::int32_t>* candidates,
              std::int32_t* quarter) const {
    if (offsets_.empty()) return Lookup::kUnlisted;
    if (!(x >= min_x_ && x <= max_x_ && z >= min_z_ && z <= max_z_)) {
      return Lookup::kOutside;
    }
    const int sub_x = axis_x_(x);
    const int sub_z = axis_z_(z);
    const size_t cell = static_cast<size_t>(sub_z >> 1) * columns_ +
                        static_cast<size_t>(sub_x >> 1);
    const std::uint32_t begin = offsets_[cell];
    if ((begin & kOverfull) != 0) return Lookup::kUnlisted;
    const std::uint32_t end = offsets_[cell + 1] & ~kOverfull;
    *candidates = absl::MakeConstSpan(lists_.data() + begin, end - begin);
    *quarter = std::int32_t{1}
               << (kGridIndexBits + ((sub_z & 1) << 1) + (sub_x & 1));
    return Lookup::kListed;
  }

  // Hints that Find(x, z) will follow: starts loading the cell's offsets
  // into the cache. No effect on any answer.
  void PrefetchCell(double x, double z) const {
    if (offsets_.empty()) return;
    if (!(x >= min_x_ && x <= max_x_ && z >= min_z_ && z <= max_z_)) return;
    __builtin_prefetch(offsets_.data() +
                       static_cast<size_t>(axis_z_(z) >> 1) * columns_ +
                       static_cast<size_t>(axis_x_(x) >> 1));
  }

  bool empty() const { return offsets_.empty(); }
  int columns() const { return columns_; }        // cells along X
  int rows() const { return axis_z_.count / 2; }  // cells along Z
  // Entries in the cells' lists (primitives counted once per cell).
  size_t listed() const { return lists_.size(); }
  // The most primitives one lookup can list; -1 when some lookup is
  // kUnlisted (no grid, or an overfull cell). O(cells).
  int LongestList() const {
    if (offsets_.empty()) return -1;
    std::uint32_t longest = 0;
    for (size_t c = 0; c + 1 < offsets_.size(); ++c) {
      if ((offsets_[c] & kOverfull) != 0) return -1;
      longest = std::max(longest, (offsets_[c + 1] & ~kOverfull) - offsets_[c]);
    }
    return static_cast<int>(longest);
  }
  // Bytes held on the heap.
  size_t memory_bytes() const {
    return offsets_.capacity() * sizeof(std::uint32_t) +
           lists_.capacity() * sizeof(std::int32_t);
  }

 private:
  // Set on a cell's offset when the cell lists nothing because it would
  // list too much.
  static constexpr std::uint32_t kOverfull = 0x80000000u;

  // Sub-cells: two per cell along each axis.
  GridAxis axis_x_;
  GridAxis axis_z_;
  int columns_ = 0;
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
