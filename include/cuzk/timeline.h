/*
 * cuzk/timeline.h — the TIMELINE writer: machine-readable events of the
 * proving engine, one JSON object per line (docs/timeline.md), e.g.
 *
 *   {"t_us":123456,"ev":"KERNEL_START","job":7,"part":3,"lane":"gpu0.1","dev":0,"stage":"msm"}
 *
 * keys always in that order, no other whitespace. t_us counts microseconds of
 * CLOCK_MONOTONIC since the writer was created (its epoch), so an engine and
 * a benchmark that share one writer share one clock.
 *
 * The writer is thread-safe: the time stamp is taken and the line formatted
 * under one mutex, so the events stamped now are in time order in the file
 * (those given a time, cuzk_timeline_emit_at, land where they are written).
 * Lines go to a temporary file `<path>.tmp.<pid>` through a large stdio
 * buffer; cuzk_timeline_close flushes, fsyncs and renames it to path, or
 * removes it when any write failed, so a failed run never leaves a partial
 * timeline behind.
 *
 * A sink callback (optional) sees every event as a struct, on the emitting
 * thread, under the writer's mutex (it must not emit): cuzk-bench computes
 * its stage statistics from it, with or without a file.
 */
#ifndef CUZK_TIMELINE_H
#define CUZK_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Event kinds, in the order the format lists them. */
typedef enum {
    CUZK_TL_JOB_SUBMIT,     /* job accepted (lane "-", part -1) */
    CUZK_TL_JOB_START,      /* its first partition was dispatched (lane "-", part -1) */
    CUZK_TL_SYNTH_START,    /* a synthesis worker starts a partition (witness + a, b, c) */
    CUZK_TL_SYNTH_END,      /* ... and is done with it (also on failure) */
    CUZK_TL_GPU_QUEUE,      /* the partition was put on the bounded GPU queue */
    CUZK_TL_LOCK_WAIT,      /* a GPU worker starts waiting for its device lock */
    CUZK_TL_LOCK_ACQ,       /* ... and holds it */
    CUZK_TL_KERNEL_START,   /* one device stage ("stage" names it) */
    CUZK_TL_KERNEL_END,     /* ... finished */
    CUZK_TL_LOCK_REL,       /* the device lock is released */
    CUZK_TL_FINALIZE_START, /* post-processing (epilogue, verification) starts */
    CUZK_TL_FINALIZE_END,   /* ... and ends (also on failure) */
    CUZK_TL_DELIVER,        /* the job's proofs, verified, handed out (lane "-", part -1) */
    CUZK_TL_JOB_FAIL,       /* the job failed (part: the failing partition, or -1) */
    CUZK_TL_JOB_CANCEL,     /* the job was cancelled and has left the pipeline (part -1) */
    CUZK_TL_DEVICE_LOST,    /* the worker's device was taken out of service (job, part: the partition whose
                               phase reported it; stage: "pre" or "device") */
    CUZK_TL_NEV
} cuzk_tl_ev;

/* One event as the sink sees it; lane and stage are borrowed for the call. */
typedef struct {
    int64_t t_us;
    cuzk_tl_ev ev;
    uint64_t job;
    int32_t part;      /* -1 for job-level events */
    const char *lane;  /* "synth.N", "gpu<dev>.<N>", "post.N", or "-" */
    int32_t dev;       /* -1 for none */
    const char *stage; /* "" when none */
} cuzk_timeline_event;

typedef void (*cuzk_timeline_sink)(void *ctx, const cuzk_timeline_event *ev);

typedef struct cuzk_timeline cuzk_timeline;

/* Creates a writer whose epoch is now. path = NULL writes no file (the sink alone); otherwise the
 * temporary file is created at once (exclusive), so an unwritable destination fails here with CUZK_EIO.
 * sink may be NULL. */
int cuzk_timeline_new(cuzk_timeline **out, const char *path, cuzk_timeline_sink sink, void *sink_ctx,
                      char *err, size_t errlen);

/* Flushes, fsyncs and renames the file into place, then frees the writer. Returns CUZK_EIO (and removes
 * the temporary file) when any line could not be written. NULL is a no-op. */
int cuzk_timeline_close(cuzk_timeline *tl, char *err, size_t errlen);

/* Closes the writer and removes its temporary file without writing path (a run that failed before
 * it recorded anything worth keeping). NULL is a no-op. */
void cuzk_timeline_discard(cuzk_timeline *tl);

/* The temporary file's name while the writer is open, NULL without a file: a program that removes its
 * temporary files when a signal stops it registers this one (cuzk_temp_track) and unregisters it before
 * cuzk_timeline_close or cuzk_timeline_discard. The library installs no signal handler itself. */
char *cuzk_timeline_temp_path(cuzk_timeline *tl);

/* CLOCK_MONOTONIC in microseconds: the clock cuzk_timeline_emit_at takes (and every writer's epoch reads). */
int64_t cuzk_timeline_clock_us(void);

/* Microseconds since the writer's epoch (CLOCK_MONOTONIC). */
int64_t cuzk_timeline_now(const cuzk_timeline *tl);

/* Records one event stamped now. lane and stage must be plain printable ASCII without '"' or '\'
 * (others are replaced by '?'); stage NULL means "". tl NULL is a no-op. */
void cuzk_timeline_emit(cuzk_timeline *tl, cuzk_tl_ev ev, uint64_t job, int32_t part, const char *lane,
                        int32_t dev, const char *stage);

/* The same, stamped at mono_us, a CLOCK_MONOTONIC time in microseconds (a time measured elsewhere, e.g.
 * when a device reported a stage's end); times before the epoch become 0. Such an event can reach the
 * file after later ones: readers order events by t_us, not by line. */
void cuzk_timeline_emit_at(cuzk_timeline *tl, int64_t mono_us, cuzk_tl_ev ev, uint64_t job, int32_t part,
                           const char *lane, int32_t dev, const char *stage);

/* The wire name of an event ("KERNEL_START"); NULL when out of range. */
const char *cuzk_timeline_ev_name(cuzk_tl_ev ev);

#ifdef __cplusplus
}
#endif
#endif
