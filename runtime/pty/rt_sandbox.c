/* SPDX-License-Identifier: MIT */
/* rt_sandbox.c - the Linux sandbox for tui-use policies (rt_sandbox.h).
**
** Everything that can fail for a reason a user must read (a path that does
** not exist, a kernel without Landlock) fails in sandbox_plan, in the
** runner, with a message.  sandbox_enter runs in a fork, before execve: it
** makes system calls on what the plan prepared and allocates nothing. */
#include "rt_sandbox.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/jsonw.h"
#include "common/sc_alloc.h"

/* ---- Landlock: the kernel ABI, whatever the installed headers know ---- */

#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)     /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define LL_NET_BIND_TCP (1ULL << 0)  /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)

/* struct landlock_ruleset_attr as of ABI 6; older kernels take a prefix */
struct ll_ruleset_attr {
    uint64_t handled_access_fs, handled_access_net, scoped;
};

#define LL_READ (LL_FS_READ_FILE | LL_FS_READ_DIR)
#define LL_FILE_ONLY (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

static uint64_t ll_fs_all(int abi)
{
    uint64_t a = (LL_FS_MAKE_SYM << 1) - 1;    /* ABI 1: bits 0-12 */
    if (abi >= 2)
        a |= LL_FS_REFER;
    if (abi >= 3)
        a |= LL_FS_TRUNCATE;
    if (abi >= 5)
        a |= LL_FS_IOCTL_DEV;
    return a;
}

/* Everything but execution beneath a writable folder. */
static uint64_t ll_write(int abi)
{
    return ll_fs_all(abi) & ~(uint64_t)(LL_FS_EXECUTE | LL_FS_MAKE_CHAR | LL_FS_MAKE_BLOCK);
}

/* ---- the plan ---- */

enum { MAX_RULES = 128, MAX_LOADERS = 8, LOADER_MAGIC = 128 };

/* Where the sandbox mounts its own binfmt_misc instance: the instance
** lives as long as a mount of it does, and Landlock leaves /proc
** read-only, so the program cannot change its rules. */
#define BINFMT_DIR "/proc/sys/fs/binfmt_misc"

typedef struct Rule {
    char path[PATH_MAX];
    uint64_t access;
    const char *why;        /* for --explain-policy */
} Rule;

struct Sandbox {
    SandboxCaps caps;
    bool unsafe_ack, network;
    bool use_landlock, use_userns, use_netns, use_seccomp;
    char missing[512];      /* the pieces the kernel lacks (acknowledged) */
    Rule rules[MAX_RULES];
    size_t n_rules;
    /* The ELF interpreters the exec rules let run (as interpreters); the
    ** sandbox's binfmt_misc refuses executing them directly.  reg: the
    ** binfmt_misc registration ("" for a loader the allow-list names). */
    char loaders[MAX_LOADERS][PATH_MAX];
    char loader_reg[MAX_LOADERS][64 + 4 * LOADER_MAGIC];
    size_t n_loaders;
    bool use_binfmt;        /* some loader is registered */
    bool block_sockets;     /* network disabled: seccomp refuses non-inet sockets */
    uint64_t handled_fs;
    struct ll_ruleset_attr attr;
    size_t attr_size;
    unsigned uid, gid;
    /* two user namespaces: the outer one maps the caller to its root,
    ** which owns the mounts and may register binfmt_misc rules (their
    ** files belong to the namespace's root); the inner one, the program's,
    ** maps it back to its own uid, with no capability over the outer */
    char uid_map_outer[32], gid_map_outer[32], uid_map[32], gid_map[32];
    struct sock_filter filter[160];
    unsigned short n_filter;
};

