/* SPDX-License-Identifier: MIT */
/* color.h - whether to colour output, one rule for scc and scvm.
**
** mode: 1 (--color=always) and 0 (--color=never) decide.  -1 (auto, the
** default) looks at the environment, first match wins:
**   FORCE_COLOR or CLICOLOR_FORCE set, not empty: on ("0" and "false": off)
**   NO_COLOR set, not empty: off (an empty NO_COLOR means nothing)
**   TERM=dumb: off
**   else: on when fd is a terminal.
** FORCE_COLOR goes first because it is the narrower wish (set for one job
** that shows colour in its log), NO_COLOR the user's general one; the
** command line beats both.  docs/check.md, "Colour". */
#ifndef SC_COLOR_H
#define SC_COLOR_H

#include <stdbool.h>

bool sc_color(int mode, int fd);

#endif
