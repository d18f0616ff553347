/*
 * client.c — a blocking gRPC client over one HTTP/2 connection (rpc.h).
 *
 * The socket stays blocking for connect and is driven with poll(): each call
 * submits a request (headers, then the framed message from a data provider
 * that ends the stream), then alternates nghttp2_session_send and reads fed to
 * nghttp2_session_mem_recv until the call's stream closes or the deadline
 * passes. Response headers and trailers are collected in the same place:
 * grpc-status and grpc-message may come in either (Trailers-Only errors put
 * them in the only HEADERS frame). A response DATA stream is reassembled and
 * its 5-byte prefix checked against the bytes received.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "rpc.h"

struct rpc_client {
    int fd;
    nghttp2_session *h2;
    char authority[300];
    /* the call in progress */
    int32_t stream_id;
    const uint8_t *req;
    size_t req_len, req_off;
    uint8_t *resp;
    size_t resp_len, resp_cap;
    int status;
    bool have_status, closed, failed;
    uint32_t http_status;
    char message[512];
    char err[256];
};

/* What a connection closed by the server may mean, for the messages that report one. */
#define CLOSED_HINT "it may be at its connection limit, shutting down, or have closed an idle connection"

static ssize_t c_send_cb(nghttp2_session *h2, const uint8_t *data, size_t len, int flags, void *user)
{
    rpc_client *c = user;
    ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return NGHTTP2_ERR_WOULDBLOCK;
        if (errno == EPIPE || errno == ECONNRESET)
            snprintf(c->err, sizeof c->err, "the server closed the connection (%s): " CLOSED_HINT,
                     strerror(errno));
        else
            snprintf(c->err, sizeof c->err, "send: %s", strerror(errno));
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    return n;
}

