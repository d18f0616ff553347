/*
 * timeline_report.c — turns a TIMELINE file into numbers and a picture
 * (cuzk/timeline_report.h; format and field meanings in docs/timeline.md).
 *
 * Parsing. Each line goes through the strict JSON reader of cuzk/json.h on
 * its own (small limits: one event is a flat object), so a bad line is
 * reported with its number and nothing after it is trusted. Lane and stage
 * names are interned into two hash-indexed tables (a file with a new name on
 * every line stays linear); events keep indices.
 *
 * Pairing. The engine writes from many threads, so file order is only
 * roughly time order, and a worker's START and END are never adjacent. We do
 * not keep hash maps of open intervals: for each family of events (synthesis,
 * kernels, finalize, the lock, the GPU queue, job-level events) we copy the
 * relevant events, sort them by (key, t_us, line) and walk each key's run
 * once. The key is what identifies one worker's interval: (job, part, lane)
 * plus the stage name for kernels; the GPU queue is keyed by (job, part) only
 * because GPU_QUEUE is written by the producer, not the GPU worker. Within a
 * run, a START while one is still open leaves the earlier one unmatched, and
 * an END with nothing open is an orphan; both are warning counts.
 *
 * Utilization. Per device, kernel intervals of every worker are sorted by
 * start and merged; the merged length over the span from the first
 * KERNEL_START to the last KERNEL_END is the kernel utilization, and the
 * holes between merged runs are the idle gaps. Lock-held time is merged the
 * same way for contrast: with two workers per device the lock is held far
 * longer than kernels run (the original system's 90% "GPU" vs 46% silicon).
 *
 * Output. The text report uses fixed columns and exact integer-derived
 * millisecond figures so that two runs of the same file print the same
 * bytes. The SVG is one self-contained file written to a temporary name and
 * renamed into place.
 */
#include "cuzk/timeline_report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/json.h"
#include "cuzk/outfile.h"

static const char *const ev_names[CUZK_TLR_NEV] = {
    "JOB_SUBMIT", "JOB_START",    "SYNTH_START", "SYNTH_END",   "GPU_QUEUE",      "LOCK_WAIT",
    "LOCK_ACQ",   "KERNEL_START", "KERNEL_END",  "LOCK_REL",    "FINALIZE_START", "FINALIZE_END",
    "DELIVER",    "JOB_FAIL",     "JOB_CANCEL",  "DEVICE_LOST",
};

const char *cuzk_tlr_ev_name(cuzk_tlr_ev ev)
{
    return (unsigned)ev < CUZK_TLR_NEV ? ev_names[ev] : NULL;
}

/* ---- parsing --------------------------------------------------------------------- */

/* Distinct names with an open-addressing hash index (slot = name index + 1, 0 = empty), so a file with a new
 * name on every line still costs O(1) per line. */
typedef struct {
    char **v;
    size_t n, cap;
    uint32_t *slot;
    size_t nslot; /* a power of two, at least twice n */
} name_table;

static uint64_t name_hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* Finds or adds s[0..len); the table owns its copies. */
static int intern(name_table *t, const char *s, size_t len, uint32_t *idx)
{
    size_t mask = t->nslot - 1, i = t->nslot ? (size_t)name_hash(s, len) & mask : 0;
    for (; t->nslot && t->slot[i]; i = (i + 1) & mask) {
        const char *c = t->v[t->slot[i] - 1];
        if (strlen(c) == len && memcmp(c, s, len) == 0) {
            *idx = t->slot[i] - 1;
            return CUZK_OK;
        }
    }
    if (t->n >= UINT32_MAX - 1)
        return CUZK_ENOMEM;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        char **v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return CUZK_ENOMEM;
        t->v = v;
        t->cap = cap;
    }
    if (2 * (t->n + 1) > t->nslot) {
        size_t nslot = t->nslot ? 2 * t->nslot : 64;
        uint32_t *slot = calloc(nslot, sizeof *slot);
        if (!slot)
            return CUZK_ENOMEM;
        for (size_t k = 0; k < t->n; k++) {
            size_t j = (size_t)name_hash(t->v[k], strlen(t->v[k])) & (nslot - 1);
            while (slot[j])
                j = (j + 1) & (nslot - 1);
            slot[j] = (uint32_t)k + 1;
        }
        free(t->slot);
        t->slot = slot;
        t->nslot = nslot;
        mask = nslot - 1;
        for (i = (size_t)name_hash(s, len) & mask; t->slot[i]; i = (i + 1) & mask)
            ;
    }
    char *c = malloc(len + 1);
    if (!c)
        return CUZK_ENOMEM;
    memcpy(c, s, len);
    c[len] = 0;
    t->v[t->n] = c;
    t->slot[i] = (uint32_t)t->n + 1;
    *idx = (uint32_t)t->n++;
    return CUZK_OK;
}

typedef struct {
    cuzk_tlr_log *log;
    size_t cap;
    name_table lanes, stages;
    size_t line;
    char *err;
    size_t errlen;
} parser;

static int line_fail(parser *p, int code, const char *what, const char *detail)
{
    return cuzk_fail(p->err, p->errlen, code, "timeline line %zu: %s%s", p->line, what, detail ? detail : "");
}

static const cuzk_json_value *need(parser *p, const cuzk_json_value *obj, const char *key,
                                   cuzk_json_type type, int *rc)
{
    const cuzk_json_value *v = cuzk_json_member(obj, key);
    if (!v) {
        *rc =
            cuzk_fail(p->err, p->errlen, CUZK_EINVAL, "timeline line %zu: missing key \"%s\"", p->line, key);
        return NULL;
    }
    if (v->type != type) {
        *rc = cuzk_fail(p->err, p->errlen, CUZK_EINVAL, "timeline line %zu: \"%s\" is %s, expected %s",
                        p->line, key, cuzk_json_type_name(v->type), cuzk_json_type_name(type));
        return NULL;
    }
    return v;
}

/* A JSON number that is an integer in [lo, hi]; the reader has already checked its syntax. */
static int get_int(parser *p, const cuzk_json_value *obj, const char *key, int64_t lo, int64_t hi,
                   int64_t *out)
{
    int rc = CUZK_OK;
    const cuzk_json_value *v = need(p, obj, key, CUZK_JSON_NUMBER, &rc);
    if (!v)
        return rc;
    const char *s = v->str;
    bool neg = *s == '-';
    s += neg;
    uint64_t mag = 0;
    bool big = false;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (mag > (UINT64_MAX - 9) / 10)
            big = true;
        else
            mag = mag * 10 + (uint64_t)(*s - '0');
    }
    if (*s)
        return cuzk_fail(p->err, p->errlen, CUZK_EINVAL,
                         "timeline line %zu: \"%s\" is %s, expected an integer", p->line, key, v->str);
    if (big || mag > (uint64_t)INT64_MAX)
        return cuzk_fail(p->err, p->errlen, CUZK_EINVAL, "timeline line %zu: \"%s\" = %s is out of range",
                         p->line, key, v->str);
    int64_t x = neg ? -(int64_t)mag : (int64_t)mag;
    if (x < lo || x > hi)
        return cuzk_fail(p->err, p->errlen, CUZK_EINVAL,
                         "timeline line %zu: \"%s\" = %s is out of range [%lld, %lld]", p->line, key, v->str,
                         (long long)lo, (long long)hi);
    *out = x;
    return CUZK_OK;
}

