/*
 * sweep.c — `cuzk-bench sweep`: one workload, one batch per (c, j, gw).
 *
 * Building the workload is the expensive part at full scale (~75 s for a
 * 2^27 PoRep-shaped partition), so it happens once; each combination then
 * gets a fresh engine (gpu_workers = gw, every other knob from the command
 * line) and runs bench_batch, the code of `batch`: c proofs, j in flight,
 * every proof verified. Combinations with j > c are skipped (j - c clients
 * would have nothing to do) and the skip is said on stderr.
 *
 * Each row goes to stdout, in one markdown table, as soon as its
 * combination is done, and --csv FILE is rewritten (to a temporary file,
 * renamed into place) after every combination, so a sweep stopped half-way
 * (a full-scale grid runs for hours) leaves the rows it finished and never a
 * half-written file. A
 * failing combination fills its row as far as it got, says FAILED, and the
 * sweep goes on; the exit status is then 1.
 *
 * Host memory: before each combination the kernel's resident high-water
 * mark is reset by writing "5" to /proc/self/clear_refs (after handing the
 * allocator's free memory back, so that what the previous combination left
 * in the heap does not count); VmHWM from /proc/self/status afterwards is
 * the combination's peak. Where the reset is refused the figure is the
 * process maximum so far, marked '*' in the table and "process" in the CSV.
 * The built workload stays resident and is part of every figure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "bench.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Resets the resident high-water mark to the current RSS; 0, or the errno of the refusal. */
static int rss_reset(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return errno ? errno : EIO;
    errno = 0;
    int rc = fputs("5", f) < 0 ? (errno ? errno : EIO) : 0;
    errno = 0;
    if (fclose(f) != 0 && !rc) /* the write reaches the kernel here */
        rc = errno ? errno : EIO;
    return rc;
}

/* VmHWM in bytes, or -1 where /proc/self/status does not say. */
static int64_t rss_peak(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return kb < 0 ? -1 : (int64_t)kb * 1024;
}

typedef struct {
    uint32_t c, j, gw;
    int status;
    bench_result r;
    int64_t rss;      /* bytes, -1 unknown */
    bool rss_process; /* the reset was refused: the process maximum so far */
} sweep_row;

/* v with format f, or `none` where v is negative (not measured). */
static const char *num(char *buf, size_t n, const char *f, double v, const char *none)
{
    if (v < 0)
        return none;
    snprintf(buf, n, f, v);
    return buf;
}

static void row_status(char *buf, size_t n, const sweep_row *w)
{
    if (w->status == BENCH_OK)
        snprintf(buf, n, "ok");
    else if (w->r.failed)
        snprintf(buf, n, "FAILED: %u of %u proofs", w->r.failed, w->c);
    else
        snprintf(buf, n, "FAILED: %s", w->r.why ? w->r.why : "see the messages");
}

