/*
 * outfile.c — the atomic output file of cuzk/outfile.h: "<path>.tmp.<pid>",
 * fsynced and renamed into place, or removed.
 */
#include "cuzk/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/common.h"

/* cuzk_fail with "who: " in front when who is given. */
static int fail(const char *who, char *err, size_t errlen, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static int fail(const char *who, char *err, size_t errlen, int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cuzk_fail(err, errlen, code, "%s%s%s", who ? who : "", who ? ": " : "", msg);
}

/* Releases what o holds (the temporary file must already be closed) and leaves it zeroed. */
static void release(cuzk_outfile *o)
{
    if (o->tracked)
        cuzk_temp_untrack(o->tmp);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
    o->fd = -1;
}

/* fsyncs the directory holding path, so that the rename itself survives a crash. Best effort: some
 * file systems refuse fsync on a directory, and the file's own data is already on disk. */
static void fsync_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

int cuzk_outfile_open(cuzk_outfile *o, const char *path, unsigned flags, const char *who, char *err,
                      size_t errlen)
{
    if (!o)
        return fail(who, err, errlen, CUZK_EINVAL, "no output file");
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!path || !path[0])
        return fail(who, err, errlen, CUZK_EINVAL, "no output path");
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return fail(who, err, errlen, CUZK_EIO, "%s is a directory, expected a file name for the output",
                    path);
    size_t n = strlen(path) + 32;
    o->path = strdup(path);
    o->tmp = malloc(n);
    if (!o->path || !o->tmp) {
        release(o);
        return fail(who, err, errlen, CUZK_ENOMEM, "out of memory");
    }
    snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (o->fd < 0) {
        int e = errno;
        int rc = fail(who, err, errlen, CUZK_EIO, "cannot create %s: %s", o->tmp, strerror(e));
        release(o);
        return rc;
    }
    if ((flags & CUZK_OUTFILE_STREAM) && !(o->f = fdopen(o->fd, "w"))) {
        int e = errno;
        int rc = fail(who, err, errlen, CUZK_EIO, "cannot open a stream on %s: %s", o->tmp, strerror(e));
        close(o->fd);
        unlink(o->tmp);
        release(o);
        return rc;
    }
    if (flags & CUZK_OUTFILE_TRACK) {
        cuzk_temp_track(o->tmp);
        o->tracked = true;
    }
    return CUZK_OK;
}

int cuzk_outfile_write(cuzk_outfile *o, const void *buf, size_t len)
{
    if (!o || !o->tmp || o->f) {
        if (o && !o->errnum)
            o->errnum = EBADF;
        return CUZK_EIO;
    }
    if (o->errnum)
        return CUZK_EIO;
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t w = write(o->fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            o->errnum = w < 0 ? errno : EIO;
            return CUZK_EIO;
        }
        p += w;
        len -= (size_t)w;
    }
    return CUZK_OK;
}

/* The first half of a commit: flush, fsync and close the temporary file. On failure it is removed and o
 * released; on success o keeps its paths for place(). */
static int seal(cuzk_outfile *o, const char *who, char *err, size_t errlen)
{
    if (!o || !o->tmp)
        return fail(who, err, errlen, CUZK_EINVAL, "no output file open");
    const char *step = o->errnum ? "writing" : NULL;
    int e = o->errnum;
    if (o->f) {
        if (!step && (fflush(o->f) != 0 || ferror(o->f)))
            step = "writing", e = errno ? errno : EIO;
        if (!step && fsync(fileno(o->f)) != 0)
            step = "fsync", e = errno;
        if (fclose(o->f) != 0 && !step)
            step = "closing", e = errno ? errno : EIO;
    } else {
        if (!step && fsync(o->fd) != 0)
            step = "fsync", e = errno;
        if (close(o->fd) != 0 && !step)
            step = "closing", e = errno ? errno : EIO;
    }
    o->f = NULL;
    o->fd = -1;
    if (!step)
        return CUZK_OK;
    int rc = fail(who, err, errlen, CUZK_EIO, "%s %s: %s", step, o->tmp, strerror(e));
    unlink(o->tmp);
    release(o);
    return rc;
}

/* The rename of a sealed file into place. */
static int place(cuzk_outfile *o, const char *who, char *err, size_t errlen)
{
    if (rename(o->tmp, o->path) != 0)
        return fail(who, err, errlen, CUZK_EIO, "cannot rename %s to %s: %s", o->tmp, o->path, strerror(errno));
    return CUZK_OK;
}

/* Drops a sealed file that will not be placed. */
static void drop_sealed(cuzk_outfile *o)
{
    unlink(o->tmp);
    release(o);
}

int cuzk_outfile_commit(cuzk_outfile *o, const char *who, char *err, size_t errlen)
{
    int rc = seal(o, who, err, errlen);
    if (rc)
        return rc;
    if ((rc = place(o, who, err, errlen))) {
        drop_sealed(o);
        return rc;
    }
    fsync_parent(o->path);
    release(o);
    return CUZK_OK;
}

int cuzk_outfile_commit_pair(cuzk_outfile *first, cuzk_outfile *second, const char *who, char *err,
                             size_t errlen)
{
    int rc = seal(first, who, err, errlen);
    if (rc) {
        cuzk_outfile_abort(second);
        return rc;
    }
    if ((rc = seal(second, who, err, errlen))) {
        drop_sealed(first);
        return rc;
    }
    /* first's old file, kept under another name until second is in place */
    size_t n = strlen(first->path) + 32;
    char *bak = malloc(n);
    if (!bak) {
        drop_sealed(first);
        drop_sealed(second);
        return fail(who, err, errlen, CUZK_ENOMEM, "out of memory");
    }
    snprintf(bak, n, "%s.old.%ld", first->path, (long)getpid());
    unlink(bak);
    bool had_old = link(first->path, bak) == 0;
    bool no_old = !had_old && errno == ENOENT, track = had_old && first->tracked;
    if (track)
        cuzk_temp_track(bak);
    if ((rc = place(first, who, err, errlen))) {
        drop_sealed(first);
        drop_sealed(second);
    } else if ((rc = place(second, who, err, errlen))) {
        if (had_old) /* first back as it was */
            rename(bak, first->path);
        else if (no_old)
            unlink(first->path);
        drop_sealed(second);
        release(first);
    } else {
        fsync_parent(first->path);
        fsync_parent(second->path);
        release(first);
        release(second);
    }
    if (had_old)
        unlink(bak);
    if (track)
        cuzk_temp_untrack(bak);
    free(bak);
    return rc;
}

void cuzk_outfile_abort(cuzk_outfile *o)
{
    if (!o || !o->tmp)
        return;
    if (o->f)
        fclose(o->f);
    else if (o->fd >= 0)
        close(o->fd);
    unlink(o->tmp);
    release(o);
}
