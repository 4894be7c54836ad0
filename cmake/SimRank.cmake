# The simulated cluster's rank program (hplx sim; docs/SIM.md): a build of
# its own, started by cmake/HplxSim.cmake, where <mpi.h> is SimGrid's SMPI
# and the program is what smpirun loads: a position-independent shared
# object with main(), linked to libsimgrid (what smpicxx does, without its
# forced header, whose function-like macros for exit() and malloc() break
# C++ libraries such as CLI11). It compiles the core, the device layer
# (host and sim) and the LU, nothing else: the rank program is hplx lu's
# run on the sim backend. hplx sim runs it without SMPI's privatization
# (one copy of the program for every rank; docs/SIM.md): what it compiles
# keeps no rank's state in static data.
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(fmt REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
include(cmake/OpenBLAS.cmake)
find_path(HPLX_SMPI_INCLUDE_DIR mpi.h PATHS /usr/include/smpi NO_DEFAULT_PATH REQUIRED)
find_library(HPLX_SIMGRID_LIBRARY simgrid REQUIRED)
add_library(MPI::MPI_C INTERFACE IMPORTED)
target_include_directories(MPI::MPI_C INTERFACE ${HPLX_SMPI_INCLUDE_DIR})
target_link_libraries(MPI::MPI_C INTERFACE ${HPLX_SIMGRID_LIBRARY})
# A shared object: -fPIC everywhere (not the -fPIE executables get).
add_compile_options(-fPIC)
set(HPLX_CUDA_ENABLED OFF)
set(HPLX_HIP_ENABLED OFF)
set(HPLX_GPU_LANGUAGE "")
include(${CMAKE_CURRENT_LIST_DIR}/HplxGpuSources.cmake)
set(HPLX_EMULATED OFF CACHE BOOL "" FORCE)
add_compile_options(-Wall -Wextra -Wno-unused-parameter)

add_subdirectory(src/core)
add_subdirectory(src/device)
add_subdirectory(src/lu)
add_executable(hplx-sim-rank apps/hplx-sim-rank/main.cpp apps/hplx/lu_flags.cpp)
target_include_directories(hplx-sim-rank PRIVATE apps/hplx)
target_link_libraries(hplx-sim-rank PRIVATE hplx_lu hplx_device hplx_core CLI11::CLI11)
target_link_options(hplx-sim-rank PRIVATE -shared -Wl,-z,defs)
# SMPI's per-call CPU timers off, preloaded by hplx sim (the file says why).
add_library(hplx-sim-preload SHARED apps/hplx-sim-rank/cpu_timer_off.c)
set_target_properties(hplx-sim-preload PROPERTIES LIBRARY_OUTPUT_DIRECTORY
                                                  ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
