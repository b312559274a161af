#!/usr/bin/env bash
# Installs a built tree (default build/ci) into a prefix and checks the package as a game
# uses it (docs/package.md):
# - what is installed: headers of the three libraries, pack.fbs (the same bytes as
#   schema/pack.fbs), the docs, the pkg-config files; no installed CMake file names the
#   source or build tree;
# - the installed cooker, its prefix moved elsewhere, cooks a Collada scene through its
#   installed trial program (libexec/animpack/animpack-assimp-trial), not the build's;
# - tests/package (find_package(animpack COMPONENTS runtime gl trace), two animpack_cook
#   calls, the second with DENY_WARNINGS, FORMAT and EXTRA_ARGS): builds, and the game
#   plays the pack, traces a frame to a PNG and draws it with GL on a headless context
#   (ANIMPACK_NO_GL=1 skips the GL step, as for the GL tests); the depfile recooks the
#   pack only when one of its inputs changes;
# - tests/package/checks: the plain find_package(animpack) gives every target, COMPONENTS
#   runtime the runtime's alone, an unknown component is refused; animpack_cook refuses an
#   unknown argument, a missing OUTPUT and an unknown FORMAT at configure time, with its
#   message; DENY_WARNINGS fails the build of a scene with a warning that cooks without
#   it, and FORMAT json reaches the cooker;
# - tests/package/pc_check.cpp, built with nothing but pkg-config (animpack, animpack-gl,
#   animpack-trace), links and runs.
#   scripts/package_test.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
prefix=$(pwd)/$build/package-prefix
work=$(pwd)/$build/package-test
fail() { echo "package test: $*" >&2; exit 1; }
rm -rf "$prefix" "$work"
cmake --install "$build" --prefix "$prefix" >/dev/null

# What is installed.
[ -x "$prefix/bin/animpack" ] || fail "bin/animpack is not installed"
for f in include/animpack/pack.h include/animpack/gl/scene_renderer.h \
  include/animpack/tracer/render.h share/doc/animpack/README.md share/doc/animpack/LICENSE \
  share/doc/animpack/docs/architecture.md share/doc/animpack/docs/package.md; do
  [ -f "$prefix/$f" ] || fail "$f is not installed"
done
cmp -s schema/pack.fbs "$prefix/share/animpack/pack.fbs" || fail "share/animpack/pack.fbs is not schema/pack.fbs"
pcdir=$(dirname "$(find "$prefix" -name animpack.pc -print -quit)")
[ -f "$pcdir/animpack.pc" ] || fail "animpack.pc is not installed"
for pc in animpack-gl animpack-trace; do
  [ -f "$pcdir/$pc.pc" ] || fail "$pc.pc is not installed"
done
cmake_dir=$(dirname "$(find "$prefix" -name animpackConfig.cmake -print -quit)")
if grep -rlF -e "$(pwd)" "$cmake_dir" "$pcdir" >/dev/null; then
  fail "installed CMake or pkg-config files name the source or build tree: $(grep -rlF -e "$(pwd)" "$cmake_dir" "$pcdir" | tr '\n' ' ')"
fi

# FBX and Collada: the installed cooker, its prefix moved, reads through its own trial
# program (libexec/animpack/animpack-assimp-trial); the build's is made unusable meanwhile.
[ -x "$prefix/libexec/animpack/animpack-assimp-trial" ] ||
  fail "libexec/animpack/animpack-assimp-trial is not installed"
built_trial=$build/compiler/animpack-assimp-trial
[ -x "$built_trial" ] || fail "$built_trial was not built"
mkdir -p "$work/moved" "$work/dae"
cp -r "$prefix/bin" "$prefix/libexec" "$work/moved/"
cat >"$work/dae/tri.dae" <<'EOF'
<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="meter" meter="1"/><up_axis>Y_UP</up_axis></asset>
  <library_geometries>
    <geometry id="tri" name="tri">
      <mesh>
        <source id="tri-pos">
          <float_array id="tri-pos-array" count="9">0 0 0 1 0 0 0 1 0</float_array>
          <technique_common>
            <accessor source="#tri-pos-array" count="3" stride="3">
              <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
            </accessor>
          </technique_common>
        </source>
        <vertices id="tri-vtx"><input semantic="POSITION" source="#tri-pos"/></vertices>
        <triangles count="1"><input semantic="VERTEX" source="#tri-vtx" offset="0"/><p>0 1 2</p></triangles>
      </mesh>
    </geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="scene"><node id="n" name="n"><instance_geometry url="#tri"/></node></visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
EOF
printf '[[mesh]]\nname = "tri"\nfile = "tri.dae"\n\n[[object]]\nname = "t"\nmesh = "tri"\n' \
  >"$work/dae/tri.toml"
chmod -x "$built_trial"
trap 'chmod +x "$built_trial"' EXIT
if ! out=$(env -u ANIMPACK_ASSIMP_TRIAL "$work/moved/bin/animpack" cook "$work/dae/tri.toml" \
  -o "$work/dae/tri.anpk" 2>&1); then
  fail "the moved installed cooker did not cook a Collada scene: $out"
