/*
 * params.c — bellperson .params / .vk files (layout in cuzk/params.h and
 * prover-internals.md §2.2-2.3).
 *
 * Reading happens in two passes. The first pass walks the layout: six fixed
 * points, then one u32 big-endian length word per vector, each compared with
 * the bytes that remain before the position moves. Counts are u32 and strides
 * at most 192, so count * stride is computed in 64 bits and can never wrap;
 * it is compared with `size - pos`, never added to pos first. The walk ends
 * with "no trailing bytes". Only a file whose every byte is accounted for gets
 * memory allocated for its points, so a truncated 47 GB file fails at once and
 * a forged count cannot make us allocate. cuzk_params_info runs the same walk
 * with pread() instead of a mapping, reading ~30 bytes of a 47 GB file.
 *
 * The second pass decodes. The file is cut into units of up to 2048 G1 (1024
 * G2) points, about 192 KB each, numbered in file order; units are grouped
 * into at most 256 batches, and each batch is one cuzk_pool_run. Between
 * batches the calling thread reports progress, so the callback never runs on
 * a worker. A failing point is recorded under a mutex only if it comes before
 * the one already recorded, and units after a recorded failure are skipped;
 * since batches run in file order, the reported error is always the first
 * bad point of the file, whatever the thread count.
 *
 * Without CUZK_PARAMS_CHECK_CURVE points are decoded here with byte checks
 * only (flags, coordinates < p); with it the strict decoders of
 * cuzk/serialize.h do the work, plus the subgroup check on request. The
 * identity is rejected everywhere: bellperson rejects it in every vector and
 * an honest setup never yields it among the verifying-key points either.
 *
 * Writing goes through a 64 KB buffer into an atomic output file
 * (cuzk/outfile.h: `<path>.tmp.<pid>`, fsynced and renamed over path, or
 * removed on any failure).
 */
#include "cuzk/params.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/outfile.h"
#include "cuzk/serialize.h"

#define G1_BYTES CUZK_G1_UNCOMPRESSED_SIZE
#define G2_BYTES CUZK_G2_UNCOMPRESSED_SIZE
#define UNIT_BYTES (192u * 1024u)
#define MAX_BATCHES 256

/* ---- layout ------------------------------------------------------------- */

enum {
    SEC_ALPHA_G1,
    SEC_BETA_G1,
    SEC_BETA_G2,
    SEC_GAMMA_G2,
    SEC_DELTA_G1,
    SEC_DELTA_G2,
    SEC_IC,
    SEC_H,
    SEC_L,
    SEC_A,
    SEC_B_G1,
    SEC_B_G2,
    NSEC
};

static const struct {
    const char *name;
    bool g2;
    bool vec;
} SECTIONS[NSEC] = {
    {"alpha_g1", false, false}, {"beta_g1", false, false},  {"beta_g2", true, false},
    {"gamma_g2", true, false},  {"delta_g1", false, false}, {"delta_g2", true, false},
    {"ic", false, true},        {"h", false, true},         {"l", false, true},
    {"a", false, true},         {"b_g1", false, true},      {"b_g2", true, true},
};

typedef struct {
    uint64_t off[NSEC]; /* file offset of the first point */
    uint64_t n[NSEC];   /* point count (1 for the fixed points) */
    int nsec;           /* sections present: SEC_IC + 1 for a .vk, NSEC for a .params */
    uint64_t size;
    bool coset; /* a coset key file: the header below, then the layout */
} layout;

/* A coset key file (cuzk/params.h) starts with these 16 bytes: "cuzk coset key", a newline and the
 * version. A .params file cannot start with them: 'c' (0x63) sets the compression and infinity flags
 * that an uncompressed point never has. */
static const uint8_t COSET_MAGIC[16] = {'c', 'u', 'z', 'k', ' ', 'c', 'o',  's',
                                        'e', 't', ' ', 'k', 'e', 'y', '\n', 1};

/* Where the length words come from: a mapping, or a descriptor read with pread. */
typedef struct {
    const uint8_t *data;
    int fd;
    uint64_t size;
} source;

typedef enum { WANT_PARAMS, WANT_VK, WANT_EITHER } want_kind;