static int get_name(parser *p, const cuzk_json_value *obj, const char *key, size_t minlen, name_table *t,
                    uint32_t *idx)
{
    int rc = CUZK_OK;
    const cuzk_json_value *v = need(p, obj, key, CUZK_JSON_STRING, &rc);
    if (!v)
        return rc;
    if (v->len < minlen || v->len > CUZK_TLR_MAX_NAME || memchr(v->str, 0, v->len))
        return cuzk_fail(p->err, p->errlen, CUZK_EINVAL,
                         "timeline line %zu: \"%s\" must be %zu to %d bytes without NUL", p->line, key,
                         minlen, CUZK_TLR_MAX_NAME);
    if (intern(t, v->str, v->len, idx))
        return cuzk_fail(p->err, p->errlen, CUZK_ENOMEM, "timeline: out of memory");
    return CUZK_OK;
}

static int parse_event(parser *p, const cuzk_json_value *root)
{
    int rc = CUZK_OK;
    if (root->type != CUZK_JSON_OBJECT)
        return cuzk_fail(p->err, p->errlen, CUZK_EINVAL,
                         "timeline line %zu: expected a JSON object, found %s", p->line,
                         cuzk_json_type_name(root->type));
    const cuzk_json_value *ev = need(p, root, "ev", CUZK_JSON_STRING, &rc);
    if (!ev)
        return rc;
    int kind = -1;
    for (int i = 0; i < CUZK_TLR_NEV; i++)
        if (strlen(ev_names[i]) == ev->len && memcmp(ev_names[i], ev->str, ev->len) == 0)
            kind = i;
    if (kind < 0) {
        p->log->n_unknown++;
        return CUZK_OK;
    }
    cuzk_tlr_event e = {0};
    e.ev = (cuzk_tlr_ev)kind;
    e.line = (uint32_t)p->line;
    int64_t t, part, dev;
    uint64_t job;
    if ((rc = get_int(p, root, "t_us", 0, CUZK_TLR_MAX_T_US, &t)))
        return rc;
    const cuzk_json_value *jv = need(p, root, "job", CUZK_JSON_NUMBER, &rc);
    if (!jv)
        return rc;
    if (cuzk_json_u64(jv, &job))
        return cuzk_fail(p->err, p->errlen, CUZK_EINVAL,
                         "timeline line %zu: \"job\" = %s is not an unsigned 64-bit integer", p->line,
                         jv->str);
    if ((rc = get_int(p, root, "part", -1, INT32_MAX, &part)) ||
        (rc = get_int(p, root, "dev", -1, INT32_MAX, &dev)))
        return rc;
    if ((rc = get_name(p, root, "lane", 1, &p->lanes, &e.lane)) ||
        (rc = get_name(p, root, "stage", 0, &p->stages, &e.stage)))
        return rc;
    e.t_us = t;
    e.job = job;
    e.part = (int32_t)part;
    e.dev = (int32_t)dev;

    cuzk_tlr_log *log = p->log;
    if (log->n_events == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        cuzk_tlr_event *v = realloc(log->events, cap * sizeof *v);
        if (!v)
            return cuzk_fail(p->err, p->errlen, CUZK_ENOMEM, "timeline: out of memory");
        log->events = v;
        p->cap = cap;
    }
    log->events[log->n_events++] = e;
    return CUZK_OK;
}

static int parse_line(parser *p, const char *s, size_t len)
{
    size_t k = 0;
    while (k < len && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
        k++;
    if (k == len)
        return line_fail(p, CUZK_EINVAL, "empty line", NULL);
    if (len > CUZK_TLR_MAX_LINE)
        return cuzk_fail(p->err, p->errlen, CUZK_EINVAL, "timeline line %zu: longer than %d bytes", p->line,
                         CUZK_TLR_MAX_LINE);
    cuzk_json_limits lim = {CUZK_TLR_MAX_LINE, 16, 4096};
    cuzk_json_doc *doc = NULL;
    char jerr[160] = "";
    int rc = cuzk_json_parse(s, len, &lim, &doc, jerr, sizeof jerr);
    if (rc)
        return rc == CUZK_ENOMEM ? cuzk_fail(p->err, p->errlen, rc, "timeline: out of memory")
                                 : line_fail(p, CUZK_EINVAL, "malformed JSON: ", jerr);
    rc = parse_event(p, cuzk_json_root(doc));
    cuzk_json_free(doc);
    return rc;
}

static void free_names(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void cuzk_tlr_log_free(cuzk_tlr_log *log)
{
    if (!log)
        return;
    free(log->events);
    free_names(log->lanes, log->n_lanes);
    free_names(log->stages, log->n_stages);
    free(log);
}

int cuzk_tlr_parse(const char *text, size_t len, cuzk_tlr_log **out, char *err, size_t errlen)
{
    if (!out || (!text && len))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "timeline: bad argument");
    if (len == 0)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "timeline: empty input (no events)");
    parser p = {0};
    p.err = err;
    p.errlen = errlen;
    p.log = calloc(1, sizeof *p.log);
    uint32_t none;
    int rc = p.log ? intern(&p.stages, "", 0, &none) : CUZK_ENOMEM;
    if (rc)
        rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "timeline: out of memory");
    size_t pos = 0;
    while (rc == CUZK_OK && pos < len) {
        if (p.line == UINT32_MAX) {
            rc = cuzk_fail(err, errlen, CUZK_ERANGE, "timeline: more than %u lines", UINT32_MAX);
            break;
        }
        p.line++;
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        rc = parse_line(&p, text + pos, end - pos);
        pos = nl ? end + 1 : len;
    }
    free(p.lanes.slot);
    free(p.stages.slot);
    if (p.log) {
        p.log->lanes = p.lanes.v, p.log->n_lanes = p.lanes.n;
        p.log->stages = p.stages.v, p.log->n_stages = p.stages.n;
        p.log->n_lines = p.line;
    } else {
        free_names(p.lanes.v, p.lanes.n);
        free_names(p.stages.v, p.stages.n);
    }
    if (rc == CUZK_OK && p.log->n_events == 0)
        rc = cuzk_fail(err, errlen, CUZK_EINVAL, "timeline: no recognised event in %zu line%s", p.line,
                       p.line == 1 ? "" : "s");
    if (rc) {
        cuzk_tlr_log_free(p.log);
        return rc;
    }
    *out = p.log;
    return CUZK_OK;
}

int cuzk_tlr_read(const char *path, cuzk_tlr_log **out, char *err, size_t errlen)
{
    if (!path || !out)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "timeline: bad argument");
    FILE *f = fopen(path, "rb");
    if (!f)
        return cuzk_fail(err, errlen, CUZK_EIO, "timeline: cannot open %s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = CUZK_OK;
    for (;;) {
        if (cap - len < 65536) {
            size_t ncap = cap ? 2 * cap : 1 << 20;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "timeline: out of memory reading %s", path);
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                rc = cuzk_fail(err, errlen, CUZK_EIO, "timeline: cannot read %s: %s", path, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (rc == CUZK_OK)
        rc = cuzk_tlr_parse(buf, len, out, err, errlen);
    free(buf);
    return rc;
}

/* ---- analysis -------------------------------------------------------------------- */

typedef struct {
    int64_t *v;
    size_t n, cap;
} i64_vec;

static int i64_push(i64_vec *a, int64_t x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        int64_t *v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return CUZK_ENOMEM;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return CUZK_OK;
}

typedef struct {
    cuzk_tlr_interval *v;
    size_t n, cap;
} iv_vec;

static int iv_push(iv_vec *a, const cuzk_tlr_event *s, int64_t end, cuzk_tlr_iv_kind kind)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        cuzk_tlr_interval *v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return CUZK_ENOMEM;
        a->v = v;
        a->cap = cap;
    }
    cuzk_tlr_interval iv = {s->t_us, end, s->job, s->part, s->dev, s->lane, s->stage, kind};
    a->v[a->n++] = iv;
    return CUZK_OK;
}

