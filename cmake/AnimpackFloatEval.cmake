# Determinism needs every float and double operation rounded to its own type
# (FLT_EVAL_METHOD 0), as SSE2, AVX, NEON and every other IEEE-754 unit do. 32-bit x86
# defaults to x87 math, which keeps intermediates in 80-bit registers: the golden hashes
# differ there, and between -O0 and -O3. So:
#   - FLT_EVAL_METHOD 0 with the toolchain's flags: nothing to do;
#   - 32-bit x86: every target is built with -msse2 -mfpmath=sse (checked to give 0);
#   - anything else (e.g. -mfpmath=387 on x86-64): configuration stops with an error.
# docs/runtime.md ("Determinism") documents this.
include(CheckCXXSourceCompiles)
include(CMakePushCheckState)

set(animpack_float_eval_source "
#if !defined(__FLT_EVAL_METHOD__) || __FLT_EVAL_METHOD__ != 0
#error excess floating-point precision (FLT_EVAL_METHOD is not 0)
#endif
int animpack_float_eval_ok() { return 0; }
")

cmake_push_check_state(RESET)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)  # compile only: no target libc needed
check_cxx_source_compiles("${animpack_float_eval_source}" ANIMPACK_FLOAT_EVAL_IS_EXACT)
cmake_pop_check_state()

if(NOT ANIMPACK_FLOAT_EVAL_IS_EXACT)
  cmake_push_check_state(RESET)
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  check_cxx_source_compiles("
#if !defined(__i386__)
#error not 32-bit x86
#endif
int animpack_is_i386() { return 0; }
" ANIMPACK_TARGET_IS_I386)
  set(CMAKE_REQUIRED_FLAGS "-msse2 -mfpmath=sse")
  check_cxx_source_compiles("${animpack_float_eval_source}" ANIMPACK_FLOAT_EVAL_IS_EXACT_WITH_SSE2)
  cmake_pop_check_state()
  if(ANIMPACK_TARGET_IS_I386 AND ANIMPACK_FLOAT_EVAL_IS_EXACT_WITH_SSE2)
    message(STATUS "animpack: 32-bit x86: building with -msse2 -mfpmath=sse (no x87 math)")
    add_compile_options(-msse2 -mfpmath=sse)
  else()
    message(FATAL_ERROR
      "animpack: this target evaluates floating point with excess precision "
      "(FLT_EVAL_METHOD != 0, e.g. x87 math), which breaks the runtime's bit-identical "
      "playback. Build for SSE2 (-msse2 -mfpmath=sse) or another IEEE-754 unit that "
      "rounds each operation to its type; see docs/runtime.md, \"Determinism\".")
  endif()
endif()
