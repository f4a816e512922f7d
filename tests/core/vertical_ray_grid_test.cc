#include "ik/geometry/vertical_ray_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "ik/geometry/aabb.h"

namespace ik {
namespace {

using Lookup = VerticalRayGrid::Lookup;

// Seeded boxes: mostly small, some long and thin, some huge.
std::vector<Aabb> RandomBoxes(int count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> position(-20.0, 20.0);
  std::uniform_real_distribution<double> size(0.01, 0.6);
  std::uniform_int_distribution<int> kind(0, 19);
  std::vector<Aabb> boxes;
  for (int i = 0; i < count; ++i) {
    Aabb box;
    const Vec3 corner(position(engine), position(engine), position(engine));
    box.Extend(corner);
    Vec3 extent(size(engine), size(engine), size(engine));
    const int k = kind(engine);
    if (k == 0) extent.x *= 40.0;                        // a long thin box
    if (k == 1) extent = Vec3(0.0, extent.y, extent.z);  // flat in x
    if (k == 2) extent *= 30.0;                          // a huge one
    box.Extend(corner + extent);
    boxes.push_back(box);
  }
  return boxes;
}

bool PaddedContains(const Aabb& box, double x, double z) {
  const Aabb padded = PaddedForRays(box);
  return x >= padded.min.x && x <= padded.max.x && z >= padded.min.z &&
         z <= padded.max.z;
}

// Every box whose padded box contains the point is listed with the point's
// quarter bit (the grid's contract), lists ascend, and kOutside only where
// no box is.
void ExpectConservative(const std::vector<Aabb>& boxes,
                        const VerticalRayGrid& grid, double x, double z) {
  absl::Span<const std::int32_t> candidates;
  std::int32_t quarter = 0;
  const Lookup lookup = grid.Find(x, z, &candidates, &quarter);
  if (lookup == Lookup::kUnlisted) return;
  std::vector<int> marked;  // the entries a query reads
  std::vector<int> indices;
  for (const std::int32_t entry : candidates) {
    indices.push_back(entry & kGridIndexMask);
    if ((entry & quarter) != 0) marked.push_back(entry & kGridIndexMask);
  }
  for (int i = 0; i < static_cast<int>(boxes.size()); ++i) {
    if (!PaddedContains(boxes[i], x, z)) continue;
    ASSERT_EQ(lookup, Lookup::kListed)
        << "box " << i << " at " << x << ", " << z;
    EXPECT_TRUE(std::binary_search(marked.begin(), marked.end(), i))
        << "box " << i << " not listed in its quarter at " << x << ", " << z;
  }
  if (lookup == Lookup::kListed) {
    EXPECT_NE(quarter, 0);
    EXPECT_EQ(quarter & kGridIndexMask, 0);
    EXPECT_TRUE(std::is_sorted(indices.begin(), indices.end()));
    EXPECT_LE(candidates.size(), static_cast<size_t>(kMaxGridCellPrimitives));
  }
}

TEST(VerticalRayGridTest, EmptyBuildIsUnlisted) {
  const VerticalRayGrid grid = VerticalRayGrid::Build({});
  absl::Span<const std::int32_t> candidates;
  std::int32_t quarter = 0;
  EXPECT_TRUE(grid.empty());
  EXPECT_EQ(grid.Find(0.0, 0.0, &candidates, &quarter), Lookup::kUnlisted);
  EXPECT_EQ(grid.memory_bytes(), 0u);
}

TEST(VerticalRayGridTest, ListsEveryBoxContainingThePoint) {
  const std::vector<Aabb> boxes = RandomBoxes(3000, 81);
  const VerticalRayGrid grid = VerticalRayGrid::Build(boxes);
  ASSERT_FALSE(grid.empty());
  std::mt19937_64 engine(82);
  std::uniform_real_distribution<double> position(-25.0, 45.0);
  std::uniform_int_distribution<int> pick(0,
                                          static_cast<int>(boxes.size()) - 1);
  for (int i = 0; i < 4000; ++i) {
    double x = position(engine), z = position(engine);
    // On a box's corner or edge (padded or not), where rounding decides.
    const Aabb& box = boxes[pick(engine)];
    const Aabb padded = PaddedForRays(box);
    if (i % 4 == 1) x = i % 8 == 1 ? box.min.x : padded.max.x;
    if (i % 4 == 2) z = i % 8 == 2 ? padded.min.z : box.max.z;
    if (i % 4 == 3) {
      x = padded.min.x;
      z = padded.max.z;
    }
    ExpectConservative(boxes, grid, x, z);
  }
}

TEST(VerticalRayGridTest, PointsOnCellBordersFindTheirBoxes) {
  const std::vector<Aabb> boxes = RandomBoxes(2000, 83);
  const VerticalRayGrid grid = VerticalRayGrid::Build(boxes);
  ASSERT_FALSE(grid.empty());
  Aabb bounds;
  for (const Aabb& box : boxes) bounds.Extend(PaddedForRays(box));
  std::mt19937_64 engine(84);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 2000; ++i) {
    // Exactly on (and one ulp either side of) a cell border.
    const int column = static_cast<int>(unit(engine) * grid.columns());
    const double width = bounds.max.x - bounds.min.x;
    double x = bounds.min.x + width * column / grid.columns();
    if (i % 3 == 1) x = std::nextafter(x, -1e300);
    if (i % 3 == 2) x = std::nextafter(x, 1e300);
    const double z =
        bounds.min.z + unit(engine) * (bounds.max.z - bounds.min.z);
    ExpectConservative(boxes, grid, x, z);
  }
}

TEST(VerticalRayGridTest, OutsideTheBoxesIsOutside) {
  std::vector<Aabb> boxes(1);
  boxes[0].Extend(Vec3(0.0, 0.0, 0.0));
  boxes[0].Extend(Vec3(1.0, 0.5, 2.0));
  const VerticalRayGrid grid = VerticalRayGrid::Build(boxes);
  absl::Span<const std::int32_t> candidates;
  std::int32_t quarter = 0;
  EXPECT_EQ(grid.Find(-0.01, 1.0, &candidates, &quarter), Lookup::kOutside);
  EXPECT_EQ(grid.Find(0.5, 2.01, &candidates, &quarter), Lookup::kOutside);
  ASSERT_EQ(grid.Find(0.5, 1.0, &candidates, &quarter), Lookup::kListed);
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0] & kGridIndexMask, 0);
  EXPECT_NE(candidates[0] & quarter, 0);
  // The padding reaches beyond the box: still listed on its face.
  EXPECT_EQ(grid.Find(0.0, 0.0, &candidates, &quarter), Lookup::kListed);
  EXPECT_NE(candidates[0] & quarter, 0);
  EXPECT_EQ(grid.Find(1.0, 2.0, &candidates, &quarter), Lookup::kListed);
  EXPECT_NE(candidates[0] & quarter, 0);
}