static int cmp3(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}
static int cmps(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

/* Order for per-worker pairing: (job, part, lane, stage, t, line). */
static int cmp_worker(const void *pa, const void *pb)
{
    const cuzk_tlr_event *a = pa, *b = pb;
    int c;
    if ((c = cmp3(a->job, b->job)) || (c = cmps(a->part, b->part)) || (c = cmp3(a->lane, b->lane)) ||
        (c = cmp3(a->stage, b->stage)) || (c = cmps(a->t_us, b->t_us)))
        return c;
    return cmp3(a->line, b->line);
}

/* Order for the GPU queue: (job, part, t, line). */
static int cmp_partition(const void *pa, const void *pb)
{
    const cuzk_tlr_event *a = pa, *b = pb;
    int c;
    if ((c = cmp3(a->job, b->job)) || (c = cmps(a->part, b->part)) || (c = cmps(a->t_us, b->t_us)))
        return c;
    return cmp3(a->line, b->line);
}

/* Order for job-level events: (job, t, line). */
static int cmp_job(const void *pa, const void *pb)
{
    const cuzk_tlr_event *a = pa, *b = pb;
    int c;
    if ((c = cmp3(a->job, b->job)) || (c = cmps(a->t_us, b->t_us)))
        return c;
    return cmp3(a->line, b->line);
}

static bool same_worker(const cuzk_tlr_event *a, const cuzk_tlr_event *b)
{
    return a->job == b->job && a->part == b->part && a->lane == b->lane && a->stage == b->stage;
}

/* Copies the events of the kinds in mask, sorted by cmp; stage is cleared unless keep_stage. */
static int select_events(const cuzk_tlr_log *log, unsigned mask, bool keep_stage,
                         int (*cmp)(const void *, const void *), cuzk_tlr_event **out, size_t *n)
{
    size_t k = 0;
    for (size_t i = 0; i < log->n_events; i++)
        k += (mask >> log->events[i].ev) & 1;
    cuzk_tlr_event *v = malloc((k ? k : 1) * sizeof *v);
    if (!v)
        return CUZK_ENOMEM;
    k = 0;
    for (size_t i = 0; i < log->n_events; i++)
        if ((mask >> log->events[i].ev) & 1) {
            v[k] = log->events[i];
            if (!keep_stage)
                v[k].stage = 0;
            k++;
        }
    qsort(v, k, sizeof *v, cmp);
    *out = v;
    *n = k;
    return CUZK_OK;
}

#define BIT(e) (1u << (e))

/* START/END pairs of one kind (synthesis, kernels, finalize). */
static int pair_intervals(const cuzk_tlr_log *log, cuzk_tlr_ev s_ev, cuzk_tlr_ev e_ev, cuzk_tlr_iv_kind kind,
                          iv_vec *ivs, size_t *open, size_t *orphan)
{
    cuzk_tlr_event *v;
    size_t n;
    bool keep_stage = kind == CUZK_TLR_IV_KERNEL;
    if (select_events(log, BIT(s_ev) | BIT(e_ev), keep_stage, cmp_worker, &v, &n))
        return CUZK_ENOMEM;
    const cuzk_tlr_event *cur = NULL;
    int rc = CUZK_OK;
    for (size_t i = 0; i < n && rc == CUZK_OK; i++) {
        if (cur && !same_worker(cur, &v[i])) {
            (*open)++;
            cur = NULL;
        }
        if (v[i].ev == s_ev) {
            if (cur)
                (*open)++;
            cur = &v[i];
        } else if (cur) {
            rc = iv_push(ivs, cur, v[i].t_us, kind);
            cur = NULL;
        } else {
            (*orphan)++;
        }
    }
    if (cur)
        (*open)++;
    free(v);
    return rc;
}

/* LOCK_WAIT -> LOCK_ACQ (lock wait) and LOCK_ACQ -> LOCK_REL (lock held) per worker. */
static int pair_lock(const cuzk_tlr_log *log, iv_vec *ivs, i64_vec *waits, cuzk_tlr_warnings *w)
{
    cuzk_tlr_event *v;
    size_t n;
    if (select_events(log, BIT(CUZK_TLR_LOCK_WAIT) | BIT(CUZK_TLR_LOCK_ACQ) | BIT(CUZK_TLR_LOCK_REL), false,
                      cmp_worker, &v, &n))
        return CUZK_ENOMEM;
    const cuzk_tlr_event *wait = NULL, *acq = NULL;
    int rc = CUZK_OK;
    for (size_t i = 0; i < n && rc == CUZK_OK; i++) {
        const cuzk_tlr_event *e = &v[i];
        if (i > 0 && !same_worker(&v[i - 1], e)) {
            w->lock_wait_open += wait != NULL;
            w->lock_open += acq != NULL;
            wait = acq = NULL;
        }
        switch (e->ev) {
        case CUZK_TLR_LOCK_WAIT:
            w->lock_wait_open += wait != NULL;
            wait = e;
            break;
        case CUZK_TLR_LOCK_ACQ:
            if (wait)
                rc = i64_push(waits, e->t_us - wait->t_us);
            wait = NULL;
            w->lock_open += acq != NULL;
            acq = e;
            break;
        default: /* LOCK_REL */
            if (acq)
                rc = iv_push(ivs, acq, e->t_us, CUZK_TLR_IV_LOCK);
            else
                w->lock_orphan_rel++;
            acq = NULL;
            break;
        }
    }
    w->lock_wait_open += wait != NULL;
    w->lock_open += acq != NULL;
    free(v);
    return rc;
}

/* GPU_QUEUE -> the partition's next LOCK_WAIT or LOCK_ACQ, on whatever lane. */
static int pair_queue(const cuzk_tlr_log *log, i64_vec *waits, cuzk_tlr_warnings *w)
{
    cuzk_tlr_event *v;
    size_t n;
    if (select_events(log, BIT(CUZK_TLR_GPU_QUEUE) | BIT(CUZK_TLR_LOCK_WAIT) | BIT(CUZK_TLR_LOCK_ACQ), false,
                      cmp_partition, &v, &n))
        return CUZK_ENOMEM;
    const cuzk_tlr_event *q = NULL;
    int rc = CUZK_OK;
    for (size_t i = 0; i < n && rc == CUZK_OK; i++) {
        const cuzk_tlr_event *e = &v[i];
        if (i > 0 && (v[i - 1].job != e->job || v[i - 1].part != e->part)) {
            w->queue_open += q != NULL;
            q = NULL;
        }
        if (e->ev == CUZK_TLR_GPU_QUEUE) {
            w->queue_open += q != NULL;
            q = e;
        } else if (q) {
            rc = i64_push(waits, e->t_us - q->t_us);
            q = NULL;
        }
    }
    w->queue_open += q != NULL;
    free(v);
    return rc;
}

static int cmp_i64(const void *pa, const void *pb)
{
    return cmps(*(const int64_t *)pa, *(const int64_t *)pb);
}

/* Nearest rank: the ceil(p n / 100)-th smallest sample (v sorted, n > 0). */
static int64_t rank(const int64_t *v, size_t n, unsigned p)
{
    size_t k = (p * n + 99) / 100;
    return v[k ? k - 1 : 0];
}

static void make_dist(i64_vec *a, cuzk_tlr_dist *d)
{
    memset(d, 0, sizeof *d);
    if (a->n == 0)
        return;
    qsort(a->v, a->n, sizeof *a->v, cmp_i64);
    double sum = 0;
    for (size_t i = 0; i < a->n; i++)
        sum += (double)a->v[i];
    d->n = a->n;
    d->mean_us = sum / (double)a->n;
    d->min_us = a->v[0];
    d->p50_us = rank(a->v, a->n, 50);
    d->p95_us = rank(a->v, a->n, 95);
    d->p99_us = rank(a->v, a->n, 99);
    d->max_us = a->v[a->n - 1];
}

/* Durations of the intervals of one kind. */
static int dist_of(const iv_vec *ivs, cuzk_tlr_iv_kind kind, cuzk_tlr_dist *d)
{
    i64_vec a = {0};
    for (size_t i = 0; i < ivs->n; i++)
        if (ivs->v[i].kind == kind)
            if (i64_push(&a, ivs->v[i].end_us - ivs->v[i].start_us)) {
                free(a.v);
                return CUZK_ENOMEM;
            }
    make_dist(&a, d);
    free(a.v);
    return CUZK_OK;
}

/* Job-level events: counts, throughput and latency. */
static int analyze_jobs(const cuzk_tlr_log *log, cuzk_tlr_stats *st)
{
    cuzk_tlr_event *v;
    size_t n;
    unsigned mask = BIT(CUZK_TLR_JOB_SUBMIT) | BIT(CUZK_TLR_JOB_START) | BIT(CUZK_TLR_DELIVER) |
                    BIT(CUZK_TLR_JOB_FAIL) | BIT(CUZK_TLR_JOB_CANCEL);
    if (select_events(log, mask, false, cmp_job, &v, &n))
        return CUZK_ENOMEM;
    i64_vec delivers = {0}, lat = {0};
    int rc = CUZK_OK;
    for (size_t i = 0; i < n && rc == CUZK_OK;) {
        size_t j = i;
        const cuzk_tlr_event *sub = NULL, *del = NULL;
        bool failed = false, cancelled = false;
        for (; j < n && v[j].job == v[i].job; j++) {
            switch (v[j].ev) {
            case CUZK_TLR_JOB_SUBMIT: sub = sub ? sub : &v[j]; break;
            case CUZK_TLR_DELIVER: del = del ? del : &v[j]; break;
            case CUZK_TLR_JOB_FAIL: failed = true; break;
            case CUZK_TLR_JOB_CANCEL: cancelled = true; break;
            default: break;
            }
        }
        st->jobs_seen++;
        st->jobs_submitted += sub != NULL;
        st->failed += failed;
        st->cancelled += cancelled;
        if (sub && !del && !failed && !cancelled)
            st->unfinished++;
        if (sub && (!st->has_first_submit || sub->t_us < st->first_submit_us)) {
            st->has_first_submit = 1;
            st->first_submit_us = sub->t_us;
        }
        if (del) {
            rc = i64_push(&delivers, del->t_us);
            if (rc == CUZK_OK && sub)
                rc = i64_push(&lat, del->t_us - sub->t_us);
            st->warn.deliver_no_submit += sub == NULL;
        }
        i = j;
    }
    if (rc == CUZK_OK) {
        st->delivered = delivers.n;
        if (delivers.n) {
            qsort(delivers.v, delivers.n, sizeof *delivers.v, cmp_i64);
            st->first_deliver_us = delivers.v[0];
            st->last_deliver_us = delivers.v[delivers.n - 1];
        }
        if (delivers.n >= 2) {
            st->has_steady = 1;
            st->steady_s_per_proof =
                (double)(st->last_deliver_us - st->first_deliver_us) / 1e6 / (double)(delivers.n - 1);
        }
        if (delivers.n >= 1 && st->has_first_submit) {
            st->has_overall = 1;
            st->overall_s_per_proof =
                (double)(st->last_deliver_us - st->first_submit_us) / 1e6 / (double)delivers.n;
        }
        make_dist(&lat, &st->latency);
    }
    free(delivers.v);
    free(lat.v);
    free(v);
    return rc;
}

static int cmp_iv_stage(const void *pa, const void *pb)
{
    const cuzk_tlr_interval *a = pa, *b = pb;
    return cmp3(a->stage, b->stage);
}

/* Kernel durations grouped by stage name, in stage-table order (the order names first appear). */
static int analyze_kernel_stages(const iv_vec *ivs, cuzk_tlr_stats *st)
{
    size_t nk = 0;
    for (size_t i = 0; i < ivs->n; i++)
        nk += ivs->v[i].kind == CUZK_TLR_IV_KERNEL;
    cuzk_tlr_interval *k = malloc((nk + 1) * sizeof *k);
    st->kernels = calloc(nk + 1, sizeof *st->kernels);
    int rc = k && st->kernels ? CUZK_OK : CUZK_ENOMEM;
    if (rc == CUZK_OK) {
        nk = 0;
        for (size_t i = 0; i < ivs->n; i++)
            if (ivs->v[i].kind == CUZK_TLR_IV_KERNEL)
                k[nk++] = ivs->v[i];
        qsort(k, nk, sizeof *k, cmp_iv_stage);
    }
    i64_vec d = {0};
    for (size_t i = 0; rc == CUZK_OK && i < nk;) {
        size_t j = i;
        d.n = 0;
        for (; j < nk && k[j].stage == k[i].stage && rc == CUZK_OK; j++)
            rc = i64_push(&d, k[j].end_us - k[j].start_us);
        if (rc == CUZK_OK) {
            cuzk_tlr_kernel_stage *ks = &st->kernels[st->n_kernel_stages++];
            ks->stage = k[i].stage;
            make_dist(&d, &ks->d);
        }
        i = j;
    }
    free(d.v);
    free(k);
    return rc;
}

static int cmp_iv_dev(const void *pa, const void *pb)
{
    const cuzk_tlr_interval *a = pa, *b = pb;
    int c;
    if ((c = cmps(a->dev, b->dev)) || (c = cmps(a->start_us, b->start_us)))
        return c;
    return cmps(a->end_us, b->end_us);
}

/* Records one idle gap; gaps arrive in start order, so a tie in length keeps the earlier one. */
static void add_gap(cuzk_tlr_device *d, int64_t start, int64_t len)
{
    d->n_gaps++;
    d->gap_total_us += len;
    size_t k = d->n_top;
    if (k == CUZK_TLR_TOP_GAPS) {
        if (len <= d->top_gaps[k - 1].len_us)
            return;
        k--;
    } else {
        d->n_top++;
    }
    while (k > 0 && d->top_gaps[k - 1].len_us < len) {
        d->top_gaps[k] = d->top_gaps[k - 1];
        k--;
    }
    d->top_gaps[k].start_us = start;
    d->top_gaps[k].len_us = len;
}

/* Sorted intervals of one device: first start, last end, union length; gaps feed the device when given. */
static void merge(const cuzk_tlr_interval *v, size_t n, int64_t *first, int64_t *last, int64_t *busy,
                  cuzk_tlr_device *gaps)
{
    int64_t run_s = v[0].start_us, run_e = v[0].end_us, total = 0;
    *first = v[0].start_us;
    *last = v[0].end_us;
    for (size_t i = 1; i <= n; i++) {
        if (i < n && v[i].start_us <= run_e) {
            if (v[i].end_us > run_e)
                run_e = v[i].end_us;
        } else {
            total += run_e - run_s;
            if (run_e > *last)
                *last = run_e;
            if (i == n)
                break;
            if (gaps)
                add_gap(gaps, run_e, v[i].start_us - run_e);
            run_s = v[i].start_us;
            run_e = v[i].end_us;
        }
    }
    *busy = total;
}

/* Kernel and lock unions per device. */
static int analyze_devices(const iv_vec *ivs, cuzk_tlr_stats *st)
{
    size_t nk = 0, nl = 0;
    for (size_t i = 0; i < ivs->n; i++) {
        nk += ivs->v[i].kind == CUZK_TLR_IV_KERNEL;
        nl += ivs->v[i].kind == CUZK_TLR_IV_LOCK;
    }
    cuzk_tlr_interval *k = malloc((nk + 1) * sizeof *k), *l = malloc((nl + 1) * sizeof *l);
    st->devices = calloc(nk + nl + 1, sizeof *st->devices);
    if (!k || !l || !st->devices) {
        free(k);
        free(l);
        return CUZK_ENOMEM;
    }
    nk = nl = 0;
    for (size_t i = 0; i < ivs->n; i++) {
        if (ivs->v[i].kind == CUZK_TLR_IV_KERNEL)
            k[nk++] = ivs->v[i];
        else if (ivs->v[i].kind == CUZK_TLR_IV_LOCK)
            l[nl++] = ivs->v[i];
    }
    qsort(k, nk, sizeof *k, cmp_iv_dev);
    qsort(l, nl, sizeof *l, cmp_iv_dev);
    size_t i = 0, j = 0;
    while (i < nk || j < nl) {
        int32_t dev = i < nk && (j >= nl || k[i].dev <= l[j].dev) ? k[i].dev : l[j].dev;
        cuzk_tlr_device *d = &st->devices[st->n_devices++];
        d->dev = dev;
        size_t i0 = i, j0 = j;
        while (i < nk && k[i].dev == dev)
            i++;
        while (j < nl && l[j].dev == dev)
            j++;
        d->n_kernels = i - i0;
        d->n_locks = j - j0;
        if (d->n_kernels) {
            merge(k + i0, d->n_kernels, &d->kernel_first_us, &d->kernel_last_us, &d->kernel_busy_us, d);
            int64_t span = d->kernel_last_us - d->kernel_first_us;
            d->kernel_util = span > 0 ? (double)d->kernel_busy_us / (double)span : 0;
        }
        if (d->n_locks) {
            merge(l + j0, d->n_locks, &d->lock_first_us, &d->lock_last_us, &d->lock_busy_us, NULL);
            int64_t span = d->lock_last_us - d->lock_first_us;
            d->lock_util = span > 0 ? (double)d->lock_busy_us / (double)span : 0;
        }
    }
    free(k);
    free(l);
    return CUZK_OK;
}

static int cmp_iv_time(const void *pa, const void *pb)
{
    const cuzk_tlr_interval *a = pa, *b = pb;
    int c;
    if ((c = cmps(a->start_us, b->start_us)) || (c = cmp3(a->lane, b->lane)) || (c = cmps(a->kind, b->kind)))
        return c;
    return cmps(a->end_us, b->end_us);
}

void cuzk_tlr_stats_free(cuzk_tlr_stats *st)
{
    if (!st)
        return;
    free(st->kernels);
    free(st->devices);
    free(st->intervals);
    free(st);
}

int cuzk_tlr_analyze(const cuzk_tlr_log *log, cuzk_tlr_stats **out, char *err, size_t errlen)
{
    if (!log || !out || log->n_events == 0)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "timeline: nothing to analyze");
    cuzk_tlr_stats *st = calloc(1, sizeof *st);
    iv_vec ivs = {0};
    i64_vec lock_waits = {0}, queue_waits = {0};
    int rc = st ? CUZK_OK : CUZK_ENOMEM;
    cuzk_tlr_warnings *w = st ? &st->warn : NULL;
    if (rc == CUZK_OK) {
        st->t_first_us = st->t_last_us = log->events[0].t_us;
        for (size_t i = 1; i < log->n_events; i++) {
            int64_t t = log->events[i].t_us;
            st->t_first_us = t < st->t_first_us ? t : st->t_first_us;
            st->t_last_us = t > st->t_last_us ? t : st->t_last_us;
        }
        rc = pair_intervals(log, CUZK_TLR_SYNTH_START, CUZK_TLR_SYNTH_END, CUZK_TLR_IV_SYNTH, &ivs,
                            &w->synth_open, &w->synth_orphan_end);
    }
    if (rc == CUZK_OK)
        rc = pair_intervals(log, CUZK_TLR_KERNEL_START, CUZK_TLR_KERNEL_END, CUZK_TLR_IV_KERNEL, &ivs,
                            &w->kernel_open, &w->kernel_orphan_end);
    if (rc == CUZK_OK)
        rc = pair_intervals(log, CUZK_TLR_FINALIZE_START, CUZK_TLR_FINALIZE_END, CUZK_TLR_IV_FINALIZE, &ivs,
                            &w->finalize_open, &w->finalize_orphan_end);
    if (rc == CUZK_OK)
        rc = pair_lock(log, &ivs, &lock_waits, w);
    if (rc == CUZK_OK)
        rc = pair_queue(log, &queue_waits, w);
    if (rc == CUZK_OK)
        rc = analyze_jobs(log, st);
    if (rc == CUZK_OK) {
        make_dist(&lock_waits, &st->lock_wait);
        make_dist(&queue_waits, &st->queue);
        rc = dist_of(&ivs, CUZK_TLR_IV_SYNTH, &st->synth);
    }
    if (rc == CUZK_OK)
        rc = dist_of(&ivs, CUZK_TLR_IV_FINALIZE, &st->finalize);
    if (rc == CUZK_OK)
        rc = dist_of(&ivs, CUZK_TLR_IV_LOCK, &st->lock_held);
    if (rc == CUZK_OK)
        rc = analyze_kernel_stages(&ivs, st);
    if (rc == CUZK_OK)
        rc = analyze_devices(&ivs, st);
    if (rc == CUZK_OK && st->delivered && st->n_devices) {
        int64_t busy = 0;
        for (size_t i = 0; i < st->n_devices; i++)
            busy += st->devices[i].kernel_busy_us;
        if (busy > 0) {
            st->has_kernel_time = 1;
            st->kernel_s_per_proof = (double)busy / 1e6 / (double)st->delivered;
        }
    }
    if (rc == CUZK_OK) {
        if (ivs.n)
            qsort(ivs.v, ivs.n, sizeof *ivs.v, cmp_iv_time);
        st->intervals = ivs.v;
        st->n_intervals = ivs.n;
        ivs.v = NULL;
    }
    free(ivs.v);
    free(lock_waits.v);
    free(queue_waits.v);
    if (rc) {
        cuzk_tlr_stats_free(st);
        return cuzk_fail(err, errlen, rc, "timeline: out of memory");
    }
    *out = st;
    return CUZK_OK;
}

