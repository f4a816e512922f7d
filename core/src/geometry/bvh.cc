#include "ik/geometry/bvh.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/types/span.h"
#include "ik/base/pacer.h"
#include "ik/geometry/aabb.h"

namespace ik {
namespace {

constexpr int kBinCount = 16;

// A box as plain arrays: the build indexes axes at run time, which on glm
// vectors goes through a switch, and grows boxes millions of times.
struct Box {
  double lo[3] = {kInfinity, kInfinity, kInfinity};
  double hi[3] = {-kInfinity, -kInfinity, -kInfinity};

  void Grow(const Box& box) {
    for (int k = 0; k < 3; ++k) {
      lo[k] = box.lo[k] < lo[k] ? box.lo[k] : lo[k];
      hi[k] = box.hi[k] > hi[k] ? box.hi[k] : hi[k];
    }
  }
  void Grow(const double (&point)[3]) {
    for (int k = 0; k < 3; ++k) {
      lo[k] = point[k] < lo[k] ? point[k] : lo[k];
      hi[k] = point[k] > hi[k] ? point[k] : hi[k];
    }
  }
  // 2 (dx dy + dy dz + dz dx); 0 for an empty box.
  double SurfaceArea() const {
    if (!(lo[0] <= hi[0] && lo[1] <= hi[1] && lo[2] <= hi[2])) return 0.0;
    const double dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
    return 2.0 * (dx * dy + dy * dz + dz * dx);
  }
  Aabb ToAabb() const {
    Aabb box;
    box.min = Vec3(lo[0], lo[1], lo[2]);
    box.max = Vec3(hi[0], hi[1], hi[2]);
    return box;
  }
};

// A primitive during the build: its box, centroid and index, moved around
// in place so that every pass reads memory in order.
struct PrimitiveRef {
  Box box;
  double centroid[3] = {0.0, 0.0, 0.0};
  std::int32_t index = 0;
};

struct Bin {
  Box box;
  int count = 0;
};

// A candidate split: primitives whose centroid falls in bins <= `bin` on
// `axis` go left.
struct Split {
  int axis = -1;
  int bin = -1;
  double cost = 0.0;
};

// Maps a centroid coordinate to its bin. The same function decides both the
// binning and the partition, so they agree bit for bit.
struct Binner {
  double minimum = 0.0;
  double scale = 0.0;  // kBinCount / extent, slightly shrunk

  int operator()(double coordinate) const {
    // Written so that NaN (0 * infinity when the extent is subnormal) lands
    // in bin 0 and nothing out of range reaches the cast.
    const double position = (coordinate - minimum) * scale;
    if (!(position >= 1.0)) return 0;
    if (!(position < kBinCount - 1)) return kBinCount - 1;
    return static_cast<int>(position);
  }
};

Binner MakeBinner(double minimum, double maximum) {
  Binner binner;
  binner.minimum = minimum;
  binner.scale = kBinCount * (1.0 - 1e-9) / (maximum - minimum);
  return binner;
}

float RoundDown(double value) {
  float rounded = static_cast<float>(value);
  if (static_cast<double>(rounded) > value) {
    rounded = std::nextafter(rounded, -std::numeric_limits<float>::infinity());
  }
  return rounded;
}

float RoundUp(double value) {
  float rounded = static_cast<float>(value);
  if (static_cast<double>(rounded) < value) {
    rounded = std::nextafter(rounded, std::numeric_limits<float>::infinity());
  }
  return rounded;
}

void SetBox(const Aabb& box, BvhNode* node) {
  const Aabb padded = PaddedForRays(box);
  node->box_min = glm::vec3(RoundDown(padded.min.x), RoundDown(padded.min.y),
                            RoundDown(padded.min.z));
  node->box_max = glm::vec3(RoundUp(padded.max.x), RoundUp(padded.max.y),
                            RoundUp(padded.max.z));
}

class Builder {
 public:
  Builder(std::vector<PrimitiveRef>* refs,
          std::vector<BvhNode, CacheLineAllocator<BvhNode>>* nodes,
          Pacer* pacer)
      : refs_(*refs), nodes_(*nodes), pacer_(*pacer) {}

