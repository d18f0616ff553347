/*
 * run.c — `cuzk-bench single` and `batch`: the engine under load, and what
 * it did.
 *
 * The workload is built first (not timed). Then bench_batch runs it: one
 * TIMELINE writer starts the clock (to a file with --timeline, and always to
 * an in-memory sink), a fresh engine starts with the knobs from the command
 * line, and -j client threads share the -c proofs: each submits one job,
 * awaits it, reports it on stderr and takes the next. `single` is a batch of
 * one; `sweep` (sweep.c) calls bench_batch once per combination on the same
 * workload.
 *
 * The summary comes from two sources: the clients' own clocks (wall time,
 * per-proof latency submit → delivery) and the events (per-stage
 * durations of every partition: synthesis, wait on the GPU queue, wait for
 * the device lock, lock held, each kernel stage, finalize; per device the
 * union of kernel intervals over the run, i.e. kernel utilization, not
 * lock time; and the steady-state rate between the first and the last
 * delivery, which leaves out pipeline fill and drain). Percentiles are
 * nearest-rank.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cuzk/timeline.h"
#include "cuzk/verify.h"
#ifdef CUZK_HAVE_GPU
#include "cuzk/gpu_prove.h"
#endif

#define MAX_STAGES 32
#define MAX_DEVS 64

void bench_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cuzk-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

const char *bench_eval_name(cuzk_engine_eval e)
{
    switch (e) {
    case CUZK_ENGINE_EVAL_HOST: return "host";
    case CUZK_ENGINE_EVAL_DEVICE: return "device";
    default: return "auto";
    }
}

/* ---- atomic output files ------------------------------------------------------------------------ */

int bench_out_open(bench_out *out, const char *path)
{
    char who[512], err[1024];
    snprintf(who, sizeof who, "cannot write %s", path ? path : "");
    if (cuzk_outfile_open(out, path, CUZK_OUTFILE_TRACK | CUZK_OUTFILE_STREAM, who, err, sizeof err) !=
        CUZK_OK) {
        bench_error("%s", err);
        return BENCH_FAIL;
    }
    return BENCH_OK;
}

int bench_out_commit(bench_out *out)
{
    if (!out->f)
        return BENCH_FAIL;
    char who[512], err[1024];
    snprintf(who, sizeof who, "cannot write %s", out->path);
    if (cuzk_outfile_commit(out, who, err, sizeof err) != CUZK_OK) {
        bench_error("%s", err);
        return BENCH_FAIL;
    }
    return BENCH_OK;
}

void bench_out_abort(bench_out *out)
{
    cuzk_outfile_abort(out);
}

/* ---- events, as the sink records them (called under the writer's mutex) ---------------------- */

typedef struct {
    int64_t t;
    uint64_t job;
    int32_t part, dev;
    uint8_t ev, stage;
} rec;

typedef struct {
    rec *v;
    size_t n, cap;
    bool oom;
    char *stages[MAX_STAGES];
    int n_stages;
} recorder;

static int stage_index(recorder *r, const char *name)
{
    for (int i = 0; i < r->n_stages; i++)
        if (!strcmp(r->stages[i], name))
            return i;
    if (r->n_stages == MAX_STAGES)
        return MAX_STAGES - 1;
    r->stages[r->n_stages] = strdup(name);
    if (!r->stages[r->n_stages]) {
        r->oom = true;
        return 0;
    }
    return r->n_stages++;
}

static void sink(void *ctx, const cuzk_timeline_event *e)
{
    recorder *r = ctx;
    if (r->oom)
        return;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 4096;
        rec *v = realloc(r->v, cap * sizeof *v);
        if (!v) {
            r->oom = true;
            return;
        }
        r->v = v;
        r->cap = cap;
    }
    int st = 0;
    if (e->ev == CUZK_TL_KERNEL_START || e->ev == CUZK_TL_KERNEL_END)
        st = stage_index(r, e->stage);
    r->v[r->n++] = (rec){.t = e->t_us,
                         .job = e->job,
                         .part = e->part,
                         .dev = e->dev,
                         .ev = (uint8_t)e->ev,
                         .stage = (uint8_t)st};
}

static void recorder_free(recorder *r)
{
    free(r->v);
    for (int i = 0; i < r->n_stages; i++)
        free(r->stages[i]);
}

