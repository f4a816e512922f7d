#!/usr/bin/env bash
# The ikd_client package's tests (unittest, Debian's /usr/bin/python3 with
# python3-grpcio and python3-protobuf) against real ikd processes the tests
# start themselves. The stubs are generated into a temporary directory by
# the project's examples/python/generate_stubs.sh.
# Usage: client/python/tests/run_tests.sh IKD [unittest arguments...]
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: $0 IKD [unittest arguments...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
package=$(cd "$here/.." && pwd)
export IKD=$(realpath "$1")
shift
stubs=$(mktemp -d)
trap 'rm -rf "$stubs"' EXIT
"$package/../../examples/python/generate_stubs.sh" "$stubs"
export IKD_CLIENT_STUBS=$stubs
export PYTHONPATH=$package:$here${PYTHONPATH:+:$PYTHONPATH}
export PYTHONDONTWRITEBYTECODE=1
cd "$here"
/usr/bin/python3 -m unittest "${@:--v}"
