# SPDX-License-Identifier: MIT
# embed_bytes.cmake - writes a C array holding a file's bytes, at build time:
#   cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed_bytes.cmake
# The output defines `const unsigned char NAME[]` and `const size_t NAME_len`.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR size "${digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
get_filename_component(base "${IN}" NAME)
file(WRITE "${OUT}.tmp"
  "/* Generated from ${base} by embed_bytes.cmake: do not edit. */\n"
  "#include <stddef.h>\n"
  "extern const unsigned char ${NAME}[];\n"
  "extern const size_t ${NAME}_len;\n"
  "const unsigned char ${NAME}[] = {${body}};\n"
  "const size_t ${NAME}_len = ${size};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
