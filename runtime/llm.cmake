# The mock LLM API server (`scvm serve llm`, docs/serve-llm.md): HTTP/1.1 on
# sockets with poll(2), cJSON for request bodies.  vm/cmd_serve.c, the
# command's option parsing, lives here too so scvm gets it by linking
# sc_rt_llm (vm/CMakeLists.txt links the library when it exists).
add_library(sc_rt_llm STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/http_parse.c
  ${CMAKE_CURRENT_SOURCE_DIR}/llm_script.c
  ${CMAKE_CURRENT_SOURCE_DIR}/llm_render.c
  ${CMAKE_CURRENT_SOURCE_DIR}/llm_route.c
  ${CMAKE_CURRENT_SOURCE_DIR}/llm_assert.c
  ${CMAKE_CURRENT_SOURCE_DIR}/llm_server.c
  ${PROJECT_SOURCE_DIR}/vm/cmd_serve.c)
target_include_directories(sc_rt_llm PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(sc_rt_llm PUBLIC sc_formats sc_common PkgConfig::CJSON m)
# Packs are served when the pack library is part of the build.
if(TARGET sc_pack)
  target_compile_definitions(sc_rt_llm PRIVATE SC_HAVE_PACK=1)
  target_link_libraries(sc_rt_llm PUBLIC sc_pack)
endif()