static void table_header(void)
{
    printf("| c | j | gw | wall s | s/proof overall | s/proof steady | kernel s/proof | latency p50 s | "
           "latency p95 s | kernel util %% | budget peak GiB | host peak RSS GiB | status |\n");
    printf("|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
}

static void table_row(const sweep_row *w)
{
    char b[9][32], st[64];
    const bench_result *r = &w->r;
    row_status(st, sizeof st, w);
    const char *rss = num(b[7], sizeof b[7], "%.3f", w->rss >= 0 ? (double)w->rss / GIB : -1, "-");
    printf("| %u | %u | %u | %s | %s | %s | %s | %s | %s | %s | %s | %s%s | %s |\n", w->c, w->j, w->gw,
           num(b[0], sizeof b[0], "%.3f", r->wall, "-"), num(b[1], sizeof b[1], "%.3f", r->per_proof, "-"),
           num(b[2], sizeof b[2], "%.3f", r->steady, "-"),
           num(b[8], sizeof b[8], "%.3f", r->kernel_per_proof, "-"),
           num(b[3], sizeof b[3], "%.3f", r->lat_p50, "-"), num(b[4], sizeof b[4], "%.3f", r->lat_p95, "-"),
           num(b[5], sizeof b[5], "%.1f", r->kernel_util, "-"),
           num(b[6], sizeof b[6], "%.3f", r->started ? (double)r->budget_peak / GIB : -1, "-"), rss,
           w->rss >= 0 && w->rss_process ? "*" : "", st);
    fflush(stdout);
}

static void csv_header(FILE *f)
{
    fprintf(f, "c,j,gw,wall_s,s_per_proof,steady_s_per_proof,kernel_s_per_proof,latency_p50_s,latency_p95_s,"
               "kernel_util_pct,budget_peak_gib,host_peak_rss_gib,rss_scope,status\n");
}

static void csv_row(FILE *f, const sweep_row *w)
{
    char b[9][32], st[64];
    const bench_result *r = &w->r;
    row_status(st, sizeof st, w);
    fprintf(f, "%u,%u,%u,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", w->c, w->j, w->gw,
            num(b[0], sizeof b[0], "%.6f", r->wall, ""), num(b[1], sizeof b[1], "%.6f", r->per_proof, ""),
            num(b[2], sizeof b[2], "%.6f", r->steady, ""),
            num(b[8], sizeof b[8], "%.6f", r->kernel_per_proof, ""),
            num(b[3], sizeof b[3], "%.6f", r->lat_p50, ""), num(b[4], sizeof b[4], "%.6f", r->lat_p95, ""),
            num(b[5], sizeof b[5], "%.2f", r->kernel_util, ""),
            num(b[6], sizeof b[6], "%.6f", r->started ? (double)r->budget_peak / GIB : -1, ""),
            num(b[7], sizeof b[7], "%.6f", w->rss >= 0 ? (double)w->rss / GIB : -1, ""),
            w->rss < 0       ? ""
            : w->rss_process ? "process"
                             : "combination",
            st);
}

/* path = the header and rows[0 .. n), atomically (temporary file, fsync, rename). */
static int csv_write(const char *path, const sweep_row *rows, unsigned n)
{
    bench_out out;
    if (bench_out_open(&out, path) != BENCH_OK)
        return BENCH_FAIL;
    csv_header(out.f);
    for (unsigned i = 0; i < n; i++)
        csv_row(out.f, &rows[i]);
    return bench_out_commit(&out);
}

/* The longest --timeline-dir: room is left in run_one's 4096-byte path for "/c%u-j%u-gw%u.jsonl". */
#define SWEEP_DIR_MAX 4000

/* Runs one combination into *w. */
static void run_one(const bench_opts *o, const bench_workload *wl, sweep_row *w, bool *warned)
{
    bench_opts co = *o;
    co.batch = true;
    co.sweep = false;
    co.count = w->c;
    co.concurrency = w->j;
    co.cfg.gpu_workers = (int)w->gw;
    co.timeline = NULL;
    char path[4096];
    if (o->timeline_dir) {
        snprintf(path, sizeof path, "%s/c%u-j%u-gw%u.jsonl", o->timeline_dir, w->c, w->j, w->gw);
        co.timeline = path;
    }
    int e = rss_reset();
    w->rss_process = e != 0;
    if (e && !*warned) {
        bench_error("sweep: cannot reset the peak RSS (/proc/self/clear_refs: %s); host peak RSS is the "
                    "process maximum so far (marked *)",
                    strerror(e));
        *warned = true;
    }
    w->status = bench_batch(&co, wl, false, NULL, &w->r);
    w->rss = rss_peak();
}

int bench_sweep(const bench_opts *o)
{
    char err[BENCH_ERRLEN] = "";
    if (o->timeline_dir) { /* before the workload: a bad destination fails at once */
        struct stat st;
        if (strlen(o->timeline_dir) > SWEEP_DIR_MAX) { /* the cells' file names must fit run_one's path */
            bench_error("--timeline-dir: a path of %zu bytes; at most %d", strlen(o->timeline_dir), SWEEP_DIR_MAX);
            return BENCH_FAIL;
        }
        if (stat(o->timeline_dir, &st) != 0) {
            bench_error("--timeline-dir %s: %s", o->timeline_dir, strerror(errno));
            return BENCH_FAIL;
        }
        if (!S_ISDIR(st.st_mode)) {
            bench_error("--timeline-dir %s: not a directory", o->timeline_dir);
            return BENCH_FAIL;
        }
        if (access(o->timeline_dir, W_OK | X_OK) != 0) {
            bench_error("--timeline-dir %s: %s", o->timeline_dir, strerror(errno));
            return BENCH_FAIL;
        }
    }
    /* the CSV is written once now (header only: an unwritable path fails before the workload is built) and
     * again after every combination */
    if (o->csv && csv_write(o->csv, NULL, 0) != BENCH_OK)
        return BENCH_FAIL;

    unsigned total = 0;
    for (unsigned a = 0; a < o->n_c; a++)
        for (unsigned b = 0; b < o->n_j; b++) {
            if (o->j_list[b] > o->c_list[a])
                fprintf(stderr, "cuzk-bench: sweep: skipping c=%u j=%u for every gw (j > c)\n", o->c_list[a],
                        o->j_list[b]);
            else
                total += o->n_gw;
        }

    bench_workload wl;
    fprintf(stderr, "cuzk-bench: building workload %s (2^%u domain), once for %u combinations\n", o->workload,
            o->constraints_lg, total);
    double t = bench_now();
    int rc = bench_workload_new(&wl, o, err, sizeof err);
    if (rc != CUZK_OK) {
        bench_error("workload %s: %s", o->workload, err[0] ? err : cuzk_strerror(rc));
        return BENCH_FAIL;
    }
    fprintf(stderr, "cuzk-bench: workload ready in %.3f s: %s\n", bench_now() - t, wl.desc);

    table_header();
    sweep_row *rows = calloc(total ? total : 1, sizeof *rows);
    if (!rows) {
        bench_error("sweep: out of memory");
        bench_workload_free(&wl);
        return BENCH_FAIL;
    }
    int status = BENCH_OK;
    unsigned done = 0, failed = 0;
    bool warned = false;
    for (unsigned a = 0; a < o->n_c; a++)
        for (unsigned b = 0; b < o->n_j; b++)
            for (unsigned g = 0; g < o->n_gw && o->j_list[b] <= o->c_list[a]; g++) {
                sweep_row w = {.c = o->c_list[a], .j = o->j_list[b], .gw = o->gw_list[g]};
                fprintf(stderr, "cuzk-bench: sweep %u/%u: c=%u j=%u gw=%u\n", ++done, total, w.c, w.j, w.gw);
                run_one(o, &wl, &w, &warned);
                char st[64];
                row_status(st, sizeof st, &w);
                if (w.r.started)
                    fprintf(stderr,
                            "cuzk-bench: sweep %u/%u: c=%u j=%u gw=%u: %s, wall %.3f s, evaluation %s\n",
                            done, total, w.c, w.j, w.gw, st, w.r.wall, bench_eval_name(w.r.eval));
                else
                    fprintf(stderr, "cuzk-bench: sweep %u/%u: c=%u j=%u gw=%u: %s\n", done, total, w.c, w.j,
                            w.gw, st);
                if (w.status != BENCH_OK) {
                    status = BENCH_FAIL;
                    failed++;
                }
                table_row(&w);
                fflush(stdout);
                rows[done - 1] = w;
                if (o->csv && csv_write(o->csv, rows, done) != BENCH_OK)
                    status = BENCH_FAIL;
            }
    bench_workload_free(&wl);
    free(rows);
    if (failed)
        bench_error("sweep: %u of %u combinations failed", failed, total);
    return status;
}
