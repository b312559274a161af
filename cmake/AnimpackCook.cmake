# animpack_cook(TARGET <name> SCENE <scene.toml> OUTPUT <out.anpk>)
#
# Cooks a scene into a pack at build time with `animpack cook`. The cooker writes a
# depfile naming the scene and every glTF, buffer and atlas it read, so the pack is
# remade only when one of them changes. <name> is a custom target that builds the pack
# (part of `all`); OUTPUT may be relative to the current binary directory.
function(animpack_cook)
  cmake_parse_arguments(ARG "" "TARGET;SCENE;OUTPUT" "" ${ARGN})
  if(NOT ARG_TARGET OR NOT ARG_SCENE OR NOT ARG_OUTPUT)
    message(FATAL_ERROR "animpack_cook needs TARGET, SCENE and OUTPUT")
  endif()
  get_filename_component(scene "${ARG_SCENE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(output "${ARG_OUTPUT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  if(TARGET animpack::animpack)
    set(cooker animpack::animpack)
  else()
    set(cooker animpack)
  endif()
  add_custom_command(
    OUTPUT "${output}"
    COMMAND ${cooker} cook "${scene}" -o "${output}" --depfile "${output}.d"
    DEPENDS "${scene}" ${cooker}
    DEPFILE "${output}.d"
    COMMENT "animpack cook ${ARG_SCENE}"
    VERBATIM)
  add_custom_target(${ARG_TARGET} ALL DEPENDS "${output}")
endfunction()
