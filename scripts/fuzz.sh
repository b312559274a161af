#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for a bounded time,
# seeded from the golden packs, the demo scene cooked with this build, the glTF files of
# tests/data/corpus and the scenes of tests/data.
#   scripts/fuzz.sh [SECONDS]   (default 60)
# Each target gets half of SECONDS: fuzz_pack, fuzz_game (the packs), fuzz_gltf (the
# glTF files) and fuzz_scene (the scenes), 2 x SECONDS in all. The seed is fixed (1, or
# ANIMPACK_FUZZ_SEED) so that a finding in CI reproduces; run other seeds locally.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
half=$(((seconds + 1) / 2))
jobs=$(nproc 2>/dev/null || echo 2)
# The demo seed pack is cooked by ANIMPACK_FUZZ_COOKER (an animpack of another build, as
# CI's quickstart gives) or else by the fuzz build's own.
cooker=${ANIMPACK_FUZZ_COOKER:-}
targets=(fuzz_pack fuzz_game fuzz_gltf fuzz_scene)
[ -n "$cooker" ] || targets+=(animpack)
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$jobs" --target "${targets[@]}"
[ -n "$cooker" ] || cooker=./build/fuzz/cli/animpack

work=build/fuzz/corpus
rm -rf "$work"
mkdir -p "$work/pack" "$work/gltf" "$work/scene"
cp tests/data/packs/*.anpk "$work/pack/"
"$cooker" cook assets/demo/scene.toml -o "$work/pack/demo.anpk" >/dev/null
seed() {  # seed DIR FILE...: copies, numbered (files in different folders share names)
  local dir=$1 n=0 f
  shift
  for f in "$@"; do
    n=$((n + 1))
    cp "$f" "$dir/$n-$(basename "$f")"
  done
}
mapfile -t gltf < <(find tests/data/corpus -type f \( -name '*.gltf' -o -name '*.glb' \) \
  -size -300k | sort)
seed "$work/gltf" "${gltf[@]}"
mapfile -t scenes < <(find tests/data/scenes tests/data/cook -maxdepth 2 -type f -name '*.toml' | sort)
seed "$work/scene" "${scenes[@]}"
run() {  # run TARGET SEEDS SECONDS
  echo "== $1 for ${3}s ($(ls "$work/$2" | wc -l) seeds)"
  # A copy of the seeds per target: libFuzzer adds what it finds to the directory. Crash
  # reproducers go to build/fuzz/artifacts, not the repository's root.
  rm -rf "$work/$1" && cp -r "$work/$2" "$work/$1"
  mkdir -p build/fuzz/artifacts
  ./build/fuzz/tests/fuzz/$1 -seed="${ANIMPACK_FUZZ_SEED:-1}" -max_total_time="$3" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=build/fuzz/artifacts/ -print_final_stats=1 "$work/$1" 2>&1 | tail -n 12
}
run fuzz_pack pack "$half"
run fuzz_game pack "$half"
run fuzz_gltf gltf "$half"
run fuzz_scene scene "$half"
echo "fuzz: no crash, hang or leak in $((4 * half))s"
