#!/usr/bin/env bash
# The ikd_client package's tests (unittest, Debian's /usr/bin/python3 with
# python3-grpcio and python3-protobuf) against real ikd processes the tests
# start themselves. The stubs are generated into a temporary directory by
# the project's examples/python/generate_stubs.sh.
# Usage: client/python/tests/run_tests.sh [IKD [unittest arguments...]]
# (IKD defaults to the repository's build/server/ikd.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
package=$(cd "$here/.." && pwd)
ikd=${1:-$package/../../build/server/ikd}
[[ -x "$ikd" ]] || { echo "no ikd binary at $ikd: build it (scripts/build.sh) or pass one" >&2; exit 2; }
export IKD=$(realpath "$ikd")
shift || true
stubs=$(mktemp -d)
trap 'rm -rf "$stubs"' EXIT
"$package/../../examples/python/generate_stubs.sh" "$stubs"
export IKD_CLIENT_STUBS=$stubs
export PYTHONPATH=$package:$here${PYTHONPATH:+:$PYTHONPATH}
export PYTHONDONTWRITEBYTECODE=1
cd "$here"
/usr/bin/python3 -m unittest "${@:--v}"
