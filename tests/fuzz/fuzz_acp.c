/* SPDX-License-Identifier: MIT */
/* fuzz_acp.c - libFuzzer target: what the mock ACP agent reads from its
** client (runtime/acp/acp_agent.h; docs/serve-acp.md).  The input is the
** client's side of the stream, as is: lines of JSON-RPC (or anything),
** served by acp_serve at speed 0 from a memory file, against the scenario
** in $FUZZ_ACP_SCB (tests/acp/scenarios/acp_full.yaml compiled by this
** build's scc: every op the agent plays, client calls included).  The
** input ends the stream, so every call the agent makes is either answered
** by the input or cut off by its end: nothing waits.  Updates go to
** /dev/null, the log too.
**
** Built with -DSCC_FUZZ=ON (clang).  Seeds and findings live in
** tests/fuzz/acp-corpus/ (README.md there), replayed under ctest. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/suite.h"
#include "runtime/acp/acp_agent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static Suite *suite;
static int devnull = -1;
static FILE *log_;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!suite) {
        const char *scb = getenv("FUZZ_ACP_SCB");
        SuiteErr e;
        suite = suite_new();
        if (!scb || !suite || suite_add_file(suite, scb, &e) != 0) {
            fprintf(stderr, "fuzz_acp: set FUZZ_ACP_SCB to a compiled scenario (%s)\n", scb ? e.msg : "unset");
            abort();
        }
        devnull = open("/dev/null", O_WRONLY);
        log_ = fopen("/dev/null", "w");
    }
    int in = memfd_create("fuzz-acp", 0);
    if (in < 0 || write(in, data, size) != (ssize_t)size || lseek(in, 0, SEEK_SET) != 0)
        abort();
    AcpServeOpts o = { .speed = 0, .client_timeout_ms = 50, .tool_timeout_ms = 50, .cancel_fd = -1, .log = log_,
                       .max_line = 1u << 16 };
    AcpCounts c;
    acp_serve(suite, &o, in, devnull, &c);
    close(in);
    return 0;
}
