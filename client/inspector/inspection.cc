#include "inspection.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "character_pose.h"
#include "character_scene.h"
#include "json_writer.h"

namespace ik::inspector {
namespace {

void WriteWireVec3(const v1::Vec3& v, JsonWriter& json) {
  json.Xyz(v.x(), v.y(), v.z());
}

std::string CodeName(int code) {
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
}

void WriteHeader(const v1::RecordingHeader& header, JsonWriter& json) {
  json.BeginObject();
  json.Field("format", header.format());
  json.Field("ikd_version", header.ikd_version());
  json.Field("grpc_version", header.grpc_version());
  json.Field("protobuf_version", header.protobuf_version());
  json.Field("recording", header.recording());
  json.FieldInt("file_number", static_cast<int64_t>(header.file_number()));
  json.Key("methods");
  json.BeginArray();
  for (const std::string& method : header.methods()) json.String(method);
  json.EndArray();
  json.FieldNumber("sample", header.sample());
  json.EndObject();
}

// A terrain as triangles, world space: a mesh as stored, a heightfield as
// two triangles per cell (split as ground.proto says).
void WriteTerrain(const v1::RecordedTerrain& recorded, JsonWriter& json) {
  const v1::Terrain& terrain = recorded.terrain();
  json.BeginObject();
  json.Field("name", terrain.name());
  json.Key("vertices");
  json.BeginArray();
  const v1::Heightfield& field = terrain.heightfield();
  const int columns = field.columns();
  const int rows = field.rows();
  // The product in 64 bits: a recording is a file from anywhere, and its
  // counts need not match its heights (or fit an int when multiplied).
  const bool grid =
      terrain.has_heightfield() && columns >= 2 && rows >= 2 &&
      static_cast<int64_t>(field.heights_size()) ==
          static_cast<int64_t>(columns) * static_cast<int64_t>(rows);
  if (grid) {
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < columns; ++c) {
        json.Number(field.origin().x() + c * field.spacing_x());
        json.Number(field.origin().y() + field.heights(r * columns + c));
        json.Number(field.origin().z() + r * field.spacing_z());
      }
    }
  } else {
    for (const double v : terrain.mesh().vertices()) json.Number(v);
  }
  json.EndArray();
  json.Key("indices");
  json.BeginArray();
  if (grid) {
    for (int r = 0; r + 1 < rows; ++r) {
      for (int c = 0; c + 1 < columns; ++c) {
        const int a = r * columns + c;  // (c, r); its diagonal is a -> d
        const int b = a + 1;
        const int d = a + columns + 1;
        const int e = a + columns;
        for (const int i : {a, b, d, a, d, e}) json.Int(i);
      }
    }
  } else {
    for (const uint32_t i : terrain.mesh().indices()) json.Int(i);
  }
  json.EndArray();
  json.EndObject();
}

void WriteTickLine(const RecordedTick& tick, JsonWriter& json) {
  const v1::RecordedCall& call = tick.call;
  json.BeginObject();
  json.Field("method", call.method());
  json.FieldInt("stream", static_cast<int64_t>(call.stream()));
  json.FieldInt("stream_tick", static_cast<int64_t>(call.stream_tick()));
  json.FieldInt("sequence", static_cast<int64_t>(tick.sequence));
  json.FieldInt("code", call.code());
  json.Field("code_name", CodeName(call.code()));
  json.Field("message", call.message());
  json.FieldInt("unix_nanos", call.unix_nanos());
  json.FieldInt("queued_nanos", call.queued_nanos());
  json.FieldInt("ran_nanos", call.ran_nanos());
  json.FieldInt("characters", tick.characters);
  json.FieldInt("failed", tick.failed);
  json.FieldInt("violations", tick.violations);
  json.FieldInt("unreached", tick.unreached);
  json.FieldInt("unknown_baselines", tick.unknown_baselines);
  json.EndObject();
}

void WritePlane(const v1::Plane& plane, JsonWriter& json) {
  json.BeginObject();
  json.Key("point");
  WriteWireVec3(plane.point(), json);
  json.Key("normal");
  if (plane.has_normal()) {
    WriteWireVec3(plane.normal(), json);
  } else {
    json.Xyz(0.0, 1.0, 0.0);
  }
  if (plane.has_rectangle_xz()) {
    const v1::RectangleXZ& box = plane.rectangle_xz();
    json.Key("rectangle_xz");
    json.Xyzw(box.min_x(), box.max_x(), box.min_z(), box.max_z());
  }
  if (plane.has_radius()) json.FieldNumber("radius", plane.radius());
  json.EndObject();
}

