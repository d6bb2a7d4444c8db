/* SPDX-License-Identifier: MIT */
/* report.c - the HTML run report (report.h, docs/report.md).
**
** A run page is drawn from what the run left: its event lines (the JSONL
** scvm prints), its diagnostics, and its artifacts folder.  The recording
** (session.cast, asciicast v2) is replayed through libvterm, the screen the
** PTY target itself keeps (rt_pty_screen.h), and each screen it passes
** through becomes a frame: its golden text is read back (term_svg.h) and
** each row drawn as SVG, each distinct row kept once; a frame is its time,
** width, cursor and the ids of its rows.  A small script composes a frame's
** rows into the page's <svg> and steps through the frames on their times.
**
** Everything a page needs is in the page; strings that go into a script
** have < > & escaped as \u003c ..., so no text of the run can end the
** script element. */
#include "runtime/report/report.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "common/fileio.h"
#include "common/fnv1a.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "formats/term/term_svg.h"
#include "runtime/pty/rt_pty.h"
#include "runtime/pty/rt_pty_screen.h"

#define FILE_MAX ((size_t)64 << 20)     /* bytes of an artifact read */
#define TABLE_MAX 2000                  /* event rows in a page's table */
#define CELL_MAX 300                    /* bytes of an event shown in a cell */
#define FRAMES_MAX 5000                 /* frames of a recording kept */
#define FRAME_GAP_MS 15                 /* output closer than this is one frame */
#define PLOT_W 1000                     /* px: the timeline's time axis */
#define LANES_MAX 10                    /* lanes by event kind, then "other" */

static void esc(Buf *out, const char *s, size_t n) { term_xml_esc(out, s, n); }
static void escs(Buf *out, const char *s) { if (s) term_xml_esc(out, s, strlen(s)); }

static const char *verdict_of(int status, bool skipped)
{
    return skipped ? "skipped" : status == 0 ? "passed" : status == 1 ? "failed" : "error";
}

void report_page_name(const ReportRun *r, char *out, size_t n)
{
    char safe[200];
    rt_pty_safe_name(r->name ? r->name : "", safe, sizeof safe);
    snprintf(out, n, "%04u-%s.html", (unsigned)r->index, safe);
}

/* The stylesheet of every report page. */
static void page_begin(const char *title, Buf *out)
{
    buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width\">\n<title>");
    escs(out, title);
    buf_puts(out, "</title>\n<style>\n"
                  "body{margin:16px;background:#f4f4f4;color:#202020;font:14px system-ui,sans-serif}\n"
                  "h1{font-size:18px;margin:0 0 6px}h2{font-size:15px;margin:20px 0 6px}\n"
                  ".meta{color:#555;margin:0 0 8px}\n"
                  ".result{display:inline-block;padding:0 6px;border-radius:3px;color:#fff;background:#666;"
                  "font-size:12px;vertical-align:middle}\n"
                  ".result.match,.result.passed,.result.written,.result.updated,.result.recorded{background:#2e7d32}\n"
                  ".result.mismatch,.result.missing,.result.failed,.result.error{background:#c62828}\n"
                  ".result.skipped{background:#9e9e9e}\n"
                  ".why{background:#fdecea;border:1px solid #e0a0a0;padding:6px 8px;white-space:pre-wrap}\n"
                  "table{border-collapse:collapse;background:#fff}td,th{border:1px solid #ccc;padding:2px 6px;"
                  "text-align:left;vertical-align:top}th{background:#eee}\n"
                  "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
                  "tr.bad td{background:#fdecea}\n"
                  "code,pre{font:12px DejaVu Sans Mono,monospace}\n"
                  "pre{background:#fff;border:1px solid #ccc;padding:8px;overflow:auto;max-height:480px}\n"
                  "pre.said{border:0;padding:0;margin:0;white-space:pre-wrap;max-height:240px}\n"
                  ".add{color:#0a6a0a}.del{color:#b00000}.ctl{color:#a0a0a0}\n"
                  ".side{display:inline-block;vertical-align:top;margin:0 16px 12px 0}\n"
                  ".side h3{font-size:13px;margin:0 0 4px}\n"
                  "svg.scc-screen{display:block;border:1px solid #888}\n"
                  "#player .bar{margin:6px 0}#player button{min-width:90px}\n"
                  "#player input[type=range]{width:420px;vertical-align:middle}\n"
                  ".totals span{margin-right:14px}\n"
                  ".strip{display:flex;height:10px;width:420px;margin:6px 0}\n"
                  "</style>\n</head>\n<body>\n");
}

/* ---------- the recording as a player ---------- */

typedef struct Dict {
    char **s;
    size_t *len;
    size_t n, cap;
    uint32_t *slot;             /* open addressing: id + 1, 0 empty */
    size_t nslot;
} Dict;