static bool disabled(const char *what)
{
    const char *v = getenv("SCVM_SANDBOX_DISABLE");
    if (!v)
        return false;
    size_t n = strlen(what);
    for (const char *p = v; (p = strstr(p, what)); p += n)
        if ((p == v || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
            return true;
    return false;
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int e = w == (ssize_t)n ? 0 : errno ? errno : EIO;
    close(fd);
    return e;
}

/* Into a new user namespace with these maps. */
static int enter_userns(const char *uid_map, const char *gid_map)
{
    if (unshare(CLONE_NEWUSER) != 0)
        return errno;
    int e = write_file("/proc/self/setgroups", "deny");
    if (!e)
        e = write_file("/proc/self/uid_map", uid_map);
    if (!e)
        e = write_file("/proc/self/gid_map", gid_map);
    return e;
}

void sandbox_probe(SandboxCaps *c)
{
    memset(c, 0, sizeof *c);
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    c->landlock_abi = abi > 0 && !disabled("landlock") ? (int)abi : 0;
    /* namespaces: whether this process may make them as sandbox_enter_ns
    ** does, in a throwaway child */
    unsigned uid = (unsigned)getuid(), gid = (unsigned)getgid();
    char um[2][32], gm[2][32];
    snprintf(um[0], sizeof um[0], "0 %u 1\n", uid);
    snprintf(gm[0], sizeof gm[0], "0 %u 1\n", gid);
    snprintf(um[1], sizeof um[1], "%u 0 1\n", uid);
    snprintf(gm[1], sizeof gm[1], "%u 0 1\n", gid);
    pid_t pid = fork();
    if (pid == 0) {
        int r = 0;
        /* what the session's init needs (rt_pty_session.c, fork_pidns):
        ** a PID namespace in scvm's own user namespace */
        if (unshare(CLONE_NEWPID) == 0)
            r |= 8;
        /* a network namespace without a user namespace (privileged) */
        pid_t q = fork();
        if (q == 0)
            _exit(unshare(CLONE_NEWNET) == 0 ? 0 : 1);
        int qs = 1;
        if (q > 0 && waitpid(q, &qs, 0) == q && WIFEXITED(qs) && WEXITSTATUS(qs) == 0)
            r |= 32;
        if (enter_userns(um[0], gm[0]) == 0) {
            if (unshare(CLONE_NEWNET) == 0)
                r |= 2;
            if (unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
                mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620") == 0) {
                /* binfmt_misc of the user namespace (an instance per user
                ** namespace since Linux 6.7; before, this mount fails),
                ** and a rule for nothing, which dies with this child */
                if (mount("binfmt_misc", BINFMT_DIR, "binfmt_misc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0 &&
                    write_file(BINFMT_DIR "/register", ":scvm-probe:E::scvm-probe::/dev/null:") == 0)
                    r |= 4;
                if (enter_userns(um[1], gm[1]) == 0)
                    r |= 1;
            }
        }
        _exit(r);
    }
    int st = 0;
    if (pid > 0) {
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    int r = pid > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : 0;
    c->userns = (r & 1) && !disabled("userns");
    c->netns = (c->userns ? (r & 2) : (r & 32)) && !disabled("netns");
    c->binfmt = (r & 4) && !disabled("binfmt");
    const char *pidns = getenv("SCVM_PTY_PIDNS");
    c->pidns = (r & 8) && !(pidns && strcmp(pidns, "0") == 0);
    /* seccomp filters: the kernel knows the mode (EFAULT for a NULL filter) */
    c->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 && !disabled("seccomp");
}

static bool add_rule(Sandbox *s, const char *path, uint64_t access, const char *why, bool must_exist, char *err,
                     size_t errlen)
{
    char rp[PATH_MAX];
    if (!realpath(path, rp)) {
        if (!must_exist)
            return true;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return false;
    }
    struct stat st;
    if (stat(rp, &st) == 0 && !S_ISDIR(st.st_mode))
        access &= LL_FILE_ONLY;     /* the rights a file can have */
    for (size_t i = 0; i < s->n_rules; i++) {
        Rule *r = &s->rules[i];
        if (strcmp(r->path, rp) == 0) {
            if ((access | r->access) != r->access)
                r->why = why;       /* named after what widened it */
            r->access |= access;
            return true;
        }
    }
    if (s->n_rules == MAX_RULES) {
        snprintf(err, errlen, "more than %d paths in the policy", MAX_RULES);
        return false;
    }
    Rule *r = &s->rules[s->n_rules++];
    snprintf(r->path, sizeof r->path, "%s", rp);
    r->access = access;
    r->why = why;
    return true;
}

/* The ELF interpreter (PT_INTERP) of an executable, or "" for none. */
static void elf_interp(const char *path, char *out, size_t n)
{
    out[0] = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    Elf64_Ehdr eh;
    if (fread(&eh, sizeof eh, 1, f) == 1 && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
        eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 256) {
        for (unsigned i = 0; i < eh.e_phnum; i++) {
            Elf64_Phdr ph;
            if (fseek(f, (long)(eh.e_phoff + i * sizeof ph), SEEK_SET) != 0 || fread(&ph, sizeof ph, 1, f) != 1)
                break;
            if (ph.p_type == PT_INTERP && ph.p_filesz > 1 && ph.p_filesz < n &&
                fseek(f, (long)ph.p_offset, SEEK_SET) == 0 && fread(out, 1, ph.p_filesz, f) == ph.p_filesz) {
                out[ph.p_filesz - 1] = 0;
                break;
            }
        }
    }
    fclose(f);
}

/* An executable the program may run: execute and read it, and execute
** its ELF interpreter (the kernel opens it for execution too). */
static bool add_exec(Sandbox *s, const char *path, const char *why, bool must_exist, char *err, size_t errlen)
{
    if (!add_rule(s, path, LL_FS_EXECUTE | LL_FS_READ_FILE, why, must_exist, err, errlen))
        return false;
    char interp[PATH_MAX], rp[PATH_MAX];
    elf_interp(path, interp, sizeof interp);
    if (!interp[0] || !realpath(interp, rp))
        return true;
    bool known = false;
    for (size_t i = 0; i < s->n_loaders && !known; i++)
        known = strcmp(s->loaders[i], rp) == 0;
    if (!known) {
        if (s->n_loaders == MAX_LOADERS) {
            snprintf(err, errlen, "more than %d ELF interpreters among the allowed executables", MAX_LOADERS);
            return false;
        }
        snprintf(s->loaders[s->n_loaders++], PATH_MAX, "%s", rp);
    }
    return add_rule(s, rp, LL_FS_EXECUTE | LL_FS_READ_FILE, "the ELF interpreter of an allowed executable", false,
                    err, errlen);
}

/* The binfmt_misc registration that refuses executing the loader at path
** directly: its first LOADER_MAGIC bytes as the magic, and /dev/null (not
** executable) as the handler, so execve fails with EACCES.  The ELF
** loader opens an interpreter itself, without binfmt handlers, so the
** loader still serves the allowed executables.  False when unreadable. */
static bool loader_registration(const char *path, size_t k, char *out, size_t n)
{
    unsigned char head[LOADER_MAGIC];
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    if (got < 64)       /* not even an ELF header */
        return false;
    size_t l = (size_t)snprintf(out, n, ":scvm-loader-%zu:M:0:", k);
    for (size_t i = 0; i < got && l + 5 < n; i++)
        l += (size_t)snprintf(out + l, n - l, "\\x%02x", head[i]);
    return (size_t)snprintf(out + l, n - l, "::/dev/null:") < n - l;
}

/* What every program needs to start and run, read-only (docs/pty.md). */
/* Not /dev/pts here: the terminals of other programs are there (see
** sandbox_plan). */
static const char *const BASE_READ[] = { "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin",
                                         "/etc", "/proc", "/sys", "/dev/null", "/dev/zero",
                                         "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx",
                                         NULL };
static const char *const BASE_WRITE[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", NULL };
static const char *const SHELLS[] = { "/bin/sh", "/bin/bash", "/bin/dash", "/usr/bin/sh", "/usr/bin/bash",
                                      "/usr/bin/dash", NULL };

/* ---- the seccomp filter ---- */

#if defined(__x86_64__)
#define SB_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SB_ARCH AUDIT_ARCH_AARCH64
#endif

/* System calls refused with EPERM. */
static const int DENIED[] = {
    SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_mount, SYS_umount2, SYS_pivot_root,
    SYS_unshare, SYS_setns, SYS_kexec_load, SYS_init_module, SYS_finit_module, SYS_delete_module,
    SYS_bpf, SYS_perf_event_open, SYS_keyctl, SYS_add_key, SYS_request_key, SYS_userfaultfd, SYS_reboot,
    SYS_swapon, SYS_swapoff, SYS_acct, SYS_quotactl, SYS_open_by_handle_at, SYS_name_to_handle_at,
    SYS_syslog, SYS_settimeofday, SYS_clock_settime, SYS_clock_adjtime, SYS_adjtimex, SYS_memfd_create,
    SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick, SYS_move_mount, SYS_open_tree, SYS_mount_setattr,
    /* io_uring makes sockets and connects without the system calls this
    ** filter sees */
    SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
#ifdef SYS_kexec_file_load
    SYS_kexec_file_load,
#endif
#if defined(__x86_64__)
    SYS_iopl, SYS_ioperm,
#endif
};

#define NS_FLAGS (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | \
                  CLONE_NEWCGROUP)

static void build_filter(Sandbox *s)
{
#ifdef SB_ARCH
    struct sock_filter *f = s->filter;
    unsigned short n = 0;
    const unsigned short nd = (unsigned short)(sizeof DENIED / sizeof DENIED[0]);
    /* the architecture: anything else is killed */
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SB_ARCH, 1, 0);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#if defined(__x86_64__)
    /* the x32 ABI: refused as a whole */
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
#endif
    /* clone3 passes its flags in memory the filter cannot read: ENOSYS,
    ** and the C library falls back to clone, whose flags it can */
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, NS_FLAGS, 0, 1);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    if (s->block_sockets) {
        /* network disabled: sockets only of the families the network
        ** namespace isolates.  UNIX sockets (docker.sock, D-Bus, an ssh
        ** agent, abstract names) and vsock reach past it, and the filter
        ** cannot read connect's or sendmsg's address, so they are refused
        ** where they are made: socket(), and socketpair() of datagrams (a
        ** datagram socket may sendto or connect any address). */
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 6);
        f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 3, 0);
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 2, 0);
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK, 1, 0);
        f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
        f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socketpair, 0, 5);
        f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1]));
        f[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf);     /* SOCK_TYPE_MASK */
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_DGRAM, 0, 1);
        f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
        f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    }
    for (unsigned short i = 0; i < nd; i++) {
        /* match: fall to the refusal after the list; else the next test */
        unsigned short to_deny = (unsigned short)(nd - i - 1 + 1);
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)DENIED[i],
                                              (unsigned char)to_deny, 0);
    }
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
    s->n_filter = n;
