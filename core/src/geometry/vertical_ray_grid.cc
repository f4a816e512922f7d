#include "ik/geometry/vertical_ray_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "ik/geometry/aabb.h"

namespace ik {
namespace {

// An overfull cell's rays walk the BVH: about this many triangle tests'
// worth of work.
constexpr double kOverfullCellCost = 48.0;
// Cells per primitive of the resolutions tried, finest first.
constexpr double kCellsPerPrimitive[] = {2.0, 1.4, 1.0, 0.7, 0.5, 0.35};
constexpr int kMaxAxisCells = 1 << 16;
// A resolution whose lists (before dropping overfull cells) would exceed
// this many times the memory budget is not even counted: it bounds the
// build's work for meshes of huge overlapping triangles.
constexpr double kMaxCountedOverBudget = 8.0;

struct XzBox {
  double min_x;
  double max_x;
  double min_z;
  double max_z;
};

// The cells a padded box overlaps: [x0, x1] x [z0, z1].
struct CellSpan {
  int x0;
  int x1;
  int z0;
  int z1;
};

struct Layout {
  GridAxis x;
  GridAxis z;

  size_t cells() const { return static_cast<size_t>(x.count) * z.count; }
  CellSpan Span(const XzBox& box) const {
    return {x(box.min_x), x(box.max_x), z(box.min_z), z(box.max_z)};
  }
};

GridAxis MakeAxis(double minimum, double maximum, double count) {
  GridAxis axis;
  axis.minimum = minimum;
  axis.count = static_cast<int>(
      std::clamp(count, 1.0, static_cast<double>(kMaxAxisCells)));
  // maximum > minimum: the boxes are padded.
  axis.scale = axis.count / (maximum - minimum);
  return axis;
}

// About `cells` square cells over the bounds.
Layout MakeLayout(const XzBox& bounds, double cells) {
  const double width = bounds.max_x - bounds.min_x;
  const double depth = bounds.max_z - bounds.min_z;
  const double side = std::sqrt(width * depth / cells);
  Layout layout;
  layout.x = MakeAxis(bounds.min_x, bounds.max_x, std::ceil(width / side));
  layout.z =
      MakeAxis(bounds.min_z, bounds.max_z, std::ceil(cells / layout.x.count));
  return layout;
}

// Per cell, how many boxes overlap it.
std::vector<std::uint32_t> CountPerCell(const Layout& layout,
                                        absl::Span<const XzBox> boxes) {
  std::vector<std::uint32_t> counts(layout.cells(), 0);
  const size_t columns = static_cast<size_t>(layout.x.count);
  for (const XzBox& box : boxes) {
    const CellSpan span = layout.Span(box);
    for (int z = span.z0; z <= span.z1; ++z) {
      std::uint32_t* row = counts.data() + z * columns;
      for (int x = span.x0; x <= span.x1; ++x) ++row[x];
    }
  }
  return counts;
}

// Total list entries before dropping overfull cells, in O(boxes).
double CountEntries(const Layout& layout, absl::Span<const XzBox> boxes) {
  double entries = 0.0;
  for (const XzBox& box : boxes) {
    const CellSpan span = layout.Span(box);
    entries += static_cast<double>(span.x1 - span.x0 + 1) *
               static_cast<double>(span.z1 - span.z0 + 1);
  }
  return entries;
}

}  // namespace

VerticalRayGrid VerticalRayGrid::Build(absl::Span<const Aabb> boxes) {
  VerticalRayGrid grid;
  if (boxes.empty()) return grid;
  std::vector<XzBox> padded(boxes.size());
  XzBox bounds{kInfinity, -kInfinity, kInfinity, -kInfinity};
  for (size_t i = 0; i < boxes.size(); ++i) {
    const Aabb box = PaddedForRays(boxes[i]);
    padded[i] = {box.min.x, box.max.x, box.min.z, box.max.z};
    bounds.min_x = std::min(bounds.min_x, box.min.x);
    bounds.max_x = std::max(bounds.max_x, box.max.x);
    bounds.min_z = std::min(bounds.min_z, box.min.z);
    bounds.max_z = std::max(bounds.max_z, box.max.z);
  }
  const double count = static_cast<double>(boxes.size());
  const double budget_bytes = std::max(4096.0, kGridBytesPerPrimitive * count);

  // The resolution with the fewest expected candidates within the budget.
  bool found = false;
  double best_cost = 0.0;
  Layout best_layout;
  std::vector<std::uint32_t> best_counts;
  for (const double cells_per_primitive : kCellsPerPrimitive) {
    const Layout layout = MakeLayout(bounds, cells_per_primitive * count);
    const double cells = static_cast<double>(layout.cells());
    if (4.0 * (cells + 1.0) > budget_bytes) continue;
    if (4.0 * CountEntries(layout, padded) >
        kMaxCountedOverBudget * budget_bytes) {
      continue;
    }
    std::vector<std::uint32_t> counts = CountPerCell(layout, padded);
    double listed = 0.0;
    double work = 0.0;
    for (const std::uint32_t cell_count : counts) {
      if (cell_count > static_cast<std::uint32_t>(kMaxGridCellPrimitives)) {
        work += kOverfullCellCost;
      } else {
        listed += cell_count;
        work += cell_count;
      }
    }
    if (4.0 * (cells + 1.0 + listed) > budget_bytes) continue;
    const double cost = work / cells;
    if (!found || cost < best_cost) {
      found = true;
      best_cost = cost;
      best_layout = layout;
      best_counts = std::move(counts);
    }
  }
  if (!found) return grid;

  grid.axis_x_ = best_layout.x;
  grid.axis_z_ = best_layout.z;
  grid.min_x_ = bounds.min_x;
  grid.max_x_ = bounds.max_x;
  grid.min_z_ = bounds.min_z;
  grid.max_z_ = bounds.max_z;
  const size_t cells = best_layout.cells();
  grid.offsets_.resize(cells + 1);
  std::uint32_t total = 0;
  for (size_t c = 0; c < cells; ++c) {
    const bool overfull =
        best_counts[c] > static_cast<std::uint32_t>(kMaxGridCellPrimitives);
    grid.offsets_[c] = total | (overfull ? kOverfull : 0u);
    // From here on, the cell's next free entry (unused when overfull).
    const std::uint32_t cell_count = overfull ? 0u : best_counts[c];
    best_counts[c] = total;
    total += cell_count;
  }
  grid.offsets_[cells] = total;
  grid.lists_.resize(total);
  // Boxes in index order: every list ascends.
  const size_t columns = static_cast<size_t>(best_layout.x.count);
  for (size_t i = 0; i < padded.size(); ++i) {
    const CellSpan span = best_layout.Span(padded[i]);
    for (int z = span.z0; z <= span.z1; ++z) {
      for (int x = span.x0; x <= span.x1; ++x) {
        const size_t c = z * columns + x;
        if ((grid.offsets_[c] & kOverfull) != 0) continue;
        grid.lists_[best_counts[c]++] = static_cast<std::int32_t>(i);
      }
    }
  }
  return grid;
}

}  // namespace ik
