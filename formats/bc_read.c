/* SPDX-License-Identifier: MIT */
/* bc_read.c - bc_load: checks the container, decompresses, verifies.
**
** Three passes, each bounded by bytes already checked:
**   1. the header and the frame (sizes before any allocation, XXH64, one
**      zstd frame whose content size is the declared one);
**   2. the section table (known ids, ascending, contiguous, in bounds);
**   3. the verifier, organised by operand kind rather than by opcode
**      (as Janet's is): strings, values, code, lines, meta.
** A loaded program is ONE allocation: the BcProgram, copies of the
** payload's strings and values sections, and the string/value/instruction
** tables sized from counts that were bounded by their section sizes.  The
** strings are copied one byte to the left in one go, so that each lands
** where it stays and only its NUL is written (see layout, verify_strings);
** code, lines and metadata are decoded from the payload where it lies. */
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_createDCtx_advanced: allocate via sc_malloc */
#include "bc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "common/arena.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "bc_zstd.h"
#include "common/utf8.h"
#include "common/vformat.h"
#include "formats/agentcheck.h"
#include "formats/cond.h"
#include "formats/term/term_keys.h"

#define BC_MAX_SAFE ((uint64_t)9007199254740991)  /* 2^53-1 */
#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

typedef struct Loader {
    BcError *err;
    BcProgram *p;
    const unsigned char *sec[BC_SEC_META + 1], *sec_end[BC_SEC_META + 1];
    unsigned char *str_copy;    /* the program's copy of the strings (layout) */
    Arena *arena;               /* BcLoadOpts.arena, or NULL */
    size_t arena_n;             /* bytes layout took from it */
} Loader;

static BcErrCode fail(Loader *ld, BcErrCode code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static BcErrCode fail(Loader *ld, BcErrCode code, const char *fmt, ...)
{
    ld->err->code = code;
    SC_VFORMAT(ld->err->msg, sizeof ld->err->msg, fmt);
    return code;
}

static const char *sec_name(uint32_t id)
{
    switch (id) {
    case BC_SEC_STRINGS: return "strings";
    case BC_SEC_VALUES: return "values";
    case BC_SEC_CODE: return "code";
    case BC_SEC_LINES: return "lines";
    case BC_SEC_META: return "meta";
    default: return "unknown";
    }
}

/* ---- 1. header and frame ---- */

/* Header steps 3 and 4: the version and the flags. */
static BcErrCode check_version(Loader *ld, unsigned major, unsigned minor, uint32_t flags)
{
    if (major != BC_VERSION_MAJOR || minor > BC_VERSION_MINOR)
        return fail(ld, BC_ERR_VERSION, "bytecode version %u.%u is not supported (expected %d.0 to %d.%d)",
                    major, minor, (int)BC_VERSION_MAJOR, (int)BC_VERSION_MAJOR,
                    (int)BC_VERSION_MINOR);
    if (flags & ~(uint32_t)BC_FLAGS_KNOWN)
        return fail(ld, BC_ERR_FLAGS, "reserved flag bits 0x%x set",
                    flags & ~(uint32_t)BC_FLAGS_KNOWN);
    if ((flags & BC_FLAG_DICT) && minor < 1)
        return fail(ld, BC_ERR_FLAGS, "flag 0x%x (dictionary) is reserved in version %u.%u",
                    (unsigned)BC_FLAG_DICT, major, minor);
    return BC_ERR_OK;
}

/* Header step 5. */
static BcErrCode check_content(Loader *ld, uint64_t content, uint64_t max)
{
    if (content == 0 || content > max)
        return fail(ld, BC_ERR_SIZE, "declared content size %llu is not in 1..%llu",
                    (unsigned long long)content, (unsigned long long)max);
    return BC_ERR_OK;
}

static BcErrCode check_header(Loader *ld, const unsigned char *d, size_t size, uint64_t max)
{
    if (size < BC_HEADER_SIZE)
        return fail(ld, BC_ERR_TRUNCATED, "file is %zu bytes, shorter than the %d-byte header",
                    size, (int)BC_HEADER_SIZE);
    if (memcmp(d, BC_MAGIC, BC_MAGIC_LEN) != 0)
        return fail(ld, BC_ERR_MAGIC, "bad magic: not a compiled scenario (.scb)");
    BcErrCode e = check_version(ld, rd_u16le(d + 8), rd_u16le(d + 10), rd_u32le(d + 12));
    if (e)
        return e;
    uint64_t content = rd_u64le(d + 16), frame = rd_u64le(d + 24);
    if ((e = check_content(ld, content, max)))
        return e;
    if (frame > size - BC_HEADER_SIZE)
        return fail(ld, BC_ERR_TRUNCATED, "file is %zu bytes, the header declares %d + %llu",
                    size, (int)BC_HEADER_SIZE, (unsigned long long)frame);
    if (frame < size - BC_HEADER_SIZE)
        return fail(ld, BC_ERR_SIZE, "%llu bytes after the end of the frame",
                    (unsigned long long)(size - BC_HEADER_SIZE - frame));
    uint64_t want = rd_u64le(d + 32), got = XXH64(d + BC_HEADER_SIZE, (size_t)frame, 0);
    if (want != got)
        return fail(ld, BC_ERR_CHECKSUM, "checksum is %016llx, the header says %016llx",
                    (unsigned long long)got, (unsigned long long)want);
    return BC_ERR_OK;
}

static BcErrCode check_frame(Loader *ld, const unsigned char *f, size_t n, uint64_t content)
{
    if (n < 4 || rd_u32le(f) != ZSTD_MAGICNUMBER)
        return fail(ld, BC_ERR_COMPRESSION, "payload is not a zstd frame");
    size_t fs = ZSTD_findFrameCompressedSize(f, n);
    if (ZSTD_isError(fs))
        return fail(ld, BC_ERR_COMPRESSION, "zstd frame is invalid: %s", ZSTD_getErrorName(fs));
    if (fs != n)
        return fail(ld, BC_ERR_COMPRESSION, "%zu bytes after the zstd frame (one frame expected)",
                    n - fs);
    unsigned long long cs = ZSTD_getFrameContentSize(f, n);
    if (cs == ZSTD_CONTENTSIZE_UNKNOWN || cs == ZSTD_CONTENTSIZE_ERROR)
        return fail(ld, BC_ERR_COMPRESSION, "zstd frame does not declare its content size");
    if (cs != content)
        return fail(ld, BC_ERR_COMPRESSION, "zstd frame content size %llu, the header says %llu",
                    cs, (unsigned long long)content);
    return BC_ERR_OK;
}

static ZSTD_DCtx *dctx_new(void)
{
    ZSTD_customMem mem = bc_zstd_mem();
    return ZSTD_createDCtx_advanced(mem);
}

/* Loads without a BcLoadCtx (bc_load, bc_load_file) share one spare
** context (BcSpare): creating one cost more than decoding a small frame.
** Reuse changes no judgement: decompress begins every frame warm, on a
** new context and a used one alike (bench.load_ctx sweeps that). */
static BcSpare spare = BC_SPARE_INIT;

static ZSTD_DCtx *dctx_take(void)
{
    ZSTD_DCtx *d = bc_spare_take(&spare);
    return d ? d : dctx_new();
}

static void dctx_give(ZSTD_DCtx *d)
{
    ZSTD_freeDCtx(bc_spare_keep(&spare, d));
}

/* keep: the context of a BcLoadCtx, or NULL for the spare (dctx_take).
** dict: the frame was compressed with the built-in dictionary
** (BC_FLAG_DICT). */
static BcErrCode decompress(Loader *ld, ZSTD_DCtx *keep, bool dict, unsigned char *dst, size_t cap,
                            const unsigned char *f, size_t n)
{
    const ZSTD_DDict *dd = dict ? bc_dict_ddict() : NULL;
    if (dict && !dd)
        return fail(ld, BC_ERR_NOMEM, "out of memory (zstd dictionary)");
    ZSTD_DCtx *dc = keep ? keep : dctx_take();
    if (!dc)
        return fail(ld, BC_ERR_NOMEM, "out of memory (zstd context)");
    /* zstd picks one of two sequence decoders by whether the context used
    ** this dictionary last ("warm") or not ("cold", prefetching); they
    ** disagree on some corrupt frames, so what a load accepts would depend
    ** on the loads before it.  Beginning with the dictionary first makes
    ** every load, fresh context or reused, a warm one: the same judgement
    ** each time, and the faster decoder for small frames (the cold one
    ** cost 2,000 more instructions per 0.5 KB frame). */
    size_t r = dd ? ZSTD_decompressBegin_usingDDict(dc, dd) : 0;
    if (!ZSTD_isError(r))
        r = dd ? ZSTD_decompress_usingDDict(dc, dst, cap, f, n, dd)
               : ZSTD_decompressDCtx(dc, dst, cap, f, n);
    if (!keep)
        dctx_give(dc);
    if (ZSTD_isError(r)) {
        if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation)
            return fail(ld, BC_ERR_NOMEM, "out of memory (zstd)");
        return fail(ld, BC_ERR_COMPRESSION, "zstd: %s", ZSTD_getErrorName(r));
    }
    if (r != cap)
        return fail(ld, BC_ERR_COMPRESSION, "zstd frame decodes to %zu bytes, expected %zu", r, cap);
    return BC_ERR_OK;
}

