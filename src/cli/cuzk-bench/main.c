/*
 * main.c — the `cuzk-bench` command line (docs/engine.md):
 *
 *   cuzk-bench single [options]                 one proof through the engine
 *   cuzk-bench batch -c N -j M [options]        N proofs, at most M in flight
 *   cuzk-bench sweep [lists] [options]          a batch per (c, j, gw), one table
 *   cuzk-bench timeline report FILE [--svg OUT] explain a TIMELINE file
 *
 * Every engine knob is a flag; sweep takes lists (--c-list, --j-list,
 * --gw-list: distinct positive integers, comma-separated, at most
 * BENCH_LIST_MAX) where batch takes -c, -j and --gpu-workers. Options may
 * come in any order; `--name value` and `--name=value` are both accepted,
 * as are `-c N` and `-j M`. An unknown option, a flag the command does not
 * take, a bad value or a stray argument prints the command's usage line on
 * stderr and exits 2; `--help` anywhere prints the command's help and exits
 * 0. Progress goes to stderr, the summary table to stdout.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#ifdef CUZK_HAVE_GPU
#include "cuzk/gpu.h"
#include "cuzk/gpu_prove.h"
#include "cuzk/gpu_setup.h"
#define BENCH_NO_GPU "no CUDA device is present"
#else
#define BENCH_NO_GPU "this build has no CUDA backend (configure where nvcc is installed)"
#endif

enum {
    F_WORKLOAD,
    F_BACKEND,
    F_EVAL,
    F_EVAL_THREADS,
    F_PARTITIONS,
    F_CONSTRAINTS,
    F_SYNTH,
    F_WITNESS,
    F_GPU_WORKERS,
    F_THREADS,
    F_POST,
    F_DEVICES,
    F_DEVICE_IDS,
    F_QUEUE,
    F_POOL,
    F_BUDGET,
    F_KEY_VRAM,
    F_KEY_TABLES,
    F_PRIORITY,
    F_SEED,
    F_NO_CHECK,
    F_NO_ZPACK,
    F_KEY_FORM,
    F_TIMELINE,
    F_PROOFS_OUT,
    F_COUNT,
    F_CONCURRENCY,
    F_C_LIST,
    F_J_LIST,
    F_GW_LIST,
    F_CSV,
    F_TIMELINE_DIR,
    F_NFLAGS
};

_Static_assert(F_NFLAGS <= 32, "a command's flags are bits of an unsigned");
#define RUN_FLAGS ((1u << F_COUNT) - 1) /* every flag before F_COUNT */
/* sweep: the run flags but those it sweeps or writes per combination, and its own */
#define SWEEP_FLAGS                                                                                          \
    ((RUN_FLAGS & ~((1u << F_GPU_WORKERS) | (1u << F_TIMELINE) | (1u << F_PROOFS_OUT))) | (1u << F_C_LIST) | \
     (1u << F_J_LIST) | (1u << F_GW_LIST) | (1u << F_CSV) | (1u << F_TIMELINE_DIR))

