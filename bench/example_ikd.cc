#include "example_ikd.h"

#include "absl/strings/str_cat.h"

namespace ik::server {

absl::StatusOr<std::unique_ptr<IkServer>> StartExampleIkd(
    const std::string& examples_dir, int solver_threads) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.rig_dir = examples_dir + "/rigs";
  options.terrain_dir = examples_dir + "/terrains";
  options.solver_threads = solver_threads;
  return IkServer::Start(options);
}

std::string ExampleIkdTarget(const IkServer& server) {
  return absl::StrCat("127.0.0.1:", server.port());
}

}  // namespace ik::server
