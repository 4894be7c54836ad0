# Runs at install time (install(CODE) in cmake/HplxInstall.cmake), when the
# prefix is final: `cmake --install build --prefix DIR` changes it after
# configuration. Writes the Lmod and Tcl modulefiles with the absolute
# prefix, under $DESTDIR when staging.
#   HPLX_TEMPLATE_DIR, HPLX_VERSION: set by the caller.
get_filename_component(HPLX_PREFIX "${CMAKE_INSTALL_PREFIX}" ABSOLUTE)
foreach(kind lua tcl)
  if(kind STREQUAL "lua")
    set(dest "${HPLX_PREFIX}/share/lmod/hplx/${HPLX_VERSION}.lua")
  else()
    set(dest "${HPLX_PREFIX}/share/modulefiles/hplx/${HPLX_VERSION}")
  endif()
  message(STATUS "Installing: $ENV{DESTDIR}${dest}")
  configure_file("${HPLX_TEMPLATE_DIR}/hplx.${kind}.in" "$ENV{DESTDIR}${dest}" @ONLY)
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES "$ENV{DESTDIR}${dest}")
endforeach()