/* one flag per line: a table to read, not to wrap */
/* clang-format off */
static const struct {
    const char *name, *alias, *arg, *help;
} FLAGS[F_NFLAGS] = {
    [F_WORKLOAD] = {"--workload", NULL, "NAME", "what to prove: random (default) or porep (PoRep-shaped, scale 2^-(27 - LG))"},
    [F_BACKEND] = {"--backend", NULL, "NAME", "cpu (default); gpu: proofs and the workload's key on the CUDA device; auto: gpu where there is one"},
    [F_EVAL] = {"--eval", NULL, "PLACE", "where a, b, c = A z, B z, C z are made: host (synthesis workers), device (device phase) or auto (default: the backend's choice; GPU: device, CPU: host)"},
    [F_PARTITIONS] = {"--partitions", NULL, "N", "partitions per proof (default 2)"},
    [F_CONSTRAINTS] = {"--constraints", NULL, "LG", "log2 of the circuit's domain, 2..26 (default 10); porep: 11..27, 27 = a full partition, no default"},
    [F_SYNTH] = {"--synth-threads", NULL, "N", "synthesis workers, one partition each (default 2)"},
    [F_EVAL_THREADS] = {"--eval-threads", NULL, "N", "host evaluation: threads of the one pool the synthesis workers evaluate a, b, c and check on, in turn (default: every online CPU)"},
    [F_WITNESS] = {"--witness-threads", NULL, "N", "porep: threads of the one pool the synthesis workers build witnesses on, in turn (default: every online CPU)"},
    [F_GPU_WORKERS] = {"--gpu-workers", NULL, "N", "GPU workers per device sharing its lock, gw (default 2)"},
    [F_THREADS] = {"--threads", NULL, "N", "CPU threads of each GPU worker (default: every online CPU)"},
    [F_POST] = {"--post-threads", NULL, "N", "post-processing workers: epilogue + verification (default 1)"},
    [F_DEVICES] = {"--devices", NULL, "N", "devices; on the CPU backend, lock domains (default: every device of the GPU backend, 1 on the CPU)"},
    [F_DEVICE_IDS] = {"--device-ids", NULL, "LIST", "which devices, by number, e.g. 1,3 or 0-3 (default: the first --devices; GPU: CUDA's numbers)"},
    [F_QUEUE] = {"--queue-depth", NULL, "N", "bounded GPU queue (default devices x gpu-workers)"},
    [F_POOL] = {"--pool-idle", NULL, "N", "idle partition buffers kept for reuse (default: see docs)"},
    [F_BUDGET] = {"--budget", NULL, "SIZE", "memory budget in bytes, suffix K/M/G/T (default 3/4 of RAM)"},
    [F_KEY_VRAM] = {"--key-vram", NULL, "SIZE", "GPU: device bytes for resident proving keys per device; a key beyond it is streamed from host memory (default 0: as many as fit)"},
    [F_KEY_TABLES] = {"--key-tables", NULL, "K", "GPU: the largest k of the group tables a resident key's witness vectors may be held as (default off; K: the largest that fits with 8 GiB left free)"},
    [F_PRIORITY] = {"--priority", NULL, "P", "low, normal (default), high or critical"},
    [F_SEED] = {"--seed", NULL, "N", "circuit seed (default 1); also makes the key's toxic waste and r, s deterministic: the same proofs every run"},
    [F_NO_CHECK] = {"--no-check", NULL, NULL, "skip the a.b = c witness check (after synthesis, or in the device phase with device evaluation); verification stays"},
    [F_NO_ZPACK] = {"--no-zpack", NULL, NULL, "GPU, device evaluation: send each witness whole (default: packed by synthesis, 3 bits a 0 or 1 value, expanded on the device)"},
    [F_KEY_FORM] = {"--key-form", NULL, "NAME", "the workload's key: coset (default: h over the coset's Lagrange basis, C's share folded into l; two NTTs fewer a partition, docs/design/021), bellperson (the .params layout) or converted (made in bellperson's form, then converted without the toxic waste as `cuzk coset-key` does, timed; docs/design/022); the same proofs"},
    [F_TIMELINE] = {"--timeline", NULL, "FILE", "write the TIMELINE events (JSON Lines) to FILE"},
    [F_PROOFS_OUT] = {"--proofs-out", NULL, "FILE", "write every proof to FILE: 192 bytes each (bellperson), jobs in submission order, partitions in order"},
    [F_COUNT] = {"--count", "-c", "N", "proofs to submit (default 4)"},
    [F_CONCURRENCY] = {"--concurrency", "-j", "M", "proofs in flight at once (default 2)"},
    [F_C_LIST] = {"--c-list", NULL, "N,...", "proofs per combination, the c of batch (default 5,10,20)"},
    [F_J_LIST] = {"--j-list", NULL, "M,...", "proofs in flight, the j of batch (default 2,5,10); j > c is skipped"},
    [F_GW_LIST] = {"--gw-list", NULL, "G,...", "GPU workers per device sharing its lock, gw (default 1,2)"},
    [F_CSV] = {"--csv", NULL, "FILE", "also write the rows as CSV to FILE, rewritten atomically after each combination"},
    [F_TIMELINE_DIR] = {"--timeline-dir", NULL, "DIR", "write each combination's TIMELINE to DIR/c<C>-j<J>-gw<G>.jsonl"},
};
/* clang-format on */

typedef struct {
    const char *name, *synopsis, *summary, *help;
    unsigned flags;
} command;

