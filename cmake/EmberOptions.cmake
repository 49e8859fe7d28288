# Warnings and sanitizers, applied to ember's own targets through ember_options.
add_library(ember_options INTERFACE)
target_compile_options(ember_options INTERFACE -Wall -Wextra -Wno-unused-parameter)
if(EMBER_WERROR)
  target_compile_options(ember_options INTERFACE -Werror)
endif()
if(EMBER_SANITIZE)
  target_compile_options(ember_options INTERFACE -fsanitize=address,undefined
                         -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(ember_options INTERFACE -fsanitize=address,undefined)
endif()
