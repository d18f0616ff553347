/*
 * test_timeline_report.c — the TIMELINE reader and report against a model run.
 *
 * A generator builds a run from fresh random durations: jobs, partitions,
 * synthesis / GPU / post workers, several kernel stages per partition, with
 * GPU workers of one device running kernels that overlap in time (so the
 * union must count shared time once) and idle stretches between them. It
 * knows every interval, wait and outcome as plain numbers ("truth") and
 * writes them out as TIMELINE lines. The oracle computes every statistic from
 * the truth alone, by definitions rather than by the library's method: the
 * kernel and lock unions and the idle gaps by marking each microsecond of the
 * run in a byte array; percentiles as the smallest sample that at least p% of
 * the samples do not exceed (found by counting); throughput and latency
 * straight from the formulas. Variants: the file cut short at a random
 * instant (open intervals become warnings), lines shuffled (the report must
 * not depend on file order), unknown events and extra keys sprinkled in.
 *
 * Malformed input (bad JSON, missing key, non-numeric or fractional or
 * negative t_us, values out of range, truncated last line, blank line, empty
 * file, nothing recognised) must fail with the right line number; random
 * byte corruption must fail or succeed cleanly (ASan checks for leaks). The
 * SVG is checked by a small tag parser: balanced, one root <svg>, one
 * <rect class="iv ..."> per interval each with the expected <title>, x and
 * width proportional to time, one lane label per worker in worker order, one
 * DELIVER marker per delivered job.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/timeline.h"
#include "cuzk/timeline_report.h"
#include "testutil.h"

static uint64_t rnd(uint64_t lo, uint64_t hi) /* inclusive */
{
    return lo + test_rand64() % (hi - lo + 1);
}

/* ---- the model run ---------------------------------------------------------------- */

enum { K_SYNTH, K_KERNEL, K_FIN, K_LOCK };

typedef struct {
    int kind;
    uint64_t job;
    int part, lane, dev, stage; /* lane / stage index into the run's tables */
    int64_t s, e;
} t_iv;

typedef struct {
    uint64_t job;
    int part;
    int64_t q, w, a; /* GPU_QUEUE, LOCK_WAIT (-1: not written), LOCK_ACQ */
} t_wait;

typedef struct {
    uint64_t id;
    int64_t submit;
    int outcome; /* 0 deliver, 1 fail, 2 cancel */
    int64_t t_out;
} t_job;

typedef struct {
    int64_t t;
    int ev; /* cuzk_tlr_ev */
    uint64_t job;
    int part, lane, dev, stage; /* lane -1: "-" */
    size_t seq;                 /* generation order */
} t_ev;

#define MAX_LANES 64
#define MAX_STAGES 16

typedef struct {
    char lanes[MAX_LANES][32];
    int n_lanes;
    const char *stages[MAX_STAGES];
    int n_stages, n_devs;
    t_iv *iv;
    size_t n_iv, cap_iv;
    t_wait *w;
    size_t n_w, cap_w;
    t_job *jobs;
    size_t n_jobs;
    t_ev *ev;
    size_t n_ev, cap_ev;
} run_t;

static const char *const STAGE_NAMES[] = {"ntt_h",    "msm_h",     "msm_l",    "msm_a",    "msm_b_g1",
                                          "msm_b_g2", "batch_add", "tail_msm", "epilogue", "d2h"};

static void *grow(void *p, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return p;
    *cap = *cap ? 2 * *cap : 64;
    void *q = realloc(p, *cap * sz);
    if (!q) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return q;
}

static void add_ev(run_t *r, int64_t t, int ev, uint64_t job, int part, int lane, int dev, int stage)
{
    r->ev = grow(r->ev, &r->cap_ev, r->n_ev, sizeof *r->ev);
    r->ev[r->n_ev] = (t_ev){t, ev, job, part, lane, dev, stage, r->n_ev};
    r->n_ev++;
}

static void add_iv(run_t *r, int kind, uint64_t job, int part, int lane, int dev, int stage, int64_t s,
                   int64_t e)
{
    r->iv = grow(r->iv, &r->cap_iv, r->n_iv, sizeof *r->iv);
    r->iv[r->n_iv++] = (t_iv){kind, job, part, lane, dev, stage, s, e};
    static const int evs[4][2] = {{CUZK_TLR_SYNTH_START, CUZK_TLR_SYNTH_END},
                                  {CUZK_TLR_KERNEL_START, CUZK_TLR_KERNEL_END},
                                  {CUZK_TLR_FINALIZE_START, CUZK_TLR_FINALIZE_END},
                                  {CUZK_TLR_LOCK_ACQ, CUZK_TLR_LOCK_REL}};
    add_ev(r, s, evs[kind][0], job, part, lane, dev, kind == K_KERNEL ? stage : -1);
    add_ev(r, e, evs[kind][1], job, part, lane, dev, kind == K_KERNEL ? stage : -1);
}

