/* cmd_serve.c - `scvm serve llm`: the command line of the mock LLM API
** server (runtime/llm.h; docs/serve-llm.md).
**
** Loads and verifies every input first (a .scb, or a pack when packs are
** built in), binds, prints "listening on http://ADDR:PORT" on stdout (a
** script waits for that line), serves until SIGINT/SIGTERM, then prints the
** summary and exits 0, or 1 when an assertion failed or strict tools mode
** rejected a request.  Other statuses as scvm's: 2 usage, 3 I/O (cannot
** read, cannot bind), 4 rejected bytecode, 5 runtime. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "formats/bc.h"
#include "runtime/llm/llm.h"
#include "formats/pack.h"

int scvm_serve_main(int argc, char **argv);

#define INPUT_MAX ((size_t)(BC_MAX_CONTENT + BC_MAX_CONTENT / 64 + 4096))

static const char serve_usage[] =
    "usage: scvm serve llm [options] FILE.scb|PACK...\n";

static const char serve_help[] =
    "Serves the scenarios' llmResponse events as the OpenAI (POST /v1/chat/completions,\n"
    "/v1/responses) and Anthropic (POST /v1/messages) APIs, streamed or whole, paced by\n"
    "the compiled times; GET /v1/models, GET /health.  docs/serve-llm.md has the details.\n"
    "\n"
    "options:\n"
    "  --listen ADDR:PORT  where to listen (default 127.0.0.1:8089; PORT 0 = any free\n"
    "                      port; the address is printed on stdout)\n"
    "  --speed X           multiply every scripted time by X (default 1; 0 = send at once)\n"
    "  --workspace DIR     resolve assert paths in DIR (default: the current directory)\n"
    "  --strict-tools      reject a request whose tool definitions lack a tool the\n"
    "                      scenario is about to call (400; counts as a failure)\n"
    "  --loop              a session that has received every response starts over\n"
    "  --quiet             no per-request log lines (the summary is still printed)\n"
    "  --max-body BYTES    largest request body (default 16777216; 413 above)\n"
    "  --max-connections N simultaneous connections (default 256; 503 above)\n"
    "  --timeout MS        close idle or stalled connections after MS (default 60000)\n"
    "  -h, --help          this text\n"
    "\n"
    "exit status (docs/exit-status.md): 1 when an assertion failed or strict tools\n"
    "rejected a request, 3 when an input cannot be read or the address taken:\n";

static void print_help(void)
{
    fputs(serve_usage, stdout);
    fputs(serve_help, stdout);
#define X(name, num, text) printf("  %d  %s\n", num, text);
    SC_STATUSES(X)
#undef X
}

static int usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("scvm serve: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n", stderr);
    fputs(serve_usage, stderr);
    return SC_USAGE;
}

/* --name VALUE or --name=VALUE; 1 matched, 0 not this option, -1 missing value. */
static int opt_val(int argc, char **argv, int *i, const char *name, const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strcmp(a, name) == 0) {
        if (*i + 1 >= argc)
            return -1;
        *val = argv[++*i];
        return 1;
    }
    if (strncmp(a, name, n) == 0 && a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    return 0;
}

static bool parse_u64(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-' || *s == '+')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v > max)
        return false;
    *out = v;
    return true;
}

/* "ADDR:PORT", "[V6]:PORT", ":PORT" or "PORT". */
static bool parse_listen(const char *s, char *host, size_t cap, char *port, size_t pcap)
{
    const char *colon;
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':' || (size_t)(close - s - 1) >= cap)
            return false;
        memcpy(host, s + 1, (size_t)(close - s - 1));
        host[close - s - 1] = 0;
        colon = close + 1;
    } else if ((colon = strrchr(s, ':')) != NULL) {
        size_t hl = (size_t)(colon - s);
        if (hl >= cap)
            return false;
        memcpy(host, s, hl);
        host[hl] = 0;
        if (!hl)
            snprintf(host, cap, "127.0.0.1");
    } else {
        snprintf(host, cap, "127.0.0.1");
        colon = s - 1;
    }
    unsigned long long p;
    if (!parse_u64(colon + 1, 65535, &p))
        return false;
    snprintf(port, pcap, "%llu", p);
    return true;
}

typedef struct Inputs {
    char **data;
    BcProgram **progs;
    const BcProgram **list;
    size_t n_data, n_list, cap_list;
    Pack **packs;
    size_t n_packs;
} Inputs;

