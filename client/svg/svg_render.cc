#include "svg_render.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "glm/gtc/quaternion.hpp"
#include "glm/vec3.hpp"

namespace ik {
namespace {

constexpr double kPanel = 360.0;       // px, each view's drawing area
constexpr double kMargin = 40.0;       // px around it
constexpr double kNormalLength = 0.1;  // m, drawn length of a contact normal

// XML text and attribute values: the five characters that must be escaped.
std::string Escaped(absl::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Model(const Point3& p) {
  return absl::StrFormat("%.9f %.9f %.9f", p[0], p[1], p[2]);
}

// One view: which model axis is horizontal (0: x, front; 2: z, side), its
// minimum, and where the panel starts.
struct View {
  const char* name;
  int axis;
  double min_h;
  double x0;
};

struct Projection {
  double scale;
  double min_y;
  double y0;
  double Sx(const View& view, const Point3& p) const {
    return view.x0 + scale * (p[view.axis] - view.min_h);
  }
  double Sy(const Point3& p) const { return y0 - scale * (p[1] - min_y); }
};

// The longest of 1, 2 and 5 times a power of ten (1 cm to 5 km) that fits
// `most` metres.
double ScaleBarLength(double most) {
  double best = 0.01;
  for (int exponent = -2; exponent <= 3; ++exponent) {
    for (double mantissa : {1.0, 2.0, 5.0}) {
      const double length = mantissa * std::pow(10.0, exponent);
      if (length <= most) best = length;
    }
  }
  return best;
}

// The box around everything drawn (all zeros for an empty scene).
struct Bounds {
  Point3 low{0, 0, 0};
  Point3 high{0, 0, 0};
};
Bounds SceneBounds(const SvgScene& scene) {
  std::vector<Point3> points;
  for (const SvgJoint& joint : scene.joints) points.push_back(joint.position);
  for (const SvgTarget& target : scene.targets)
    points.push_back(target.position);
  for (const SvgContact& contact : scene.contacts) {
    points.push_back(contact.point);
    points.push_back({contact.point[0] + kNormalLength * contact.normal[0],
                      contact.point[1] + kNormalLength * contact.normal[1],
                      contact.point[2] + kNormalLength * contact.normal[2]});
  }
  for (const SvgTrail& trail : scene.trails) {
    points.insert(points.end(), trail.points.begin(), trail.points.end());
  }
  Bounds bounds;
  if (!points.empty()) {
    bounds.low = bounds.high = points.front();
    for (const Point3& p : points) {
      for (int i = 0; i < 3; ++i) {
        bounds.low[i] = std::min(bounds.low[i], p[i]);
        bounds.high[i] = std::max(bounds.high[i], p[i]);
      }
    }
  }
  return bounds;
}

// Bones, then joints over them, in one view.
void AppendSkeleton(const SvgScene& scene, const View& view,
                    const Projection& projection, std::string& svg) {
  auto sx = [&](const Point3& p) { return projection.Sx(view, p); };
  auto sy = [&](const Point3& p) { return projection.Sy(p); };
  for (const SvgJoint& joint : scene.joints) {
    if (joint.parent < 0) continue;
    const Point3& from = scene.joints[joint.parent].position;
    absl::StrAppendFormat(
        &svg,
        "<line class=\"bone\" data-joint=\"%s\" x1=\"%.9f\" y1=\"%.9f\" "
        "x2=\"%.9f\" y2=\"%.9f\" stroke=\"#345\" stroke-width=\"2\"/>\n",
        Escaped(joint.name), sx(from), sy(from), sx(joint.position),
        sy(joint.position));
  }
  for (const SvgJoint& joint : scene.joints) {
    absl::StrAppendFormat(
        &svg,
        "<circle class=\"joint\" data-joint=\"%s\" data-model=\"%s\" "
        "cx=\"%.9f\" cy=\"%.9f\" r=\"3\" fill=\"#c33\"><title>%s</title>"
        "</circle>\n",
        Escaped(joint.name), Model(joint.position), sx(joint.position),
        sy(joint.position), Escaped(joint.name));
  }
}

// Each target in one view: a green ring where reached, else a red cross.
void AppendTargets(const SvgScene& scene, const View& view,
                   const Projection& projection, std::string& svg) {
  for (const SvgTarget& target : scene.targets) {
    const double x = projection.Sx(view, target.position);
    const double y = projection.Sy(target.position);
    if (target.reached) {
      absl::StrAppendFormat(
          &svg,
          "<circle class=\"target reached\" data-chain=\"%s\" "
          "data-model=\"%s\" cx=\"%.9f\" cy=\"%.9f\" r=\"7\" fill=\"none\" "
          "stroke=\"#2a2\" stroke-width=\"2\"><title>%s: reached</title>"
          "</circle>\n",
          Escaped(target.chain), Model(target.position), x, y,
          Escaped(target.chain));
    } else {
      absl::StrAppendFormat(
          &svg,
          "<path class=\"target unreached\" data-chain=\"%s\" "
          "data-model=\"%s\" d=\"M %.9f %.9f L %.9f %.9f M %.9f %.9f L %.9f "
          "%.9f\" stroke=\"#d22\" stroke-width=\"2\"><title>%s: not "
          "reached</title></path>\n",
          Escaped(target.chain), Model(target.position), x - 6, y - 6, x + 6,
          y + 6, x - 6, y + 6, x + 6, y - 6, Escaped(target.chain));
    }
  }
}

// Each ground contact in one view: its point and its normal.
void AppendContacts(const SvgScene& scene, const View& view,
                    const Projection& projection, std::string& svg) {
  auto sx = [&](const Point3& p) { return projection.Sx(view, p); };
  auto sy = [&](const Point3& p) { return projection.Sy(p); };
  for (const SvgContact& contact : scene.contacts) {
    const Point3 tip{contact.point[0] + kNormalLength * contact.normal[0],
                     contact.point[1] + kNormalLength * contact.normal[1],
                     contact.point[2] + kNormalLength * contact.normal[2]};
    absl::StrAppendFormat(
        &svg,
        "<circle class=\"contact\" data-leg=\"%s\" data-model=\"%s\" "
        "cx=\"%.9f\" cy=\"%.9f\" r=\"4\" fill=\"#27c\"/>\n"
        "<line class=\"normal\" data-leg=\"%s\" x1=\"%.9f\" y1=\"%.9f\" "
        "x2=\"%.9f\" y2=\"%.9f\" stroke=\"#27c\" stroke-width=\"1.5\"/>\n",
        Escaped(contact.leg), Model(contact.point), sx(contact.point),
        sy(contact.point), Escaped(contact.leg), sx(contact.point),
        sy(contact.point), sx(tip), sy(tip));
  }
}

// Each trail in one view, as a polyline.
void AppendTrails(const SvgScene& scene, const View& view,
                  const Projection& projection, std::string& svg) {
  for (const SvgTrail& trail : scene.trails) {
    std::vector<std::string> screen;
    for (const Point3& p : trail.points) {
      screen.push_back(absl::StrFormat("%.9f,%.9f", projection.Sx(view, p),
                                       projection.Sy(p)));
    }
    absl::StrAppendFormat(
        &svg,
        "<polyline class=\"trail\" data-chain=\"%s\" points=\"%s\" "
        "fill=\"none\" stroke=\"#a5c\" stroke-width=\"1.2\"/>\n",
        Escaped(trail.chain), absl::StrJoin(screen, " "));
  }
}

// The scale bar, under the front view, and the picture's end.
void AppendScaleBar(double range, const Projection& projection,
                    std::string& svg) {
  const double bar = ScaleBarLength(range / 3.0);
  const double bar_y = projection.y0 + 20.0;
  absl::StrAppendFormat(
      &svg,
      "<g class=\"scale-bar\" data-metres=\"%g\">\n"
      "<line x1=\"%.3f\" y1=\"%.3f\" x2=\"%.3f\" y2=\"%.3f\" stroke=\"black\" "
      "stroke-width=\"2\"/>\n"
      "<text x=\"%.3f\" y=\"%.3f\">%g m</text>\n</g>\n</svg>\n",
      bar, kMargin, bar_y, kMargin + projection.scale * bar, bar_y,
      kMargin + projection.scale * bar + 6.0, bar_y + 4.0, bar);
}

}  // namespace

absl::StatusOr<std::vector<SvgJoint>> PoseJoints(
    const v1::Rig& rig,
    const std::vector<std::pair<std::string, v1::Quat>>& locals,
    const Point3& root) {
  std::map<std::string, glm::dquat> turned;
  for (const auto& [name, q] : locals) {
    turned[name] = glm::normalize(glm::dquat(q.w(), q.x(), q.y(), q.z()));
  }
  std::map<std::string, int> index;
  std::vector<SvgJoint> joints;
  std::vector<glm::dquat> rotation_model;
  for (const v1::Joint& joint : rig.joints()) {
    const v1::Transform& rest = joint.rest();
    glm::dquat rotation(rest.rotation().w(), rest.rotation().x(),
                        rest.rotation().y(), rest.rotation().z());
    if (rest.has_rotation())
      rotation = glm::normalize(rotation);
    else
      rotation = glm::dquat(1, 0, 0, 0);
    if (auto it = turned.find(joint.name()); it != turned.end()) {
      rotation = it->second;
    }
    const glm::dvec3 translation(rest.translation().x(), rest.translation().y(),
                                 rest.translation().z());
    SvgJoint out;
    out.name = joint.name();
    int parent = -1;
    if (joint.has_parent_index()) {
      parent = joint.parent_index();
    } else if (!joint.parent().empty()) {
      auto it = index.find(joint.parent());
      parent = it == index.end() ? -2 : it->second;
    }
    if (parent < -1 || parent >= static_cast<int>(joints.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "joint '", joint.name(), "': its parent is not an earlier joint"));
    }
    out.parent = parent;
    glm::dvec3 position;
    if (parent == -1) {
      position = glm::dvec3(root[0], root[1], root[2]) + translation;
      rotation_model.push_back(rotation);
    } else {
      const glm::dvec3 parent_position(joints[parent].position[0],
                                       joints[parent].position[1],
                                       joints[parent].position[2]);
      position = parent_position + rotation_model[parent] * translation;
      rotation_model.push_back(rotation_model[parent] * rotation);
    }
    out.position = {position.x, position.y, position.z};
    index[joint.name()] = static_cast<int>(joints.size());
    joints.push_back(std::move(out));
  }
  return joints;
}

std::string RenderSvg(const SvgScene& scene) {
  const Bounds bounds = SceneBounds(scene);
  const Point3& low = bounds.low;
  const Point3& high = bounds.high;
  const double range =
      std::max({high[0] - low[0], high[1] - low[1], high[2] - low[2], 0.1});
  Projection projection;
  projection.scale = kPanel / range;
  projection.min_y = low[1];
  projection.y0 = kMargin + 30.0 + projection.scale * (high[1] - low[1]);
  const View views[] = {
      {"front", 0, low[0], kMargin},
      {"side", 2, low[2], 2 * kMargin + kPanel},
  };
  const double width = 3 * kMargin + 2 * kPanel;
  const double height = projection.y0 + kMargin + 30.0;

  std::string svg = absl::StrFormat(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
      "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" data-scale=\"%.12g\" "
      "data-min-y=\"%.12g\" data-y0=\"%.12g\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%.0f\" y=\"24\" font-size=\"15\">%s</text>\n",
      width, height, width, height, projection.scale, projection.min_y,
      projection.y0, kMargin, Escaped(scene.title));
  for (const View& view : views) {
    absl::StrAppendFormat(
        &svg,
        "<g class=\"view\" id=\"%s\" data-axis=\"%s\" data-min-h=\"%.12g\" "
        "data-x0=\"%.12g\">\n"
        "<text x=\"%.3f\" y=\"%.3f\" fill=\"#555\">%s (%s)</text>\n",
        view.name, view.axis == 0 ? "x" : "z", view.min_h, view.x0, view.x0,
        kMargin + 12.0, view.name,
        view.axis == 0 ? "+X right, +Y up" : "+Z forward right, +Y up");
    AppendSkeleton(scene, view, projection, svg);
    AppendTargets(scene, view, projection, svg);
    AppendContacts(scene, view, projection, svg);
    AppendTrails(scene, view, projection, svg);
    svg += "</g>\n";
  }
  AppendScaleBar(range, projection, svg);
  return svg;
}

}  // namespace ik
