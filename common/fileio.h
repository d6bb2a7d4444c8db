/* SPDX-License-Identifier: MIT */
/* fileio.h - whole-file reads and all-or-nothing writes. */
#ifndef SC_FILEIO_H
#define SC_FILEIO_H

#include <stddef.h>
#include <stdio.h>

#include "buf.h"

/* Reads a whole file ("-" = stdin) into a new buffer (NUL-appended; caller
** sc_free()s it).  Refuses files larger than max.  Returns 0, or an errno
** value (EFBIG when too large). */
int file_read_all(const char *path, size_t max, char **out, size_t *len);

/* Reads the file rel beneath the folder dir (NULL or "" = the current
** one) as file_read_all does, opened relative to the folder's descriptor
** (openat2 RESOLVE_BENEATH): an absolute rel, a '..' that climbs out, or a
** symbolic link leading out of the folder (and, as RESOLVE_BENEATH has
** it, any absolute link) is EXDEV; relative links that stay inside are
** followed. */
int file_read_beneath(const char *dir, const char *rel, size_t max, char **out, size_t *len);

/* Writes data to path atomically: a temporary file in the same directory
** (PATH.tmp.PID.NS.XXXXXX: the writer's pid and PID namespace), fsync'd,
** then renamed over path, so a failed or interrupted write never leaves a
** partial output.  The first write into a folder (per process) removes the
** temporaries a killed writer left there (file_sweep_tmp).  "-" writes to
** stdout.  A path that exists and
** is not a regular file (/dev/null, a FIFO) is written in place, never
** replaced.  Returns 0 or an errno. */
int file_write_atomic(const char *path, const void *data, size_t len);

/* file_write_atomic's all or nothing for output made a piece at a time
** (scvm run -o FILE over a pack): the pieces go straight to the temporary
** beside path, and file_atomic_commit fsyncs it and renames it over path;
** file_atomic_abort removes it and leaves path as it was.  Where
** file_write_atomic writes in place ("-", /dev/null, a FIFO) the pieces
** are held in memory and written at the commit, so nothing reaches those
** either unless the whole is committed.  Every call returns the first
** error met so far (sticky; 0 when none): open's (EISDIR, EACCES, ...)
** says at once that the commit will fail.  After commit or abort the
** FileAtomic is closed; abort of a closed one does nothing.  Should
** SIGINT, SIGTERM or SIGHUP end the process while one is open (their
** action the default), its temporary is removed first. */
typedef struct FileAtomic {
    char *path, *tmp;       /* tmp: the temporary's name, or NULL (in place) */
    int fd;                 /* the temporary's descriptor, or -1 */
    int err;
    Buf held;               /* in place: every piece, written at the commit */
} FileAtomic;
int file_atomic_open(FileAtomic *a, const char *path);
int file_atomic_write(FileAtomic *a, const void *data, size_t len);
int file_atomic_commit(FileAtomic *a);
void file_atomic_abort(FileAtomic *a);

/* Writes data to the stream's descriptor after flushing what the stream
** holds, with write(2) until all is written (EINTR retried), so bytes
** given in one call reach the file or pipe as one piece as far as the
** kernel allows (a regular file: one write; a pipe: PIPE_BUF-sized
** pieces, never reordered), not cut where stdio's buffer ends.  Returns 0
** or an errno (EPIPE, ENOSPC, ...). */
int file_write_stream(FILE *f, const void *data, size_t len);

/* Removes from dir the temporaries of file_write_atomic whose writer is
** certainly gone: of our PID namespace, and their pid dead or taken by a
** process younger than the file.  A live writer's temporary (another run
** writing there now), one from another namespace and every other name are
** left alone.  Returns how many were removed. */
int file_sweep_tmp(const char *dir);

/* mkdtemp of "$TMPDIR/PREFIX-XXXXXX" (/tmp when TMPDIR is unset or not an
** absolute path) into out.  Returns 0 or an errno. */
int file_mkdtemp(const char *prefix, char *out, size_t cap);

/* Writes data to rel, a '/'-separated relative path below the folder open
** as dirfd, all or nothing as file_write_atomic does, with mode (0644 or
** 0755).  Each folder on the way is made if missing and opened with
** O_NOFOLLOW, and the file is created with O_EXCL and renamed into place,
** so nothing is ever written through a symbolic link, whether an attacker
** put it in the target folder or the path names one: the write is refused
** (ELOOP or ENOTDIR).  An empty, absolute or '.'/'..' component is EINVAL,
** found before any folder is made.
** This is where a path from untrusted input (a pack's entry, a workspace
** file of a shipped fixture) becomes a file; docs/security.md.  Returns 0
** or an errno. */
int file_write_beneath(int dirfd, const char *rel, const void *data, size_t len, unsigned mode);

/* mkdir -p: creates dir and its missing parents (0777 less the umask).
** file_mkparents does it for the folders of path, not path itself.
** Return 0 or an errno (ENAMETOOLONG for a path over PATH_MAX). */
int file_mkdirs(const char *dir);
int file_mkparents(const char *path);

/* Removes dir and everything below it, not following links; what cannot
** be removed is left (best effort: for temporary folders). */
void file_remove_tree(const char *dir);

#endif