static void inputs_free(Inputs *in)
{
    for (size_t i = 0; i < in->n_data; i++) {
        bc_free(in->progs[i]);
        sc_free(in->data[i]);
    }
    for (size_t i = 0; i < in->n_packs; i++)
        pack_free(in->packs[i]);
    sc_free(in->packs);
    sc_free(in->data);
    sc_free(in->progs);
    sc_free(in->list);
}

static bool list_add(Inputs *in, const BcProgram *p)
{
    if (in->n_list == in->cap_list) {
        size_t c = in->cap_list ? in->cap_list * 2 : 8;
        const BcProgram **nl = sc_realloc(in->list, c * sizeof *nl);
        if (!nl)
            return false;
        in->list = nl;
        in->cap_list = c;
    }
    in->list[in->n_list++] = p;
    return true;
}

/* Loads one input; returns 0 or an exit status (after printing why). */
static int load_input(Inputs *in, const char *path)
{
    char *data = NULL;
    size_t len = 0;
    int e = file_read_all(path, INPUT_MAX, &data, &len);
    if (e == EFBIG) {
        fprintf(stderr, "scvm: %s: rejected: file is larger than %zu bytes [SIZE]\n", path, INPUT_MAX);
        return SC_REJECTED;
    }
    if (e) {
        fprintf(stderr, "scvm: %s: cannot read: %s\n", path, strerror(e));
        return e == ENOMEM ? SC_RUNTIME : SC_IO;
    }
    if (pack_is_pack(data, len)) {
        Pack *pk = NULL;
        PackError perr;
        memset(&perr, 0, sizeof perr);
        PackErrCode pc = pack_load(data, len, NULL, &pk, &perr);
        sc_free(data);
        if (pc != PACK_ERR_OK) {
            fprintf(stderr, "scvm: %s: rejected: %s [%s]\n", path, perr.msg[0] ? perr.msg : pack_err_text(pc),
                    pack_err_name(pc));
            return pc == PACK_ERR_NOMEM ? SC_RUNTIME : pc == PACK_ERR_IO ? SC_IO : SC_REJECTED;
        }
        Pack **np = sc_realloc(in->packs, (in->n_packs + 1) * sizeof *np);
        if (!np) {
            pack_free(pk);
            return SC_RUNTIME;
        }
        in->packs = np;
        in->packs[in->n_packs++] = pk;
        for (uint32_t i = 0; i < pk->n_entries; i++)
            if (!list_add(in, pk->entries[i].prog))
                return SC_RUNTIME;
        return 0;
    }
    BcProgram *prog = NULL;
    BcError err;
    memset(&err, 0, sizeof err);
    BcErrCode c = bc_load(data, len, NULL, &prog, &err);
    if (c != BC_ERR_OK) {
        fprintf(stderr, "scvm: %s: rejected: %s [%s]\n", path, err.msg[0] ? err.msg : "invalid", bc_err_name(c));
        sc_free(data);
        return c == BC_ERR_NOMEM ? SC_RUNTIME : SC_REJECTED;
    }
    char **nd = sc_realloc(in->data, (in->n_data + 1) * sizeof *nd);
    BcProgram **npg = nd ? sc_realloc(in->progs, (in->n_data + 1) * sizeof *npg) : NULL;
    if (nd)
        in->data = nd;
    if (!npg) {
        bc_free(prog);
        sc_free(data);
        return SC_RUNTIME;
    }
    in->progs = npg;
    in->data[in->n_data] = data;
    in->progs[in->n_data++] = prog;
    return list_add(in, prog) ? 0 : SC_RUNTIME;
}

