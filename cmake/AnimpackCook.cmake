# animpack_cook(TARGET <name> SCENE <scene.toml> OUTPUT <out.anpk>
#               [ALL] [DENY_WARNINGS] [FORMAT <gcc|github|json|sarif>] [EXTRA_ARGS <arg>...])
#
# Cooks a scene into a pack at build time with `animpack cook`. The cooker writes a
# depfile naming the scene and every glTF, buffer and atlas it read, so the pack is
# remade only when one of them changes. <name> is a custom target that builds the pack
# (part of `all`; ALL is accepted for clarity); OUTPUT may be relative to the current
# binary directory, SCENE to the current source directory.
#   DENY_WARNINGS  passes --deny-warnings: a warning fails the build (and writes no pack)
#   FORMAT F       passes --format F: how diagnostics are printed (gcc is the default)
#   EXTRA_ARGS ... passed to `animpack cook` as they are, after the options above
# TARGET, SCENE and OUTPUT are required; an unknown argument, a FORMAT other than the four
# above, or a keyword without its value is a configure-time error naming it.
function(animpack_cook)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "ALL;DENY_WARNINGS" "TARGET;SCENE;OUTPUT;FORMAT"
                        "EXTRA_ARGS")
  if(ARG_UNPARSED_ARGUMENTS)
    list(JOIN ARG_UNPARSED_ARGUMENTS " " unknown)
    message(FATAL_ERROR "animpack_cook: unknown arguments: ${unknown} (it takes TARGET, "
                        "SCENE, OUTPUT, ALL, DENY_WARNINGS, FORMAT and EXTRA_ARGS)")
  endif()
  # An empty EXTRA_ARGS (a list variable that happens to be empty) is fine.
  set(missing ${ARG_KEYWORDS_MISSING_VALUES})
  list(REMOVE_ITEM missing EXTRA_ARGS)
  if(missing)
    list(JOIN missing " " missing)
    message(FATAL_ERROR "animpack_cook: no value after ${missing}")
  endif()
  set(missing)
  foreach(key TARGET SCENE OUTPUT)
    if(NOT DEFINED ARG_${key} OR ARG_${key} STREQUAL "")
      list(APPEND missing ${key})
    endif()
  endforeach()
  if(missing)
    list(JOIN missing ", " missing)
    message(FATAL_ERROR "animpack_cook: missing ${missing} (it needs TARGET, SCENE and OUTPUT)")
  endif()
  set(options)
  if(ARG_DENY_WARNINGS)
    list(APPEND options --deny-warnings)
  endif()
  if(DEFINED ARG_FORMAT)
    if(NOT ARG_FORMAT MATCHES "^(gcc|github|json|sarif)$")
      message(FATAL_ERROR "animpack_cook: FORMAT ${ARG_FORMAT} is not one of gcc, github, "
                          "json, sarif")
    endif()
    list(APPEND options --format ${ARG_FORMAT})
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
    COMMAND ${cooker} cook "${scene}" -o "${output}" --depfile "${output}.d" ${options}
            ${ARG_EXTRA_ARGS}
    DEPENDS "${scene}" ${cooker}
    DEPFILE "${output}.d"
    COMMENT "animpack cook ${ARG_SCENE}"
    VERBATIM)
  add_custom_target(${ARG_TARGET} ALL DEPENDS "${output}")
endfunction()