static uint64_t stride_of(int sec)
{
    return SECTIONS[sec].g2 ? G2_BYTES : G1_BYTES;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* n bytes at off, which the caller has checked lie inside the file. */
static int source_bytes(const source *src, uint64_t off, uint8_t *b, size_t n, const char *kind, char *err,
                        size_t errlen)
{
    if (src->data) {
        memcpy(b, src->data + off, n);
        return CUZK_OK;
    }
    ssize_t got;
    do
        got = pread(src->fd, b, n, (off_t)off);
    while (got < 0 && errno == EINTR);
    if (got != (ssize_t)n)
        return cuzk_fail(err, errlen, CUZK_EIO, "%s: cannot read %zu bytes at offset %llu: %s", kind, n,
                         (unsigned long long)off, got < 0 ? strerror(errno) : "short read");
    return CUZK_OK;
}

static int source_u32(const source *src, uint64_t off, uint32_t *v, const char *kind, char *err,
                      size_t errlen)
{
    uint8_t b[4];
    int rc = source_bytes(src, off, b, 4, kind, err, errlen);
    if (rc == CUZK_OK)
        *v = be32(b);
    return rc;
}

static int truncated(const char *kind, const char *what, uint64_t need, uint64_t pos, uint64_t size,
                     const char *hint, char *err, size_t errlen)
{
    return cuzk_fail(err, errlen, CUZK_EINVAL,
                     "%s: truncated: %s needs %llu bytes at offset %llu but only %llu remain%s", kind, what,
                     (unsigned long long)need, (unsigned long long)pos, (unsigned long long)(size - pos),
                     hint);
}

/*
 * Walks the layout, checking each piece against the bytes that remain before
 * moving on. WANT_EITHER accepts a file that ends right after ic as a .vk
 * (L->nsec = SEC_IC + 1); a .params can never end there.
 */
static int parse_layout(const source *src, const char *kind, want_kind want, layout *L, char *err,
                        size_t errlen)
{
    memset(L, 0, sizeof *L);
    uint64_t size = src->size, pos = 0;
    int nsec = NSEC;
    L->size = size;
    if (size >= sizeof COSET_MAGIC) {
        uint8_t head[sizeof COSET_MAGIC];
        int rc = source_bytes(src, 0, head, sizeof head, kind, err, errlen);
        if (rc)
            return rc;
        if (!memcmp(head, COSET_MAGIC, sizeof head - 1)) {
            if (head[sizeof head - 1] != COSET_MAGIC[sizeof head - 1])
                return cuzk_fail(err, errlen, CUZK_EINVAL,
                                 "%s: a coset key file of version %u (this build reads %u)", kind,
                                 head[sizeof head - 1], COSET_MAGIC[sizeof head - 1]);
            L->coset = true;
            pos = sizeof COSET_MAGIC;
        }
    }
    for (int s = 0; s < NSEC; s++) {
        uint64_t stride = stride_of(s);
        if (!SECTIONS[s].vec) {
            if (size - pos < stride)
                return truncated(kind, SECTIONS[s].name, stride, pos, size, "", err, errlen);
            L->off[s] = pos;
            L->n[s] = 1;
            pos += stride;
            continue;
        }
        if (s == SEC_H && want == WANT_EITHER && pos == size) {
            nsec = SEC_IC + 1;
            break;
        }
        char what[32];
        snprintf(what, sizeof what, "the %s length word", SECTIONS[s].name);
        if (size - pos < 4)
            return truncated(kind, what, 4, pos, size,
                             s == SEC_H && pos == size ? " (the file ends after ic: is it a .vk file?)" : "",
                             err, errlen);
        uint32_t n = 0;
        int rc = source_u32(src, pos, &n, kind, err, errlen);
        if (rc)
            return rc;
        pos += 4;
        uint64_t bytes = (uint64_t)n * stride;
        if (bytes > size - pos)
            return cuzk_fail(err, errlen, CUZK_EINVAL,
                             "%s: %s has %u points (%llu bytes) but only %llu bytes remain at offset %llu",
                             kind, SECTIONS[s].name, n, (unsigned long long)bytes,
                             (unsigned long long)(size - pos), (unsigned long long)pos);
        if (s == SEC_IC && n == 0)
            return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: ic is empty (a verifying key needs ic[0])", kind);
        if (s == SEC_B_G2 && n != L->n[SEC_B_G1])
            return cuzk_fail(err, errlen, CUZK_EINVAL,
                             "%s: b_g1 has %llu points but b_g2 has %u (they hold one point per variable "
                             "of the B query each)",
                             kind, (unsigned long long)L->n[SEC_B_G1], n);
        L->off[s] = pos;
        L->n[s] = n;
        pos += bytes;
        if (s == SEC_IC && want == WANT_VK) {
            nsec = SEC_IC + 1;
            break;
        }
    }
    L->nsec = nsec;
    if (L->coset && nsec == NSEC) { /* the coset form: m = 2^k h points, l over the inputs and the aux */
        uint64_t nh = L->n[SEC_H];
        if (nh == 0 || (nh & (nh - 1)))
            return cuzk_fail(err, errlen, CUZK_EINVAL,
                             "%s: a coset key's h has %llu points, not a power of two (the domain's size)",
                             kind, (unsigned long long)nh);
        if (L->n[SEC_L] < L->n[SEC_IC])
            return cuzk_fail(
                err, errlen, CUZK_EINVAL,
                "%s: a coset key's l has %llu points, fewer than its %llu inputs (it covers every "
                "variable)",
                kind, (unsigned long long)L->n[SEC_L], (unsigned long long)L->n[SEC_IC]);
    }
    if (pos != size)
        return cuzk_fail(
            err, errlen, CUZK_EINVAL,
            "%s: %llu trailing bytes after %s (the layout ends at offset %llu, the file at %llu)", kind,
            (unsigned long long)(size - pos), SECTIONS[L->nsec - 1].name, (unsigned long long)pos,
            (unsigned long long)size);
    return CUZK_OK;
}

/* ---- point decoding ----------------------------------------------------- */

static bool all_zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

/*
 * Byte-level checks only (no curve equation): flag bits clear, not the
 * identity, every coordinate < p, and not (0, 0), which is the in-memory
 * identity. nfp coordinates are stored in order into out[i] (the caller maps
 * them to the affine struct). msg receives a reason for EFLAGS/ENONCANONICAL.
 */
static int decode_coords(cuzk_fp *out, int nfp, const uint8_t *in, char *msg, size_t msglen)
{
    size_t len = (size_t)nfp * 48;
    uint8_t flags = in[0] & 0xe0;
    if (flags == 0x40 && (in[0] & 0x1f) == 0 && all_zero(in + 1, len - 1))
        return CUZK_EINVAL;
    if (flags)
        return cuzk_fail(msg, msglen, CUZK_EFLAGS, "flag bits 0x%02x set in an uncompressed encoding", flags);
    bool zero = true;
    for (int i = 0; i < nfp; i++) {
        if (!cuzk_fp_from_be48(&out[i], in + 48 * i))
            return cuzk_fail(msg, msglen, CUZK_ENONCANONICAL, "coordinate %d of %d is not less than p", i + 1,
                             nfp);
        zero = zero && cuzk_fp_is_zero(&out[i]);
    }
    return zero ? CUZK_ENOTONCURVE : CUZK_OK;
}

/* id_ok: the identity is a valid point here (a coset key's l). */
static int decode_g1(cuzk_g1_affine *out, const uint8_t *in, unsigned flags, bool id_ok, char *msg,
                     size_t msglen)
{
    if (flags & (CUZK_PARAMS_CHECK_CURVE | CUZK_PARAMS_CHECK_GROUP)) {
        unsigned df = (id_ok ? 0 : CUZK_DECODE_REJECT_IDENTITY) |
                      (flags & CUZK_PARAMS_CHECK_GROUP ? CUZK_DECODE_CHECK_GROUP : 0);
        return cuzk_g1_deserialize(out, in, df, msg, msglen);
    }
    cuzk_fp c[2];
    int rc = decode_coords(c, 2, in, msg, msglen);
    if (rc == CUZK_EINVAL && id_ok) {
        memset(out, 0, sizeof *out);
        return CUZK_OK;
    }
    if (rc == CUZK_OK) {
        out->x = c[0];
        out->y = c[1];
    }
    return rc;
}

static int decode_g2(cuzk_g2_affine *out, const uint8_t *in, unsigned flags, char *msg, size_t msglen)
{
    if (flags & (CUZK_PARAMS_CHECK_CURVE | CUZK_PARAMS_CHECK_GROUP)) {
        unsigned df =
            CUZK_DECODE_REJECT_IDENTITY | (flags & CUZK_PARAMS_CHECK_GROUP ? CUZK_DECODE_CHECK_GROUP : 0);
        return cuzk_g2_deserialize(out, in, df, msg, msglen);
    }
    cuzk_fp c[4];
    int rc = decode_coords(c, 4, in, msg, msglen);
    if (rc == CUZK_OK) { /* file order: x.c1, x.c0, y.c1, y.c0 */
        out->x.c1 = c[0];
        out->x.c0 = c[1];
        out->y.c1 = c[2];
        out->y.c0 = c[3];
    }
    return rc;
}

typedef struct {
    const char *kind;
    const uint8_t *data;
    const layout *L;
    void *dst[NSEC];
    unsigned flags;
    bool l_id_ok;            /* a coset key: its l may hold the identity (an input that no C term uses) */
    uint64_t unit_pts[NSEC]; /* points per unit in each section */
    uint64_t unit_start[NSEC + 1]; /* first unit index of each section; [NSEC] = total */
    uint64_t batch_first;          /* first unit of the running batch */
    atomic_uint_fast64_t fail_off; /* offset of the earliest failure seen, UINT64_MAX if none */
    pthread_mutex_t mu;
    int rc;
    char msg[320];
} decode_ctx;

static void point_label(char *buf, size_t n, int sec, uint64_t idx)
{
    if (SECTIONS[sec].vec)
        snprintf(buf, n, "%s[%llu]", SECTIONS[sec].name, (unsigned long long)idx);
    else
        snprintf(buf, n, "%s", SECTIONS[sec].name);
}

static void record_failure(decode_ctx *c, int sec, uint64_t idx, uint64_t off, int rc, const char *why)
{
    pthread_mutex_lock(&c->mu);
    if (off < atomic_load(&c->fail_off)) {
        char label[48];
        point_label(label, sizeof label, sec, idx);
        unsigned long long o = (unsigned long long)off;
        switch (rc) {
        case CUZK_ENOTONCURVE:
            snprintf(c->msg, sizeof c->msg, "%s: %s is not on the curve (offset %llu)", c->kind, label, o);
            break;
        case CUZK_ENOTINGROUP:
            snprintf(c->msg, sizeof c->msg, "%s: %s is not in the r-order subgroup (offset %llu)", c->kind,
                     label, o);
            break;
        case CUZK_EINVAL:
            snprintf(c->msg, sizeof c->msg, "%s: %s is the point at infinity (offset %llu)", c->kind, label,
                     o);
            break;
        default:
            snprintf(c->msg, sizeof c->msg, "%s: %s is not a valid encoding (offset %llu): %s", c->kind,
                     label, o, why);
            break;
        }
        c->rc = rc;
        atomic_store(&c->fail_off, off);
    }
    pthread_mutex_unlock(&c->mu);
}

static int unit_section(const decode_ctx *c, uint64_t u)
{
    int s = 0;
    while (u >= c->unit_start[s + 1])
        s++;
    return s;
}

/* Byte offset just past the points of unit u. */
static uint64_t unit_end(const decode_ctx *c, uint64_t u)
{
    int s = unit_section(c, u);
    uint64_t last = (u - c->unit_start[s] + 1) * c->unit_pts[s];
    if (last > c->L->n[s])
        last = c->L->n[s];
    return c->L->off[s] + last * stride_of(s);
}

static void decode_task(void *arg, size_t task, int worker)
{
    decode_ctx *c = arg;
    uint64_t u = c->batch_first + task;
    int s = unit_section(c, u);
    uint64_t stride = stride_of(s), first = (u - c->unit_start[s]) * c->unit_pts[s];
    uint64_t end = first + c->unit_pts[s] < c->L->n[s] ? first + c->unit_pts[s] : c->L->n[s];
    for (uint64_t i = first; i < end; i++) {
        uint64_t off = c->L->off[s] + i * stride;
        if (off > atomic_load_explicit(&c->fail_off, memory_order_relaxed))
            return;
        char why[200];
        why[0] = 0;
        const uint8_t *in = c->data + off;
        int rc = SECTIONS[s].g2 ? decode_g2((cuzk_g2_affine *)c->dst[s] + i, in, c->flags, why, sizeof why)
                                : decode_g1((cuzk_g1_affine *)c->dst[s] + i, in, c->flags,
                                            c->l_id_ok && s == SEC_L, why, sizeof why);
        if (rc) {
            record_failure(c, s, i, off, rc, why);
            return;
        }
    }
}

/* Decodes every section of L into dst, in batches, reporting progress between them. */
static int decode_all(decode_ctx *c, cuzk_pool *pool, cuzk_params_progress_fn progress, void *pctx, char *err,
                      size_t errlen)
{
    const layout *L = c->L;
    c->unit_start[0] = 0;
    for (int s = 0; s < NSEC; s++) {
        uint64_t n = s < L->nsec ? L->n[s] : 0;
        c->unit_pts[s] = UNIT_BYTES / stride_of(s);
        c->unit_start[s + 1] = c->unit_start[s] + (n + c->unit_pts[s] - 1) / c->unit_pts[s];
    }
    uint64_t total = c->unit_start[NSEC];
    uint64_t per_thread = 4 * (uint64_t)cuzk_pool_size(pool);
    uint64_t nbatch = (total + per_thread - 1) / per_thread;
    if (nbatch > MAX_BATCHES)
        nbatch = MAX_BATCHES;
    if (nbatch == 0)
        nbatch = 1;
    atomic_init(&c->fail_off, UINT64_MAX);
    pthread_mutex_init(&c->mu, NULL);
    c->rc = CUZK_OK;
    if (progress)
        progress(pctx, 0, L->size);
    for (uint64_t b = 0; b < nbatch && c->rc == CUZK_OK; b++) {
        uint64_t lo = total * b / nbatch, hi = total * (b + 1) / nbatch;
        c->batch_first = lo;
        cuzk_pool_run(pool, (size_t)(hi - lo), decode_task, c);
        if (progress && c->rc == CUZK_OK)
            progress(pctx, b + 1 == nbatch ? L->size : unit_end(c, hi - 1), L->size);
    }
    pthread_mutex_destroy(&c->mu);
    if (c->rc)
        return cuzk_fail(err, errlen, c->rc, "%s", c->msg);
    return CUZK_OK;
}

/* ---- reading ------------------------------------------------------------ */

typedef struct {
    int fd;
    void *map;
    uint64_t size;
} file_map;

static int map_open(file_map *m, const char *path, const char *kind, bool want_map, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (m->fd < 0)
        return cuzk_fail(err, errlen, CUZK_EIO, "%s: cannot open %s: %s", kind, path, strerror(errno));
    struct stat st;
    int rc = CUZK_OK;
    if (fstat(m->fd, &st) != 0)
        rc = cuzk_fail(err, errlen, CUZK_EIO, "%s: cannot stat %s: %s", kind, path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = cuzk_fail(err, errlen, CUZK_EIO, "%s: %s is not a regular file", kind, path);
    else if ((uint64_t)st.st_size > SIZE_MAX)
        rc = cuzk_fail(err, errlen, CUZK_ERANGE, "%s: %s is too large to map", kind, path);
    if (rc == CUZK_OK) {
        m->size = (uint64_t)st.st_size;
        if (want_map && m->size > 0) {
            void *p = mmap(NULL, (size_t)m->size, PROT_READ, MAP_PRIVATE, m->fd, 0);
            if (p == MAP_FAILED)
                rc = cuzk_fail(err, errlen, CUZK_EIO, "%s: cannot map %s (%llu bytes): %s", kind, path,
                               (unsigned long long)m->size, strerror(errno));
            else {
                m->map = p;
                madvise(p, (size_t)m->size, MADV_SEQUENTIAL);
            }
        }
    }
    if (rc) {
        close(m->fd);
        m->fd = -1;
    }
    return rc;
}

static void map_close(file_map *m)
{
    if (m->map)
        munmap(m->map, (size_t)m->size);
    if (m->fd >= 0)
        close(m->fd);
    memset(m, 0, sizeof *m);
    m->fd = -1;
}

static int alloc_points(void **dst, uint64_t n, size_t elem, const char *kind, const char *name, char *err,
                        size_t errlen)
{
    *dst = NULL;
    if (n == 0)
        return CUZK_OK;
    if (n > SIZE_MAX / elem)
        return cuzk_fail(err, errlen, CUZK_ERANGE, "%s: %s has too many points for this platform", kind,
                         name);
    *dst = malloc((size_t)(n * elem));
    if (!*dst)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "%s: cannot allocate %llu bytes for %s", kind,
                         (unsigned long long)(n * elem), name);
    return CUZK_OK;
}

/* Allocates the arrays L calls for into *p; on failure p is freed. */
static int alloc_key(cuzk_groth16_params *p, const layout *L, const char *kind, char *err, size_t errlen)
{
    void *vec[NSEC] = {0};
    int rc = CUZK_OK;
    for (int s = SEC_IC; s < L->nsec && rc == CUZK_OK; s++)
        rc = alloc_points(&vec[s], L->n[s], SECTIONS[s].g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine),
                          kind, SECTIONS[s].name, err, errlen);
    p->vk.ic = vec[SEC_IC];
    p->vk.n_ic = (size_t)L->n[SEC_IC];
    p->h = vec[SEC_H];
    p->l = vec[SEC_L];
    p->a = vec[SEC_A];
    p->b_g1 = vec[SEC_B_G1];
    p->b_g2 = vec[SEC_B_G2];
    if (L->nsec == NSEC) {
        p->h_coset = L->coset;
        p->n_h = (size_t)L->n[SEC_H];
        p->n_l = (size_t)L->n[SEC_L];
        p->n_a = (size_t)L->n[SEC_A];
        p->n_b = (size_t)L->n[SEC_B_G1];
    }
    if (rc)
        cuzk_groth16_params_free(p);
    return rc;
}

