/*
 * util.c — helpers shared by the cuzk subcommands (declared in cli.h):
 * messages, progress, the --verbose timer, input checks, the thread pool and
 * atomic output files.
 *
 * Atomic outputs. cli_out_open creates `<path>.tmp.<pid>` with O_EXCL and
 * records its name in the library's temporary-file table (cuzk_temp_track):
 * SIGINT, SIGTERM and SIGHUP unlink every temporary file still listed (unlink
 * is async-signal-safe) and then re-raise the signal with its default action.
 * cuzk-bench's outputs use the same table. Commit is
 * fsync + close + rename; abort is close + unlink. The temporary file sits in
 * the destination's directory, so the rename never crosses file systems.
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

static char *temp_name(const char *path)
{
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (tmp)
        snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    return tmp;
}

static int refuse_directory(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("%s: is a directory, expected a file name for the output", path);
        return -1;
    }
    return 0;
}

int cli_out_open(cli_out *o, const char *path)
{
    o->path = path;
    o->fd = -1;
    o->tmp = NULL;
    if (refuse_directory(path) != 0)
        return -1;
    char *tmp = temp_name(path);
    if (!tmp) {
        cli_error("%s: out of memory", path);
        return -1;
    }
    o->fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (o->fd < 0) {
        cli_error("cannot write %s: %s (creating %s)", path, strerror(errno), tmp);
        free(tmp);
        return -1;
    }
    o->tmp = tmp;
    cuzk_temp_track(tmp);
    return 0;
}

int cli_out_write(cli_out *o, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t w = write(o->fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            cli_error("cannot write %s: %s", o->tmp, w < 0 ? strerror(errno) : "no progress");
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int cli_out_commit(cli_out *o)
{
    int fd = o->fd;
    o->fd = -1;
    if (fsync(fd) != 0) {
        cli_error("cannot write %s: fsync: %s", o->tmp, strerror(errno));
        close(fd);
        cli_out_abort(o);
        return -1;
    }
    if (close(fd) != 0 || rename(o->tmp, o->path) != 0) {
        cli_error("cannot write %s: %s", o->path, strerror(errno));
        cli_out_abort(o);
        return -1;
    }
    cuzk_temp_untrack(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    return 0;
}

void cli_out_abort(cli_out *o)
{
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    if (o->tmp) {
        unlink(o->tmp);
        cuzk_temp_untrack(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
}

int cli_output_probe(const char *path)
{
    cli_out o;
    if (cli_out_open(&o, path) != 0)
        return -1;
    cli_out_abort(&o);
    return 0;
}
