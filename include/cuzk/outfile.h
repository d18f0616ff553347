/*
 * cuzk/outfile.h — output files that appear at their path whole or not at all.
 *
 * Every file cuzk writes (keys, verifying keys, zkeys, proofs, TIMELINE logs, SVG waterfalls, CSV
 * tables) goes through this one mechanism: the bytes go to "<path>.tmp.<pid>", created exclusively next
 * to the destination; commit flushes and fsyncs it, renames it over the destination and fsyncs the
 * directory; any failure, or an abort, removes it. A reader of the destination therefore sees the old
 * file or the complete new one, never a torn one, and a failed write leaves no file behind.
 */
#ifndef CUZK_OUTFILE_H
#define CUZK_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Flags of cuzk_outfile_open. TRACK: remove the temporary file if a fatal signal ends the process
 * (cuzk_temp_track: for programs, not for a library inside a daemon). STREAM: write through a stdio
 * stream, o->f (a caller may setvbuf it before writing), instead of cuzk_outfile_write. */
#define CUZK_OUTFILE_TRACK 1u
#define CUZK_OUTFILE_STREAM 2u

typedef struct {
    char *path; /* the destination (a copy) */
    char *tmp;  /* the temporary file; NULL when nothing is open */
    int fd;     /* its descriptor (owned by f with CUZK_OUTFILE_STREAM) */
    FILE *f;    /* the stream (CUZK_OUTFILE_STREAM), or NULL */
    int errnum; /* the first failed write, reported by commit */
    bool tracked;
} cuzk_outfile;

/* Creates path's temporary file. A directory at path is refused here, before any work is done. who
 * (may be NULL) prefixes every message. CUZK_OK, CUZK_EIO (cannot create, a directory) or CUZK_ENOMEM;
 * on failure nothing is left open or on disk. */
int cuzk_outfile_open(cuzk_outfile *o, const char *path, unsigned flags, const char *who, char *err,
                      size_t errlen);

/* Writes len bytes (retrying short writes and interruptions). CUZK_OK, or CUZK_EIO with the reason kept
 * for commit (o->errnum); later writes then do nothing. Not for an outfile opened with a stream. */
int cuzk_outfile_write(cuzk_outfile *o, const void *buf, size_t len);

/* Flushes, fsyncs, closes and renames the file into place, then fsyncs the directory. On any failure
 * (including an earlier failed write) removes the temporary file and returns CUZK_EIO naming the step.
 * Everything is released either way; a closed or zeroed outfile returns CUZK_EINVAL. */
int cuzk_outfile_commit(cuzk_outfile *o, const char *who, char *err, size_t errlen);

/* Commits two files as one: both are sealed (flushed, fsynced, closed) before either is renamed, and if
 * second's rename fails, first's destination is put back as it was (its old file kept under a hard link
 * meanwhile; removed if there was none). So a failure leaves both destinations as they were, except on a
 * file system without hard links, where first's old file cannot be kept aside. Both are released either
 * way; a failure of either returns its error as cuzk_outfile_commit would. */
int cuzk_outfile_commit_pair(cuzk_outfile *first, cuzk_outfile *second, const char *who, char *err,
                             size_t errlen);

/* Closes and removes the temporary file if one is open, and releases everything; safe on a zeroed, a
 * committed or an aborted outfile. */
void cuzk_outfile_abort(cuzk_outfile *o);

#ifdef __cplusplus
}
#endif
#endif
