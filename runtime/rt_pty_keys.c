/* rt_pty_keys.c - key names -> PtyKey (rt_pty_keys.h).  Shared by the PTY
** target (which encodes keys through libvterm for the program's modes)
** and the compiler's tui-use front end (which rejects unknown names with
** a position). */
#include "rt_pty_keys.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/buf.h"

static const struct {
    const char *name;
    int key;
    uint32_t ch;
} KEY_NAMES[] = {
    { "enter", PTY_KEY_ENTER, 0 }, { "return", PTY_KEY_ENTER, 0 },
    { "tab", PTY_KEY_TAB, 0 }, { "backspace", PTY_KEY_BACKSPACE, 0 },
    { "escape", PTY_KEY_ESCAPE, 0 }, { "esc", PTY_KEY_ESCAPE, 0 },
    { "up", PTY_KEY_UP, 0 }, { "down", PTY_KEY_DOWN, 0 },
    { "left", PTY_KEY_LEFT, 0 }, { "right", PTY_KEY_RIGHT, 0 },
    { "arrowup", PTY_KEY_UP, 0 }, { "arrowdown", PTY_KEY_DOWN, 0 },
    { "arrowleft", PTY_KEY_LEFT, 0 }, { "arrowright", PTY_KEY_RIGHT, 0 },
    { "insert", PTY_KEY_INS, 0 }, { "delete", PTY_KEY_DEL, 0 }, { "del", PTY_KEY_DEL, 0 },
    { "home", PTY_KEY_HOME, 0 }, { "end", PTY_KEY_END, 0 },
    { "pageup", PTY_KEY_PAGEUP, 0 }, { "pagedown", PTY_KEY_PAGEDOWN, 0 },
    { "space", PTY_KEY_CHAR, ' ' },
};

/* Decodes one UTF-8 character that is the whole of s. */
static bool one_char(const char *s, uint32_t *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    if (n == 0 || !utf8_valid(p, n, NULL))
        return false;
    uint32_t c;
    size_t len;
    if (p[0] < 0x80) { c = p[0]; len = 1; }
    else if (p[0] < 0xE0) { c = p[0] & 0x1Fu; len = 2; }
    else if (p[0] < 0xF0) { c = p[0] & 0x0Fu; len = 3; }
    else { c = p[0] & 0x07u; len = 4; }
    if (len != n)
        return false;
    for (size_t i = 1; i < len; i++)
        c = c << 6 | (p[i] & 0x3Fu);
    *out = c;
    return true;
}

bool pty_key_parse(const char *name, PtyKey *k)
{
    memset(k, 0, sizeof *k);
    const char *p = name;
    if (p[0] == '^' && p[1] && !p[2]) {          /* ^C */
        k->mod = PTY_MOD_CTRL;
        p++;
    }
    for (;;) {
        static const struct { const char *pre; unsigned m; } mods[] = {
            { "ctrl+", PTY_MOD_CTRL }, { "control+", PTY_MOD_CTRL }, { "c-", PTY_MOD_CTRL },
            { "alt+", PTY_MOD_ALT }, { "meta+", PTY_MOD_ALT }, { "m-", PTY_MOD_ALT },
            { "shift+", PTY_MOD_SHIFT }, { "s-", PTY_MOD_SHIFT },
        };
        bool found = false;
        for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++) {
            size_t n = strlen(mods[i].pre);
            if (strncasecmp(p, mods[i].pre, n) == 0 && p[n]) {
                k->mod |= mods[i].m;
                p += n;
                found = true;
                break;
            }
        }
        if (!found)
            break;
    }
    for (size_t i = 0; i < sizeof KEY_NAMES / sizeof KEY_NAMES[0]; i++) {
        if (strcasecmp(p, KEY_NAMES[i].name) == 0) {
            k->key = KEY_NAMES[i].key;
            k->ch = KEY_NAMES[i].ch;
            return true;
        }
    }
    if ((p[0] == 'F' || p[0] == 'f') && p[1] >= '1' && p[1] <= '9') {
        char *end;
        long n = strtol(p + 1, &end, 10);
        if (!*end && n >= 1 && n <= 24) {
            k->key = PTY_KEY_F1 + (int)n - 1;
            return true;
        }
    }
    uint32_t c;
    if (one_char(p, &c) && c >= 0x20 && c != 0x7F) {
        /* Ctrl+C and Ctrl+c are the same key. */
        if ((k->mod & PTY_MOD_CTRL) && c >= 'A' && c <= 'Z')
            c = c - 'A' + 'a';
        k->key = PTY_KEY_CHAR;
        k->ch = c;
        return true;
    }
    return false;
}
