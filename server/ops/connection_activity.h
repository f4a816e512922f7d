// Which of the connections ikd accepted have calls in flight, and how long
// the others have been idle, so that idle connections beyond a bound can
// be closed longest-idle first (the listener closes them).
//
// A connection is known by its key: the peer's address bytes and port.
// The listener reports what it accepts and what has gone; a gRPC server
// interceptor (Interceptors()) reports every call of every service,
// health included, as it begins and ends. Idleness is ordered by events,
// not by a clock: the connection whose last call ended first (or, without
// a call, that was accepted first) is the longest idle.
//
//   ConnectionActivity activity;
//   builder.experimental().SetInterceptorCreators(activity.Interceptors());
//   activity.Opened(ConnectionActivity::KeyOf(address));  // on accept
//   for (const std::string& key : activity.TakeIdleBeyond(1000)) ...close
#ifndef IK_SERVER_OPS_CONNECTION_ACTIVITY_H_
#define IK_SERVER_OPS_CONNECTION_ACTIVITY_H_

#include <grpcpp/support/server_interceptor.h>
#include <sys/socket.h>

#include <list>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace ik::server {

class ConnectionActivity {
 public:
  // The key of a connection from its peer's socket address (an
  // IPv4-mapped IPv6 address as its IPv4 address), or from gRPC's peer
  // name of a call ("ipv4:10.0.0.7:51234", "ipv6:[::1]:51234"): the
  // address's 4 or 16 bytes, then the port's 2 (network order); empty for
  // anything else.
  static std::string KeyOf(const sockaddr_storage& address);
  static std::string KeyOf(absl::string_view peer);

  // A connection was accepted (idle until its first call) / has gone.
  // Empty keys are ignored.
  void Opened(const std::string& key);
  void Closed(const std::string& key);

  // A call on the connection `key` begins / ends; unknown keys are ignored.
  void CallStarted(const std::string& key);
  void CallEnded(const std::string& key);

  // The idle connections beyond `bound`, longest idle first, forgotten
  // here: the caller closes them.
  std::vector<std::string> TakeIdleBeyond(int bound);

  // Connections known / without a call in flight.
  int connections() const;
  int idle() const;

  // Interceptor factories (one) reporting every call to this; for
  // ServerBuilder::experimental().SetInterceptorCreators.
  std::vector<
      std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
  Interceptors();

 private:
  struct Entry {
    int in_flight = 0;
    std::list<std::string>::iterator idle;  // in idle_ while in_flight == 0
  };

  // Forgets `key`'s connection, if known.
  void Forget(const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  mutable absl::Mutex mutex_;
  absl::flat_hash_map<std::string, Entry> entries_ ABSL_GUARDED_BY(mutex_);
  // Keys of the idle connections, longest idle first.
  std::list<std::string> idle_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace ik::server

#endif  // IK_SERVER_OPS_CONNECTION_ACTIVITY_H_
