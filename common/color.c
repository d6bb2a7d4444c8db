/* SPDX-License-Identifier: MIT */
/* color.c - whether to colour output (color.h). */
#include "color.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *set(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

bool sc_color(int mode, int fd)
{
    if (mode >= 0)
        return mode > 0;
    const char *force = set("FORCE_COLOR");
    if (!force)
        force = set("CLICOLOR_FORCE");
    if (force)
        return strcmp(force, "0") != 0 && strcmp(force, "false") != 0;
    if (set("NO_COLOR"))
        return false;
    const char *term = getenv("TERM");
    if (term && strcmp(term, "dumb") == 0)
        return false;
    return isatty(fd) == 1;
}