static int add_lane(run_t *r, const char *fmt, int a, int b)
{
    snprintf(r->lanes[r->n_lanes], sizeof r->lanes[0], fmt, a, b);
    return r->n_lanes++;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* A run of n_jobs jobs of n_parts partitions; kernels of the GPU workers of one device overlap freely. */
static void gen_run(run_t *r, int n_jobs, int n_parts, int n_stages, int n_devs, int gw, int n_synth,
                    int n_post, int64_t max_kernel)
{
    memset(r, 0, sizeof *r);
    r->n_devs = n_devs;
    r->n_stages = n_stages;
    for (int i = 0; i < n_stages; i++)
        r->stages[i] = STAGE_NAMES[i];
    int synth0 = r->n_lanes;
    for (int i = 0; i < n_synth; i++)
        add_lane(r, "synth.%d", i, 0);
    int gpu0 = r->n_lanes;
    for (int d = 0; d < n_devs; d++)
        for (int w = 0; w < gw; w++)
            add_lane(r, "gpu%d.%d", d, w);
    int post0 = r->n_lanes;
    for (int i = 0; i < n_post; i++)
        add_lane(r, "post.%d", i, 0);
    int64_t free_at[MAX_LANES] = {0};
    r->jobs = calloc((size_t)n_jobs, sizeof *r->jobs);
    r->n_jobs = (size_t)n_jobs;
    int64_t t_sub = (int64_t)rnd(0, 5000);
    uint64_t id = rnd(0, 1000);
    for (int j = 0; j < n_jobs; j++) {
        t_job *job = &r->jobs[j];
        id += rnd(1, 3);
        job->id = j == n_jobs - 1 && (test_rand64() & 1) ? UINT64_MAX : id; /* the full id range parses */
        job->submit = t_sub;
        add_ev(r, t_sub, CUZK_TLR_JOB_SUBMIT, job->id, -1, -1, -1, -1);
        int64_t first_synth = INT64_MAX, last_fin = 0;
        for (int p = 0; p < n_parts; p++) {
            int sl = synth0 + (int)rnd(0, (uint64_t)n_synth - 1);
            int64_t s = max64(t_sub + (int64_t)rnd(1, 3000), free_at[sl]);
            int64_t e = s + (int64_t)rnd(1, 20000);
            free_at[sl] = e;
            first_synth = s < first_synth ? s : first_synth;
            add_iv(r, K_SYNTH, job->id, p, sl, -1, -1, s, e);
            int64_t q = e + (int64_t)rnd(0, 500);
            add_ev(r, q, CUZK_TLR_GPU_QUEUE, job->id, p, sl, -1, -1);
            int g = (int)rnd(0, (uint64_t)(n_devs * gw) - 1), dev = g / gw, gl = gpu0 + g;
            int64_t w = -1, a;
            if (rnd(0, 3)) {
                w = max64(q + 1, free_at[gl]) + (int64_t)rnd(0, 2000);
                a = w + (int64_t)rnd(1, 3000);
                add_ev(r, w, CUZK_TLR_LOCK_WAIT, job->id, p, gl, dev, -1);
            } else {
                a = max64(q + 1, free_at[gl]) + (int64_t)rnd(0, 3000);
            }
            r->w = grow(r->w, &r->cap_w, r->n_w, sizeof *r->w);
            r->w[r->n_w++] = (t_wait){job->id, p, q, w, a};
            int64_t t = a + (int64_t)rnd(0, 200);
            for (int k = 0; k < n_stages; k++) {
                int64_t ks = t + (int64_t)rnd(0, 300);
                int64_t ke = ks + (int64_t)rnd(1, (uint64_t)max_kernel);
                add_iv(r, K_KERNEL, job->id, p, gl, dev, k, ks, ke);
                t = ke;
            }
            int64_t rel = t + (int64_t)rnd(1, 300);
            add_iv(r, K_LOCK, job->id, p, gl, dev, -1, a, rel);
            free_at[gl] = rel + (int64_t)rnd(0, 4000) * (rnd(0, 3) == 0); /* sometimes an idle stretch */
            int fl = post0 + (int)rnd(0, (uint64_t)n_post - 1);
            int64_t fs = max64(rel + (int64_t)rnd(0, 500), free_at[fl]);
            int64_t fe = fs + (int64_t)rnd(1, 4000);
            free_at[fl] = fe;
            add_iv(r, K_FIN, job->id, p, fl, -1, -1, fs, fe);
            last_fin = fe > last_fin ? fe : last_fin;
        }
        add_ev(r, first_synth, CUZK_TLR_JOB_START, job->id, -1, -1, -1, -1);
        uint64_t o = rnd(0, 9);
        job->outcome = o < 7 ? 0 : o < 9 ? 1 : 2;
        job->t_out = last_fin + (int64_t)rnd(1, 1000);
        static const int out_ev[3] = {CUZK_TLR_DELIVER, CUZK_TLR_JOB_FAIL, CUZK_TLR_JOB_CANCEL};
        int part = job->outcome == 1 && (test_rand64() & 1) ? (int)rnd(0, (uint64_t)n_parts - 1) : -1;
        add_ev(r, job->t_out, out_ev[job->outcome], job->id, part, -1, -1, -1);
        t_sub += (int64_t)rnd(0, 20000);
    }
}

static void free_run(run_t *r)
{
    free(r->iv);
    free(r->w);
    free(r->jobs);
    free(r->ev);
}

/* ---- writing the file ------------------------------------------------------------- */

typedef struct {
    bool shuffle, extras, unknown;
    int64_t cut; /* drop events after this time */
} write_opts;

static int cmp_tev(const void *pa, const void *pb)
{
    const t_ev *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

static void put_line(char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    while (*len + n + 1 > *cap) {
        *cap = *cap ? 2 * *cap : 4096;
        *buf = realloc(*buf, *cap);
        if (!*buf)
            exit(2);
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
}

/* TIMELINE text of the run; lines are written in time order unless shuffled. */
static char *write_text(run_t *r, const write_opts *o, size_t *len_out, size_t *n_unknown)
{
    t_ev *v = malloc(r->n_ev * sizeof *v);
    memcpy(v, r->ev, r->n_ev * sizeof *v);
    qsort(v, r->n_ev, sizeof *v, cmp_tev); /* time order, generation order for equal times */
    if (o->shuffle)
        for (size_t i = r->n_ev; i > 1; i--) {
            size_t j = (size_t)rnd(0, i - 1);
            t_ev x = v[i - 1];
            v[i - 1] = v[j];
            v[j] = x;
        }
    char *buf = NULL, line[512];
    size_t len = 0, cap = 0;
    *n_unknown = 0;
    for (size_t i = 0; i < r->n_ev; i++) {
        const t_ev *e = &v[i];
        if (e->t > o->cut)
            continue;
        if (o->unknown && rnd(0, 20) == 0) {
            snprintf(line, sizeof line, "{\"t_us\":%lld,\"ev\":\"MEMORY_SAMPLE\",\"rss\":12345}\n",
                     (long long)e->t);
            put_line(&buf, &len, &cap, line);
            ++*n_unknown;
        }
        const char *extra = "";
        if (o->extras && rnd(0, 4) == 0)
            extra = rnd(0, 1) ? ",\"note\":{\"a\":[1,2.5,\"x\"],\"b\":null}" : ",\"seq\":-17";
        snprintf(line, sizeof line,
                 "{\"t_us\":%lld,\"ev\":\"%s\",\"job\":%llu,\"part\":%d,\"lane\":\"%s\",\"dev\":%d,\"stage\":"
                 "\"%s\"%s}\n",
                 (long long)e->t, cuzk_tlr_ev_name((cuzk_tlr_ev)e->ev), (unsigned long long)e->job, e->part,
                 e->lane < 0 ? "-" : r->lanes[e->lane], e->dev, e->stage < 0 ? "" : r->stages[e->stage],
                 extra);
        put_line(&buf, &len, &cap, line);
    }
    free(v);
    *len_out = len;
    return buf;
}

/* ---- the oracle -------------------------------------------------------------------- */

typedef struct {
    int64_t *v;
    size_t n, cap;
} samples;

static void push(samples *s, int64_t x)
{
    s->v = grow(s->v, &s->cap, s->n, sizeof *s->v);
    s->v[s->n++] = x;
}

/* Smallest sample that at least p% of the samples do not exceed, by counting. */
static int64_t pct(const samples *s, unsigned p)
{
    int64_t best = INT64_MAX;
    for (size_t i = 0; i < s->n; i++) {
        size_t le = 0;
        for (size_t j = 0; j < s->n; j++)
            le += s->v[j] <= s->v[i];
        if (le * 100 >= p * s->n && s->v[i] < best)
            best = s->v[i];
    }
    return best;
}

static void check_dist(const char *what, const cuzk_tlr_dist *d, const samples *s)
{
    CHECK(d->n == s->n, "%s: n %zu, expected %zu", what, d->n, s->n);
    if (d->n != s->n)
        return;
    if (s->n == 0) {
        CHECK(d->p50_us == 0 && d->max_us == 0 && d->mean_us == 0, "%s: empty distribution is zero", what);
        return;
    }
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    double sum = 0;
    for (size_t i = 0; i < s->n; i++) {
        mn = s->v[i] < mn ? s->v[i] : mn;
        mx = s->v[i] > mx ? s->v[i] : mx;
        sum += (double)s->v[i];
    }
    CHECK(d->min_us == mn, "%s: min %lld, expected %lld", what, (long long)d->min_us, (long long)mn);
    CHECK(d->max_us == mx, "%s: max %lld, expected %lld", what, (long long)d->max_us, (long long)mx);
    CHECK(d->p50_us == pct(s, 50), "%s: p50 %lld, expected %lld", what, (long long)d->p50_us,
          (long long)pct(s, 50));
    CHECK(d->p95_us == pct(s, 95), "%s: p95 %lld, expected %lld", what, (long long)d->p95_us,
          (long long)pct(s, 95));
    CHECK(d->p99_us == pct(s, 99), "%s: p99 %lld, expected %lld", what, (long long)d->p99_us,
          (long long)pct(s, 99));
    double mean = sum / (double)s->n;
    CHECK(d->mean_us > mean - 1e-6 * (1 + mean) && d->mean_us < mean + 1e-6 * (1 + mean),
          "%s: mean %f, expected %f", what, d->mean_us, mean);
}

/* Union, span and gaps of intervals by marking every microsecond [s, e). */
typedef struct {
    size_t n;
    int64_t first, last, busy, gap_total;
    size_t n_gaps;
    int64_t gap_s[5], gap_l[5];
    size_t n_top;
} cover;

static void coverage(const run_t *r, int kind, int dev, int64_t cut, cover *c)
{
    memset(c, 0, sizeof *c);
    c->first = INT64_MAX;
    c->last = INT64_MIN;
    for (size_t i = 0; i < r->n_iv; i++) {
        const t_iv *v = &r->iv[i];
        if (v->kind != kind || v->dev != dev || v->e > cut)
            continue;
        c->n++;
        c->first = v->s < c->first ? v->s : c->first;
        c->last = v->e > c->last ? v->e : c->last;
    }
    if (c->n == 0)
        return;
    size_t span = (size_t)(c->last - c->first);
    unsigned char *m = calloc(span + 1, 1);
    for (size_t i = 0; i < r->n_iv; i++) {
        const t_iv *v = &r->iv[i];
        if (v->kind != kind || v->dev != dev || v->e > cut)
            continue;
        for (int64_t t = v->s; t < v->e; t++)
            m[t - c->first] = 1;
    }
    /* all gaps, then the five longest (ties: earlier start) by repeated selection */
    size_t ng = 0;
    int64_t *gs = malloc((span + 1) * sizeof *gs), *gl = malloc((span + 1) * sizeof *gl);
    for (size_t t = 0; t < span;) {
        if (m[t]) {
            c->busy++;
            t++;
            continue;
        }
        size_t u = t;
        while (u < span && !m[u])
            u++;
        gs[ng] = c->first + (int64_t)t;
        gl[ng++] = (int64_t)(u - t);
        c->gap_total += (int64_t)(u - t);
        t = u;
    }
    c->n_gaps = ng;
    for (int k = 0; k < 5 && (size_t)k < ng; k++) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < ng; i++)
            if (gl[i] >= 0 && (best == SIZE_MAX || gl[i] > gl[best]))
                best = i;
        c->gap_s[k] = gs[best];
        c->gap_l[k] = gl[best];
        gl[best] = -1;
        c->n_top++;
    }
    free(gs);
    free(gl);
    free(m);
}

typedef struct {
    samples synth, fin, lock_held, lock_wait, queue, latency, kernel[MAX_STAGES];
    size_t open_synth, open_kernel, open_fin, open_lock, open_wait, open_queue;
    size_t submitted, delivered, failed, cancelled, unfinished;
    int64_t first_submit, first_deliver, last_deliver;
    int64_t t_first, t_last;
    size_t n_draw; /* synthesis + kernel + finalize intervals complete by the cut */
    size_t n_lock;
} oracle;

static void make_oracle(const run_t *r, int64_t cut, oracle *o)
{
    memset(o, 0, sizeof *o);
    for (size_t i = 0; i < r->n_iv; i++) {
        const t_iv *v = &r->iv[i];
        bool done = v->e <= cut, open = v->s <= cut && v->e > cut;
        samples *s = v->kind == K_SYNTH  ? &o->synth
                     : v->kind == K_FIN  ? &o->fin
                     : v->kind == K_LOCK ? &o->lock_held
                                         : &o->kernel[v->stage];
        if (done)
            push(s, v->e - v->s);
        size_t *op = v->kind == K_SYNTH  ? &o->open_synth
                     : v->kind == K_FIN  ? &o->open_fin
                     : v->kind == K_LOCK ? &o->open_lock
                                         : &o->open_kernel;
        *op += open;
        if (done && v->kind != K_LOCK)
            o->n_draw++;
        o->n_lock += done && v->kind == K_LOCK;
    }
    for (size_t i = 0; i < r->n_w; i++) {
        const t_wait *w = &r->w[i];
        int64_t pick = w->w >= 0 ? w->w : w->a;
        if (w->q <= cut && pick <= cut)
            push(&o->queue, pick - w->q);
        o->open_queue += w->q <= cut && pick > cut;
        if (w->w >= 0 && w->a <= cut)
            push(&o->lock_wait, w->a - w->w);
        o->open_wait += w->w >= 0 && w->w <= cut && w->a > cut;
    }
    o->first_submit = INT64_MAX;
    o->first_deliver = INT64_MAX;
    o->last_deliver = INT64_MIN;
    for (size_t j = 0; j < r->n_jobs; j++) {
        const t_job *jb = &r->jobs[j];
        if (jb->submit > cut)
            continue;
        o->submitted++;
        o->first_submit = jb->submit < o->first_submit ? jb->submit : o->first_submit;
        bool fin = jb->t_out <= cut;
        if (!fin) {
            o->unfinished++;
            continue;
        }
        if (jb->outcome == 1)
            o->failed++;
        else if (jb->outcome == 2)
            o->cancelled++;
        else {
            o->delivered++;
            push(&o->latency, jb->t_out - jb->submit);
            o->first_deliver = jb->t_out < o->first_deliver ? jb->t_out : o->first_deliver;
            o->last_deliver = jb->t_out > o->last_deliver ? jb->t_out : o->last_deliver;
        }
    }
    o->t_first = INT64_MAX;
    o->t_last = INT64_MIN;
    for (size_t i = 0; i < r->n_ev; i++)
        if (r->ev[i].t <= cut) {
            o->t_first = r->ev[i].t < o->t_first ? r->ev[i].t : o->t_first;
            o->t_last = r->ev[i].t > o->t_last ? r->ev[i].t : o->t_last;
        }
}

static void free_oracle(oracle *o)
{
    free(o->synth.v);
    free(o->fin.v);
    free(o->lock_held.v);
    free(o->lock_wait.v);
    free(o->queue.v);
    free(o->latency.v);
    for (int k = 0; k < MAX_STAGES; k++)
        free(o->kernel[k].v);
}

static bool near(double a, double b)
{
    return a > b - 1e-9 * (1 + b) && a < b + 1e-9 * (1 + b);
}

/* Every statistic of st against the oracle built from the run's truth. */
static void check_stats(const char *what, const run_t *r, int64_t cut, const cuzk_tlr_log *log,
                        const cuzk_tlr_stats *st)
{
    oracle o;
    make_oracle(r, cut, &o);
    CHECK(st->t_first_us == o.t_first && st->t_last_us == o.t_last, "%s: event range", what);
    CHECK(st->jobs_submitted == o.submitted, "%s: submitted %zu, expected %zu", what, st->jobs_submitted,
          o.submitted);
    CHECK(st->jobs_seen == o.submitted, "%s: jobs seen %zu, expected %zu", what, st->jobs_seen, o.submitted);
    CHECK(st->delivered == o.delivered, "%s: delivered %zu, expected %zu", what, st->delivered, o.delivered);
    CHECK(st->failed == o.failed, "%s: failed %zu, expected %zu", what, st->failed, o.failed);
    CHECK(st->cancelled == o.cancelled, "%s: cancelled %zu, expected %zu", what, st->cancelled, o.cancelled);
    CHECK(st->unfinished == o.unfinished, "%s: unfinished %zu, expected %zu", what, st->unfinished,
          o.unfinished);
    CHECK(st->has_steady == (o.delivered >= 2), "%s: steady throughput presence", what);
    if (o.delivered >= 2 && st->has_steady) {
        double want = (double)(o.last_deliver - o.first_deliver) / 1e6 / (double)(o.delivered - 1);
        CHECK(near(st->steady_s_per_proof, want), "%s: steady %.9f s/proof, expected %.9f", what,
              st->steady_s_per_proof, want);
    }
    CHECK(st->has_overall == (o.delivered >= 1), "%s: overall throughput presence", what);
    if (o.delivered >= 1 && st->has_overall) {
        double want = (double)(o.last_deliver - o.first_submit) / 1e6 / (double)o.delivered;
        CHECK(near(st->overall_s_per_proof, want), "%s: overall %.9f s/proof, expected %.9f", what,
              st->overall_s_per_proof, want);
    }
    char name[96];
    snprintf(name, sizeof name, "%s: latency", what);
    check_dist(name, &st->latency, &o.latency);
    snprintf(name, sizeof name, "%s: synthesis", what);
    check_dist(name, &st->synth, &o.synth);
    snprintf(name, sizeof name, "%s: finalize", what);
    check_dist(name, &st->finalize, &o.fin);
    snprintf(name, sizeof name, "%s: lock held", what);
    check_dist(name, &st->lock_held, &o.lock_held);
    snprintf(name, sizeof name, "%s: lock wait", what);
    check_dist(name, &st->lock_wait, &o.lock_wait);
    snprintf(name, sizeof name, "%s: gpu queue", what);
    check_dist(name, &st->queue, &o.queue);
    int want_stages = 0;
    for (int k = 0; k < r->n_stages; k++) {
        want_stages += o.kernel[k].n > 0;
        const cuzk_tlr_kernel_stage *ks = NULL;
        for (size_t i = 0; i < st->n_kernel_stages; i++)
            if (strcmp(log->stages[st->kernels[i].stage], r->stages[k]) == 0)
                ks = &st->kernels[i];
        snprintf(name, sizeof name, "%s: kernel %s", what, r->stages[k]);
        if (o.kernel[k].n == 0) {
            CHECK(ks == NULL, "%s: listed without intervals", name);
            continue;
        }
        CHECK(ks != NULL, "%s: missing", name);
        if (ks)
            check_dist(name, &ks->d, &o.kernel[k]);
    }
    CHECK(st->n_kernel_stages == (size_t)want_stages, "%s: %zu kernel stages, expected %d", what,
          st->n_kernel_stages, want_stages);

    size_t want_devs = 0;
    int64_t sum_busy = 0; /* kernel unions of every device, from the oracle's coverage */
    for (int d = 0; d < r->n_devs; d++) {
        cover kc, lc;
        coverage(r, K_KERNEL, d, cut, &kc);
        coverage(r, K_LOCK, d, cut, &lc);
        if (kc.n == 0 && lc.n == 0)
            continue;
        want_devs++;
        const cuzk_tlr_device *dv = NULL;
        for (size_t i = 0; i < st->n_devices; i++)
            if (st->devices[i].dev == d)
                dv = &st->devices[i];
        CHECK(dv != NULL, "%s: device %d missing", what, d);
        if (!dv)
            continue;
        CHECK(dv->n_kernels == kc.n, "%s: dev %d kernels %zu, expected %zu", what, d, dv->n_kernels, kc.n);
        sum_busy += kc.n ? kc.busy : 0;
        CHECK(dv->n_locks == lc.n, "%s: dev %d locks %zu, expected %zu", what, d, dv->n_locks, lc.n);
        if (kc.n) {
            CHECK(dv->kernel_first_us == kc.first && dv->kernel_last_us == kc.last, "%s: dev %d kernel span",
                  what, d);
            CHECK(dv->kernel_busy_us == kc.busy, "%s: dev %d kernel union %lld, expected %lld", what, d,
                  (long long)dv->kernel_busy_us, (long long)kc.busy);
            double util = kc.last > kc.first ? (double)kc.busy / (double)(kc.last - kc.first) : 0;
            CHECK(near(dv->kernel_util, util), "%s: dev %d kernel util %f, expected %f", what, d,
                  dv->kernel_util, util);
            CHECK(dv->n_gaps == kc.n_gaps, "%s: dev %d gaps %zu, expected %zu", what, d, dv->n_gaps,
                  kc.n_gaps);
            CHECK(dv->gap_total_us == kc.gap_total, "%s: dev %d gap total %lld, expected %lld", what, d,
                  (long long)dv->gap_total_us, (long long)kc.gap_total);
            CHECK(dv->n_top == kc.n_top, "%s: dev %d top gaps %zu, expected %zu", what, d, dv->n_top,
                  kc.n_top);
            for (size_t g = 0; g < kc.n_top && g < dv->n_top; g++)
                CHECK(dv->top_gaps[g].start_us == kc.gap_s[g] && dv->top_gaps[g].len_us == kc.gap_l[g],
                      "%s: dev %d gap %zu = %lld+%lld, expected %lld+%lld", what, d, g,
                      (long long)dv->top_gaps[g].start_us, (long long)dv->top_gaps[g].len_us,
                      (long long)kc.gap_s[g], (long long)kc.gap_l[g]);
        }
        if (lc.n) {
            CHECK(dv->lock_busy_us == lc.busy, "%s: dev %d lock union %lld, expected %lld", what, d,
                  (long long)dv->lock_busy_us, (long long)lc.busy);
            double util = lc.last > lc.first ? (double)lc.busy / (double)(lc.last - lc.first) : 0;
            CHECK(near(dv->lock_util, util), "%s: dev %d lock util %f, expected %f", what, d, dv->lock_util,
                  util);
        }
    }
    CHECK(st->n_devices == want_devs, "%s: %zu devices, expected %zu", what, st->n_devices, want_devs);
    /* kernel time per proof: every device's kernel union over the delivered proofs */
    bool want_kt = o.delivered >= 1 && sum_busy > 0;
    CHECK(st->has_kernel_time == want_kt, "%s: kernel time presence %d, expected %d", what,
          st->has_kernel_time, (int)want_kt);
    if (want_kt) {
        double want = (double)sum_busy / 1e6 / (double)o.delivered;
        CHECK(near(st->kernel_s_per_proof, want), "%s: kernel time %.9f s/proof, expected %.9f", what,
              st->kernel_s_per_proof, want);
    }
    CHECK(st->n_intervals == o.n_draw + o.n_lock, "%s: %zu intervals, expected %zu", what, st->n_intervals,
          o.n_draw + o.n_lock);

    const cuzk_tlr_warnings *w = &st->warn;
    CHECK(w->synth_open == o.open_synth, "%s: open synthesis %zu, expected %zu", what, w->synth_open,
          o.open_synth);
    CHECK(w->kernel_open == o.open_kernel, "%s: open kernels %zu, expected %zu", what, w->kernel_open,
          o.open_kernel);
    CHECK(w->finalize_open == o.open_fin, "%s: open finalize %zu, expected %zu", what, w->finalize_open,
          o.open_fin);
    CHECK(w->lock_open == o.open_lock, "%s: open locks %zu, expected %zu", what, w->lock_open, o.open_lock);
    CHECK(w->lock_wait_open == o.open_wait, "%s: open lock waits %zu, expected %zu", what, w->lock_wait_open,
          o.open_wait);
    CHECK(w->queue_open == o.open_queue, "%s: open queue %zu, expected %zu", what, w->queue_open,
          o.open_queue);
    CHECK(w->synth_orphan_end + w->kernel_orphan_end + w->finalize_orphan_end + w->lock_orphan_rel +
                  w->deliver_no_submit ==
              0,
          "%s: no orphan ends", what);
    free_oracle(&o);
}

/* ---- the printed report -------------------------------------------------------------- */

static const char *ms_str(char buf[32], int64_t us)
{
    snprintf(buf, 32, "%lld.%03lld", (long long)(us / 1000), (long long)(us % 1000));
    return buf;
}

/* The line of text starting with prefix (after leading spaces), or NULL. */
static const char *find_line(const char *text, const char *prefix)
{
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *p = l;
        while (*p == ' ')
            p++;
        if (strncmp(p, prefix, strlen(prefix)) == 0)
            return p + strlen(prefix);
    }
    return NULL;
}

