# stepfault_folder_library(NAME [RECURSE] DEPS...): the folder's *.cc (minus *_test.cc) become library
# NAME, its *_test.cc become the test binary NAME_tests. With RECURSE the folder's subfolders count too
# (scenarios/: one folder per scenario, one library). Globbing (with CONFIGURE_DEPENDS) keeps a new
# file from needing a CMake edit, so parallel work on one folder never conflicts here.
function(stepfault_folder_library name)
  set(deps ${ARGN})
  set(glob GLOB)
  if(deps AND "${ARGV1}" STREQUAL "RECURSE")
    set(glob GLOB_RECURSE)
    list(REMOVE_AT deps 0)
  endif()
  file(${glob} lib_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc ${CMAKE_CURRENT_SOURCE_DIR}/*.c)
  file(${glob} test_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
  if(test_sources)
    list(REMOVE_ITEM lib_sources ${test_sources})
  endif()
  add_library(${name} STATIC ${lib_sources})
  target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>)
  target_link_libraries(${name} PUBLIC ${deps} PRIVATE stepfault_warnings)
  if(test_sources)
    stepfault_add_tests(${name}_tests ${test_sources})
    target_link_libraries(${name}_tests PRIVATE ${name})
  endif()
endfunction()
