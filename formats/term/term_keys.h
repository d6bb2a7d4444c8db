/* SPDX-License-Identifier: MIT */
/* term_keys.h - key names ("Enter", "Ctrl+C", "F5", "x") -> a key and
** modifiers, without libvterm, so the compiler checks key names with the
** same table the PTY target presses them with.
**
** Names (case-insensitive): Enter/Return, Tab, Backspace, Escape/Esc,
** Up/Down/Left/Right (also ArrowUp ...), Insert, Delete/Del, Home, End,
** PageUp, PageDown, F1-F24, Space, or one UTF-8 character (not a C0
** control or DEL); each optionally prefixed by Ctrl+ (Control+, C-),
** Alt+ (Meta+, M-), Shift+ (S-); "^C" is Ctrl+C. */
#ifndef SC_TERM_KEYS_H
#define SC_TERM_KEYS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum TermKeyId {
    TERM_KEY_CHAR = 0,       /* ch holds the character */
    TERM_KEY_ENTER, TERM_KEY_TAB, TERM_KEY_BACKSPACE, TERM_KEY_ESCAPE,
    TERM_KEY_UP, TERM_KEY_DOWN, TERM_KEY_LEFT, TERM_KEY_RIGHT,
    TERM_KEY_INS, TERM_KEY_DEL, TERM_KEY_HOME, TERM_KEY_END,
    TERM_KEY_PAGEUP, TERM_KEY_PAGEDOWN,
    TERM_KEY_F1              /* F1 .. F24 are TERM_KEY_F1 + 0 .. 23 */
} TermKeyId;

/* Modifier bits: the same values as libvterm's VTERM_MOD_*. */
enum { TERM_MOD_SHIFT = 1, TERM_MOD_ALT = 2, TERM_MOD_CTRL = 4 };

typedef struct TermKey {
    int key;                /* TermKeyId */
    uint32_t ch;            /* TERM_KEY_CHAR: the code point (Ctrl+X -> 'x') */
    unsigned mod;           /* TERM_MOD_* */
} TermKey;

/* Parses a key name; false for an unknown one. */
bool term_key_parse(const char *name, TermKey *k);

#endif