/* ---- 2. section table ---- */

static BcErrCode read_sections(Loader *ld, const unsigned char *pl, size_t n, uint32_t flags)
{
    if (n < 4)
        return fail(ld, BC_ERR_SECTION, "payload of %zu bytes has no section table", n);
    uint32_t count = rd_u32le(pl);
    if (count == 0 || count > BC_SEC_META)
        return fail(ld, BC_ERR_SECTION, "section count %u is not in 1..%d", count, (int)BC_SEC_META);
    size_t off = 4 + 12 * (size_t)count;
    if (off > n)
        return fail(ld, BC_ERR_SECTION, "section table of %u entries overruns the %zu-byte payload",
                    count, n);
    uint32_t prev = 0;
    for (uint32_t i = 0; i < count; i++) {
        const unsigned char *e = pl + 4 + 12 * (size_t)i;
        uint32_t id = rd_u32le(e), so = rd_u32le(e + 4), sz = rd_u32le(e + 8);
        if (id < BC_SEC_STRINGS || id > BC_SEC_META)
            return fail(ld, BC_ERR_SECTION, "unknown section id %u (entry %u)", id, i);
        if (id <= prev)
            return fail(ld, BC_ERR_SECTION, "section %u (%s) out of order (entry %u)", id,
                        sec_name(id), i);
        if (so != off)
            return fail(ld, BC_ERR_SECTION,
                        "section %u (%s) starts at %u, expected %zu (sections are contiguous)",
                        id, sec_name(id), so, off);
        if (sz > n - off)
            return fail(ld, BC_ERR_SECTION, "section %u (%s) of %u bytes at %u overruns the "
                        "%zu-byte payload", id, sec_name(id), sz, so, n);
        ld->sec[id] = pl + off;
        ld->sec_end[id] = pl + off + sz;
        off += sz;
        prev = id;
    }
    if (off != n)
        return fail(ld, BC_ERR_SECTION, "%zu bytes after the last section", n - off);
    static const uint32_t required[] = { BC_SEC_STRINGS, BC_SEC_VALUES, BC_SEC_CODE, BC_SEC_META };
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!ld->sec[required[i]])
            return fail(ld, BC_ERR_SECTION, "section %u (%s) is missing", required[i],
                        sec_name(required[i]));
    bool want_lines = (flags & BC_FLAG_LINES) != 0;
    if ((ld->sec[BC_SEC_LINES] != NULL) != want_lines)
        return fail(ld, BC_ERR_SECTION, want_lines ? "line table flag set but section 4 (lines) "
                    "is missing" : "section 4 (lines) present but the line table flag is clear");
    return BC_ERR_OK;
}

