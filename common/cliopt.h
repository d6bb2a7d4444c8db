/* SPDX-License-Identifier: MIT */
/* cliopt.h - command-line options as data.
**
** A program describes its commands, the scopes an option may be limited
** to (scvm run's targets, scvm serve's servers) and every option in one
** table (CoTable).  One parser reads argv against it, for scc and scvm
** alike, and the same table writes --help, the option lists of
** docs/scc.md and docs/scvm.md, the man pages and the bash, zsh and fish
** completions (co_write), so none of them is written by hand and none can
** drift from what the parser accepts.
**
** A row: the option's spellings (name, and an alias such as "-o"), the
** kind of value it takes and where the value goes (an offset into the
** program's options struct), the commands it belongs to and, of those,
** the scopes it applies to, the section of the help it is listed under,
** and its help.  A name may have several rows, one per meaning (scvm's
** --speed for run and for serve): the parser takes the first row of the
** command, the scope check the union of the command's rows, and the help
** shows each.
**
** Spellings accepted for an option with a value: "--name VALUE",
** "--name=VALUE", and for a one-letter alias with CO_ATTACH "-o VALUE"
** and "-oVALUE".  A CO_PREFIX row ("-Wno-") takes the rest of its word.
** An unknown option is answered with the nearest spellings ("did you
** mean"), and an option of another command names that command. */
#ifndef SC_COMMON_CLIOPT_H
#define SC_COMMON_CLIOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum CoKind {
    CO_FLAG,    /* bool = true */
    CO_COUNT,   /* int += lo (scc -l: 1, -ll: 2) */
    CO_STR,     /* const char * */
    CO_LIST,    /* const char ** array (argc slots) at off, its size_t count at off2 */
    CO_UINT,    /* unsigned, lo..hi */
    CO_SIZE,    /* size_t, lo..hi */
    CO_SPEED,   /* double, finite and >= 0 */
    CO_CHOICE,  /* const char *, one of choices ("a|b|c") */
    CO_CALL,    /* the table's call() stores it (value or not, as arg says) */
} CoKind;

enum {
    CO_NONEMPTY = 1 << 0, /* CO_STR, CO_LIST: "" is refused */
    CO_SUITE = 1 << 1,    /* scvm: the option is about suites (a .scb run prints headers and a summary) */
    CO_PREFIX = 1 << 2,   /* the name is a prefix, the rest of the word the value ("-Wno-NAME") */
    CO_ATTACH = 1 << 3,   /* the one-letter alias takes its value attached too: -oFILE, -DX=1 */
    CO_HIDDEN = 1 << 4,   /* parsed, left out of help, docs and completions */
    CO_MARK = 1 << 5,     /* the program's own mark (scvm: a PTY option) */
};

/* How a value is completed in a shell (and what it is, in docs).
** CV_LISTED: a name the program lists (the first word of each line
** `PROG LIST_CMD` prints: scvm's agent profiles), or a file of the
** table's list_ext. */
typedef enum CoValue { CV_WORD, CV_FILE, CV_DIR, CV_CMD, CV_LISTED } CoValue;

typedef struct CoOpt {
    const char *name;     /* "--output" (a row's main spelling) */
    const char *alias;    /* "-o", or NULL */
    unsigned char kind;   /* CoKind */
    unsigned char flags;  /* CO_* */
    unsigned char value;  /* CoValue: how a shell completes it */
    unsigned short off;   /* offsetof(the options struct, field) */
    unsigned short off2;  /* CO_LIST: offsetof(the count) */
    const char *arg;      /* the value's name in help ("FILE"); NULL: takes no value */
    unsigned cmds;        /* the commands it belongs to (bits; ignored without commands) */
    unsigned only;        /* of those, the scopes it applies to (bits); 0: every one */
    unsigned long long lo, hi; /* CO_UINT, CO_SIZE: the range; CO_COUNT: the step */
    const char *choices;  /* CO_CHOICE: "auto|always|never" */
    int id;               /* for call() */
    const char *section;  /* the heading it is listed under in help */
    const char *help;     /* lines separated by '\n' (as printed at column 21) */
} CoOpt;

