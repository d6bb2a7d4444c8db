/* SPDX-License-Identifier: MIT */
/* eliza_logs.h - the JSON files ElizaOS's `scenario run` writes into its
** `_logs_` folder, written by `scvm run -t aut --logs DIR` (and by `scvm
** scenario run|matrix`, into ./_logs_ by default): per step
** run-DATE-NNN-TIME-step-I-execution.json and -evaluation.json, and the
** run's run-DATE-NNN-TIME.json (docs/eliza.md, "The _logs_ files"). */
#ifndef SCVM_ELIZA_LOGS_H
#define SCVM_ELIZA_LOGS_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/bc.h"
#include "runtime/aut/aut_target.h"

typedef struct ElizaLogs ElizaLogs;

/* file: the operand as typed (a single run's parameters' "scenario.file"). */
ElizaLogs *eliza_logs_new(const char *file);
void eliza_logs_free(ElizaLogs *l);

/* The scenario p (its suite entry entry) starts: an ElizaOS one gets its
** run file even when it has no step to play (run: []); others nothing. */
void eliza_logs_scenario(ElizaLogs *l, const BcProgram *p, uint32_t entry);

/* A step of the ElizaOS scenario p (its suite entry entry) has ended. */
void eliza_logs_step(ElizaLogs *l, const BcProgram *p, uint32_t entry, const AutCaseResult *c);

/* Writes every run's files into dir (made when missing), each run under
** the next free number of its date there; returns 0, or SC_IO with a
** message on stderr. */
int eliza_logs_write(ElizaLogs *l, const char *dir);

/* ElizaOS's `scenario matrix --filter`: whether the scenario is a
** combination of a matrix whose parameters, as JSON.stringify writes them,
** contain pattern (ASCII letters compared without case). */
bool eliza_filter_match(const BcProgram *p, const char *pattern);

/* The JSON of value as JavaScript's JSON.stringify(value, null, indent)
** writes it (indent 0: compact), appended to b. */
struct cJSON;
struct Buf;
void eliza_js_json(struct Buf *b, const struct cJSON *value, int indent);

#endif
