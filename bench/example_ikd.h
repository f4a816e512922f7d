// An ikd in this process for the crowd's tick, shared by tick_scaling_bench
// and ikd_loadgen --solver_threads: what `ikd --listen=127.0.0.1:0
// --rig_dir=<examples>/rigs --terrain_dir=<examples>/terrains
// --solver_threads=N` serves, on a free loopback port, with ikd's other
// defaults.
//
//   absl::StatusOr<std::unique_ptr<IkServer>> ikd =
//       StartExampleIkd(IK_EXAMPLES_DIR, 2);
//   std::string target = ExampleIkdTarget(**ikd);  // "127.0.0.1:PORT"
//   (*ikd)->Shutdown(absl::Seconds(5));
#ifndef IK_BENCH_EXAMPLE_IKD_H_
#define IK_BENCH_EXAMPLE_IKD_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server.h"

namespace ik::server {

// Starts serving the rigs and terrains of `examples_dir` (its rigs/ and
// terrains/) with `solver_threads` solver threads.
absl::StatusOr<std::unique_ptr<IkServer>> StartExampleIkd(
    const std::string& examples_dir, int solver_threads);

// The address a client in this process reaches `server` at.
std::string ExampleIkdTarget(const IkServer& server);

}  // namespace ik::server

#endif  // IK_BENCH_EXAMPLE_IKD_H_
