# The PTY target (rt_pty*.c): a real program in a pseudo-terminal, its
# screen kept by libvterm.  scvm links sc_rt_pty when it exists and then
# sees SC_HAVE_RT_PTY.  docs/pty.md describes it.

# The terminal's small languages, without libvterm: key names and the
# linear-time regex.  The compiler's tui-use front end links them too, so
# it rejects a bad key name or pattern with a position.
add_library(sc_pty_lang STATIC rt_pty_keys.c rt_pty_regex.c)
target_include_directories(sc_pty_lang PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(sc_pty_lang PUBLIC sc_common)

add_library(sc_rt_pty STATIC
  rt_pty.c rt_pty_ops.c rt_pty_out.c rt_pty_ws.c
  rt_pty_screen.c rt_pty_session.c)
target_include_directories(sc_rt_pty PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
# posix_openpt, ptsname_r, PR_SET_CHILD_SUBREAPER, nftw: Linux interfaces.
target_compile_definitions(sc_rt_pty PRIVATE _GNU_SOURCE INTERFACE SC_HAVE_RT_PTY=1)
target_link_libraries(sc_rt_pty
  PUBLIC sc_runtime sc_formats sc_common sc_pty_lang
  PRIVATE PkgConfig::VTERM PkgConfig::XXHASH PkgConfig::CJSON)
