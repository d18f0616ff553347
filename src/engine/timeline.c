/*
 * timeline.c — the TIMELINE writer of cuzk/timeline.h.
 *
 * One mutex covers the clock read, the formatting and the write, so lines
 * leave in time order and never interleave. The file is an atomic output
 * (cuzk/outfile.h) written through a 1 MiB stdio buffer: emitting costs a
 * clock read and a short snprintf, never a system call per line. Write
 * errors are remembered (the first errno) and decide at close whether the
 * file is renamed into place or removed.
 */
#include "cuzk/timeline.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/outfile.h"

struct cuzk_timeline {
    pthread_mutex_t mu;
    struct timespec epoch;
    cuzk_outfile out; /* when writing a file: its stream out.f, its first write failure out.errnum */
    cuzk_timeline_sink sink;
    void *sink_ctx;
    char *buf; /* stdio buffer */
};

static const char *const EV_NAMES[CUZK_TL_NEV] = {
    "JOB_SUBMIT", "JOB_START",    "SYNTH_START", "SYNTH_END",   "GPU_QUEUE",      "LOCK_WAIT",
    "LOCK_ACQ",   "KERNEL_START", "KERNEL_END",  "LOCK_REL",    "FINALIZE_START", "FINALIZE_END",
    "DELIVER",    "JOB_FAIL",     "JOB_CANCEL",  "DEVICE_LOST",
};

#define TL_BUFSIZE (1u << 20)
#define TL_NAME_MAX 64

const char *cuzk_timeline_ev_name(cuzk_tl_ev ev)
{
    return (unsigned)ev < CUZK_TL_NEV ? EV_NAMES[ev] : NULL;
}

static int64_t since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)(t.tv_sec - t0->tv_sec) * 1000000 + (t.tv_nsec - t0->tv_nsec) / 1000;
}

int64_t cuzk_timeline_clock_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

int64_t cuzk_timeline_now(const cuzk_timeline *tl)
{
    return tl ? since(&tl->epoch) : 0;
}

static void tl_free(cuzk_timeline *tl)
{
    pthread_mutex_destroy(&tl->mu);
    cuzk_outfile_abort(&tl->out);
    free(tl->buf);
    free(tl);
}

int cuzk_timeline_new(cuzk_timeline **out, const char *path, cuzk_timeline_sink sink, void *sink_ctx,
                      char *err, size_t errlen)
{
    if (!out)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "timeline: no output pointer");
    *out = NULL;
    cuzk_timeline *tl = calloc(1, sizeof *tl);
    if (!tl)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "timeline: out of memory");
    pthread_mutex_init(&tl->mu, NULL);
    clock_gettime(CLOCK_MONOTONIC, &tl->epoch);
    tl->sink = sink;
    tl->sink_ctx = sink_ctx;
    if (path) {
        tl->buf = malloc(TL_BUFSIZE);
        if (!tl->buf) {
            tl_free(tl);
            return cuzk_fail(err, errlen, CUZK_ENOMEM, "timeline: out of memory");
        }
        char who[PATH_MAX + 32];
        snprintf(who, sizeof who, "timeline: cannot write %s", path);
        int rc = cuzk_outfile_open(&tl->out, path, CUZK_OUTFILE_STREAM, who, err, errlen);
        if (rc != CUZK_OK) {
            tl_free(tl);
            return rc;
        }
        setvbuf(tl->out.f, tl->buf, _IOFBF, TL_BUFSIZE);
    }
    *out = tl;
    return CUZK_OK;
}

/* Copies a lane or stage name, replacing anything JSON would need escaped. */
static void clean_name(char out[TL_NAME_MAX], const char *in)
{
    size_t i = 0;
    for (; in && in[i] && i < TL_NAME_MAX - 1; i++) {
        unsigned char ch = (unsigned char)in[i];
        out[i] = (ch < 0x20 || ch > 0x7e || ch == '"' || ch == '\\') ? '?' : (char)ch;
    }
    out[i] = 0;
}

/* One event at t (µs since the epoch, or now when t < 0: read under the lock, so that the file's own
 * events are in time order). */
static void emit_t(cuzk_timeline *tl, int64_t t, cuzk_tl_ev ev, uint64_t job, int32_t part, const char *lane,
                   int32_t dev, const char *stage)
{
    if (!tl || (unsigned)ev >= CUZK_TL_NEV)
        return;
    char l[TL_NAME_MAX], s[TL_NAME_MAX];
    clean_name(l, lane ? lane : "-");
    clean_name(s, stage);
    pthread_mutex_lock(&tl->mu);
    if (t < 0)
        t = since(&tl->epoch);
    if (t < 0)
        t = 0;
    if (tl->out.f && !tl->out.errnum &&
        fprintf(tl->out.f,
                "{\"t_us\":%lld,\"ev\":\"%s\",\"job\":%llu,\"part\":%d,\"lane\":\"%s\",\"dev\":%d,"
                "\"stage\":\"%s\"}\n",
                (long long)t, EV_NAMES[ev], (unsigned long long)job, (int)part, l, (int)dev, s) < 0)
        tl->out.errnum = errno ? errno : EIO; /* reported by the close */
    if (tl->sink) {
        cuzk_timeline_event e = {
            .t_us = t, .ev = ev, .job = job, .part = part, .lane = l, .dev = dev, .stage = s};
        tl->sink(tl->sink_ctx, &e);
    }
    pthread_mutex_unlock(&tl->mu);
}

void cuzk_timeline_emit(cuzk_timeline *tl, cuzk_tl_ev ev, uint64_t job, int32_t part, const char *lane,
                        int32_t dev, const char *stage)
{
    emit_t(tl, -1, ev, job, part, lane, dev, stage);
}

void cuzk_timeline_emit_at(cuzk_timeline *tl, int64_t mono_us, cuzk_tl_ev ev, uint64_t job, int32_t part,
                           const char *lane, int32_t dev, const char *stage)
{
    if (!tl)
        return;
    int64_t t = mono_us - ((int64_t)tl->epoch.tv_sec * 1000000 + tl->epoch.tv_nsec / 1000);
    emit_t(tl, t < 0 ? 0 : t, ev, job, part, lane, dev, stage);
}

int cuzk_timeline_close(cuzk_timeline *tl, char *err, size_t errlen)
{
    if (!tl)
        return CUZK_OK;
    int rc = CUZK_OK;
    if (tl->out.f) {
        char who[PATH_MAX + 32];
        snprintf(who, sizeof who, "timeline: cannot write %s", tl->out.path);
        rc = cuzk_outfile_commit(&tl->out, who, err, errlen);
    }
    tl_free(tl);
    return rc;
}

char *cuzk_timeline_temp_path(cuzk_timeline *tl)
{
    return tl && tl->out.f ? tl->out.tmp : NULL;
}

void cuzk_timeline_discard(cuzk_timeline *tl)
{
    if (tl)
        tl_free(tl); /* removes the temporary file */
}
