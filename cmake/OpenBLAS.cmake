# OpenBLAS, OpenMP build (Debian: libopenblas-openmp-dev). We link it directly
# rather than through the libblas.so alternative so the threaded OpenBLAS (and
# its LAPACK, used by the tests as the oracle) is what runs. It has to be
# OpenBLAS: hplx calls its own functions (openblas_set_num_threads,
# openblas_get_config), so another BLA_VENDOR is refused rather than ignored.
if(DEFINED BLA_VENDOR AND NOT BLA_VENDOR MATCHES "^(|OpenBLAS|All)$")
  message(FATAL_ERROR "BLA_VENDOR=${BLA_VENDOR}: hplx needs OpenBLAS (it calls openblas_set_num_threads); "
                      "give its prefix with OPENBLAS_ROOT or CMAKE_PREFIX_PATH")
endif()
# Debian's OpenMP build first: its cblas.h and libopenblas have a folder of
# their own, beside the serial and pthreads builds.
find_path(OPENBLAS_INCLUDE_DIR cblas.h
  PATHS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp /usr/include/openblas
  NO_DEFAULT_PATH)
find_library(OPENBLAS_LIBRARY openblas
  PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp NO_DEFAULT_PATH)
# Elsewhere (a site's module, Spack, a build of one's own): CMake's usual
# places (CMAKE_PREFIX_PATH, PATH's prefixes, the system's) and the variables
# modules set.
find_path(OPENBLAS_INCLUDE_DIR cblas.h
  HINTS ENV OPENBLAS_ROOT ENV OpenBLAS_ROOT ENV EBROOTOPENBLAS ENV CPATH
  PATH_SUFFIXES include include/openblas openblas)
find_library(OPENBLAS_LIBRARY openblas
  HINTS ENV OPENBLAS_ROOT ENV OpenBLAS_ROOT ENV EBROOTOPENBLAS ENV LIBRARY_PATH
  PATH_SUFFIXES lib lib64)
if(NOT OPENBLAS_INCLUDE_DIR OR NOT OPENBLAS_LIBRARY)
  message(FATAL_ERROR "OpenBLAS not found (cblas.h: ${OPENBLAS_INCLUDE_DIR}; libopenblas: ${OPENBLAS_LIBRARY}): "
                      "on Debian run scripts/install-deps.sh (libopenblas-openmp-dev); elsewhere load its module "
                      "(module load openblas, spack load openblas) or set OPENBLAS_ROOT or CMAKE_PREFIX_PATH")
endif()
add_library(hplx_openblas INTERFACE)
target_include_directories(hplx_openblas SYSTEM INTERFACE ${OPENBLAS_INCLUDE_DIR})
target_link_libraries(hplx_openblas INTERFACE ${OPENBLAS_LIBRARY})
message(STATUS "OpenBLAS: ${OPENBLAS_LIBRARY}")
