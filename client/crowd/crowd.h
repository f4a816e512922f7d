// A synthetic crowd for `ikctl tick` and `ikd_loadgen --rpc=tick`: N
// characters of one rig walking across a terrain, each tick asking for what
// a game server asks for -- the full animated pose (every joint, by index),
// grounding of every leg on the shared terrain, two hand goals and one step
// of every dynamic chain with the state the previous tick returned.
//
//   ik::SyntheticCrowd crowd(rig, options);  // rig: Client::GetRig's
//   for (int t = 0; t < ticks; ++t) {
//     absl::StatusOr<v1::TickResponse> answer = client.Tick(crowd.NextTick());
//     crowd.Absorb(*answer);
//   }
//
// Deterministic: the same options give the same requests.
#ifndef IK_CLIENT_CROWD_CROWD_H_
#define IK_CLIENT_CROWD_CROWD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ik/client.h"
#include "ik/v1/ik.pb.h"

namespace ik {

// Sets joint `index`'s local rotation in `pose`: in its packed `rotations`
// when they cover the joint, else replacing its override in `joints` (or
// adding one by index).
void SetJointRotation(v1::Pose& pose, int index, const v1::Quat& rotation);
// The same for every rotation of an answer (by index).
void SetJointRotations(
    v1::Pose& pose,
    const google::protobuf::RepeatedPtrField<v1::JointRotation>& rotations);
// The same for a tick's final pose (TickCharacterResult.joints and
// .rotations, packed).
void SetJointRotations(v1::Pose& pose, const v1::TickCharacterResult& result);

// How the crowd sends its poses.
enum class CrowdPoseForm {
  // CompactPose, float32 rotations: what engines hold (the default).
  kCompact,
  // CompactPose, 48-bit quantized rotations.
  kCompactQuantized,
  // Pose.rotations, doubles.
  kPacked,
  // One JointPose per joint.
  kJointPoses,
};

// A form by its name on the command line ("compact", "quantized",
// "packed", "joints"); false for another name.
bool ParseCrowdPoseForm(absl::string_view name, CrowdPoseForm* form);
inline constexpr char kCrowdPoseFormNames[] =
    "compact (CompactPose, float32; the default), quantized (CompactPose, "
    "48-bit rotations), packed (Pose.rotations, doubles) or joints (a "
    "JointPose per joint)";

struct CrowdOptions {
  int characters = 1000;
  // Registered terrain the crowd walks on (the bundled stairs: x in [-1, 1],
  // z in [-1, 2.8], up to 0.9 m high); empty: no grounding.
  std::string terrain = "stairs";
  // Chains given a hand goal each tick; empty: no goals.
  std::vector<std::string> goal_chains = {"left_arm", "right_arm"};
  // Step the rig's dynamic chains each tick.
  bool dynamics = true;
  // Seconds per tick.
  double delta_time = 1.0 / 60.0;
  CrowdPoseForm pose_form = CrowdPoseForm::kCompact;
  // For a TickStream, with a compact pose form: once a character has been
  // answered, send it on its baseline (TickCharacter.baseline) -- no rig,
  // only the joints whose rotation changed, no dynamics states (the stream
  // keeps them) -- and complete again after it failed.
  bool baselines = false;
  // Ask for each job's rotations too (TickRequest.job_rotations).
  bool job_rotations = false;
  // How much of each answer to ask for (TickRequest.detail).
  v1::TickDetail detail = v1::TICK_DETAIL_FULL;
  std::uint64_t seed = 1;
};

class SyntheticCrowd {
 public:
  SyntheticCrowd(const v1::Rig& rig, const CrowdOptions& options);

  // The next tick's request: time advanced by delta_time, the dynamics
  // states of the last absorbed answer carried over.
  const v1::TickRequest& NextTick();

  // The last tick complete: NextTick's request itself, or with baselines,
  // the characters as they would be sent without them.
  const v1::TickRequest& CompleteTick() const {
    return options_.baselines ? complete_ : request_;
  }

  // Takes a tick's answer: keeps each character's dynamics states.
  void Absorb(const v1::TickResponse& response);

  // The current tick as single calls (GroundFeet, SolveChain, StepDynamics
  // per character, each on the pose the one before left), gathered into the
  // answer a tick would give (jobs' answers and statuses; the final pose is
  // not filled). For comparing the cost of the two.
  absl::StatusOr<v1::TickResponse> RunAsSingleCalls(Client& client) const;

  int characters() const { return options_.characters; }

 private:
  struct Walker {
    double x = 0.0;
    double z = 0.0;
    double heading = 0.0;
    double phase = 0.0;
    double speed = 1.2;
    std::vector<v1::DynamicChainState> states;
    // With baselines: whether the stream keeps one for the character, and
    // the compact pose sent last (complete).
    bool has_baseline = false;
    v1::CompactPose sent;
  };

  // `character`'s complete compact pose kept in `walker`, and the character
  // changed to build on its baseline when the stream keeps one.
  void OnBaseline(Walker& walker, v1::TickCharacter& character) const;

  void Pose(const Walker& walker, v1::TickCharacter& character) const;

  v1::Rig rig_;
  CrowdOptions options_;
  std::vector<Walker> walkers_;
  v1::TickRequest request_;
  // With baselines: NextTick's request complete.
  v1::TickRequest complete_;
  double time_ = 0.0;
  std::uint64_t sequence_ = 0;
};

}  // namespace ik

#endif  // IK_CLIENT_CROWD_CROWD_H_
