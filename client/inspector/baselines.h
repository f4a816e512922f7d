// What a TickStream keeps of each character between ticks, rebuilt from a
// recording, so that characters sent on a baseline (ik/v1/tick.proto,
// TickCharacter.baseline) can be shown with their whole pose: the rig and
// revision, the rotations of the joints not sent and the translations come
// from the character's last complete pose on the same stream.
//
//   StreamBaselines baselines;
//   for each TickStream call, in recorded order:
//     int unknown = baselines.Complete(call.stream(), request);
//     baselines.Absorb(call.stream(), request, response);
//
// Rotations are kept in the encoding they were sent in (float32 or 48-bit),
// byte for byte, so a completed pose is the one the server read. Not
// thread-safe.
#ifndef IK_CLIENT_INSPECTOR_BASELINES_H_
#define IK_CLIENT_INSPECTOR_BASELINES_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "ik/v1/tick.pb.h"

namespace ik::inspector {

class StreamBaselines {
 public:
  // Completes every character of `request` (a tick of stream `stream`) that
  // has a baseline: fills in its rig and revision when left out, replaces
  // its compact pose by the complete one (rotations of every joint sent so
  // far, translations) and sets baseline to 0. Characters whose baseline is
  // not known are left as they are; returns how many.
  int Complete(uint64_t stream, v1::TickRequest& request);

  // Takes a completed tick and its answer: each character answered without
  // a character-level error and sent in the compact form becomes the
  // baseline of its id; one that failed, or was sent as a Pose, has none.
  // `resync` on a request forgets the stream's baselines first (call
  // Complete after that: Complete itself honours it too).
  void Absorb(uint64_t stream, const v1::TickRequest& request,
              const v1::TickResponse& response);

 private:
  // One character's last complete pose.
  struct Kept {
    std::string rig;
    std::string revision;
    bool quantized = false;
    // Joint index -> its rotation's bytes as sent (16: four float32; 6: one
    // quantized rotation).
    std::map<int, std::string> rotations;
    // Joint index -> translation (float32 x, y, z).
    std::map<int, std::array<float, 3>> translations;
  };
  using Stream = std::map<std::string, Kept>;  // by character id

  // `pose`'s rotations and translations written over `kept`'s; translations
  // replace all kept ones when `pose` sends any.
  static void Overlay(const v1::CompactPose& pose, Kept& kept);
  // `kept` as a complete compact pose under `root`.
  static v1::CompactPose ToCompact(const Kept& kept, const v1::Transform& root);

  std::map<uint64_t, Stream> streams_;
};

}  // namespace ik::inspector

#endif  // IK_CLIENT_INSPECTOR_BASELINES_H_