/* The id of fragment s, added when new; UINT32_MAX when out of memory. */
static uint32_t dict_id(Dict *d, const char *s, size_t n)
{
    if ((d->n + 1) * 2 > d->nslot) {
        size_t ns = d->nslot ? d->nslot * 2 : 256;
        uint32_t *sl = sc_calloc(ns, sizeof *sl);
        if (!sl)
            return UINT32_MAX;
        for (size_t i = 0; i < d->n; i++) {
            size_t k = fnv1a64(d->s[i], d->len[i]) & (ns - 1);
            while (sl[k])
                k = (k + 1) & (ns - 1);
            sl[k] = (uint32_t)i + 1;
        }
        sc_free(d->slot);
        d->slot = sl;
        d->nslot = ns;
    }
    size_t k = fnv1a64(s, n) & (d->nslot - 1);
    while (d->slot[k]) {
        uint32_t i = d->slot[k] - 1;
        if (d->len[i] == n && memcmp(d->s[i], s, n) == 0)
            return i;
        k = (k + 1) & (d->nslot - 1);
    }
    if (d->n == d->cap) {
        size_t nc = d->cap ? d->cap * 2 : 64;
        char **ns = sc_realloc(d->s, nc * sizeof *ns);
        if (!ns)
            return UINT32_MAX;
        d->s = ns;
        size_t *nl = sc_realloc(d->len, nc * sizeof *nl);
        if (!nl)
            return UINT32_MAX;
        d->len = nl;
        d->cap = nc;
    }
    char *c = sc_strndup(s, n);
    if (!c)
        return UINT32_MAX;
    d->s[d->n] = c;
    d->len[d->n] = n;
    d->slot[k] = (uint32_t)d->n + 1;
    return (uint32_t)d->n++;
}

static void dict_fini(Dict *d)
{
    for (size_t i = 0; i < d->n; i++)
        sc_free(d->s[i]);
    sc_free(d->s);
    sc_free(d->len);
    sc_free(d->slot);
}

/* Appends the frame of the screen now to frames (as a JSON array); *inked
** tells whether it shows any character. */
static bool capture(PtyScreen *scr, uint64_t ms, Dict *d, Buf *frames, Buf *tmp, bool *inked)
{
    buf_reset(tmp);
    pty_screen_text(scr, tmp);
    *inked = false;
    for (size_t i = 0; i < tmp->len && !*inked; i++)
        *inked = tmp->data[i] != '\n' && tmp->data[i] != ' ';
    buf_reset(tmp);
    if (!pty_screen_golden(scr, NULL, tmp))
        return false;
    TermShot *shot = term_shot_parse((const char *)tmp->data, tmp->len, NULL);
    if (!shot)
        return false;
    int rows, cols, cr, cc;
    bool cv, alt;
    term_shot_size(shot, &rows, &cols);
    term_shot_cursor(shot, &cr, &cc, &cv, &alt);
    /* [ms, cols, cursor row, cursor col, visible, [row ids]], a frame a line */
    if (frames->len)
        buf_puts(frames, ",\n");
    JsonW w;
    jw_init(&w, frames);
    jw_arr(&w);
    jw_u64(&w, ms);
    jw_i64(&w, cols);
    jw_i64(&w, cr);
    jw_i64(&w, cc);
    jw_u64(&w, cv ? 1 : 0);
    jw_arr(&w);
    bool ok = true;
    for (int r = 0; r < rows && ok; r++) {
        buf_reset(tmp);
        term_svg_row(shot, r, tmp);
        uint32_t id = dict_id(d, tmp->data ? (const char *)tmp->data : "", tmp->len);
        ok = id != UINT32_MAX;
        jw_u64(&w, id);
    }
    jw_end(&w);
    jw_end(&w);
    term_shot_free(shot);
    return ok && !frames->oom;
}

static const char player_js[] =
    "(function(){\n"
    "var el=document.getElementById('player');\n"
    "var d=JSON.parse(document.getElementById('cast-data').textContent);\n"
    "var svg=el.querySelector('svg'),btn=el.querySelector('button'),rng=el.querySelector('input'),\n"
    "    sel=el.querySelector('select'),lab=el.querySelector('.time');\n"
    "var W=d.cw,H=d.ch,n=d.frames.length,cur=d.poster,timer=null,speed=1;\n"
    "function fmt(ms){return (ms/1000).toFixed(3)+' s';}\n"
    "function show(i){\n"
    "  cur=i;var f=d.frames[i],ids=f[5],w=f[1]*W,h=ids.length*H;\n"
    "  var s='<rect width=\"'+w+'\" height=\"'+h+'\" fill=\"#1c1c1c\"/>';\n"
    "  for(var r=0;r<ids.length;r++)s+='<g transform=\"translate(0,'+r*H+')\">'+d.dict[ids[r]]+'</g>';\n"
    "  if(f[4]&&f[2]<ids.length&&f[3]<f[1])s+='<rect class=\"cursor\" x=\"'+f[3]*W+'\" y=\"'+f[2]*H+\n"
    "    '\" width=\"'+W+'\" height=\"'+H+'\" fill=\"#4a90d9\" fill-opacity=\"0.5\"/>';\n"
    "  svg.setAttribute('width',w);svg.setAttribute('height',h);svg.setAttribute('viewBox','0 0 '+w+' '+h);\n"
    "  svg.innerHTML=s;rng.value=i;\n"
    "  lab.textContent=fmt(f[0])+' / '+fmt(d.end)+', frame '+(i+1)+' of '+n;\n"
    "}\n"
    "function stop(){if(timer!==null){clearTimeout(timer);timer=null;}btn.textContent='\\u25b6 play';}\n"
    "function step(){\n"
    "  if(cur+1>=n){stop();return;}\n"
    "  timer=setTimeout(function(){show(cur+1);step();},(d.frames[cur+1][0]-d.frames[cur][0])/speed);\n"
    "}\n"
    "btn.onclick=function(){if(timer!==null){stop();return;}if(cur+1>=n)show(0);\n"
    "  btn.textContent='\\u275a\\u275a pause';step();};\n"
    "rng.oninput=function(){stop();show(+rng.value);};\n"
    "sel.onchange=function(){speed=+sel.value;if(timer!==null){clearTimeout(timer);step();}};\n"
    "rng.max=n-1;show(cur);\n"
    "if(location.hash==='#play')btn.onclick();\n"
    "})();\n";

