// ikd's command-line flags (ikd_flags.cc): every ServerOptions field and
// limit, with its default and help text, read and checked into options.
#ifndef IK_SERVER_IKD_FLAGS_H_
#define IK_SERVER_IKD_FLAGS_H_

#include <optional>

#include "absl/flags/declare.h"
#include "server.h"

ABSL_DECLARE_FLAG(double, shutdown_grace_seconds);

// The flags as options; nullopt (after saying why on stderr) for a value
// out of range.
std::optional<ik::server::ServerOptions> OptionsFromFlags();

#endif  // IK_SERVER_IKD_FLAGS_H_