static const command CMD_SINGLE = {
    "single", "[options]", "prove once through the engine and summarize",
    "Proves one proof (--partitions partitions) of the workload through the engine and prints the\n"
    "summary: wall time, latency, per-stage durations from the TIMELINE events, device kernel busy time.",
    RUN_FLAGS};
static const command CMD_BATCH = {
    "batch", "-c N -j M [options]", "prove N times with M in flight and summarize",
    "Submits -c proofs, keeping at most -j in flight (each client submits one job and awaits it), then\n"
    "prints throughput (s/proof, proofs/min, pipeline fill and drain included), latency p50/p95/max and\n"
    "per-stage p50/p95/max from the TIMELINE events.",
    RUN_FLAGS | (1u << F_COUNT) | (1u << F_CONCURRENCY)};
static const command CMD_SWEEP = {
    "sweep", "[--c-list N,...] [--j-list M,...] [--gw-list G,...] [options]",
    "prove every (c, j, gw) combination on one workload and tabulate",
    "Builds the workload once, then for every combination of the lists (c outermost, gw innermost;\n"
    "combinations with j > c are skipped) runs a batch on a fresh engine with gw GPU workers per device:\n"
    "c proofs, j in flight, every proof verified. Progress goes to stderr; stdout gets one markdown\n"
    "table, a row per combination: wall time, s/proof overall and in the steady state (first to last\n"
    "delivery), kernel s/proof (device-seconds per proof), latency p50/p95, kernel utilization (the\n"
    "union of kernel intervals over the wall time, mean over devices), budget peak, and the host's\n"
    "peak resident memory (VmHWM) during the combination: the high-water mark is reset through\n"
    "/proc/self/clear_refs before each one; where that is refused the figure is the process maximum\n"
    "so far, marked *. A failing combination is reported in its row and makes the exit status 1;\n"
    "the sweep goes on.",
    SWEEP_FLAGS};
static const command CMD_REPORT = {
    "timeline report", "FILE [--svg OUT.svg]", "explain a TIMELINE file",
    "Reads a TIMELINE file (as written by --timeline) and prints throughput, latency, per-stage\n"
    "durations and per-device kernel utilization; --svg also draws the waterfall.",
    0};

static void print_main_usage(FILE *f)
{
    fprintf(f,
            "Usage: cuzk-bench <command> [options]\n\n"
            "Drives the cuzk proving engine and reports what it did.\n\n"
            "Commands:\n"
            "  %-16s %s\n  %-16s %s\n  %-16s %s\n",
            CMD_SINGLE.name, CMD_SINGLE.summary, CMD_BATCH.name, CMD_BATCH.summary, CMD_SWEEP.name,
            CMD_SWEEP.summary);
    if (bench_have_report)
        fprintf(f, "  %-16s %s\n", CMD_REPORT.name, CMD_REPORT.summary);
    if (bench_have_remote)
        fprintf(f, "\n  cuzk-bench --addr ADDR <command> drives a running cuzkd instead:\n"
                   "  single, batch, status, preload, metrics (`cuzk-bench --addr ADDR --help`)\n");
    fprintf(f, "\nRun `cuzk-bench <command> --help` for its options.\n"
               "  cuzk-bench --help, -h   this text\n"
               "  cuzk-bench --version    print the version\n");
}

static void print_usage_line(FILE *f, const command *c)
{
    fprintf(f, "Usage: cuzk-bench %s %s\n", c->name, c->synopsis);
}

static void print_help(const command *c)
{
    print_usage_line(stdout, c);
    printf("\n%s\n\nOptions:\n", c->help);
    for (int i = 0; i < F_NFLAGS; i++)
        if (c->flags & (1u << i)) {
            char left[40];
            snprintf(left, sizeof left, "%s%s%s%s%s", FLAGS[i].alias ? FLAGS[i].alias : "",
                     FLAGS[i].alias ? ", " : "", FLAGS[i].name, FLAGS[i].arg ? " " : "",
                     FLAGS[i].arg ? FLAGS[i].arg : "");
            printf("  %-24s %s\n", left, FLAGS[i].help);
        }
    if (c == &CMD_REPORT)
        printf("  %-24s %s\n", "--svg OUT.svg", "also write the waterfall picture to OUT.svg");
    printf("  %-24s %s\n", "--help, -h", "this text");
}