/* Reads a section's leading count, bounded by the bytes left / min_size. */
static BcErrCode read_count(Loader *ld, uint32_t id, BcErrCode code, size_t min_size,
                            uint32_t *n)
{
    const unsigned char *p = ld->sec[id], *end = ld->sec_end[id];
    uint64_t v;
    if (!varint_read(&p, end, &v))
        return fail(ld, code, "%s: count is truncated or malformed", sec_name(id));
    if (v > (uint64_t)(end - p) / min_size)
        return fail(ld, code, "%s: count %llu exceeds what %td bytes can hold", sec_name(id),
                    (unsigned long long)v, end - p);
    *n = (uint32_t)v;                    /* < 2^32: bounded by BC_MAX_CONTENT-sized data */
    ld->sec[id] = p;
    return BC_ERR_OK;
}

/* ---- 3. the verifier ---- */

/* No byte of [p, p + n) has its top bit set: eight at a time, inline. */
static inline bool ascii_only(const unsigned char *p, size_t n)
{
    uint64_t acc = 0, w;
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        memcpy(&w, p + i, 8);
        acc |= w;
    }
    if (i < n && n >= 8) {   /* the tail as the last eight bytes, overlapping */
        memcpy(&w, p + n - 8, 8);
        acc |= w;
        i = n;
    }
    for (; i < n; i++)
        acc |= p[i];
    return (acc & 0x8080808080808080ull) == 0;
}

/* Each entry is a varint length then the bytes.  layout copied the
** section after its count one byte to the left (copy[k] = section[k + 1]),
** so each string's bytes already lie in the copy one place before where
** they are in src; the byte after them in the copy (a copy of the next
** entry's first byte, or for the last string the byte after the copied
** ones) becomes the string's NUL.  Lengths are read from src. */
static BcErrCode verify_strings(Loader *ld, BcStr *str, uint32_t n)
{
    const unsigned char *p = ld->sec[BC_SEC_STRINGS], *end = ld->sec_end[BC_SEC_STRINGS];
    const unsigned char *base = p;
    unsigned char *copy = ld->str_copy;
    /* Most sections hold only ASCII text and lengths under 128, so no byte
    ** at all with its top bit set: one pass over the section instead of a
    ** check per string.  Otherwise each string is checked for that inline
    ** and only the rest go through the UTF-8 decoder. */
    bool ascii = ascii_only(p, (size_t)(end - p));
    for (uint32_t i = 0; i < n; i++) {
        VarintAt r = varint_at(p, end);
        if (!r.p)
            return fail(ld, BC_ERR_STRINGS, "string %u: length is truncated or malformed", i);
        p = r.p;
        uint64_t len = r.v;
        if (len > (uint64_t)(end - p))
            return fail(ld, BC_ERR_STRINGS, "string %u: length %llu overruns the section", i,
                        (unsigned long long)len);
        size_t bad;
        if (!ascii && !ascii_only(p, (size_t)len) && !utf8_valid(p, (size_t)len, &bad))
            return fail(ld, BC_ERR_STRINGS, "string %u: invalid UTF-8 at byte %zu", i, bad);
        unsigned char *c = copy + (p - base) - 1;
        c[len] = 0;
        str[i].s = (const char *)c;
        str[i].len = (uint32_t)len;
        p += len;
    }
    if (p != end)
        return fail(ld, BC_ERR_STRINGS, "%td bytes after the last string", end - p);
    return BC_ERR_OK;
}

/* Walks one value iteratively.  The level being read (the value itself,
** or the innermost open container) is in registers: left, the items
** still due in it (a map's 2n items alternate key, value), and whether it
** is a map; st[] holds the enclosing levels, depth of them, one per open
** container.  A level whose items are all read is closed at once, so
** depth is the nesting of the next item. */
static BcErrCode verify_value(Loader *ld, uint32_t i, const unsigned char **pp,
                              const unsigned char *end, uint32_t n_str)
{
    struct { uint64_t left; bool map; } st[BC_MAX_DEPTH];
    int depth = 0;
    uint64_t left = 1;
    bool map = false;
    const unsigned char *p = *pp;
    for (;;) {
        bool key = map && left % 2 == 0;
        left--;
        if (p >= end)
            return fail(ld, BC_ERR_VALUES, "value %u: truncated", i);
        unsigned tag = *p++;
        VarintAt r;
        if (key && tag != BC_V_STR)
            return fail(ld, BC_ERR_VALUES, "value %u: map key is not a string (tag %u)", i, tag);
        switch (tag) {
        case BC_V_NULL:
        case BC_V_FALSE:
        case BC_V_TRUE:
            break;
        case BC_V_INT:
            if (!(r = varint_at(p, end)).p)
                return fail(ld, BC_ERR_VALUES, "value %u: integer is truncated or malformed", i);
            p = r.p;
            break;
        case BC_V_FLOAT:
            if (end - p < 8)
                return fail(ld, BC_ERR_VALUES, "value %u: float is truncated", i);
            p += 8;
            break;
        case BC_V_STR:
            if (!(r = varint_at(p, end)).p)
                return fail(ld, BC_ERR_VALUES, "value %u: string index is truncated or malformed", i);
            p = r.p;
            if (r.v >= n_str)
                return fail(ld, BC_ERR_VALUES, "value %u: string index %llu out of range (%u strings)",
                            i, (unsigned long long)r.v, n_str);
            break;
        case BC_V_ARRAY:
        case BC_V_MAP:
            if (!(r = varint_at(p, end)).p)
                return fail(ld, BC_ERR_VALUES, "value %u: count is truncated or malformed", i);
            p = r.p;
            /* every item takes at least one byte, a map entry at least three */
            if (r.v > (uint64_t)(end - p) / (tag == BC_V_MAP ? 3 : 1))
                return fail(ld, BC_ERR_VALUES, "value %u: %s count %llu exceeds the bytes left", i,
                            tag == BC_V_MAP ? "map" : "array", (unsigned long long)r.v);
            if (depth == BC_MAX_DEPTH)
                return fail(ld, BC_ERR_VALUES, "value %u: nested deeper than %d", i,
                            (int)BC_MAX_DEPTH);
            if (r.v > 0) {
                st[depth].left = left;
                st[depth].map = map;
                depth++;
                left = tag == BC_V_MAP ? 2 * r.v : r.v;
                map = tag == BC_V_MAP;
                continue;
            }
            break;
        default:
            return fail(ld, BC_ERR_VALUES, "value %u: unknown tag %u", i, tag);
        }
        while (left == 0) {
            if (depth == 0) {
                *pp = p;
                return BC_ERR_OK;
            }
            depth--;
            left = st[depth].left;
            map = st[depth].map;
        }
    }
}