/* ---- distributions ------------------------------------------------------------------------------- */

typedef struct {
    double *v;
    size_t n, cap;
} dist;

static void dist_add(dist *d, double x)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        double *v = realloc(d->v, cap * sizeof *v);
        if (!v)
            return;
        d->v = v;
        d->cap = cap;
    }
    d->v[d->n++] = x;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest sample with at least pct % of the samples at or below it. */
static double pct(const dist *d, double p)
{
    if (!d->n)
        return 0;
    size_t k = (size_t)((p / 100.0) * (double)d->n + 0.999999999);
    if (k < 1)
        k = 1;
    if (k > d->n)
        k = d->n;
    return d->v[k - 1];
}

static void dist_sort(dist *d)
{
    if (d->n)
        qsort(d->v, d->n, sizeof *d->v, cmp_double);
}

/* ---- stage statistics from the events --------------------------------------------------------- */

/* Timestamps of one partition; -1 = not seen. */
typedef struct {
    int64_t synth0, synth1, queued, wait0, acq, rel, fin0, fin1;
    int64_t kstart[MAX_STAGES];
    double kernel_us[MAX_STAGES];
} part_times;

typedef struct {
    int64_t s, e;
} span;

static int cmp_span(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->s < y->s ? -1 : x->s > y->s;
}

/* Length of the union of the intervals (sorted here). */
static int64_t union_len(span *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_span);
    int64_t total = 0, cs = 0, ce = -1;
    for (size_t i = 0; i < n; i++) {
        if (v[i].s > ce) {
            if (ce > cs)
                total += ce - cs;
            cs = v[i].s;
            ce = v[i].e;
        } else if (v[i].e > ce) {
            ce = v[i].e;
        }
    }
    if (ce > cs)
        total += ce - cs;
    return total;
}

/* What the events say about one run. */
typedef struct {
    part_times *pt; /* job j's partition p at (j - 1) × parts + p */
    size_t n;
    int64_t busy[MAX_DEVS];   /* µs: the union of the device's kernel intervals */
    size_t kstages[MAX_DEVS]; /* kernel intervals seen on the device */
    size_t delivered;         /* jobs with a DELIVER (each job's first counts) */
    int64_t first_deliver, last_deliver;
} run_events;

/* Pairs the events of jobs 1 .. n_jobs, partitions 0 .. parts - 1. CUZK_ENOMEM if the tables do not fit. */
static int events_collect(run_events *ev, const recorder *r, uint64_t n_jobs, uint32_t parts)
{
    memset(ev, 0, sizeof *ev);
    size_t n = (size_t)n_jobs * parts;
    part_times *pt = malloc((n ? n : 1) * sizeof *pt);
    span *kv = malloc((r->n ? r->n : 1) * sizeof *kv);
    span *tmp = malloc((r->n ? r->n : 1) * sizeof *tmp);
    int *kdev = malloc((r->n ? r->n : 1) * sizeof *kdev);
    bool *seen = calloc(n_jobs ? n_jobs : 1, sizeof *seen);
    if (!pt || !kv || !tmp || !kdev || !seen) {
        free(pt);
        free(kv);
        free(tmp);
        free(kdev);
        free(seen);
        return CUZK_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        pt[i].synth0 = pt[i].synth1 = pt[i].queued = pt[i].wait0 = pt[i].acq = pt[i].rel = pt[i].fin0 =
            pt[i].fin1 = -1;
        for (int s = 0; s < MAX_STAGES; s++) {
            pt[i].kstart[s] = -1;
            pt[i].kernel_us[s] = 0;
        }
    }
    size_t nk = 0;
    for (size_t i = 0; i < r->n; i++) {
        const rec *e = &r->v[i];
        if (e->job < 1 || e->job > n_jobs)
            continue;
        if (e->ev == CUZK_TL_DELIVER) {
            if (!seen[e->job - 1]) {
                seen[e->job - 1] = true;
                if (!ev->delivered++ || e->t < ev->first_deliver)
                    ev->first_deliver = e->t;
                if (ev->delivered == 1 || e->t > ev->last_deliver)
                    ev->last_deliver = e->t;
            }
            continue;
        }
        if (e->part < 0 || (uint32_t)e->part >= parts)
            continue;
        part_times *p = &pt[(e->job - 1) * parts + (uint32_t)e->part];
        switch ((cuzk_tl_ev)e->ev) {
        case CUZK_TL_SYNTH_START: p->synth0 = e->t; break;
        case CUZK_TL_SYNTH_END: p->synth1 = e->t; break;
        case CUZK_TL_GPU_QUEUE: p->queued = e->t; break;
        case CUZK_TL_LOCK_WAIT: p->wait0 = e->t; break;
        case CUZK_TL_LOCK_ACQ: p->acq = e->t; break;
        case CUZK_TL_LOCK_REL: p->rel = e->t; break;
        case CUZK_TL_FINALIZE_START: p->fin0 = e->t; break;
        case CUZK_TL_FINALIZE_END: p->fin1 = e->t; break;
        case CUZK_TL_KERNEL_START: p->kstart[e->stage] = e->t; break;
        case CUZK_TL_KERNEL_END:
            if (p->kstart[e->stage] >= 0) {
                p->kernel_us[e->stage] += (double)(e->t - p->kstart[e->stage]);
                kv[nk] = (span){p->kstart[e->stage], e->t};
                kdev[nk++] = e->dev;
                p->kstart[e->stage] = -1;
            }
            break;
        default: break;
        }
    }
    /* kernel utilization per device: the union of its kernel intervals */
    for (int d = 0; d < MAX_DEVS; d++) {
        size_t m = 0;
        for (size_t i = 0; i < nk; i++)
            if (kdev[i] == d)
                tmp[m++] = kv[i];
        ev->kstages[d] = m;
        ev->busy[d] = m ? union_len(tmp, m) : 0;
    }
    free(kv);
    free(tmp);
    free(kdev);
    free(seen);
    ev->pt = pt;
    ev->n = n;
    return CUZK_OK;
}