/* Checks the layout of a mapped file and decodes it into *p (empty on failure). */
static int load(cuzk_groth16_params *p, const file_map *m, const char *kind, want_kind want,
                const cuzk_params_read_opts *opts, char *err, size_t errlen)
{
    source src = {m->map, -1, m->size};
    layout L;
    int rc = parse_layout(&src, kind, want, &L, err, errlen);
    if (rc || (rc = alloc_key(p, &L, kind, err, errlen)))
        return rc;
    decode_ctx c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.data = m->map;
    c.L = &L;
    c.flags = opts ? opts->flags : 0;
    c.l_id_ok = L.coset;
    void *dst[NSEC] = {&p->vk.alpha_g1,
                       &p->vk.beta_g1,
                       &p->vk.beta_g2,
                       &p->vk.gamma_g2,
                       &p->vk.delta_g1,
                       &p->vk.delta_g2,
                       p->vk.ic,
                       p->h,
                       p->l,
                       p->a,
                       p->b_g1,
                       p->b_g2};
    memcpy(c.dst, dst, sizeof dst);
    rc = decode_all(&c, opts ? opts->pool : NULL, opts ? opts->progress : NULL,
                    opts ? opts->progress_ctx : NULL, err, errlen);
    if (rc)
        cuzk_groth16_params_free(p);
    return rc;
}

