/* llm_script.c - walks a verified program once and lists the responses the
** mock LLM server plays (llm_script.h says what belongs to a response). */
#include "llm_script.h"

#include <errno.h>
#include <string.h>

#include "common/sc_alloc.h"

typedef struct U32Vec {
    uint32_t *v;
    uint32_t n, cap;
} U32Vec;

static bool vec_push(U32Vec *a, uint32_t x)
{
    if (a->n == a->cap) {
        uint32_t cap = a->cap ? a->cap * 2 : 16;
        uint32_t *nv = sc_realloc(a->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return false;
        a->v = nv;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return true;
}

static LlmResp *new_resp(LlmResp **arr, uint32_t *n, uint32_t *cap)
{
    if (*n == *cap) {
        uint32_t c = *cap ? *cap * 2 : 8;
        LlmResp *na = sc_realloc(*arr, (size_t)c * sizeof *na);
        if (!na)
            return NULL;
        *arr = na;
        *cap = c;
    }
    LlmResp *r = &(*arr)[(*n)++];
    memset(r, 0, sizeof *r);
    return r;
}

/* A response starting at in: where its steps, tools, edits begin, and the
** asserts pending since the last one (from pending0 to n_asserts) as its. */
static void resp_open(LlmResp *r, const BcInsn *in, uint32_t step0, uint32_t tool0, uint32_t edit0,
                      uint32_t pending0, uint32_t n_asserts)
{
    r->t0 = in->t;
    r->step0 = step0;
    r->tool0 = tool0;
    r->edit0 = edit0;
    r->assert0 = pending0;
    r->n_asserts = n_asserts - pending0;
    r->line = in->line;
}

static bool meta_get(const LlmScript *s, const LlmResp *r, const char *key, BcVal *out);

const char *llm_fault_name(LlmFault f)
{
    static const char *const names[] = { [LLM_FAULT_NONE] = "", [LLM_FAULT_CUT] = "cut", [LLM_FAULT_RESET] = "reset",
                                         [LLM_FAULT_REFUSE] = "refuse", [LLM_FAULT_UNKNOWN] = "unknown" };
    return names[f];
}

/* Any value other than the three names (another string, a number, an
** empty string) is LLM_FAULT_UNKNOWN: a typo must not pass as no fault. */
static LlmFault fault_of(const LlmScript *s, const LlmResp *r)
{
    BcVal v;
    if (!meta_get(s, r, "response.fault", &v))
        return LLM_FAULT_NONE;
    const BcStr *str = v.tag == BC_V_STR ? &s->prog->str[v.n] : NULL;
    for (LlmFault k = LLM_FAULT_CUT; str && k <= LLM_FAULT_REFUSE; k++)
        if (strlen(llm_fault_name(k)) == str->len && memcmp(llm_fault_name(k), str->s, str->len) == 0)
            return k;
    return LLM_FAULT_UNKNOWN;
}

static void finish_resp(LlmScript *s, LlmResp *r)
{
    uint32_t lead = 0;
    while (lead < r->n_steps && s->prog->insn[s->steps[r->step0 + lead]].op == OP_LLM_ERROR)
        lead++;
    r->n_lead_errors = lead;
    r->fault = fault_of(s, r);
    /* a fault is the content attempt, even of a response with no content */
    bool body = r->n_steps > lead || r->n_tools > 0 || r->fault != LLM_FAULT_NONE;
    r->n_attempts = lead + (body || lead == 0 ? 1 : 0);
}

int llm_script_init(LlmScript *s, const BcProgram *prog)
{
    memset(s, 0, sizeof *s);
    s->prog = prog;
    s->name = prog->str[prog->meta.name].s;
    BcVal pv = bc_val(prog, prog->meta.prompt);
    if (pv.tag == BC_V_STR) {
        s->prompt = prog->str[pv.n].s;
        s->prompt_len = prog->str[pv.n].len;
    }
    s->coalesce = true;
    BcVal cfg = bc_val(prog, prog->meta.config), srv, co;
    if (bc_val_get(prog, &cfg, "server", &srv) && bc_val_get(prog, &srv, "coalesceThinkingWithToolUse", &co) &&
        (co.tag == BC_V_FALSE || co.tag == BC_V_TRUE))
        s->coalesce = co.tag == BC_V_TRUE;

    U32Vec steps = { 0 }, tools = { 0 }, asserts = { 0 }, edits = { 0 };
    LlmResp *arr = NULL;
    uint32_t n = 0, cap = 0;
    int64_t cur = -1;     /* response being filled by steps (inside LLM_BEGIN..END) */
    int64_t attach = -1;  /* response that following tool uses join */
    uint32_t pending0 = 0;
    bool ok = true;
    for (uint32_t i = 0; ok && i < prog->n_insn; i++) {
        const BcInsn *in = &prog->insn[i];
        LlmResp *r;
        unsigned op = in->op;
        /* Not a switch: only these ops matter here, and ops added for other
        ** targets (terminal keys, waits, ...) must not need a change. */
        if (op == OP_LLM_BEGIN) {
            if (!(r = new_resp(&arr, &n, &cap))) {
                ok = false;
                break;
            }
            resp_open(r, in, steps.n, tools.n, edits.n, pending0, asserts.n);
            r->meta = in->a[0];
            r->has_meta = bc_val(prog, in->a[0]).tag == BC_V_MAP;
            pending0 = asserts.n;
            cur = n - 1;
            attach = -1;
        } else if (op == OP_THINK || op == OP_ASSISTANT || op == OP_LLM_ERROR) {
            if (cur >= 0) {
                ok = vec_push(&steps, i);
                arr[cur].n_steps++;
            }
        } else if (op == OP_LLM_END) {
            if (cur >= 0) {
                arr[cur].dur = in->t - arr[cur].t0;
                attach = cur;
                cur = -1;
            }
        } else if (op == OP_TOOL_START) {
            if (attach < 0) {
                /* A tool use with no llmResponse before it: its own response. */
                if (!(r = new_resp(&arr, &n, &cap))) {
                    ok = false;
                    break;
                }
                resp_open(r, in, steps.n, tools.n, edits.n, pending0, asserts.n);
                pending0 = asserts.n;
                attach = n - 1;
            }
            ok = vec_push(&tools, i);
            arr[attach].n_tools++;
        } else if (op == OP_FILE_EDIT) {
            /* agentEdits after an llmResponse: sent as the agent's edit
            ** tool when its profile maps them (llm.h) */
            if (attach >= 0) {
                ok = vec_push(&edits, i);
                arr[attach].n_edits++;
            }
        } else if (op == OP_ASSERT) {
            ok = vec_push(&asserts, i);
        } else if ((bc_op_info[op].flags & OPF_USER) || op == OP_SESSION_START) {
            /* a user action (or the session boundary) ends the run of tool
            ** uses that join the last llmResponse */
            attach = -1;
        }
    }
    s->resp = arr;
    s->n_resp = n;
    s->steps = steps.v;
    s->tools = tools.v;
    s->asserts = asserts.v;
    s->edits = edits.v;
    s->assert_tail0 = pending0;
    s->n_assert_tail = asserts.n - pending0;
    if (!ok) {
        llm_script_fini(s);
        return ENOMEM;
    }
    for (uint32_t k = 0; k < n; k++)
        finish_resp(s, &arr[k]);
    return 0;
}

void llm_script_fini(LlmScript *s)
{
    sc_free(s->resp);
    sc_free(s->steps);
    sc_free(s->tools);
    sc_free(s->asserts);
    sc_free(s->edits);
    memset(s, 0, sizeof *s);
}

static bool meta_get(const LlmScript *s, const LlmResp *r, const char *key, BcVal *out)
{
    if (!r->has_meta)
        return false;
    BcVal m = bc_val(s->prog, r->meta);
    return bc_val_get(s->prog, &m, key, out);
}

bool llm_resp_meta_str(const LlmScript *s, const LlmResp *r, const char *key,
                       const char **str, uint32_t *len)
{
    BcVal v;
    if (!meta_get(s, r, key, &v) || v.tag != BC_V_STR || s->prog->str[v.n].len == 0)
        return false;
    *str = s->prog->str[v.n].s;
    *len = s->prog->str[v.n].len;
    return true;
}

bool llm_resp_meta_int(const LlmScript *s, const LlmResp *r, const char *key, int64_t *out)
{
    BcVal v;
    if (!meta_get(s, r, key, &v) || v.tag != BC_V_INT || v.i < 0)
        return false;
    *out = v.i;
    return true;
}
