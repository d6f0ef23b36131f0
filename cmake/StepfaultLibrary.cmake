# stepfault_folder_library(NAME DEPS...): the folder's *.cc (minus *_test.cc) become library NAME,
# its *_test.cc become the test binary NAME_tests. Globbing (with CONFIGURE_DEPENDS) keeps a new
# file from needing a CMake edit, so parallel work on one folder never conflicts here.
function(stepfault_folder_library name)
  file(GLOB lib_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc ${CMAKE_CURRENT_SOURCE_DIR}/*.c)
  file(GLOB test_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
  list(REMOVE_ITEM lib_sources ${test_sources})
  add_library(${name} STATIC ${lib_sources})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARGN} PRIVATE stepfault_warnings)
  if(test_sources)
    stepfault_add_tests(${name}_tests ${test_sources})
    target_link_libraries(${name}_tests PRIVATE ${name})
  endif()
endfunction()