/* Shared by the .params and .vk readers: out->vk always, the vectors for WANT_PARAMS. */
static int read_file(const char *path, const char *kind, want_kind want, cuzk_groth16_params *out,
                     const cuzk_params_read_opts *opts, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    file_map m;
    int rc = map_open(&m, path, kind, true, err, errlen);
    if (rc)
        return rc;
    rc = load(out, &m, kind, want, opts, err, errlen);
    map_close(&m);
    return rc;
}

int cuzk_params_read_ex(const char *path, cuzk_groth16_params *out, const cuzk_params_read_opts *opts,
                        char *err, size_t errlen)
{
    return read_file(path, "params", WANT_PARAMS, out, opts, err, errlen);
}

int cuzk_params_read(const char *path, cuzk_groth16_params *out, unsigned flags, cuzk_pool *pool, char *err,
                     size_t errlen)
{
    cuzk_params_read_opts o = {flags, pool, NULL, NULL};
    return read_file(path, "params", WANT_PARAMS, out, &o, err, errlen);
}

int cuzk_vk_read(const char *path, cuzk_groth16_vk *out, unsigned flags, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    cuzk_params_read_opts o = {flags, NULL, NULL, NULL};
    cuzk_groth16_params p;
    int rc = read_file(path, "vk", WANT_VK, &p, &o, err, errlen);
    if (rc == CUZK_OK)
        *out = p.vk;
    return rc;
}

