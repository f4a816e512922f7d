// A bounding-volume hierarchy over primitive boxes, for ray queries.
//
// Build: top-down binned surface-area heuristic (SAH): the primitives' box
// centroids are sorted into 16 bins along the axis on which they spread
// most, and the best of the 15 bin boundaries by SAH cost is taken, costs as
// in PBRT-v3 (traversal 1, intersection 1 per primitive: split when
// 1 + (A_left N_left + A_right N_right) / A < N, or when more than
// kBvhMaxLeafSize primitives remain). Ranges whose centroids all coincide
// are halved by position; from depth kBvhSahDepth on, the split is the
// object median on the widest centroid axis, so the depth never exceeds
// kBvhMaxDepth and traversal needs only a fixed stack. Deterministic: the
// same boxes in the same order give the same tree, bit for bit (no
// randomness, no unordered containers, no threads; ties broken by bin and
// primitive index). One core builds 100,000 triangles in about 40 ms
// (bench/terrain_bench.cc).
//
// Layout, for cache-friendly queries: 32-byte nodes with single-precision
// boxes rounded outwards (so they still contain what they bound), in an
// array aligned to 64 bytes. Node 0 is the root and node 1 is unused; an
// interior node's children are adjacent at an even index (`first` and
// `first + 1`), so a traversal step loads one cache line. Leaves refer to a
// run of `count` slots of order(): order()[slot] is the primitive's index in
// the boxes given to Build. Owners of the primitives (TriangleMesh) store
// them in slot order so a leaf reads contiguous memory.
//
//   ik::Bvh bvh = ik::Bvh::Build(boxes);
//   double max_distance = 10.0;
//   bvh.Traverse(ray, &max_distance, [&](int first_slot, int count) {
//     // test slots [first_slot, first_slot + count); lower max_distance on a
//     // hit so farther boxes are skipped
//   });
//
// Immutable after Build and safe to query from many threads at once.
#ifndef IK_BVH_H_
#define IK_BVH_H_

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/base/pacer.h"
#include "ik/geometry/aabb.h"
#include "ik/geometry/ray.h"

namespace ik {

inline constexpr int kBvhMaxLeafSize = 4;
inline constexpr int kBvhSahDepth = 40;
// Object-median splits from kBvhSahDepth on halve the range, so 2^24 - 1
// primitives (more than any mesh the core accepts) fit in this depth.
inline constexpr int kBvhMaxDepth = kBvhSahDepth + 24;

struct BvhNode {
  // Padded for rays (PaddedForRays), then rounded outwards to float:
  // contains every primitive box below.
  glm::vec3 box_min{0.0f};
  glm::vec3 box_max{0.0f};
  // Leaf (count > 0): the first slot of order(). Interior (count == 0): the
  // left child's node index (even); the right child follows it.
  std::int32_t first = 0;
  std::int32_t count = 0;
};
static_assert(sizeof(BvhNode) == 32, "two siblings share a cache line");

// Allocates on 64-byte boundaries (a cache line).
template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64)));
  }
  void deallocate(T* pointer, std::size_t) {
    ::operator delete(pointer, std::align_val_t(64));
  }
  friend bool operator==(const CacheLineAllocator&, const CacheLineAllocator&) {
    return true;
  }
  friend bool operator!=(const CacheLineAllocator&, const CacheLineAllocator&) {
    return false;
  }
};

class Bvh {
 public:
  // An empty hierarchy: Traverse visits nothing.
  Bvh() = default;

  // Builds over `boxes` (one per primitive, each finite and non-empty, with
  // coordinates within +-kMaxCoordinate; the caller validates). At most
  // 2^24 - 1 boxes. `pause` is called between pieces of the build
  // (ik/base/pacer.h).
  static Bvh Build(absl::Span<const Aabb> boxes,
                   absl::FunctionRef<void()> pause = NoPause);

  // Node 1 is unused (see the layout above).
  absl::Span<const BvhNode> nodes() const { return nodes_; }
  // Slot -> primitive index.
  absl::Span<const std::int32_t> order() const { return order_; }
  // Edges from the root to the deepest leaf (0 for a single leaf).
  int depth() const { return depth_; }
  // Bytes held on the heap (nodes and order).
  size_t memory_bytes() const {
    return nodes_.capacity() * sizeof(BvhNode) +
           order_.capacity() * sizeof(std::int32_t);
  }