bool report_cast_player(const char *cast, size_t len, Buf *out)
{
    const char *p = cast, *end = cast + len;
    const char *nl = memchr(p, '\n', len);
    if (!nl)
        return false;
    cJSON *hd = cJSON_ParseWithLength(p, (size_t)(nl - p));
    int w = hd ? cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(hd, "width")) : 0;
    int h = hd ? cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(hd, "height")) : 0;
    bool v2 = hd && cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(hd, "version")) == 2;
    cJSON_Delete(hd);
    if (!v2 || w < 1 || w > 500 || h < 1 || h > 500)
        return false;
    PtyScreen *scr = pty_screen_new(h, w, NULL, NULL, NULL);
    if (!scr)
        return false;
    Dict d = { 0 };
    Buf frames, tmp;
    buf_init(&frames);
    buf_init(&tmp);
    /* until played, the page shows the last frame with something on it
    ** (a program that leaves the alternate screen ends on a blank one) */
    bool inked;
    bool ok = capture(scr, 0, &d, &frames, &tmp, &inked);
    size_t n_frames = 1, poster = 0;
    uint64_t last_ms = 0, gen = pty_screen_gen(scr);
    for (p = nl + 1; ok && p < end; p = nl ? nl + 1 : end) {
        nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        if (le == p)
            continue;
        cJSON *ev = cJSON_ParseWithLength(p, (size_t)(le - p));
        cJSON *t = cJSON_GetArrayItem(ev, 0), *code = cJSON_GetArrayItem(ev, 1), *data = cJSON_GetArrayItem(ev, 2);
        if (!cJSON_IsNumber(t) || !cJSON_IsString(code) || !cJSON_IsString(data) || t->valuedouble < 0 ||
            t->valuedouble > 1e9) {
            cJSON_Delete(ev);
            continue;                       /* not an event: skipped, as players do */
        }
        uint64_t ms = (uint64_t)(t->valuedouble * 1000.0 + 0.5);
        /* the screen as it stood before this event, if it lasted */
        if (pty_screen_gen(scr) != gen && ms >= last_ms + FRAME_GAP_MS && n_frames < FRAMES_MAX) {
            ok = capture(scr, last_ms, &d, &frames, &tmp, &inked);
            poster = inked ? n_frames : poster;
            n_frames++;
            gen = pty_screen_gen(scr);
        }
        const char *s = data->valuestring;
        if (strcmp(code->valuestring, "o") == 0) {
            pty_screen_feed(scr, s, strlen(s));
        } else if (strcmp(code->valuestring, "r") == 0) {
            int c = 0, r = 0;
            if (sscanf(s, "%dx%d", &c, &r) == 2 && c >= 1 && c <= 500 && r >= 1 && r <= 500)
                pty_screen_resize(scr, r, c);
        }
        if (ms > last_ms)
            last_ms = ms;
        cJSON_Delete(ev);
    }
    if (ok && pty_screen_gen(scr) != gen) {
        ok = capture(scr, last_ms, &d, &frames, &tmp, &inked);
        poster = inked ? n_frames : poster;
        n_frames++;
    }
    if (ok) {
        buf_printf(out, "<div id=\"player\">\n<div class=\"bar\"><button type=\"button\">\u25b6 play</button> "
                        "<input type=\"range\" min=\"0\" max=\"%zu\" value=\"%zu\" aria-label=\"frame\"> "
                        "<select aria-label=\"speed\"><option value=\"0.5\">0.5x</option>"
                        "<option value=\"1\" selected>1x</option><option value=\"2\">2x</option>"
                        "<option value=\"4\">4x</option></select> <span class=\"time\"></span></div>\n",
                   n_frames - 1, poster);
        buf_printf(out, "<svg class=\"scc-screen\" width=\"%d\" height=\"%d\" font-family=\"" TERM_SVG_FONTS
                        "\" font-size=\"15\"></svg>\n</div>\n",
                   w * TERM_SVG_CELL_W, h * TERM_SVG_CELL_H);
        buf_printf(out, "<script type=\"application/json\" id=\"cast-data\">{\"cw\":%d,\"ch\":%d,\"end\":%" PRIu64
                        ",\"poster\":%zu,\"dict\":[\n",
                   TERM_SVG_CELL_W, TERM_SVG_CELL_H, last_ms, poster);
        for (size_t i = 0; i < d.n; i++) {
            if (i)
                buf_puts(out, ",\n");
            buf_json_str_html(out, d.s[i], d.len[i]);
        }
        buf_puts(out, "],\n\"frames\":[\n");
        buf_put(out, frames.data, frames.len);
        buf_puts(out, "]}</script>\n<script>\n");
        buf_puts(out, player_js);
        buf_puts(out, "</script>\n");
    }
    buf_fini(&frames);
    buf_fini(&tmp);
    dict_fini(&d);
    pty_screen_free(scr);
    return ok;
}

/* ---------- the run page ---------- */

static char *read_art(const char *dir, const char *name, size_t *len);

/* How long the run took by its run.json (ended_at_ms - started_at_ms), or
** -1 when there is none. */
static long long ran_ms(const ReportRun *r)
{
    size_t len = 0;
    char *rj = r->artifacts ? read_art(r->artifacts, "run.json", &len) : NULL;
    cJSON *j = rj ? cJSON_ParseWithLength(rj, len) : NULL;
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "started_at_ms"),
                *b = cJSON_GetObjectItemCaseSensitive(j, "ended_at_ms");
    long long ms = cJSON_IsNumber(a) && cJSON_IsNumber(b) && b->valuedouble >= a->valuedouble
                       ? (long long)(b->valuedouble - a->valuedouble)
                       : -1;
    cJSON_Delete(j);
    sc_free(rj);
    return ms;
}