static void check_printed(const char *what, const run_t *r, int64_t cut, const char *text)
{
    oracle o;
    make_oracle(r, cut, &o);
    char a[32], b[32], c[32];
    const char *l;
    size_t n = 0;
    l = find_line(text, "delivered ");
    CHECK(l && sscanf(l, "%zu", &n) == 1 && n == o.delivered, "%s: printed delivered", what);
    l = find_line(text, "failed ");
    CHECK(l && sscanf(l, "%zu", &n) == 1 && n == o.failed, "%s: printed failed", what);
    l = find_line(text, "cancelled ");
    CHECK(l && sscanf(l, "%zu", &n) == 1 && n == o.cancelled, "%s: printed cancelled", what);
    l = find_line(text, "steady state ");
    if (o.delivered >= 2) {
        double v = 0, want = (double)(o.last_deliver - o.first_deliver) / 1e6 / (double)(o.delivered - 1);
        CHECK(l && sscanf(l, "%lf", &v) == 1 && v > want - 0.0006 && v < want + 0.0006,
              "%s: printed steady state %f, expected %f", what, v, want);
    } else {
        CHECK(l && strstr(l, "n/a"), "%s: steady state n/a", what);
    }
    l = find_line(text, "deliver - submit ");
    char p50[32], p95[32], p99[32], mx[32];
    CHECK(l && sscanf(l, "%zu %*s %31s %31s %31s %31s", &n, p50, p95, p99, mx) == 5, "%s: latency line",
          what);
    if (l && o.latency.n)
        CHECK(n == o.latency.n && strcmp(p50, ms_str(a, pct(&o.latency, 50))) == 0 &&
                  strcmp(p99, ms_str(b, pct(&o.latency, 99))) == 0,
              "%s: printed latency %s %s", what, p50, p99);
    for (int k = 0; k < r->n_stages; k++) {
        char key[64];
        snprintf(key, sizeof key, "kernel %s ", r->stages[k]);
        l = find_line(text, key);
        if (o.kernel[k].n == 0) {
            CHECK(l == NULL, "%s: %s printed without intervals", what, key);
            continue;
        }
        CHECK(l && sscanf(l, "%zu %*s %31s %31s %31s", &n, p50, p95, mx) == 4, "%s: %s line", what, key);
        if (l)
            CHECK(n == o.kernel[k].n && strcmp(p50, ms_str(a, pct(&o.kernel[k], 50))) == 0 &&
                      strcmp(p95, ms_str(b, pct(&o.kernel[k], 95))) == 0 &&
                      strcmp(mx, ms_str(c, pct(&o.kernel[k], 100))) == 0,
                  "%s: printed %s%zu %s %s %s", what, key, n, p50, p95, mx);
    }
    int64_t sum_busy = 0;
    for (int d = 0; d < r->n_devs; d++) {
        cover kc;
        coverage(r, K_KERNEL, d, cut, &kc);
        if (kc.n == 0)
            continue;
        sum_busy += kc.busy;
        char key[32], util[32], want[32];
        snprintf(key, sizeof key, "dev %d ", d);
        l = find_line(text, key);
        snprintf(want, sizeof want, "%.2f%%",
                 100.0 * (kc.last > kc.first ? (double)kc.busy / (double)(kc.last - kc.first) : 0));
        CHECK(l && sscanf(l, "%zu %*s %*s %31s", &n, util) == 2 && n == kc.n && strcmp(util, want) == 0,
              "%s: printed dev %d utilization %s, expected %s", what, d, l ? util : "-", want);
    }
    l = find_line(text, "kernel time ");
    if (o.delivered >= 1 && sum_busy > 0) {
        double v = 0, want = (double)sum_busy / 1e6 / (double)o.delivered;
        CHECK(l && sscanf(l, "%lf", &v) == 1 && v > want - 0.0006 && v < want + 0.0006,
              "%s: printed kernel time %f, expected %f", what, v, want);
    } else {
        CHECK(l == NULL, "%s: a kernel time line without kernels or deliveries", what);
    }
    bool any_warn = o.open_synth + o.open_kernel + o.open_fin + o.open_lock + o.open_wait + o.open_queue > 0;
    l = find_line(text, "KERNEL_START without KERNEL_END ");
    CHECK(o.open_kernel ? l && sscanf(l, "%zu", &n) == 1 && n == o.open_kernel : l == NULL,
          "%s: printed open kernel warning", what);
    CHECK((find_line(text, "none") != NULL) == !any_warn, "%s: warnings section", what);
    free_oracle(&o);
}