static int usage_error(const command *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int usage_error(const command *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cuzk-bench: %s: ", c->name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    print_usage_line(stderr, c);
    fprintf(stderr, "Run `cuzk-bench %s --help` for details.\n", c->name);
    return BENCH_USAGE;
}

/* Decimal integer in [lo, hi]; -1 otherwise. */
static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Bytes with an optional binary suffix K, M, G or T (optionally followed by "iB" or "B"). */
static int parse_size(const char *s, uint64_t *out)
{
    if (s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'K':
    case 'k':
        shift = 10;
        end++;
        break;
    case 'M':
    case 'm':
        shift = 20;
        end++;
        break;
    case 'G':
    case 'g':
        shift = 30;
        end++;
        break;
    case 'T':
    case 't':
        shift = 40;
        end++;
        break;
    default: break;
    }
    if (shift && (!strcmp(end, "iB") || !strcmp(end, "B")))
        end += strlen(end);
    if (*end || v == 0 || (shift && v > (UINT64_MAX >> shift)))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

/* A comma-separated list of distinct integers from 1 to hi, at most BENCH_LIST_MAX of them. */
static int set_list(const command *c, const char *name, const char *v, uint64_t hi, uint32_t *list,
                    unsigned *n)
{
    unsigned k = 0;
    for (const char *p = v;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[24];
        uint64_t x = 0;
        if (k == BENCH_LIST_MAX)
            return usage_error(c, "%s takes at most %d values, not '%s'", name, BENCH_LIST_MAX, v);
        if (len < sizeof item) {
            memcpy(item, p, len);
            item[len] = 0;
        }
        if (!len || len >= sizeof item || parse_u64(item, 1, hi, &x) != 0)
            return usage_error(c, "%s expects comma-separated integers from 1 to %llu, not '%s'", name,
                               (unsigned long long)hi, v);
        for (unsigned i = 0; i < k; i++)
            if (list[i] == x)
                return usage_error(c, "%s lists %llu twice", name, (unsigned long long)x);
        list[k++] = (uint32_t)x;
        if (!comma)
            break;
        p = comma + 1;
    }
    *n = k;
    return BENCH_OK;
}

static int set_flag(const command *c, bench_opts *o, int f, const char *v)
{
    uint64_t x = 0;
    const char *name = FLAGS[f].name;
#define INT_FLAG(lo, hi)                                                                                     \
    if (parse_u64(v, lo, hi, &x) != 0)                                                                       \
        return usage_error(c, "%s expects an integer from %llu to %llu, not '%s'", name,                     \
                           (unsigned long long)(lo), (unsigned long long)(hi), v);
    switch (f) {
    case F_WORKLOAD: {
        bool known = false;
        for (int i = 0; bench_workload_names[i]; i++)
            known |= !strcmp(v, bench_workload_names[i]);
        if (!known)
            return usage_error(c, "unknown workload '%s' (known: random, porep)", v);
        o->workload = v;
        break;
    }
    case F_BACKEND:
        if (!strcmp(v, "cpu")) {
            o->cfg.backend = cuzk_engine_backend_cpu();
            o->setup_accel = NULL;
        } else if (!strcmp(v, "gpu") || !strcmp(v, "auto")) {
            const cuzk_engine_backend *gpu = NULL;
#ifdef CUZK_HAVE_GPU
            if (cuzk_gpu_device_count() > 0)
                gpu = cuzk_engine_backend_gpu();
#endif
            if (!gpu && !strcmp(v, "gpu")) {
                /* a well-formed request this machine cannot serve: a failure, not a usage error */
                fprintf(stderr, "cuzk-bench: --backend gpu: %s\n", BENCH_NO_GPU);
                return BENCH_FAIL;
            }
            o->cfg.backend = gpu ? gpu : cuzk_engine_backend_cpu();
#ifdef CUZK_HAVE_GPU
            o->setup_accel = gpu ? cuzk_gpu_setup_accel() : NULL; /* the key is made on the device too */
#endif
        } else {
            return usage_error(c, "--backend expects cpu, gpu or auto, not '%s'", v);
        }
        break;
    case F_EVAL:
        if (!strcmp(v, "auto"))
            o->cfg.eval = CUZK_ENGINE_EVAL_AUTO;
        else if (!strcmp(v, "host"))
            o->cfg.eval = CUZK_ENGINE_EVAL_HOST;
        else if (!strcmp(v, "device"))
            o->cfg.eval = CUZK_ENGINE_EVAL_DEVICE;
        else
            return usage_error(c, "--eval expects auto, host or device, not '%s'", v);
        break;
    case F_PARTITIONS: INT_FLAG(1, 1024) o->partitions = (uint32_t)x; break;
    case F_CONSTRAINTS: INT_FLAG(2, 27) o->constraints_lg = (unsigned)x; break;
    case F_SYNTH: INT_FLAG(1, 1024) o->cfg.synth_workers = (int)x; break;
    case F_WITNESS: INT_FLAG(1, 4096) o->witness_threads = (unsigned)x; break;
    case F_GPU_WORKERS: INT_FLAG(1, 64) o->cfg.gpu_workers = (int)x; break;
    case F_THREADS: INT_FLAG(1, 4096) o->cfg.gpu_threads = (int)x; break;
    case F_EVAL_THREADS: INT_FLAG(1, 4096) o->cfg.eval_threads = (int)x; break;
    case F_POST: INT_FLAG(1, 1024) o->cfg.post_workers = (int)x; break;
    case F_DEVICES: INT_FLAG(1, 64) o->cfg.devices = (int)x; break;
    case F_DEVICE_IDS:
        if (cuzk_engine_device_list_parse(v, &o->cfg.device_mask) != CUZK_OK)
            return usage_error(
                c, "--device-ids expects device numbers 0..63 such as 1,3 or 0-3, each once, not '%s'", v);
        break;
    case F_QUEUE: INT_FLAG(1, 65536) o->cfg.queue_depth = (int)x; break;
    case F_POOL: INT_FLAG(1, 1000000) o->cfg.pool_idle = (int)x; break;
    case F_BUDGET:
        if (parse_size(v, &o->cfg.budget) != 0)
            return usage_error(c, "--budget expects a size in bytes such as 4096, 512M or 64G, not '%s'", v);
        break;
    case F_KEY_VRAM:
        if (parse_size(v, &o->cfg.key_vram) != 0)
            return usage_error(c, "--key-vram expects a size in bytes such as 1, 512M or 64G, not '%s'", v);
        break;
    case F_KEY_TABLES:
        if (!strcmp(v, "off"))
            o->cfg.key_tables = -1;
        else if (parse_u64(v, 2, 4, &x) == 0)
            o->cfg.key_tables = (int)x;
        else
            return usage_error(c, "--key-tables expects 2, 3, 4 or off, not '%s'", v);
        break;
    case F_PRIORITY:
        if (cuzk_engine_prio_parse(v, &o->prio) != CUZK_OK)
            return usage_error(c, "--priority expects low, normal, high or critical, not '%s'", v);
        break;
    case F_SEED:
        INT_FLAG(1, UINT64_MAX) o->seed = x;
        o->seeded = true;
        break;
    case F_NO_CHECK: o->cfg.flags |= CUZK_ENGINE_NO_CHECK; break;
    case F_NO_ZPACK: o->cfg.flags |= CUZK_ENGINE_NO_ZPACK; break;
    case F_KEY_FORM:
        if (!strcmp(v, "coset"))
            o->key_form = BENCH_KEY_COSET;
        else if (!strcmp(v, "bellperson"))
            o->key_form = BENCH_KEY_BELLPERSON;
        else if (!strcmp(v, "converted"))
            o->key_form = BENCH_KEY_CONVERTED;
        else
            return usage_error(c, "--key-form expects coset, bellperson or converted, not '%s'", v);
        break;
    case F_TIMELINE: o->timeline = v; break;
    case F_PROOFS_OUT: o->proofs_out = v; break;
    case F_COUNT: INT_FLAG(1, 1000000) o->count = (uint32_t)x; break;
    case F_CONCURRENCY: INT_FLAG(1, 1024) o->concurrency = (uint32_t)x; break;
    /* the same ranges as -c, -j and --gpu-workers */
    case F_C_LIST: return set_list(c, name, v, 1000000, o->c_list, &o->n_c);
    case F_J_LIST: return set_list(c, name, v, 1024, o->j_list, &o->n_j);
    case F_GW_LIST: return set_list(c, name, v, 64, o->gw_list, &o->n_gw);
    case F_CSV: o->csv = v; break;
    case F_TIMELINE_DIR: o->timeline_dir = v; break;
    }
#undef INT_FLAG
    return BENCH_OK;
}

static bool wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            return false;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return true;
    }
    return false;
}

