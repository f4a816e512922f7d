#include "ik/geometry/bvh.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "draws.h"
#include "gtest/gtest.h"
#include "ik/geometry/aabb.h"
#include "ik/geometry/ray.h"
#include "terrain_shapes.h"

namespace ik {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<Aabb> RandomBoxes(int count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> position(-50.0, 50.0);
  std::uniform_real_distribution<double> size(0.0, 3.0);
  std::vector<Aabb> boxes(count);
  for (Aabb& box : boxes) {
    const Vec3 min = testing::DrawVec3(position, engine);
    box.Extend(min);
    box.Extend(min + testing::DrawVec3(size, engine));
  }
  return boxes;
}

bool Contains(const Aabb& outer, const Aabb& inner) {
  return outer.min.x <= inner.min.x && outer.min.y <= inner.min.y &&
         outer.min.z <= inner.min.z && outer.max.x >= inner.max.x &&
         outer.max.y >= inner.max.y && outer.max.z >= inner.max.z;
}

Aabb NodeBox(const BvhNode& node) {
  Aabb box;
  box.Extend(Vec3(node.box_min));
  box.Extend(Vec3(node.box_max));
  return box;
}

// Walks the tree checking its invariants; returns the leaf slots seen.
void CheckSubtree(const Bvh& bvh, absl::Span<const Aabb> boxes, int node_index,
                  int depth, std::vector<int>* slots_seen) {
  const BvhNode& node = bvh.nodes()[node_index];
  ASSERT_LE(depth, bvh.depth());
  if (node.count > 0) {
    EXPECT_LE(node.count, kBvhMaxLeafSize);
    for (int slot = node.first; slot < node.first + node.count; ++slot) {
      slots_seen->push_back(slot);
      EXPECT_TRUE(Contains(NodeBox(node), boxes[bvh.order()[slot]]));
    }
    return;
  }
  ASSERT_LT(node.first + 1, static_cast<int>(bvh.nodes().size()));
  EXPECT_EQ(node.first % 2, 0);  // siblings share a cache line
  for (int child = node.first; child <= node.first + 1; ++child) {
    EXPECT_TRUE(Contains(NodeBox(node), NodeBox(bvh.nodes()[child])));
    CheckSubtree(bvh, boxes, child, depth + 1, slots_seen);
  }
}

TEST(BvhTest, EmptyBuildVisitsNothing) {
  const Bvh bvh = Bvh::Build({});
  EXPECT_TRUE(bvh.nodes().empty());
  const std::optional<Ray> ray = Ray::Make(Vec3(0), Vec3(0, -1, 0));
  double max_distance = kInf;
  int visits = 0;
  bvh.Traverse(*ray, &max_distance, [&](int, int) { ++visits; });
  EXPECT_EQ(visits, 0);
}

TEST(BvhTest, TreeCoversEveryPrimitiveOnceWithNestedBoxes) {
  const std::vector<Aabb> boxes = RandomBoxes(5000, 1);
  const Bvh bvh = Bvh::Build(boxes);
  std::vector<int> slots;
  CheckSubtree(bvh, boxes, 0, 0, &slots);
  std::sort(slots.begin(), slots.end());
  ASSERT_EQ(slots.size(), boxes.size());
  for (size_t i = 0; i < slots.size(); ++i) EXPECT_EQ(slots[i], int(i));
  std::vector<std::int32_t> order(bvh.order().begin(), bvh.order().end());
  std::sort(order.begin(), order.end());
  for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], int(i));
  EXPECT_LE(bvh.depth(), kBvhMaxDepth);
  // Root, unused node 1, then sibling pairs: at most 2n nodes.
  EXPECT_LE(bvh.nodes().size(), 2 * boxes.size());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(bvh.nodes().data()) % 64, 0u);
}

