#include "ik/geometry/vertical_ray_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "ik/base/pacer.h"
#include "ik/geometry/aabb.h"

namespace ik {
namespace {

// Cells per primitive of the resolutions tried, finest first.
constexpr double kCellsPerPrimitive[] = {1.4, 1.0, 0.7, 0.5, 0.35, 0.25};
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

// The sub-cells a padded box overlaps: [x0, x1] x [z0, z1].
struct SubCellSpan {
  int x0;
  int x1;
  int z0;
  int z1;
};

// Sub-cell axes (two sub-cells per cell along each).
struct Layout {
  GridAxis x;
  GridAxis z;

  int columns() const { return x.count / 2; }
  int rows() const { return z.count / 2; }
  size_t cells() const { return static_cast<size_t>(columns()) * rows(); }
  SubCellSpan Span(const XzBox& box) const {
    return {x(box.min_x), x(box.max_x), z(box.min_z), z(box.max_z)};
  }
};

// `cells` cells (two sub-cells each) over [minimum, maximum].
GridAxis MakeAxis(double minimum, double maximum, double cells) {
  GridAxis axis;
  axis.minimum = minimum;
  axis.count = 2 * static_cast<int>(std::clamp(
                       cells, 1.0, static_cast<double>(kMaxAxisCells)));
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
      MakeAxis(bounds.min_z, bounds.max_z, std::ceil(cells / layout.columns()));
  return layout;
}

// The bits of the quarters of cell (cell_x, cell_z) within `span`.
std::int32_t QuarterBits(const SubCellSpan& span, int cell_x, int cell_z) {
  std::int32_t bits = 0;
  for (int quarter_z = 0; quarter_z < 2; ++quarter_z) {
    const int sub_z = 2 * cell_z + quarter_z;
    if (sub_z < span.z0 || sub_z > span.z1) continue;
    for (int quarter_x = 0; quarter_x < 2; ++quarter_x) {
      const int sub_x = 2 * cell_x + quarter_x;
      if (sub_x < span.x0 || sub_x > span.x1) continue;
      bits |= std::int32_t{1}
              << (kGridIndexBits + (quarter_z << 1) + quarter_x);
    }
  }
  return bits;
}

// Per cell, how many boxes overlap it.
std::vector<std::uint32_t> CountPerCell(const Layout& layout,
                                        absl::Span<const XzBox> boxes,
                                        Pacer& pacer) {
  std::vector<std::uint32_t> counts(layout.cells(), 0);
  const size_t columns = static_cast<size_t>(layout.columns());
  for (const XzBox& box : boxes) {
    pacer.Step();
    const SubCellSpan span = layout.Span(box);
    for (int z = span.z0 >> 1; z <= span.z1 >> 1; ++z) {
      std::uint32_t* row = counts.data() + z * columns;
      for (int x = span.x0 >> 1; x <= span.x1 >> 1; ++x) ++row[x];
    }
  }
  return counts;
}

// Total list entries before dropping overfull cells, in O(boxes).
double CountEntries(const Layout& layout, absl::Span<const XzBox> boxes,
                    Pacer& pacer) {
  double entries = 0.0;
  for (const XzBox& box : boxes) {
    pacer.Step();
    const SubCellSpan span = layout.Span(box);
    entries += static_cast<double>((span.x1 >> 1) - (span.x0 >> 1) + 1) *
               static_cast<double>((span.z1 >> 1) - (span.z0 >> 1) + 1);
  }
  return entries;
}

// The boxes padded for rays, flattened to their x/z extents, and their
// bounds.
struct PaddedBoxes {
  std::vector<XzBox> boxes;
  XzBox bounds{kInfinity, -kInfinity, kInfinity, -kInfinity};
};
PaddedBoxes PadBoxes(absl::Span<const Aabb> boxes, Pacer& pacer) {
  PaddedBoxes padded;
  padded.boxes.resize(boxes.size());
  XzBox& bounds = padded.bounds;
  for (size_t i = 0; i < boxes.size(); ++i) {
    pacer.Step();
    const Aabb box = PaddedForRays(boxes[i]);
    padded.boxes[i] = {box.min.x, box.max.x, box.min.z, box.max.z};
    bounds.min_x = std::min(bounds.min_x, box.min.x);
    bounds.max_x = std::max(bounds.max_x, box.max.x);
    bounds.min_z = std::min(bounds.min_z, box.min.z);
    bounds.max_z = std::max(bounds.max_z, box.max.z);
  }
  return padded;
}

// A layout and its boxes per cell.
struct Resolution {
  Layout layout;
  std::vector<std::uint32_t> counts;
};

// The finest resolution within the memory budget, if any (finer cells list
// fewer triangles per quarter; counting the cells is the build's main
// cost).
std::optional<Resolution> FinestResolution(const PaddedBoxes& padded,
                                           Pacer& pacer) {
  const double count = static_cast<double>(padded.boxes.size());
  const double budget_bytes = std::max(4096.0, kGridBytesPerPrimitive * count);
  for (const double cells_per_primitive : kCellsPerPrimitive) {
    const Layout layout =
        MakeLayout(padded.bounds, cells_per_primitive * count);
    const double cells = static_cast<double>(layout.cells());
    if (4.0 * (cells + 1.0) > budget_bytes) continue;
    if (4.0 * CountEntries(layout, padded.boxes, pacer) >
        kMaxCountedOverBudget * budget_bytes) {
      continue;
    }
    std::vector<std::uint32_t> counts =
        CountPerCell(layout, padded.boxes, pacer);
    double listed = 0.0;
    for (const std::uint32_t cell_count : counts) {
      pacer.Step();
      if (cell_count <= static_cast<std::uint32_t>(kMaxGridCellPrimitives)) {
        listed += cell_count;
      }
    }
    if (4.0 * (cells + 1.0 + listed) > budget_bytes) continue;
    return Resolution{layout, std::move(counts)};
  }
  return std::nullopt;
}

// Each cell's first list entry, or-ed with `overfull` where the cell has
// more than kMaxGridCellPrimitives boxes (it lists none), and the total
// last. `counts` turns into each cell's first entry.
std::vector<std::uint32_t> CellOffsets(std::vector<std::uint32_t>* counts,
                                       std::uint32_t overfull) {
  const size_t cells = counts->size();
  std::vector<std::uint32_t> offsets(cells + 1);
  std::uint32_t total = 0;
  for (size_t c = 0; c < cells; ++c) {
    const bool is_overfull =
        (*counts)[c] > static_cast<std::uint32_t>(kMaxGridCellPrimitives);
    offsets[c] = total | (is_overfull ? overfull : 0u);
    const std::uint32_t cell_count = is_overfull ? 0u : (*counts)[c];
    (*counts)[c] = total;
    total += cell_count;
  }
  offsets[cells] = total;
  return offsets;
}

// The cells' lists, each box's entry (its index and the quarters it
// overlaps) in every cell it overlaps that is not flagged `overfull`.
// `next` holds each cell's next free entry.
std::vector<std::int32_t> ListBoxes(const Layout& layout,
                                    absl::Span<const XzBox> boxes,
                                    absl::Span<const std::uint32_t> offsets,
                                    std::uint32_t overfull,
                                    std::vector<std::uint32_t>* next,
                                    Pacer& pacer) {
  std::vector<std::int32_t> lists(offsets.back());
  // Boxes in index order: every list ascends.
  const size_t columns = static_cast<size_t>(layout.columns());
  for (size_t i = 0; i < boxes.size(); ++i) {
    pacer.Step();
    const SubCellSpan span = layout.Span(boxes[i]);
    for (int z = span.z0 >> 1; z <= span.z1 >> 1; ++z) {
      for (int x = span.x0 >> 1; x <= span.x1 >> 1; ++x) {
        const size_t c = z * columns + x;
        if ((offsets[c] & overfull) != 0) continue;
        lists[(*next)[c]++] =
            static_cast<std::int32_t>(i) | QuarterBits(span, x, z);
      }
    }
  }
  return lists;
}

}  // namespace

VerticalRayGrid VerticalRayGrid::Build(absl::Span<const Aabb> boxes,
                                       absl::FunctionRef<void()> pause) {
  VerticalRayGrid grid;
  if (boxes.empty()) return grid;
  Pacer pacer(pause);
  const PaddedBoxes padded = PadBoxes(boxes, pacer);
  std::optional<Resolution> resolution = FinestResolution(padded, pacer);
  if (!resolution.has_value()) return grid;

  const Layout& layout = resolution->layout;
  grid.axis_x_ = layout.x;
  grid.axis_z_ = layout.z;
  grid.columns_ = layout.columns();
  grid.min_x_ = padded.bounds.min_x;
  grid.max_x_ = padded.bounds.max_x;
  grid.min_z_ = padded.bounds.min_z;
  grid.max_z_ = padded.bounds.max_z;
  grid.offsets_ = CellOffsets(&resolution->counts, kOverfull);
  grid.lists_ = ListBoxes(layout, padded.boxes, grid.offsets_, kOverfull,
                          &resolution->counts, pacer);
  return grid;
}

}  // namespace ik
