#!/usr/bin/env bash
# The runtime on 64-bit Arm: a runtime-only build (ANIMPACK_RUNTIME_ONLY: the runtime and
# its tests, with lz4, meshoptimizer, FlatBuffers and GoogleTest only) cross-compiled with
# Debian's g++-aarch64-linux-gnu (cmake/aarch64-linux-gnu.cmake) and its tests, both golden runs
# included, run under qemu-user. scripts/setup.sh installs the cross compiler, qemu and
# the arm64 libraries.
#   scripts/cross_aarch64.sh [build-dir]     (default build/aarch64)
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build/aarch64}
jobs=${ANIMPACK_CROSS_JOBS:-2}

cmake -S . -B "$build" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release \
  -DANIMPACK_RUNTIME_ONLY=ON \
  -DANIMPACK_WERROR=ON \
  -DANIMPACK_UNOPTIMIZED_TESTS=ON >/dev/null
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" -j "$jobs" --output-on-failure