  // Fills nodes_[node_index] for refs [begin, end); returns the subtree's
  // depth.
  int BuildNode(int node_index, int begin, int end, int depth) {
    Box box;
    Box centroid_box;
    for (int i = begin; i < end; ++i) {
      box.Grow(refs_[i].box);
      centroid_box.Grow(refs_[i].centroid);
      pacer_.Step();
    }
    SetBox(box.ToAabb(), &nodes_[node_index]);
    const int count = end - begin;
    if (count <= 1) return MakeLeaf(node_index, begin, count);

    int middle = -1;
    if (depth >= kBvhSahDepth) {
      middle = MedianSplit(centroid_box, begin, end);
    } else {
      const Split split = BestSahSplit(centroid_box, box, begin, end);
      if (split.axis < 0) {
        // Every centroid coincides: nothing to tell the primitives apart.
        if (count <= kBvhMaxLeafSize) {
          return MakeLeaf(node_index, begin, count);
        }
        middle = begin + count / 2;
      } else {
        if (split.cost >= count && count <= kBvhMaxLeafSize) {
          return MakeLeaf(node_index, begin, count);
        }
        middle = Partition(split, centroid_box, begin, end);
        // Cannot happen (both sides of a SAH split hold primitives); kept
        // so that no rounding surprise can recurse forever.
        if (middle == begin || middle == end) middle = begin + count / 2;
      }
    }

    // Children at an even index, sharing a cache line.
    const int left = static_cast<int>(nodes_.size());
    nodes_.emplace_back();
    nodes_.emplace_back();
    nodes_[node_index].first = left;
    nodes_[node_index].count = 0;
    const int left_depth = BuildNode(left, begin, middle, depth + 1);
    const int right_depth = BuildNode(left + 1, middle, end, depth + 1);
    return 1 + std::max(left_depth, right_depth);
  }

 private:
  int MakeLeaf(int node_index, int begin, int count) {
    nodes_[node_index].first = begin;
    nodes_[node_index].count = count;
    return 0;
  }

  // Binned SAH along the axis on which the centroids spread most (binning
  // all three costs three times as much for little gain on terrain-like
  // meshes). axis == -1 when the centroids all coincide. Costs are
  // relative to the node's area: 1 + (A_l N_l + A_r N_r) / A.
  Split BestSahSplit(const Box& centroid_box, const Box& box, int begin,
                     int end) const {
    int axis = 0;
    double widest = centroid_box.hi[0] - centroid_box.lo[0];
    for (int k = 1; k < 3; ++k) {
      const double extent = centroid_box.hi[k] - centroid_box.lo[k];
      if (extent > widest) {
        axis = k;
        widest = extent;
      }
    }
    Split best;
    if (!(widest > 0.0)) return best;
    const Binner binner =
        MakeBinner(centroid_box.lo[axis], centroid_box.hi[axis]);
    std::array<Bin, kBinCount> bins;
    for (int i = begin; i < end; ++i) {
      const PrimitiveRef& ref = refs_[i];
      Bin& bin = bins[binner(ref.centroid[axis])];
      bin.box.Grow(ref.box);
      ++bin.count;
      pacer_.Step();
    }
    // Right-hand sweep: areas and counts of bins (i, kBinCount).
    std::array<double, kBinCount> right_area{};
    std::array<int, kBinCount> right_count{};
    Box right;
    int right_total = 0;
    for (int i = kBinCount - 1; i > 0; --i) {
      right.Grow(bins[i].box);
      right_total += bins[i].count;
      right_area[i - 1] = right.SurfaceArea();
      right_count[i - 1] = right_total;
    }
    const double area = box.SurfaceArea();
    Box left;
    int left_total = 0;
    for (int i = 0; i < kBinCount - 1; ++i) {
      left.Grow(bins[i].box);
      left_total += bins[i].count;
      if (left_total == 0 || right_count[i] == 0) continue;
      const double cost = area > 0.0
                              ? 1.0 + (left.SurfaceArea() * left_total +
                                       right_area[i] * right_count[i]) /
                                          area
                              : 1.0 + 0.5 * (left_total + right_count[i]);
      // Strictly better only: ties keep the lower bin.
      if (best.axis < 0 || cost < best.cost) {
        best.axis = axis;
        best.bin = i;
        best.cost = cost;
      }
    }
    return best;
  }

