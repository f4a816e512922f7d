#!/usr/bin/env bash
# npm pack's prepack: copies every .proto the client loads into protos/ of
# the package, so a packed tarball runs in any project without the
# repository or Debian's proto packages: the API's own (proto/ik/v1),
# google.rpc's status and error_details (Debian's
# golang-github-gogo-googleapis-dev) and grpc.health.v1 (grpc-proto).
# postpack (`pack_protos.sh --clean`) removes them again.
#   client/node/pack_protos.sh [--clean]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$here/protos"
[[ "${1:-}" == "--clean" ]] && exit 0
googleapis=${IKD_GOOGLEAPIS_DIR:-/usr/share/gocode/src/github.com/gogo/googleapis}
grpc_proto=${IKD_GRPC_PROTO_DIR:-/usr/share/grpc-proto}
mkdir -p "$here/protos/ik/v1" "$here/protos/google/rpc" \
  "$here/protos/grpc/health/v1"
cp "$here"/../../proto/ik/v1/*.proto "$here/protos/ik/v1/"
cp "$googleapis/google/rpc/status.proto" \
  "$googleapis/google/rpc/error_details.proto" "$here/protos/google/rpc/"
cp "$grpc_proto/grpc/health/v1/health.proto" "$here/protos/grpc/health/v1/"