/* ---- the SVG checker ------------------------------------------------------------------ */

typedef struct {
    bool ok;
    char why[128];
    size_t n_iv, n_lk, n_dm, n_title_iv;
    char **lane_labels;
    size_t n_lane_labels;
    char **titles; /* tooltip texts of iv rects */
    double *x, *w; /* geometry of iv rects */
} svg_info;

static char *attr(const char *tag, size_t len, const char *name)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i + nl + 2 < len; i++)
        if ((i == 0 || tag[i - 1] == ' ') && strncmp(tag + i, name, nl) == 0 && tag[i + nl] == '=' &&
            tag[i + nl + 1] == '"') {
            const char *s = tag + i + nl + 2, *e = memchr(s, '"', len - (size_t)(s - tag));
            return e ? strndup(s, (size_t)(e - s)) : NULL;
        }
    return NULL;
}

static void unescape(char *s)
{
    static const char *ent[][2] = {
        {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}};
    char *o = s;
    while (*s) {
        int k = -1;
        for (int i = 0; i < 5; i++)
            if (strncmp(s, ent[i][0], strlen(ent[i][0])) == 0)
                k = i;
        if (k >= 0) {
            *o++ = ent[k][1][0];
            s += strlen(ent[k][0]);
        } else {
            *o++ = *s++;
        }
    }
    *o = 0;
}

/* Walks the tags: nesting must balance, exactly one root <svg>, no text outside it, no raw '<' or '&' in text
 * other than entities. Collects what the tests compare. */
static void svg_parse(const char *s, svg_info *in)
{
    memset(in, 0, sizeof *in);
    in->ok = true;
    char *stack[64];
    int depth = 0, roots = 0;
    bool in_iv = false, want_title = false;
    size_t cap = 0, cap_l = 0;
    const char *p = s;
#define FAIL(...)                                                                                            \
    do {                                                                                                     \
        in->ok = false;                                                                                      \
        snprintf(in->why, sizeof in->why, __VA_ARGS__);                                                      \
        goto done;                                                                                           \
    } while (0)
    while (*p) {
        const char *lt = strchr(p, '<');
        const char *text_end = lt ? lt : p + strlen(p);
        for (const char *t = p; t < text_end; t++) {
            if (depth == 0 && !strchr(" \n\r\t", *t))
                FAIL("text outside the root at byte %zu", (size_t)(t - s));
            if (*t == '>')
                FAIL("raw '>' in text at byte %zu", (size_t)(t - s));
            if (*t == '&') {
                const char *semi = strchr(t, ';');
                if (!semi || semi - t > 6)
                    FAIL("raw '&' at byte %zu", (size_t)(t - s));
            }
        }
        if (!lt)
            break;
        if (strncmp(lt, "<?", 2) == 0) {
            const char *e = strstr(lt, "?>");
            if (!e || lt != s)
                FAIL("bad or misplaced declaration");
            p = e + 2;
            continue;
        }
        const char *gt = strchr(lt, '>');
        if (!gt)
            FAIL("unterminated tag at byte %zu", (size_t)(lt - s));
        if (memchr(lt + 1, '<', (size_t)(gt - lt - 1)))
            FAIL("'<' inside a tag at byte %zu", (size_t)(lt - s));
        size_t len = (size_t)(gt - lt + 1);
        if (lt[1] == '/') {
            size_t nl = strcspn(lt + 2, " >");
            if (depth == 0 || strlen(stack[depth - 1]) != nl || strncmp(stack[depth - 1], lt + 2, nl) != 0)
                FAIL("closing </%.*s> does not match", (int)nl, lt + 2);
            if (strcmp(stack[depth - 1], "rect") == 0)
                in_iv = false;
            free(stack[--depth]);
            p = gt + 1;
            continue;
        }
        size_t nl = strcspn(lt + 1, " />");
        char *name = strndup(lt + 1, nl);
        bool self = gt[-1] == '/';
        if (depth == 0) {
            roots++;
            if (strcmp(name, "svg") != 0 || roots > 1) {
                free(name);
                FAIL("root element is not a single <svg>");
            }
            char *ns = attr(lt, len, "xmlns");
            bool good = ns && strcmp(ns, "http://www.w3.org/2000/svg") == 0;
            free(ns);
            if (!good) {
                free(name);
                FAIL("svg without the SVG namespace");
            }
        }
        if (want_title &&
            !(strcmp(name, "title") == 0 && depth > 0 && strcmp(stack[depth - 1], "rect") == 0)) {
            free(name);
            FAIL("interval rect without a leading <title>");
        }
        if (strcmp(name, "rect") == 0) {
            char *cls = attr(lt, len, "class");
            if (cls && strncmp(cls, "iv ", 3) == 0) {
                in->n_iv++;
                in_iv = true;
                want_title = !self;
                if (self) {
                    free(cls);
                    free(name);
                    FAIL("interval rect without a title");
                }
                if (in->n_iv > cap) {
                    cap = 2 * in->n_iv;
                    in->x = realloc(in->x, cap * sizeof *in->x);
                    in->w = realloc(in->w, cap * sizeof *in->w);
                }
                char *xs = attr(lt, len, "x"), *ws = attr(lt, len, "width");
                in->x[in->n_iv - 1] = xs ? atof(xs) : -1;
                in->w[in->n_iv - 1] = ws ? atof(ws) : -1;
                free(xs);
                free(ws);
            }
            in->n_lk += cls && strcmp(cls, "lk") == 0;
            free(cls);
        } else if (strcmp(name, "path") == 0) {
            char *cls = attr(lt, len, "class");
            in->n_dm += cls && strcmp(cls, "dm") == 0;
            free(cls);
        } else if (strcmp(name, "title") == 0 && in_iv) {
            want_title = false;
            const char *end = strstr(gt + 1, "</title>");
            if (end) {
                in->titles = grow(in->titles, &cap_l, in->n_title_iv, sizeof *in->titles);
                in->titles[in->n_title_iv] = strndup(gt + 1, (size_t)(end - gt - 1));
                unescape(in->titles[in->n_title_iv++]);
            }
        } else if (strcmp(name, "text") == 0) {
            char *cls = attr(lt, len, "class");
            if (cls && strcmp(cls, "lane") == 0) {
                const char *end = strstr(gt + 1, "</text>");
                if (end) {
                    in->lane_labels =
                        realloc(in->lane_labels, (in->n_lane_labels + 1) * sizeof *in->lane_labels);
                    in->lane_labels[in->n_lane_labels] = strndup(gt + 1, (size_t)(end - gt - 1));
                    unescape(in->lane_labels[in->n_lane_labels++]);
                }
            }
            free(cls);
        }
        if (self) {
            free(name);
        } else {
            if (depth == 64) {
                free(name);
                FAIL("nesting too deep");
            }
            stack[depth++] = name;
        }
        p = gt + 1;
    }
    if (depth != 0)
        FAIL("%d elements left open", depth);
    if (roots != 1)
        FAIL("no root element");
done:
    while (depth > 0)
        free(stack[--depth]);
#undef FAIL
}