// Many boxes stacked over one spot overflow their cells, which then send
// their rays to the BVH; the rest stay listed, and memory stays in budget.
TEST(VerticalRayGridTest, OverfullCellsAreUnlistedAndMemoryStaysBounded) {
  std::vector<Aabb> boxes = RandomBoxes(2000, 85);
  for (int i = 0; i < 500; ++i) {
    Aabb box;
    box.Extend(Vec3(5.0 + 0.001 * i, 0.01 * i, 5.0));
    box.Extend(Vec3(5.2 + 0.001 * i, 0.01 * i + 0.1, 5.2));
    boxes.push_back(box);
  }
  const VerticalRayGrid grid = VerticalRayGrid::Build(boxes);
  ASSERT_FALSE(grid.empty());
  absl::Span<const std::int32_t> candidates;
  std::int32_t quarter = 0;
  EXPECT_EQ(grid.Find(5.3, 5.1, &candidates, &quarter), Lookup::kUnlisted);
  EXPECT_LE(static_cast<double>(grid.memory_bytes()),
            kGridBytesPerPrimitive * boxes.size());
  std::mt19937_64 engine(86);
  std::uniform_real_distribution<double> position(-25.0, 45.0);
  int listed = 0;
  for (int i = 0; i < 1000; ++i) {
    const double x = position(engine), z = position(engine);
    ExpectConservative(boxes, grid, x, z);
    listed += grid.Find(x, z, &candidates, &quarter) == Lookup::kListed ? 1 : 0;
  }
  EXPECT_GT(listed, 300);
}

TEST(VerticalRayGridTest, BuildIsDeterministic) {
  const std::vector<Aabb> boxes = RandomBoxes(1500, 87);
  const VerticalRayGrid a = VerticalRayGrid::Build(boxes);
  const VerticalRayGrid b = VerticalRayGrid::Build(boxes);
  EXPECT_EQ(a.columns(), b.columns());
  EXPECT_EQ(a.rows(), b.rows());
  EXPECT_EQ(a.listed(), b.listed());
  std::mt19937_64 engine(88);
  std::uniform_real_distribution<double> position(-25.0, 45.0);
  for (int i = 0; i < 500; ++i) {
    const double x = position(engine), z = position(engine);
    absl::Span<const std::int32_t> in_a, in_b;
    std::int32_t quarter_a = 0, quarter_b = 0;
    ASSERT_EQ(a.Find(x, z, &in_a, &quarter_a), b.Find(x, z, &in_b, &quarter_b));
    EXPECT_EQ(quarter_a, quarter_b);
    EXPECT_TRUE(std::equal(in_a.begin(), in_a.end(), in_b.begin(), in_b.end()));
  }
}

}  // namespace
}  // namespace ik