int cuzk_params_info(const char *path, cuzk_params_summary *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    file_map m;
    int rc = map_open(&m, path, "params", false, err, errlen);
    if (rc)
        return rc;
    source src = {NULL, m.fd, m.size};
    layout L;
    rc = parse_layout(&src, "params", WANT_EITHER, &L, err, errlen);
    map_close(&m);
    if (rc)
        return rc;
    out->file_size = L.size;
    out->vk_only = L.nsec != NSEC;
    out->coset = L.coset;
    out->n_ic = (uint32_t)L.n[SEC_IC];
    out->off_ic = L.off[SEC_IC];
    if (!out->vk_only) {
        out->n_h = (uint32_t)L.n[SEC_H];
        out->n_l = (uint32_t)L.n[SEC_L];
        out->n_a = (uint32_t)L.n[SEC_A];
        out->n_b_g1 = (uint32_t)L.n[SEC_B_G1];
        out->n_b_g2 = (uint32_t)L.n[SEC_B_G2];
        out->off_h = L.off[SEC_H];
        out->off_l = L.off[SEC_L];
        out->off_a = L.off[SEC_A];
        out->off_b_g1 = L.off[SEC_B_G1];
        out->off_b_g2 = L.off[SEC_B_G2];
    }
    return CUZK_OK;
}

