#!/usr/bin/env bash
# Installs the Debian packages ikd needs that are missing. Idempotent and quiet
# when everything is there.
#   scripts/setup.sh            build + run dependencies
#   scripts/setup.sh --test     also what the test suite needs (Python, podman,
#                               clang for the second compiler's unit tests,
#                               Chromium; npm ci of the inspector's three.js)
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libglm-dev libssl-dev grpc-proto libsleef-dev prometheus-cpp-dev
  libtinygltf-dev libcivetweb-dev
  golang-github-gogo-googleapis-dev
  libgtest-dev libgmock-dev libbenchmark-dev
)
if [[ "${1:-}" == "--test" ]]; then
  packages+=(python3 python3-grpcio python3-protobuf python3-venv podman debootstrap
             uidmap slirp4netns runc clang openssl prometheus
             assimp-testmodels)
  # The failover test's load balancer (tests/e2e/failover_test.cc) and the
  # Kubernetes manifests' check (tests/e2e/deploy_manifests_test.py).
  packages+=(nginx python3-yaml)
  # The Node.js client's tests (client/node/test.sh: npm ci, node --test):
  # Debian's nodejs (18) and npm, unless a node and npm already run (e.g. a
  # newer Node installed another way, which Debian's npm would conflict with).
  if ! node --version >/dev/null 2>&1 || ! npm --version >/dev/null 2>&1; then
    packages+=(nodejs npm)
  fi
  # The inspector's browser test (tests/e2e/inspector_test.sh): a headless
  # Chromium driven over the DevTools protocol.
  packages+=(chromium)
fi

# The inspector page's three.js (client/inspector/install.sh: npm ci, as
# client/node/install.sh), once node and npm are there.
install_inspector_page() {
  [[ "${1:-}" == "--test" ]] || return 0
  "$(dirname "$0")/../client/inspector/install.sh"
}

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  install_inspector_page "$@"
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# Packages such as nginx start a system service when installed (nginx on
# port 80, and the install fails if that port is taken); the tests start
# their own and need none. Where no policy-rc.d says otherwise (containers
# usually have one), service starts are refused during this install.
if [[ ! -e /usr/sbin/policy-rc.d ]]; then
  printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
  $sudo chmod 755 /usr/sbin/policy-rc.d
  trap '$sudo rm -f /usr/sbin/policy-rc.d' EXIT
fi
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
install_inspector_page "$@"
