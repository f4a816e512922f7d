#!/usr/bin/env bash
# README command (b): install what is missing, build everything and run every
# test with ctest (unit, service, end-to-end, Python example, container smoke
# test). IKD_SKIP_CONTAINER=1 skips the container smoke test locally (never in
# CI).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
build_dir=${IKD_BUILD_DIR:-build}
scripts/build.sh "$build_dir"

# The core's unit tests again, built by the second compiler (Debian's clang):
# an answer that depends on a compiler's floating-point choices is a bug in
# the tolerance design. Not compared under clang: the golden answers
# (recorded per binary, server label). That build also runs the
# inspector's tests with the recording readers under AddressSanitizer and
# UndefinedBehaviorSanitizer (IK_SANITIZE): recordings are files from
# anywhere, and its fuzz test reads seeded corruptions of one.
clang_dir=${IKD_CLANG_BUILD_DIR:-build-clang}
CC=clang CXX=clang++ cmake -S . -B "$clang_dir" -DCMAKE_BUILD_TYPE=Release \
  -DIK_BUILD_BENCHMARKS=OFF -DIK_SANITIZE=ON >/dev/null
cmake --build "$clang_dir" -j2 --target ik_core_tests inspector_test
(cd "$clang_dir" &&
  ctest --output-on-failure -j2 --timeout 3000 -L 'core|inspector')

cd "$build_dir"
ctest --output-on-failure -j2 --timeout 3000