static BcErrCode verify_values(Loader *ld, const unsigned char **val, uint32_t n, uint32_t n_str)
{
    const unsigned char *p = ld->sec[BC_SEC_VALUES], *end = ld->sec_end[BC_SEC_VALUES];
    for (uint32_t i = 0; i < n; i++) {
        val[i] = p;
        BcErrCode e = verify_value(ld, i, &p, end, n_str);
        if (e)
            return e;
    }
    if (p != end)
        return fail(ld, BC_ERR_VALUES, "%td bytes after the last value", end - p);
    return BC_ERR_OK;
}

/* An operand's bound by its kind letter (ops.def): slot 1 S, 2 K, 3 U;
** slot 0, any other letter, has the bound 0 (gen_opcodes rejects them at
** build time).  One compare per operand, and the switch in verify_code
** only to say what was wrong.  (A 32-entry bound table indexed by the
** letter was cleared at each call: a `rep stos` of 256 bytes, 6% of
** verify_code's time.) */
static const unsigned char kind_slot[32] = { ['S' & 31] = 1, ['K' & 31] = 2, ['U' & 31] = 3 };

static BcErrCode verify_code(Loader *ld, BcInsn *insn, uint32_t n, uint32_t n_str, uint32_t n_val, unsigned minor)
{
    const unsigned char *p = ld->sec[BC_SEC_CODE], *end = ld->sec_end[BC_SEC_CODE];
    uint64_t t = 0;
    const uint64_t lim[4] = { 0, n_str, n_val, (uint64_t)UINT32_MAX + 1 };
    const unsigned n_ops = minor < 2 ? BC_FIRST_OP_1_2 : OP__COUNT;
    if (n == 0)
        return fail(ld, BC_ERR_CODE, "no ops (the last op must be END)");
    for (uint32_t i = 0; i < n; i++) {
        BcInsn *in = &insn[i];
        memset(in, 0, sizeof *in);
        uint64_t dt, v;
        if (p >= end)
            return fail(ld, BC_ERR_CODE, "truncated (op %u)", i);
        unsigned op = *p++;
        if (op >= n_ops) {
            if (op >= OP__COUNT)
                return fail(ld, BC_ERR_CODE, "opcode %u out of range (op %u)", op, i);
            return fail(ld, BC_ERR_CODE, "opcode %s needs version 1.2, the file says 1.%u (op %u)",
                        bc_op_info[op].name, minor, i);
        }
        const BcOpInfo *info = &bc_op_info[op];
        VarintAt r = varint_at(p, end);
        if (!r.p)
            return fail(ld, BC_ERR_CODE, "time is truncated or malformed (op %u)", i);
        p = r.p;
        dt = r.v;
        if (dt > BC_MAX_SAFE - t)
            return fail(ld, BC_ERR_CODE, "time exceeds 2^53-1 ms (op %u)", i);
        t += dt;
        in->t = t;
        in->op = (uint8_t)op;
        int n_opd = info->n_operands;
        const char *kind = info->operands;  /* held: the stores below may alias a char */
        in->n = (uint8_t)n_opd;
        for (int k = 0; k < n_opd; k++) {
            if (!(r = varint_at(p, end)).p)
                return fail(ld, BC_ERR_CODE, "%s operand %d is truncated or malformed (op %u)",
                            info->name, k + 1, i);
            p = r.p;
            v = r.v;
            in->a[k] = (uint32_t)v;
            if (v < lim[kind_slot[kind[k] & 31]])
                continue;
            switch (kind[k]) {
            case 'S':
                return fail(ld, BC_ERR_CODE, "string index %llu out of range (op %u)",
                            (unsigned long long)v, i);
            case 'K':
                return fail(ld, BC_ERR_CODE, "value index %llu out of range (op %u)",
                            (unsigned long long)v, i);
            case 'U':
                return fail(ld, BC_ERR_CODE, "%s operand %d: %llu exceeds 4294967295 (op %u)",
                            info->name, k + 1, (unsigned long long)v, i);
            default:   /* gen_opcodes rejects any other letter at build time */
                return fail(ld, BC_ERR_CODE, "operand kind '%c' unknown (op %u)", kind[k], i);
            }
        }
        if ((info->flags & OPF_END) && i + 1 != n)
            return fail(ld, BC_ERR_CODE, "%s before the last op (op %u)", info->name, i);
    }
    const BcOpInfo *last = &bc_op_info[insn[n - 1].op];
    if (!(last->flags & OPF_END))
        return fail(ld, BC_ERR_CODE, "last op is %s, not END (op %u)", last->name, n - 1);
    if (p != end)
        return fail(ld, BC_ERR_CODE, "%td bytes after END", end - p);
    return BC_ERR_OK;
}

