// ikctl dynamics: simulate a rig's dynamic chains from rest in the rest
// pose, with the character standing at --position and moving at
// --velocity, and print each chain's tip after every step (--json: each
// step's whole answer, one JSON object per line, every joint's position in
// its state).
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "ikctl_util.h"

ABSL_FLAG(int, steps, 120, "dynamics: number of steps");
ABSL_FLAG(double, dt, 1.0 / 60.0, "dynamics: seconds per step");
ABSL_FLAG(std::string, position, "0,0,0",
          "dynamics: the character's root position X,Y,Z, m");
ABSL_FLAG(std::string, velocity, "0,0,0",
          "dynamics: the character's root velocity X,Y,Z, m/s");

namespace ik::ctl {

int DynamicsCommand(ik::Client& client, const std::vector<std::string>& args) {
  if (!args.empty()) return Usage("dynamics: takes flags only");
  ik::v1::StepDynamicsRequest request;
  request.set_rig(absl::GetFlag(FLAGS_rig));
  request.set_revision(absl::GetFlag(FLAGS_revision));
  if (request.rig().empty()) return Usage("dynamics: --rig is required");
  if (!absl::GetFlag(FLAGS_chain).empty()) {
    request.add_chains(absl::GetFlag(FLAGS_chain));
  }
  const int steps = absl::GetFlag(FLAGS_steps);
  const double dt = absl::GetFlag(FLAGS_dt);
  if (steps < 1) return Usage("dynamics: --steps must be >= 1");
  if (!(dt >= 0.0)) return Usage("dynamics: --dt must be >= 0");
  ik::v1::Vec3 position;
  ik::v1::Vec3 velocity;
  if (!ParseVec3(absl::GetFlag(FLAGS_position), &position)) {
    return Usage("dynamics: --position must be X,Y,Z");
  }
  if (!ParseVec3(absl::GetFlag(FLAGS_velocity), &velocity)) {
    return Usage("dynamics: --velocity must be X,Y,Z");
  }
  request.set_delta_time(dt);
  const bool json = absl::GetFlag(FLAGS_json);
  for (int step = 1; step <= steps; ++step) {
    const double time = step * dt;
    ik::v1::Vec3* root =
        request.mutable_pose()->mutable_root()->mutable_translation();
    root->set_x(position.x() + velocity.x() * time);
    root->set_y(position.y() + velocity.y() * time);
    root->set_z(position.z() + velocity.z() * time);
    absl::StatusOr<ik::v1::StepDynamicsResponse> answer =
        client.StepDynamics(request);
    if (!answer.ok()) return Failed(answer.status());
    request.clear_states();
    if (step == 1 && !json) {
      absl::PrintF("%-5s %-8s %-12s %s\n", "STEP", "TIME", "CHAIN",
                   "TIP (world, m)");
    }
    for (const ik::v1::DynamicChainResult& result : answer->results()) {
      *request.add_states() = result.state();
      if (json) continue;
      const ik::v1::DynamicChainState& state = result.state();
      absl::PrintF("%-5d %-8.4f %-12s %s%s\n", step, time, result.chain(),
                   FormatVec3(state.positions(state.positions_size() - 1)),
                   result.clamped() ? "  (clamped)" : "");
    }
    if (json) absl::PrintF("%s\n", ik::ToJson(*answer));
  }
  return kOk;
}

}  // namespace ik::ctl