/* Seconds per proof between the first and the last delivery; negative with fewer than two. */
static double events_steady(const run_events *ev)
{
    if (ev->delivered < 2)
        return -1;
    return (double)(ev->last_deliver - ev->first_deliver) / 1e6 / (double)(ev->delivered - 1);
}

/* Device-seconds of kernels per delivered proof (every device's kernel union); negative without either. */
static double events_kernel_per_proof(const run_events *ev)
{
    int64_t busy = 0;
    for (int d = 0; d < MAX_DEVS; d++)
        busy += ev->busy[d];
    return ev->delivered && busy > 0 ? (double)busy / 1e6 / (double)ev->delivered : -1;
}

/* Percent of the wall time the devices 0 .. devices - 1 ran kernels, averaged; negative without kernels. */
static double events_kernel_util(const run_events *ev, int devices, double wall_s)
{
    double sum = 0;
    size_t m = 0;
    for (int d = 0; d < MAX_DEVS; d++) {
        sum += (double)ev->busy[d];
        m += ev->kstages[d];
    }
    if (!m || wall_s <= 0 || devices < 1)
        return -1;
    return 100.0 * sum / (wall_s * 1e6 * (double)devices);
}

static void print_row(const char *name, dist *d)
{
    dist_sort(d);
    if (!d->n) {
        printf("  %-22s %6zu %11s %11s %11s\n", name, (size_t)0, "-", "-", "-");
        return;
    }
    printf("  %-22s %6zu %11.3f %11.3f %11.3f\n", name, d->n, pct(d, 50) / 1e3, pct(d, 95) / 1e3,
           d->v[d->n - 1] / 1e3);
}

