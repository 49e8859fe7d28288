# Installs ember from BUILD_DIR into a fresh prefix, builds the consumer project against it with
# find_package(ember), and runs it. Run with cmake -P; ember's CTest passes the -D variables.
#   BUILD_DIR     ember's build directory (already built)
#   SOURCE_DIR    this folder
#   GENERATOR     CMake generator for the consumer
#   CXX_COMPILER  the compiler ember was built with
#   SANITIZE      ON when ember was built with sanitizers: the consumer must link them too
foreach(var BUILD_DIR SOURCE_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run.cmake: pass -D${var}=...")
  endif()
endforeach()

set(prefix "${BUILD_DIR}/consumer-install")
set(work "${BUILD_DIR}/consumer-build")
# Start clean: a stale prefix or cache would hide a broken install.
file(REMOVE_RECURSE "${prefix}" "${work}")

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer test: ${what} failed (${rc})")
  endif()
endfunction()

run_step("install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")

set(flags "")
if(SANITIZE)
  set(flags "-fsanitize=address,undefined")
endif()
run_step("configure" "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${work}" -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_PREFIX_PATH=${prefix}"
  "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}"
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
# find_package must have found the installed package, not ember's build tree.
file(STRINGS "${work}/CMakeCache.txt" ember_dir REGEX "^ember_DIR:")
if(NOT ember_dir MATCHES "consumer-install/")
  message(FATAL_ERROR "consumer test: ember found at '${ember_dir}', not under ${prefix}")
endif()
run_step("build" "${CMAKE_COMMAND}" --build "${work}")
run_step("run" "${work}/consumer" "${work}")