#else
    s->n_filter = 0;
#endif
}

Sandbox *sandbox_plan(const SandboxPolicy *p, const SandboxCaps *caps, bool *unavailable, char *err,
                      size_t errlen)
{
    *unavailable = false;
    Sandbox *s = sc_calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->caps = *caps;
    s->unsafe_ack = p->unsafe_ack;
    s->network = p->network;

    /* Landlock: the rules, with every path resolved now */
    int abi = caps->landlock_abi;
    s->handled_fs = ll_fs_all(abi);
    bool ok = true;
    for (int i = 0; ok && BASE_READ[i]; i++)
        ok = add_rule(s, BASE_READ[i], LL_READ, "system baseline (read)", false, err, errlen);
    for (int i = 0; ok && BASE_WRITE[i]; i++)
        ok = add_rule(s, BASE_WRITE[i], LL_READ | LL_FS_WRITE_FILE | (abi >= 5 ? LL_FS_IOCTL_DEV : 0),
                      "terminal and null devices (read, write)", false, err, errlen);
    /* with a user namespace /dev/pts is the sandbox's own devpts (its
    ** program's terminal and those it makes); without, the host's, which
    ** stays out of bounds: the program keeps only its own (sandbox_enter) */
    if (ok && caps->userns)
        ok = add_rule(s, "/dev/pts", LL_READ | LL_FS_WRITE_FILE | (abi >= 5 ? LL_FS_IOCTL_DEV : 0),
                      "the sandbox's own terminals (a devpts of its own)", false, err, errlen);
    for (size_t i = 0; ok && i < p->n_read; i++)
        ok = add_rule(s, p->read[i], LL_READ, "fs.allowed_read", true, err, errlen);
    for (size_t i = 0; ok && i < p->n_write; i++)
        ok = add_rule(s, p->write[i], LL_READ | ll_write(abi), "fs.allowed_write", true, err, errlen);
    if (ok && p->tmpdir)
        ok = add_rule(s, p->tmpdir, LL_READ | ll_write(abi), "the run's temporary folder (TMPDIR)", true, err,
                      errlen);
    for (size_t i = 0; ok && i < p->n_exec; i++)
        ok = add_exec(s, p->exec[i], "exec.allowed_executables", true, err, errlen);
    for (int i = 0; ok && p->allow_shell && SHELLS[i]; i++)
        ok = add_exec(s, SHELLS[i], "a shell (exec.allow_shell)", false, err, errlen);
    if (!ok) {
        sc_free(s);
        return NULL;
    }
    /* the loaders to refuse as programs: not one the allow-list names */
    size_t n_reg = 0;
    for (size_t i = 0; i < s->n_loaders; i++) {
        char ra[PATH_MAX];
        bool listed = false;
        for (size_t k = 0; k < p->n_exec && !listed; k++)
            listed = realpath(p->exec[k], ra) && strcmp(ra, s->loaders[i]) == 0;
        if (!listed && !loader_registration(s->loaders[i], i, s->loader_reg[i], sizeof s->loader_reg[i])) {
            snprintf(err, errlen, "%s: cannot read the ELF interpreter", s->loaders[i]);
            sc_free(s);
            return NULL;
        }
        n_reg += !listed;
    }

    /* what the policy needs that the kernel lacks */
    const char *need[5];
    int n_need = 0;
    if (caps->landlock_abi < 1)
        need[n_need++] = "Landlock (file-system, terminal and exec policy)";
    if (!p->network && !caps->netns)
        need[n_need++] = "a network namespace (network: disabled)";
    if (!caps->userns)
        need[n_need++] = "a user namespace";
#ifdef SB_ARCH
    if (!caps->seccomp)
#endif
        need[n_need++] = p->network ? "seccomp filters" : "seccomp filters (also: UNIX sockets, network: disabled)";
    if (n_reg && caps->userns && !caps->binfmt)
        need[n_need++] = "binfmt_misc in a user namespace (Linux 6.7: refusing to run the dynamic loader directly)";
    for (int i = 0; i < n_need; i++) {
        size_t l = strlen(s->missing);
        snprintf(s->missing + l, sizeof s->missing - l, "%s%s", l ? "; " : "", need[i]);
    }
    if (n_need && !p->unsafe_ack) {
        snprintf(err, errlen, "the kernel cannot provide %s; sandbox_unsafe_ack: true runs without it",
                 s->missing);
        *unavailable = true;
        sc_free(s);
        return NULL;
    }
    s->use_landlock = caps->landlock_abi >= 1;
    s->use_userns = caps->userns;
    s->use_netns = !p->network && caps->netns;
    s->use_binfmt = n_reg && caps->userns && caps->binfmt;
#ifdef SB_ARCH
    s->use_seccomp = caps->seccomp;
#endif
    s->block_sockets = s->use_seccomp && !p->network;
    s->attr.handled_access_fs = s->handled_fs;
    s->attr_size = sizeof(uint64_t);
    if (abi >= 4) {
        /* network disabled: no TCP at all, as a second wall */
        s->attr.handled_access_net = p->network ? 0 : LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
        s->attr_size = 2 * sizeof(uint64_t);
    }
    if (abi >= 6) {
        s->attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
        s->attr_size = sizeof s->attr;
    }

    s->uid = (unsigned)getuid();
    s->gid = (unsigned)getgid();
    snprintf(s->uid_map_outer, sizeof s->uid_map_outer, "0 %u 1\n", s->uid);
    snprintf(s->gid_map_outer, sizeof s->gid_map_outer, "0 %u 1\n", s->gid);
    snprintf(s->uid_map, sizeof s->uid_map, "%u 0 1\n", s->uid);
    snprintf(s->gid_map, sizeof s->gid_map, "%u 0 1\n", s->gid);
    build_filter(s);
    return s;
}