static char *read_art(const char *dir, const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *data = NULL;
    if (file_read_all(path, FILE_MAX, &data, len) != 0)
        return NULL;
    return data;
}

/* The screenshot an artifacts folder holds for label:
** DIR/<scenario>/<profile>/screenshots/<label>.golden. */
static char *find_shot(const char *dir, const char *label, size_t *len)
{
    char safe[256], path[8192];
    rt_pty_safe_name(label, safe, sizeof safe);
    DIR *d1 = opendir(dir);
    if (!d1)
        return NULL;
    char *found = NULL;
    /* readdir's order is the file system's: the names are sorted so the
    ** same folder gives the same page */
    struct dirent *e1;
    char best[8192] = "";
    while ((e1 = readdir(d1)) != NULL) {
        if (e1->d_name[0] == '.')
            continue;
        char sub[4096];
        if ((size_t)snprintf(sub, sizeof sub, "%s/%s", dir, e1->d_name) >= sizeof sub)
            continue;
        DIR *d2 = opendir(sub);
        if (!d2)
            continue;
        struct dirent *e2;
        while ((e2 = readdir(d2)) != NULL) {
            if (e2->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s/screenshots/%s.golden", sub, e2->d_name, safe);
            struct stat st;
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (!best[0] || strcmp(path, best) < 0))
                snprintf(best, sizeof best, "%s", path);
        }
        closedir(d2);
    }
    closedir(d1);
    if (best[0] && file_read_all(best, FILE_MAX, &found, len) != 0)
        found = NULL;
    return found;
}

/* Text with control characters made visible (ESC as U+241B, others as
** ^X), CR before LF dropped, for the transcript. */
static void visible(Buf *out, const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != 0x7f) {
            continue;
        }
        esc(out, s + run, i - run);
        run = i + 1;
        if (c == '\n' || c == '\t')
            buf_putc(out, c);
        else if (c == '\r' && i + 1 < n && s[i + 1] == '\n')
            ;
        else if (c == 0x1b)
            buf_puts(out, "<span class=\"ctl\">\u241b</span>");
        else
            buf_printf(out, "<span class=\"ctl\">^%c</span>", c == 0x7f ? '?' : c + '@');
    }
    esc(out, s + run, n - run);
}

/* An event that reports something wrong. */
static bool bad_event(const cJSON *ev)
{
    const cJSON *passed = cJSON_GetObjectItemCaseSensitive(ev, "passed");
    const char *res = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "result"));
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "kind"));
    return cJSON_IsFalse(passed) || (res && (strcmp(res, "mismatch") == 0 || strcmp(res, "missing") == 0)) ||
           (kind && (strstr(kind, "fail") || strstr(kind, "error")));
}

typedef struct Ev {
    cJSON *j;
    const char *line;
    size_t len;
    uint64_t ms;
    const char *kind;
} Ev;

static const char *const lane_colours[] = {
    "#2f6fbf", "#2e8b3a", "#b5651d", "#7b4fa8", "#008b8b", "#8b6914", "#c71585", "#4b6584", "#6a8d2f", "#a0522d",
    "#777777",
};

/* The timeline: a lane per event kind (in order of first appearance, the
** kinds after LANES_MAX in "other"), a mark per event at its time, its line
** as hover text; marks of events that report a failure in red. */
static void timeline(const Ev *ev, size_t n, Buf *out)
{
    const char *kinds[LANES_MAX];
    int nk = 0;
    bool other = false;
    uint64_t end = 1;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].ms > end)
            end = ev[i].ms;
        int k = 0;
        while (k < nk && strcmp(kinds[k], ev[i].kind) != 0)
            k++;
        if (k == nk) {
            if (nk < LANES_MAX)
                kinds[nk++] = ev[i].kind;
            else
                other = true;
        }
    }
    int lanes = nk + (other ? 1 : 0);
    const int LW = 110, LH = 22, AX = 24;
    int W = LW + PLOT_W + 40, H = lanes * LH + AX;
    buf_printf(out, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" class=\"timeline\" "
                    "font-family=\"system-ui,sans-serif\" font-size=\"11\">\n"
                    "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
               W, H, W, H, W, H);
    for (int k = 0; k < lanes; k++) {
        buf_printf(out, "<text x=\"4\" y=\"%d\">", k * LH + 15);
        escs(out, k < nk ? kinds[k] : "other");
        buf_printf(out, "</text><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#e4e4e4\"/>\n", LW,
                   k * LH + 11, LW + PLOT_W, k * LH + 11);
    }
    /* the axis: 0, the middle and the end */
    int ay = lanes * LH + 4;
    buf_printf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", LW, ay, LW + PLOT_W, ay);
    for (int q = 0; q <= 4; q++) {
        int x = LW + PLOT_W * q / 4;
        buf_printf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>"
                        "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%" PRIu64 " ms</text>\n",
                   x, ay, x, ay + 4, x, ay + 16, end * (uint64_t)q / 4);
    }
    for (size_t i = 0; i < n; i++) {
        int k = 0;
        while (k < nk && strcmp(kinds[k], ev[i].kind) != 0)
            k++;
        int x = LW + (int)(ev[i].ms * PLOT_W / end);
        bool bad = bad_event(ev[i].j);
        buf_printf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"%d\" fill=\"%s\" fill-opacity=\"0.8\"><title>", x,
                   k * LH + 11, bad ? 6 : 4, bad ? "#d00000" : lane_colours[k]);
        esc(out, ev[i].line, ev[i].len > CELL_MAX ? CELL_MAX : ev[i].len);
        buf_puts(out, "</title></circle>\n");
    }
    buf_puts(out, "</svg>\n");
}

