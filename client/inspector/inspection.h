// A recording ready to inspect: its rigs built by the core once, and the
// JSON the page reads -- the recording's summary (files, rigs, terrains,
// one line per tick) and each tick's scene (character_scene.h), computed
// when asked for.
//
//   absl::StatusOr<Recording> recording = ReadRecording(path);
//   Inspection inspection(*std::move(recording));
//   std::string summary = inspection.RecordingJson();
//   absl::StatusOr<std::string> tick = inspection.TickJson(3);
//
// Immutable once built: safe to call from many threads (the HTTP server's).
#ifndef IK_CLIENT_INSPECTOR_INSPECTION_H_
#define IK_CLIENT_INSPECTOR_INSPECTION_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ik/v1/tick.pb.h"
#include "recording.h"
#include "rig_model.h"

namespace ik::inspector {

class Inspection {
 public:
  explicit Inspection(Recording recording);

  int tick_count() const { return static_cast<int>(recording_.ticks.size()); }
  // Rigs the core refused, one line each (their characters are listed
  // without poses).
  const std::vector<std::string>& rig_errors() const { return rig_errors_; }

  // Files, headers, rigs (rig_model.h) and terrains (triangles, world
  // space), and per tick: method, stream, sequence, status and its counts.
  std::string RecordingJson() const;
  // Tick `index` (from 0, in recorded order): its status, its ground planes
  // and terrains, and every character (character_scene.h). OUT_OF_RANGE
  // past the last tick.
  absl::StatusOr<std::string> TickJson(int index) const;
  // Character `id` across the ticks that have it, in order: per tick its
  // index, whether it failed (its status or a job's), broke the pose rules
  // or missed a goal, its goals' largest residual, whether a goal says
  // branch_switch or near_singularity, and the largest turn of a joint of
  // its corrected pose since the previous tick that had it (radians; -1
  // when either is not posed).
  std::string TrackJson(const std::string& id) const;

 private:
  const RigModel* FindModel(const v1::RecordedCall& call,
                            const v1::TickCharacter& character,
                            const v1::TickCharacterResult* result) const;

  Recording recording_;
  std::map<std::string, RigModel> models_;  // by revision
  std::vector<std::string> rig_errors_;
};

}  // namespace ik::inspector

#endif  // IK_CLIENT_INSPECTOR_INSPECTION_H_