/* What sweep takes instead of flag f, or NULL. */
static const char *sweep_instead(int f)
{
    switch (f) {
    case F_COUNT: return "--c-list";
    case F_CONCURRENCY: return "--j-list";
    case F_GPU_WORKERS: return "--gw-list";
    case F_TIMELINE: return "--timeline-dir";
    default: return NULL;
    }
}

/* Parses the options of single/batch/sweep. */
static int parse_run(const command *c, bench_opts *o, int argc, char **argv)
{
    static const uint32_t c_list[] = {5, 10, 20}, j_list[] = {2, 5, 10}, gw_list[] = {1, 2};
    memset(o, 0, sizeof *o);
    o->batch = c == &CMD_BATCH;
    o->sweep = c == &CMD_SWEEP;
    memcpy(o->c_list, c_list, sizeof c_list);
    memcpy(o->j_list, j_list, sizeof j_list);
    memcpy(o->gw_list, gw_list, sizeof gw_list);
    o->n_c = o->n_j = 3;
    o->n_gw = 2;
    o->workload = "random";
    o->partitions = 2;
    o->constraints_lg = 0; /* unset: 10 for random; porep needs it named */
    o->seed = 1;
    o->key_form = BENCH_KEY_COSET; /* docs/design/021: the same proofs, 87 ms less a full partition (H100) */
    o->count = o->batch ? 4 : 1;
    o->concurrency = o->batch ? 2 : 1;
    o->prio = CUZK_PRIO_NORMAL;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || !arg[1])
            return usage_error(c, "unexpected argument '%s'", arg);
        const char *eq = !strncmp(arg, "--", 2) ? strchr(arg, '=') : NULL;
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        int f = 0;
        for (; f < F_NFLAGS; f++)
            if ((strlen(FLAGS[f].name) == len && !strncmp(arg, FLAGS[f].name, len)) ||
                (FLAGS[f].alias && !eq && !strcmp(arg, FLAGS[f].alias)))
                break;
        if (f < F_NFLAGS && !(c->flags & (1u << f)) && c == &CMD_SWEEP && sweep_instead(f))
            return usage_error(c, "sweep takes %s instead of %s", sweep_instead(f), FLAGS[f].name);
        if (f == F_NFLAGS || !(c->flags & (1u << f)))
            return usage_error(c, "unknown option '%s'", arg);
        const char *v = NULL;
        if (FLAGS[f].arg) {
            if (eq)
                v = eq + 1;
            else if (i + 1 < argc)
                v = argv[++i];
            else
                return usage_error(c, "%s needs a value", arg);
            if (!v[0])
                return usage_error(c, "empty value for %s", arg);
        } else if (eq) {
            return usage_error(c, "%.*s takes no value", (int)len, arg);
        }
        int rc = set_flag(c, o, f, v);
        if (rc != BENCH_OK)
            return rc;
    }
    /* The flag takes 2..27 for either workload; each workload's own range is a usage error too. */
    bool porep = !strcmp(o->workload, "porep");
    unsigned lo = 0, hi = 0;
    bench_workload_lg_range(o->workload, &lo, &hi); /* the name was checked with --workload */
    if (!o->constraints_lg && porep)
        return usage_error(c, "the porep workload needs --constraints LG (%u..%u; %u is one full partition)",
                           lo, hi, hi);
    if (!o->constraints_lg)
        o->constraints_lg = 10;
    if (o->constraints_lg < lo || o->constraints_lg > hi)
        return usage_error(c, "--constraints %u is outside %u..%u for the %s workload%s", o->constraints_lg,
                           lo, hi, o->workload,
                           porep ? " (27 - LG is the scale; 27 is one full partition)" : "");
    if (o->witness_threads && !porep)
        return usage_error(
            c, "--witness-threads sizes the porep workload's witness pool; the %s workload has none",
            o->workload);
    int listed = __builtin_popcountll(o->cfg.device_mask);
    if (o->cfg.devices && listed && o->cfg.devices != listed)
        return usage_error(c, "--devices %d but --device-ids names %d device%s (give one or the other)",
                           o->cfg.devices, listed, listed == 1 ? "" : "s");
    if (o->timeline && o->proofs_out && cuzk_same_file(o->timeline, o->proofs_out))
        return usage_error(c, "--timeline and --proofs-out name one file (%s and %s)", o->timeline,
                           o->proofs_out);
    return BENCH_OK;
}

