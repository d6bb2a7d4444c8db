/* SPDX-License-Identifier: MIT */
/* pty_replay.c - plays a recorded output stream (asciicast v2) into the
** PTY target's screen (rt_pty_screen.c: libvterm, the code scvm -t pty
** uses) and prints the screen as JSON, for the differential test against
** @xterm/headless (tests/pty/differential.py, xterm_replay.cjs prints the
** same shape).
**
** usage: pty_replay FILE.cast
**
** Output: one JSON array of checkpoints.  A checkpoint is taken before each
** input event ("i") that follows output, and at the end, so a recorded
** session is compared at every point where the program waited for a key,
** not only at its last screen:
**   [{"event":N,"rows":R,"cols":C,"cursor":{"row":Y,"col":X,"visible":B},
**     "alternate_screen":B,"lines":["...", ...]}, ...]
** N is the index of the cast event the screen is taken before (the event
** count for the last checkpoint).  Lines have trailing spaces trimmed.
** Resize events ("r", "COLSxROWS") resize the screen.  Replies the screen
** would send to the program are dropped: the recorded program already got
** them.  Exit status: 0, or 2 on a bad file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "runtime/pty/rt_pty_screen.h"

/* The whole file, NUL-terminated, in *b; false when unreadable. */
static bool slurp(const char *path, Buf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char tmp[65536];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
        buf_put(b, tmp, k);
    fclose(f);
    buf_putc(b, 0);
    return !b->oom;
}

static void checkpoint(const PtyScreen *s, long event, bool *first, Buf *out)
{
    Buf snap;
    buf_init(&snap);
    pty_screen_snapshot_json(s, "replay", 0, &snap);
    /* {"snapshot_version":1,"snapshot_id":"replay",... -> {"event":N,... */
    const char *p = strstr((const char *)snap.data, ",\"rows\"");
    buf_printf(out, "%s{\"event\":%ld", *first ? "[" : ",\n", event);
    *first = false;
    if (p)
        buf_put(out, p, snap.len - (size_t)(p - (const char *)snap.data));
    buf_fini(&snap);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: pty_replay FILE.cast\n");
        return 2;
    }
    Buf file;
    buf_init(&file);
    if (!slurp(argv[1], &file)) {
        fprintf(stderr, "pty_replay: cannot read %s\n", argv[1]);
        buf_fini(&file);
        return 2;
    }
    char *text = (char *)file.data;
    char *save = NULL;
    char *line = strtok_r(text, "\n", &save);
    cJSON *hdr = line ? cJSON_Parse(line) : NULL;
    cJSON *w = cJSON_GetObjectItemCaseSensitive(hdr, "width");
    cJSON *h = cJSON_GetObjectItemCaseSensitive(hdr, "height");
    cJSON *v = cJSON_GetObjectItemCaseSensitive(hdr, "version");
    if (!cJSON_IsNumber(w) || !cJSON_IsNumber(h) || !cJSON_IsNumber(v) || v->valueint != 2
        || w->valueint < 1 || w->valueint > 500 || h->valueint < 1 || h->valueint > 500) {
        fprintf(stderr, "pty_replay: %s: not an asciicast v2 header with width and height 1-500\n", argv[1]);
        cJSON_Delete(hdr);
        buf_fini(&file);
        return 2;
    }
    PtyScreen *s = pty_screen_new(h->valueint, w->valueint, NULL, NULL, NULL);
    cJSON_Delete(hdr);
    if (!s) {
        buf_fini(&file);
        return 2;
    }
    Buf out;
    buf_init(&out);
    bool first = true, fed = false;
    long event = 0;
    int status = 0;
    for (line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save), event++) {
        cJSON *e = cJSON_Parse(line);
        cJSON *code = cJSON_GetArrayItem(e, 1), *data = cJSON_GetArrayItem(e, 2);
        if (!cJSON_IsArray(e) || !cJSON_IsString(code) || !cJSON_IsString(data)) {
            fprintf(stderr, "pty_replay: %s: event %ld is not [time, code, data]\n", argv[1], event);
            cJSON_Delete(e);
            status = 2;
            break;
        }
        const char *c = code->valuestring, *d = data->valuestring;
        if (strcmp(c, "o") == 0) {
            pty_screen_feed(s, d, strlen(d));
            fed = true;
        } else if (strcmp(c, "i") == 0 && fed) {
            checkpoint(s, event, &first, &out);
            fed = false;
        } else if (strcmp(c, "r") == 0) {
            int cols, rows;
            if (sscanf(d, "%dx%d", &cols, &rows) == 2 && cols >= 1 && cols <= 500 && rows >= 1 && rows <= 500)
                pty_screen_resize(s, rows, cols);
        }
        cJSON_Delete(e);
    }
    if (status == 0) {
        checkpoint(s, event, &first, &out);
        buf_puts(&out, "]\n");
        fwrite(out.data, 1, out.len, stdout);
    }
    buf_fini(&out);
    pty_screen_free(s);
    buf_fini(&file);
    return status;
}