/* Prints the per-stage table and the device utilization. */
static void print_stages(const recorder *r, const run_events *ev, double wall_s)
{
    dist synth = {0}, queue = {0}, wait = {0}, held = {0}, fin = {0}, kern[MAX_STAGES];
    memset(kern, 0, sizeof kern);
    for (size_t i = 0; i < ev->n; i++) {
        const part_times *p = &ev->pt[i];
        if (p->synth0 >= 0 && p->synth1 >= 0)
            dist_add(&synth, (double)(p->synth1 - p->synth0));
        if (p->queued >= 0 && p->wait0 >= 0)
            dist_add(&queue, (double)(p->wait0 - p->queued));
        if (p->wait0 >= 0 && p->acq >= 0)
            dist_add(&wait, (double)(p->acq - p->wait0));
        if (p->acq >= 0 && p->rel >= 0)
            dist_add(&held, (double)(p->rel - p->acq));
        if (p->fin0 >= 0 && p->fin1 >= 0)
            dist_add(&fin, (double)(p->fin1 - p->fin0));
        if (p->rel >= 0)
            for (int s = 0; s < r->n_stages; s++)
                dist_add(&kern[s], p->kernel_us[s]);
    }
    printf("\n  %-22s %6s %11s %11s %11s\n", "stage (per partition)", "n", "p50 ms", "p95 ms", "max ms");
    print_row("synthesis", &synth);
    print_row("gpu queue wait", &queue);
    print_row("device lock wait", &wait);
    print_row("device lock held", &held);
    for (int s = 0; s < r->n_stages; s++) {
        char name[48];
        snprintf(name, sizeof name, "kernel %s", r->stages[s]);
        print_row(name, &kern[s]);
    }
    print_row("finalize + verify", &fin);
    for (int d = 0; d < MAX_DEVS; d++)
        if (ev->kstages[d])
            printf("  device %d: kernels busy %.1f%% of the wall time (%zu kernel stages)\n", d,
                   wall_s > 0 ? 100.0 * (double)ev->busy[d] / (wall_s * 1e6) : 0.0, ev->kstages[d]);
    free(synth.v);
    free(queue.v);
    free(wait.v);
    free(held.v);
    free(fin.v);
    for (int s = 0; s < MAX_STAGES; s++)
        free(kern[s].v);
}

/* ---- the clients ------------------------------------------------------------------------------- */

typedef struct {
    const bench_opts *o;
    cuzk_engine *e;
    cuzk_engine_key *key;
    const bench_workload *w;
    uint8_t *proofs; /* --proofs-out: job id i's partition p at ((i - 1) × partitions + p) × 192, or NULL */
    pthread_mutex_t mu;
    uint32_t next, done, ok, failed;
    dist latency; /* seconds */
} bench_state;

static void *client_main(void *arg)
{
    bench_state *b = arg;
    const bench_opts *o = b->o;
    for (;;) {
        pthread_mutex_lock(&b->mu);
        if (b->next == o->count) {
            pthread_mutex_unlock(&b->mu);
            break;
        }
        b->next++;
        pthread_mutex_unlock(&b->mu);
        char err[BENCH_ERRLEN] = "";
        cuzk_engine_job job = {.key = b->key,
                               .n_parts = o->partitions,
                               .prio = o->prio,
                               .synth = b->w->synth,
                               .user = b->w->user};
        uint64_t id = 0;
        cuzk_engine_result r;
        memset(&r, 0, sizeof r);
        int rc = cuzk_engine_submit(b->e, &job, &id, err, sizeof err);
        if (rc == CUZK_OK)
            rc = cuzk_engine_await(b->e, id, &r, err, sizeof err);
        if (rc == CUZK_OK && b->proofs) {
            /* a fresh engine numbers its jobs 1, 2, ... in submission order: each id owns its slot */
            if (id < 1 || id > o->count || r.n_proofs != o->partitions) {
                rc = CUZK_EINVAL;
                snprintf(err, sizeof err, "job %llu: %zu proofs, expected ids 1..%u with %u each",
                         (unsigned long long)id, r.n_proofs, o->count, o->partitions);
            } else {
                uint8_t *slot = b->proofs + (size_t)(id - 1) * o->partitions * CUZK_GROTH16_PROOF_SIZE;
                for (uint32_t p = 0; p < o->partitions; p++)
                    cuzk_groth16_proof_to_bytes(slot + (size_t)p * CUZK_GROTH16_PROOF_SIZE, &r.proofs[p]);
            }
        }
        pthread_mutex_lock(&b->mu);
        b->done++;
        if (rc == CUZK_OK) {
            double lat = (double)(r.t_done - r.t_submit) / 1e6;
            b->ok++;
            dist_add(&b->latency, lat);
            char pack[48] = "";
            if (r.pack_us)
                snprintf(pack, sizeof pack, " (packing %.3f s)", (double)r.pack_us / 1e6);
            fprintf(stderr,
                    "cuzk-bench: proof %u/%u ok in %.3f s (job %llu: synthesis %.3f s%s, device %.3f s, "
                    "lock wait %.3f s, finalize %.3f s, summed over %u partitions)\n",
                    b->done, o->count, lat, (unsigned long long)id, (double)r.synth_us / 1e6, pack,
                    (double)r.device_us / 1e6, (double)r.lock_wait_us / 1e6, (double)r.post_us / 1e6,
                    o->partitions);
        } else {
            b->failed++;
            fprintf(stderr, "cuzk-bench: proof %u/%u failed (job %llu): %s\n", b->done, o->count,
                    (unsigned long long)id, err[0] ? err : cuzk_strerror(rc));
        }
        pthread_mutex_unlock(&b->mu);
        cuzk_engine_result_free(&r);
    }
    return NULL;
}

