#!/usr/bin/env bash
# The README's two commands:
#   scripts/quickstart.sh demo   installs what is needed, builds, runs the demo
#   scripts/quickstart.sh test   installs what is needed, builds and runs every test
# Both start with scripts/setup.sh (the one list of Debian packages).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  demo|test) ;;
  *) echo "usage: scripts/quickstart.sh demo|test" >&2; exit 2 ;;
esac

bash scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)

build() {  # build <preset> [targets...]
  local preset=$1; shift
  cmake --preset "$preset" >/dev/null
  if [ $# -gt 0 ]; then
    cmake --build --preset "$preset" -j "$jobs" --target "$@"
  else
    cmake --build --preset "$preset" -j "$jobs"
  fi
}

if [ "$mode" = demo ]; then
  build release animpack play_pack fox_walk flat
  mkdir -p out
  rm -rf out/frames
  ./build/release/cli/animpack cook assets/demo/scene.toml -o out/demo.anpk --depfile out/demo.anpk.d
  ./build/release/cli/animpack inspect out/demo.anpk
  ./build/release/samples/play_pack/play_pack out/demo.anpk --ticks 240 --every 10 -o out/frames
  # The contact sheet of the walking fox: a row per clip, traced like the frames.
  ./build/release/cli/animpack preview out/demo.anpk --object walker --frames 8 \
    -o out/frames/contact_sheet.png
  # The worked example (assets/character): a character with a state machine, a blend
  # space and layers, played by its script (walk, run, jump, wave, tire, idle); then two
  # filmstrips of it: walking at speed 1.5 with the wave over it, and the jump.
  ./build/release/cli/animpack cook assets/character/scene.toml -o out/character.anpk
  ./build/release/cli/animpack play out/character.anpk --ticks 600 \
    --script assets/character/play.script
  ./build/release/cli/animpack preview out/character.anpk --object hero --frames 8 --size 200x240 \
    --set speed=1.5 --set wave=1 -o out/frames/character_walk_wave.png
  ./build/release/cli/animpack preview out/character.anpk --object hero --frames 8 --size 200x240 \
    --state jump -o out/frames/character_jump.png
  # Step 4's worked example (assets/fox): the Fox walking by its root motion, its head
  # aiming at a box the game moves. `play` runs its script (the IK targets in the fox's
  # space) and sums the motion; samples/fox_walk is the game (it moves the fox by its
  # motion and the box round its head) and writes 8 wide and 8 close frames, 320x180.
  ./build/release/cli/animpack cook assets/fox/scene.toml -o out/fox.anpk
  ./build/release/cli/animpack play out/fox.anpk --ticks 480 --script assets/fox/play.script \
    | tail -n 3
  ./build/release/samples/fox_walk/fox_walk out/fox.anpk --ticks 240 --every 30 --size 320x180 \
    -o out/frames
  # The flat pass (samples/flat): the demo's sprite hero walking in 2D, its frame events
  # printed, one frame (flat_0000.png) drawn headless by the GL flat pass.
  ./build/release/samples/flat/flat out/demo.anpk --ticks 30 --every 30 -o out/frames
  echo "demo: the packs are out/demo.anpk, out/character.anpk and out/fox.anpk; traced PNG frames, contact_sheet.png, the character's filmstrips, the fox's (fox_walk_strip.png, fox_close_strip.png) and the flat hero (flat_0000.png) are in $(pwd)/out/frames"
  exit 0
fi

# Every test, two ways, both with warnings as errors: g++ Release (`ci`) and clang++ Debug
# with AddressSanitizer + UndefinedBehaviorSanitizer (`asan`). So every file compiles with
# both compilers, and the golden hash test holds both builds to the same value.
# Each stage prints how long the run has taken so far (CI's budget: docs/performance.md).
started=$SECONDS
stage() { echo "== $1 (at $(((SECONDS - started) / 60)) min $(((SECONDS - started) % 60)) s)"; }
bash scripts/format.sh --check
for preset in ci asan; do
  stage "$preset"
  build "$preset"
  ctest --preset "$preset" -j "$jobs"
done

# A game's build against the installed package: find_package(animpack COMPONENTS runtime gl
# trace), animpack_cook and its options, pkg-config, the installed schema and docs.
stage package
bash scripts/package_test.sh build/ci

# The libFuzzer targets (Pack::open, the glTF reader), a bounded run each.
# (Their seed pack is cooked by the ci build's animpack: the fuzz build has no cli.)
stage fuzz
ANIMPACK_FUZZ_COOKER=build/ci/cli/animpack bash scripts/fuzz.sh "${ANIMPACK_FUZZ_SECONDS:-30}"

# The runtime alone (ANIMPACK_RUNTIME_ONLY) cross-compiled for aarch64, its tests and both
# golden runs under qemu-user.
stage aarch64
bash scripts/cross_aarch64.sh build/aarch64
stage done
