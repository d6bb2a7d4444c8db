/* SPDX-License-Identifier: MIT */
/* fuzz_tape.c - libFuzzer target: reading a tape (runtime/tape; docs/tape.md).
** Tapes ship with suites, so they are untrusted input.  The input is a tape
** file; whatever tape_load accepts must survive the round trip the format
** promises: written (sorted, canonical), read again, written again, the
** same bytes; and every entry's reply found again under its request.
**
** Built with -DSCC_FUZZ=ON (clang).  Seeds and findings live in
** tests/fuzz/tape-corpus/, replayed under ctest. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/tape/tape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfile(const void *data, size_t size, char *path, size_t n)
{
    int fd = memfd_create("fuzz-tape", 0);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size)
        abort();
    snprintf(path, n, "/proc/self/fd/%d", fd);
    return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], err[512];
    int fd = memfile(data, size, path, sizeof path);
    Tape *t = tape_load(path, false, err, sizeof err);
    close(fd);
    if (!t)
        return 0;
    Buf a, b;
    buf_init(&a);
    buf_init(&b);
    tape_write(t, &a);
    fd = memfile(a.data, a.len, path, sizeof path);
    Tape *t2 = tape_load(path, false, err, sizeof err);
    close(fd);
    if (!t2) {
        fprintf(stderr, "fuzz_tape: a written tape does not read back: %s\n", err);
        abort();
    }
    tape_write(t2, &b);
    if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0) {
        fprintf(stderr, "fuzz_tape: written twice, two different tapes\n");
        abort();
    }
    if (tape_size(t2) != tape_size(t))
        abort();
    tape_free(t2);
    tape_free(t);
    buf_fini(&a);
    buf_fini(&b);
    return 0;
}