void sandbox_free(Sandbox *s)
{
    sc_free(s);
}

/* ---- in the program's process ---- */

int sandbox_enter_ns(void *arg)
{
    Sandbox *s = arg;
    int e;
    if (s->use_userns && (e = enter_userns(s->uid_map_outer, s->gid_map_outer)) != 0)
        return e;
    /* the mount and network namespaces belong to the outer user namespace */
    int flags = (s->use_userns ? CLONE_NEWNS : 0) | (s->use_netns ? CLONE_NEWNET : 0);
    if (flags && unshare(flags) != 0)
        return errno;
    /* a mount namespace of the sandbox's own: nothing mounted here is seen
    ** outside; a devpts instance holding only the terminals made in here
    ** (the program's, from /dev/ptmx, PtySpawn.private_pts) */
    if (s->use_userns && (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
                          mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
                                "newinstance,ptmxmode=0666,mode=0620") != 0))
        return errno;
    if (s->use_binfmt) {
        /* the user namespace's own binfmt_misc (never the host's: use_binfmt
        ** implies a new user namespace) */
        if (mount("binfmt_misc", BINFMT_DIR, "binfmt_misc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
            return errno;
        for (size_t i = 0; i < s->n_loaders; i++) {
            e = s->loader_reg[i][0] ? write_file(BINFMT_DIR "/register", s->loader_reg[i]) : 0;
            if (e)
                return e;
        }
        /* read-only from now on: its files belong to the outer root, whose
        ** uid the program has, and "-1" into status would drop the rules
        ** (Landlock's read-only /proc stops that too, where there is one) */
        if (mount(NULL, BINFMT_DIR, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  NULL) != 0)
            return errno;
    }
    /* the program's own: its uid again; binfmt_misc rules are looked up
    ** through the parents, so the outer instance applies */
    return s->use_userns ? enter_userns(s->uid_map, s->gid_map) : 0;
}

int sandbox_enter(void *arg)
{
    Sandbox *s = arg;
    struct rlimit core = { 0, 0 };
    if (setrlimit(RLIMIT_CORE, &core) != 0)
        return errno;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return errno;
    if (s->use_landlock) {
        int rs = (int)syscall(SYS_landlock_create_ruleset, &s->attr, s->attr_size, 0);
        if (rs < 0)
            return errno;
        /* the program's own terminal: the file on fd 0, whatever its name */
        uint64_t tty = (LL_READ | LL_FS_WRITE_FILE | LL_FS_IOCTL_DEV) & s->handled_fs & LL_FILE_ONLY;
        struct landlock_path_beneath_attr own = { .allowed_access = tty, .parent_fd = 0 };
        if (isatty(0) && syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &own, 0) != 0) {
            int e = errno;
            close(rs);
            return e;
        }
        for (size_t i = 0; i < s->n_rules; i++) {
            int fd = open(s->rules[i].path, O_PATH | O_CLOEXEC);
            if (fd < 0)
                continue;       /* gone since the plan: nothing to allow */
            struct landlock_path_beneath_attr pb = { .allowed_access = s->rules[i].access & s->handled_fs,
                                                     .parent_fd = fd };
            long r = syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
            int e = errno;
            close(fd);
            if (r != 0) {
                close(rs);
                return e;
            }
        }
        long r = syscall(SYS_landlock_restrict_self, rs, 0);
        int e = errno;
        close(rs);
        if (r != 0)
            return e;
    }
    if (s->use_seccomp && s->n_filter) {
        struct sock_fprog prog = { .len = s->n_filter, .filter = s->filter };
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
            return errno;
    }
    return 0;
}