static void screenshots(const ReportRun *r, const Ev *ev, size_t n, Buf *out)
{
    size_t shots = 0;
    for (size_t i = 0; i < n; i++)
        shots += strcmp(ev[i].kind, "screenshot") == 0;
    if (!shots)
        return;
    buf_printf(out, "<h2 id=\"screenshots\">Screenshots (%zu)</h2>\n", shots);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(ev[i].kind, "screenshot") != 0)
            continue;
        const char *label = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev[i].j, "label"));
        const char *res = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev[i].j, "result"));
        const char *gpath = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev[i].j, "golden"));
        if (!label)
            label = "";
        buf_puts(out, "<div class=\"shot\"><h3>");
        escs(out, label);
        buf_printf(out, " <span class=\"result %s\">", res ? res : "recorded");
        escs(out, res ? res : "recorded");
        buf_printf(out, "</span> <span class=\"meta\">at %" PRIu64 " ms</span></h3>\n", ev[i].ms);
        size_t glen = 0, wlen = 0;
        char *got = r->artifacts ? find_shot(r->artifacts, label, &glen) : NULL;
        TermShot *gs = got ? term_shot_parse(got, glen, NULL) : NULL;
        char *want = NULL;
        if (res && strcmp(res, "mismatch") == 0 && gpath && file_read_all(gpath, FILE_MAX, &want, &wlen) != 0)
            want = NULL;
        TermShot *ws = want ? term_shot_parse(want, wlen, NULL) : NULL;
        if (gs && ws) {
            int d = term_shot_diff_cells(ws, gs);
            buf_printf(out, "<p class=\"meta\">%d cell%s differ%s (outlined in red)</p>\n", d, d == 1 ? "" : "s",
                       d == 1 ? "s" : "");
            buf_puts(out, "<div class=\"side\"><h3>expected (golden)</h3>\n");
            term_svg_write(ws, gs, false, out);
            buf_puts(out, "</div><div class=\"side\"><h3>actual</h3>\n");
            term_svg_write(gs, ws, false, out);
            buf_puts(out, "</div>\n");
        } else if (gs) {
            term_svg_write(gs, NULL, false, out);
        } else {
            buf_puts(out, "<p class=\"meta\">no picture: the run kept no screen for it "
                          "(the sim target, or no artifacts)</p>\n");
        }
        buf_puts(out, "</div>\n");
        term_shot_free(gs);
        term_shot_free(ws);
        sc_free(got);
        sc_free(want);
    }
}

/* The run's event lines parsed (the suite's header line left out). */
static Ev *parse_events(const ReportRun *r, size_t *n_out)
{
    Ev *ev = NULL;
    size_t n = 0, cap = 0;
    const char *p = r->events, *end = r->events ? r->events + r->events_len : NULL;
    while (p && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        cJSON *j = le > p ? cJSON_ParseWithLength(p, (size_t)(le - p)) : NULL;
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "kind"));
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(j, "at_ms");
        if (kind && cJSON_IsNumber(at)) {
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 64;
                Ev *ne = sc_realloc(ev, nc * sizeof *ne);
                if (!ne) {
                    cJSON_Delete(j);
                    break;
                }
                ev = ne;
                cap = nc;
            }
            double ms = at->valuedouble > 0 ? (at->valuedouble < 1e15 ? at->valuedouble : 1e15) : 0;
            ev[n++] = (Ev){ j, p, (size_t)(le - p), (uint64_t)ms, kind };
        } else {
            cJSON_Delete(j);
        }
        p = nl ? nl + 1 : end;
    }
    *n_out = n;
    return ev;
}

/* The conversation the events carry (the sim and agent targets): who
** said what, the tool calls and their results, in order. */
static void conversation(const Ev *ev, size_t n, Buf *out)
{
    static const struct {
        const char *kind, *who, *field;
    } said[] = {
        { "user_input", "user", "value" }, { "assistant", "assistant", "text" }, { "thinking", "thinking", "text" },
        { "tool_start", "tool call", "args" }, { "tool_result", "tool result", "output" },
        { "error", "error", "message" },
    };
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < sizeof said / sizeof said[0]; j++)
            k += strcmp(ev[i].kind, said[j].kind) == 0;
    if (!k)
        return;
    buf_printf(out, "<h2 id=\"conversation\">Conversation (%zu turns)</h2>\n<table class=\"chat\">\n", k);
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < sizeof said / sizeof said[0] && strcmp(ev[i].kind, said[j].kind) != 0)
            j++;
        if (j == sizeof said / sizeof said[0])
            continue;
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(ev[i].j, said[j].field);
        const char *tool = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev[i].j, "tool_name"));
        buf_printf(out, "<tr%s><td class=\"n\">%" PRIu64 "</td><td>%s", bad_event(ev[i].j) ? " class=\"bad\"" : "",
                   ev[i].ms, said[j].who);
        if (tool) {
            buf_puts(out, " <code>");
            escs(out, tool);
            buf_puts(out, "</code>");
        }
        buf_puts(out, "</td><td><pre class=\"said\">");
        if (cJSON_IsString(f)) {
            size_t l = strlen(f->valuestring);
            esc(out, f->valuestring, l > 4000 ? 4000 : l);
            if (l > 4000)
                buf_puts(out, "\u2026");
        } else if (f) {
            char *t = cJSON_PrintUnformatted(f);
            if (t) {
                esc(out, t, strlen(t) > 4000 ? 4000 : strlen(t));
                cJSON_free(t);
            }
        }
        buf_puts(out, "</pre></td></tr>\n");
    }
    buf_puts(out, "</table>\n");
}