static void svg_free(svg_info *in)
{
    for (size_t i = 0; i < in->n_lane_labels; i++)
        free(in->lane_labels[i]);
    for (size_t i = 0; i < in->n_title_iv; i++)
        free(in->titles[i]);
    free(in->lane_labels);
    free(in->titles);
    free(in->x);
    free(in->w);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *s_str(char buf[32], int64_t us)
{
    int64_t ms = (us + 500) / 1000;
    snprintf(buf, 32, "%lld.%03lld", (long long)(ms / 1000), (long long)(ms % 1000));
    return buf;
}

static void check_svg(const char *what, const run_t *r, int64_t cut, const char *path)
{
    size_t len;
    char *text = test_read_file(path, &len);
    CHECK(text != NULL, "%s: svg readable", what);
    if (!text)
        return;
    svg_info in;
    svg_parse(text, &in);
    CHECK(in.ok, "%s: svg well-formed: %s", what, in.why);
    oracle o;
    make_oracle(r, cut, &o);
    CHECK(in.n_iv == o.n_draw, "%s: %zu interval rects, expected %zu", what, in.n_iv, o.n_draw);
    CHECK(in.n_lk == o.n_lock, "%s: %zu lock rects, expected %zu", what, in.n_lk, o.n_lock);
    CHECK(in.n_dm == o.delivered, "%s: %zu deliver markers, expected %zu", what, in.n_dm, o.delivered);
    CHECK(in.n_title_iv == in.n_iv, "%s: every interval has a tooltip", what);

    /* tooltips: the multiset of expected texts */
    char **want = calloc(o.n_draw + 1, sizeof *want);
    size_t nw = 0;
    bool lane_used[MAX_LANES] = {false};
    int64_t t0 = o.t_first, best_lo = INT64_MAX;
    for (size_t i = 0; i < r->n_iv; i++) {
        const t_iv *v = &r->iv[i];
        if (v->kind == K_LOCK || v->e > cut)
            continue;
        char a[32], b[32], c[32], buf[256];
        snprintf(buf, sizeof buf, "job %llu part %d %s%s%s on %s: %s ms (%s s to %s s)",
                 (unsigned long long)v->job, v->part,
                 v->kind == K_SYNTH ? "synthesis"
                 : v->kind == K_FIN ? "finalize"
                                    : "kernel",
                 v->kind == K_KERNEL ? " " : "", v->kind == K_KERNEL ? r->stages[v->stage] : "",
                 r->lanes[v->lane], ms_str(a, v->e - v->s), s_str(b, v->s), s_str(c, v->e));
        want[nw++] = strdup(buf);
        lane_used[v->lane] = true;
        best_lo = v->s < best_lo ? v->s : best_lo;
    }
    if (in.n_title_iv == nw && in.ok) {
        char **got = malloc((nw + 1) * sizeof *got);
        if (nw)
            memcpy(got, in.titles, nw * sizeof *got);
        qsort(got, nw, sizeof *got, cmp_str);
        qsort(want, nw, sizeof *want, cmp_str);
        size_t bad = 0, first_bad = 0;
        for (size_t i = 0; i < nw; i++)
            if (strcmp(got[i], want[i]) != 0 && bad++ == 0)
                first_bad = i;
        CHECK(bad == 0, "%s: %zu tooltips differ, e.g. \"%s\" vs \"%s\"", what, bad, nw ? got[first_bad] : "",
              nw ? want[first_bad] : "");
        free(got);

        /* geometry: docs/timeline.md fixes the scale (40 px per second of the file's event range, the plot
         * clamped to 1000..20000 px). The widest rect must agree with it (its tooltip has the exact
         * duration); the leftmost rect fixes the origin; then each rect's x must match the start in its own
         * tooltip (given to the millisecond) and its width the duration (given to the microsecond). */
        double span = (double)(o.t_last > o.t_first ? o.t_last - o.t_first : 1);
        double plot = span / 1e6 * 40.0;
        plot = plot < 1000 ? 1000 : plot > 20000 ? 20000 : plot;
        double scale = plot / span, xmin = 1e300, wmax = 0, wdur = 0;
        for (size_t i = 0; i < in.n_iv; i++) {
            xmin = in.x[i] < xmin ? in.x[i] : xmin;
            const char *colon = strstr(in.titles[i], ": ");
            if (in.w[i] > wmax && colon) {
                wmax = in.w[i];
                wdur = atof(colon + 2) * 1000;
            }
        }
        if (nw > 0) {
            if (wmax > 50)
                CHECK(wmax / wdur > scale * 0.999 && wmax / wdur < scale * 1.001,
                      "%s: widest rect %f px for %f us, expected %g px/us", what, wmax, wdur, scale);
            double x0 = xmin - (double)(best_lo - t0) * scale;
            CHECK(x0 > 50 && x0 < 300, "%s: time axis origin %f", what, x0);
            size_t off = 0;
            for (size_t i = 0; i < in.n_iv; i++) {
                const char *pp = strstr(in.titles[i], "(");
                double ss = pp ? atof(pp + 1) : -1;
                double xs = x0 + (ss * 1e6 - (double)t0) * scale;
                if (in.x[i] < xs - 500 * scale - 0.02 || in.x[i] > xs + 500 * scale + 0.02)
                    off++;
                const char *colon = strstr(in.titles[i], ": ");
                double wexp = (colon ? atof(colon + 2) : -1) * 1000 * scale;
                wexp = wexp < 0.5 ? 0.5 : wexp;
                if (in.w[i] < wexp - 0.02 || in.w[i] > wexp + 0.02)
                    off++;
            }
            CHECK(off == 0, "%s: %zu rect positions or widths off the time scale", what, off);
        }
    }
    for (size_t i = 0; i < nw; i++)
        free(want[i]);
    free(want);

    /* lanes: exactly the workers that carry intervals, each once, synthesis, then GPU, then post */
    size_t n_used = 0;
    for (int l = 0; l < r->n_lanes; l++)
        n_used += lane_used[l];
    CHECK(in.n_lane_labels == n_used, "%s: %zu lane labels, expected %zu", what, in.n_lane_labels, n_used);
    int last_group = -1;
    bool order_ok = true;
    for (size_t i = 0; i < in.n_lane_labels; i++) {
        const char *nm = in.lane_labels[i];
        int found = -1;
        for (int l = 0; l < r->n_lanes; l++)
            if (strcmp(r->lanes[l], nm) == 0)
                found = l;
        CHECK(found >= 0 && lane_used[found], "%s: lane label \"%s\" is a worker with intervals", what, nm);
        int g = strncmp(nm, "synth", 5) == 0 ? 0 : strncmp(nm, "gpu", 3) == 0 ? 1 : 2;
        order_ok &= g >= last_group;
        last_group = g;
    }
    CHECK(order_ok, "%s: lanes grouped synthesis, gpu, post", what);
    svg_free(&in);
    free_oracle(&o);
    free(text);
}

/* ---- scenarios ------------------------------------------------------------------------ */

static char tmpdir[] = "/tmp/cuzk_tlr_XXXXXX";

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
}

/* No stray temporary files in the test directory. */
/* Removes whatever a failing check left in the test directory, then the directory. */
static void remove_tmpdir(void)
{
    test_dir_clear(tmpdir);
    rmdir(tmpdir);
}

