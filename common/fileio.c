/* SPDX-License-Identifier: MIT */
/* fileio.c - whole-file reads and atomic writes. */
#define _XOPEN_SOURCE 700     /* nftw */
#define _DEFAULT_SOURCE 1     /* syscall(2): openat2 */
#include "fileio.h"
#include "fnv1a.h"
#include "sc_alloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

static int read_fd(int fd, size_t max, char **out, size_t *len);

int file_read_all(const char *path, size_t max, char **out, size_t *len)
{
    int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    return read_fd(fd, max, out, len);
}

/* Reads fd to its end (closing it unless it is stdin). */
static int read_fd(int fd, size_t max, char **out, size_t *len)
{
    struct stat st = { 0 };
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (fd != STDIN_FILENO)
            close(fd);
        return EISDIR;
    }
    /* A regular file larger than max is refused before any of it is read
    ** (a 1.1 GB fixture took seconds to refuse, over 30 s under ASan on a
    ** busy machine); a pipe or a file that grows is still caught below. */
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > (uint64_t)max) {
        if (fd != STDIN_FILENO)
            close(fd);
        return EFBIG;
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

/* The fallback of file_read_beneath for kernels without openat2 (before
** 5.6): rel made absolute under the folder's real path, which must still
** be beneath it once every link is resolved.  It checks, then opens, so a
** link swapped in between could escape: only openat2 closes that. */
static int open_beneath_fallback(const char *dir, const char *rel)
{
    char root[PATH_MAX], full[PATH_MAX * 2], real[PATH_MAX];
    if (!realpath(dir, root))
        return -errno;
    snprintf(full, sizeof full, "%s/%s", root, rel);
    if (!realpath(full, real))
        return -errno;
    size_t rl = strlen(root);
    if (strcmp(root, "/") != 0 && (strncmp(real, root, rl) != 0 || real[rl] != '/'))
        return -EXDEV;
    int fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    return fd < 0 ? -errno : fd;
}

int file_read_beneath(const char *dir, const char *rel, size_t max, char **out, size_t *len)
{
    if (!rel[0] || rel[0] == '/')
        return EXDEV;
    int dfd = open(dir && dir[0] ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return errno;
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = O_RDONLY | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    /* SCC_OPENAT2=0: behave as on a kernel without openat2 (a test hook,
    ** so the fallback is tested where openat2 exists) */
    const char *hook = getenv("SCC_OPENAT2");
    int fd = hook && strcmp(hook, "0") == 0 ? (errno = ENOSYS, -1)
                                            : (int)syscall(SYS_openat2, dfd, rel, &how, sizeof how);
    int e = fd < 0 ? errno : 0;
    close(dfd);
    if (fd < 0 && (e == ENOSYS || e == EPERM)) {
        fd = open_beneath_fallback(dir && dir[0] ? dir : ".", rel);
        e = fd < 0 ? -fd : 0;
    }
    if (fd < 0)
        return e;
    return read_fd(fd, max, out, len);
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

int file_write_stream(FILE *f, const void *data, size_t len)
{
    if (fflush(f) != 0)
        return errno ? errno : EIO;
    return write_all(fileno(f), data, len);
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
static bool parse_tmp_name(const char *name, long *pid, unsigned long long *ns)
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
        if (!parse_tmp_name(e->d_name, &pid, &ns) || !myns || ns != myns || pid == (long)getpid())
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
    unsigned long long h = fnv1a64(dir, strlen(dir));
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

/* Only a regular file (or a new one) is replaced by rename: renaming over
** /dev/null, a FIFO or a terminal would replace the device node itself
** (as root, `scc -o /dev/null` did).  Those, and "-", are written in
** place; "atomic" has no meaning for them.  EISDIR for a folder. */
static int in_place(const char *path, bool *yes)
{
    struct stat st;
    *yes = true;
    if (strcmp(path, "-") == 0)
        return 0;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
        *yes = false;
    else if (S_ISDIR(st.st_mode))
        return EISDIR;
    return 0;
}

static int write_in_place(const char *path, const void *data, size_t len)
{
    if (strcmp(path, "-") == 0)
        return write_all(STDOUT_FILENO, data, len);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int e = write_all(fd, data, len);
    if (close(fd) != 0 && !e)
        e = errno;
    return e;
}

/* The temporary beside path (PATH.tmp.PID.NS.XXXXXX), created: its name
** in *tmp (sc_free), its descriptor in *fd.  Sweeps the folder first. */
static int tmp_open(const char *path, char **tmp, int *fd)
{
    sweep_once(path);
    size_t pl = strlen(path);
    if (!(*tmp = sc_malloc(pl + 64)))
        return ENOMEM;
    snprintf(*tmp, pl + 64, "%s.tmp.%ld.%llu.XXXXXX", path, (long)getpid(), pidns_ino());
    if ((*fd = mkstemp(*tmp)) < 0) {
        int e = errno;
        sc_free(*tmp);
        *tmp = NULL;
        return e;
    }
    return 0;
}

/* The temporary made whole (e still 0: mode 0644, fsync'd, renamed over
** path) or removed; frees tmp.  Returns the first error. */
static int tmp_close(int fd, char *tmp, const char *path, int e)
{
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

int file_write_atomic(const char *path, const void *data, size_t len)
{
    bool place;
    int e = in_place(path, &place);
    if (e || place)
        return e ? e : write_in_place(path, data, len);
    char *tmp;
    int fd;
    if ((e = tmp_open(path, &tmp, &fd)) != 0)
        return e;
    return tmp_close(fd, tmp, path, write_all(fd, data, len));
}

/* The temporary of an open FileAtomic is removed when SIGINT, SIGTERM or
** SIGHUP ends the process (a run of hours with -o, interrupted): each of
** those whose action is the default gets a handler that unlinks it,
** restores the default and raises the signal again.  A signal some other
** part handles (rt_cancel's, which ends the run, and the abort removes
** the temporary) is left alone.  One temporary at a time is tracked. */
static const char *volatile tracked_tmp;
static const int tracked_sig[] = { SIGINT, SIGTERM, SIGHUP };

static void unlink_tracked(int sig)
{
    const char *t = tracked_tmp;
    if (t)
        unlink(t);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Stops tracking tmp (if it is the one tracked): before it is renamed
** into place or freed. */
static void untrack_tmp(const char *tmp)
{
    if (tmp && tracked_tmp == tmp)
        tracked_tmp = NULL;
}

static void track_tmp(const char *tmp)
{
    tracked_tmp = tmp;
    for (size_t i = 0; i < sizeof tracked_sig / sizeof tracked_sig[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(tracked_sig[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
            continue;   /* ignored, or someone else's handler (or ours already) */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = unlink_tracked;
        sigemptyset(&sa.sa_mask);
        sigaction(tracked_sig[i], &sa, NULL);
    }
}

int file_atomic_open(FileAtomic *a, const char *path)
{
    memset(a, 0, sizeof *a);
    a->fd = -1;
    bool place;
    if (!(a->path = sc_strdup(path)))
        return a->err = ENOMEM;
    if ((a->err = in_place(path, &place)) != 0 || place)
        return a->err;
    if ((a->err = tmp_open(path, &a->tmp, &a->fd)) == 0)
        track_tmp(a->tmp);
    return a->err;
}

int file_atomic_write(FileAtomic *a, const void *data, size_t len)
{
    if (a->err || !len)
        return a->err;
    if (a->fd >= 0)
        return a->err = write_all(a->fd, data, len);
    buf_put(&a->held, data, len);   /* in place: held until the commit */
    return a->err = a->held.oom ? ENOMEM : 0;
}

int file_atomic_commit(FileAtomic *a)
{
    int e = a->err;
    untrack_tmp(a->tmp);
    if (a->fd >= 0)
        e = tmp_close(a->fd, a->tmp, a->path, e);
    else if (!e && a->path)
        e = write_in_place(a->path, a->held.data ? (const void *)a->held.data : "", a->held.len);
    a->fd = -1;
    a->tmp = NULL;
    file_atomic_abort(a);
    return e;
}

void file_atomic_abort(FileAtomic *a)
{
    untrack_tmp(a->tmp);
    if (a->fd >= 0) {
        close(a->fd);
        unlink(a->tmp);
    }
    sc_free(a->tmp);
    buf_fini(&a->held);
    sc_free(a->path);
    memset(a, 0, sizeof *a);
    a->fd = -1;
}

/* A temporary name beside base (base.tmp.PID.NS.XXXXXX, the name
** file_write_atomic's mkstemp makes, so file_sweep_tmp knows it), from a
** counter and the pid: openat() with O_EXCL decides. */
static void tmp_name(char *out, size_t cap, const char *base, unsigned try)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static unsigned counter;
    unsigned long v = (unsigned long)getpid() * 2654435761u + (unsigned long)(++counter) * 40503u + try;
    char x[7];
    for (int i = 0; i < 6; i++, v /= 62)
        x[i] = digits[v % 62];
    x[6] = 0;
    snprintf(out, cap, "%s.tmp.%ld.%llu.%s", base, (long)getpid(), pidns_ino(), x);
}

int file_write_beneath(int dirfd, const char *rel, const void *data, size_t len, unsigned mode)
{
    if (!rel[0] || rel[0] == '/')
        return EINVAL;
    /* every component first: a bad path makes no folder on its way */
    for (const char *p = rel;;) {
        const char *sl = strchr(p, '/');
        size_t n = sl ? (size_t)(sl - p) : strlen(p);
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return EINVAL;
        if (n > NAME_MAX)
            return ENAMETOOLONG;
        if (!sl)
            break;
        p = sl + 1;
    }
    int fd = dup(dirfd);
    if (fd < 0)
        return errno;
    int e = 0;
    const char *p = rel;
    for (;;) {
        const char *sl = strchr(p, '/');
        size_t n = sl ? (size_t)(sl - p) : strlen(p);
        char comp[NAME_MAX + 1];
        if (n == 0 || n > NAME_MAX || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
            e = n > NAME_MAX ? ENAMETOOLONG : EINVAL;
            break;
        }
        memcpy(comp, p, n);
        comp[n] = 0;
        if (!sl) {
            /* the file: a new temporary, renamed over comp (rename replaces
            ** a link itself, never what it points to) */
            char tmp[NAME_MAX + 64];
            int out = -1;
            for (unsigned t = 0; t < 100 && out < 0; t++) {
                tmp_name(tmp, sizeof tmp, comp, t);
                out = openat(fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
                if (out < 0 && errno != EEXIST) {
                    e = errno;
                    break;
                }
            }
            if (out < 0) {
                if (!e)
                    e = EEXIST;
                break;
            }
            e = write_all(out, data, len);
            if (!e && fchmod(out, (mode_t)(mode & 0777)) != 0)
                e = errno;
            if (!e && fsync(out) != 0 && errno != EINVAL)
                e = errno;
            if (close(out) != 0 && !e)
                e = errno;
            if (!e && renameat(fd, tmp, fd, comp) != 0)
                e = errno;
            if (e)
                unlinkat(fd, tmp, 0);
            break;
        }
        if (mkdirat(fd, comp, 0777) != 0 && errno != EEXIST) {
            e = errno;
            break;
        }
        int sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) {
            e = errno;   /* ELOOP or ENOTDIR: a link, or not a folder */
            break;
        }
        close(fd);
        fd = sub;
        p = sl + 1;
    }
    close(fd);
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
