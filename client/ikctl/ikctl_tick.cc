// ikctl tick: drives a synthetic crowd (client/crowd/crowd.h) through ikd's
// Tick or TickStream and prints each tick's time and its per-job failures.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "crowd.h"
#include "ikctl_util.h"

ABSL_FLAG(int, characters, 100, "tick: characters in the crowd");
ABSL_FLAG(int, ticks, 10, "tick: ticks to run");
ABSL_FLAG(std::string, pose_form, "compact",
          "tick: how each pose is sent: compact (CompactPose, float32), "
          "quantized (CompactPose, 48-bit rotations), packed "
          "(Pose.rotations, doubles) or joints (a JointPose per joint)");
ABSL_FLAG(bool, stream, false,
          "tick: send the ticks on one TickStream instead of unary Ticks");
ABSL_DECLARE_FLAG(std::string, terrain);
ABSL_DECLARE_FLAG(double, dt);

namespace ik::ctl {
namespace {

// Counts of one tick's answers, and its first few failures.
struct TickSummary {
  int failed_characters = 0;
  int failed_jobs = 0;
  int feet = 0;
  int grounded = 0;
  int goals = 0;
  int reached = 0;
  int stepped = 0;
  std::vector<std::string> failures;
};

TickSummary Summarise(const v1::TickResponse& answer) {
  TickSummary summary;
  const auto note = [&](const v1::JobStatus& status) {
    if (status.code() == 0) return false;
    if (summary.failures.size() < 5)
      summary.failures.push_back(status.message());
    return true;
  };
  for (const v1::TickCharacterResult& character : answer.characters()) {
    if (note(character.status())) {
      ++summary.failed_characters;
      continue;
    }
    summary.failed_jobs += note(character.ground_status()) +
                           note(character.goals_status()) +
                           note(character.dynamics_status());
    for (const v1::FootResult& foot : character.ground().feet()) {
      ++summary.feet;
      summary.grounded += foot.grounded();
    }
    for (const v1::GoalResult& goal : character.goals()) {
      ++summary.goals;
      summary.reached += goal.reached();
    }
    summary.stepped += character.dynamics().results_size();
  }
  return summary;
}

// The crowd aims its hands with the rig's arm chains (options.goal_chains
// cut to those `rig` has), grounds its legs and steps its dynamic chains:
// false when the rig has none of them, nothing to drive. Says on stderr when
// there are no hands to aim.
bool DriveableBy(const v1::Rig& rig, CrowdOptions& options) {
  std::vector<std::string> arms;
  for (const v1::Chain& chain : rig.chains()) {
    for (const std::string& goal : options.goal_chains) {
      if (chain.name() == goal) arms.push_back(goal);
    }
  }
  options.goal_chains = arms;
  if (arms.empty() && rig.legs_size() == 0 && rig.dynamic_chains_size() == 0) {
    return false;
  }
  if (arms.empty()) {
    absl::FPrintF(stderr,
                  "ikctl: tick: rig %s has no left_arm or right_arm chain: "
                  "no hand goals\n",
                  rig.name());
  }
  return true;
}

}  // namespace

int TickCommand(ik::Client& client, const std::vector<std::string>& args) {
  if (!args.empty()) return Usage("tick takes flags only");
  const std::string rig_name = absl::GetFlag(FLAGS_rig);
  if (rig_name.empty()) return Usage("tick needs --rig");
  const int characters = absl::GetFlag(FLAGS_characters);
  const int ticks = absl::GetFlag(FLAGS_ticks);
  if (characters < 1 || ticks < 1) {
    return Usage("--characters and --ticks must be >= 1");
  }
  absl::StatusOr<v1::GetRigResponse> rig = client.GetRig(rig_name);
  if (!rig.ok()) return Failed(rig.status());
  CrowdOptions options;
  options.characters = characters;
  options.terrain = absl::GetFlag(FLAGS_terrain);
  options.delta_time = absl::GetFlag(FLAGS_dt);
  if (!ParseCrowdPoseForm(absl::GetFlag(FLAGS_pose_form), &options.pose_form)) {
    return Usage(absl::StrCat("--pose_form must be ", kCrowdPoseFormNames));
  }
  if (!DriveableBy(rig->rig(), options)) {
    return Usage(absl::StrCat("tick: rig ", rig_name,
                              " has no left_arm or right_arm chain, no legs "
                              "and no dynamic chains: the crowd has nothing "
                              "to drive"));
  }
  SyntheticCrowd crowd(rig->rig(), options);
  std::optional<TickStream> stream;
  if (absl::GetFlag(FLAGS_stream)) stream.emplace(client);

  int failures = 0;
  for (int t = 1; t <= ticks; ++t) {
    const v1::TickRequest& request = crowd.NextTick();
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<v1::TickResponse> answer =
        stream.has_value() ? stream->Tick(request) : client.Tick(request);
    const double ms = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count();
    if (!answer.ok()) return Failed(answer.status());
    crowd.Absorb(*answer);
    const TickSummary s = Summarise(*answer);
    failures += s.failed_characters + s.failed_jobs;
    if (absl::GetFlag(FLAGS_json)) {  // each tick's whole answer, in order
      absl::PrintF("%s\n", ik::ToJson(*answer));
      continue;
    }
    absl::PrintF(
        "tick %d: %d characters in %.2f ms; feet grounded %d/%d, goals "
        "reached %d/%d, dynamic chains stepped %d; failed: %d characters, %d "
        "jobs\n",
        t, characters, ms, s.grounded, s.feet, s.reached, s.goals, s.stepped,
        s.failed_characters, s.failed_jobs);
    for (const std::string& failure : s.failures) {
      absl::PrintF("  %s\n", failure);
    }
  }
  return failures == 0 ? kOk : kFailed;
}

}  // namespace ik::ctl
