# bashkit_layer(<target> [DEPS <targets>...] [LIBS <external libraries>...])
# Defines the library of one layer from the .cpp files of the calling directory (recursively in its own
# folder but not in subfolders that are layers of their own). A layer without sources yet is an INTERFACE
# target, so the layering can be linked against before it has code.
function(bashkit_layer target)
  cmake_parse_arguments(L "" "" "DEPS;LIBS" ${ARGN})
  file(GLOB _sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  if(_sources)
    add_library(${target} STATIC ${_sources})
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${BASHKIT_ROOT}>
                                                $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/bashkit>)
    target_link_libraries(${target} PUBLIC ${L_DEPS} ${L_LIBS} PRIVATE bashkit_options)
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE $<BUILD_INTERFACE:${BASHKIT_ROOT}>
                                                   $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/bashkit>)
    target_link_libraries(${target} INTERFACE ${L_DEPS} ${L_LIBS})
  endif()
  set_property(GLOBAL APPEND PROPERTY BASHKIT_LAYERS ${target})
endfunction()