static BcErrCode verify_lines(Loader *ld, BcInsn *insn, uint32_t n)
{
    const unsigned char *p = ld->sec[BC_SEC_LINES], *end = ld->sec_end[BC_SEC_LINES];
    if (!p)
        return BC_ERR_OK;
    uint64_t count, zz, col;
    if (!varint_read(&p, end, &count))
        return fail(ld, BC_ERR_LINES, "count is truncated or malformed");
    if (count != n)
        return fail(ld, BC_ERR_LINES, "%llu entries for %u ops", (unsigned long long)count, n);
    int64_t line = 0;
    for (uint32_t i = 0; i < n; i++) {
        VarintAt a = varint_at(p, end), b = a.p ? varint_at(a.p, end) : a;
        if (!b.p)
            return fail(ld, BC_ERR_LINES, "entry is truncated or malformed (op %u)", i);
        p = b.p;
        zz = a.v;
        col = b.v;
        int64_t d = zigzag_dec(zz);
        if (d < -line || d > (int64_t)UINT32_MAX - line)
            return fail(ld, BC_ERR_LINES, "line out of range (op %u)", i);
        if (col > UINT32_MAX)
            return fail(ld, BC_ERR_LINES, "column %llu out of range (op %u)",
                        (unsigned long long)col, i);
        line += d;
        insn[i].line = (uint32_t)line;
        insn[i].col = (uint32_t)col;
    }
    if (p != end)
        return fail(ld, BC_ERR_LINES, "%td bytes after the last entry", end - p);
    return BC_ERR_OK;
}

/* The eight bytes in w are printable ASCII: none >= 0x80, none below
** 0x20, none equal to 0x7f. */
static inline bool printable_word(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t x = w ^ (0x7f * ones);
    return !(w & high) && !((w - 0x20 * ones) & ~w & high) && !((x - ones) & ~x & high);
}

bool bc_text_ok(const char *s, size_t n)
{
    /* Printable ASCII eight bytes at a time (names, tags and paths are),
    ** the tail as the last eight, overlapping. */
    size_t i = 0;
    uint64_t w;
    for (; n - i >= 8; i += 8) {
        memcpy(&w, s + i, 8);
        if (!printable_word(w))
            break;
    }
    if (i < n && n - i < 8 && n >= 8) {
        memcpy(&w, s + n - 8, 8);
        if (printable_word(w))
            return true;
    }
    unsigned acc = 0;   /* the decoder only for text that is not all ASCII */
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            return false;
        acc |= c;
    }
    return acc < 0x80 || utf8_valid((const unsigned char *)s, n, NULL);
}

bool bc_component_ok(const char *s, size_t n)
{
    if (n == 0 || n > 255 || s[0] == '-' || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
        return false;
    return !memchr(s, '/', n) && !memchr(s, '\\', n) && bc_text_ok(s, n);
}

static BcErrCode verify_meta(Loader *ld, BcProgram *prog)
{
    static const char *const what[8] = { "name", "source", "prompt", "tags", "config", "defines",
                                         "term_width", "term_height" };
    const unsigned char *p = ld->sec[BC_SEC_META], *end = ld->sec_end[BC_SEC_META];
    uint32_t f[8];
    for (int i = 0; i < 8; i++) {
        uint64_t v;
        if (!varint_read(&p, end, &v))
            return fail(ld, BC_ERR_META, "%s is truncated or malformed", what[i]);
        uint64_t lim = i < 2 ? prog->n_str : i < 6 ? prog->n_val : (uint64_t)UINT32_MAX + 1;
        if (v >= lim)
            return fail(ld, BC_ERR_META, "%s %s %llu out of range", what[i],
                        i < 2 ? "string index" : i < 6 ? "value index" : "value",
                        (unsigned long long)v);
        f[i] = (uint32_t)v;
    }
    if (p != end)
        return fail(ld, BC_ERR_META, "%td trailing bytes", end - p);
    BcMeta *m = &prog->meta;
    *m = (BcMeta){ f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7] };
    /* Only the tags of prompt, config and defines: bc_val would walk a
    ** whole map to find its end. */
    unsigned prompt = bc_val_tag(prog, m->prompt);
    if (prompt != BC_V_STR && prompt != BC_V_NULL)
        return fail(ld, BC_ERR_META, "prompt (value %u) is not a string or null", m->prompt);
    BcVal v = bc_val(prog, m->tags);
    if (v.tag != BC_V_ARRAY)
        return fail(ld, BC_ERR_META, "tags (value %u) is not an array", m->tags);
    /* The name and tags are shown, and a variant's name becomes part of a
    ** file name (scvm extract: <stem>@VARIANT.scb): checked here, once, for
    ** every program that loads, packed or not. */
    const BcStr *name = &prog->str[m->name];
    if (!bc_text_ok(name->s, name->len))   /* no NUL either: below 0x20 */
        return fail(ld, BC_ERR_META, "the scenario's name has a NUL or control byte");
    const unsigned char *e = v.p;
    for (uint32_t i = 0; i < v.n; i++) {
        BcVal el;
        e = bc_val_decode(prog, e, &el);
        if (el.tag != BC_V_STR)
            return fail(ld, BC_ERR_META, "tags (value %u): element %u is not a string", m->tags, i);
        const BcStr *t = &prog->str[el.n];
        if (!bc_text_ok(t->s, t->len))
            return fail(ld, BC_ERR_META, "tag %u has a NUL or control byte", i);
        if (t->len >= 8 && memcmp(t->s, "variant:", 8) == 0) {
            const char *vn = t->s + 8;
            size_t vl = t->len - 8;
            if (!bc_component_ok(vn, vl))
                return fail(ld, BC_ERR_META, "tag %u: variant name \"%.60s\" is not a plain file-name component "
                            "(no '/', '..', leading '-' or control bytes)", i, vn);
            if (name->len <= vl || name->s[name->len - vl - 1] != '@' || memcmp(name->s + name->len - vl, vn, vl) != 0)
                return fail(ld, BC_ERR_META, "tag %u: variant \"%.60s\" is not the end of the name \"%.60s\"",
                            i, vn, name->s);
        }
    }
    /* 0: the target's default; else what a terminal can be (the PTY
    ** target would refuse more). */
    if (m->term_width > 500 || m->term_height > 500)
        return fail(ld, BC_ERR_META, "terminal size %ux%u is out of range (1-500 columns and rows)",
                    m->term_width, m->term_height);
    if (bc_val_tag(prog, m->config) != BC_V_MAP)
        return fail(ld, BC_ERR_META, "config (value %u) is not a map", m->config);
    if (bc_val_tag(prog, m->defines) != BC_V_MAP)
        return fail(ld, BC_ERR_META, "defines (value %u) is not a map", m->defines);
    return BC_ERR_OK;
}

