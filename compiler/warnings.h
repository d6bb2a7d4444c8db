/* SPDX-License-Identifier: MIT */
/* warnings.h - the warnings scc can give, by the name -Wno-NAME turns off.
**
** Every warning a front end emits (warn(), at_warn(), diag_warn() with a
** flag, and a dialect's compat flag) is named here: scc refuses -Wno- with
** any other name (with the nearest ones), its help lists these, and a test
** (cli.options) checks the compiler's sources use no name missing here.
** docs/check.md describes each. */
#ifndef SC_COMPILER_WARNINGS_H
#define SC_COMPILER_WARNINGS_H

#define SCC_WARNINGS(X)                                                                 \
    X("unknown-key", "a key the format does not define (ignored)")                      \
    X("deprecated", "the reference implementation's spellings")                         \
    X("nonstandard", "a value outside the ones the spec lists")                          \
    X("session-start", "a sessionStart without acp.capabilities.loadSession")            \
    X("empty-scenario", "a scenario that plays nothing and checks nothing")              \
    X("empty-case", "a Yao case that checks nothing")                                    \
    X("eliza-compat", "what ElizaOS's own runner reads otherwise")                       \
    X("tui-use-compat", "what ptybox reads otherwise")                                   \
    X("yao-ignored", "what Yao's runner ignores")

/* "\nunknown-key: a key ...\ndeprecated: ...": a line per warning, for help texts. */
#define SCC_WARNING_LINE_(name, text) "\n" name ": " text
#define SCC_WARNING_LINES SCC_WARNINGS(SCC_WARNING_LINE_)
/* " unknown-key deprecated ...": for messages. */
#define SCC_WARNING_NAME_(name, text) " " name
#define SCC_WARNING_NAMES SCC_WARNINGS(SCC_WARNING_NAME_)

#endif