  // Calls visit_leaf(first_slot, count) for every leaf whose box the ray
  // touches within [0, *max_distance], nearer child first. visit_leaf may
  // lower *max_distance (to the nearest hit so far): subtrees entered
  // strictly beyond it are skipped, so a hit at exactly *max_distance in a
  // later leaf is still visited (callers break such ties by primitive index,
  // which keeps answers independent of the tree). Allocates nothing.
  template <typename VisitLeaf>
  void Traverse(const Ray& ray, double* max_distance,
                VisitLeaf&& visit_leaf) const;

 private:
  // The slab test, for any ray.
  struct AnyRay {
    bool operator()(const Ray& ray, const BvhNode& node, double max_distance,
                    double* entry) const {
      double exit;
      return ClipRayToBox(ray, Vec3(node.box_min), Vec3(node.box_max),
                          max_distance, entry, &exit);
    }
  };
  // A ray along +-Y (direction exactly (0, +-1, 0), as the grounding pass
  // casts): the box contains the origin's x and z, and the y range decides.
  // Gives exactly the slab test's answer and entry for such a ray (its y
  // slab computes the same differences; its x and z slabs only compare),
  // with comparisons instead of six products.
  struct VerticalRay {
    bool operator()(const Ray& ray, const BvhNode& node, double max_distance,
                    double* entry) const {
      const Vec3& origin = ray.origin();
      if (!(origin.x >= node.box_min.x && origin.x <= node.box_max.x &&
            origin.z >= node.box_min.z && origin.z <= node.box_max.z)) {
        return false;
      }
      const bool down = ray.direction().y < 0.0;
      const double enter =
          down ? origin.y - node.box_max.y : node.box_min.y - origin.y;
      const double leave =
          down ? origin.y - node.box_min.y : node.box_max.y - origin.y;
      *entry = std::max(enter, 0.0);
      return *entry <= std::min(leave, max_distance);
    }
  };

  template <typename Intersect, typename VisitLeaf>
  void TraverseWith(const Ray& ray, double* max_distance,
                    VisitLeaf& visit_leaf) const;

  std::vector<BvhNode, CacheLineAllocator<BvhNode>> nodes_;
  std::vector<std::int32_t> order_;
  int depth_ = 0;
};

template <typename VisitLeaf>
void Bvh::Traverse(const Ray& ray, double* max_distance,
                   VisitLeaf&& visit_leaf) const {
  if (ray.direction().x == 0.0 && ray.direction().z == 0.0) {
    TraverseWith<VerticalRay>(ray, max_distance, visit_leaf);
  } else {
    TraverseWith<AnyRay>(ray, max_distance, visit_leaf);
  }
}

template <typename Intersect, typename VisitLeaf>
void Bvh::TraverseWith(const Ray& ray, double* max_distance,
                       VisitLeaf& visit_leaf) const {
  if (nodes_.empty()) return;
  const Intersect IntersectNode;
  const BvhNode* const nodes = nodes_.data();
  double entry = 0.0;
  if (!IntersectNode(ray, nodes[0], *max_distance, &entry)) return;
  // Far children still to visit, with the distance where the ray enters
  // them. One push per level at most.
  std::int32_t stack_node[kBvhMaxDepth + 1];
  double stack_entry[kBvhMaxDepth + 1];
  int stack_size = 0;
  std::int32_t node_index = 0;
  while (true) {
    const BvhNode& node = nodes[node_index];
    if (node.count > 0) {
      visit_leaf(static_cast<int>(node.first), static_cast<int>(node.count));
    } else {
      const std::int32_t left = node.first;
      double left_entry = 0.0;
      double right_entry = 0.0;
      const bool hit_left =
          IntersectNode(ray, nodes[left], *max_distance, &left_entry);
      const bool hit_right =
          IntersectNode(ray, nodes[left + 1], *max_distance, &right_entry);
      if (hit_left && hit_right) {
        const bool left_first = left_entry <= right_entry;
        stack_node[stack_size] = left_first ? left + 1 : left;
        stack_entry[stack_size] = left_first ? right_entry : left_entry;
        ++stack_size;
        node_index = left_first ? left : left + 1;
        continue;
      }
      if (hit_left || hit_right) {
        node_index = hit_left ? left : left + 1;
        continue;
      }
    }
    // Pop the next far child the ray can still reach.
    bool found = false;
    while (stack_size > 0) {
      --stack_size;
      if (stack_entry[stack_size] <= *max_distance) {
        node_index = stack_node[stack_size];
        found = true;
        break;
      }
    }
    if (!found) return;
  }
}

}  // namespace ik

#endif  // IK_BVH_H_
