/* fileio.c - whole-file reads and atomic writes. */
#define _XOPEN_SOURCE 700     /* nftw */
#define _DEFAULT_SOURCE 1     /* syscall(2): openat2 */
#include "fileio.h"
#include "sc_alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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
    size_t pl = strlen(path);
    char *tmp = sc_malloc(pl + 16);
    if (!tmp)
        return ENOMEM;
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".tmp.XXXXXX", 12);
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

/* A temporary name beside base (base.tmp.XXXXXX, the name file_write_atomic's
** mkstemp makes), from a counter and the pid: openat() with O_EXCL decides. */
static void tmp_name(char *out, size_t cap, const char *base, unsigned try)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static unsigned counter;
    unsigned long v = (unsigned long)getpid() * 2654435761u + (unsigned long)(++counter) * 40503u + try;
    char x[7];
    for (int i = 0; i < 6; i++, v /= 62)
        x[i] = digits[v % 62];
    x[6] = 0;
    snprintf(out, cap, "%s.tmp.%s", base, x);
}

int file_write_beneath(int dirfd, const char *rel, const void *data, size_t len, unsigned mode)
{
    if (!rel[0] || rel[0] == '/')
        return EINVAL;
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
            char tmp[NAME_MAX + 16];
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
