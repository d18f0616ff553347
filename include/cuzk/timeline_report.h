/*
 * cuzk/timeline_report.h — reads a TIMELINE file (JSON Lines, one engine event
 * per line; docs/timeline.md) and explains the run it records: throughput,
 * job latency, GPU kernel utilization per device (union of kernel intervals,
 * not lock time), idle gaps, per-stage durations, and an SVG waterfall.
 *
 * Three layers, each usable alone (tests use all three):
 *   cuzk_tlr_parse / cuzk_tlr_read   text or file -> cuzk_tlr_log (events in file order)
 *   cuzk_tlr_analyze                 log -> cuzk_tlr_stats (intervals, distributions, devices)
 *   cuzk_tlr_print / cuzk_tlr_write_svg
 * and cuzk_timeline_report, which runs them all for `cuzk-bench timeline report`.
 *
 * Parsing is strict about what it understands and lenient about what it does
 * not: a line that is not one JSON object, lacks a required key, or carries a
 * value of the wrong type or range is an error naming its line; an unknown
 * "ev" and extra keys are skipped (and counted). Pairing START/END events is
 * tolerant: an interval left open at the end of the file, or an END with no
 * START, is counted as a warning, never an error.
 *
 * All times are integer microseconds (the file's t_us); the "tlr" prefix
 * stands for timeline report.
 */
#ifndef CUZK_TIMELINE_REPORT_H
#define CUZK_TIMELINE_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Event kinds of the TIMELINE format, in the order the format lists them. */
typedef enum {
    CUZK_TLR_JOB_SUBMIT,
    CUZK_TLR_JOB_START,
    CUZK_TLR_SYNTH_START,
    CUZK_TLR_SYNTH_END,
    CUZK_TLR_GPU_QUEUE,
    CUZK_TLR_LOCK_WAIT,
    CUZK_TLR_LOCK_ACQ,
    CUZK_TLR_KERNEL_START,
    CUZK_TLR_KERNEL_END,
    CUZK_TLR_LOCK_REL,
    CUZK_TLR_FINALIZE_START,
    CUZK_TLR_FINALIZE_END,
    CUZK_TLR_DELIVER,
    CUZK_TLR_JOB_FAIL,
    CUZK_TLR_JOB_CANCEL,
    CUZK_TLR_DEVICE_LOST,
    CUZK_TLR_NEV
} cuzk_tlr_ev;

/* The wire name of an event kind ("KERNEL_START"); NULL when out of range. */
const char *cuzk_tlr_ev_name(cuzk_tlr_ev ev);

/* Longest lane or stage name accepted, in bytes. */
#define CUZK_TLR_MAX_NAME 128
/* Longest line accepted, in bytes (newline excluded). */
#define CUZK_TLR_MAX_LINE 65536
/* Latest t_us accepted (2^62): differences and sums of times never overflow. */
#define CUZK_TLR_MAX_T_US ((int64_t)1 << 62)

/* One recognised event. lane and stage index the log's name tables. */
typedef struct {
    int64_t t_us;
    uint64_t job;
    int32_t part;   /* -1 for job-level events */
    int32_t dev;    /* -1 for none */
    uint32_t lane;  /* index into cuzk_tlr_log.lanes */
    uint32_t stage; /* index into cuzk_tlr_log.stages (0 is "") */
    uint32_t line;  /* 1-based line number in the file */
    cuzk_tlr_ev ev;
} cuzk_tlr_event;

/* A parsed TIMELINE: owns every array and string in it. */
typedef struct {
    cuzk_tlr_event *events; /* recognised events, in file order */
    size_t n_events;
    char **lanes; /* distinct lane names, in order of first appearance */
    size_t n_lanes;
    char **stages; /* distinct stage names; stages[0] is "" */
    size_t n_stages;
    size_t n_lines;   /* lines read */
    size_t n_unknown; /* lines skipped for an unknown "ev" */
} cuzk_tlr_log;

/* Parses len bytes of TIMELINE text into a new log. CUZK_EINVAL for an empty
 * input, one without a recognised event, or a malformed line ("timeline line
 * 12: missing key \"t_us\""); CUZK_ENOMEM. *out is set only on success. */
int cuzk_tlr_parse(const char *text, size_t len, cuzk_tlr_log **out, char *err, size_t errlen);
/* Reads and parses the file at path (CUZK_EIO when it cannot be read). */
int cuzk_tlr_read(const char *path, cuzk_tlr_log **out, char *err, size_t errlen);
/* Releases a log; NULL is a no-op. */
void cuzk_tlr_log_free(cuzk_tlr_log *log);

/* Kinds of interval drawn in the waterfall. */
typedef enum {
    CUZK_TLR_IV_SYNTH,
    CUZK_TLR_IV_KERNEL,
    CUZK_TLR_IV_FINALIZE,
    CUZK_TLR_IV_LOCK
} cuzk_tlr_iv_kind;

/* One matched START/END pair (LOCK: LOCK_ACQ/LOCK_REL). */
typedef struct {
    int64_t start_us, end_us;
    uint64_t job;
    int32_t part;
    int32_t dev;    /* the START event's dev */
    uint32_t lane;  /* index into the log's lanes */
    uint32_t stage; /* index into the log's stages (kernels; 0 otherwise) */
    cuzk_tlr_iv_kind kind;
} cuzk_tlr_interval;

