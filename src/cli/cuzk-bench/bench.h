/*
 * bench.h — what the parts of `cuzk-bench` share.
 *
 * main.c parses the command line into bench_opts (every engine knob is a
 * flag), workload.c builds the circuit, key and synthesis callback of the
 * chosen workload, run.c drives the engine (one job = one proof of
 * --partitions partitions; `batch` keeps -j of the -c proofs in flight),
 * collects the TIMELINE events through the writer's sink, and prints the
 * summary; report.c is `timeline report`. Exit status: BENCH_OK (0) every
 * proof delivered and verified, BENCH_FAIL (1) a proof failed or the run
 * could not be set up, BENCH_USAGE (2) a usage error. Every message on
 * stderr starts with "cuzk-bench: ".
 */
#ifndef CUZK_BENCH_H
#define CUZK_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs.h"
#include "cuzk/engine.h"
#include "cuzk/setup.h"
#include "cuzk/groth16.h"

#ifndef CUZK_VERSION
#define CUZK_VERSION "unknown"
#endif

enum { BENCH_OK = 0, BENCH_FAIL = 1, BENCH_USAGE = 2 };

#define BENCH_ERRLEN 512

/* One parsed `single` or `batch` command line. 0 in an engine knob means the engine's default. */
typedef struct {
    bool batch;
    const char *workload; /* "random" */
    uint32_t partitions;
    unsigned constraints_lg; /* log2 of the evaluation domain */
    uint64_t seed;           /* circuit seed; with --seed also the deterministic r, s */
    bool seeded;
    uint32_t count, concurrency; /* batch: -c, -j */
    cuzk_engine_prio prio;
    cuzk_engine_config cfg; /* synth_workers, gpu_workers, gpu_threads, post_workers, devices,
                               queue_depth, pool_idle, budget, flags */
    const char *timeline;   /* --timeline FILE, or NULL */
    const cuzk_setup_accel *setup_accel; /* where the workload's key is made: NULL = CPU (--backend gpu: GPU) */
} bench_opts;

/* A workload: a circuit, its key and the witness of every partition. */
typedef struct {
    char desc[160]; /* one line for the summary */
    cuzk_cs cs;
    cuzk_groth16_params pk;
    cuzk_engine_synth_fn synth;
    void *user; /* the workload's state for synth */
    void (*free_user)(void *user);
} bench_workload;

/* Names of the workloads, for --help and errors. */
extern const char *const bench_workload_names[];

/* Builds the workload o->workload into *w (zeroed first); CUZK_EINVAL for an unknown name. */
int bench_workload_new(bench_workload *w, const bench_opts *o, char *err, size_t errlen);
void bench_workload_free(bench_workload *w);

/* single / batch: returns the exit status. */
int bench_run(const bench_opts *o);

/* `timeline report FILE [--svg OUT]`: returns the exit status. */
int bench_report(const char *path, const char *svg);
/* Whether `timeline report` is part of this build. */
extern const bool bench_have_report;

/* "cuzk-bench: <message>" on stderr. */
void bench_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Monotonic seconds. */
double bench_now(void);

#endif
