/*
 * log.c — cuzkd's log: one line per event, "2026-12-02T17:00:00.123Z INFO message" (text) or
 * {"ts":"...","level":"info","msg":"..."} (JSON Lines), to stderr or to a file opened for appending.
 *
 * Any thread may log; one mutex keeps lines whole. SIGHUP makes main call cuzkd_log_reopen, which
 * opens the path again and swaps the descriptor under the same mutex, so a rotated file is released
 * without losing a line.
 *
 * A line that cannot be written (a full disk, the file-size limit: main ignores SIGXFSZ) is dropped; the
 * first such failure of a log file is reported on stderr, once until the next reopen.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = 2;
static char *log_path;
static int log_level = RPC_LOG_INFO;
static bool log_json;
static bool log_failed; /* a write to the log file failed and was reported (under log_mu) */

static const char *const LEVEL_NAMES[] = {"debug", "info", "warn", "error"};

int cuzkd_log_level_parse(const char *s)
{
    if (!strcmp(s, "debug") || !strcmp(s, "trace"))
        return RPC_LOG_DEBUG;
    if (!strcmp(s, "info"))
        return RPC_LOG_INFO;
    if (!strcmp(s, "warn") || !strcmp(s, "warning"))
        return RPC_LOG_WARN;
    if (!strcmp(s, "error"))
        return RPC_LOG_ERROR;
    return -1;
}

static int open_file(const char *path)
{
    return open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
}

int cuzkd_log_open(const char *path, int level, bool json, char *err, size_t errlen)
{
    log_level = level;
    log_json = json;
    if (!path)
        return 0;
    int fd = open_file(path);
    if (fd < 0) {
        snprintf(err, errlen, "log file %s: %s", path, strerror(errno));
        return -1;
    }
    log_path = strdup(path);
    if (!log_path) {
        close(fd);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    log_fd = fd;
    return 0;
}

void cuzkd_log_reopen(void)
{
    if (!log_path)
        return;
    int fd = open_file(log_path);
    if (fd < 0) {
        LOG_ERROR("SIGHUP: cannot reopen the log file %s: %s (still writing to the old one)", log_path,
                  strerror(errno));
        return;
    }
    pthread_mutex_lock(&log_mu);
    int old = log_fd;
    log_fd = fd;
    log_failed = false;
    pthread_mutex_unlock(&log_mu);
    close(old);
    LOG_INFO("log file reopened (SIGHUP)");
}

void cuzkd_log_close(void)
{
    pthread_mutex_lock(&log_mu);
    if (log_path) {
        close(log_fd);
        log_fd = 2;
        free(log_path);
        log_path = NULL;
    }
    pthread_mutex_unlock(&log_mu);
}

bool cuzkd_log_enabled(int level)
{
    return level >= log_level;
}

/* Bytes of the well-formed UTF-8 sequence at s (1 to 4), or 0: a stray continuation byte, an overlong form,
 * a surrogate, a code point above U+10FFFF, or a sequence cut short (by the NUL, at the latest). */
static size_t utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return n;
}

size_t cuzkd_json_escape(char *out, size_t cap, const char *s)
{
    size_t n = 0;
    const unsigned char *u = (const unsigned char *)s;
    while (*u && n + 7 < cap) {
        unsigned char ch = *u;
        size_t len = utf8_len(u);
        if (ch == '"' || ch == '\\') {
            out[n++] = '\\';
            out[n++] = (char)ch;
        } else if (ch < 0x20) {
            n += (size_t)snprintf(out + n, cap - n, "\\u%04x", ch);
        } else if (len == 0) { /* not UTF-8 (a client's bytes, a path): U+FFFD, so the line stays JSON */
            memcpy(out + n, "\\ufffd", 6);
            n += 6;
            len = 1;
        } else if (n + len + 7 < cap) {
            memcpy(out + n, u, len);
            n += len;
        } else {
            break;
        }
        u += len;
    }
    out[n] = 0;
    return n;
}

void cuzkd_log(int level, const char *fmt, ...)
{
    if (level < log_level)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char ts[80];
    snprintf(ts, sizeof ts, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(tv.tv_usec / 1000));
    char line[2400];
    int n;
    if (log_json) {
        char esc[2200];
        cuzkd_json_escape(esc, sizeof esc, msg);
        n = snprintf(line, sizeof line, "{\"ts\":\"%s\",\"level\":\"%s\",\"msg\":\"%s\"}\n", ts,
                     LEVEL_NAMES[level], esc);
    } else {
        char up[8] = "";
        for (size_t i = 0; LEVEL_NAMES[level][i] && i < sizeof up - 1; i++)
            up[i] = (char)(LEVEL_NAMES[level][i] - 32);
        n = snprintf(line, sizeof line, "%s %-5s %s\n", ts, up, msg);
    }
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line) {
        n = sizeof line - 1;
        line[n - 1] = '\n';
    }
    pthread_mutex_lock(&log_mu);
    for (ssize_t off = 0; off < n;) {
        ssize_t w = write(log_fd, line + off, (size_t)(n - off));
        if (w <= 0 && errno != EINTR) {
            if (log_path && !log_failed) {
                log_failed = true;
                dprintf(2, "cuzkd: cannot write the log file %s: %s; lines that fail are dropped\n", log_path,
                        w < 0 ? strerror(errno) : "nothing written");
            }
            break;
        }
        if (w > 0)
            off += w;
    }
    pthread_mutex_unlock(&log_mu);
}
