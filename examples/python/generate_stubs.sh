#!/usr/bin/env bash
# Generates the Python modules for the ikd API into OUT_DIR (default: gen/
# next to this script) with Debian's protoc and grpc_python_plugin
# (packages protobuf-compiler and protobuf-compiler-grpc), and those of
# google.rpc.Status and google.rpc.BadRequest (gRPC's richer error model,
# from golang-github-gogo-googleapis-dev) that ikd's errors carry.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/gen}
googleapis=${IK_GOOGLEAPIS_PROTO_DIR:-/usr/share/gocode/src/github.com/gogo/googleapis}
mkdir -p "$out"
protoc --proto_path="$here/../../proto" \
  --python_out="$out" --grpc_python_out="$out" \
  --plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin \
  ik/v1/values.proto ik/v1/rig.proto ik/v1/solve.proto ik/v1/dynamics.proto \
  ik/v1/ground.proto ik/v1/tick.proto ik/v1/ik.proto
protoc --proto_path="$googleapis" --python_out="$out" \
  google/rpc/status.proto google/rpc/error_details.proto
