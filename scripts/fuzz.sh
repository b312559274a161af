#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for a bounded time,
# seeded from the golden packs, the glTF files of tests/data/corpus and the scenes of
# tests/data (fuzz_scene).
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
jobs=$(nproc 2>/dev/null || echo 2)
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$jobs" --target fuzz_pack fuzz_gltf fuzz_scene

work=build/fuzz/corpus
rm -rf "$work"
mkdir -p "$work/pack" "$work/gltf" "$work/scene"
cp tests/data/packs/*.anpk "$work/pack/"
if [ -d tests/data/corpus ]; then
  find tests/data/corpus -type f \( -name '*.gltf' -o -name '*.glb' \) -size -300k \
    -exec cp -t "$work/gltf/" {} + 2>/dev/null || true
fi
find tests/data/scenes -type f -name '*.toml' -exec cp -t "$work/scene/" {} +
cp tests/data/cook/*.toml "$work/scene/"
for target in pack gltf scene; do
  echo "== fuzz_$target for ${seconds}s ($(ls "$work/$target" | wc -l) seeds)"
  ./build/fuzz/tests/fuzz/fuzz_$target -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$work/$target" 2>&1 | tail -n 12
done
echo "fuzz: no crash, hang or leak in $((3 * seconds))s"