/* ---- text report ------------------------------------------------------------------- */

/* Exact milliseconds with three decimals ("-1.250"). */
static const char *fmt_ms(char buf[32], int64_t us)
{
    uint64_t m = us < 0 ? (uint64_t)0 - (uint64_t)us : (uint64_t)us;
    snprintf(buf, 32, "%s%llu.%03llu", us < 0 ? "-" : "", (unsigned long long)(m / 1000),
             (unsigned long long)(m % 1000));
    return buf;
}

/* Seconds rounded to the millisecond ("12.346"). */
static const char *fmt_s(char buf[32], int64_t us)
{
    int64_t ms = us >= 0 ? (us + 500) / 1000 : -((-us + 500) / 1000);
    uint64_t m = ms < 0 ? (uint64_t)0 - (uint64_t)ms : (uint64_t)ms;
    snprintf(buf, 32, "%s%llu.%03llu", ms < 0 ? "-" : "", (unsigned long long)(m / 1000),
             (unsigned long long)(m % 1000));
    return buf;
}

static void print_dist(FILE *f, const char *name, const cuzk_tlr_dist *d, bool p99)
{
    char a[32], b[32], c[32], e[32];
    fprintf(f, "  %-24s %8zu %12.3f %12s %12s", name, d->n, d->mean_us / 1000.0, fmt_ms(a, d->p50_us),
            fmt_ms(b, d->p95_us));
    if (p99)
        fprintf(f, " %12s", fmt_ms(c, d->p99_us));
    fprintf(f, " %12s\n", fmt_ms(e, d->max_us));
}