static void print_bytes(const char *label, uint64_t v)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double x = (double)v;
    int u = 0;
    while (x >= 1024 && u < 4) {
        x /= 1024;
        u++;
    }
    printf("%s%.1f %s", label, x, units[u]);
}

static void print_summary(const bench_opts *o, const bench_workload *w, const cuzk_engine_config *c,
                          const cuzk_engine_stats *st, const bench_result *res, const recorder *rec,
                          const run_events *ev)
{
    printf("cuzk-bench %s: %u proof%s of %u partition%s, %u in flight\n", o->batch ? "batch" : "single",
           o->count, o->count == 1 ? "" : "s", o->partitions, o->partitions == 1 ? "" : "s", o->concurrency);
    printf("  workload     %s\n", w->desc);
    char ids[256]; /* the devices by number, shown when they are not the first `devices` */
    cuzk_engine_device_list_format(c->device_mask, ids, sizeof ids);
    bool first_n =
        cuzk_engine_device_id(c, 0) == 0 && cuzk_engine_device_id(c, c->devices - 1) == c->devices - 1;
    printf("  engine       %s backend; %d device%s%s%s%s x %d GPU worker%s (%d thread%s each); %d synthesis, "
           "%d post; queue %d; pool %d; priority %s%s%s\n",
           c->backend->name, c->devices, c->devices == 1 ? "" : "s", first_n ? "" : " (", first_n ? "" : ids,
           first_n ? "" : ")", c->gpu_workers, c->gpu_workers == 1 ? "" : "s", c->gpu_threads,
           c->gpu_threads == 1 ? "" : "s", c->synth_workers, c->post_workers, c->queue_depth, c->pool_idle,
           cuzk_engine_prio_name(o->prio), (c->flags & CUZK_ENGINE_NO_CHECK) ? "; no witness check" : "",
           (c->flags & CUZK_ENGINE_NO_ZPACK) ? "; witnesses sent whole" : "");
    if (c->key_vram) {
        print_bytes("  key VRAM     resident keys up to ", c->key_vram);
        printf(" per device, streamed from host memory beyond\n");
    }
    if (c->key_tables > 0) /* off: the default */
        printf("  key tables   up to k = %d\n", c->key_tables);
#ifdef CUZK_HAVE_GPU
    /* where the key went on each device (key_vram, or the plan of docs/engine.md: streamed is slower) */
    for (int i = 0; c->backend == cuzk_engine_backend_gpu() && i < c->devices; i++) {
        int d = cuzk_engine_device_id(c, i);
        uint64_t resident = 0;
        unsigned streamed = 0;
        cuzk_engine_backend_gpu_keys(d, &resident, &streamed);
        printf("  device %-5d", d);
        if (resident)
            print_bytes(" key resident (", resident);
        unsigned tables = cuzk_engine_backend_gpu_tables(d);
        if (resident && tables)
            printf(" with group tables of k = %u", tables);
        printf("%s%s\n", resident ? ")" : "",
               streamed ? " key streamed from host memory, wholly or in part (no room beside the provers, or "
                          "over key_vram: slower)"
               : resident ? ""
                          : " no key loaded");
    }
#endif
    printf("  evaluation   %s (a, b, c %s)\n", bench_eval_name(c->eval),
           c->eval == CUZK_ENGINE_EVAL_DEVICE ? "made in the device phase" : "made by the synthesis workers");
    printf("  proofs       %u ok, %u failed\n", res->ok, res->failed);
    printf("  wall         %.3f s\n", res->wall);
    if (res->ok)
        printf("  throughput   %.3f s/proof, %.2f proofs/min\n", res->per_proof, 60.0 * res->ok / res->wall);
    else
        printf("  throughput   -\n");
    if (o->count > 1) {
        if (res->steady >= 0)
            printf("  steady state %.3f s/proof (%zu deliveries over %.3f s; fill and drain left out)\n",
                   res->steady, ev->delivered, (double)(ev->last_deliver - ev->first_deliver) / 1e6);
        else
            printf("  steady state -\n");
    }
    if (res->kernel_per_proof >= 0)
        printf("  kernel time  %.3f s/proof (device-seconds of kernels per proof; divided by the devices, "
               "the device-bound rate)\n",
               res->kernel_per_proof);
    if (res->lat_p50 >= 0)
        printf("  latency      p50 %.3f s, p95 %.3f s, max %.3f s\n", res->lat_p50, res->lat_p95,
               res->lat_max);
    print_bytes("  budget       peak ", st->budget_peak);
    print_bytes(" of ", st->budget_total);
    print_bytes(" (keys ", st->budget_keys);
    printf(")\n");
    printf("  buffers      %llu allocated, %llu reused, %llu freed\n", (unsigned long long)st->buf_allocs,
           (unsigned long long)st->buf_reuses, (unsigned long long)st->buf_frees);
    if (st->parts_unpacked)
        printf("  witnesses    %llu sent whole: more values other than 0 and 1 than a packing holds\n",
               (unsigned long long)st->parts_unpacked);
    if (st->devices_lost) {
        char ids[256];
        cuzk_engine_device_list_format(st->devices_lost, ids, sizeof ids);
        printf("  devices lost %s (%d left in service; %llu partitions moved to them): %s\n", ids,
               st->devices_usable, (unsigned long long)st->parts_moved, st->device_error);
    }
    if (rec->oom)
        printf("  (events incomplete: out of memory while recording)\n");
    print_stages(rec, ev, res->wall);
}

