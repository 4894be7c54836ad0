# The simulated cluster (hplx sim, docs/SIM.md): the rank program is built
# by a sub-build of this source tree with SimGrid's smpicxx
# (cmake/SimRank.cmake) into libexec/hplx/hplx-sim-rank, beside the build's
# bin/, where `hplx sim` looks for it (core/install_paths.hpp).
set(HPLX_SIM auto CACHE STRING "build the simulated cluster (hplx sim): auto (when SimGrid's smpicxx is found), on, off")
set_property(CACHE HPLX_SIM PROPERTY STRINGS auto on off)
set(HPLX_SIM_ENABLED OFF)
if(NOT HPLX_SIM STREQUAL "off")
  find_program(HPLX_SMPICXX smpicxx)
  find_program(HPLX_SMPICC smpicc)
  if(HPLX_SMPICXX AND HPLX_SMPICC)
    set(HPLX_SIM_ENABLED ON)
  elseif(HPLX_SIM STREQUAL "on")
    message(FATAL_ERROR "HPLX_SIM=on but SimGrid's smpicxx was not found: run scripts/install-deps.sh --test (libsimgrid-dev)")
  endif()
endif()
message(STATUS "hplx: simulated cluster ${HPLX_SIM_ENABLED} (HPLX_SIM=${HPLX_SIM})")
if(HPLX_SIM_ENABLED)
  include(ExternalProject)
  ExternalProject_Add(hplx_sim_rank
    SOURCE_DIR ${CMAKE_SOURCE_DIR}
    BINARY_DIR ${CMAKE_BINARY_DIR}/sim-rank
    CMAKE_ARGS -DHPLX_SIM_RANK=ON -DCMAKE_BUILD_TYPE=Release
               -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER} -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
               -DCMAKE_RUNTIME_OUTPUT_DIRECTORY=${CMAKE_BINARY_DIR}/libexec/hplx
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON
    USES_TERMINAL_BUILD ON)
  # Part of the default build (`make build`, `make test`), not a dependency
  # of hplx: `make run` builds only hplx and what it links, and `hplx sim`
  # says how to build the rank program when it is missing.
  install(PROGRAMS ${CMAKE_BINARY_DIR}/libexec/hplx/hplx-sim-rank DESTINATION libexec/hplx)
  install(FILES ${CMAKE_BINARY_DIR}/libexec/hplx/libhplx-sim-preload.so DESTINATION libexec/hplx)
endif()