static void print_warn(FILE *f, size_t n, const char *what, size_t *total)
{
    if (n)
        fprintf(f, "  %-44s %8zu\n", what, n);
    *total += n;
}

int cuzk_tlr_print(FILE *f, const char *title, const cuzk_tlr_log *log, const cuzk_tlr_stats *st, char *err,
                   size_t errlen)
{
    if (!f || !log || !st)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "timeline: bad argument");
    char a[32], b[32], c[32], d[32], e[32];
    fprintf(f, "timeline report: %s\n", title ? title : "(input)");
    fprintf(f, "  lines %zu, events %zu, unknown events skipped %zu, first event %s s, last event %s s\n",
            log->n_lines, log->n_events, log->n_unknown, fmt_s(a, st->t_first_us), fmt_s(b, st->t_last_us));

    fprintf(f, "\njobs\n");
    fprintf(f, "  %-12s %8zu\n", "seen", st->jobs_seen);
    fprintf(f, "  %-12s %8zu\n", "submitted", st->jobs_submitted);
    fprintf(f, "  %-12s %8zu\n", "delivered", st->delivered);
    fprintf(f, "  %-12s %8zu\n", "failed", st->failed);
    fprintf(f, "  %-12s %8zu\n", "cancelled", st->cancelled);
    fprintf(f, "  %-12s %8zu\n", "unfinished", st->unfinished);
    for (size_t i = 0; i < log->n_events; i++) {
        const cuzk_tlr_event *ev = &log->events[i];
        if (ev->ev == CUZK_TLR_DEVICE_LOST)
            fprintf(f,
                    "  device %d lost at %s s (job %llu partition %d, %s phase): its partitions moved on\n",
                    ev->dev, fmt_s(a, ev->t_us), (unsigned long long)ev->job, ev->part,
                    log->stages[ev->stage][0] ? log->stages[ev->stage] : "?");
    }

    fprintf(f, "\nthroughput\n");
    if (st->has_steady)
        fprintf(f, "  steady state %10.3f s/proof  (%.3f proofs/min; %zu deliveries from %s s to %s s)\n",
                st->steady_s_per_proof, st->steady_s_per_proof > 0 ? 60.0 / st->steady_s_per_proof : 0.0,
                st->delivered, fmt_s(a, st->first_deliver_us), fmt_s(b, st->last_deliver_us));
    else
        fprintf(f, "  steady state        n/a  (needs 2 deliveries, have %zu)\n", st->delivered);
    if (st->has_overall)
        fprintf(f, "  overall      %10.3f s/proof  (%.3f proofs/min; first submit %s s, last deliver %s s)\n",
                st->overall_s_per_proof, st->overall_s_per_proof > 0 ? 60.0 / st->overall_s_per_proof : 0.0,
                fmt_s(a, st->first_submit_us), fmt_s(b, st->last_deliver_us));
    else
        fprintf(f, "  overall             n/a  (needs a JOB_SUBMIT and a DELIVER)\n");
    if (st->has_kernel_time)
        fprintf(f,
                "  kernel time  %10.3f s/proof  (kernels busy on %zu device%s / %zu delivered: the "
                "device-bound rate "
                "is %.3f s/proof)\n",
                st->kernel_s_per_proof, st->n_devices, st->n_devices == 1 ? "" : "s", st->delivered,
                st->kernel_s_per_proof / (double)st->n_devices);

    fprintf(f, "\njob latency (ms)                  n         mean          p50          p95          p99"
               "          max\n");
    print_dist(f, "deliver - submit", &st->latency, true);

    fprintf(f, "\ngpu devices      kernels  kernel busy s       span s  kernel util    locks    lock busy s"
               "  lock span s    lock util     gaps  gap total s\n");
    if (st->n_devices == 0)
        fprintf(f, "  (no kernel or lock intervals)\n");
    for (size_t i = 0; i < st->n_devices; i++) {
        const cuzk_tlr_device *dv = &st->devices[i];
        fprintf(f, "  dev %-8d %8zu %14s %12s %11.2f%% %8zu %14s %12s %11.2f%% %8zu %12s\n", (int)dv->dev,
                dv->n_kernels, fmt_s(a, dv->kernel_busy_us),
                fmt_s(b, dv->kernel_last_us - dv->kernel_first_us), 100.0 * dv->kernel_util, dv->n_locks,
                fmt_s(c, dv->lock_busy_us), fmt_s(d, dv->lock_last_us - dv->lock_first_us),
                100.0 * dv->lock_util, dv->n_gaps, fmt_s(e, dv->gap_total_us));
    }
    for (size_t i = 0; i < st->n_devices; i++) {
        const cuzk_tlr_device *dv = &st->devices[i];
        if (dv->n_top == 0)
            continue;
        fprintf(f, "  dev %d largest idle gaps:", (int)dv->dev);
        for (size_t g = 0; g < dv->n_top; g++)
            fprintf(f, "%s %s ms at %s s", g ? "," : "", fmt_ms(a, dv->top_gaps[g].len_us),
                    fmt_s(b, dv->top_gaps[g].start_us));
        fprintf(f, "\n");
    }

    fprintf(f, "\nstages (ms)                       n         mean          p50          p95          max\n");
    print_dist(f, "synthesis", &st->synth, false);
    print_dist(f, "gpu queue wait", &st->queue, false);
    print_dist(f, "lock wait", &st->lock_wait, false);
    for (size_t i = 0; i < st->n_kernel_stages; i++) {
        char name[CUZK_TLR_MAX_NAME + 16];
        const char *s = log->stages[st->kernels[i].stage];
        snprintf(name, sizeof name, "kernel %s", *s ? s : "(unnamed)");
        print_dist(f, name, &st->kernels[i].d, false);
    }
    print_dist(f, "lock held", &st->lock_held, false);
    print_dist(f, "finalize", &st->finalize, false);

    const cuzk_tlr_warnings *w = &st->warn;
    size_t total = 0;
    fprintf(f, "\nwarnings\n");
    print_warn(f, w->synth_open, "SYNTH_START without SYNTH_END", &total);
    print_warn(f, w->synth_orphan_end, "SYNTH_END without SYNTH_START", &total);
    print_warn(f, w->kernel_open, "KERNEL_START without KERNEL_END", &total);
    print_warn(f, w->kernel_orphan_end, "KERNEL_END without KERNEL_START", &total);
    print_warn(f, w->finalize_open, "FINALIZE_START without FINALIZE_END", &total);
    print_warn(f, w->finalize_orphan_end, "FINALIZE_END without FINALIZE_START", &total);
    print_warn(f, w->lock_wait_open, "LOCK_WAIT without LOCK_ACQ", &total);
    print_warn(f, w->lock_open, "LOCK_ACQ without LOCK_REL", &total);
    print_warn(f, w->lock_orphan_rel, "LOCK_REL without LOCK_ACQ", &total);
    print_warn(f, w->queue_open, "GPU_QUEUE never picked up", &total);
    print_warn(f, w->deliver_no_submit, "DELIVER without JOB_SUBMIT", &total);
    if (total == 0)
        fprintf(f, "  none\n");
    if (fflush(f) != 0 || ferror(f))
        return cuzk_fail(err, errlen, CUZK_EIO, "timeline: writing the report failed");
    return CUZK_OK;
}

