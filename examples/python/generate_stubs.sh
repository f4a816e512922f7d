#!/usr/bin/env bash
# Generates the Python modules for the ikd API into OUT_DIR (default: gen/
# next to this script) with Debian's protoc and grpc_python_plugin
# (packages protobuf-compiler and protobuf-compiler-grpc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/gen}
mkdir -p "$out"
protoc --proto_path="$here/../../proto" \
  --python_out="$out" --grpc_python_out="$out" \
  --plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin \
  ik/v1/ik.proto