/* What a target interprets in an operand, checked here so that a
** program that verifies is never refused later: key names (KEY), sizes
** (RESIZE: 1-500, as the PTY target and the tui-use data model allow)
** and the condition language of WAIT and CHECK (formats/cond.h), patterns
** included. */
static BcErrCode verify_operands(Loader *ld, const BcProgram *prog)
{
    for (uint32_t i = 0; i < prog->n_insn; i++) {
        const BcInsn *in = &prog->insn[i];
        switch (in->op) {
        case OP_KEY: {
            TermKey k;
            const BcStr *s = &prog->str[in->a[0]];
            if (strlen(s->s) != s->len || !term_key_parse(s->s, &k))
                return fail(ld, BC_ERR_CODE, "KEY: unknown key name \"%.60s\" (op %u)", s->s, i);
            break;
        }
        case OP_RESIZE:
            if (in->a[0] < 1 || in->a[0] > 500 || in->a[1] < 1 || in->a[1] > 500)
                return fail(ld, BC_ERR_CODE, "RESIZE: %ux%u is out of range (1-500 rows and columns) (op %u)",
                            in->a[0], in->a[1], i);
            break;
        case OP_WAIT:
        case OP_CHECK: {
            BcVal v = bc_val(prog, in->a[0]);
            Cond c;
            char msg[256];
            bool ok = cond_parse(prog, &v, &c, msg, sizeof msg);
            cond_fini(&c);
            if (!ok)
                return fail(ld, BC_ERR_CODE, "%s: %s (op %u)", bc_op_info[in->op].name, msg, i);
            break;
        }
        case OP_CASE: {
            static const char *const kinds[] = { "input", "code", "conversation", "standard", "dynamic", NULL };
            const char *k = prog->str[in->a[1]].s;
            size_t j = 0;
            while (kinds[j] && strcmp(kinds[j], k) != 0)
                j++;
            if (!kinds[j])
                return fail(ld, BC_ERR_CODE, "CASE: unknown kind \"%.60s\" (op %u)", k, i);
            if (bc_val_tag(prog, in->a[2]) != BC_V_MAP)
                return fail(ld, BC_ERR_CODE, "CASE: settings (value %u) is not a map (op %u)", in->a[2], i);
            break;
        }
        case OP_EVAL: {
            BcVal v = bc_val(prog, in->a[0]);
            char msg[256];
            int r = ac_verify(prog, &v, msg, sizeof msg);
            if (r < 0)
                return fail(ld, BC_ERR_NOMEM, "out of memory (EVAL op %u)", i);
            if (r == 0)
                return fail(ld, BC_ERR_CODE, "EVAL: %s (op %u)", msg, i);
            break;
        }
        default:
            break;
        }
    }
    return BC_ERR_OK;
}

/* ---- loading ---- */

/* Allocates the program's one block and copies into it what the program
** keeps of the payload (src, whose sections read_sections found): the
** strings section after its count one byte to the left, where
** verify_strings makes C strings of it without moving them again, and the
** values section, whose pointers are moved to the copy.  Code, lines and
** metadata are decoded from src into the tables. */
static BcErrCode layout(Loader *ld, unsigned char **mem, uint32_t n_str, uint32_t n_val,
                        uint32_t n_insn)
{
    const unsigned char *s = ld->sec[BC_SEC_STRINGS], *v = ld->sec[BC_SEC_VALUES];
    size_t n_s = (size_t)(ld->sec_end[BC_SEC_STRINGS] - s);
    size_t n_v = (size_t)(ld->sec_end[BC_SEC_VALUES] - v);
    size_t head = ALIGN8(sizeof(BcProgram));
    size_t o_vb = head + ALIGN8(n_s);
    size_t o_str = o_vb + ALIGN8(n_v);
    size_t o_val = o_str + ALIGN8((size_t)n_str * sizeof(BcStr));
    size_t o_ins = o_val + ALIGN8((size_t)n_val * sizeof(unsigned char *));
    size_t total = o_ins + (size_t)n_insn * sizeof(BcInsn);
    /* From the heap: the copies first, then grown to the tables:
    ** allocating the final size at once made glibc trim the heap's top at
    ** every pack_free and fault it back in at the next pack_load (bench_vm
    ** pack: 30,900 page faults against 2,150, and a third slower), though
    ** it runs fewer instructions.  From an arena: at once. */
    unsigned char *m = ld->arena ? arena_alloc(ld->arena, total) : sc_malloc(o_str);
    if (m) {
        if (n_s > 1)
            memcpy(m + head, s + 1, n_s - 1);
        if (n_v)
            memcpy(m + o_vb, v, n_v);
    }
    unsigned char *g = m && !ld->arena ? sc_realloc(m, total) : m;
    if (!g) {
        if (!ld->arena)
            sc_free(m);
        return fail(ld, BC_ERR_NOMEM, "out of memory (%zu bytes for the program)", total);
    }
    m = g;
    ld->arena_n = ld->arena ? total : 0;
    ld->str_copy = m + head;
    ld->sec[BC_SEC_VALUES] = m + o_vb;
    ld->sec_end[BC_SEC_VALUES] = m + o_vb + n_v;
    *mem = m;
    BcProgram *p = (BcProgram *)m;
    memset(p, 0, sizeof *p);
    p->str = (const BcStr *)(m + o_str);
    p->val = (const unsigned char *const *)(m + o_val);
    p->insn = (const BcInsn *)(m + o_ins);
    return BC_ERR_OK;
}