/* ---- writing ------------------------------------------------------------ */

typedef struct {
    cuzk_outfile *out;
    size_t n;
    uint8_t buf[64 * 1024];
} writer;

static void w_flush(writer *w)
{
    cuzk_outfile_write(w->out, w->buf, w->n); /* a failure is kept for the commit */
    w->n = 0;
}

static uint8_t *w_reserve(writer *w, size_t n)
{
    if (sizeof w->buf - w->n < n)
        w_flush(w);
    uint8_t *p = w->buf + w->n;
    w->n += n;
    return p;
}

/* Every point must be encodable as something the readers accept (id_ok: the identity is, here). */
static int check_section(const char *kind, int sec, const void *pts, size_t n, bool id_ok, char *err,
                         size_t errlen)
{
    if (n > UINT32_MAX)
        return cuzk_fail(err, errlen, CUZK_ERANGE,
                         "%s write: %s has %zu points, more than a u32 length holds", kind,
                         SECTIONS[sec].name, n);
    if (n && !pts)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s write: %s has %zu points but no array", kind,
                         SECTIONS[sec].name, n);
    for (size_t i = 0; i < n && !id_ok; i++) {
        bool id = SECTIONS[sec].g2 ? cuzk_g2_affine_is_identity((const cuzk_g2_affine *)pts + i)
                                   : cuzk_g1_affine_is_identity((const cuzk_g1_affine *)pts + i);
        if (id) {
            char label[48];
            point_label(label, sizeof label, sec, i);
            return cuzk_fail(err, errlen, CUZK_EINVAL,
                             "%s write: %s is the point at infinity, which readers reject", kind, label);
        }
    }
    return CUZK_OK;
}

