// ikctl terrain and ikctl ground: register, list and delete terrains, and
// put a rig's feet on planes and terrains (GroundFeet) from the command
// line.
#include <cmath>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "ikctl_util.h"

ABSL_FLAG(std::string, terrain, "",
          "ground: registered terrain name(s) to stand on, comma-separated");
ABSL_FLAG(std::string, weights, "",
          "ground: planted weight per leg in [0, 1], comma-separated, rig "
          "order (default: 1 for every leg)");
ABSL_FLAG(std::string, pose, "",
          "ground: the animated pose, a JSON file of ik.v1.Pose (default: the "
          "rest pose)");
ABSL_DECLARE_FLAG(std::string, root);
ABSL_DECLARE_FLAG(double, tolerance);

namespace ik::ctl {
namespace {

// `value` for a 3-decimal column: components that round to zero print as
// 0.000, whatever their sign (a unit normal's rounding-level -1e-17).
double Rounded3(double value) { return std::abs(value) < 0.0005 ? 0.0 : value; }

// "PX,PY,PZ,NX,NY,NZ" -> a plane through P with normal N.
bool ParsePlane(const std::string& text, ik::v1::Plane* out) {
  double v[6];
  if (!ParseNumbers(text, absl::MakeSpan(v))) return false;
  out->mutable_point()->set_x(v[0]);
  out->mutable_point()->set_y(v[1]);
  out->mutable_point()->set_z(v[2]);
  out->mutable_normal()->set_x(v[3]);
  out->mutable_normal()->set_y(v[4]);
  out->mutable_normal()->set_z(v[5]);
  return true;
}

const char* YesNo(bool value) { return value ? "yes" : "no"; }

void PrintGround(const ik::v1::GroundFeetResponse& answer) {
  absl::PrintF("pelvis drop %.6f m (target %.6f%s), root offset %s\n",
               answer.pelvis_drop(), answer.pelvis_drop_target(),
               answer.pelvis_drop_clamped() ? ", clamped" : "",
               FormatVec3(answer.root_offset()));
  absl::PrintF("%-12s %-8s %-7s %-36s %-28s %-8s %s\n", "LEG", "GROUNDED",
               "REACHED", "CONTACT POINT (world, m)", "CONTACT NORMAL", "MOVED",
               "TILT");
  for (const ik::v1::FootResult& foot : answer.feet()) {
    absl::PrintF(
        "%-12s %-8s %-7s %-36s %-28s %-8.4f %.4f%s\n", foot.leg(),
        YesNo(foot.grounded()), YesNo(foot.reached()),
        foot.ground_found() ? FormatVec3(foot.contact_point()) : "(no ground)",
        foot.ground_found()
            ? absl::StrFormat("(%.3f, %.3f, %.3f)",
                              Rounded3(foot.contact_normal().x()),
                              Rounded3(foot.contact_normal().y()),
                              Rounded3(foot.contact_normal().z()))
            : "",
        foot.moved(), foot.tilt(), foot.tilt_clamped() ? " (clamped)" : "");
  }
}

}  // namespace

std::vector<char*> TakeRepeatedFlag(int argc, char** argv,
                                    absl::string_view name,
                                    std::vector<std::string>& values) {
  const std::string with_value = absl::StrCat("--", name, "=");
  const std::string alone = absl::StrCat("--", name);
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--") {  // everything after is positional
      rest.insert(rest.end(), argv + i, argv + argc);
      break;
    }
    if (absl::StartsWith(arg, with_value)) {
      values.emplace_back(arg.substr(with_value.size()));
    } else if (arg == alone && i + 1 < argc) {
      values.emplace_back(argv[++i]);
    } else {
      rest.push_back(argv[i]);
    }
  }
  return rest;
}