TEST(BvhTest, BuildIsDeterministicBitForBit) {
  const std::vector<Aabb> boxes = RandomBoxes(20000, 2);
  const Bvh first = Bvh::Build(boxes);
  const Bvh second = Bvh::Build(boxes);
  ASSERT_EQ(first.nodes().size(), second.nodes().size());
  EXPECT_EQ(std::memcmp(first.nodes().data(), second.nodes().data(),
                        first.nodes().size() * sizeof(BvhNode)),
            0);
  EXPECT_TRUE(std::equal(first.order().begin(), first.order().end(),
                         second.order().begin()));
  EXPECT_EQ(first.depth(), second.depth());
}

// Identical boxes (nothing to split on) and a chain of ever-smaller nested
// boxes (the worst case for SAH) still give a bounded depth.
TEST(BvhTest, DepthStaysBoundedOnDegenerateInput) {
  std::vector<Aabb> same(10000);
  for (Aabb& box : same) {
    box.Extend(Vec3(0));
    box.Extend(Vec3(1));
  }
  const Bvh flat = Bvh::Build(same);
  EXPECT_LE(flat.depth(), kBvhMaxDepth);
  std::vector<int> slots;
  CheckSubtree(flat, same, 0, 0, &slots);
  EXPECT_EQ(slots.size(), same.size());

  std::vector<Aabb> nested(3000);
  for (size_t i = 0; i < nested.size(); ++i) {
    const double x = std::ldexp(1.0, -static_cast<int>(i % 1000));
    nested[i].Extend(Vec3(x, 0, 0));
    nested[i].Extend(Vec3(x * 1.5, 1, 1));
  }
  const Bvh chain = Bvh::Build(nested);
  EXPECT_LE(chain.depth(), kBvhMaxDepth);
  slots.clear();
  CheckSubtree(chain, nested, 0, 0, &slots);
  EXPECT_EQ(slots.size(), nested.size());
}

// Every primitive whose box the ray touches is offered to the visitor
// (seeded random rays; the visitor never lowers the maximum here).
TEST(BvhTest, TraversalVisitsEveryBoxTheRayTouches) {
  const std::vector<Aabb> boxes = RandomBoxes(3000, 3);
  const Bvh bvh = Bvh::Build(boxes);
  std::mt19937_64 engine(4);
  std::uniform_real_distribution<double> position(-60.0, 60.0);
  for (int i = 0; i < 500; ++i) {
    const Vec3 origin = testing::DrawVec3(position, engine);
    const std::optional<Ray> ray =
        Ray::Make(origin, testing::RandomDirection(engine));
    const double max_distance = i % 2 == 0 ? kInf : 40.0;
    std::set<int> visited;
    double limit = max_distance;
    bvh.Traverse(*ray, &limit, [&](int first, int count) {
      for (int slot = first; slot < first + count; ++slot) {
        EXPECT_TRUE(visited.insert(bvh.order()[slot]).second);
      }
    });
    for (int p = 0; p < static_cast<int>(boxes.size()); ++p) {
      double entry;
      if (IntersectAabb(*ray, boxes[p], max_distance, &entry)) {
        EXPECT_EQ(visited.count(p), 1u) << "ray " << i << " box " << p;
      }
    }
  }
}

// Lowering the maximum prunes subtrees entered beyond it.
TEST(BvhTest, LoweringTheMaximumPrunesFartherSubtrees) {
  std::vector<Aabb> boxes(64);
  for (int i = 0; i < 64; ++i) {
    boxes[i].Extend(Vec3(-0.5, -i - 0.5, -0.5));
    boxes[i].Extend(Vec3(0.5, -i, 0.5));
  }
  const Bvh bvh = Bvh::Build(boxes);
  const std::optional<Ray> ray = Ray::Make(Vec3(0, 1, 0), Vec3(0, -1, 0));
  double max_distance = kInf;
  int visited = 0;
  bvh.Traverse(*ray, &max_distance, [&](int, int count) {
    visited += count;
    max_distance = 1.0;  // "hit" the top box
  });
  EXPECT_LE(visited, 2 * kBvhMaxLeafSize);
}

}  // namespace
}  // namespace ik