int scvm_serve_main(int argc, char **argv)
{
    /* argv[0] is "serve" */
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        if (argc < 2)
            return usage("%s", "serve: which server? (llm)");
        print_help();
        return SC_OK;
    }
    if (strcmp(argv[1], "llm") != 0)
        return usage("serve: unknown server '%s' (known: llm)", argv[1]);

    LlmServeOpts o;
    memset(&o, 0, sizeof o);
    o.speed = 1.0;
    char host[128] = "127.0.0.1", port[16] = "8089";
    const char **files = sc_calloc((size_t)argc, sizeof *files);
    if (!files)
        return SC_RUNTIME;
    size_t n_files = 0;
    bool opts = true;
    int st = SC_OK;
    for (int i = 2; i < argc && !st; i++) {
        const char *a = argv[i], *v = NULL;
        int r = 0;
        if (!opts || a[0] != '-' || a[1] == 0) {
            files[n_files++] = a;
        } else if (strcmp(a, "--") == 0) {
            opts = false;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            print_help();
            sc_free(files);
            return SC_OK;
        } else if (strcmp(a, "--strict-tools") == 0) {
            o.strict_tools = true;
        } else if (strcmp(a, "--loop") == 0) {
            o.loop = true;
        } else if (strcmp(a, "--quiet") == 0) {
            o.quiet = true;
        } else if ((r = opt_val(argc, argv, &i, "--listen", &v)) != 0) {
            if (r < 0 || !parse_listen(v, host, sizeof host, port, sizeof port))
                st = usage("invalid --listen '%s' (expected ADDR:PORT)", r < 0 ? "" : v);
        } else if ((r = opt_val(argc, argv, &i, "--speed", &v)) != 0) {
            char *end;
            errno = 0;
            double sp = r > 0 ? strtod(v, &end) : -1;
            if (r < 0 || end == v || *end || errno || !isfinite(sp) || sp < 0 || v[0] == '-')
                st = usage("invalid speed '%s' (expected a finite number >= 0)", r < 0 ? "" : v);
            else
                o.speed = sp;
        } else if ((r = opt_val(argc, argv, &i, "--workspace", &v)) != 0) {
            if (r < 0 || !*v)
                st = usage("%s", "--workspace needs a directory");
            else
                o.workspace = v;
        } else if ((r = opt_val(argc, argv, &i, "--max-body", &v)) != 0) {
            unsigned long long n;
            if (r < 0 || !parse_u64(v, (unsigned long long)1 << 32, &n) || n == 0)
                st = usage("invalid --max-body '%s' (1 .. 4294967296 bytes)", r < 0 ? "" : v);
            else
                o.max_body = (size_t)n;
        } else if ((r = opt_val(argc, argv, &i, "--max-connections", &v)) != 0) {
            unsigned long long n;
            if (r < 0 || !parse_u64(v, 65536, &n) || n == 0)
                st = usage("invalid --max-connections '%s' (1 .. 65536)", r < 0 ? "" : v);
            else
                o.max_conns = (unsigned)n;
        } else if ((r = opt_val(argc, argv, &i, "--timeout", &v)) != 0) {
            unsigned long long n;
            if (r < 0 || !parse_u64(v, 86400000ULL, &n) || n == 0)
                st = usage("invalid --timeout '%s' (1 .. 86400000 ms)", r < 0 ? "" : v);
            else
                o.timeout_ms = (unsigned)n;
        } else {
            st = usage("unknown option '%s'", a);
        }
    }
    if (!st && n_files == 0)
        st = usage("%s", "serve llm: no input file");
    if (st) {
        sc_free(files);
        return st;
    }
    o.host = host;
    o.port = port;

    Inputs in;
    memset(&in, 0, sizeof in);
    for (size_t i = 0; i < n_files && !st; i++)
        st = load_input(&in, files[i]);
    sc_free(files);
    if (!st && in.n_list == 0) {
        fputs("scvm serve: no scenarios in the inputs\n", stderr);
        st = SC_USAGE;
    }
    if (st) {
        inputs_free(&in);
        return st;
    }

    int err = 0;
    LlmServer *s = llm_server_new(in.list, in.n_list, &o, &err);
    if (!s) {
        if (err == EINVAL)
            fputs("scvm serve: two inputs hold scenarios with the same name\n", stderr);
        else
            fputs("scvm serve: out of memory\n", stderr);
        inputs_free(&in);
        return err == EINVAL ? SC_USAGE : SC_RUNTIME;
    }
    char bound[96];
    err = llm_server_listen(s, bound, sizeof bound);
    if (err) {
        fprintf(stderr, "scvm serve: cannot listen on %s:%s: %s\n", host, port,
                err == EINVAL ? "not a numeric address and port" : strerror(err));
        llm_server_free(s);
        inputs_free(&in);
        return SC_IO;
    }
    printf("listening on http://%s\n", bound);
    fflush(stdout);
    err = llm_server_run(s);
    if (err)
        fprintf(stderr, "scvm serve: %s\n", strerror(err));
    st = llm_server_finish(s);
    llm_server_free(s);
    inputs_free(&in);
    return err ? SC_RUNTIME : st;
}
