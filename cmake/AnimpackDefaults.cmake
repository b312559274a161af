# Project-wide compile settings, applied per target with animpack_target_defaults().

# animpack_target_defaults(<target>)
#   Warnings (errors when ANIMPACK_WERROR is on) and the floating-point rules every
#   animpack target shares: no contraction into FMA, no fast-math.
function(animpack_target_defaults target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow
    $<$<BOOL:${ANIMPACK_WERROR}>:-Werror>
    $<$<COMPILE_LANGUAGE:C,CXX>:-ffp-contract=off>
    -fno-fast-math
    # g++ 12 at -O3 reports false -Wrestrict overlaps inside std::string (GCC bug 105651),
    # in our code and in GoogleTest's; they are not real overlaps.
    $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>)
endfunction()
