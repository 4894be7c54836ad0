# hplx_add_test(NAME SOURCES... [MPI_RANKS n1 n2 ...] [LIBS ...])
# A plain test runs once. An MPI test runs once per rank count under mpiexec,
# as NAME_np<N>; --oversubscribe lets 3 and 4 ranks run on a 2-core machine.
include(GoogleTest)
find_package(GTest REQUIRED)
set(HPLX_MPIEXEC_FLAGS --oversubscribe --bind-to none CACHE STRING "Extra mpiexec flags for tests")
# Every gtest program, and nothing else: `make test-sanitize` builds only
# these (its ctest leaves out the e2e tests, which run the hplx program).
add_custom_target(hplx_test_programs)

function(hplx_add_test name)
  cmake_parse_arguments(T "" "" "SOURCES;MPI_RANKS;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  add_dependencies(hplx_test_programs ${name})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest)
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  if(T_MPI_RANKS)
    target_link_libraries(${name} PRIVATE hplx_mpi_gtest_main)
    foreach(np IN LISTS T_MPI_RANKS)
      add_test(NAME ${name}_np${np}
        COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${HPLX_MPIEXEC_FLAGS}
                $<TARGET_FILE:${name}>)
      set_tests_properties(${name}_np${np} PROPERTIES
        PROCESSORS ${np} TIMEOUT 600 LABELS mpi
        ENVIRONMENT "OMP_NUM_THREADS=1;OMP_WAIT_POLICY=passive;OPENBLAS_NUM_THREADS=1;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
    endforeach()
  else()
    target_link_libraries(${name} PRIVATE GTest::gtest_main)
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
      PROPERTIES ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endif()
endfunction()