struct BcLoadCtx {
    ZSTD_DCtx *dc;         /* created on first use */
    char *buf;             /* the last file read */
    size_t cap;
    unsigned char *pl;     /* the last payload decompressed */
    size_t pl_cap;
};

/* Room for a decompressed payload: the context's buffer (kept for the
** next load), or a fresh one (*owned) without a context. */
static unsigned char *payload_buf(BcLoadCtx *c, size_t n, bool *owned)
{
    *owned = c == NULL;
    if (!c)
        return sc_malloc(n);
    if (n > c->pl_cap) {
        unsigned char *p = sc_realloc(c->pl, n);
        if (!p)
            return NULL;
        c->pl = p;
        c->pl_cap = n;
    }
    return c->pl;
}

BcLoadCtx *bc_load_ctx_new(void)
{
    return sc_calloc(1, sizeof(BcLoadCtx));
}

void bc_load_ctx_free(BcLoadCtx *c)
{
    if (!c)
        return;
    ZSTD_freeDCtx(c->dc);
    sc_free(c->buf);
    sc_free(c->pl);
    sc_free(c);
}

BcErrCode bc_load(const void *data, size_t size, const BcLoadOpts *opts, BcProgram **out,
                  BcError *err)
{
    return bc_load_with(NULL, data, size, opts, out, err);
}

BcErrCode bc_unwrap(const void *data, size_t size, unsigned char **payload, size_t *len,
                    BcError *err)
{
    BcError scratch;
    Loader ld = { .err = err ? err : &scratch };
    ld.err->code = BC_ERR_OK;
    ld.err->msg[0] = 0;
    *payload = NULL;
    *len = 0;
    const unsigned char *d = data;
    BcErrCode e = check_header(&ld, d, size, BC_MAX_CONTENT);
    if (e)
        return e;
    size_t content = (size_t)rd_u64le(d + 16), frame = (size_t)rd_u64le(d + 24);
    if ((e = check_frame(&ld, d + BC_HEADER_SIZE, frame, content)))
        return e;
    unsigned char *p = sc_malloc(content);
    if (!p)
        return fail(&ld, BC_ERR_NOMEM, "out of memory (%zu bytes for the payload)", content);
    if ((e = decompress(&ld, NULL, (rd_u32le(d + 12) & BC_FLAG_DICT) != 0, p, content,
                        d + BC_HEADER_SIZE, frame))) {
        sc_free(p);
        return e;
    }
    *payload = p;
    *len = content;
    return BC_ERR_OK;
}

static uint64_t max_content(const BcLoadOpts *opts)
{
    /* A caller may lower the limit, never raise it: counts are read as
    ** 32-bit on the strength of it (read_count). */
    uint64_t max = opts && opts->max_content && opts->max_content < BC_MAX_CONTENT
                       ? opts->max_content : BC_MAX_CONTENT;
    return max > SIZE_MAX / 4 ? SIZE_MAX / 4 : max;
}

/* Steps 9-11 on the payload src (content bytes, of the version and flags
** given, already checked).  The section table and counts are read where
** the payload lies; then the program's one block is allocated, and the
** sections verified as they are copied or decoded into it.  src itself is
** never written. */
static BcErrCode verify_payload(Loader *ld, const unsigned char *src, size_t content, unsigned major,
                                unsigned minor, uint32_t flags, BcProgram **out)
{
    unsigned char *mem = NULL;
    uint32_t n_str = 0, n_val = 0, n_insn = 0;   /* -O3 cannot see the || chain sets them */
    BcErrCode e;
    if ((e = read_sections(ld, src, content, flags)) ||
        (e = read_count(ld, BC_SEC_STRINGS, BC_ERR_STRINGS, 1, &n_str)) ||
        (e = read_count(ld, BC_SEC_VALUES, BC_ERR_VALUES, 1, &n_val)) ||
        (e = read_count(ld, BC_SEC_CODE, BC_ERR_CODE, 2, &n_insn)) ||
        (e = layout(ld, &mem, n_str, n_val, n_insn)))
        return e;
    BcProgram *p = (BcProgram *)mem;
    p->version_major = (uint16_t)major;
    p->version_minor = (uint16_t)minor;
    p->flags = flags;
    p->n_str = n_str;
    p->n_val = n_val;
    p->n_insn = n_insn;
    p->val_end = ld->sec_end[BC_SEC_VALUES];
    p->content_size = content;
    p->mem_ = ld->arena ? NULL : mem;
    p->arena_ = ld->arena;
    p->arena_n_ = ld->arena_n;
    if ((e = verify_strings(ld, (BcStr *)p->str, n_str)) ||
        (e = verify_values(ld, (const unsigned char **)p->val, n_val, n_str)) ||
        (e = verify_code(ld, (BcInsn *)p->insn, n_insn, n_str, n_val, minor)) ||
        (e = verify_lines(ld, (BcInsn *)p->insn, n_insn)) ||
        (e = verify_meta(ld, p)) ||
        (e = verify_operands(ld, p))) {
        bc_free(p);
        return e;
    }
    *out = p;
    return BC_ERR_OK;
}