  // In-place two-way partition (left: bin <= split.bin). Returns the first
  // right index. Deterministic for a given input order.
  int Partition(const Split& split, const Box& centroid_box, int begin,
                int end) {
    const int axis = split.axis;
    const Binner binner =
        MakeBinner(centroid_box.lo[axis], centroid_box.hi[axis]);
    int low = begin;
    int high = end - 1;
    while (true) {
      while (low <= high && binner(refs_[low].centroid[axis]) <= split.bin) {
        ++low;
      }
      while (low <= high && binner(refs_[high].centroid[axis]) > split.bin) {
        --high;
      }
      if (low >= high) return low;
      std::swap(refs_[low], refs_[high]);
      pacer_.Step();
    }
  }

  // Object median on the widest centroid axis, ordered by (centroid,
  // primitive index): a total order, so the halves do not depend on the
  // standard library's nth_element; each half is then put in index order.
  int MedianSplit(const Box& centroid_box, int begin, int end) {
    const double extent[3] = {centroid_box.hi[0] - centroid_box.lo[0],
                              centroid_box.hi[1] - centroid_box.lo[1],
                              centroid_box.hi[2] - centroid_box.lo[2]};
    int axis = 0;
    if (extent[1] > extent[axis]) axis = 1;
    if (extent[2] > extent[axis]) axis = 2;
    const int middle = begin + (end - begin) / 2;
    std::nth_element(refs_.begin() + begin, refs_.begin() + middle,
                     refs_.begin() + end,
                     [axis](const PrimitiveRef& a, const PrimitiveRef& b) {
                       const double ca = a.centroid[axis];
                       const double cb = b.centroid[axis];
                       return ca < cb || (ca == cb && a.index < b.index);
                     });
    const auto by_index = [](const PrimitiveRef& a, const PrimitiveRef& b) {
      return a.index < b.index;
    };
    std::sort(refs_.begin() + begin, refs_.begin() + middle, by_index);
    std::sort(refs_.begin() + middle, refs_.begin() + end, by_index);
    pacer_.Step(end - begin);
    return middle;
  }

  std::vector<PrimitiveRef>& refs_;
  std::vector<BvhNode, CacheLineAllocator<BvhNode>>& nodes_;
  Pacer& pacer_;
};

}  // namespace

Bvh Bvh::Build(absl::Span<const Aabb> boxes, absl::FunctionRef<void()> pause) {
  Bvh bvh;
  if (boxes.empty()) return bvh;
  Pacer pacer(pause);
  const int count = static_cast<int>(boxes.size());
  std::vector<PrimitiveRef> refs(count);
  for (int i = 0; i < count; ++i) {
    pacer.Step();
    const Aabb& box = boxes[i];
    PrimitiveRef& ref = refs[i];
    ref.box.lo[0] = box.min.x;
    ref.box.lo[1] = box.min.y;
    ref.box.lo[2] = box.min.z;
    ref.box.hi[0] = box.max.x;
    ref.box.hi[1] = box.max.y;
    ref.box.hi[2] = box.max.z;
    for (int k = 0; k < 3; ++k) {
      ref.centroid[k] = 0.5 * (ref.box.lo[k] + ref.box.hi[k]);
    }
    ref.index = i;
  }
  // At most 2 * count - 1 nodes plus the unused node 1: no reallocation.
  bvh.nodes_.reserve(2 * static_cast<size_t>(count));
  bvh.nodes_.resize(2);  // the root and the unused node 1
  Builder builder(&refs, &bvh.nodes_, &pacer);
  bvh.depth_ = builder.BuildNode(0, 0, count, 0);
  // Leaves of up to kBvhMaxLeafSize primitives use far fewer nodes than
  // reserved: a registered mesh keeps only what it uses.
  bvh.nodes_.shrink_to_fit();
  bvh.order_.resize(count);
  for (int i = 0; i < count; ++i) bvh.order_[i] = refs[i].index;
  return bvh;
}

}  // namespace ik
