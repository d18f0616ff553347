/*
 * bench.h — what the parts of `cuzk-bench` share.
 *
 * main.c parses the command line into bench_opts (every engine knob is a
 * flag), workload.c builds the circuit, key and synthesis callback of the
 * chosen workload, run.c drives the engine (one job = one proof of
 * --partitions partitions; `batch` keeps -j of the -c proofs in flight),
 * collects the TIMELINE events through the writer's sink, and prints the
 * summary; sweep.c runs that batch once per (c, j, gw) combination on one
 * workload and tabulates the results; report.c is `timeline report`. Exit
 * status: BENCH_OK (0) every proof delivered and verified, BENCH_FAIL (1) a
 * proof failed or the run could not be set up, BENCH_USAGE (2) a usage
 * error. Every message on stderr starts with "cuzk-bench: ".
 */
#ifndef CUZK_BENCH_H
#define CUZK_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/cs.h"
#include "cuzk/engine.h"
#include "cuzk/setup.h"
#include "cuzk/groth16.h"
#include "cuzk/outfile.h"

#ifndef CUZK_VERSION
#define CUZK_VERSION "unknown"
#endif

enum { BENCH_OK = 0, BENCH_FAIL = 1, BENCH_USAGE = 2 };

#define BENCH_ERRLEN 512
#define BENCH_LIST_MAX 16 /* entries of a sweep list */

/* --key-form: the form of the workload's key. */
typedef enum {
    BENCH_KEY_COSET = 0,  /* made in the coset form (cuzk/groth16.h; the default) */
    BENCH_KEY_BELLPERSON, /* made in bellperson's form (the .params layout) */
    BENCH_KEY_CONVERTED,  /* made in bellperson's form, then taken to the coset form by
                             cuzk_groth16_params_to_coset (docs/design/022), timed */
} bench_key_form;

/* One parsed `single`, `batch` or `sweep` command line. 0 in an engine knob means the engine's default. */
typedef struct {
    bool batch, sweep;
    const char *workload; /* "random" */
    uint32_t partitions;
    unsigned constraints_lg; /* log2 of the evaluation domain */
    uint64_t seed;           /* circuit seed; with --seed also the toxic waste and r, s (reproducible) */
    bool seeded;
    unsigned witness_threads;    /* porep: threads of the witness pool; 0 = every online CPU */
    uint32_t count, concurrency; /* batch: -c, -j */
    cuzk_engine_prio prio;
    cuzk_engine_config cfg; /* synth_workers, gpu_workers, gpu_threads, post_workers, devices,
                               queue_depth, pool_idle, budget, flags, eval */
    const char *timeline;   /* --timeline FILE, or NULL */
    const char *proofs_out; /* --proofs-out FILE, or NULL */
    const cuzk_setup_accel *setup_accel; /* where the workload's key is made: NULL = CPU (--backend gpu: GPU) */
    bench_key_form key_form; /* --key-form */
    /* sweep: every (c, j, gw) of the three lists, in this order */
    uint32_t c_list[BENCH_LIST_MAX], j_list[BENCH_LIST_MAX], gw_list[BENCH_LIST_MAX];
    unsigned n_c, n_j, n_gw;
    const char *csv;          /* --csv FILE, or NULL */
    const char *timeline_dir; /* --timeline-dir DIR, or NULL */
} bench_opts;

/* A workload: a circuit, its key and the witness of every partition. */
typedef struct {
    char desc[256]; /* one line for the summary */
    cuzk_cs cs;
    cuzk_groth16_params pk;
    cuzk_engine_synth_fn synth;
    void *user; /* the workload's state for synth */
    void (*free_user)(void *user);
} bench_workload;

/* Names of the workloads, for --help and errors. */
extern const char *const bench_workload_names[];

/* The --constraints range (log2 of the domain) of the workload called name; CUZK_EINVAL for an unknown name. */
int bench_workload_lg_range(const char *name, unsigned *lo, unsigned *hi);

/* Builds the workload o->workload into *w (zeroed first); CUZK_EINVAL for an unknown name. */
int bench_workload_new(bench_workload *w, const bench_opts *o, char *err, size_t errlen);
void bench_workload_free(bench_workload *w);

/* An output file that appears at its path only when complete: the library's cuzk_outfile
 * (cuzk/outfile.h), its temporary file removed by a fatal signal, written through its stream f; renamed
 * into place by bench_out_commit, or removed by bench_out_abort. */
typedef cuzk_outfile bench_out;

/* Creates the temporary file; BENCH_OK, or BENCH_FAIL with the reason on stderr. */
int bench_out_open(bench_out *out, const char *path);
/* Flushes, fsyncs and renames; on any failure removes the temporary file and says why (BENCH_FAIL). */
int bench_out_commit(bench_out *out);
/* Removes the temporary file; a no-op when nothing is open. */
void bench_out_abort(bench_out *out);

/* What one bench_batch measured. Seconds; a figure that could not be measured is negative. */
typedef struct {
    bool started;            /* the engine ran (false: it could not be set up; the reason is on stderr) */
    uint32_t ok, failed;     /* proofs delivered and verified; proofs that failed */
    double wall, per_proof;  /* first submit to last delivery; wall / ok */
    double steady;           /* (last delivery - first delivery) / (deliveries - 1): s/proof once full */
    double kernel_per_proof; /* every device's kernel busy time / delivered proofs (device-seconds) */
    double lat_p50, lat_p95, lat_max;
    double kernel_util;    /* % of the wall time the devices ran kernels (union of intervals), mean over
                              the engine's devices */
    uint64_t budget_peak;  /* bytes */
    cuzk_engine_eval eval; /* where a, b, c were evaluated (resolved) */
    const char *why;       /* failed for another reason than a proof: what failed (static text), else NULL */
} bench_result;

/* Proves o->count proofs of the built workload w with o->concurrency in flight, on a fresh engine made from
 * o->cfg (TIMELINE to o->timeline if set). Prints the single/batch summary on stdout when `summary`; writes
 * every proof (192 bytes, jobs in submission order, partitions in order) to `proofs` when not NULL (the
 * caller commits or aborts it). Fills *res; returns BENCH_OK when every proof verified, else BENCH_FAIL. */
int bench_batch(const bench_opts *o, const bench_workload *w, bool summary, bench_out *proofs,
                bench_result *res);

/* single / batch: returns the exit status. */
int bench_run(const bench_opts *o);

/* sweep: returns the exit status. */
int bench_sweep(const bench_opts *o);

/* "host" or "device" (or "auto"). */
const char *bench_eval_name(cuzk_engine_eval e);

/* `timeline report FILE [--svg OUT]`: returns the exit status. */
int bench_report(const char *path, const char *svg);
/* Whether `timeline report` is part of this build. */
extern const bool bench_have_report;
/* Whether `--addr` (the cuzkd client, remote.c) is part of this build. */
extern const bool bench_have_remote;

/* "cuzk-bench: <message>" on stderr. */
void bench_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Monotonic seconds. */
double bench_now(void);

#endif