static void percent_decode(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        unsigned v;
        if (p[0] == '%' && p[1] && p[2] && sscanf(p + 1, "%2x", &v) == 1) {
            *o++ = (char)v;
            p += 2;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
}

/* The largest answer a client takes (the 5-byte prefix included): a bound on a misbehaving server. */
#define RPC_CLIENT_MAX_RESPONSE (((size_t)1 << 30) + 5)

static int c_header_cb(nghttp2_session *h2, const nghttp2_frame *f, const uint8_t *name, size_t nlen,
                       const uint8_t *value, size_t vlen, uint8_t flags, void *user)
{
    rpc_client *c = user;
    if (f->hd.stream_id != c->stream_id)
        return 0;
    if (nlen == 11 && !memcmp(name, "grpc-status", 11)) {
        /* 1 to 3 digits, else the answer is malformed: UNKNOWN, never OK by accident */
        int st = vlen >= 1 && vlen <= 3 ? 0 : -1;
        for (size_t i = 0; st >= 0 && i < vlen; i++)
            st = value[i] >= '0' && value[i] <= '9' ? st * 10 + (value[i] - '0') : -1;
        c->status = st >= 0 ? st : RPC_UNKNOWN;
        c->have_status = true;
    } else if (nlen == 12 && !memcmp(name, "grpc-message", 12)) {
        size_t n = vlen < sizeof c->message - 1 ? vlen : sizeof c->message - 1;
        memcpy(c->message, value, n);
        c->message[n] = 0;
        percent_decode(c->message);
    } else if (nlen == 7 && !memcmp(name, ":status", 7)) {
        c->http_status = 0;
        for (size_t i = 0; i < vlen && value[i] >= '0' && value[i] <= '9'; i++)
            c->http_status = c->http_status * 10 + (uint32_t)(value[i] - '0');
    }
    return 0;
}

static int c_data_cb(nghttp2_session *h2, uint8_t flags, int32_t stream_id, const uint8_t *data, size_t len,
                     void *user)
{
    rpc_client *c = user;
    if (stream_id != c->stream_id)
        return 0;
    if (c->resp_len + len > RPC_CLIENT_MAX_RESPONSE) {
        snprintf(c->err, sizeof c->err, "the answer exceeds %zu bytes", (size_t)RPC_CLIENT_MAX_RESPONSE);
        c->failed = true;
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    if (c->resp_len + len > c->resp_cap) {
        size_t cap = c->resp_cap ? c->resp_cap : 4096;
        while (cap < c->resp_len + len)
            cap *= 2;
        uint8_t *nb = realloc(c->resp, cap);
        if (!nb) {
            snprintf(c->err, sizeof c->err, "out of memory for a %zu-byte response", c->resp_len + len);
            c->failed = true;
            return NGHTTP2_ERR_CALLBACK_FAILURE;
        }
        c->resp = nb;
        c->resp_cap = cap;
    }
    memcpy(c->resp + c->resp_len, data, len);
    c->resp_len += len;
    return 0;
}

static int c_close_cb(nghttp2_session *h2, int32_t stream_id, uint32_t error_code, void *user)
{
    rpc_client *c = user;
    if (stream_id == c->stream_id) {
        c->closed = true;
        if (error_code != NGHTTP2_NO_ERROR && !c->have_status) {
            snprintf(c->err, sizeof c->err, "the server reset the stream (HTTP/2 error %u)", error_code);
            c->failed = true;
        }
    }
    return 0;
}

static ssize_t c_read_cb(nghttp2_session *h2, int32_t stream_id, uint8_t *buf, size_t length, uint32_t *flags,
                         nghttp2_data_source *src, void *user)
{
    rpc_client *c = user;
    size_t left = c->req_len - c->req_off;
    size_t n = left < length ? left : length;
    memcpy(buf, c->req + c->req_off, n);
    c->req_off += n;
    if (c->req_off == c->req_len)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static int dial(const rpc_addr *a, char *err, size_t errlen)
{
    if (a->is_unix) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        memcpy(sa.sun_path, a->path, strlen(a->path) + 1);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return rpc_fail(err, errlen, "socket: %s", strerror(errno));
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
            int e = errno;
            close(fd);
            return rpc_fail(err, errlen, "connect unix://%s: %s", a->path, strerror(e));
        }
        return fd;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    int g = getaddrinfo(a->host, a->port, &hints, &res);
    if (g != 0)
        return rpc_fail(err, errlen, "resolve %s: %s", a->host, gai_strerror(g));
    int fd = -1, e = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        e = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return rpc_fail(err, errlen, "connect %s:%s: %s", a->host, a->port, strerror(e));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

int rpc_client_open(rpc_client **out, const char *addr, char *err, size_t errlen)
{
    *out = NULL;
    rpc_addr a;
    if (rpc_addr_parse(addr, &a, err, errlen) != 0)
        return -1;
    rpc_client *c = calloc(1, sizeof *c);
    if (!c)
        return rpc_fail(err, errlen, "out of memory");
    c->fd = dial(&a, err, errlen);
    if (c->fd < 0) {
        free(c);
        return -1;
    }
    if (a.is_unix)
        snprintf(c->authority, sizeof c->authority, "localhost");
    else
        snprintf(c->authority, sizeof c->authority, "%s:%s", a.host, a.port);
    nghttp2_session_callbacks *cb;
    if (nghttp2_session_callbacks_new(&cb) != 0) {
        rpc_client_close(c);
        return rpc_fail(err, errlen, "out of memory");
    }
    nghttp2_session_callbacks_set_send_callback(cb, c_send_cb);
    nghttp2_session_callbacks_set_on_header_callback(cb, c_header_cb);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, c_data_cb);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, c_close_cb);
    int rc = nghttp2_session_client_new(&c->h2, cb, c);
    nghttp2_session_callbacks_del(cb);
    if (rc != 0) {
        rpc_client_close(c);
        return rpc_fail(err, errlen, "nghttp2: %s", nghttp2_strerror(rc));
    }
    nghttp2_settings_entry iv[] = {{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 16u << 20}};
    nghttp2_submit_settings(c->h2, NGHTTP2_FLAG_NONE, iv, 1);
    nghttp2_session_set_local_window_size(c->h2, NGHTTP2_FLAG_NONE, 0, 256 << 20);
    *out = c;
    return 0;
}

void rpc_client_close(rpc_client *c)
{
    if (!c)
        return;
    if (c->h2) {
        nghttp2_session_terminate_session(c->h2, NGHTTP2_NO_ERROR);
        nghttp2_session_send(c->h2);
        nghttp2_session_del(c->h2);
    }
    if (c->fd >= 0)
        close(c->fd);
    free(c->resp);
    free(c);
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int rpc_client_call(rpc_client *c, const char *method, const uint8_t *req, size_t len, int timeout_ms,
                    int *status, char *message, size_t msglen, uint8_t **resp, size_t *resp_len, char *err,
                    size_t errlen)
{
    *resp = NULL;
    *resp_len = 0;
    if (message && msglen)
        message[0] = 0;
    if (len > UINT32_MAX)
        return rpc_fail(err, errlen, "request of %zu bytes is too large for one gRPC message", len);
    uint8_t *framed = malloc(len + 5);
    if (!framed)
        return rpc_fail(err, errlen, "out of memory for a %zu-byte request", len);
    framed[0] = 0;
    framed[1] = (uint8_t)(len >> 24);
    framed[2] = (uint8_t)(len >> 16);
    framed[3] = (uint8_t)(len >> 8);
    framed[4] = (uint8_t)len;
    if (len)
        memcpy(framed + 5, req, len);
    c->req = framed;
    c->req_len = len + 5;
    c->req_off = 0;
    c->resp_len = 0;
    c->status = RPC_UNKNOWN;
    c->have_status = c->closed = c->failed = false;
    c->http_status = 0;
    c->message[0] = c->err[0] = 0;
#define HNV(n, v) {(uint8_t *)(n), (uint8_t *)(v), strlen(n), strlen(v), NGHTTP2_NV_FLAG_NONE}
    nghttp2_nv hd[] = {HNV(":method", "POST"),
                       HNV(":scheme", "http"),
                       HNV(":path", method),
                       HNV(":authority", c->authority),
                       HNV("content-type", "application/grpc"),
                       HNV("te", "trailers"),
                       HNV("user-agent", "cuzk-rpc-client/1"),
                       HNV("grpc-timeout", "")};
    /* the deadline travels with the call, so the server stops serving it when the client gives up */
    char tmo[16];
    size_t nhd = sizeof hd / sizeof hd[0] - 1;
    if (timeout_ms > 0) {
        if (timeout_ms <= 99999999)
            snprintf(tmo, sizeof tmo, "%dm", timeout_ms);
        else
            snprintf(tmo, sizeof tmo, "%dS", (timeout_ms + 999) / 1000);
        hd[nhd].value = (uint8_t *)tmo;
        hd[nhd].valuelen = strlen(tmo);
        nhd++;
    }
    nghttp2_data_provider prd = {.read_callback = c_read_cb};
    c->stream_id = nghttp2_submit_request(c->h2, NULL, hd, nhd, &prd, NULL);
    if (c->stream_id < 0) {
        free(framed);
        return rpc_fail(err, errlen, "cannot start a call: %s", nghttp2_strerror(c->stream_id));
    }
    int64_t deadline = timeout_ms > 0 ? mono_ms() + timeout_ms : 0;
    int ret = 0;
    uint8_t buf[65536];
    while (!c->closed && !c->failed) {
        int rc = nghttp2_session_send(c->h2);
        if (rc != 0) {
            ret = rpc_fail(err, errlen, "%s", c->err[0] ? c->err : nghttp2_strerror(rc));
            break;
        }
        if (c->closed)
            break;
        if (!nghttp2_session_want_read(c->h2) && !nghttp2_session_want_write(c->h2)) {
            ret = rpc_fail(err, errlen, "the server ended the connection before answering");
            break;
        }
        struct pollfd p = {.fd = c->fd, .events = POLLIN | (nghttp2_session_want_write(c->h2) ? POLLOUT : 0)};
        int wait = -1;
        if (deadline) {
            int64_t left = deadline - mono_ms();
            if (left <= 0) {
                ret = rpc_fail(err, errlen, "no answer within %d ms", timeout_ms);
                nghttp2_submit_rst_stream(c->h2, NGHTTP2_FLAG_NONE, c->stream_id, NGHTTP2_CANCEL);
                nghttp2_session_send(c->h2);
                break;
            }
            wait = (int)left;
        }
        int pr = poll(&p, 1, wait);
        if (pr < 0 && errno != EINTR) {
            ret = rpc_fail(err, errlen, "poll: %s", strerror(errno));
            break;
        }
        if (pr <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t n = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n == 0) {
            ret = rpc_fail(err, errlen, "the server closed the connection: " CLOSED_HINT);
            break;
        }
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            if (errno == ECONNRESET)
                ret = rpc_fail(err, errlen, "the server closed the connection (%s): " CLOSED_HINT, strerror(errno));
            else
                ret = rpc_fail(err, errlen, "recv: %s", strerror(errno));
            break;
        }
        ssize_t m = nghttp2_session_mem_recv(c->h2, buf, (size_t)n);
        if (m < 0) {
            ret = rpc_fail(err, errlen, "%s", c->err[0] ? c->err : nghttp2_strerror((int)m));
            break;
        }
    }
    free(framed);
    c->req = NULL;
    if (ret == 0 && c->failed)
        ret = rpc_fail(err, errlen, "%s", c->err);
    if (ret == 0 && !c->have_status)
        ret = rpc_fail(err, errlen, "the answer has no grpc-status (HTTP status %u)", c->http_status);
    if (ret != 0)
        return ret;
    *status = c->status;
    if (message && msglen)
        snprintf(message, msglen, "%s", c->message);
    if (c->status != RPC_OK)
        return 0;
    if (c->resp_len < 5)
        return rpc_fail(err, errlen, "the answer has no gRPC message");
    uint32_t n =
        (uint32_t)c->resp[1] << 24 | (uint32_t)c->resp[2] << 16 | (uint32_t)c->resp[3] << 8 | c->resp[4];
    if ((size_t)n + 5 != c->resp_len)
        return rpc_fail(err, errlen, "the answer's prefix says %u bytes, %zu arrived", n, c->resp_len - 5);
    *resp = malloc(n ? n : 1);
    if (!*resp)
        return rpc_fail(err, errlen, "out of memory");
    memcpy(*resp, c->resp + 5, n);
    *resp_len = n;
    return 0;
}