// The planes of the tick's shared ground and of its characters' own.
void WritePlanes(const v1::TickRequest& request, JsonWriter& json) {
  json.Key("planes");
  json.BeginArray();
  for (const v1::Plane& plane : request.shared_ground().planes()) {
    WritePlane(plane, json);
  }
  for (const v1::TickCharacter& character : request.characters()) {
    for (const v1::Plane& plane : character.ground().ground().planes()) {
      WritePlane(plane, json);
    }
  }
  json.EndArray();
}

}  // namespace

Inspection::Inspection(Recording recording) : recording_(std::move(recording)) {
  for (const auto& [revision, recorded] : recording_.rigs) {
    absl::StatusOr<RigModel> model = BuildRigModel(recorded);
    if (model.ok()) {
      models_.emplace(revision, *std::move(model));
    } else {
      rig_errors_.push_back(std::string(model.status().message()));
    }
  }
}

std::string Inspection::RecordingJson() const {
  JsonWriter json;
  json.BeginObject();
  const auto strings = [&](absl::string_view key,
                           const std::vector<std::string>& lines) {
    json.Key(key);
    json.BeginArray();
    for (const std::string& line : lines) json.String(line);
    json.EndArray();
  };
  strings("files", recording_.files);
  json.Key("headers");
  json.BeginArray();
  for (const auto& header : recording_.headers) WriteHeader(header, json);
  json.EndArray();
  json.Key("rigs");
  json.BeginObject();
  for (const auto& [revision, model] : models_) {
    json.Key(revision);
    WriteRigJson(model, json);
  }
  json.EndObject();
  strings("rig_errors", rig_errors_);
  json.Key("terrains");
  json.BeginObject();
  for (const auto& [revision, terrain] : recording_.terrains) {
    json.Key(revision);
    WriteTerrain(terrain, json);
  }
  json.EndObject();
  json.Key("ticks");
  json.BeginArray();
  for (const RecordedTick& tick : recording_.ticks) WriteTickLine(tick, json);
  json.EndArray();
  json.FieldInt("other_calls", recording_.other_calls);
  json.FieldInt("dropped", static_cast<int64_t>(recording_.dropped));
  strings("warnings", recording_.warnings);
  json.EndObject();
  return json.Take();
}

const RigModel* Inspection::FindModel(
    const v1::RecordedCall& call, const v1::TickCharacter& character,
    const v1::TickCharacterResult* result) const {
  std::string revision = result != nullptr ? result->revision() : "";
  if (revision.empty()) revision = character.revision();
  for (const v1::RecordedRevision& used : call.rigs()) {
    if (revision.empty() && used.name() == character.rig()) {
      revision = used.revision();
    }
  }
  if (revision.empty()) {
    const v1::RecordedRig* only = FindRig(recording_, character.rig(), "");
    if (only != nullptr) revision = only->revision();
  }
  const auto found = models_.find(revision);
  return found == models_.end() ? nullptr : &found->second;
}

absl::StatusOr<std::string> Inspection::TickJson(int index) const {
  if (index < 0 || index >= tick_count()) {
    return absl::OutOfRangeError(
        absl::StrCat("tick ", index, " is not in [0, ", tick_count(), ")"));
  }
  const RecordedTick& tick = recording_.ticks[index];
  const v1::RecordedCall& call = tick.call;
  v1::TickRequest request;
  v1::TickResponse response;
  request.ParseFromString(call.request());
  response.ParseFromString(call.response());
  // A failed call, or a stream tick failed as a whole, answers no character:
  // each is shown with that status.
  v1::JobStatus call_status = response.status();
  if (call.code() != 0) {
    call_status.set_code(call.code());
    call_status.set_message(call.message());
  }
  JsonWriter json;
  json.BeginObject();
  json.FieldInt("index", index);
  json.Field("file", tick.file);
  json.FieldBool("job_rotations", request.job_rotations());
  json.Key("line");
  WriteTickLine(tick, json);
  json.FieldInt("tick_code", call_status.code());
  json.Field("tick_message", call_status.message());
  WritePlanes(request, json);
  json.Key("terrains");
  json.BeginArray();
  for (const v1::RecordedRevision& used : call.terrains()) {
    json.String(used.revision());
  }
  json.EndArray();
  json.Key("characters");
  json.BeginArray();
  for (int i = 0; i < request.characters_size(); ++i) {
    CharacterInput input;
    input.request = &request.characters(i);
    if (call_status.code() == 0 && i < response.characters_size()) {
      input.result = &response.characters(i);
    }
    input.call_status = call_status;
    input.rig = FindModel(call, request.characters(i), input.result);
    input.job_rotations = request.job_rotations();
    WriteCharacterJson(input, json);
  }
  json.EndArray();
  json.EndObject();
  return json.Take();
}