static void write_section(writer *w, int sec, const void *pts, size_t n)
{
    if (SECTIONS[sec].vec)
        put_be32(w_reserve(w, 4), (uint32_t)n);
    for (size_t i = 0; i < n && !w->out->errnum; i++) {
        if (SECTIONS[sec].g2)
            cuzk_g2_serialize(w_reserve(w, G2_BYTES), (const cuzk_g2_affine *)pts + i);
        else
            cuzk_g1_serialize(w_reserve(w, G1_BYTES), (const cuzk_g1_affine *)pts + i);
    }
}

/* Validates, then writes the vk part and (when p is a full key) the vectors. */
/* Validates, then writes the vk part and (when p is a full key) the vectors into the open outfile o; a
 * failed write is left in o for its commit to report. */
static int write_to(cuzk_outfile *o, const char *kind, const cuzk_groth16_vk *vk,
                    const cuzk_groth16_params *p, char *err, size_t errlen)
{
    if (!o || !o->tmp)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s write: no output file open", kind);
    const void *pts[NSEC] = {&vk->alpha_g1, &vk->beta_g1,  &vk->beta_g2, &vk->gamma_g2,
                             &vk->delta_g1, &vk->delta_g2, vk->ic};
    size_t n[NSEC] = {1, 1, 1, 1, 1, 1, vk->n_ic};
    int nsec = SEC_IC + 1;
    if (p) {
        pts[SEC_H] = p->h, n[SEC_H] = p->n_h;
        pts[SEC_L] = p->l, n[SEC_L] = p->n_l;
        pts[SEC_A] = p->a, n[SEC_A] = p->n_a;
        pts[SEC_B_G1] = p->b_g1, n[SEC_B_G1] = p->n_b;
        pts[SEC_B_G2] = p->b_g2, n[SEC_B_G2] = p->n_b;
        nsec = NSEC;
    }
    if (vk->n_ic == 0)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s write: ic is empty (a verifying key needs ic[0])",
                         kind);
    bool coset = p && p->h_coset;
    if (coset && (p->n_h == 0 || (p->n_h & (p->n_h - 1)) || p->n_l < vk->n_ic))
        return cuzk_fail(
            err, errlen, CUZK_EINVAL,
            "%s write: a coset key needs 2^k h points and l over every variable (has %zu and %zu)", kind,
            p->n_h, p->n_l);
    for (int s = 0; s < nsec; s++) {
        int rc = check_section(kind, s, pts[s], n[s], coset && s == SEC_L, err, errlen);
        if (rc)
            return rc;
    }
    writer *w = malloc(sizeof *w);
    if (!w)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "%s write: out of memory", kind);
    w->out = o;
    w->n = 0;
    if (coset)
        memcpy(w_reserve(w, sizeof COSET_MAGIC), COSET_MAGIC, sizeof COSET_MAGIC);
    for (int s = 0; s < nsec; s++)
        write_section(w, s, pts[s], n[s]);
    w_flush(w);
    free(w);
    return CUZK_OK;
}