/* ---- SVG waterfall ----------------------------------------------------------------- */

#define SVG_LEFT 130.0 /* lane labels */
#define SVG_RIGHT 40.0
#define SVG_LANE_H 20.0
#define SVG_MIN_W 1000.0
#define SVG_MAX_W 20000.0
#define SVG_PX_PER_S 40.0

static const char *const kernel_palette[] = {"#e15759", "#f28e2b", "#edc948", "#b07aa1", "#ff9da7",
                                             "#9c755f", "#76b7b2", "#d37295", "#8cd17d", "#a0cbe8"};
#define N_PALETTE (sizeof kernel_palette / sizeof kernel_palette[0])
#define COLOR_SYNTH "#4e79a7"
#define COLOR_FIN "#59a14f"
#define COLOR_LOCK "#333333"
#define COLOR_DELIVER "#000000"

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            /* control characters are not allowed in XML 1.0 text */
            fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
        }
    }
}

/* Lane order: synthesis workers, GPU workers, post-processing workers, anything else; numbers compared as
 * numbers ("gpu0.10" after "gpu0.9"). */
static int lane_group(const char *s)
{
    if (strncmp(s, "synth", 5) == 0)
        return 0;
    if (strncmp(s, "gpu", 3) == 0)
        return 1;
    if (strncmp(s, "post", 4) == 0)
        return 2;
    return 3;
}

