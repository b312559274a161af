#!/usr/bin/env bash
# Installs a built tree (default build/ci) into a prefix, then builds tests/package (a game
# that does find_package(animpack) and animpack_cook) against it, and checks that the
# depfile recooks the pack only when one of its inputs changes.
#   scripts/package_test.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
prefix=$(pwd)/$build/package-prefix
work=$(pwd)/$build/package-test
rm -rf "$prefix" "$work"
cmake --install "$build" --prefix "$prefix" >/dev/null
mkdir -p "$work/assets"
cp -r assets/demo/. "$work/assets/"
cmake -S tests/package -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DASSETS="$work/assets" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/game" "$work/build/demo.anpk"
pack_time() { stat -c %.9Y "$work/build/demo.anpk"; }
first=$(pack_time)
sleep 1.1
cmake --build "$work/build" >/dev/null
[ "$(pack_time)" = "$first" ] || { echo "package test: the pack was recooked with no input changed" >&2; exit 1; }
touch "$work/assets/models/BoxAnimated.gltf"
cmake --build "$work/build" >/dev/null
[ "$(pack_time)" != "$first" ] || { echo "package test: touching a glTF did not recook the pack" >&2; exit 1; }
second=$(pack_time)
sleep 1.1
touch "$work/assets/art/character_maleAdventurer_sheet.png"
cmake --build "$work/build" >/dev/null
[ "$(pack_time)" != "$second" ] || { echo "package test: touching the atlas did not recook the pack" >&2; exit 1; }
echo "package test: find_package(animpack) + animpack_cook build, run, and recook only on change"
