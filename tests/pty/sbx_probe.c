/* SPDX-License-Identifier: MIT */
/* sbx_probe.c - tries what a sandboxed program might try and prints what
** happened, one line per attempt, for tests/pty/sandbox_test.py:
**
**   sbx_probe write PATH        create PATH           -> "write PATH: ok" or ": <errno name>"
**   sbx_probe read PATH         read PATH
**   sbx_probe connect PORT      TCP connect to 127.0.0.1:PORT
**   sbx_probe exec PROG ARG...  execv PROG (prints only when it fails)
**   sbx_probe child CMD ARGS... the same from a grandchild: fork, fork
**                               again, run CMD there, wait for both
**   sbx_probe ptrace            PTRACE_TRACEME (seccomp refuses it)
**   sbx_probe tty PATH          open a terminal, write "sbx-was-here" to it and
**                               print what could be read from it at once
**                               -> "tty PATH: ok read=<text>" or ": <errno name>"
**   sbx_probe ls DIR            the names in DIR, sorted -> "ls DIR: a b c"
**   sbx_probe openpty           a new terminal, its slave opened by name
**   sbx_probe uconnect PATH     connect a UNIX stream socket to PATH ("@name":
**                               the abstract name)
**   sbx_probe usend PATH        sendto a UNIX datagram socket at PATH
**   sbx_probe upair PATH        the same from one end of a datagram socketpair
**
** Several commands may follow each other, separated by "--".  After the
** last one it prints "probe done" and exits 0. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <dirent.h>
#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *ename(int e)
{
    switch (e) {
    case 0: return "ok";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case ENETUNREACH: return "ENETUNREACH";
    case ECONNREFUSED: return "ECONNREFUSED";
    case EROFS: return "EROFS";
    default: return strerror(e);
    }
}

/* a UNIX address for PATH, or for the abstract name after '@' */
static socklen_t unix_addr(const char *path, struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    size_t l = strlen(path);
    if (l >= sizeof sa->sun_path)
        l = sizeof sa->sun_path - 1;
    memcpy(sa->sun_path, path, l);
    if (path[0] == '@')
        sa->sun_path[0] = 0;
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + l + (path[0] != '@'));
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static void run(char **a, int n, const char *who)
{
    if (n < 1)
        return;
    if (strcmp(a[0], "write") == 0 && n >= 2) {
        int fd = open(a[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = fd < 0 ? errno : 0;
        if (fd >= 0) {
            if (write(fd, "x\n", 2) != 2)
                e = errno;
            close(fd);
        }
        printf("%swrite %s: %s\n", who, a[1], ename(e));
    } else if (strcmp(a[0], "read") == 0 && n >= 2) {
        int fd = open(a[1], O_RDONLY);
        int e = fd < 0 ? errno : 0;
        if (fd >= 0)
            close(fd);
        printf("%sread %s: %s\n", who, a[1], ename(e));
    } else if (strcmp(a[0], "connect") == 0 && n >= 2) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        int e = s < 0 ? errno : 0;
        if (s >= 0) {
            struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(a[1])) };
            inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
            e = connect(s, (struct sockaddr *)&sa, sizeof sa) == 0 ? 0 : errno;
            close(s);
        }
        printf("%sconnect %s: %s\n", who, a[1], ename(e));
    } else if (strcmp(a[0], "exec") == 0 && n >= 2) {
        fflush(stdout);
        pid_t p = fork();
        if (p == 0) {
            char *argv[16];
            int k = 0;
            for (int i = 1; i < n && k < 15; i++)
                argv[k++] = a[i];
            argv[k] = NULL;
            execv(a[1], argv);
            printf("%sexec %s: %s\n", who, a[1], ename(errno));
            fflush(stdout);
            _exit(127);
        }
        int st;
        waitpid(p, &st, 0);
        if (WIFEXITED(st) && WEXITSTATUS(st) != 127)
            printf("%sexec %s: ok\n", who, a[1]);
    } else if (strcmp(a[0], "ptrace") == 0) {
        fflush(stdout);
        pid_t p = fork();
        if (p == 0) {
            int e = ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0 ? 0 : errno;
            printf("%sptrace: %s\n", who, ename(e));
            fflush(stdout);
            _exit(0);
        }
        waitpid(p, NULL, 0);
    } else if (strcmp(a[0], "tty") == 0 && n >= 2) {
        int fd = open(a[1], O_RDWR | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
            printf("%stty %s: %s\n", who, a[1], ename(errno));
        } else {
            char buf[256];
            ssize_t r = read(fd, buf, sizeof buf - 1);
            buf[r > 0 ? r : 0] = 0;
            for (char *c = buf; *c; c++)
                if (*c == '\n' || *c == '\r')
                    *c = ' ';
            if (write(fd, "sbx-was-here\n", 13) != 13)
                printf("%stty %s: write: %s\n", who, a[1], ename(errno));
            printf("%stty %s: ok read=%s\n", who, a[1], buf);
            close(fd);
        }
    } else if (strcmp(a[0], "ls") == 0 && n >= 2) {
        DIR *d = opendir(a[1]);
        if (!d) {
            printf("%sls %s: %s\n", who, a[1], ename(errno));
        } else {
            char *names[256];
            int k = 0;
            struct dirent *e;
            while ((e = readdir(d)) && k < 256)
                if (e->d_name[0] != '.')
                    names[k++] = strdup(e->d_name);
            closedir(d);
            qsort(names, (size_t)k, sizeof names[0], cmp_str);
            printf("%sls %s:", who, a[1]);
            for (int i = 0; i < k; i++) {
                printf(" %s", names[i]);
                free(names[i]);
            }
            printf("\n");
        }
    } else if (strcmp(a[0], "openpty") == 0) {
        int m = posix_openpt(O_RDWR | O_NOCTTY);
        int e = m < 0 || grantpt(m) != 0 || unlockpt(m) != 0 ? errno : 0;
        const char *name = e ? NULL : ptsname(m);
        int sl = name ? open(name, O_RDWR | O_NOCTTY) : -1;
        if (!e && sl < 0)
            e = errno;
        printf("%sopenpty: %s\n", who, ename(e));
        if (sl >= 0)
            close(sl);
        if (m >= 0)
            close(m);
    } else if ((strcmp(a[0], "uconnect") == 0 || strcmp(a[0], "usend") == 0 || strcmp(a[0], "upair") == 0) &&
               n >= 2) {
        struct sockaddr_un sa;
        socklen_t sl = unix_addr(a[1], &sa);
        int s, e = 0;
        if (a[0][1] == 'p') {
            int sv[2];
            s = socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0 ? sv[0] : -1;
            if (s >= 0)
                close(sv[1]);
        } else {
            s = socket(AF_UNIX, a[0][1] == 'c' ? SOCK_STREAM : SOCK_DGRAM, 0);
        }
        if (s < 0)
            e = errno;
        else if (a[0][1] == 'c')
            e = connect(s, (struct sockaddr *)&sa, sl) == 0 ? 0 : errno;
        else
            e = sendto(s, "sbx-dgram", 9, 0, (struct sockaddr *)&sa, sl) == 9 ? 0 : errno;
        if (s >= 0)
            close(s);
        printf("%s%s %s: %s\n", who, a[0], a[1], ename(e));
    } else if (strcmp(a[0], "child") == 0) {
        fflush(stdout);
        pid_t p = fork();
        if (p == 0) {
            pid_t q = fork();
            if (q == 0) {
                run(a + 1, n - 1, "grandchild ");
                fflush(stdout);
                _exit(0);
            }
            waitpid(q, NULL, 0);
            _exit(0);
        }
        waitpid(p, NULL, 0);
    } else {
        printf("unknown: %s\n", a[0]);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int s = 1;
    for (int i = 1; i <= argc; i++) {
        if (i == argc || strcmp(argv[i], "--") == 0) {
            run(argv + s, i - s, "");
            s = i + 1;
        }
    }
    puts("probe done");
    fflush(stdout);
    pause();        /* the scenario ends the session */
    return 0;
}