int bench_batch(const bench_opts *o, const bench_workload *w, bool summary, bench_out *proofs,
                bench_result *res)
{
    char err[BENCH_ERRLEN] = "";
    memset(res, 0, sizeof *res);
    res->wall = res->per_proof = res->steady = res->kernel_util = res->kernel_per_proof = -1;
    res->lat_p50 = res->lat_p95 = res->lat_max = -1;
    recorder rec;
    memset(&rec, 0, sizeof rec);
    cuzk_engine *e = NULL;
    bench_state b;
    memset(&b, 0, sizeof b);
    pthread_mutex_init(&b.mu, NULL);
    b.o = o;
    b.w = w;
    int status = BENCH_FAIL;
    cuzk_timeline *tl = NULL;
    int rc = cuzk_timeline_new(&tl, o->timeline, sink, &rec, err, sizeof err);
    if (rc != CUZK_OK) {
        bench_error("%s", err);
        res->why = "cannot open the TIMELINE";
        goto out;
    }
    char *tl_tmp = cuzk_timeline_temp_path(tl); /* removed if a signal stops the run */
    if (tl_tmp)
        cuzk_temp_track(tl_tmp);
    if (proofs && !(b.proofs = calloc((size_t)o->count * o->partitions, CUZK_GROTH16_PROOF_SIZE))) {
        bench_error("out of memory for %u proofs", o->count * o->partitions);
        res->why = "out of memory";
        goto out;
    }
    cuzk_engine_config cfg = o->cfg;
    cfg.timeline = tl;
    cfg.rs_seed = o->seeded ? o->seed : 0;
    rc = cuzk_engine_new(&e, &cfg, err, sizeof err);
    if (rc == CUZK_OK)
        rc = cuzk_engine_key_new(e, &w->pk, &w->cs, &b.key, err, sizeof err);
    if (rc != CUZK_OK) {
        bench_error("%s", err[0] ? err : cuzk_strerror(rc));
        res->why = e ? "key not accepted" : "engine did not start";
        goto out;
    }
    b.e = e;
    cuzk_engine_config eff;
    cuzk_engine_get_config(e, &eff);
    res->eval = eff.eval;
    uint32_t nt = o->concurrency < o->count ? o->concurrency : o->count;
    pthread_t *th = calloc(nt, sizeof *th);
    if (!th) {
        bench_error("out of memory");
        res->why = "out of memory";
        goto out;
    }
    double t0 = bench_now();
    uint32_t started = 0;
    for (; started < nt; started++)
        if (pthread_create(&th[started], NULL, client_main, &b) != 0)
            break;
    if (!started) {
        bench_error("cannot start a client thread");
        res->why = "no client thread";
        free(th);
        goto out;
    }
    res->started = true;
    for (uint32_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    double wall = bench_now() - t0;
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    cuzk_engine_key_free(b.key);
    b.key = NULL;
    cuzk_engine_free(e);
    e = NULL;
    if (tl_tmp)
        cuzk_temp_untrack(tl_tmp);
    rc = cuzk_timeline_close(tl, err, sizeof err);
    tl = NULL;
    if (rc != CUZK_OK) {
        bench_error("%s", err);
        res->why = "TIMELINE not written";
    }

    res->ok = b.ok;
    res->failed = b.failed;
    res->wall = wall;
    res->per_proof = b.ok ? wall / b.ok : -1;
    res->budget_peak = st.budget_peak;
    dist_sort(&b.latency);
    if (b.latency.n) {
        res->lat_p50 = pct(&b.latency, 50);
        res->lat_p95 = pct(&b.latency, 95);
        res->lat_max = b.latency.v[b.latency.n - 1];
    }
    run_events ev;
    if (events_collect(&ev, &rec, o->count, o->partitions) != CUZK_OK) {
        bench_error("out of memory for the event tables");
        res->why = "out of memory";
        rc = CUZK_ENOMEM;
    } else {
        res->steady = events_steady(&ev);
        res->kernel_per_proof = events_kernel_per_proof(&ev);
        res->kernel_util = events_kernel_util(&ev, eff.devices, wall);
        if (summary)
            print_summary(o, w, &eff, &st, res, &rec, &ev);
        free(ev.pt);
    }
    if (rc == CUZK_OK && b.ok == o->count && proofs) /* a short write shows at bench_out_commit */
        fwrite(b.proofs, CUZK_GROTH16_PROOF_SIZE, (size_t)o->count * o->partitions, proofs->f);
    status = rc == CUZK_OK && b.ok == o->count ? BENCH_OK : BENCH_FAIL;
out:
    cuzk_engine_key_free(b.key);
    cuzk_engine_free(e);
    if (tl && cuzk_timeline_temp_path(tl))
        cuzk_temp_untrack(cuzk_timeline_temp_path(tl));
    cuzk_timeline_discard(tl); /* only when the engine never ran */
    free(b.proofs);
    free(b.latency.v);
    pthread_mutex_destroy(&b.mu);
    recorder_free(&rec);
    return status;
}

int bench_run(const bench_opts *o)
{
    char err[BENCH_ERRLEN] = "";
    bench_out proofs = {0};
    if (o->proofs_out && bench_out_open(&proofs, o->proofs_out) != BENCH_OK)
        return BENCH_FAIL; /* before the workload: a bad destination fails at once */
    if (o->timeline) {     /* the same for the TIMELINE, which bench_batch opens: a probe, removed at once */
        cuzk_outfile probe;
        char who[PATH_MAX + 32];
        snprintf(who, sizeof who, "timeline: cannot write %s", o->timeline);
        if (cuzk_outfile_open(&probe, o->timeline, 0, who, err, sizeof err) != CUZK_OK) {
            bench_error("%s", err);
            bench_out_abort(&proofs);
            return BENCH_FAIL;
        }
        cuzk_outfile_abort(&probe);
    }
    bench_workload w;
    fprintf(stderr, "cuzk-bench: building workload %s (2^%u domain)\n", o->workload, o->constraints_lg);
    double t = bench_now();
    int rc = bench_workload_new(&w, o, err, sizeof err);
    if (rc != CUZK_OK) {
        bench_error("workload %s: %s", o->workload, err[0] ? err : cuzk_strerror(rc));
        bench_out_abort(&proofs);
        return BENCH_FAIL;
    }
    fprintf(stderr, "cuzk-bench: workload ready in %.3f s: %s\n", bench_now() - t, w.desc);
    bench_result res;
    int status = bench_batch(o, &w, true, o->proofs_out ? &proofs : NULL, &res);
    if (o->proofs_out) {
        if (status == BENCH_OK)
            status = bench_out_commit(&proofs);
        else
            bench_out_abort(&proofs);
    }
    bench_workload_free(&w);
    return status;
}