bool sandbox_private_pts(const Sandbox *s)
{
    return s->use_userns;
}

/* ---- --explain-policy ---- */

static void access_names(uint64_t a, char *out, size_t n)
{
    out[0] = 0;
    struct {
        uint64_t bit;
        const char *name;
    } names[] = { { LL_FS_READ_FILE | LL_FS_READ_DIR, "read" }, { LL_FS_WRITE_FILE, "write" },
                  { LL_FS_MAKE_REG | LL_FS_MAKE_DIR, "create" }, { LL_FS_REMOVE_FILE | LL_FS_REMOVE_DIR, "remove" },
                  { LL_FS_EXECUTE, "execute" } };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (a & names[i].bit) {
            size_t l = strlen(out);
            snprintf(out + l, n - l, "%s%s", l ? "," : "", names[i].name);
        }
    }
}

/* The three protections --explain-policy reports one by one: whether each
** holds, by which mechanism, and in words (what it refuses, or why not). */
typedef struct Guard {
    bool enforced;
    const char *by;         /* the mechanism, or NULL */
    char text[PATH_MAX + 256];
} Guard;

static void guard_terminals(const Sandbox *s, Guard *g)
{
    g->enforced = s->use_userns || s->use_landlock;
    g->by = s->use_userns ? "mount_namespace" : s->use_landlock ? "landlock" : NULL;
    snprintf(g->text, sizeof g->text, "%s",
             s->use_userns ? "a devpts of the sandbox's own: the program's terminal is made there, and the "
                             "terminals of other sessions and users are not visible"
             : s->use_landlock ? "only the program's own terminal (its fd 0), /dev/tty and /dev/ptmx: opening any "
                                 "other /dev/pts/N is denied, and so is a terminal the program makes"
                               : "NOT ENFORCED: without a user namespace or Landlock the program may open any "
                                 "terminal its uid may (/dev/pts/N of other sessions)");
}