namespace {

// The angle, radians, of the turn from rotation `a` to `b` (unit).
double TurnBetween(const Quat& a, const Quat& b) {
  const Quat d = glm::conjugate(a) * b;
  return 2.0 * std::atan2(glm::length(Vec3(d.x, d.y, d.z)), std::abs(d.w));
}

// The largest turn of a joint between two poses' locals, radians; -1 when
// either is missing (not posed) or they differ in size.
double LargestTurn(const std::vector<Transform>& before,
                   const std::vector<Transform>& after) {
  if (before.empty() || before.size() != after.size()) return -1.0;
  double turn = 0.0;
  for (size_t j = 0; j < after.size(); ++j) {
    turn = std::max(turn, TurnBetween(before[j].rotation, after[j].rotation));
  }
  return turn;
}

// A track entry's flags: the answer `result` (null: none) failed, broke
// the pose rules, missed a goal; its goals' largest residual; whether a
// goal says branch_switch or near_singularity.
void WriteTrackFlags(const v1::TickCharacterResult* result, JsonWriter& json) {
  double residual = 0.0;
  bool unreached = false;
  bool branch_switch = false;
  bool near_singularity = false;
  if (result != nullptr) {
    for (const v1::GoalResult& goal : result->goals()) {
      residual = std::max(residual, goal.residual());
      unreached |= !goal.reached();
      branch_switch |= goal.branch_switch();
      near_singularity |= goal.near_singularity();
    }
  }
  json.FieldBool("failed", result == nullptr || CharacterFailed(*result));
  json.FieldBool("violation",
                 result != nullptr && result->check().violations_size() > 0);
  json.FieldBool("unreached", unreached);
  json.FieldNumber("residual", residual);
  json.FieldBool("branch_switch", branch_switch);
  json.FieldBool("near_singularity", near_singularity);
}

}  // namespace

std::string Inspection::TrackJson(const std::string& id) const {
  JsonWriter json;
  json.BeginObject();
  json.Field("id", id);
  json.Key("ticks");
  json.BeginArray();
  std::vector<Transform> previous;  // the last corrected locals, if posed
  for (int index = 0; index < tick_count(); ++index) {
    const v1::RecordedCall& call = recording_.ticks[index].call;
    v1::TickRequest request;
    v1::TickResponse response;
    request.ParseFromString(call.request());
    response.ParseFromString(call.response());
    int k = 0;
    while (k < request.characters_size() && request.characters(k).id() != id) {
      ++k;
    }
    if (k == request.characters_size()) continue;
    const bool answered = call.code() == 0 && response.status().code() == 0 &&
                          k < response.characters_size();
    const v1::TickCharacterResult* result =
        answered ? &response.characters(k) : nullptr;
    json.BeginObject();
    json.FieldInt("tick", index);
    WriteTrackFlags(result, json);
    const RigModel* model = FindModel(call, request.characters(k), result);
    std::vector<Transform> locals;
    if (model != nullptr && result != nullptr && result->status().code() == 0) {
      const PosedCharacter incoming =
          IncomingPose(request.characters(k), model->rig);
      locals =
          CorrectedPose(request.characters(k), *result, incoming, model->rig)
              .locals;
    }
    json.FieldNumber("turn", LargestTurn(previous, locals));
    previous = std::move(locals);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return json.Take();
}

}  // namespace ik::inspector