static int run_report(int argc, char **argv)
{
    const command *c = &CMD_REPORT;
    const char *path = NULL, *svg = NULL;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--svg") || !strncmp(arg, "--svg=", 6)) {
            const char *v = arg[5] == '=' ? arg + 6 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || !v[0])
                return usage_error(c, "--svg needs a file name");
            svg = v;
        } else if (arg[0] == '-' && arg[1]) {
            return usage_error(c, "unknown option '%s'", arg);
        } else if (path) {
            return usage_error(c, "unexpected argument '%s'", arg);
        } else {
            path = arg;
        }
    }
    if (!path || !path[0])
        return usage_error(c, "expects a TIMELINE file");
    if (svg && cuzk_same_file(path, svg))
        return usage_error(c, "--svg %s is the TIMELINE file %s: writing it would destroy it", svg, path);
    return bench_report(path, svg);
}

/* `cuzk-bench --addr ADDR <command>`: a client of a running cuzkd (remote.c). */
int bench_remote(int argc, char **argv);

/* The command line's work. */
static int dispatch(int argc, char **argv)
{
    if (argc >= 2 &&
        (!strcmp(argv[1], "--addr") || !strncmp(argv[1], "--addr=", 7) || !strcmp(argv[1], "-a")))
        return bench_remote(argc, argv);
    if (argc < 2) {
        print_main_usage(stderr);
        return BENCH_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        print_main_usage(stdout);
        return BENCH_OK;
    }
    if (!strcmp(name, "--version") || !strcmp(name, "version")) {
        printf("cuzk-bench %s\n", CUZK_VERSION);
        return BENCH_OK;
    }
    if (bench_have_report && !strcmp(name, "timeline")) {
        if (argc < 3 || strcmp(argv[2], "report") != 0) {
            if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
                print_help(&CMD_REPORT);
                return BENCH_OK;
            }
            return usage_error(&CMD_REPORT, "expects the action 'report'");
        }
        if (wants_help(argc - 3, argv + 3)) {
            print_help(&CMD_REPORT);
            return BENCH_OK;
        }
        return run_report(argc - 3, argv + 3);
    }
    const command *c = !strcmp(name, "single")  ? &CMD_SINGLE
                       : !strcmp(name, "batch") ? &CMD_BATCH
                       : !strcmp(name, "sweep") ? &CMD_SWEEP
                                                : NULL;
    if (!c) {
        bench_error("unknown command '%s'", name);
        print_main_usage(stderr);
        return BENCH_USAGE;
    }
    if (wants_help(argc - 2, argv + 2)) {
        print_help(c);
        return BENCH_OK;
    }
    bench_opts o;
    int rc = parse_run(c, &o, argc - 2, argv + 2);
    if (rc != BENCH_OK)
        return rc;
    if (o.sweep) {
        bool any = false;
        for (unsigned i = 0; i < o.n_c; i++)
            for (unsigned k = 0; k < o.n_j; k++)
                any |= o.j_list[k] <= o.c_list[i];
        if (!any)
            return usage_error(c, "every combination has j > c: nothing to run");
        return bench_sweep(&o);
    }
    return bench_run(&o);
}

int main(int argc, char **argv)
{
    /* A write past the file-size limit (RLIMIT_FSIZE) fails with EFBIG instead of killing the process:
     * like a full disk, it is then reported with the file's name, exits 1 and removes the temporary file. */
    signal(SIGXFSZ, SIG_IGN);
    int rc = dispatch(argc, argv);
    int e = cuzk_stdout_finish();
    if (e) {
        bench_error("cannot write the standard output: %s", strerror(e));
        if (rc == BENCH_OK)
            rc = BENCH_FAIL;
    }
    return rc;
}
