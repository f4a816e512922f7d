// An ikd recording (ik/v1/recording.proto) read into memory for the
// inspector: the files' headers, every rig and terrain they store, and the
// Tick, TickStream and single solving calls in the order they were written
// (a single call as the one-character tick that does its job).
//
// TickStream characters sent on a baseline (TickCharacter.baseline: only
// the joints that changed since the stream's previous tick) are completed
// as the server completes them: the rig, revision, rotations and
// translations the character's previous tick on the same stream sent fill
// in what it left out, so every recorded request reads as a complete tick.
// A character whose baseline the recording does not hold (its earlier tick
// was dropped, or filtered out) keeps baseline != 0: what it did not send is
// unknown.
//
//   absl::StatusOr<Recording> recording = ReadRecording("rec/");
//   if (!recording.ok()) return recording.status();
//   for (const RecordedTick& tick : recording->ticks) ...
#ifndef IK_CLIENT_INSPECTOR_RECORDING_H_
#define IK_CLIENT_INSPECTOR_RECORDING_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ik/v1/recording.pb.h"
#include "ik/v1/tick.pb.h"

namespace ik::inspector {

// One recorded Tick or TickStream call, or a single call (SolveChain,
// GroundFeet, StepDynamics) read as a one-character tick (single_call.h).
// Whether a tick character's answer says it failed: its status or a job's
// not OK.
bool CharacterFailed(const v1::TickCharacterResult& result);

struct RecordedTick {
  // As recorded, except that `call.request` holds the completed request
  // (baselines filled in, see above).
  v1::RecordedCall call;
  // The file it came from, and the request's sequence.
  std::string file;
  uint64_t sequence = 0;
  // Counts over its characters, for the timeline: all of them; those that
  // failed or had a job fail; those whose claimed pose broke the rules; those
  // with a goal not reached; those sent on a baseline the recording lacks.
  int characters = 0;
  int failed = 0;
  int violations = 0;
  int unreached = 0;
  int unknown_baselines = 0;
};

struct Recording {
  // The files read, in the order read (a directory's *.ikrec by name).
  std::vector<std::string> files;
  std::vector<v1::RecordingHeader> headers;
  // Every rig and terrain stored, by revision.
  std::map<std::string, v1::RecordedRig> rigs;
  std::map<std::string, v1::RecordedTerrain> terrains;
  std::vector<RecordedTick> ticks;
  // Calls the inspector does not show (a method it does not know), and
  // records the server dropped (RecordingGap).
  int other_calls = 0;
  uint64_t dropped = 0;
  // What was skipped while reading, one line each (a truncated last entry).
  std::vector<std::string> warnings;
};

// Reads `path`: one recording file, or every *.ikrec file of a directory in
// name order. NOT_FOUND when the path or a file cannot be opened, or a
// directory holds no .ikrec file; INVALID_ARGUMENT "<file>: not an ikd
// recording (...)" when a file does not start with a recording header.
absl::StatusOr<Recording> ReadRecording(const std::string& path);

// The rig `name` at `revision` as stored, or nullptr. An empty revision
// takes the only revision stored under that name, if there is one.
const v1::RecordedRig* FindRig(const Recording& recording,
                               const std::string& name,
                               const std::string& revision);

}  // namespace ik::inspector

#endif  // IK_CLIENT_INSPECTOR_RECORDING_H_