int TerrainCommand(ik::Client& client, const std::vector<std::string>& args,
                   bool replace) {
  const std::string verb = args.empty() ? "" : args[0];
  if (verb == "register" && args.size() == 2) {
    absl::StatusOr<ik::v1::Terrain> terrain = ik::ReadTerrainFile(args[1]);
    if (!terrain.ok()) return Failed(terrain.status());
    return PrintRegistered(client.RegisterTerrain(*terrain, replace));
  }
  if (verb == "list" && args.size() == 1) {
    auto answer = client.ListTerrains();
    if (!answer.ok()) return Failed(answer.status());
    return Print(*answer, [](const ik::v1::ListTerrainsResponse& r) {
      absl::PrintF("%-24s %-24s %-11s %9s  %s\n", "NAME", "REVISION", "KIND",
                   "TRIANGLES", "BOUNDS (world, m)");
      for (const ik::v1::TerrainSummary& t : r.terrains()) {
        absl::PrintF(
            "%-24s %-24s %-11s %9d  %s .. %s\n", t.name(), t.revision(),
            t.kind() == ik::v1::TERRAIN_KIND_MESH ? "mesh" : "heightfield",
            t.triangle_count(), FormatVec3(t.bounds_min()),
            FormatVec3(t.bounds_max()));
      }
    });
  }
  if (verb == "delete" && args.size() == 2) {
    return PrintDeleted(
        client.DeleteTerrain(args[1], absl::GetFlag(FLAGS_revision)), args[1]);
  }
  return Usage("terrain: expected register FILE | list | delete NAME");
}

absl::StatusOr<ik::v1::GroundFeetRequest> GroundRequestFromFlags(
    const std::vector<std::string>& planes) {
  ik::v1::GroundFeetRequest request;
  request.set_rig(absl::GetFlag(FLAGS_rig));
  request.set_revision(absl::GetFlag(FLAGS_revision));
  if (request.rig().empty()) {
    return absl::InvalidArgumentError("--rig is required");
  }
  for (const std::string& plane : planes) {
    if (!ParsePlane(plane, request.mutable_ground()->add_planes())) {
      return absl::InvalidArgumentError(
          "--plane must be PX,PY,PZ,NX,NY,NZ, got '" + plane + "'");
    }
  }
  for (absl::string_view name :
       absl::StrSplit(absl::GetFlag(FLAGS_terrain), ',', absl::SkipEmpty())) {
    request.mutable_ground()->add_terrains(std::string(name));
  }
  if (request.ground().planes_size() + request.ground().terrains_size() == 0) {
    return absl::InvalidArgumentError("give --plane or --terrain (or both)");
  }
  if (const std::string pose = absl::GetFlag(FLAGS_pose); !pose.empty()) {
    if (absl::Status status = ik::ReadJsonFile(pose, request.mutable_pose());
        !status.ok()) {
      return status;
    }
  }
  if (const std::string root = absl::GetFlag(FLAGS_root); !root.empty()) {
    ik::v1::Vec3* translation =
        request.mutable_pose()->mutable_root()->mutable_translation();
    if (!ParseVec3(root, translation)) {
      return absl::InvalidArgumentError("--root must be X,Y,Z");
    }
  }
  for (absl::string_view text :
       absl::StrSplit(absl::GetFlag(FLAGS_weights), ',', absl::SkipEmpty())) {
    double weight = 0.0;
    if (!absl::SimpleAtod(text, &weight)) {
      return absl::InvalidArgumentError(
          "--weights must be numbers, e.g. 1,0.5");
    }
    request.add_weights(weight);
  }
  if (absl::GetFlag(FLAGS_tolerance) > 0.0) {
    request.set_tolerance(absl::GetFlag(FLAGS_tolerance));
  }
  return request;
}

int GroundCommand(ik::Client& client, const std::vector<std::string>& args,
                  const std::vector<std::string>& planes) {
  if (!args.empty()) return Usage("ground: takes flags only");
  absl::StatusOr<ik::v1::GroundFeetRequest> request =
      GroundRequestFromFlags(planes);
  if (!request.ok()) {
    if (request.status().code() == absl::StatusCode::kInvalidArgument) {
      return Usage(absl::StrCat("ground: ", request.status().message()));
    }
    return Failed(request.status());
  }
  absl::StatusOr<ik::v1::GroundFeetResponse> answer =
      client.GroundFeet(*request);
  if (!answer.ok()) return Failed(answer.status());
  return Print(*answer, PrintGround);
}

}  // namespace ik::ctl