/* A command ("run") or a scope ("pty"). */
typedef struct CoName {
    const char *name;
    unsigned bit;
    const char *synopsis; /* a command's: "run [options] FILE..." (without the program's name) */
    const char *help;     /* lines separated by '\n' */
    const char *scope_fmt;/* a command with scopes: how an option's scopes are named in its error,
                          ** "needs --target %s" or "is an option of serve %s" */
} CoName;

/* How a command's arguments (the words that are not options) complete:
** the first one's words ("llm|acp|harness|rest"), or NULL; then files by
** extension: "scb|scp" (and folders, to reach them), "/" folders only,
** "" nothing, NULL any file. */
typedef struct CoArgs {
    unsigned cmds;     /* the commands (bits) it describes; 0: a program without commands */
    const char *first;
    const char *ext;
} CoArgs;

typedef struct CoTable {
    const char *prog;        /* "scvm" */
    const char *summary;     /* one line: the man page's NAME */
    const char *synopsis;    /* without commands: "[options] FILE|DIR..." */
    const char *description; /* paragraphs, '\n' line ends */
    const CoName *cmds;      /* NULL: a program without commands (scc) */
    size_t n_cmds;
    const CoName *scopes;
    size_t n_scopes;
    const CoOpt *opts;
    size_t n_opts;
    int (*call)(void *o, const CoOpt *row, const char *as, const char *value);
    const char *on_error;    /* printed after a usage error's line */
    const char *epilogue;    /* after the options in help: environment and such */
    const char *after_statuses; /* after the exit statuses in help and the man page */
    const char *version;     /* for the man page's footer */
    const CoArgs *args;      /* the completion of arguments, by command; a command without a row: any file */
    size_t n_args;
    const char *list_cmd;    /* CV_LISTED: the command that lists the names ("agents") */
    const char *list_ext;    /* CV_LISTED: or a file with this extension ("json") */
} CoTable;

/* Prints "PROG: MESSAGE\n" and t->on_error to stderr; returns SC_USAGE. */
int co_usage(const CoTable *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* argv[*i] starts with '-' (and is not "-" or "--"): finds its row among
** command cmd's (0 without commands), stores its value into o and moves *i
** past a value given as the next word.  Returns 0 with *row set, or
** SC_USAGE after printing why (unknown option with suggestions, missing
** or bad value). */
int co_take(const CoTable *t, unsigned cmd, int argc, char **argv, int *i, void *o, const CoOpt **row);

/* The options given (seen[k]: row k was taken) that do not apply to
** scope (one bit of t->scopes) in command cmd: prints the first as
** "--X needs --target pty or agent" (cmd's scope_fmt) and returns
** SC_USAGE; 0 when all apply. */
int co_check_scope(const CoTable *t, unsigned cmd, unsigned scope, const bool *seen);

/* The command named name, or NULL. */
const CoName *co_command(const CoTable *t, const char *name);

/* "unknown command 'rn'; did you mean 'run'?": printed as co_usage does;
** returns SC_USAGE. */
int co_unknown_command(const CoTable *t, const char *name);

typedef enum CoFormat { CO_HELP, CO_MARKDOWN, CO_MAN, CO_BASH, CO_ZSH, CO_FISH } CoFormat;

/* The format named "help", "markdown", "man", "bash", "zsh" or "fish"; -1 else. */
int co_format(const char *name);

/* Writes the table in a format.  CO_HELP: the program's help (cmd 0:
** the commands and the options every command takes; a command: its
** usage and options, by section).  The others: the whole program, cmd
** ignored.  Every format ends with what it needs of the exit statuses
** (common/status.h).  Deterministic.  Returns 0, or SC_IO when f fails. */
int co_write(FILE *f, const CoTable *t, CoFormat fmt, unsigned cmd);

/* s as roff text, as the man pages write it (dashes and backslashes escaped, a
** leading dot or quote defused), for another page made from a table
** (scenario-format(5), compiler/format_man.c). */
void co_roff_text(FILE *f, const char *s);

#endif
