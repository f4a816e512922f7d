// The SVG renderer (client/svg): PoseJoints against forward kinematics
// written here by hand on seeded planar chains, its errors, and RenderSvg's
// picture read back: every joint dot sits where the picture's own projection
// (data-scale, data-min-y, data-y0; per view data-axis, data-min-h, data-x0)
// puts the joint, bones join each joint to its parent, and targets,
// contacts and trails are drawn as documented in svg_render.h.
#include "svg_render.h"

#include <cmath>
#include <map>
#include <random>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace ik {
namespace {

// A quaternion turning by `angle` about +Z, as the wire names its parts.
v1::Quat AboutZ(double angle) {
  v1::Quat q;
  q.set_z(std::sin(angle / 2));
  q.set_w(std::cos(angle / 2));
  return q;
}

// A chain of `lengths.size()` bones along each parent's +Y, by parent name.
v1::Rig Chain(const std::vector<double>& lengths) {
  v1::Rig rig;
  rig.set_name("chain");
  for (size_t i = 0; i <= lengths.size(); ++i) {
    v1::Joint* joint = rig.add_joints();
    joint->set_name("j" + std::to_string(i));
    if (i > 0) {
      joint->set_parent("j" + std::to_string(i - 1));
      joint->mutable_rest()->mutable_translation()->set_y(lengths[i - 1]);
    }
  }
  return rig;
}

TEST(PoseJointsTest, PlanarChainsLandWhereAnglesSumSays) {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> length(0.05, 0.6);
  std::uniform_real_distribution<double> angle(-3.0, 3.0);
  for (int trial = 0; trial < 200; ++trial) {
    const int bones = 1 + trial % 5;
    std::vector<double> lengths(bones);
    for (double& l : lengths) l = length(random);
    const v1::Rig rig = Chain(lengths);
    std::vector<std::pair<std::string, v1::Quat>> locals;
    std::vector<double> turns(bones + 1);
    for (int i = 0; i <= bones; ++i) {
      turns[i] = angle(random);
      locals.emplace_back("j" + std::to_string(i), AboutZ(turns[i]));
    }
    const Point3 root = {angle(random), angle(random), angle(random)};
    auto joints = PoseJoints(rig, locals, root);
    ASSERT_TRUE(joints.ok()) << joints.status();
    ASSERT_EQ(joints->size(), static_cast<size_t>(bones + 1));
    // In the XY plane: each bone points along the summed turns of the joints
    // before it, rotated from +Y.
    double x = root[0], y = root[1], heading = 0;
    for (int i = 0; i <= bones; ++i) {
      if (i > 0) {
        x += -std::sin(heading) * lengths[i - 1];
        y += std::cos(heading) * lengths[i - 1];
      }
      heading += turns[i];
      const SvgJoint& joint = (*joints)[i];
      EXPECT_EQ(joint.name, "j" + std::to_string(i));
      EXPECT_EQ(joint.parent, i - 1);
      EXPECT_NEAR(joint.position[0], x, 1e-12) << trial << " joint " << i;
      EXPECT_NEAR(joint.position[1], y, 1e-12) << trial << " joint " << i;
      EXPECT_NEAR(joint.position[2], root[2], 1e-12);
    }
  }
}

TEST(PoseJointsTest, RefusesAParentThatIsNotAnEarlierJoint) {
  v1::Rig rig = Chain({0.3, 0.3});
  rig.mutable_joints(1)->set_parent("j2");
  auto joints = PoseJoints(rig, {}, {0, 0, 0});
  EXPECT_EQ(joints.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(joints.status().message().find("'j1'"), std::string::npos)
      << joints.status();

  rig = Chain({0.3});
  rig.mutable_joints(1)->set_parent_index(5);
  EXPECT_EQ(PoseJoints(rig, {}, {0, 0, 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// The number in attribute `name` of `element` (an element's text up to its
// closing '>').
double Attribute(const std::string& element, const std::string& name) {
  std::smatch match;
  const std::regex pattern(" " + name + "=\"([^\"]+)\"");
  if (!std::regex_search(element, match, pattern)) {
    ADD_FAILURE() << "no " << name << " in " << element;
    return NAN;
  }
  return std::stod(match[1]);
}

// Every element of `svg` whose text starts with `start`, up to its '>'.
std::vector<std::string> Elements(const std::string& svg,
                                  const std::string& start) {
  std::vector<std::string> out;
  for (size_t at = svg.find(start); at != std::string::npos;
       at = svg.find(start, at + 1)) {
    out.push_back(svg.substr(at, svg.find('>', at) - at));
  }
  return out;
}

TEST(RenderSvgTest, DotsSitOnThePicturesOwnProjection) {
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> coordinate(-1.0, 2.0);
  SvgScene scene;
  scene.title = "seeded";
  for (int i = 0; i < 12; ++i) {
    scene.joints.push_back(
        {"joint" + std::to_string(i),
         i - 1,
         {coordinate(random), coordinate(random), coordinate(random)}});
  }
  const std::string svg = RenderSvg(scene);
  ASSERT_EQ(svg.rfind("<?xml", 0), 0u) << svg.substr(0, 80);
  ASSERT_EQ(Elements(svg, "<svg").size(), 1u);
  const std::string root = Elements(svg, "<svg")[0];
  const double scale = Attribute(root, "data-scale");
  const double min_y = Attribute(root, "data-min-y");
  const double y0 = Attribute(root, "data-y0");
  EXPECT_GT(scale, 0);

  const std::vector<std::string> views = Elements(svg, "<g class=\"view\"");
  ASSERT_EQ(views.size(), 2u);
  std::map<std::string, int> axis_index = {{"x", 0}, {"z", 2}};
  size_t view_start = 0;
  for (const std::string& view : views) {
    std::smatch axis;
    ASSERT_TRUE(
        std::regex_search(view, axis, std::regex("data-axis=\"([xz])\"")));
    const int h = axis_index[axis[1]];
    const double min_h = Attribute(view, "data-min-h");
    const double x0 = Attribute(view, "data-x0");
    view_start = svg.find(view, view_start);
    const std::string body =
        svg.substr(view_start, svg.find("</g>", view_start) - view_start);
    const std::vector<std::string> dots =
        Elements(body, "<circle class=\"joint\"");
    ASSERT_EQ(dots.size(), scene.joints.size());
    for (size_t i = 0; i < dots.size(); ++i) {
      const Point3& p = scene.joints[i].position;
      EXPECT_NEAR(Attribute(dots[i], "cx"), x0 + scale * (p[h] - min_h), 1e-6);
      EXPECT_NEAR(Attribute(dots[i], "cy"), y0 - scale * (p[1] - min_y), 1e-6);
    }
    // A bone per joint with a parent, from the parent's dot to the joint's.
    const std::vector<std::string> bones =
        Elements(body, "<line class=\"bone\"");
    ASSERT_EQ(bones.size(), scene.joints.size() - 1);
    for (size_t b = 0; b < bones.size(); ++b) {
      const Point3& from = scene.joints[b].position;
      const Point3& to = scene.joints[b + 1].position;
      EXPECT_NEAR(Attribute(bones[b], "x1"), x0 + scale * (from[h] - min_h),
                  1e-6);
      EXPECT_NEAR(Attribute(bones[b], "x2"), x0 + scale * (to[h] - min_h),
                  1e-6);
    }
  }
}

TEST(RenderSvgTest, DrawsTargetsContactsAndTrailsInBothViews) {
  SvgScene scene;
  scene.joints = {{"hip", -1, {0, 1, 0}}, {"knee", 0, {0, 0.5, 0.1}}};
  scene.targets = {{"left_arm", {0.4, 1.2, 0.2}, true},
                   {"right_arm", {2.0, 1.2, 0.2}, false}};
  scene.contacts = {{"left_leg", {0.1, 0, 0}, {0, 1, 0}}};
  scene.trails = {{"tail", {{0, 1, -0.2}, {0, 0.9, -0.3}, {0, 0.8, -0.35}}}};
  const std::string svg = RenderSvg(scene);
  EXPECT_EQ(Elements(svg, "<circle class=\"target reached\"").size(), 2u);
  EXPECT_EQ(Elements(svg, "<path class=\"target unreached\"").size(), 2u);
  EXPECT_EQ(Elements(svg, "<circle class=\"contact\"").size(), 2u);
  EXPECT_EQ(Elements(svg, "<line class=\"normal\"").size(), 2u);
  const std::vector<std::string> trails =
      Elements(svg, "<polyline class=\"trail\"");
  ASSERT_EQ(trails.size(), 2u);
  std::smatch points;
  ASSERT_TRUE(
      std::regex_search(trails[0], points, std::regex("points=\"([^\"]+)\"")));
  // One "x,y" pair per step of the trail.
  const std::string list = points[1];
  EXPECT_EQ(std::count(list.begin(), list.end(), ','), 3) << list;
  EXPECT_EQ(Elements(svg, "<g class=\"scale-bar\"").size(), 1u);
}

}  // namespace
}  // namespace ik
