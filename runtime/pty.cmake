# The PTY target (rt_pty*.c): a real program in a pseudo-terminal, its
# screen kept by libvterm.  scvm links sc_rt_pty when it exists and then
# sees SC_HAVE_RT_PTY.  docs/pty.md describes it.
add_library(sc_rt_pty STATIC
  rt_pty.c rt_pty_ops.c rt_pty_out.c rt_pty_ws.c
  rt_pty_screen.c rt_pty_session.c rt_pty_regex.c)
target_include_directories(sc_rt_pty PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
# posix_openpt, ptsname_r, PR_SET_CHILD_SUBREAPER, nftw: Linux interfaces.
target_compile_definitions(sc_rt_pty PRIVATE _GNU_SOURCE INTERFACE SC_HAVE_RT_PTY=1)
target_link_libraries(sc_rt_pty
  PUBLIC sc_runtime sc_formats sc_common
  PRIVATE PkgConfig::VTERM PkgConfig::XXHASH PkgConfig::CJSON)
