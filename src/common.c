/*
 * common.c — status-code names and the error-buffer helper declared in
 * cuzk/common.h. Kept tiny: every module reports failures through it so the
 * message format is uniform ("module: what went wrong"), and the one source of
 * randomness (getrandom) used for r, s, toxic waste and batch weights; and the
 * list of temporary output files a fatal signal removes.
 */
#include "cuzk/common.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

const char *cuzk_strerror(int code)
{
    switch (code) {
    case CUZK_OK: return "ok";
    case CUZK_EINVAL: return "invalid argument";
    case CUZK_ENOMEM: return "out of memory";
    case CUZK_EIO: return "i/o error";
    case CUZK_ENONCANONICAL: return "non-canonical field element";
    case CUZK_EFLAGS: return "bad encoding flags";
    case CUZK_ENOTONCURVE: return "point not on curve";
    case CUZK_ENOTINGROUP: return "point not in subgroup";
    case CUZK_ENOSQRT: return "no square root";
    case CUZK_ERANGE: return "size out of range";
    case CUZK_EUNSAT: return "constraint not satisfied";
    case CUZK_EVERIFY: return "proof does not verify";
    case CUZK_ECANCELED: return "cancelled";
    case CUZK_EDEVICE: return "device lost";
    default: return "unknown error";
    }
}

int cuzk_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

int cuzk_random_bytes(void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return CUZK_EIO;
        }
        p += got;
        n -= (size_t)got;
    }
    return CUZK_OK;
}

#define CUZK_MAX_TEMPS 8

static char *volatile temps[CUZK_MAX_TEMPS];

static void on_fatal_signal(int sig)
{
    for (int i = 0; i < CUZK_MAX_TEMPS; i++)
        if (temps[i])
            unlink(temps[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

void cuzk_temp_track(char *path)
{
    static volatile sig_atomic_t handlers;
    if (!handlers) {
        signal(SIGINT, on_fatal_signal);
        signal(SIGTERM, on_fatal_signal);
        signal(SIGHUP, on_fatal_signal);
        /* SIGPIPE (`cuzk ... | head` gone) ends the program the same way, unless it ignores it */
        struct sigaction cur;
        if (sigaction(SIGPIPE, NULL, &cur) == 0 && cur.sa_handler == SIG_DFL)
            signal(SIGPIPE, on_fatal_signal);
        handlers = 1;
    }
    for (int i = 0; i < CUZK_MAX_TEMPS; i++)
        if (!temps[i]) {
            temps[i] = path;
            return;
        }
}

void cuzk_temp_untrack(const char *path)
{
    for (int i = 0; i < CUZK_MAX_TEMPS; i++)
        if (temps[i] == path)
            temps[i] = NULL;
}

int cuzk_stdout_finish(void)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout))
        return errno ? errno : EIO;
    return 0;
}

/* The directory part of path resolved, then "/" and the last component, into out (PATH_MAX bytes);
 * false when the directory does not resolve or the result does not fit. */
static bool resolved_name(const char *path, char *out)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX], real[PATH_MAX];
    const char *base = slash ? slash + 1 : path;
    if (slash) {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        if (n >= sizeof dir)
            return false;
        memcpy(dir, path, n);
        dir[n] = 0;
    } else {
        strcpy(dir, ".");
    }
    if (!realpath(dir, real))
        return false;
    return snprintf(out, PATH_MAX, "%s/%s", strcmp(real, "/") ? real : "", base) < PATH_MAX;
}

bool cuzk_same_file(const char *a, const char *b)
{
    if (!a || !b)
        return false;
    if (!strcmp(a, b))
        return true;
    struct stat sa, sb;
    bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea || eb) /* one exists, the other does not: different */
        return false;
    char ra[PATH_MAX], rb[PATH_MAX];
    return resolved_name(a, ra) && resolved_name(b, rb) && !strcmp(ra, rb);
}