static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            while (*a == '0' && a[1] >= '0' && a[1] <= '9')
                a++;
            while (*b == '0' && b[1] >= '0' && b[1] <= '9')
                b++;
            size_t la = strspn(a, "0123456789"), lb = strspn(b, "0123456789");
            if (la != lb)
                return la < lb ? -1 : 1;
            int c = memcmp(a, b, la);
            if (c)
                return c;
            a += la;
            b += lb;
        } else {
            if (*a != *b)
                return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
            a++;
            b++;
        }
    }
    return (*a != 0) - (*b != 0);
}

typedef struct {
    const char *name;
    uint32_t idx;
} lane_ref;

static int cmp_lane(const void *pa, const void *pb)
{
    const lane_ref *a = pa, *b = pb;
    int ga = lane_group(a->name), gb = lane_group(b->name);
    if (ga != gb)
        return ga - gb;
    int c = natural_cmp(a->name, b->name);
    return c ? c : strcmp(a->name, b->name);
}

/* Tick step in microseconds: 1, 2 or 5 times a power of ten, at least min_us. */
static int64_t nice_step(double min_us)
{
    int64_t p = 1;
    for (;;) {
        if ((double)p >= min_us)
            return p;
        if ((double)(2 * p) >= min_us)
            return 2 * p;
        if ((double)(5 * p) >= min_us)
            return 5 * p;
        if (p > INT64_MAX / 100)
            return p * 10;
        p *= 10;
    }
}

static const char *kind_name(cuzk_tlr_iv_kind k)
{
    switch (k) {
    case CUZK_TLR_IV_SYNTH: return "synthesis";
    case CUZK_TLR_IV_KERNEL: return "kernel";
    case CUZK_TLR_IV_FINALIZE: return "finalize";
    default: return "lock held";
    }
}

typedef struct {
    double x0, px_per_us;
    int64_t t0;
} xmap;

static double xat(const xmap *m, int64_t t)
{
    return m->x0 + (double)(t - m->t0) * m->px_per_us;
}

static void svg_body(FILE *f, const cuzk_tlr_log *log, const cuzk_tlr_stats *st, const uint32_t *lane_row,
                     size_t n_rows, const lane_ref *rows, const int *stage_color)
{
    int64_t t0 = st->t_first_us, span = st->t_last_us - st->t_first_us;
    if (span <= 0)
        span = 1;
    double plot_w = (double)span / 1e6 * SVG_PX_PER_S;
    plot_w = plot_w < SVG_MIN_W ? SVG_MIN_W : plot_w > SVG_MAX_W ? SVG_MAX_W : plot_w;
    xmap m = {SVG_LEFT, plot_w / (double)span, t0};
    double width = SVG_LEFT + plot_w + SVG_RIGHT;

    /* Legend: synthesis, one entry per kernel stage, finalize, lock held; wraps at the plot width. */
    size_t n_leg = 3 + st->n_kernel_stages;
    double leg_item_w = 170.0;
    size_t per_row = (size_t)((width - 20.0) / leg_item_w);
    per_row = per_row ? per_row : 1;
    size_t leg_rows = (n_leg + per_row - 1) / per_row;
    double leg_top = 36.0;
    double axis_y = leg_top + 20.0 * (double)leg_rows + 22.0;
    double jobs_y = axis_y + 8.0;
    double lanes_y = jobs_y + SVG_LANE_H;
    double plot_bottom = lanes_y + SVG_LANE_H * (double)n_rows;
    double height = plot_bottom + 40.0;

    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(
        f,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
        "font-family=\"sans-serif\" font-size=\"11\">\n",
        width, height, width, height);
    fprintf(f, "<title>cuzk timeline waterfall</title>\n");
    fprintf(f, "<style>rect.iv:hover,rect.lk:hover{stroke:#000;stroke-width:1}"
               " line.grid{stroke:#ddd;stroke-width:1} line.dl{stroke:#000;stroke-opacity:0.25;"
               "stroke-dasharray:2,3} text.lane{text-anchor:end} text.tick{text-anchor:middle;fill:#444} "
               "text.lrep{font-size:9px;fill:#000;fill-opacity:0.55;pointer-events:none}</style>\n");
    fprintf(f, "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
            width, height);
    char a[32], b[32], c[32];
    fprintf(f,
            "<text class=\"hd\" x=\"10\" y=\"20\" font-size=\"14\">cuzk timeline: %zu events, %zu intervals, "
            "%zu delivered, %s s to %s s</text>\n",
            log->n_events, st->n_intervals, st->delivered, fmt_s(a, st->t_first_us), fmt_s(b, st->t_last_us));

    for (size_t i = 0; i < n_leg; i++) {
        double x = 10.0 + leg_item_w * (double)(i % per_row), y = leg_top + 20.0 * (double)(i / per_row);
        const char *color, *label, *prefix = "";
        if (i == 0)
            color = COLOR_SYNTH, label = "synthesis";
        else if (i <= st->n_kernel_stages) {
            uint32_t s = st->kernels[i - 1].stage;
            color = kernel_palette[stage_color[s] % (int)N_PALETTE];
            label = *log->stages[s] ? log->stages[s] : "(unnamed)";
            prefix = "kernel ";
        } else if (i == st->n_kernel_stages + 1)
            color = COLOR_FIN, label = "finalize";
        else
            color = COLOR_LOCK, label = "lock held (thin bar)";
        fprintf(f, "<rect class=\"lg\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>", x, y,
                color);
        fprintf(f, "<text class=\"lgt\" x=\"%.1f\" y=\"%.1f\">%s", x + 16.0, y + 10.0, prefix);
        xml_text(f, label);
        fprintf(f, "</text>\n");
    }

    /* Time axis: grid lines with labels at the top and the bottom, in seconds of the file's clock. */
    int64_t step = nice_step(100.0 / m.px_per_us);
    int dec = 0;
    for (int64_t s = step; s % 1000000 != 0 && dec < 6; s *= 10)
        dec++;
    int64_t first_tick = t0 % step == 0 ? t0 : (t0 / step + 1) * step;
    for (int64_t t = first_tick; t <= t0 + span; t += step) {
        double x = xat(&m, t);
        fprintf(f, "<line class=\"grid\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\"/>", x, axis_y, x,
                plot_bottom);
        for (int k = 0; k < 2; k++)
            fprintf(f, "<text class=\"tick\" x=\"%.2f\" y=\"%.1f\">%.*f</text>", x,
                    k ? plot_bottom + 14.0 : axis_y - 4.0, dec, (double)t / 1e6);
        fprintf(f, "\n");
        if (t > INT64_MAX - step)
            break;
    }
    fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">time (s)</text>\n", SVG_LEFT + plot_w / 2.0,
            plot_bottom + 30.0);

    /* Lanes: a stripe and a label each; the first row holds job markers. */
    fprintf(f, "<text class=\"jl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">jobs</text>\n", SVG_LEFT - 6.0,
            jobs_y + 14.0);
    for (size_t r = 0; r < n_rows; r++) {
        double y = lanes_y + SVG_LANE_H * (double)r;
        fprintf(f, "<rect class=\"ln\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>",
                SVG_LEFT, y, plot_w, SVG_LANE_H, r % 2 ? "#f4f4f4" : "#fbfbfb");
        fprintf(f, "<text class=\"lane\" x=\"%.1f\" y=\"%.1f\">", SVG_LEFT - 6.0, y + 14.0);
        xml_text(f, rows[r].name);
        fprintf(f, "</text>\n");
    }

    /* Intervals. */
    for (size_t i = 0; i < st->n_intervals; i++) {
        const cuzk_tlr_interval *iv = &st->intervals[i];
        double y = lanes_y + SVG_LANE_H * (double)lane_row[iv->lane];
        double x = xat(&m, iv->start_us), w = xat(&m, iv->end_us) - x;
        w = w < 0.5 ? 0.5 : w;
        const char *cls, *color;
        double top, h;
        if (iv->kind == CUZK_TLR_IV_LOCK) {
            cls = "lk", color = COLOR_LOCK, top = y + 16.0, h = 3.0;
        } else {
            top = y + 2.0, h = 13.0;
            cls = iv->kind == CUZK_TLR_IV_SYNTH    ? "iv synth"
                  : iv->kind == CUZK_TLR_IV_KERNEL ? "iv kernel"
                                                   : "iv fin";
            color = iv->kind == CUZK_TLR_IV_SYNTH    ? COLOR_SYNTH
                    : iv->kind == CUZK_TLR_IV_KERNEL ? kernel_palette[stage_color[iv->stage] % (int)N_PALETTE]
                                                     : COLOR_FIN;
        }
        fprintf(f,
                "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                "fill=\"%s\"><title>job %llu"
                " part %d %s",
                cls, x, top, w, h, color, (unsigned long long)iv->job, (int)iv->part, kind_name(iv->kind));
        if (iv->kind == CUZK_TLR_IV_KERNEL) {
            fputc(' ', f);
            xml_text(f, *log->stages[iv->stage] ? log->stages[iv->stage] : "(unnamed)");
        }
        fprintf(f, " on ");
        xml_text(f, log->lanes[iv->lane]);
        fprintf(f, ": %s ms (%s s to %s s)</title></rect>\n", fmt_ms(a, iv->end_us - iv->start_us),
                fmt_s(b, iv->start_us), fmt_s(c, iv->end_us));
    }

    /* On a wide chart, lane names again every 2000 px so a scrolled view still says which row is which. */
    for (double x = SVG_LEFT + 2000.0; x < SVG_LEFT + plot_w - 300.0; x += 2000.0)
        for (size_t r = 0; r < n_rows; r++) {
            fprintf(f, "<text class=\"lrep\" x=\"%.1f\" y=\"%.1f\">", x + 4.0,
                    lanes_y + SVG_LANE_H * (double)r + 12.0);
            xml_text(f, rows[r].name);
            fprintf(f, "</text>\n");
        }

    /* Job-level markers: a diamond in the jobs row and a faint line through the lanes at each DELIVER. */
    for (size_t i = 0; i < log->n_events; i++) {
        const cuzk_tlr_event *e = &log->events[i];
        if (e->ev != CUZK_TLR_DELIVER)
            continue;
        double x = xat(&m, e->t_us);
        fprintf(f, "<line class=\"dl\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\"/>", x,
                jobs_y + SVG_LANE_H, x, plot_bottom);
        fprintf(
            f,
            "<path class=\"dm\" d=\"M%.2f %.1fl6 7-6 7-6-7z\" fill=\"%s\"><title>job %llu delivered at %s s"
            "</title></path>\n",
            x, jobs_y + 3.0, COLOR_DELIVER, (unsigned long long)e->job, fmt_s(a, e->t_us));
    }
    fprintf(f, "</svg>\n");
}