void report_run_page(const ReportRun *r, Buf *out)
{
    const char *verdict = verdict_of(r->status, r->skipped || r->unjudged);
    char title[512];
    snprintf(title, sizeof title, "%s: %s", r->name ? r->name : "", verdict);
    page_begin(title, out);
    buf_puts(out, "<h1>");
    escs(out, r->name);
    buf_printf(out, " <span class=\"result %s\">%s</span></h1>\n<p class=\"meta\">", verdict, verdict);
    escs(out, r->source);
    buf_puts(out, " &middot; ");
    escs(out, r->suite);
    buf_printf(out, " #%u &middot; target ", (unsigned)r->index);
    escs(out, r->target);
    buf_printf(out, " &middot; scheduled %" PRIu64 " ms", r->duration_ms);
    long long ran = ran_ms(r);
    if (ran >= 0)
        buf_printf(out, " &middot; ran %lld ms", ran);
    buf_puts(out, "</p>\n");
    if (r->why && *r->why) {
        buf_puts(out, "<div class=\"why\">");
        escs(out, r->why);
        buf_puts(out, "</div>\n");
    }
    size_t n = 0;
    Ev *ev = parse_events(r, &n);
    /* run.json's exit status, when the run wrote one */
    size_t len = 0;
    char *rj = r->artifacts ? read_art(r->artifacts, "run.json", &len) : NULL;
    cJSON *run = rj ? cJSON_ParseWithLength(rj, len) : NULL;
    const cJSON *xs = cJSON_GetObjectItemCaseSensitive(run, "exit_status");
    if (xs) {
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(xs, "exit_code");
        const cJSON *sig = cJSON_GetObjectItemCaseSensitive(xs, "signal");
        buf_puts(out, "<p class=\"meta\">program: ");
        if (cJSON_IsNumber(code))
            buf_printf(out, "exit code %.0f", code->valuedouble);
        else if (cJSON_IsString(sig) || cJSON_IsNumber(sig))
            buf_puts(out, "killed by a signal");
        else
            buf_puts(out, "no exit status");
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(xs, "terminated_by_harness")))
            buf_puts(out, ", ended by scvm");
        buf_puts(out, "</p>\n");
    }
    size_t clen = 0;
    char *cast = r->artifacts ? read_art(r->artifacts, "session.cast", &clen) : NULL;
    if (cast) {
        buf_puts(out, "<h2 id=\"recording\">Recording</h2>\n");
        if (!report_cast_player(cast, clen, out))
            buf_puts(out, "<p class=\"meta\">session.cast is not a recording scvm can play</p>\n");
        sc_free(cast);
    }
    screenshots(r, ev, n, out);
    conversation(ev, n, out);
    buf_printf(out, "<h2 id=\"timeline\">Timeline (%zu events)</h2>\n", n);
    if (n) {
        timeline(ev, n, out);
        buf_puts(out, "<table class=\"events\">\n<tr><th>#</th><th>ms</th><th>kind</th><th>event</th></tr>\n");
        for (size_t i = 0; i < n && i < TABLE_MAX; i++) {
            buf_printf(out, "<tr%s><td class=\"n\">%zu</td><td class=\"n\">%" PRIu64 "</td><td>",
                       bad_event(ev[i].j) ? " class=\"bad\"" : "", i, ev[i].ms);
            escs(out, ev[i].kind);
            buf_puts(out, "</td><td><code>");
            esc(out, ev[i].line, ev[i].len > CELL_MAX ? CELL_MAX : ev[i].len);
            if (ev[i].len > CELL_MAX)
                buf_puts(out, "\u2026");
            buf_puts(out, "</code></td></tr>\n");
        }
        buf_puts(out, "</table>\n");
        if (n > TABLE_MAX)
            buf_printf(out, "<p class=\"meta\">%zu more events not shown</p>\n", n - TABLE_MAX);
    }
    if (r->diag && r->diag_len) {
        buf_puts(out, "<h2 id=\"diagnostics\">Diagnostics</h2>\n");
        term_html_diff_text(r->diag, r->diag_len, out);
    }
    size_t tlen = 0;
    char *tr = r->artifacts ? read_art(r->artifacts, "transcript.log", &tlen) : NULL;
    if (tr) {
        buf_printf(out, "<h2 id=\"transcript\">Transcript</h2>\n<details><summary>the program's output, "
                        "%zu bytes (escape sequences shown as \u241b)</summary>\n<pre>", tlen);
        visible(out, tr, tlen);
        buf_puts(out, "</pre>\n</details>\n");
        sc_free(tr);
    }
    if (rj) {
        buf_puts(out, "<h2 id=\"run-json\">run.json</h2>\n<details><summary>the RunResult</summary>\n<pre>");
        esc(out, rj, len);
        buf_puts(out, "</pre>\n</details>\n");
    }
    buf_puts(out, "</body>\n</html>\n");
    cJSON_Delete(run);
    sc_free(rj);
    for (size_t i = 0; i < n; i++)
        cJSON_Delete(ev[i].j);
    sc_free(ev);
}

/* ---------- report.json and the index ---------- */