fi
chmod +x "$built_trial"
trap - EXIT
[ -s "$work/dae/tri.anpk" ] || fail "the Collada cook wrote no pack"
version=$(env -u ANIMPACK_ASSIMP_TRIAL "$work/moved/bin/animpack" --version)
grep -qxF "assimp trial read: $work/moved/libexec/animpack/animpack-assimp-trial" <<<"$version" ||
  fail "the moved cooker's --version does not name its own trial program: $version"

# The game: find_package, two cooks, the three libraries.
mkdir -p "$work/assets"
cp -r assets/demo/. "$work/assets/"
cmake -S tests/package -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DASSETS="$work/assets" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/game" "$work/build/demo.anpk" "$work/frame.png" >/dev/null
[ "$(head -c 4 "$work/frame.png" | od -An -tx1 | tr -d ' ')" = "89504e47" ] || fail "the game wrote no PNG"
[ -f "$work/build/strict/demo.anpk" ] || fail "the DENY_WARNINGS cook wrote no pack"
! cmp -s "$work/build/demo.anpk" "$work/build/strict/demo.anpk" ||
  fail "EXTRA_ARGS --no-compress did not reach the cooker (the two packs are the same)"

# Recooking through the depfile.
pack_time() { stat -c %.9Y "$work/build/demo.anpk"; }
first=$(pack_time)
sleep 1.1
cmake --build "$work/build" >/dev/null
[ "$(pack_time)" = "$first" ] || fail "the pack was recooked with no input changed"
touch "$work/assets/models/BoxAnimated.gltf"
cmake --build "$work/build" >/dev/null
[ "$(pack_time)" != "$first" ] || fail "touching a glTF did not recook the pack"
second=$(pack_time)
sleep 1.1
touch "$work/assets/art/character_maleAdventurer_sheet.png"
cmake --build "$work/build" >/dev/null
[ "$(pack_time)" != "$second" ] || fail "touching the atlas did not recook the pack"

# find_package's forms, animpack_cook's options and refusals (one build folder, configured
# per case).
cat >"$work/assets/warn.toml" <<'EOF'
[[mesh]]
name = "box"
file = "models/BoxAnimated.gltf"

[[object]]
name = "box"
mesh = "box"

[object.animation]
clip = "animation_0"
events = [{ name = "late", clip = "animation_0", time = 1000.0 }]
EOF
options=(-S tests/package/checks -B "$work/checks" -G Ninja -DCMAKE_PREFIX_PATH="$prefix"
  -DSCENE="$work/assets/warn.toml")
expect_refused() {  # CASE MESSAGE
  local out
  if out=$(cmake "${options[@]}" -DCASE="$1" 2>&1); then
    fail "animpack_cook ($1) configured; it must be refused"
  fi
  grep -qF -- "$2" <<<"$out" || fail "animpack_cook ($1) failed without saying \"$2\": $out"
}
expect_refused unknown "animpack_cook: unknown arguments: COLOUR red"
expect_refused missing "animpack_cook: missing OUTPUT"
expect_refused format "animpack_cook: FORMAT xml is not one of"
expect_refused bad_component "animpack has no component sprites"
cmake "${options[@]}" -DCASE=runtime_only >/dev/null
cmake "${options[@]}" -DCASE=deny >/dev/null
out=$(cmake --build "$work/checks" --target lenient 2>&1) || fail "the lenient cook failed: $out"
grep -qF '"code":"W0204"' <<<"$out" || grep -qF '"code": "W0204"' <<<"$out" ||
  fail "FORMAT json did not reach the cooker: $out"
if out=$(cmake --build "$work/checks" --target strict 2>&1); then
  fail "DENY_WARNINGS: a scene with a warning cooked"
fi
[ ! -e "$work/checks/strict.anpk" ] || fail "DENY_WARNINGS: a pack was written"

# pkg-config alone: the runtime's flags, then a program using all three libraries.
export PKG_CONFIG_PATH="$pcdir"
pkg-config --cflags --libs animpack >/dev/null || fail "pkg-config --cflags --libs animpack failed"
read -ra pc_cflags <<<"$(pkg-config --cflags animpack-gl animpack-trace)"
read -ra pc_libs <<<"$(pkg-config --static --libs animpack-gl animpack-trace)"
"${CXX:-c++}" -std=c++20 "${pc_cflags[@]}" tests/package/pc_check.cpp "${pc_libs[@]}" \
  -o "$work/pc_check"
"$work/pc_check" "$work/build/demo.anpk" "$work/pc.png" >/dev/null ||
  fail "the pkg-config build of pc_check did not run"
echo "package test: installed files, the moved cooker's Collada cook through its installed" \
  "trial program, find_package(animpack COMPONENTS runtime gl trace) with animpack_cook" \
  "(options, refusals, recook only on change), the game (trace + GL), pkg-config"
