/* SPDX-License-Identifier: MIT */
/* match_prompt.c - prints the name of the scenario the C API's
** scc_match_prompt picks for the text on stdin (tests/pack/prompt_agree.py). */
#include <stdio.h>
#include <stdlib.h>

#include "scc/scc.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: match_prompt FILE < TEXT\n", stderr);
        return 2;
    }
    size_t cap = 1 << 20, n;
    char *text = malloc(cap + 1);
    if (!text)
        return 5;
    n = fread(text, 1, cap, stdin);
    text[n] = 0;
    scc_suite *s;
    char err[256];
    if (scc_open_file(argv[1], &s, err, sizeof err) != SCC_OK) {
        fprintf(stderr, "match_prompt: %s\n", err);
        free(text);
        return 4;
    }
    long i = scc_match_prompt(s, text, NULL);
    if (i >= 0)
        printf("%s\n", scc_name(s, (size_t)i));
    scc_close(s);
    free(text);
    return i >= 0 ? 0 : 1;
}
