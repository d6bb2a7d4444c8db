/* SPDX-License-Identifier: MIT */
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
    if (a->n == a->cap && !SC_GROW(a->v, a->cap, 16))
        return false;
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

/* ---- the walk: what each op adds to the responses (runtime/player.h) ---- */

typedef struct Walk {
    U32Vec steps, tools, asserts, edits;
    LlmResp *arr;
    uint32_t n, cap;
    int64_t cur;          /* response being filled by steps (inside LLM_BEGIN..END) */
    int64_t attach;       /* response that following tool uses join */
    uint32_t pending0;
} Walk;

/* A new response at in, holding the asserts pending since the last one. */
static LlmResp *walk_resp(Walk *w, const BcInsn *in)
{
    LlmResp *r = new_resp(&w->arr, &w->n, &w->cap);
    if (!r)
        return NULL;
    r->t0 = in->t;
    r->step0 = w->steps.n;
    r->tool0 = w->tools.n;
    r->edit0 = w->edits.n;
    r->assert0 = w->pending0;
    r->n_asserts = w->asserts.n - w->pending0;
    r->line = in->line;
    w->pending0 = w->asserts.n;
    return r;
}

static int op_llm_begin(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Walk *w = ctx;
    LlmResp *r = walk_resp(w, in);
    if (!r)
        return ENOMEM;
    r->meta = in->a[0];
    r->has_meta = bc_val_tag(p, in->a[0]) == BC_V_MAP;
    w->cur = w->n - 1;
    w->attach = -1;
    return 0;
}

static int op_step(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Walk *w = ctx;
    if (w->cur >= 0) {
        if (!vec_push(&w->steps, (uint32_t)(in - p->insn)))
            return ENOMEM;
        w->arr[w->cur].n_steps++;
    }
    return 0;
}

static int op_llm_end(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    Walk *w = ctx;
    if (w->cur >= 0) {
        w->arr[w->cur].dur = in->t - w->arr[w->cur].t0;
        w->attach = w->cur;
        w->cur = -1;
    }
    return 0;
}

static int op_tool_start(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Walk *w = ctx;
    if (w->attach < 0) {
        /* A tool use with no llmResponse before it: its own response. */
        if (!walk_resp(w, in))
            return ENOMEM;
        w->attach = w->n - 1;
    }
    if (!vec_push(&w->tools, (uint32_t)(in - p->insn)))
        return ENOMEM;
    w->arr[w->attach].n_tools++;
    return 0;
}

/* agentEdits after an llmResponse: sent as the agent's edit tool when its
** profile maps them (llm.h) */
static int op_file_edit(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Walk *w = ctx;
    if (w->attach >= 0) {
        if (!vec_push(&w->edits, (uint32_t)(in - p->insn)))
            return ENOMEM;
        w->arr[w->attach].n_edits++;
    }
    return 0;
}

static int op_assert(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Walk *w = ctx;
    return vec_push(&w->asserts, (uint32_t)(in - p->insn)) ? 0 : ENOMEM;
}

/* A user action (or the session boundary) ends the run of tool uses that
** join the last llmResponse. */
static int op_user(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    (void)in;
    ((Walk *)ctx)->attach = -1;
    return 0;
}

#define NOT_A_RESPONSE "not part of a response the mock LLM server sends"

const Player llm_script_player = {
    .name = "llm",
    .op = {
        [OP_LLM_BEGIN] = { op_llm_begin, NULL },
        [OP_THINK] = { op_step, NULL },
        [OP_ASSISTANT] = { op_step, NULL },
        [OP_LLM_ERROR] = { op_step, NULL },
        [OP_LLM_END] = { op_llm_end, NULL },
        [OP_TOOL_START] = { op_tool_start, NULL },
        [OP_FILE_EDIT] = { op_file_edit, NULL },
        [OP_ASSERT] = { op_assert, NULL },
        [OP_USER_INPUT] = { op_user, NULL },
        [OP_USER_COMMAND] = { op_user, NULL },
        [OP_USER_EDITS] = { op_user, NULL },
        [OP_USER_CANCEL] = { op_user, NULL },
        [OP_SET_MODE] = { op_user, NULL },
        [OP_SET_MODEL] = { op_user, NULL },
        [OP_KEY] = { op_user, NULL },
        [OP_TYPE_TEXT] = { op_user, NULL },
        [OP_RESIZE] = { op_user, NULL },
        [OP_SESSION_START] = { op_user, NULL },
        [OP_TOOL_RESULT] = { NULL, "the client runs the tool and sends its result" },
        [OP_TOOL_PROGRESS] = { NULL, "the client runs the tool: its output is the client's" },
        [OP_STATUS] = { NULL, NOT_A_RESPONSE },
        [OP_PLAN_UPDATE] = { NULL, NOT_A_RESPONSE },
        [OP_FILE_READS] = { NULL, NOT_A_RESPONSE },
        [OP_PERMISSION] = { NULL, NOT_A_RESPONSE },
        [OP_SCREENSHOT] = { NULL, NOT_A_RESPONSE },
        [OP_LOG] = { NULL, NOT_A_RESPONSE },
        [OP_MERGE] = { NULL, NOT_A_RESPONSE },
        [OP_COMPLETE] = { NULL, NOT_A_RESPONSE },
        [OP_INITIALIZE] = { NULL, NOT_A_RESPONSE },
        [OP_END] = { NULL, NOT_A_RESPONSE },
    },
    .ignore = {
        { OPF_TERM, "terminal control (tui-use): not an LLM's" },
        { OPF_AGENTTEST, "agent-test cases: checks of the agent under test" },
    },
};

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

    Walk w = { .cur = -1, .attach = -1 };
    bool ok = true;
    for (uint32_t i = 0; ok && i < prog->n_insn; i++)
        ok = player_op(&llm_script_player, &w, prog, &prog->insn[i]) == 0;
    s->resp = w.arr;
    s->n_resp = w.n;
    s->steps = w.steps.v;
    s->tools = w.tools.v;
    s->asserts = w.asserts.v;
    s->edits = w.edits.v;
    s->assert_tail0 = w.pending0;
    s->n_assert_tail = w.asserts.n - w.pending0;
    if (!ok) {
        llm_script_fini(s);
        return ENOMEM;
    }
    for (uint32_t k = 0; k < w.n; k++)
        finish_resp(s, &w.arr[k]);
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