void report_run_record(const ReportRun *r, Buf *out)
{
    size_t n = 0, shots = 0, bad = 0;
    Ev *ev = parse_events(r, &n);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(ev[i].kind, "screenshot") == 0) {
            shots++;
            bad += bad_event(ev[i].j);
        }
        cJSON_Delete(ev[i].j);
    }
    sc_free(ev);
    JsonW w;
    jw_open_obj(&w, out);
    jw_ku64(&w, "index", r->index);
    jw_kcstr(&w, "name", r->name ? r->name : "");
    jw_kcstr(&w, "source", r->source ? r->source : "");
    jw_kcstr(&w, "verdict", verdict_of(r->status, r->skipped || r->unjudged));
    jw_ki64(&w, "status", r->status);
    jw_ku64(&w, "duration_ms", r->duration_ms);
    long long ran = ran_ms(r);
    if (ran >= 0)
        jw_ki64(&w, "ran_ms", ran);
    else
        jw_knull(&w, "ran_ms");
    jw_ku64(&w, "events", n);
    jw_ku64(&w, "screenshots", shots);
    jw_ku64(&w, "screenshots_bad", bad);
    jw_kcstr(&w, "why", r->why && *r->why ? r->why : NULL);
    if (r->skipped) {
        jw_knull(&w, "page");
    } else {
        char page[256];
        report_page_name(r, page, sizeof page);
        jw_kcstr(&w, "page", page);
    }
    jw_end(&w);
}

void report_json(const char *suite, const char *target, const Buf *records, size_t n, Buf *out)
{
    JsonW w;
    jw_open_obj(&w, out);
    jw_ki64(&w, "report_version", REPORT_VERSION);
    jw_kcstr(&w, "suite", suite);
    jw_kcstr(&w, "target", target);
    /* a run a line */
    jw_karr(&w, "runs");
    for (size_t i = 0; i < n; i++) {
        jw_value(&w);
        buf_putc(out, '\n');
        buf_put(out, records[i].data, records[i].len);
    }
    buf_putc(out, '\n');
    jw_end(&w);
    jw_end(&w);
    jw_nl(&w);
}

static cJSON *parse_report(const char *json, size_t len, char *err, size_t errlen)
{
    cJSON *j = cJSON_ParseWithLength(json, len);
    if (!j) {
        snprintf(err, errlen, "not JSON");
        return NULL;
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "report_version");
    if (!cJSON_IsNumber(v) || v->valuedouble != REPORT_VERSION ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "suite")) ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "target")) ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "runs"))) {
        snprintf(err, errlen, "not a report.json of version %d", REPORT_VERSION);
        cJSON_Delete(j);
        return NULL;
    }
    const cJSON *run;
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(j, "runs")) {
        const cJSON *ix = cJSON_GetObjectItemCaseSensitive(run, "index");
        const char *vd = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "verdict"));
        const cJSON *pg = cJSON_GetObjectItemCaseSensitive(run, "page");
        if (!cJSON_IsNumber(ix) || ix->valuedouble < 0 || ix->valuedouble > 4294967295.0 || !vd ||
            !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(run, "name")) || !(cJSON_IsString(pg) || cJSON_IsNull(pg))) {
            snprintf(err, errlen, "a run without index, name, verdict or page");
            cJSON_Delete(j);
            return NULL;
        }
        /* a page name is a file beside the index, never a path */
        if (cJSON_IsString(pg) && (strchr(pg->valuestring, '/') || pg->valuestring[0] == '.' || !*pg->valuestring)) {
            snprintf(err, errlen, "a run's page is not a file name: %.200s", pg->valuestring);
            cJSON_Delete(j);
            return NULL;
        }
    }
    return j;
}

static double num_of(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

bool report_index_page(const char *json, size_t len, Buf *out, char *err, size_t errlen)
{
    cJSON *j = parse_report(json, len, err, errlen);
    if (!j)
        return false;
    const char *suite = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "suite"));
    const char *target = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "target"));
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(j, "runs"), *run;
    size_t passed = 0, failed = 0, errors = 0, skipped = 0, total = 0;
    double ms = 0;
    cJSON_ArrayForEach(run, runs) {
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "verdict"));
        passed += strcmp(v, "passed") == 0;
        failed += strcmp(v, "failed") == 0;
        errors += strcmp(v, "error") == 0;
        skipped += strcmp(v, "skipped") == 0;
        total++;
        ms += num_of(run, "duration_ms");
    }
    char title[512];
    snprintf(title, sizeof title, "%s: %zu passed, %zu failed, %zu skipped", suite, passed, failed + errors, skipped);
    page_begin(title, out);
    buf_puts(out, "<h1>");
    escs(out, suite);
    buf_puts(out, "</h1>\n<p class=\"meta\">target ");
    escs(out, target);
    buf_printf(out, " &middot; %zu scenario%s &middot; scheduled %.0f ms in all</p>\n", total, total == 1 ? "" : "s", ms);
    buf_printf(out, "<p class=\"totals\"><span class=\"result passed\">%zu passed</span>"
                    "<span class=\"result failed\">%zu failed</span>"
                    "<span class=\"result skipped\">%zu skipped</span></p>\n",
               passed, failed + errors, skipped);
    if (total) {
        /* the proportions as one strip */
        buf_puts(out, "<div class=\"strip\" role=\"img\" aria-label=\"verdicts\">");
        const struct { size_t n; const char *c; } seg[] = {
            { passed, "#2e7d32" }, { failed + errors, "#c62828" }, { skipped, "#9e9e9e" } };
        for (int i = 0; i < 3; i++)
            if (seg[i].n)
                buf_printf(out, "<div style=\"flex:%zu;background:%s\"></div>", seg[i].n, seg[i].c);
        buf_puts(out, "</div>\n");
    }
    buf_puts(out, "<table>\n<tr><th>#</th><th>scenario</th><th>source</th><th>verdict</th><th>scheduled ms</th>"
                  "<th>ran ms</th><th>events</th><th>screenshots</th><th>why</th></tr>\n");
    cJSON_ArrayForEach(run, runs) {
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "verdict"));
        const char *page = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "page"));
        const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "why"));
        bool bad = strcmp(v, "failed") == 0 || strcmp(v, "error") == 0;
        buf_printf(out, "<tr%s><td class=\"n\">%.0f</td><td>", bad ? " class=\"bad\"" : "", num_of(run, "index"));
        if (page) {
            buf_puts(out, "<a href=\"");
            escs(out, page);
            buf_puts(out, "\">");
        }
        escs(out, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "name")));
        buf_puts(out, page ? "</a></td><td>" : "</td><td>");
        escs(out, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "source")));
        buf_printf(out, "</td><td><span class=\"result %s\">%s</span></td><td class=\"n\">%.0f</td><td class=\"n\">",
                   strcmp(v, "error") == 0 ? "error" : v, v, num_of(run, "duration_ms"));
        if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(run, "ran_ms")))
            buf_printf(out, "%.0f", num_of(run, "ran_ms"));
        buf_printf(out, "</td><td class=\"n\">%.0f</td><td class=\"n\">", num_of(run, "events"));
        double shots = num_of(run, "screenshots"), sbad = num_of(run, "screenshots_bad");
        if (shots)
            buf_printf(out, "%.0f of %.0f good", shots - sbad, shots);
        buf_puts(out, "</td><td>");
        escs(out, why);
        buf_puts(out, "</td></tr>\n");
    }
    buf_puts(out, "</table>\n</body>\n</html>\n");
    cJSON_Delete(j);
    return true;
}