/* A distribution of durations (microseconds). Percentiles use the nearest-rank
 * rule: pX is the smallest sample s such that at least X% of the samples are
 * <= s. All fields are 0 when n is 0. */
typedef struct {
    size_t n;
    double mean_us;
    int64_t min_us, p50_us, p95_us, p99_us, max_us;
} cuzk_tlr_dist;

/* An idle stretch between two kernel intervals of one device. */
typedef struct {
    int64_t start_us, len_us;
} cuzk_tlr_gap;

#define CUZK_TLR_TOP_GAPS 5

/* Per-device utilization. */
typedef struct {
    int32_t dev;
    size_t n_kernels;        /* kernel intervals on this device, all workers */
    int64_t kernel_first_us; /* earliest KERNEL_START */
    int64_t kernel_last_us;  /* latest KERNEL_END */
    int64_t kernel_busy_us;  /* length of the union of the kernel intervals */
    double kernel_util;      /* busy / (last - first); 0 when that span is 0 */
    size_t n_locks;          /* lock-held intervals */
    int64_t lock_first_us, lock_last_us, lock_busy_us;
    double lock_util;     /* lock union / its own span (LOCK_ACQ first .. LOCK_REL last) */
    size_t n_gaps;        /* holes in the kernel union inside its span */
    int64_t gap_total_us; /* = span - busy */
    size_t n_top;         /* entries used in top_gaps */
    cuzk_tlr_gap top_gaps[CUZK_TLR_TOP_GAPS]; /* longest first; ties by earlier start */
} cuzk_tlr_device;

/* Durations of one kernel stage (by its "stage" name). */
typedef struct {
    uint32_t stage; /* index into the log's stages */
    cuzk_tlr_dist d;
} cuzk_tlr_kernel_stage;

/* Warning counters: pairs that did not close. */
typedef struct {
    size_t synth_open, synth_orphan_end;
    size_t kernel_open, kernel_orphan_end;
    size_t finalize_open, finalize_orphan_end;
    size_t lock_wait_open; /* LOCK_WAIT never followed by LOCK_ACQ */
    size_t lock_open, lock_orphan_rel;
    size_t queue_open;        /* GPU_QUEUE never followed by LOCK_WAIT / LOCK_ACQ */
    size_t deliver_no_submit; /* delivered jobs without a JOB_SUBMIT */
} cuzk_tlr_warnings;

/* Everything the report says, computed from one log. */
typedef struct {
    int64_t t_first_us, t_last_us; /* earliest and latest event */
    size_t jobs_seen;              /* distinct job ids on job-level events */
    size_t jobs_submitted, delivered, failed, cancelled;
    size_t unfinished; /* submitted, and neither delivered, failed nor cancelled */
    int has_first_submit;
    int64_t first_submit_us;
    int64_t first_deliver_us, last_deliver_us; /* valid when delivered > 0 */
    int has_steady, has_overall;
    double steady_s_per_proof;  /* (last - first DELIVER) / (delivered - 1) */
    double overall_s_per_proof; /* (last DELIVER - first JOB_SUBMIT) / delivered */
    int has_kernel_time;
    double kernel_s_per_proof;  /* sum over devices of kernel busy / delivered: device-seconds of kernels per
                                   proof, what a device-bound run converges to (÷ devices) whatever the
                                   delivery order of a short run */
    cuzk_tlr_dist latency;      /* DELIVER - JOB_SUBMIT per job having both */

    cuzk_tlr_dist synth, queue, lock_wait, lock_held, finalize;
    cuzk_tlr_kernel_stage *kernels; /* kernel stages in order of stage-name first appearance */
    size_t n_kernel_stages;

    cuzk_tlr_device *devices; /* sorted by dev */
    size_t n_devices;

    cuzk_tlr_interval *intervals; /* every matched interval, sorted by (start, lane) */
    size_t n_intervals;

    cuzk_tlr_warnings warn;
} cuzk_tlr_stats;

/* Computes the statistics of a log (borrowed; it must outlive *out since
 * intervals index its name tables). CUZK_ENOMEM only. */
int cuzk_tlr_analyze(const cuzk_tlr_log *log, cuzk_tlr_stats **out, char *err, size_t errlen);
/* Releases statistics; NULL is a no-op. */
void cuzk_tlr_stats_free(cuzk_tlr_stats *st);
/* Prints the plain-text report (format in docs/timeline.md); title names the
 * input (may be NULL). CUZK_EIO if writing fails. */
int cuzk_tlr_print(FILE *out, const char *title, const cuzk_tlr_log *log, const cuzk_tlr_stats *st, char *err,
                   size_t errlen);
/* Writes the SVG waterfall to path atomically (a temporary file renamed into
 * place; nothing is left behind on failure). */
int cuzk_tlr_write_svg(const char *path, const cuzk_tlr_log *log, const cuzk_tlr_stats *st, char *err,
                       size_t errlen);

/* Reads the TIMELINE at path, prints the report to out (NULL: print nothing),
 * and writes the SVG waterfall to svg_path unless it is NULL. Returns CUZK_OK
 * or the first CUZK_E* code, with a message in err. */
int cuzk_timeline_report(const char *path, FILE *out, const char *svg_path, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
