# `cmake --install build --prefix DIR` (or `make install PREFIX=DIR`):
#   DIR/bin/hplx                         the program (finds its data from its own path)
#   DIR/share/hplx/examples/             HPL.dat files and system specs
#   DIR/share/doc/hplx/                  README.md and docs/
#   DIR/share/man/man1/hplx*.1           man pages, from the --help text (help2man)
#   DIR/share/lmod/hplx/VERSION.lua      Lmod modulefile
#   DIR/share/modulefiles/hplx/VERSION   Tcl modulefile (Environment Modules)
# The layout bin/ + share/hplx/ is fixed: hplx looks for ../share/hplx
# beside its own binary (src/core/install_paths.hpp).

install(TARGETS hplx RUNTIME DESTINATION bin)
# Keep the run path to libraries outside the build tree (OpenBLAS's OpenMP
# variant, the CUDA runtime): the installed hplx must load the same ones.
set_target_properties(hplx PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION share/hplx/examples)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/hplx)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/hplx)

# The build tree gets the same layout, so build/bin/hplx finds the examples.
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/share/hplx)
if(NOT EXISTS ${CMAKE_BINARY_DIR}/share/hplx/examples)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/examples ${CMAKE_BINARY_DIR}/share/hplx/examples SYMBOLIC)
endif()

# Man pages, generated from the --help text at build time so they cannot
# drift from it. help2man runs `hplx SUBCOMMAND --help` through a wrapper
# named hplx-SUBCOMMAND (the page's name); the binary starts as an MPI
# singleton, hence the Open MPI variables for builds run as root.
find_program(HPLX_HELP2MAN help2man)
set(HPLX_MAN_DEFAULT ON)
if(HPLX_SANITIZE)
  set(HPLX_MAN_DEFAULT OFF)  # the sanitized binary's reports have no place in a man page
endif()
option(HPLX_MAN "generate the man pages with help2man" ${HPLX_MAN_DEFAULT})
if(HPLX_MAN AND NOT HPLX_HELP2MAN)
  message(WARNING "hplx: help2man not found: no man pages (scripts/install-deps.sh --test installs it)")
elseif(HPLX_MAN)
  set(man_dir ${CMAKE_BINARY_DIR}/man/man1)
  set(wrap_dir ${CMAKE_BINARY_DIR}/man/wrappers)
  file(MAKE_DIRECTORY ${man_dir} ${wrap_dir})
  set(desc_hplx "HPC benchmarks: HPL, HPL-MxP, HPG-MxP, the HPL model, HTML reports and simulated clusters")
  set(desc_lu "High-Performance Linpack, netlib HPL 2.3 compatible")
  set(desc_mxp "HPG-MxP, mixed-precision GMRES-IR with a multigrid preconditioner")
  set(desc_hpl-mxp "HPL-MxP, FP32 LU without pivoting refined by GMRES in FP64")
  set(desc_model "the HPL performance model, original and multi-communication-layer")
  set(desc_report "an HTML report of hplx lu JSON records")
  set(desc_sim "HPL on a simulated cluster: hplx lu's driver under SimGrid's SMPI")
  set(outputs)
  foreach(sub hplx lu hpl-mxp mxp model report sim)
    set(description "${desc_${sub}}")
    if(sub STREQUAL "hplx")
      set(page hplx)
      set(program $<TARGET_FILE:hplx>)
    else()
      set(page hplx-${sub})
      set(program ${wrap_dir}/${page})
      file(WRITE ${wrap_dir}/${page} "#!/bin/sh\nexec \"$(dirname \"$0\")/../../bin/hplx\" ${sub} \"$@\"\n")
      file(CHMOD ${wrap_dir}/${page} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
           GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
    endif()
    add_custom_command(
      OUTPUT ${man_dir}/${page}.1
      COMMAND ${CMAKE_COMMAND} -E env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
              OMPI_MCA_rmaps_base_oversubscribe=1
              ${HPLX_HELP2MAN} --no-info --version-string=${PROJECT_VERSION}
              "--name=${description}" --section=1
              --include=${PROJECT_SOURCE_DIR}/cmake/install/man-common.h2m
              --output=${man_dir}/${page}.1 ${program}
      DEPENDS hplx ${PROJECT_SOURCE_DIR}/cmake/install/man-common.h2m
      COMMENT "Generating the man page ${page}(1) from its --help"
      VERBATIM)
    list(APPEND outputs ${man_dir}/${page}.1)
  endforeach()
  add_custom_target(hplx_man ALL DEPENDS ${outputs})
  install(FILES ${outputs} DESTINATION share/man/man1)
endif()

install(CODE "set(HPLX_TEMPLATE_DIR \"${PROJECT_SOURCE_DIR}/cmake/install\")
set(HPLX_VERSION \"${PROJECT_VERSION}\")")
install(SCRIPT ${PROJECT_SOURCE_DIR}/cmake/install/write_modulefiles.cmake)
