/*
 * util.c — helpers shared by the cuzk subcommands (declared in cli.h):
 * messages, progress, the --verbose timer, input checks, the thread pool and
 * atomic output files.
 *
 * Atomic outputs: cli_out is the library's cuzk_outfile (cuzk/outfile.h),
 * opened with CUZK_OUTFILE_TRACK so that SIGINT, SIGTERM and SIGHUP unlink
 * its temporary file (cuzk_temp_track; unlink is async-signal-safe) before
 * the signal is re-raised with its default action; these wrappers print the
 * reason of a failure. cuzk-bench's outputs are the same mechanism.
 */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/common.h"
#ifdef CUZK_HAVE_GPU
#include "cuzk/gpu.h"
#endif

/* ---- --device ------------------------------------------------------------------------ */

int cli_use_gpu(const cli_args *a, bool *gpu, char *err, size_t errlen)
{
    *gpu = false;
#ifdef CUZK_HAVE_GPU
    int ndev = cuzk_gpu_device_count();
    if (a->device == CLI_DEV_GPU && ndev < 1)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "--device gpu: no CUDA device is present");
    *gpu = a->device == CLI_DEV_GPU || (a->device == CLI_DEV_AUTO && ndev > 0);
#else
    if (a->device == CLI_DEV_GPU)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "--device gpu: this build has no CUDA backend (nvcc was not found)");
#endif
    return CUZK_OK;
}

/* ---- messages ---------------------------------------------------------------------- */

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cuzk: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_error_lib(const char *path, int rc, const char *err)
{
    const char *msg = (err && err[0]) ? err : cuzk_strerror(rc);
    if (path && !strstr(msg, path))
        cli_error("%s: %s", path, msg);
    else
        cli_error("%s", msg);
}

int64_t cli_unused_wires(const cuzk_snarkjs_r1cs *r1cs, char *buf, size_t len)
{
    uint64_t pub = 0, prv = 0;
    uint32_t first = 0;
    if (cuzk_snarkjs_r1cs_unused(r1cs, &pub, &prv, &first) != CUZK_OK)
        return -1;
    snprintf(buf, len, "(%llu public, %llu private; the first is wire %u)", (unsigned long long)pub,
             (unsigned long long)prv, first);
    return (int64_t)(pub + prv);
}

void cli_note(const cli_args *a, const char *fmt, ...)
{
    if (!a->progress)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("cuzk: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_progress_init(cli_progress *p, const char *label)
{
    p->label = label;
    p->tty = isatty(STDERR_FILENO);
    p->last_pct = -1;
}

void cli_progress_fn(void *ctx, uint64_t done, uint64_t total)
{
    cli_progress *p = ctx;
    int pct = total ? (int)(done * 100 / total) : 100;
    if (pct == p->last_pct || (!p->tty && p->last_pct >= 0 && pct / 10 == p->last_pct / 10 && pct != 100))
        return;
    p->last_pct = pct;
    if (p->tty)
        fprintf(stderr, "\rcuzk: %s: %3d%%%s", p->label, pct, pct == 100 ? "\n" : "");
    else
        fprintf(stderr, "cuzk: %s: %d%%\n", p->label, pct);
}

/* ---- timing ------------------------------------------------------------------------- */

double cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void cli_timer_start(cli_timer *t)
{
    memset(t, 0, sizeof *t);
    t->start = t->last = cli_now_ms();
}

void cli_timer_lap(cli_timer *t, const char *name)
{
    double now = cli_now_ms();
    if (t->n < CLI_MAX_LAPS) {
        t->name[t->n] = name;
        t->ms[t->n] = now - t->last;
        t->n++;
    }
    t->last = now;
}

void cli_timer_report(const cli_timer *t, const cli_args *a, int threads)
{
    if (!a->verbose)
        return;
    fprintf(stderr, "cuzk: timing (%d thread%s):", threads, threads == 1 ? "" : "s");
    for (int i = 0; i < t->n; i++)
        fprintf(stderr, " %s %.1f ms,", t->name[i], t->ms[i]);
    fprintf(stderr, " total %.1f ms\n", t->last - t->start);
}

/* ---- inputs ------------------------------------------------------------------------- */

int cli_input_ok(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        cli_error("%s: %s", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        cli_error("%s: is a directory, expected a file", path);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        cli_error("%s: not a regular file", path);
        return -1;
    }
    return 0;
}

static int read_fd(int fd, const char *path, size_t max, uint8_t **out, size_t *len)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        cli_error("%s: not a regular file", path);
        return -1;
    }
    if ((uint64_t)st.st_size > max) {
        cli_error("%s: %lld bytes, more than the %zu this command reads", path, (long long)st.st_size, max);
        return -1;
    }
    size_t n = (size_t)st.st_size, got = 0;
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        cli_error("%s: out of memory", path);
        return -1;
    }
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            cli_error("%s: read error: %s", path, r < 0 ? strerror(errno) : "file shrank while reading");
            free(buf);
            return -1;
        }
        got += (size_t)r;
    }
    *out = buf;
    *len = n;
    return 0;
}

int cli_read_file(const char *path, size_t max, uint8_t **out, size_t *len)
{
    if (cli_input_ok(path) != 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        cli_error("%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = read_fd(fd, path, max, out, len);
    close(fd);
    return rc;
}

cuzk_pool *cli_pool_new(const cli_args *a)
{
    cuzk_pool *pool = cuzk_pool_new(a->threads);
    if (!pool)
        cli_error("cannot start a pool of %d threads", a->threads);
    return pool;
}

/* ---- atomic outputs ------------------------------------------------------------------- */

int cli_out_open(cli_out *o, const char *path)
{
    char who[CLI_ERRLEN], err[2 * CLI_ERRLEN];
    snprintf(who, sizeof who, "cannot write %s", path ? path : "");
    if (cuzk_outfile_open(o, path, CUZK_OUTFILE_TRACK, who, err, sizeof err) != CUZK_OK) {
        cli_error("%s", err);
        return -1;
    }
    return 0;
}

int cli_out_write(cli_out *o, const void *buf, size_t len)
{
    if (cuzk_outfile_write(o, buf, len) != CUZK_OK) {
        cli_error("cannot write %s: writing %s: %s", o->path ? o->path : "(closed)",
                  o->tmp ? o->tmp : "(closed)", strerror(o->errnum));
        return -1;
    }
    return 0;
}

int cli_out_commit(cli_out *o)
{
    char who[CLI_ERRLEN], err[2 * CLI_ERRLEN];
    snprintf(who, sizeof who, "cannot write %s", o->path ? o->path : "(closed)");
    if (cuzk_outfile_commit(o, who, err, sizeof err) != CUZK_OK) {
        cli_error("%s", err);
        return -1;
    }
    return 0;
}

int cli_out_commit_pair(cli_out *first, cli_out *second)
{
    char who[CLI_ERRLEN], err[2 * CLI_ERRLEN];
    snprintf(who, sizeof who, "cannot write %s and %s", first->path ? first->path : "(closed)",
             second->path ? second->path : "(closed)");
    if (cuzk_outfile_commit_pair(first, second, who, err, sizeof err) != CUZK_OK) {
        cli_error("%s", err);
        return -1;
    }
    return 0;
}

void cli_out_abort(cli_out *o)
{
    cuzk_outfile_abort(o);
}
