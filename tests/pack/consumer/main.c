/* Lists a pack and counts each scenario's events through the installed API. */
#include <scc/scc.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    scc_suite *s;
    char err[256];
    if (argc != 2 || scc_open_file(argv[1], &s, err, sizeof err) != SCC_OK) {
        fprintf(stderr, "consumer: %s\n", argc == 2 ? err : "usage: consumer FILE");
        return 1;
    }
    printf("%zu scenarios (scc %s)\n", scc_count(s), scc_version());
    for (size_t i = 0; i < scc_count(s); i++) {
        scc_events *it;
        scc_event ev;
        size_t n = 0;
        if (scc_events_open(s, i, 1.0, &it) != SCC_OK)
            return 1;
        while (scc_events_next(it, &ev))
            n++;
        scc_events_close(it);
        printf("%s: %zu events, %zu files\n", scc_name(s, i), n, scc_file_count(s, i));
    }
    scc_close(s);
    return 0;
}
