# `cmake --install` puts the libraries, their headers and a CMake package in the prefix, so another
# CMake project can `find_package(Stepfault)` and link Stepfault::engine, Stepfault::stores,
# Stepfault::faults, Stepfault::store_conformance, Stepfault::store_crash_properties, ... (see
# examples/consumer, which tools/test builds against an installed copy).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(stepfault_exported
    stepfault_engine:engine
    stepfault_stores:stores
    stepfault_faults:faults
    stepfault_blackbox_faults:blackbox_faults
    stepfault_scenarios:scenarios
    stepfault_reports:reports
    stepfault_properties:properties
    stepfault_store_conformance:store_conformance
    stepfault_store_crash_properties:store_crash_properties)
set(stepfault_install_targets stepfault_warnings)
foreach(pair IN LISTS stepfault_exported)
  string(REPLACE ":" ";" parts "${pair}")
  list(GET parts 0 target)
  list(GET parts 1 export_name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
  target_include_directories(${target} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/stepfault>)
  list(APPEND stepfault_install_targets ${target})
endforeach()
# stepfault_warnings is linked privately by every library; a static library's private links are part
# of its link interface, so the (empty at link time) target travels with the package.
set_target_properties(stepfault_warnings PROPERTIES EXPORT_NAME warnings)

install(TARGETS ${stepfault_install_targets} EXPORT StepfaultTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(dir engine faults scenarios properties reports)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/stepfault/${dir}
          FILES_MATCHING PATTERN "*.h"
          PATTERN "*_internal.h" EXCLUDE PATTERN "*_test_util.h" EXCLUDE PATTERN "testdata" EXCLUDE PATTERN "examples" EXCLUDE)
endforeach()
install(EXPORT StepfaultTargets NAMESPACE Stepfault:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Stepfault)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/StepfaultConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/StepfaultConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Stepfault)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/StepfaultConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/StepfaultConfig.cmake ${CMAKE_BINARY_DIR}/StepfaultConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Stepfault)
