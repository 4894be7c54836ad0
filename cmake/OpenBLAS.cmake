# OpenBLAS, OpenMP build (Debian: libopenblas-openmp-dev). We link it directly
# rather than through the libblas.so alternative so the threaded OpenBLAS (and
# its LAPACK, used by the tests as the oracle) is what runs.
find_path(OPENBLAS_INCLUDE_DIR cblas.h
  PATHS /usr/include/x86_64-linux-gnu/openblas-openmp /usr/include/openblas
  NO_DEFAULT_PATH)
find_library(OPENBLAS_LIBRARY openblas
  PATHS /usr/lib/x86_64-linux-gnu/openblas-openmp NO_DEFAULT_PATH)
if(NOT OPENBLAS_INCLUDE_DIR OR NOT OPENBLAS_LIBRARY)
  message(FATAL_ERROR "OpenBLAS (OpenMP build) not found: run scripts/install-deps.sh")
endif()
add_library(hplx_openblas INTERFACE)
target_include_directories(hplx_openblas SYSTEM INTERFACE ${OPENBLAS_INCLUDE_DIR})
target_link_libraries(hplx_openblas INTERFACE ${OPENBLAS_LIBRARY})
message(STATUS "OpenBLAS: ${OPENBLAS_LIBRARY}")
