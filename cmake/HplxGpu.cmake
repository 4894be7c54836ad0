# The GPU backends: CUDA (src/device/cuda/, NVIDIA, cuBLAS) and HIP
# (src/device/hip/, AMD, rocBLAS). A build has at most one: the kernel
# instances (*/gpu_instances.cu) are compiled by nvcc or by HIP's clang.
#
#   HPLX_CUDA=auto|on|off  auto: when nvcc is found and HIP is not asked for
#   HPLX_HIP=auto|on|off   auto: when HIP's clang and rocBLAS are found and
#                          CUDA is not built
#   GPU_TARGETS            the AMD architectures (default gfx90a;gfx942:
#                          MI250X; MI300X and MI300A)
#
# Sets HPLX_CUDA_ENABLED, HPLX_HIP_ENABLED and HPLX_GPU_LANGUAGE (CUDA, HIP
# or empty).
set(HPLX_HIP auto CACHE STRING "build the HIP backend: auto (when HIP's clang and rocBLAS are found), on, off")
set_property(CACHE HPLX_HIP PROPERTY STRINGS auto on off)
set(GPU_TARGETS "gfx90a;gfx942" CACHE STRING "the AMD GPU architectures of the HIP backend's kernels")

# Any case (OFF, On, ...); anything else is refused, not taken for auto.
foreach(switch HPLX_CUDA HPLX_HIP)
  string(TOLOWER "${${switch}}" ${switch})
  if(NOT ${switch} MATCHES "^(auto|on|off)$")
    message(FATAL_ERROR "${switch}=${${switch}}: allowed: auto, on or off")
  endif()
endforeach()
if(HPLX_CUDA STREQUAL "on" AND HPLX_HIP STREQUAL "on")
  message(FATAL_ERROR "HPLX_CUDA=on and HPLX_HIP=on: a build has one GPU backend; configure one build directory for each")
endif()

include(CheckLanguage)

# HIP's clang and the ROCm root as the HIP install says (hipconfig: /opt/rocm
# or Debian's /usr, whose clang is clang++-17), unless given
# (CMAKE_HIP_COMPILER, HIPCXX). Without hipconfig auto looks no further: a
# clang++ on PATH (the fuzzers' clang) is not a HIP install.
function(hplx_find_hip_clang)
  if(DEFINED CMAKE_HIP_COMPILER OR DEFINED ENV{HIPCXX})
    return()
  endif()
  find_program(HPLX_HIPCONFIG hipconfig HINTS /opt/rocm/bin)
  if(NOT HPLX_HIPCONFIG)
    return()
  endif()
  execute_process(COMMAND ${HPLX_HIPCONFIG} --hipclangpath OUTPUT_VARIABLE dir
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND ${HPLX_HIPCONFIG} --rocmpath OUTPUT_VARIABLE root
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  file(GLOB clangs ${dir}/clang++ ${dir}/clang++-[0-9]*)
  if(clangs)
    list(GET clangs 0 clang)
    set(CMAKE_HIP_COMPILER ${clang} CACHE FILEPATH "HIP's clang (from hipconfig)")
    if(root AND NOT DEFINED CMAKE_HIP_COMPILER_ROCM_ROOT)
      set(CMAKE_HIP_COMPILER_ROCM_ROOT ${root} CACHE PATH "the ROCm root (from hipconfig)")
    endif()
  endif()
endfunction()
set(HPLX_CUDA_ENABLED OFF)
set(HPLX_HIP_ENABLED OFF)
set(HPLX_GPU_LANGUAGE "")

# HIP first: asked for (on), or found where CUDA is not asked for.
if(HPLX_HIP STREQUAL "on" OR (HPLX_HIP STREQUAL "auto" AND NOT HPLX_CUDA STREQUAL "on"))
  if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)
    set(CMAKE_HIP_ARCHITECTURES "${GPU_TARGETS}")
  endif()
  hplx_find_hip_clang()
  if(HPLX_HIP STREQUAL "on" OR CMAKE_HIP_COMPILER)
    check_language(HIP)
  endif()
  if(CMAKE_HIP_COMPILER)
    find_package(rocblas CONFIG QUIET)
  endif()
  if(CMAKE_HIP_COMPILER AND rocblas_FOUND)
    enable_language(HIP)
    set(CMAKE_HIP_STANDARD 17)  # the kernel headers are C++17, as for nvcc
    set(CMAKE_HIP_STANDARD_REQUIRED ON)
    find_package(hip CONFIG REQUIRED)
    set(HPLX_HIP_ENABLED ON)
    set(HPLX_GPU_LANGUAGE HIP)
  elseif(HPLX_HIP STREQUAL "on")
    message(FATAL_ERROR "HPLX_HIP=on but HIP's clang (${CMAKE_HIP_COMPILER}) or rocBLAS (rocblas-config.cmake) was not found; install hipcc, libamdhip64-dev and librocblas-dev (Debian 13) or ROCm, or set CMAKE_HIP_COMPILER and CMAKE_PREFIX_PATH")
  endif()
endif()

if(NOT HPLX_HIP_ENABLED AND NOT HPLX_CUDA STREQUAL "off")
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    # The shared runtime and no driver stub: the binary must start on a
    # machine without a GPU (docs/GPU.md).
    set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
    set(CMAKE_CUDA_STANDARD 17)  # what CMake 3.25 knows for nvcc; the kernel headers are C++17
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(HPLX_CUDA_ENABLED ON)
    set(HPLX_GPU_LANGUAGE CUDA)
  elseif(HPLX_CUDA STREQUAL "on")
    message(FATAL_ERROR "HPLX_CUDA=on but no CUDA compiler (nvcc) was found; set CMAKE_CUDA_COMPILER")
  endif()
endif()
message(STATUS "hplx: CUDA backend ${HPLX_CUDA_ENABLED} (HPLX_CUDA=${HPLX_CUDA}), HIP backend ${HPLX_HIP_ENABLED} (HPLX_HIP=${HPLX_HIP})")
if(HPLX_HIP_ENABLED)
  message(STATUS "hplx: HIP kernels for ${CMAKE_HIP_ARCHITECTURES}")
endif()

include(${CMAKE_CURRENT_LIST_DIR}/HplxGpuSources.cmake)