BcErrCode bc_load_with(BcLoadCtx *c, const void *data, size_t size, const BcLoadOpts *opts,
                       BcProgram **out, BcError *err)
{
    BcError scratch;
    Loader ld = { .err = err ? err : &scratch };
    ld.err->code = BC_ERR_OK;
    ld.err->msg[0] = 0;
    *out = NULL;
    const unsigned char *d = data;
    BcErrCode e = check_header(&ld, d, size, max_content(opts));
    if (e)
        return e;
    size_t content = (size_t)rd_u64le(d + 16), frame = (size_t)rd_u64le(d + 24);
    uint32_t flags = rd_u32le(d + 12);
    if ((e = check_frame(&ld, d + BC_HEADER_SIZE, frame, content)))
        return e;

    bool owned;
    unsigned char *pl = payload_buf(c, content, &owned);
    if (!pl)
        return fail(&ld, BC_ERR_NOMEM, "out of memory (%zu bytes for the payload)", content);
    if (c && !c->dc && !(c->dc = dctx_new())) {
        if (owned)
            sc_free(pl);
        return fail(&ld, BC_ERR_NOMEM, "out of memory (zstd context)");
    }
    e = decompress(&ld, c ? c->dc : NULL, (flags & BC_FLAG_DICT) != 0, pl, content,
                   d + BC_HEADER_SIZE, frame);
    ld.arena = opts ? opts->arena : NULL;
    if (!e)
        e = verify_payload(&ld, pl, content, rd_u16le(d + 8), rd_u16le(d + 10), flags, out);
    if (owned)
        sc_free(pl);
    if (e)
        return e;
    (*out)->file_size = size;
    (*out)->checksum = rd_u64le(d + 32);
    return BC_ERR_OK;
}

BcErrCode bc_load_payload(const void *payload, size_t n, uint16_t major, uint16_t minor,
                          uint32_t flags, const BcLoadOpts *opts, BcProgram **out, BcError *err)
{
    BcError scratch;
    Loader ld = { .err = err ? err : &scratch };
    ld.err->code = BC_ERR_OK;
    ld.err->msg[0] = 0;
    *out = NULL;
    BcErrCode e;
    if ((e = check_version(&ld, major, minor, flags)) ||
        (e = check_content(&ld, n, max_content(opts))))
        return e;
    ld.arena = opts ? opts->arena : NULL;
    return verify_payload(&ld, payload, n, major, minor, flags, out);
}

/* Reads a regular file into the context's buffer (grown as needed, kept
** for the next call); anything else (stdin, a pipe) goes through
** file_read_all.  Returns 0 or an errno value, as file_read_all does.
** *owned is set when data must be freed by the caller. */
static int read_into(BcLoadCtx *c, const char *path, size_t max, char **data, size_t *len,
                     bool *owned)
{
    *owned = true;
    if (!c || strcmp(path, "-") == 0)
        return file_read_all(path, max, data, len);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return file_read_all(path, max, data, len);
    }
    size_t n = 0, want = (size_t)st.st_size < max ? (size_t)st.st_size + 1 : max + 1;
    int e = 0;
    for (;;) {
        if (n == c->cap) {
            size_t cap = c->cap < want ? want : c->cap * 2;
            if (c->cap > max) {
                e = EFBIG;
                break;
            }
            char *b = sc_realloc(c->buf, cap);
            if (!b) {
                e = ENOMEM;
                break;
            }
            c->buf = b;
            c->cap = cap;
        }
        ssize_t r = read(fd, c->buf + n, c->cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            e = errno;
            break;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n > max) {
            e = EFBIG;
            break;
        }
    }
    close(fd);
    *data = c->buf;
    *len = n;
    *owned = false;
    return e;
}

BcErrCode bc_load_file(const char *path, const BcLoadOpts *opts, BcProgram **out, BcError *err)
{
    return bc_load_file_with(NULL, path, opts, out, err);
}

BcErrCode bc_load_file_with(BcLoadCtx *c, const char *path, const BcLoadOpts *opts,
                            BcProgram **out, BcError *err)
{
    BcError scratch;
    if (!err)
        err = &scratch;
    *out = NULL;
    uint64_t max = opts && opts->max_content ? opts->max_content : BC_MAX_CONTENT;
    if (max > SIZE_MAX / 4)
        max = SIZE_MAX / 4;
    size_t limit = BC_HEADER_SIZE + ZSTD_compressBound((size_t)max);
    char *data;
    size_t len;
    bool owned;
    int r = read_into(c, path, limit, &data, &len, &owned);
    if (r) {
        err->code = r == EFBIG ? BC_ERR_SIZE : r == ENOMEM ? BC_ERR_NOMEM : BC_ERR_IO;
        snprintf(err->msg, sizeof err->msg, "cannot read '%s': %s", path,
                 r == EFBIG ? "file too large" : strerror(r));
        return err->code;
    }
    BcErrCode e = bc_load_with(c, data, len, opts, out, err);
    if (owned)
        sc_free(data);
    return e;
}

void bc_free(BcProgram *p)
{
    if (p && p->arena_)
        arena_unalloc(p->arena_, p, p->arena_n_);
    else if (p)
        sc_free(p->mem_);
}
