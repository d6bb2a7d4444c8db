/* fileio.c - whole-file reads and atomic writes. */
#define _XOPEN_SOURCE 700     /* nftw */
#include "fileio.h"
#include "sc_alloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int file_read_all(const char *path, size_t max, char **out, size_t *len)
{
    int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (fd != STDIN_FILENO)
            close(fd);
        return EISDIR;
    }
    size_t cap = 64 * 1024, n = 0;
    /* A regular file's size is known: room for it, the NUL, and one spare
    ** byte so the read that sees end-of-file does not grow the buffer
    ** (it used to double it, twice the file's size at peak). */
    if (S_ISREG(st.st_mode) && (size_t)st.st_size < max)
        cap = (size_t)st.st_size + 2;
    char *buf = sc_malloc(cap);
    int err = 0;
    if (!buf)
        err = ENOMEM;
    while (!err) {
        if (n + 1 >= cap) {
            if (cap > max + 1) {
                err = EFBIG;
                break;
            }
            char *nb = sc_realloc(buf, cap * 2);
            if (!nb) {
                err = ENOMEM;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            err = errno;
        } else if (r == 0) {
            break;
        } else {
            n += (size_t)r;
            if (n > max)
                err = EFBIG;
        }
    }
    if (fd != STDIN_FILENO)
        close(fd);
    if (err) {
        sc_free(buf);
        return err;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* ---- temporaries of our own naming: NAME.tmp.PID.NS.XXXXXX ----
**
** PID is the writer's pid, NS the inode of its PID namespace (pids mean
** something only within one), XXXXXX mkstemp's letters.  A writer killed
** by SIGKILL leaves its temporary behind; the next write into that folder
** removes the ones that are certainly dead: same namespace as ours, and
** their pid gone, or taken by a process that started after the file was
** last written (a reused pid).  A live writer's file, one of another
** namespace, or any other name is never touched. */

static unsigned long long pidns_ino(void)
{
    static unsigned long long ino = 1;      /* 1: not read yet */
    if (ino == 1) {
        struct stat st;
        ino = stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long long)st.st_ino : 0;
    }
    return ino;
}

