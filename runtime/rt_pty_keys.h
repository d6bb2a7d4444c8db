/* rt_pty_keys.h - key names ("Enter", "Ctrl+C", "F5", "x") -> a key and
** modifiers, without libvterm, so the compiler checks key names with the
** same table the PTY target presses them with.
**
** Names (case-insensitive): Enter/Return, Tab, Backspace, Escape/Esc,
** Up/Down/Left/Right (also ArrowUp ...), Insert, Delete/Del, Home, End,
** PageUp, PageDown, F1-F24, Space, or one UTF-8 character (not a C0
** control or DEL); each optionally prefixed by Ctrl+ (Control+, C-),
** Alt+ (Meta+, M-), Shift+ (S-); "^C" is Ctrl+C. */
#ifndef SC_RT_PTY_KEYS_H
#define SC_RT_PTY_KEYS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum PtyKeyId {
    PTY_KEY_CHAR = 0,       /* ch holds the character */
    PTY_KEY_ENTER, PTY_KEY_TAB, PTY_KEY_BACKSPACE, PTY_KEY_ESCAPE,
    PTY_KEY_UP, PTY_KEY_DOWN, PTY_KEY_LEFT, PTY_KEY_RIGHT,
    PTY_KEY_INS, PTY_KEY_DEL, PTY_KEY_HOME, PTY_KEY_END,
    PTY_KEY_PAGEUP, PTY_KEY_PAGEDOWN,
    PTY_KEY_F1              /* F1 .. F24 are PTY_KEY_F1 + 0 .. 23 */
} PtyKeyId;

/* Modifier bits: the same values as libvterm's VTERM_MOD_*. */
enum { PTY_MOD_SHIFT = 1, PTY_MOD_ALT = 2, PTY_MOD_CTRL = 4 };

typedef struct PtyKey {
    int key;                /* PtyKeyId */
    uint32_t ch;            /* PTY_KEY_CHAR: the code point (Ctrl+X -> 'x') */
    unsigned mod;           /* PTY_MOD_* */
} PtyKey;

/* Parses a key name; false for an unknown one. */
bool pty_key_parse(const char *name, PtyKey *k);

#endif
