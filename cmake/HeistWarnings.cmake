# Warning flags for every heist target; HEIST_WERROR (on in CI) makes them errors.
add_library(heist_warnings INTERFACE)
target_compile_options(heist_warnings INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic>
  $<$<COMPILE_LANG_AND_ID:C,GNU,Clang>:-Wall -Wextra -Wpedantic>
  $<$<BOOL:${HEIST_WERROR}>:-Werror>)