/* The SVG's atomic output file with its stream, made before any output so that a bad destination fails
 * first. */
static int svg_open(cuzk_outfile *o, const char *path, char *err, size_t errlen)
{
    char who[PATH_MAX + 32];
    snprintf(who, sizeof who, "timeline svg: cannot write %s", path);
    return cuzk_outfile_open(o, path, CUZK_OUTFILE_STREAM, who, err, errlen);
}

/* Renames the file into place when rc is CUZK_OK, else removes it; returns the outcome. */
static int svg_close(cuzk_outfile *o, int rc, char *err, size_t errlen)
{
    if (rc == CUZK_OK) {
        char who[PATH_MAX + 32];
        snprintf(who, sizeof who, "timeline svg: cannot write %s", o->path);
        return cuzk_outfile_commit(o, who, err, errlen);
    }
    cuzk_outfile_abort(o);
    return rc;
}

/* Lays out the rows (lanes that carry intervals, in display order) and kernel colours, then draws. */
static int svg_render(FILE *f, const cuzk_tlr_log *log, const cuzk_tlr_stats *st, char *err, size_t errlen)
{
    uint32_t *lane_row = calloc(log->n_lanes + 1, sizeof *lane_row);
    lane_ref *rows = calloc(log->n_lanes + 1, sizeof *rows);
    int *stage_color = calloc(log->n_stages + 1, sizeof *stage_color);
    int rc = CUZK_OK;
    if (!lane_row || !rows || !stage_color) {
        rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "timeline svg: out of memory");
    } else {
        size_t n_rows = 0;
        for (size_t i = 0; i < st->n_intervals; i++)
            lane_row[st->intervals[i].lane] = 1;
        for (uint32_t l = 0; l < log->n_lanes; l++)
            if (lane_row[l])
                rows[n_rows].name = log->lanes[l], rows[n_rows++].idx = l;
        qsort(rows, n_rows, sizeof *rows, cmp_lane);
        for (size_t r = 0; r < n_rows; r++)
            lane_row[rows[r].idx] = (uint32_t)r;
        for (size_t k = 0; k < st->n_kernel_stages; k++)
            stage_color[st->kernels[k].stage] = (int)k;
        svg_body(f, log, st, lane_row, n_rows, rows, stage_color);
    }
    free(lane_row);
    free(rows);
    free(stage_color);
    return rc;
}

int cuzk_tlr_write_svg(const char *path, const cuzk_tlr_log *log, const cuzk_tlr_stats *st, char *err,
                       size_t errlen)
{
    if (!path || !*path || !log || !st)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "timeline svg: bad argument");
    cuzk_outfile o;
    int rc = svg_open(&o, path, err, errlen);
    if (rc)
        return rc;
    return svg_close(&o, svg_render(o.f, log, st, err, errlen), err, errlen);
}

/* ---- all together -------------------------------------------------------------------- */

int cuzk_timeline_report(const char *path, FILE *out, const char *svg_path, char *err, size_t errlen)
{
    if (!path)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "timeline: no input file");
    if (svg_path && !*svg_path)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "timeline svg: empty output path");
    cuzk_tlr_log *log = NULL;
    cuzk_tlr_stats *st = NULL;
    cuzk_outfile o = {0};
    int rc = cuzk_tlr_read(path, &log, err, errlen);
    if (rc == CUZK_OK)
        rc = cuzk_tlr_analyze(log, &st, err, errlen);
    if (rc == CUZK_OK && svg_path)
        rc = svg_open(&o, svg_path, err, errlen);
    if (rc == CUZK_OK && out)
        rc = cuzk_tlr_print(out, path, log, st, err, errlen);
    if (rc == CUZK_OK && o.f)
        rc = svg_render(o.f, log, st, err, errlen);
    if (o.f)
        rc = svg_close(&o, rc, err, errlen);
    cuzk_tlr_stats_free(st);
    cuzk_tlr_log_free(log);
    return rc;
}