/* One generated run through every layer: parse, analyze, print, SVG, and the one-call report. */
static void scenario(const char *what, run_t *r, write_opts o)
{
    size_t len, n_unknown;
    char *text = write_text(r, &o, &len, &n_unknown);
    cuzk_tlr_log *log = NULL;
    cuzk_tlr_stats *st = NULL;
    char err[256] = "";
    int rc = cuzk_tlr_parse(text, len, &log, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: parse: %s", what, err);
    if (rc) {
        free(text);
        return;
    }
    CHECK(log->n_unknown == n_unknown, "%s: unknown events %zu, expected %zu", what, log->n_unknown,
          n_unknown);
    rc = cuzk_tlr_analyze(log, &st, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: analyze: %s", what, err);
    if (rc == CUZK_OK) {
        check_stats(what, r, o.cut, log, st);
        char *out = NULL;
        size_t olen = 0;
        FILE *mf = open_memstream(&out, &olen);
        rc = cuzk_tlr_print(mf, what, log, st, err, sizeof err);
        fclose(mf);
        CHECK(rc == CUZK_OK, "%s: print: %s", what, err);
        check_printed(what, r, o.cut, out);
        free(out);
    }
    cuzk_tlr_stats_free(st);
    cuzk_tlr_log_free(log);

    /* the one-call report, through files */
    char in_path[256], svg_path[256];
    snprintf(in_path, sizeof in_path, "%s/run.jsonl", tmpdir);
    snprintf(svg_path, sizeof svg_path, "%s/run.svg", tmpdir);
    write_file(in_path, text, len);
    char *out = NULL;
    size_t olen = 0;
    FILE *mf = open_memstream(&out, &olen);
    rc = cuzk_timeline_report(in_path, mf, svg_path, err, sizeof err);
    fclose(mf);
    CHECK(rc == CUZK_OK, "%s: report: %s", what, err);
    CHECK(out && strstr(out, "timeline report: ") == out && strstr(out, in_path), "%s: report header", what);
    if (rc == CUZK_OK)
        check_svg(what, r, o.cut, svg_path);
    CHECK(test_dir_count(tmpdir, ".tmp.") == 0, "%s: no temporary file left", what);
    unlink(svg_path);
    unlink(in_path);
    free(out);
    free(text);
}

static void test_generated(void)
{
    for (int iter = 0; iter < 12; iter++) {
        run_t r;
        int devs = (int)rnd(1, 2), gw = (int)rnd(1, 3);
        gen_run(&r, (int)rnd(1, 7), (int)rnd(1, 6), (int)rnd(1, 5), devs, gw, (int)rnd(1, 4), (int)rnd(1, 3),
                (int64_t)rnd(2, 6000));
        char what[64];
        snprintf(what, sizeof what, "run %d", iter);
        scenario(what, &r, (write_opts){false, false, false, INT64_MAX});
        snprintf(what, sizeof what, "run %d shuffled+extras", iter);
        scenario(what, &r, (write_opts){true, true, true, INT64_MAX});
        int64_t lo = INT64_MAX, hi = 0;
        for (size_t i = 0; i < r.n_ev; i++) {
            lo = r.ev[i].t < lo ? r.ev[i].t : lo;
            hi = r.ev[i].t > hi ? r.ev[i].t : hi;
        }
        for (int c = 0; c < 3; c++) {
            snprintf(what, sizeof what, "run %d cut %d", iter, c);
            scenario(what, &r,
                     (write_opts){c == 2, c == 1, c == 1, (int64_t)rnd((uint64_t)lo, (uint64_t)hi)});
        }
        free_run(&r);
    }
}

/* Overlapping kernels of two workers on one device count once (worked by hand: [100,300] and [200,400] cover
 * 300 us, then [500,600] 100 more; span 100..600 = 500; one 100 us gap at 400). Zero-length and touching
 * intervals add nothing and open no gap. */
static void test_overlap_by_hand(void)
{
    const char *t = "{\"t_us\":100,\"ev\":\"KERNEL_START\",\"job\":1,\"part\":0,\"lane\":\"gpu0.0\",\"dev\":"
                    "0,\"stage\":\"msm\"}\n"
                    "{\"t_us\":200,\"ev\":\"KERNEL_START\",\"job\":2,\"part\":0,\"lane\":\"gpu0.1\",\"dev\":"
                    "0,\"stage\":\"msm\"}\n"
                    "{\"t_us\":300,\"ev\":\"KERNEL_END\",\"job\":1,\"part\":0,\"lane\":\"gpu0.0\",\"dev\":0,"
                    "\"stage\":\"msm\"}\n"
                    "{\"t_us\":400,\"ev\":\"KERNEL_END\",\"job\":2,\"part\":0,\"lane\":\"gpu0.1\",\"dev\":0,"
                    "\"stage\":\"msm\"}\n"
                    "{\"t_us\":400,\"ev\":\"KERNEL_START\",\"job\":2,\"part\":0,\"lane\":\"gpu0.1\",\"dev\":"
                    "0,\"stage\":\"z\"}\n"
                    "{\"t_us\":400,\"ev\":\"KERNEL_END\",\"job\":2,\"part\":0,\"lane\":\"gpu0.1\",\"dev\":0,"
                    "\"stage\":\"z\"}\n"
                    "{\"t_us\":500,\"ev\":\"KERNEL_START\",\"job\":1,\"part\":1,\"lane\":\"gpu0.0\",\"dev\":"
                    "0,\"stage\":\"msm\"}\n"
                    "{\"t_us\":600,\"ev\":\"KERNEL_END\",\"job\":1,\"part\":1,\"lane\":\"gpu0.0\",\"dev\":0,"
                    "\"stage\":\"msm\"}\n"
                    "{\"t_us\":50,\"ev\":\"KERNEL_END\",\"job\":9,\"part\":0,\"lane\":\"gpu0.0\",\"dev\":0,"
                    "\"stage\":\"msm\"}\n"
                    "{\"t_us\":700,\"ev\":\"SYNTH_START\",\"job\":3,\"part\":0,\"lane\":\"synth.0\",\"dev\":-"
                    "1,\"stage\":\"\"}\n";
    cuzk_tlr_log *log = NULL;
    cuzk_tlr_stats *st = NULL;
    char err[256] = "";
    int rc = cuzk_tlr_parse(t, strlen(t), &log, err, sizeof err);
    CHECK(rc == CUZK_OK, "hand: parse: %s", err);
    if (rc)
        return;
    rc = cuzk_tlr_analyze(log, &st, err, sizeof err);
    CHECK(rc == CUZK_OK && st->n_devices == 1, "hand: one device");
    if (rc == CUZK_OK && st->n_devices == 1) {
        const cuzk_tlr_device *d = &st->devices[0];
        CHECK(d->kernel_busy_us == 400 && d->kernel_first_us == 100 && d->kernel_last_us == 600,
              "hand: union %lld over %lld..%lld", (long long)d->kernel_busy_us, (long long)d->kernel_first_us,
              (long long)d->kernel_last_us);
        CHECK(near(d->kernel_util, 0.8), "hand: utilization %f", d->kernel_util);
        CHECK(d->n_gaps == 1 && d->gap_total_us == 100 && d->n_top == 1 && d->top_gaps[0].start_us == 400 &&
                  d->top_gaps[0].len_us == 100,
              "hand: one gap of 100 us at 400");
        CHECK(d->n_kernels == 4, "hand: 4 kernel intervals (one of zero length)");
        CHECK(st->warn.kernel_orphan_end == 1 && st->warn.synth_open == 1,
              "hand: orphan END and open START counted");
        CHECK(st->delivered == 0 && !st->has_steady && !st->has_overall,
              "hand: no throughput without DELIVER");
    }
    cuzk_tlr_stats_free(st);
    cuzk_tlr_log_free(log);
}

/* A device lost mid-run: its DEVICE_LOST event is recognised (not skipped as unknown) and named in the
 * report, and the partition it moved (queued twice, locked on both devices) leaves no warning. */
static void test_device_lost(void)
{
#define EV(t, ev, job, part, lane, dev, stage)                                                               \
    "{\"t_us\":" #t ",\"ev\":\"" ev "\",\"job\":" #job ",\"part\":" #part ",\"lane\":\"" lane                \
    "\",\"dev\":" #dev ",\"stage\":\"" stage "\"}\n"
    const char *t = EV(0, "JOB_SUBMIT", 1, -1, "-", -1, "") EV(1, "JOB_START", 1, -1, "-", -1, "")
        EV(2, "SYNTH_START", 1, 0, "synth.0", -1, "") EV(3, "SYNTH_END", 1, 0, "synth.0", -1, "")
            EV(4, "GPU_QUEUE", 1, 0, "synth.0", -1, "") EV(5, "LOCK_WAIT", 1, 0, "gpu1.0", 1, "")
                EV(6, "LOCK_ACQ", 1, 0, "gpu1.0", 1, "") EV(7, "KERNEL_START", 1, 0, "gpu1.0", 1, "prove")
                    EV(9, "KERNEL_END", 1, 0, "gpu1.0", 1, "prove") EV(10, "LOCK_REL", 1, 0, "gpu1.0", 1, "")
                        EV(11, "DEVICE_LOST", 1, 0, "gpu1.0", 1, "device")
                            EV(12, "GPU_QUEUE", 1, 0, "gpu1.0", -1, "")
                                EV(13, "LOCK_WAIT", 1, 0, "gpu0.0", 0, "")
                                    EV(14, "LOCK_ACQ", 1, 0, "gpu0.0", 0, "")
                                        EV(15, "KERNEL_START", 1, 0, "gpu0.0", 0, "prove")
                                            EV(25, "KERNEL_END", 1, 0, "gpu0.0", 0, "prove")
                                                EV(26, "LOCK_REL", 1, 0, "gpu0.0", 0, "")
                                                    EV(27, "FINALIZE_START", 1, 0, "post.0", -1, "")
                                                        EV(28, "FINALIZE_END", 1, 0, "post.0", -1, "")
                                                            EV(29, "DELIVER", 1, -1, "-", -1, "");
#undef EV
    cuzk_tlr_log *log = NULL;
    cuzk_tlr_stats *st = NULL;
    char err[256] = "";
    int rc = cuzk_tlr_parse(t, strlen(t), &log, err, sizeof err);
    CHECK(rc == CUZK_OK && log->n_unknown == 0 && log->n_events == 20, "device lost: parse: %s", err);
    if (rc)
        return;
    rc = cuzk_tlr_analyze(log, &st, err, sizeof err);
    CHECK(rc == CUZK_OK, "device lost: analyze: %s", err);
    if (rc == CUZK_OK) {
        char *out = NULL;
        size_t olen = 0;
        FILE *mf = open_memstream(&out, &olen);
        rc = mf ? cuzk_tlr_print(mf, "lost", log, st, err, sizeof err) : CUZK_ENOMEM;
        if (mf)
            fclose(mf);
        CHECK(rc == CUZK_OK && out &&
                  strstr(out, "device 1 lost at 0.000 s (job 1 partition 0, device phase)") &&
                  strstr(out, "warnings\n  none\n"),
              "device lost: the report names the loss and warns of nothing:\n%s", out ? out : "");
        CHECK(st->delivered == 1 && st->n_devices == 2, "device lost: %zu delivered, %zu devices",
              st->delivered, st->n_devices);
        free(out);
    }
    cuzk_tlr_stats_free(st);
    cuzk_tlr_log_free(log);
}

/* Malformed lines fail with their line number; everything else in the file is valid. */
static void test_malformed(void)
{
    static const char *good = "{\"t_us\":%d,\"ev\":\"SYNTH_START\",\"job\":4,\"part\":%d,\"lane\":\"synth."
                              "0\",\"dev\":-1,\"stage\":\"\"}";
    static const struct {
        const char *line, *expect;
    } bad[] = {
        {"{\"t_us\":5,\"ev\":\"SYNTH_START\",\"job\":4,", "malformed JSON"},
        {"{\"t_us\":5,\"ev\":\"SYNTH_START\",\"job\":4,\"part\":0,\"dev\":-1,\"stage\":\"\"}",
         "missing key \"lane\""},
        {"{\"ev\":\"SYNTH_END\",\"job\":4,\"part\":0,\"lane\":\"synth.0\",\"dev\":-1,\"stage\":\"\"}",
         "missing key \"t_us\""},
        {"{\"t_us\":\"5\",\"ev\":\"SYNTH_END\",\"job\":4,\"part\":0,\"lane\":\"synth.0\",\"dev\":-1,"
         "\"stage\":\"\"}",
         "\"t_us\" is string"},
        {"{\"t_us\":5.5,\"ev\":\"SYNTH_END\",\"job\":4,\"part\":0,\"lane\":\"synth.0\",\"dev\":-1,\"stage\":"
         "\"\"}",
         "expected an integer"},
        {"{\"t_us\":-5,\"ev\":\"SYNTH_END\",\"job\":4,\"part\":0,\"lane\":\"synth.0\",\"dev\":-1,\"stage\":"
         "\"\"}",
         "out of range"},
        {"{\"t_us\":5e3,\"ev\":\"SYNTH_END\",\"job\":4,\"part\":0,\"lane\":\"synth.0\",\"dev\":-1,\"stage\":"
         "\"\"}",
         "expected an integer"},
        {"{\"t_us\":99999999999999999999,\"ev\":\"SYNTH_END\",\"job\":4,\"part\":0,\"lane\":\"synth.0\","
         "\"dev\":-1,"
         "\"stage\":\"\"}",
         "out of range"},
        {"{\"t_us\":5,\"ev\":\"SYNTH_END\",\"job\":-4,\"part\":0,\"lane\":\"synth.0\",\"dev\":-1,\"stage\":"
         "\"\"}",
         "\"job\""},
        {"{\"t_us\":5,\"ev\":\"SYNTH_END\",\"job\":18446744073709551616,\"part\":0,\"lane\":\"synth.0\","
         "\"dev\":-1,"
         "\"stage\":\"\"}",
         "\"job\""},
        {"{\"t_us\":5,\"ev\":\"SYNTH_END\",\"job\":4,\"part\":-2,\"lane\":\"synth.0\",\"dev\":-1,\"stage\":"
         "\"\"}",
         "\"part\""},
        {"{\"t_us\":5,\"ev\":\"SYNTH_END\",\"job\":4,\"part\":0,\"lane\":\"synth.0\",\"dev\":\"x\",\"stage\":"
         "\"\"}",
         "\"dev\" is string"},
        {"{\"t_us\":5,\"ev\":\"SYNTH_END\",\"job\":4,\"part\":0,\"lane\":\"synth.0\",\"dev\":-1,\"stage\":7}",
         "\"stage\" is number"},
        {"{\"t_us\":5,\"ev\":\"SYNTH_END\",\"job\":4,\"part\":0,\"lane\":\"\",\"dev\":-1,\"stage\":\"\"}",
         "\"lane\""},
        {"{\"t_us\":5,\"ev\":7,\"job\":4,\"part\":0,\"lane\":\"synth.0\",\"dev\":-1,\"stage\":\"\"}",
         "\"ev\""},
        {"[1,2,3]", "expected a JSON object"},
        {"{\"t_us\":5,\"t_us\":6,\"ev\":\"SYNTH_END\",\"job\":4,\"part\":0,\"lane\":\"s\",\"dev\":-1,"
         "\"stage\":\"\"}",
         "malformed JSON"},
        {"", "empty line"},
        {"   ", "empty line"},
        {"{\"t_us\":5,\"ev\":\"SYNTH_END\"} trailing", "malformed JSON"},
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        for (int rep = 0; rep < 2; rep++) {
            bool blank = strspn(bad[b].line, " ") == strlen(bad[b].line);
            int before = (int)rnd(0, 8), after = rep || blank ? (int)rnd(1, 5) : 0;
            char *text = NULL, line[512];
            size_t len = 0, cap = 0;
            for (int i = 0; i < before; i++) {
                snprintf(line, sizeof line, good, 10 * i, i);
                put_line(&text, &len, &cap, line);
                put_line(&text, &len, &cap, "\n");
            }
            put_line(&text, &len, &cap, bad[b].line);
            for (int i = 0; i < after; i++) {
                put_line(&text, &len, &cap, "\n");
                snprintf(line, sizeof line, good, 1000 + i, i);
                put_line(&text, &len, &cap, line);
            }
            if (after == 0 && rnd(0, 1)) /* the bad line may be the last, with or without '\n' */
                put_line(&text, &len, &cap, "\n");
            cuzk_tlr_log *log = NULL;
            char err[256] = "", want[64];
            int rc = cuzk_tlr_parse(text, len, &log, err, sizeof err);
            snprintf(want, sizeof want, "timeline line %d: ", before + 1);
            CHECK(rc == CUZK_EINVAL && log == NULL, "bad %zu: rejected (rc %d)", b, rc);
            CHECK(strstr(err, want) == err && strstr(err, bad[b].expect),
                  "bad %zu: message \"%s\" (want %s... %s)", b, err, want, bad[b].expect);
            cuzk_tlr_log_free(log);
            free(text);
        }
    }

    /* truncated last line: a file cut mid-write */
    char full[256];
    snprintf(full, sizeof full, good, 7, 0);
    for (size_t cut = 1; cut < strlen(full); cut++) {
        char text[600];
        int n = snprintf(text, sizeof text, good, 1, 0);
        text[n++] = '\n';
        memcpy(text + n, full, cut);
        cuzk_tlr_log *log = NULL;
        char err[256] = "";
        int rc = cuzk_tlr_parse(text, (size_t)n + cut, &log, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && strstr(err, "timeline line 2: "), "truncated at %zu: %s", cut, err);
        cuzk_tlr_log_free(log);
    }

    /* whole-file cases */
    cuzk_tlr_log *log = NULL;
    char err[256] = "";
    CHECK(cuzk_tlr_parse("", 0, &log, err, sizeof err) == CUZK_EINVAL && strstr(err, "empty"),
          "empty input: %s", err);
    CHECK(cuzk_tlr_parse("\n", 1, &log, err, sizeof err) == CUZK_EINVAL && strstr(err, "line 1: empty line"),
          "lone newline: %s", err);
    const char *unk = "{\"t_us\":1,\"ev\":\"LATER\"}\n{\"t_us\":2,\"ev\":\"LATER\",\"x\":1}\n";
    CHECK(cuzk_tlr_parse(unk, strlen(unk), &log, err, sizeof err) == CUZK_EINVAL &&
              strstr(err, "no recognised"),
          "only unknown events: %s", err);
    CHECK(log == NULL, "no log on failure");

    char path[256];
    snprintf(path, sizeof path, "%s/empty.jsonl", tmpdir);
    write_file(path, "", 0);
    CHECK(cuzk_timeline_report(path, NULL, NULL, err, sizeof err) == CUZK_EINVAL && strstr(err, "empty"),
          "empty file: %s", err);
    unlink(path);
    snprintf(path, sizeof path, "%s/missing.jsonl", tmpdir);
    CHECK(cuzk_timeline_report(path, NULL, NULL, err, sizeof err) == CUZK_EIO && strstr(err, path),
          "missing file: %s", err);
    CHECK(cuzk_timeline_report(NULL, NULL, NULL, err, sizeof err) == CUZK_EINVAL, "no path");

    /* an SVG that cannot be written fails cleanly */
    snprintf(path, sizeof path, "%s/ok.jsonl", tmpdir);
    char line[256];
    int n = snprintf(line, sizeof line, good, 3, 0);
    write_file(path, line, (size_t)n);
    char svg[300];
    snprintf(svg, sizeof svg, "%s/no/such/dir/out.svg", tmpdir);
    char *out = NULL;
    size_t olen = 0;
    FILE *mf = open_memstream(&out, &olen);
    CHECK(cuzk_timeline_report(path, mf, svg, err, sizeof err) == CUZK_EIO && strstr(err, "svg"),
          "unwritable svg: %s", err);
    fclose(mf);
    CHECK(olen == 0, "unwritable svg: fails before printing (%zu bytes printed)", olen);
    free(out);
    /* the destination is a directory: refused before any output, no temporary file */
    snprintf(svg, sizeof svg, "%s/adir", tmpdir);
    mkdir(svg, 0755);
    mf = open_memstream(&out, &olen);
    CHECK(cuzk_timeline_report(path, mf, svg, err, sizeof err) == CUZK_EIO && strstr(err, "is a directory"),
          "svg onto a directory: %s", err);
    fclose(mf);
    CHECK(olen == 0, "svg onto a directory: fails before printing (%zu bytes printed)", olen);
    free(out);
    rmdir(svg);
    CHECK(test_dir_count(tmpdir, ".tmp.") == 0, "no temporary file after failure");
    /* an existing file is replaced whole */
    snprintf(svg, sizeof svg, "%s/old.svg", tmpdir);
    write_file(svg, "old", 3);
    CHECK(cuzk_timeline_report(path, NULL, svg, err, sizeof err) == CUZK_OK, "svg over an old file: %s", err);
    size_t sl;
    char *sv = test_read_file(svg, &sl);
    CHECK(sv && strncmp(sv, "<?xml", 5) == 0 && strstr(sv, "</svg>\n") == sv + sl - 7, "old svg replaced");
    free(sv);
    unlink(svg);
    unlink(path);
}

/* Random corruption: every outcome is a clean success or a clean failure naming a line. */
static void test_corruption(void)
{
    run_t r;
    gen_run(&r, 3, 3, 3, 1, 2, 2, 2, 3000);
    write_opts o = {false, true, true, INT64_MAX};
    size_t len, nu;
    char *text = write_text(&r, &o, &len, &nu);
    char *copy = malloc(len + 1);
    size_t ok = 0, bad = 0;
    for (int it = 0; it < 300; it++) {
        memcpy(copy, text, len);
        int flips = (int)rnd(1, 4);
        for (int f = 0; f < flips; f++)
            copy[rnd(0, len - 1)] = (char)rnd(0, 255);
        size_t l2 = rnd(0, 3) ? len : (size_t)rnd(0, len);
        cuzk_tlr_log *log = NULL;
        cuzk_tlr_stats *st = NULL;
        char err[256] = "";
        int rc = cuzk_tlr_parse(copy, l2, &log, err, sizeof err);
        if (rc == CUZK_OK) {
            ok++;
            CHECK(cuzk_tlr_analyze(log, &st, err, sizeof err) == CUZK_OK, "corrupt: analyze");
            char svg[256];
            snprintf(svg, sizeof svg, "%s/c.svg", tmpdir);
            CHECK(cuzk_tlr_write_svg(svg, log, st, err, sizeof err) == CUZK_OK, "corrupt: svg %s", err);
            size_t sl;
            char *s = test_read_file(svg, &sl);
            svg_info in;
            svg_parse(s ? s : "", &in);
            CHECK(in.ok, "corrupt: svg well-formed: %s", in.why);
            svg_free(&in);
            free(s);
            unlink(svg);
        } else {
            bad++;
            CHECK(rc == CUZK_EINVAL && (strstr(err, "timeline line ") || strstr(err, "no recognised") ||
                                        strstr(err, "empty input")),
                  "corrupt: clean failure: %s", err);
        }
        cuzk_tlr_stats_free(st);
        cuzk_tlr_log_free(log);
    }
    CHECK(ok + bad == 300, "corruption runs");
    free(copy);
    free(text);
    free_run(&r);
}

/* Names that need escaping survive into the SVG as text. */
static void test_escaping(void)
{
    const char *t =
        "{\"t_us\":0,\"ev\":\"KERNEL_START\",\"job\":1,\"part\":0,\"lane\":\"gpu0.<a&b>\",\"dev\":0,"
        "\"stage\":\"m\\\"s<m>\"}\n"
        "{\"t_us\":1500,\"ev\":\"KERNEL_END\",\"job\":1,\"part\":0,\"lane\":\"gpu0.<a&b>\",\"dev\":0,"
        "\"stage\":\"m\\\"s<m>\"}\n";
    cuzk_tlr_log *log = NULL;
    cuzk_tlr_stats *st = NULL;
    char err[256] = "", svg[256];
    snprintf(svg, sizeof svg, "%s/esc.svg", tmpdir);
    int rc = cuzk_tlr_parse(t, strlen(t), &log, err, sizeof err);
    if (rc == CUZK_OK)
        rc = cuzk_tlr_analyze(log, &st, err, sizeof err);
    if (rc == CUZK_OK)
        rc = cuzk_tlr_write_svg(svg, log, st, err, sizeof err);
    CHECK(rc == CUZK_OK, "escaping: %s", err);
    size_t sl;
    char *s = test_read_file(svg, &sl);
    svg_info in;
    svg_parse(s ? s : "", &in);
    CHECK(in.ok, "escaping: svg well-formed: %s", in.why);
    CHECK(in.n_lane_labels == 1 && strcmp(in.lane_labels[0], "gpu0.<a&b>") == 0, "escaping: lane label");
    CHECK(in.n_title_iv == 1 &&
              strcmp(in.titles[0], "job 1 part 0 kernel m\"s<m> on gpu0.<a&b>: 1.500 ms (0.000 s "
                                   "to 0.002 s)") == 0,
          "escaping: tooltip \"%s\"", in.n_title_iv ? in.titles[0] : "");
    svg_free(&in);
    free(s);
    unlink(svg);
    cuzk_tlr_stats_free(st);
    cuzk_tlr_log_free(log);
}

/* The time scale of the waterfall (docs/timeline.md): 40 px per second of the event range, the plot clamped
 * to 1000..20000 px. Two one-second kernels at the ends of a long range must sit that far apart. */
static void test_svg_scale(void)
{
    static const int spans_s[] = {2, 60, 300, 1000};
    for (int k = 0; k < 4; k++) {
        int64_t span = (int64_t)spans_s[k] * 1000000, t0 = (int64_t)rnd(0, 1000000);
        char text[1024];
        const char *fmt =
            "{\"t_us\":%lld,\"ev\":\"KERNEL_%s\",\"job\":%d,\"part\":0,\"lane\":\"gpu0.0\",\"dev\":0,"
            "\"stage\":\"x\"}\n";
        int n = 0;
        n += snprintf(text + n, sizeof text - (size_t)n, fmt, (long long)t0, "START", 1);
        n += snprintf(text + n, sizeof text - (size_t)n, fmt, (long long)(t0 + 500000), "END", 1);
        n += snprintf(text + n, sizeof text - (size_t)n, fmt, (long long)(t0 + span - 500000), "START", 2);
        n += snprintf(text + n, sizeof text - (size_t)n, fmt, (long long)(t0 + span), "END", 2);
        cuzk_tlr_log *log = NULL;
        cuzk_tlr_stats *st = NULL;
        char err[256] = "", svg[256];
        snprintf(svg, sizeof svg, "%s/scale.svg", tmpdir);
        int rc = cuzk_tlr_parse(text, (size_t)n, &log, err, sizeof err);
        if (rc == CUZK_OK)
            rc = cuzk_tlr_analyze(log, &st, err, sizeof err);
        if (rc == CUZK_OK)
            rc = cuzk_tlr_write_svg(svg, log, st, err, sizeof err);
        CHECK(rc == CUZK_OK, "scale %ds: %s", spans_s[k], err);
        size_t sl;
        char *s = test_read_file(svg, &sl);
        svg_info in;
        svg_parse(s ? s : "", &in);
        double plot = spans_s[k] * 40.0;
        plot = plot < 1000 ? 1000 : plot > 20000 ? 20000 : plot;
        double px_per_s = plot / spans_s[k];
        CHECK(in.ok && in.n_iv == 2, "scale %ds: two rects", spans_s[k]);
        if (in.ok && in.n_iv == 2) {
            double lo = in.x[0] < in.x[1] ? in.x[0] : in.x[1], hi = in.x[0] < in.x[1] ? in.x[1] : in.x[0];
            CHECK(hi - lo > plot - px_per_s / 2 - 0.02 && hi - lo < plot - px_per_s / 2 + 0.02,
                  "scale %ds: rects %f px apart, expected %f", spans_s[k], hi - lo, plot - px_per_s / 2);
            CHECK(in.w[0] > px_per_s / 2 - 0.02 && in.w[0] < px_per_s / 2 + 0.02,
                  "scale %ds: width %f, expected %f", spans_s[k], in.w[0], px_per_s / 2);
        }
        svg_free(&in);
        free(s);
        unlink(svg);
        cuzk_tlr_stats_free(st);
        cuzk_tlr_log_free(log);
    }
}

/* Kernels only, with idle gaps drawn from {40, 80} us and some overlaps across two workers: many gaps tie in
 * length, so the choice of the five longest (earlier start first) is exercised. */
static void test_gap_ties(void)
{
    for (int rep = 0; rep < 4; rep++) {
        run_t r;
        memset(&r, 0, sizeof r);
        r.n_devs = 1;
        r.n_stages = 1;
        r.stages[0] = STAGE_NAMES[0];
        add_lane(&r, "gpu0.%d", 0, 0);
        add_lane(&r, "gpu0.%d", 1, 0);
        int64_t end = (int64_t)rnd(0, 1000);
        for (int i = 0; i < 40; i++) {
            uint64_t k = rnd(0, 3);
            int64_t s = k == 0 ? end - (int64_t)rnd(0, 5) : end + (k == 1 ? 40 : 80);
            s = s < 0 ? 0 : s;
            int64_t e = s + (int64_t)rnd(1, 30);
            add_iv(&r, K_KERNEL, 1, i, i & 1, 0, 0, s, e);
            end = e > end ? e : end;
        }
        scenario("gap ties", &r, (write_opts){rep & 1, false, false, INT64_MAX});
        free_run(&r);
    }
}

/* Every line a new lane and stage name (as a corrupt or hostile file might have): still linear work, every
 * name kept, each stage's one interval its own distribution. */
static void test_many_names(void)
{
    size_t pairs = 20000, len = 0, cap = 0;
    char *text = NULL, line[256];
    uint64_t salt = test_rand64() % 1000;
    int64_t dur_sum = 0;
    for (size_t i = 0; i < pairs; i++) {
        int64_t s = (int64_t)(i * 10), d = (int64_t)rnd(1, 9);
        dur_sum += d;
        for (int k = 0; k < 2; k++) {
            snprintf(
                line, sizeof line,
                "{\"t_us\":%lld,\"ev\":\"KERNEL_%s\",\"job\":1,\"part\":0,\"lane\":\"gpu0.%zu\",\"dev\":0,"
                "\"stage\":\"s%llu_%zu\"}\n",
                (long long)(k ? s + d : s), k ? "END" : "START", i, (unsigned long long)salt, i);
            put_line(&text, &len, &cap, line);
        }
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cuzk_tlr_log *log = NULL;
    cuzk_tlr_stats *st = NULL;
    char err[256] = "";
    int rc = cuzk_tlr_parse(text, len, &log, err, sizeof err);
    if (rc == CUZK_OK)
        rc = cuzk_tlr_analyze(log, &st, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK(rc == CUZK_OK, "many names: %s", err);
    if (rc == CUZK_OK) {
        CHECK(log->n_lanes == pairs && log->n_stages == pairs + 1, "many names: %zu lanes, %zu stages",
              log->n_lanes, log->n_stages);
        CHECK(st->n_kernel_stages == pairs, "many names: %zu kernel stages", st->n_kernel_stages);
        bool ok = st->n_devices == 1 && st->devices[0].kernel_busy_us == dur_sum;
        for (size_t i = 0; ok && i < st->n_kernel_stages; i++) {
            char want[64];
            snprintf(want, sizeof want, "s%llu_%zu", (unsigned long long)salt, i);
            ok = st->kernels[i].d.n == 1 && strcmp(log->stages[st->kernels[i].stage], want) == 0;
        }
        CHECK(ok, "many names: one interval per stage, in order of appearance, union %lld",
              st->n_devices ? (long long)st->devices[0].kernel_busy_us : -1LL);
    }
    printf("many names: %zu lines parsed and analyzed in %.3f s\n", 2 * pairs,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    cuzk_tlr_stats_free(st);
    cuzk_tlr_log_free(log);
    free(text);
}

/* A large run (20 proofs x 10 partitions x 10 kernel stages): every check still holds, and it is quick. */
static void test_large(void)
{
    run_t r;
    gen_run(&r, 20, 10, 10, 1, 2, 10, 2, 3000);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    scenario("large", &r, (write_opts){false, false, false, INT64_MAX});
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("large run: %zu events, checked in %.3f s\n", r.n_ev,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    free_run(&r);
}

/* Stages a device timed itself, written after the fact with cuzk_timeline_emit_at (as the GPU backend
 * records its prover's stages inside "prove"): the lines land out of time order, the reader pairs them
 * by stage, their durations are the given ones, and nested stages add nothing to the kernel union. */
static void test_emit_at_nested(void)
{
    char path[sizeof tmpdir + 32];
    snprintf(path, sizeof path, "%s/nested.jsonl", tmpdir);
    cuzk_timeline *tl = NULL;
    char err[256] = "";
    int64_t m0 = cuzk_timeline_clock_us();
    int rc = cuzk_timeline_new(&tl, path, NULL, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK, "nested: new: %s", err);
    if (rc)
        return;
    int64_t b = cuzk_timeline_clock_us() + 1000000; /* a second ahead of the writer's epoch */
    static const struct {
        int part;
        const char *stage;
        int64_t s, e;
    } spans[] = {{0, "prove", 1000, 9000},  {0, "h", 2000, 5000},       {0, "msm_h", 5000, 8000},
                 {0, "msm_b2", 2500, 6000}, {1, "prove", 10000, 12000}, {1, "h", 10500, 11000}};
    for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++) {
        cuzk_timeline_emit_at(tl, b + spans[i].s, CUZK_TL_KERNEL_START, 1, spans[i].part, "gpu0.0", 0,
                              spans[i].stage);
        cuzk_timeline_emit_at(tl, b + spans[i].e, CUZK_TL_KERNEL_END, 1, spans[i].part, "gpu0.0", 0,
                              spans[i].stage);
    }
    cuzk_timeline_emit_at(tl, m0 - 5000000, CUZK_TL_SYNTH_START, 1, 0, "synth.0", -1,
                          ""); /* before the epoch */
    cuzk_timeline_emit_at(tl, b, CUZK_TL_SYNTH_END, 1, 0, "synth.0", -1, "");
    rc = cuzk_timeline_close(tl, err, sizeof err);
    CHECK(rc == CUZK_OK, "nested: close: %s", err);
    size_t len = 0;
    char *text = test_read_file(path, &len);
    CHECK(text != NULL, "nested: file written");
    if (!text)
        return;
    cuzk_tlr_log *log = NULL;
    cuzk_tlr_stats *st = NULL;
    rc = cuzk_tlr_parse(text, len, &log, err, sizeof err);
    CHECK(rc == CUZK_OK, "nested: parse: %s", err);
    if (rc == CUZK_OK)
        rc = cuzk_tlr_analyze(log, &st, err, sizeof err);
    CHECK(rc == CUZK_OK && st->n_devices == 1, "nested: analyze, one device");
    if (rc == CUZK_OK && st->n_devices == 1) {
        const cuzk_tlr_device *d = &st->devices[0];
        CHECK(d->kernel_busy_us == 10000 && d->kernel_last_us - d->kernel_first_us == 11000,
              "nested: kernel union %lld over a span of %lld (want 10000, 11000)",
              (long long)d->kernel_busy_us, (long long)(d->kernel_last_us - d->kernel_first_us));
        /* the writer's epoch lies between m0 and b - 1 s, so the first KERNEL_START is about 1.001 s */
        CHECK(d->kernel_first_us >= 1001000 && d->kernel_first_us <= 1001000 + (b - 1000000 - m0),
              "nested: first kernel at %lld us of the epoch", (long long)d->kernel_first_us);
        CHECK(st->warn.kernel_open == 0 && st->warn.kernel_orphan_end == 0 && st->warn.synth_open == 0,
              "nested: every pair closes");
        CHECK(st->t_first_us == 0, "nested: a time before the epoch becomes 0 (%lld)",
              (long long)st->t_first_us);
        static const struct {
            const char *stage;
            size_t n;
            int64_t min, max;
        } want[] = {{"prove", 2, 2000, 8000},
                    {"h", 2, 500, 3000},
                    {"msm_h", 1, 3000, 3000},
                    {"msm_b2", 1, 3500, 3500}};
        for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
            const cuzk_tlr_kernel_stage *k = NULL;
            for (size_t i = 0; i < st->n_kernel_stages; i++)
                if (!strcmp(log->stages[st->kernels[i].stage], want[w].stage))
                    k = &st->kernels[i];
            CHECK(k && k->d.n == want[w].n && k->d.min_us == want[w].min && k->d.max_us == want[w].max,
                  "nested: stage %s: %zu intervals, %lld..%lld us", want[w].stage, k ? k->d.n : 0,
                  k ? (long long)k->d.min_us : -1, k ? (long long)k->d.max_us : -1);
        }
    }
    cuzk_tlr_stats_free(st);
    cuzk_tlr_log_free(log);
    free(text);
}

int main(void)
{
    test_rng_init("test_timeline_report");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    test_overlap_by_hand();
    test_device_lost();
    test_malformed();
    test_escaping();
    test_generated();
    test_gap_ties();
    test_svg_scale();
    test_corruption();
    test_large();
    test_many_names();
    test_emit_at_nested();
    remove_tmpdir();
    return test_finish("test_timeline_report");
}