/* The pid and namespace of a name of our naming; false for any other. */
static bool tmp_name(const char *name, long *pid, unsigned long long *ns)
{
    size_t n = strlen(name);
    if (n < 6)
        return false;
    const char *x = name + n - 6;
    for (int i = 0; i < 6; i++) {
        char c = x[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            return false;
    }
    /* backwards: ".NS" then ".PID" then ".tmp" and a name before it */
    const char *p = x - 1;
    unsigned long long v[2] = { 0, 0 };
    for (int k = 1; k >= 0; k--) {
        if (p <= name || *p != '.')
            return false;
        const char *end = p;
        while (p > name && p[-1] >= '0' && p[-1] <= '9')
            p--;
        if (p == end || end - p > 20)
            return false;
        v[k] = strtoull(p, NULL, 10);
        p--;
    }
    if (p - name < 4 || memcmp(p - 4, ".tmp", 4) != 0 || p[0] != '.' || p - 4 == name)
        return false;
    if (v[0] == 0 || v[0] > 0x7fffffff)
        return false;
    *pid = (long)v[0];
    *ns = v[1];
    return true;
}

/* When process pid started, in seconds since the epoch; -1 unknown. */
static long long started_at(long pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t r = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (r <= 0)
        return -1;
    buf[r] = 0;
    char *s = strrchr(buf, ')');        /* comm may hold anything */
    if (!s)
        return -1;
    /* fields 3.. after "pid (comm)": starttime is field 22 */
    unsigned long long start = 0;
    int field = 2;
    for (char *t = s + 1; *t && field < 22; t++)
        if (*t == ' ' && t[1] && t[1] != ' ' && ++field == 22)
            start = strtoull(t + 1, NULL, 10);
    if (field != 22)
        return -1;
    fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char st[8192];
    r = read(fd, st, sizeof st - 1);
    close(fd);
    if (r <= 0)
        return -1;
    st[r] = 0;
    char *bt = strstr(st, "\nbtime ");
    long tck = sysconf(_SC_CLK_TCK);
    if (!bt || tck <= 0)
        return -1;
    return strtoll(bt + 7, NULL, 10) + (long long)(start / (unsigned long long)tck);
}

int file_sweep_tmp(const char *dir)
{
    DIR *d = opendir(dir && *dir ? dir : ".");
    if (!d)
        return 0;
    int removed = 0;
    unsigned long long myns = pidns_ino();
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid;
        unsigned long long ns;
        if (!tmp_name(e->d_name, &pid, &ns) || !myns || ns != myns || pid == (long)getpid())
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        bool dead = kill((pid_t)pid, 0) != 0 && errno == ESRCH;
        if (!dead) {
            long long t = started_at(pid);
            dead = t >= 0 && t > (long long)st.st_mtime + 1;     /* the pid was taken again */
        }
        if (dead && unlinkat(dirfd(d), e->d_name, 0) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}

/* file_sweep_tmp once per folder and process (the folders seen, by a hash
** of their name; a lock for writers on threads). */
static void sweep_once(const char *path)
{
    static atomic_flag lock = ATOMIC_FLAG_INIT;
    static unsigned long long seen[128];
    static size_t n_seen;
    const char *sl = strrchr(path, '/');
    char dir[PATH_MAX];
    if (!sl)
        snprintf(dir, sizeof dir, ".");
    else if ((size_t)(sl - path) < sizeof dir)
        snprintf(dir, sizeof dir, "%.*s", sl == path ? 1 : (int)(sl - path), path);
    else
        return;
    unsigned long long h = 1469598103934665603ull;
    for (const char *c = dir; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    while (atomic_flag_test_and_set(&lock))
        ;
    bool known = false;
    for (size_t i = 0; i < n_seen && !known; i++)
        known = seen[i] == h;
    if (!known)
        seen[n_seen++ % 128] = h;
    atomic_flag_clear(&lock);
    if (!known)
        file_sweep_tmp(dir);
}

int file_mkdtemp(const char *prefix, char *out, size_t cap)
{
    const char *t = getenv("TMPDIR");
    if (!t || t[0] != '/')
        t = "/tmp";
    if ((size_t)snprintf(out, cap, "%s/%s-XXXXXX", t, prefix) >= cap)
        return ENAMETOOLONG;
    return mkdtemp(out) ? 0 : errno;
}

int file_write_atomic(const char *path, const void *data, size_t len)
{
    if (strcmp(path, "-") == 0) {
        int e = write_all(STDOUT_FILENO, data, len);
        return e;
    }
    /* Only a regular file (or a new one) is replaced by rename: renaming
    ** over /dev/null, a FIFO or a terminal would replace the device node
    ** itself (as root, `scc -o /dev/null` did).  Those are written in place;
    ** "atomic" has no meaning for them. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            return EISDIR;
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
            return errno;
        int e = write_all(fd, data, len);
        if (close(fd) != 0 && !e)
            e = errno;
        return e;
    }
    sweep_once(path);
    size_t pl = strlen(path);
    char *tmp = sc_malloc(pl + 64);
    if (!tmp)
        return ENOMEM;
    snprintf(tmp, pl + 64, "%s.tmp.%ld.%llu.XXXXXX", path, (long)getpid(), pidns_ino());
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        sc_free(tmp);
        return e;
    }
    int e = write_all(fd, data, len);
    if (!e && fchmod(fd, 0644) != 0)
        e = errno;
    if (!e && fsync(fd) != 0 && errno != EINVAL)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, path) != 0)
        e = errno;
    if (e)
        unlink(tmp);
    sc_free(tmp);
    return e;
}

/* mkdir for each '/'-separated prefix of path[0..n), and for all of it
** when whole. */
static int mkdirs_n(const char *path, bool whole)
{
    char tmp[PATH_MAX];
    size_t n = strlen(path);
    if (n >= sizeof tmp)
        return ENAMETOOLONG;   /* never mkdir a truncated path */
    memcpy(tmp, path, n + 1);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            return errno;
        *p = '/';
    }
    if (whole && n && mkdir(tmp, 0777) != 0 && errno != EEXIST)
        return errno;
    return 0;
}

int file_mkdirs(const char *dir)
{
    return mkdirs_n(dir, true);
}

int file_mkparents(const char *path)
{
    return mkdirs_n(path, false);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void file_remove_tree(const char *dir)
{
    nftw(dir, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}
