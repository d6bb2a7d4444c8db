/* SPDX-License-Identifier: MIT */
/* term_keys.c - key names -> TermKey (term_keys.h).  Shared by the PTY
** target (which encodes keys through libvterm for the program's modes)
** and the compiler's tui-use front end (which rejects unknown names with
** a position). */
#include "term_keys.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/utf8.h"

static const struct {
    const char *name;
    int key;
    uint32_t ch;
} KEY_NAMES[] = {
    { "enter", TERM_KEY_ENTER, 0 }, { "return", TERM_KEY_ENTER, 0 },
    { "tab", TERM_KEY_TAB, 0 }, { "backspace", TERM_KEY_BACKSPACE, 0 },
    { "escape", TERM_KEY_ESCAPE, 0 }, { "esc", TERM_KEY_ESCAPE, 0 },
    { "up", TERM_KEY_UP, 0 }, { "down", TERM_KEY_DOWN, 0 },
    { "left", TERM_KEY_LEFT, 0 }, { "right", TERM_KEY_RIGHT, 0 },
    { "arrowup", TERM_KEY_UP, 0 }, { "arrowdown", TERM_KEY_DOWN, 0 },
    { "arrowleft", TERM_KEY_LEFT, 0 }, { "arrowright", TERM_KEY_RIGHT, 0 },
    { "insert", TERM_KEY_INS, 0 }, { "delete", TERM_KEY_DEL, 0 }, { "del", TERM_KEY_DEL, 0 },
    { "home", TERM_KEY_HOME, 0 }, { "end", TERM_KEY_END, 0 },
    { "pageup", TERM_KEY_PAGEUP, 0 }, { "pagedown", TERM_KEY_PAGEDOWN, 0 },
    { "space", TERM_KEY_CHAR, ' ' },
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

bool term_key_parse(const char *name, TermKey *k)
{
    memset(k, 0, sizeof *k);
    const char *p = name;
    if (p[0] == '^' && p[1] && !p[2]) {          /* ^C */
        k->mod = TERM_MOD_CTRL;
        p++;
    }
    for (;;) {
        static const struct { const char *pre; unsigned m; } mods[] = {
            { "ctrl+", TERM_MOD_CTRL }, { "control+", TERM_MOD_CTRL }, { "c-", TERM_MOD_CTRL },
            { "alt+", TERM_MOD_ALT }, { "meta+", TERM_MOD_ALT }, { "m-", TERM_MOD_ALT },
            { "shift+", TERM_MOD_SHIFT }, { "s-", TERM_MOD_SHIFT },
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
            k->key = TERM_KEY_F1 + (int)n - 1;
            return true;
        }
    }
    uint32_t c;
    if (one_char(p, &c) && c >= 0x20 && c != 0x7F) {
        /* Ctrl+C and Ctrl+c are the same key. */
        if ((k->mod & TERM_MOD_CTRL) && c >= 'A' && c <= 'Z')
            c = c - 'A' + 'a';
        k->key = TERM_KEY_CHAR;
        k->ch = c;
        return true;
    }
    return false;
}