static void guard_sockets(const Sandbox *s, Guard *g)
{
    g->enforced = s->block_sockets;
    g->by = g->enforced ? "seccomp" : NULL;
    if (s->network)
        snprintf(g->text, sizeof g->text, "allowed (network: enabled): the program may connect to any UNIX "
                                          "socket its uid may (docker.sock, D-Bus, an ssh agent)%s",
                 s->use_landlock && s->caps.landlock_abi >= 6 ? ", but abstract ones only within the sandbox" : "");
    else if (g->enforced)
        snprintf(g->text, sizeof g->text, "refused: socket() only for inet, inet6 and netlink (which the network "
                                          "namespace isolates), socketpair() not for datagrams, io_uring refused: "
                                          "no connect or sendto to a pathname or abstract UNIX socket, no vsock");
    else
        snprintf(g->text, sizeof g->text, "NOT ENFORCED: without seccomp the program may connect to any UNIX "
                                          "socket its uid may (docker.sock, D-Bus, an ssh agent)%s",
                 s->use_landlock && s->caps.landlock_abi >= 6 ? "; abstract ones only within the sandbox" : "");
}

static void guard_loader(const Sandbox *s, Guard *g)
{
    g->enforced = true;
    g->by = NULL;
    g->text[0] = 0;
    for (size_t i = 0; i < s->n_loaders; i++) {
        size_t l = strlen(g->text);
        const char *sep = l ? "; " : "";
        if (!s->use_landlock)
            break;      /* no exec policy at all: said once, below */
        if (!s->loader_reg[i][0]) {
            g->enforced = false;
            snprintf(g->text + l, sizeof g->text - l, "%s%s is in exec.allowed_executables: run directly it runs "
                     "any readable binary", sep, s->loaders[i]);
        } else if (s->use_binfmt) {
            g->by = "binfmt_misc";
            snprintf(g->text + l, sizeof g->text - l, "%sexecuting %s directly is refused (EACCES); it runs only "
                     "as the ELF interpreter of an allowed executable", sep, s->loaders[i]);
        } else {
            g->enforced = false;
            snprintf(g->text + l, sizeof g->text - l, "%sNOT ENFORCED: %s may be executed directly, and then runs "
                     "any readable binary ('ld.so PROGRAM')", sep, s->loaders[i]);
        }
    }
    if (!s->use_landlock) {
        g->enforced = false;
        snprintf(g->text, sizeof g->text, "NOT ENFORCED: without Landlock there is no exec policy");
    } else if (!s->n_loaders) {
        snprintf(g->text, sizeof g->text, "none: the allowed executables have no ELF interpreter");
    }
}

