#!/usr/bin/env bash
# Generates the ikd API's Python modules (and google.rpc's Status and
# BadRequest) into ikd_client/_gen/, where the ikd_client package finds them
# when neither load_stubs(DIR) nor $IKD_CLIENT_STUBS says otherwise. Runs the
# project's own examples/python/generate_stubs.sh (Debian's protoc and
# grpc_python_plugin). Usage: client/python/generate.sh [OUT_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/ikd_client/_gen}
"$here/../../examples/python/generate_stubs.sh" "$out"
echo "ikd_client: stubs in $out"