/* write_to through an outfile of its own: the old file stays unless the whole new one is written. */
static int write_file(const char *path, const char *kind, const cuzk_groth16_vk *vk,
                      const cuzk_groth16_params *p, char *err, size_t errlen)
{
    char who[32];
    snprintf(who, sizeof who, "%s write", kind);
    cuzk_outfile o;
    int rc = cuzk_outfile_open(&o, path, 0, who, err, errlen);
    if (rc == CUZK_OK)
        rc = write_to(&o, kind, vk, p, err, errlen);
    if (rc == CUZK_OK)
        return cuzk_outfile_commit(&o, who, err, errlen);
    cuzk_outfile_abort(&o);
    return rc;
}

/* bellperson's layout has no place for the coset form's m h points and its l over every variable, and a
 * coset key file is no bellperson key */
static int form_refused(bool coset, char *err, size_t errlen)
{
    if (coset)
        return cuzk_fail(
            err, errlen, CUZK_EINVAL,
            "params: a key in the coset form has no .params layout (its h and l are other points "
            "than bellperson's); write it as a coset key file (cuzk_coset_key_write)");
    return cuzk_fail(err, errlen, CUZK_EINVAL,
                     "coset key: the key is in bellperson's form: write it as .params, or convert it first "
                     "(cuzk_groth16_params_to_coset)");
}

int cuzk_params_write(const char *path, const cuzk_groth16_params *params, char *err, size_t errlen)
{
    if (!params)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "params write: no key");
    if (params->h_coset)
        return form_refused(true, err, errlen);
    return write_file(path, "params", &params->vk, params, err, errlen);
}

int cuzk_coset_key_write(const char *path, const cuzk_groth16_params *params, char *err, size_t errlen)
{
    if (!params)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "coset key write: no key");
    if (!params->h_coset)
        return form_refused(false, err, errlen);
    return write_file(path, "coset key", &params->vk, params, err, errlen);
}

int cuzk_coset_key_write_to(cuzk_outfile *out, const cuzk_groth16_params *params, char *err, size_t errlen)
{
    if (!params)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "coset key write: no key");
    if (!params->h_coset)
        return form_refused(false, err, errlen);
    return write_to(out, "coset key", &params->vk, params, err, errlen);
}

int cuzk_vk_write(const char *path, const cuzk_groth16_vk *vk, char *err, size_t errlen)
{
    return write_file(path, "vk", vk, NULL, err, errlen);
}

int cuzk_params_write_to(cuzk_outfile *out, const cuzk_groth16_params *params, char *err, size_t errlen)
{
    if (!params)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "params write: no key");
    if (params->h_coset)
        return form_refused(true, err, errlen);
    return write_to(out, "params", &params->vk, params, err, errlen);
}

int cuzk_vk_write_to(cuzk_outfile *out, const cuzk_groth16_vk *vk, char *err, size_t errlen)
{
    return write_to(out, "vk", vk, NULL, err, errlen);
}
