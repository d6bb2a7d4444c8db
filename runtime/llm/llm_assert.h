/* llm_assert.h - evaluates a scenario's `assert` events against a workspace
** directory, as the mock LLM server does before it sends the next response.
**
** fs.exists / fs.notExists (paths relative to the workspace unless
** absolute), json.file {path, pointer, equals} (RFC 6901 pointer, deep
** equality; 1 and 1.0 are equal), git.commit.messageContains (the last
** commit's message, from `git -C WORKSPACE log -1 --format=%B`).
** text.contains needs a terminal: it is not evaluated here, only counted
** as skipped. */
#ifndef SC_LLM_ASSERT_H
#define SC_LLM_ASSERT_H

#include "common/buf.h"
#include "formats/bc.h"

typedef struct LlmAssertResult {
    unsigned passed, failed, skipped;
} LlmAssertResult;

/* Evaluates the ASSERT op at insn index i.  Appends one line per failed or
** skipped check to msgs ("fs.exists 'x': no such file\n").  Never fails
** itself: an unreadable file is a failed check. */
void llm_assert_eval(const BcProgram *prog, uint32_t i, const char *workspace, Buf *msgs,
                     LlmAssertResult *res);

#endif
