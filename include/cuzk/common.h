/*
 * cuzk/common.h — status codes and error reporting shared by every module.
 *
 * Every fallible function returns an int: CUZK_OK (0) on success, a negative
 * CUZK_E* code on failure. Functions that can say more take an optional
 * (char *err, size_t errlen) buffer and fill it with a precise, human message;
 * passing NULL is always allowed.
 */
#ifndef CUZK_COMMON_H
#define CUZK_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    CUZK_OK = 0,
    CUZK_EINVAL = -1,        /* bad argument or malformed input */
    CUZK_ENOMEM = -2,        /* allocation failed */
    CUZK_EIO = -3,           /* read/write/mmap failure */
    CUZK_ENONCANONICAL = -4, /* field element encoding >= modulus */
    CUZK_EFLAGS = -5,        /* serialization flag bits inconsistent */
    CUZK_ENOTONCURVE = -6,   /* coordinates do not satisfy the curve equation */
    CUZK_ENOTINGROUP = -7,   /* point on the curve but outside the r-order subgroup */
    CUZK_ENOSQRT = -8,       /* compressed x has no matching y */
    CUZK_ERANGE = -9,        /* size out of supported range */
    CUZK_EUNSAT = -10,       /* witness does not satisfy the constraints */
    CUZK_EVERIFY = -11,      /* proof failed verification */
    CUZK_ECANCELED = -12,    /* the work was cancelled before it finished */
    CUZK_EDEVICE = -13, /* a device can no longer be used (a fatal device error): its work goes elsewhere */
};

/* Short, constant name of a status code ("not on curve"); never NULL. */
const char *cuzk_strerror(int code);

/* Formats a message into err (if non-NULL) and returns code unchanged, so a
 * failing path can be written as `return cuzk_fail(err, n, CUZK_EINVAL, "...")`. */
int cuzk_fail(char *err, size_t errlen, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Fills buf with n bytes from the kernel's random source (getrandom, retried
 * on interruption). Returns CUZK_OK or CUZK_EIO. */
int cuzk_random_bytes(void *buf, size_t n);

/* Temporary output files that must not outlive the process: a tracked path is unlinked if SIGINT,
 * SIGTERM, SIGHUP or (unless the program ignores it) SIGPIPE ends the process (the handlers are
 * installed on the first call; the signal is then re-raised with its default action). At most 8 at once; the path must stay valid until untracked.
 * For the command-line programs' atomic outputs ("<path>.tmp.<pid>", renamed into place when complete). */
void cuzk_temp_track(char *path);
void cuzk_temp_untrack(const char *path);

/* Flushes stdout and tells whether everything the program wrote there arrived: 0, or the errno of the
 * failure (EIO when an earlier write failed and left no errno). For the programs' last step, so that a
 * full disk or a closed reader behind `> file` is not an exit 0 with the output lost. */
int cuzk_stdout_finish(void);

/* Whether paths a and b name one file: the same existing file (device and inode: links and other
 * spellings included), or, where either does not exist yet, the same name in the same directory (the
 * directories resolved). For refusing an output that would overwrite an input or another output. */
bool cuzk_same_file(const char *a, const char *b);

#ifdef __cplusplus
}
#endif
#endif
