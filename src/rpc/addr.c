/*
 * addr.c — listen/dial addresses and gRPC status names, shared by the server
 * and the client (rpc.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rpc.h"

const char *rpc_status_name(int code)
{
    static const char *const names[] = {
        "OK",        "CANCELLED",       "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
        "NOT_FOUND", "ALREADY_EXISTS",  "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
        "ABORTED",   "OUT_OF_RANGE",    "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
        "DATA_LOSS", "UNAUTHENTICATED",
    };
    if (code < 0 || code > 16)
        return "UNKNOWN_STATUS";
    return names[code];
}

static int addr_fail(char *err, size_t errlen, const char *what, const char *s)
{
    if (err && errlen)
        snprintf(err, errlen, "address '%s': %s", s, what);
    return -1;
}

int rpc_addr_parse(const char *s, rpc_addr *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!s || !s[0])
        return addr_fail(err, errlen, "empty", "");
    if (!strncmp(s, "unix:", 5)) {
        const char *p = s + 5;
        if (!strncmp(p, "//", 2))
            p += 2;
        if (!p[0])
            return addr_fail(err, errlen, "no socket path after unix:", s);
        if (strlen(p) >= sizeof out->path)
            return addr_fail(err, errlen, "socket path longer than 107 bytes", s);
        out->is_unix = true;
        strcpy(out->path, p);
        return 0;
    }
    const char *p = s;
    if (!strncmp(p, "http://", 7))
        p += 7;
    const char *colon;
    const char *host = p;
    size_t hlen;
    if (p[0] == '[') {
        const char *close = strchr(p, ']');
        if (!close || close[1] != ':')
            return addr_fail(err, errlen, "expected [ipv6]:port", s);
        host = p + 1;
        hlen = (size_t)(close - host);
        colon = close + 1;
    } else {
        colon = strrchr(p, ':');
        if (!colon)
            return addr_fail(err, errlen, "expected host:port or unix:///path", s);
        hlen = (size_t)(colon - p);
        if (memchr(p, ':', hlen))
            return addr_fail(err, errlen, "an IPv6 host needs brackets: [::1]:port", s);
    }
    const char *port = colon + 1;
    size_t plen = strlen(port);
    if (plen > 0 && port[plen - 1] == '/')
        plen--;
    if (hlen == 0 || hlen >= sizeof out->host)
        return addr_fail(err, errlen, "bad host", s);
    if (plen == 0 || plen > 5)
        return addr_fail(err, errlen, "bad port", s);
    unsigned v = 0;
    for (size_t i = 0; i < plen; i++) {
        if (port[i] < '0' || port[i] > '9')
            return addr_fail(err, errlen, "the port is not a number", s);
        v = v * 10 + (unsigned)(port[i] - '0');
    }
    if (v > 65535)
        return addr_fail(err, errlen, "port above 65535", s);
    memcpy(out->host, host, hlen);
    memcpy(out->port, port, plen);
    return 0;
}

int rpc_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}
