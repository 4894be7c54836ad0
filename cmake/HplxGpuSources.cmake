# hplx_add_gpu_sources: what each library with kernel bodies calls for its
# device instances; a no-op in builds without a GPU backend
# (HPLX_GPU_LANGUAGE empty: the host build without nvcc, the simulated
# cluster's rank program).
# The kernel bodies' device instances in `sources` (files named *.cu), added
# to `target` when a GPU backend is built: compiled by nvcc, or as HIP.
function(hplx_add_gpu_sources target)
  if(NOT HPLX_GPU_LANGUAGE)
    return()
  endif()
  target_sources(${target} PRIVATE ${ARGN})
  if(HPLX_HIP_ENABLED)
    set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target} PROPERTIES LANGUAGE HIP)
  else()
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fopenmp --expt-relaxed-constexpr>)
  endif()
endfunction()
