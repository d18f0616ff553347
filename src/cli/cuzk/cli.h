/*
 * cli.h — what the subcommands of the `cuzk` program share.
 *
 * main.c parses one command line into a cli_args (positional arguments plus
 * the flags the chosen command accepts) and calls the command's run(); each
 * command lives in its own cmd_*.c and returns the process exit status:
 * CLI_OK (0) success, CLI_FAIL (1) the work failed or the input is invalid
 * (verify: the proof is invalid), CLI_USAGE (2) a usage error (verify,
 * verify-params and inspect also use it for input they cannot read).
 *
 * util.c holds the helpers: `cuzk: <message>` error lines on stderr,
 * progress notes, a lap timer for --verbose, input checks, the thread pool,
 * and atomic output files. An output is written to `<path>.tmp.<pid>`
 * (created with O_EXCL before any long work, so an unwritable destination
 * fails at once), fsynced and renamed over <path> only when everything
 * succeeded; any failure, and SIGINT/SIGTERM/SIGHUP, removes the temporary
 * file, so a failed run never leaves a half-written output behind.
 */
#ifndef CUZK_CLI_H
#define CUZK_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/outfile.h"
#include "cuzk/pool.h"
#include "cuzk/snarkjs.h"

/* The program's version; kept equal to project(VERSION) in CMakeLists.txt. */
#ifndef CUZK_VERSION
#define CUZK_VERSION "unknown"
#endif
#define CLI_VERSION CUZK_VERSION

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Flags a command may accept (cli_command.flags). */
enum {
    CLI_F_THREADS = 1u << 0,       /* --threads N */
    CLI_F_NO_VERIFY = 1u << 1,     /* --no-verify */
    CLI_F_CHECK_WITNESS = 1u << 2, /* --check-witness <circuit.r1cs> */
    CLI_F_VERBOSE = 1u << 3,       /* --verbose, -v */
    CLI_F_PROGRESS = 1u << 4,      /* --progress */
    CLI_F_DEEP = 1u << 5,          /* --deep */
    CLI_F_DEVICE = 1u << 6,        /* --device cpu|gpu|auto */
};

#define CLI_MAX_POS 4
#define CLI_ERRLEN 512

typedef struct cli_command cli_command;

/* One parsed command line. */
typedef struct {
    const cli_command *cmd;
    const char *pos[CLI_MAX_POS];
    int n_pos;
    int threads; /* 0 = one per online CPU */
    bool no_verify, verbose, deep;
    bool progress;             /* --progress, or stderr is a terminal */
    const char *check_witness; /* r1cs path, or NULL */
    enum { CLI_DEV_AUTO = 0, CLI_DEV_CPU, CLI_DEV_GPU } device;
} cli_args;

struct cli_command {
    const char *name;
    const char *synopsis; /* the positional arguments, for usage lines */
    const char *summary;  /* one line for `cuzk --help` */
    const char *help;     /* the description part of `cuzk <name> --help` */
    unsigned flags;       /* CLI_F_* accepted */
    int min_pos, max_pos;
    int (*run)(const cli_args *a);
    unsigned outputs;      /* bit i: positional argument i is a file the command writes; the others are read.
                              Before the command runs, an output naming an input or another output (the same
                              file however spelled) is a usage error, so that nothing is overwritten */
    bool status_is_answer; /* the exit status answers (verify): a failed stdout does not change it */
};

extern const cli_command cli_cmd_prove, cli_cmd_verify, cli_cmd_setup, cli_cmd_prove_params,
    cli_cmd_verify_params, cli_cmd_coset_key, cli_cmd_inspect;

/* ---- messages ---------------------------------------------------------------------- */

/* Prints "cuzk: <message>" on stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Prints a library error about path: "cuzk: <path>: <err>" (the path is left out when err already names
 * it; cuzk_strerror(rc) stands in for an empty err). */
void cli_error_lib(const char *path, int rc, const char *err);

/* The .r1cs's wires in no constraint (cuzk_snarkjs_r1cs_unused), for inspect and setup to report alike:
 * writes "(P public, Q private; the first is wire K)" to buf and returns their count, 0 when there are
 * none, -1 when they could not be counted (out of memory). */
int64_t cli_unused_wires(const cuzk_snarkjs_r1cs *r1cs, char *buf, size_t len);

/* Whether --device asks for the GPU (auto: a build with the CUDA backend on a machine with a device).
 * CUZK_EINVAL with the reason when --device gpu cannot be honoured. */
int cli_use_gpu(const cli_args *a, bool *gpu, char *err, size_t errlen);

/* A progress note on stderr ("cuzk: <message>"), only when a->progress. */
void cli_note(const cli_args *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Progress callback for cuzk_params_read_ex; ctx is a cli_progress. */
typedef struct {
    const char *label;
    bool tty;     /* redraw one line with \r; otherwise a line every 10% */
    int last_pct; /* last percentage shown, -1 before the first */
} cli_progress;
void cli_progress_init(cli_progress *p, const char *label);
void cli_progress_fn(void *ctx, uint64_t done, uint64_t total);

/* ---- timing (--verbose) --------------------------------------------------------------- */

#define CLI_MAX_LAPS 8

typedef struct {
    double start, last;
    const char *name[CLI_MAX_LAPS];
    double ms[CLI_MAX_LAPS];
    int n;
} cli_timer;

/* Monotonic time in milliseconds. */
double cli_now_ms(void);
void cli_timer_start(cli_timer *t);
/* Records the time since the previous lap (or the start) under name. */
void cli_timer_lap(cli_timer *t, const char *name);
/* With --verbose, prints "cuzk: timing: load 1.2 ms, prove ... , total ..." and the thread count. */
void cli_timer_report(const cli_timer *t, const cli_args *a, int threads);

/* ---- inputs --------------------------------------------------------------------------- */

/* Checks that path names an existing regular file; prints the reason and returns -1 otherwise. */
int cli_input_ok(const char *path);

/* Reads the whole regular file at path (at most max bytes) into a new buffer (free() it); prints the
 * reason and returns -1 on failure. An empty file gives a non-NULL buffer of length 0. */
int cli_read_file(const char *path, size_t max, uint8_t **out, size_t *len);

/* The thread pool for a->threads (0 = every online CPU); prints an error and returns NULL on failure. */
cuzk_pool *cli_pool_new(const cli_args *a);

/* ---- atomic outputs ---------------------------------------------------------------------- */

/* The library's atomic output file (cuzk/outfile.h), its temporary file removed by a fatal signal; the
 * functions below print the reason of a failure. */
typedef cuzk_outfile cli_out;

/* Creates path's temporary file (refusing a directory at path); prints the reason and returns -1 on
 * failure. A zeroed cli_out is safe to abort. */
int cli_out_open(cli_out *o, const char *path);
/* Writes len bytes to the temporary file; prints the reason and returns -1 on failure. */
int cli_out_write(cli_out *o, const void *buf, size_t len);
/* fsync, close and rename the temporary file over path; on failure prints why, removes it, returns -1. */
int cli_out_commit(cli_out *o);
/* Both files or neither (cuzk_outfile_commit_pair): on failure prints why, leaves both destinations as they
 * were and returns -1. */
int cli_out_commit_pair(cli_out *first, cli_out *second);
/* Closes and removes the temporary file if it is still there; always safe. */
void cli_out_abort(cli_out *o);

#endif
