// Pictures of a rig and of answers: `ikctl render` writes SVG.
//
// Two orthographic views side by side, at one scale: front (looking at the
// character's face, which looks along +Z: screen right is +X, up is +Y) and
// side (screen right is +Z, forward; up is +Y). Bones are lines from each
// joint to its parent, joints dots; chain targets are marked reached
// (a ring) or not (a cross), ground contacts dots with their normals,
// dynamic chains' tips trails; a scale bar gives metres.
//
// Every drawn point carries its model-space source in `data-` attributes
// and the picture its projection (`data-scale`, `data-x0`, `data-y0`, per
// view `data-axis`), so a reader can check each dot against forward
// kinematics: screen = (x0 + scale * (horizontal - min_h), y0 - scale *
// (y - min_y)).
//
//   SvgScene scene;
//   scene.joints = ...;   // model-space positions from forward kinematics
//   std::string svg = RenderSvg(scene);
#ifndef IK_CLIENT_SVG_SVG_RENDER_H_
#define IK_CLIENT_SVG_SVG_RENDER_H_

#include <array>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ik/v1/ik.pb.h"

namespace ik {

using Point3 = std::array<double, 3>;

struct SvgJoint {
  std::string name;
  int parent = -1;  // index into SvgScene::joints
  Point3 position;  // model space, metres
};

struct SvgTarget {
  std::string chain;
  Point3 position;
  bool reached = false;
};

struct SvgContact {
  std::string leg;
  Point3 point;
  Point3 normal;  // unit
};

struct SvgTrail {
  std::string chain;
  std::vector<Point3> points;  // the tip, step by step
};

struct SvgScene {
  std::string title;
  std::vector<SvgJoint> joints;
  std::vector<SvgTarget> targets;
  std::vector<SvgContact> contacts;
  std::vector<SvgTrail> trails;
};

// The joints of `rig` posed by `locals` (local rotations by joint name,
// over the rest pose; translations from the rest pose) under `root`
// (model-space offset of the root joints), by forward kinematics.
// INVALID_ARGUMENT when a joint's parent is unknown or comes later.
absl::StatusOr<std::vector<SvgJoint>> PoseJoints(
    const v1::Rig& rig,
    const std::vector<std::pair<std::string, v1::Quat>>& locals,
    const Point3& root);

std::string RenderSvg(const SvgScene& scene);

}  // namespace ik

#endif  // IK_CLIENT_SVG_SVG_RENDER_H_