char *report_page_of(const char *json, size_t len, size_t k, char *out, size_t n)
{
    char err[64];
    cJSON *j = parse_report(json, len, err, sizeof err);
    const char *p = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "runs"), (int)k), "page"));
    char *r = NULL;
    if (p) {
        snprintf(out, n, "%s", p);
        r = out;
    }
    cJSON_Delete(j);
    return r;
}

/* A record line of report.json: its text (without the separating comma)
** and index. */
typedef struct Rec {
    const char *s;
    size_t len;
    double index;
} Rec;

static int by_index(const void *a, const void *b)
{
    const Rec *x = a, *y = b;
    return x->index < y->index ? -1 : x->index > y->index;
}

bool report_merge(const char *const *jsons, const size_t *lens, size_t n, Buf *out, char *err, size_t errlen)
{
    Rec *rec = NULL;
    size_t nr = 0, cap = 0;
    char *suite = NULL, *target = NULL;
    bool ok = true;
    for (size_t f = 0; f < n && ok; f++) {
        char why[200];
        cJSON *j = parse_report(jsons[f], lens[f], why, sizeof why);
        if (!j) {
            snprintf(err, errlen, "input %zu: %s", f + 1, why);
            ok = false;
            break;
        }
        const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "suite"));
        const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "target"));
        if (!suite) {
            suite = sc_strdup(s);
            target = sc_strdup(t);
        } else if (strcmp(suite, s) != 0 || strcmp(target, t) != 0) {
            snprintf(err, errlen, "input %zu is a report of %.100s on %.20s, not of %.100s on %.20s", f + 1, s, t,
                     suite, target);
            ok = false;
        }
        size_t want = (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "runs"));
        cJSON_Delete(j);
        /* the records, one a line, as report_json wrote them */
        const char *p = jsons[f], *end = jsons[f] + lens[f];
        size_t got = 0;
        for (; ok && p < end;) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            const char *le = nl ? nl : end;
            size_t l = (size_t)(le - p);
            if (l && *p == '{' && memcmp(p, "{\"index\":", 9) == 0) {
                if (p[l - 1] == ',')
                    l--;
                cJSON *r = cJSON_ParseWithLength(p, l);
                if (!r) {
                    snprintf(err, errlen, "input %zu: a run record is not one line of JSON", f + 1);
                    ok = false;
                    break;
                }
                if (nr == cap) {
                    size_t nc = cap ? cap * 2 : 64;
                    Rec *nrec = sc_realloc(rec, nc * sizeof *nrec);
                    if (!nrec) {
                        cJSON_Delete(r);
                        snprintf(err, errlen, "out of memory");
                        ok = false;
                        break;
                    }
                    rec = nrec;
                    cap = nc;
                }
                rec[nr++] = (Rec){ p, l, num_of(r, "index") };
                cJSON_Delete(r);
                got++;
            }
            p = nl ? nl + 1 : end;
        }
        if (ok && got != want) {
            snprintf(err, errlen, "input %zu: %zu runs listed, %zu on lines of their own", f + 1, want, got);
            ok = false;
        }
    }
    if (ok) {
        qsort(rec, nr, sizeof *rec, by_index);
        for (size_t i = 1; i < nr && ok; i++)
            if (rec[i].index == rec[i - 1].index) {
                snprintf(err, errlen, "scenario #%.0f is in two reports: the shards overlap", rec[i].index);
                ok = false;
            }
    }
    if (ok) {
        Buf *b = sc_calloc(nr ? nr : 1, sizeof *b);
        if (!b) {
            snprintf(err, errlen, "out of memory");
            ok = false;
        } else {
            for (size_t i = 0; i < nr; i++) {
                buf_init(&b[i]);
                buf_put(&b[i], rec[i].s, rec[i].len);
            }
            report_json(suite ? suite : "", target ? target : "", b, nr, out);
            for (size_t i = 0; i < nr; i++)
                buf_fini(&b[i]);
            sc_free(b);
        }
    }
    sc_free(rec);
    sc_free(suite);
    sc_free(target);
    return ok && !out->oom;
}