static void json_guard(JsonW *w, const char *key, const Guard *g)
{
    jw_kobj(w, key);
    jw_kbool(w, "enforced", g->enforced);
    if (g->by)
        jw_kcstr(w, "by", g->by);
    else
        jw_knull(w, "by");
    jw_kcstr(w, "what", g->text);
    jw_end(w);
}

void sandbox_explain(const Sandbox *s, Buf *out, bool json)
{
    static const char *const denied_names =
        "ptrace process_vm_readv process_vm_writev mount umount2 pivot_root unshare setns kexec_load "
        "kexec_file_load init_module finit_module delete_module bpf perf_event_open keyctl add_key "
        "request_key userfaultfd reboot swapon swapoff acct quotactl open_by_handle_at name_to_handle_at "
        "syslog settimeofday clock_settime clock_adjtime adjtimex memfd_create fsopen fsconfig fsmount "
        "fspick move_mount open_tree mount_setattr io_uring_setup io_uring_enter io_uring_register iopl ioperm; "
        "clone with namespace flags; clone3 (ENOSYS)";
    Guard tty, sock, ld;
    guard_terminals(s, &tty);
    guard_sockets(s, &sock);
    guard_loader(s, &ld);
    if (json) {
        JsonW w;
        jw_open_obj(&w, out);
        jw_kcstr(&w, "sandbox", "linux");
        jw_ku64(&w, "landlock_abi", s->use_landlock ? (uint64_t)s->caps.landlock_abi : 0);
        jw_kbool(&w, "user_namespace", s->use_userns);
        jw_kbool(&w, "pid_namespace", s->caps.pidns);
        jw_kbool(&w, "mount_namespace", s->caps.pidns || s->use_userns);
        jw_kbool(&w, "network_namespace", s->use_netns);
        jw_kbool(&w, "binfmt_misc", s->use_binfmt);
        jw_kcstr(&w, "network", s->network ? "enabled" : "disabled");
        jw_kbool(&w, "seccomp", s->use_seccomp);
        jw_kbool(&w, "no_new_privs", true);
        jw_kobj(&w, "rlimits");
        jw_ku64(&w, "core", 0);
        jw_end(&w);
        jw_karr(&w, "paths");
        for (size_t i = 0; i < s->n_rules; i++) {
            char a[64];
            access_names(s->rules[i].access, a, sizeof a);
            jw_obj(&w);
            jw_kcstr(&w, "path", s->rules[i].path);
            jw_kcstr(&w, "access", a);
            jw_kcstr(&w, "why", s->rules[i].why);
            jw_end(&w);
        }
        jw_end(&w);
        jw_kcstr(&w, "denied_syscalls", s->use_seccomp ? denied_names : "");
        json_guard(&w, "terminals", &tty);
        json_guard(&w, "unix_sockets", &sock);
        json_guard(&w, "loader_exec", &ld);
        jw_kcstr(&w, "not_enforced", s->missing);
        jw_end(&w);
        buf_putc(out, '\n');
        return;
    }
    buf_puts(out, "sandbox: linux (the program and every process it starts)\n");
    char ns[64] = "";
    const char *names[] = { s->caps.pidns ? "pid" : NULL, s->caps.pidns || s->use_userns ? "mount" : NULL,
                            s->use_userns ? "user" : NULL, s->use_netns ? "network" : NULL };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t l = strlen(ns);
        if (names[i])
            snprintf(ns + l, sizeof ns - l, "%s%s", l ? ", " : "", names[i]);
    }
    buf_printf(out, "  namespaces: %s\n", ns[0] ? ns : "none");
    if (s->network)
        buf_puts(out, "  network: enabled (network_unsafe_ack)\n");
    else
        buf_printf(out, "  network: disabled: %s%s\n", s->use_netns ? "an empty network namespace" : "",
                   s->use_landlock && s->caps.landlock_abi >= 4 ? ", and Landlock denies TCP bind and connect"
                                                                : "");
    if (s->use_landlock) {
        buf_printf(out, "  file system and exec: Landlock ABI %d; opening, making, removing or executing "
                        "anything else is denied:\n", s->caps.landlock_abi);
        for (size_t i = 0; i < s->n_rules; i++) {
            char a[64];
            access_names(s->rules[i].access, a, sizeof a);
            buf_printf(out, "    %-28s %-26s %s\n", s->rules[i].path, a, s->rules[i].why);
        }
        if (s->caps.landlock_abi >= 6)
            buf_puts(out, "  signals and abstract unix sockets: only within the sandbox (Landlock scopes)\n");
        buf_puts(out, "  not an exec: code an allowed program loads itself (an interpreter's scripts, "
                      "LD_PRELOAD, dlopen, JIT) is not checked\n");
    }
    buf_printf(out, "  terminals: %s%s\n", tty.text,
               s->use_userns ? " (mount namespace)" : s->use_landlock ? " (Landlock)" : "");
    buf_printf(out, "  unix sockets: %s%s\n", sock.text, sock.by ? " (seccomp)" : "");
    buf_printf(out, "  dynamic loader: %s%s\n", ld.text,
               ld.by ? " (binfmt_misc of the sandbox's user namespace)" : "");
    buf_puts(out, "  no_new_privs: set-uid and file capabilities give nothing\n");
    if (s->use_seccomp)
        buf_printf(out, "  seccomp: refused (EPERM): %s\n", denied_names);
    buf_puts(out, "  rlimits: no core dumps\n");
    if (s->missing[0])
        buf_printf(out, "  NOT ENFORCED (sandbox_unsafe_ack): the kernel lacks %s\n", s->missing);
}
