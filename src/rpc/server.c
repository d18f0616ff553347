/*
 * server.c — the gRPC/HTTP2 server loop of rpc.h.
 *
 * One epoll set holds: the listeners (tagged gRPC or HTTP), the connections,
 * one eventfd for rpc_server_post, and the descriptors of rpc_server_watch_fd.
 * Every socket is non-blocking. A gRPC connection owns an nghttp2 server
 * session: bytes read are fed to nghttp2_session_mem_recv, which calls back
 * here per header and DATA chunk; bytes to send leave through send_cb, which
 * writes to the socket until it would block (then EPOLLOUT is watched until
 * nghttp2 has nothing more to say). A connection ends when nghttp2 wants
 * neither to read nor to write (GOAWAY sent or received, peer closed) or when
 * the socket fails.
 *
 * A stream is one call (rpc_call). Its request DATA is appended to the call's
 * buffer, bounded by the message limit (known from the 5-byte prefix) and by
 * the server-wide max_buffered. END_STREAM completes the request: the framing
 * is checked and the handler runs. An answer is queued with
 * nghttp2_submit_response: a data provider hands out the framed message, and
 * when it runs dry it submits the trailers from inside the read callback
 * (nghttp2's documented way to end a stream with trailers). An error is a
 * single HEADERS frame with END_STREAM carrying grpc-status and
 * grpc-message (Trailers-Only).
 *
 * nghttp2_session_del does not report the streams it drops, so each
 * connection also keeps its calls on a list: closing the connection tells the
 * handler about every call still unanswered.
 *
 * The HTTP/1.1 status listener is deliberately small: it reads one request
 * head (8 KiB at most), accepts only GET, asks the rpc_http_fn callback for
 * the body, writes "Connection: close" responses and closes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "rpc.h"

#define HTTP_HEAD_MAX 8192
#define READ_CHUNK 65536

enum { TAG_LISTENER = 1, TAG_CONN = 2, TAG_EVENT = 3, TAG_WATCH = 4 };

typedef struct {
    int tag;
} tagged;

typedef struct listener {
    tagged t;
    int fd;
    bool dead; /* closed: freed at the end of the loop turn (an event of this turn may still name it) */
    rpc_listen_kind kind;
    char unix_path[108];
    char name[300];
    struct listener *next;
} listener;

typedef struct watch {
    tagged t;
    int fd;
    rpc_fd_fn fn;
    struct watch *next;
} watch;

typedef struct conn conn;

struct rpc_call {
    conn *c;
    int32_t stream_id;
    char path[128];
    bool post, grpc_ctype, te_ok;
    uint8_t *buf; /* request bytes (prefix included) */
    size_t len, cap;
    size_t want;   /* the size the prefix announced, plus its 5 bytes (0 until the prefix is complete) */
    bool refused;    /* answered early (oversized, compressed, over the buffer cap): drop DATA */
    bool dispatched; /* handed to the handler */
    bool replied;
    uint8_t *resp; /* framed response */
    size_t resp_len, resp_off;
    int code;
    char *message;
    int64_t deadline_ms;   /* from grpc-timeout: when the call expires (monotonic ms); 0 = never */
    bool bad_timeout;      /* a grpc-timeout header that does not parse: refused at dispatch */
    rpc_call *prev, *next; /* the connection's calls */
};

struct conn {
    tagged t;
    rpc_server *s;
    int fd;
    rpc_listen_kind kind;
    nghttp2_session *h2;
    bool closing;     /* HTTP/1.1: close once the answer is written */
    bool dead;        /* closed: freed at the end of the loop turn (events may still name it) */
    bool in_recv;     /* inside nghttp2_session_mem_recv: sending waits until it returns */
    bool heard;       /* a byte has arrived */
    uint32_t events;  /* the epoll mask */
    int64_t last_ms;  /* when a byte last moved either way (or the connection was accepted) */
    char peer[64];
    rpc_call *calls;
    /* HTTP/1.1 */
    char *head;
    size_t head_len;
    char *out;
    size_t out_len, out_off;
    conn *prev, *next;
};

typedef struct task {
    rpc_task_fn fn;
    void *arg;
    struct task *next;
} task;

struct rpc_server {
    rpc_server_config cfg;
    int ep;
    tagged ev_tag;
    int evfd;
    listener *listeners;
    watch *watches;
    conn *conns;
    conn *graveyard; /* closed connections, freed at the end of the loop turn */
    listener *dead_listeners; /* closed listeners, the same */
    int64_t last_sweep_ms;    /* the idle connections' last check */
    int n_conns;
    int n_deadlines; /* calls alive with a deadline: the loop looks for expired ones only when > 0 */
    bool stopping, stop;
    struct timespec stop_deadline;
    pthread_mutex_t mu; /* guards tasks */
    task *tasks, *tasks_tail;
    rpc_server_stats st;
};

static void slog(rpc_server *s, rpc_log_level lvl, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void slog(rpc_server *s, rpc_log_level lvl, const char *fmt, ...)
{
    if (!s->cfg.log)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    s->cfg.log(s->cfg.ctx, lvl, msg);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int ep_set(rpc_server *s, int op, int fd, uint32_t events, void *ptr)
{
    struct epoll_event ev = {.events = events, .data.ptr = ptr};
    return epoll_ctl(s->ep, op, fd, &ev);
}

/* ---- server lifetime ------------------------------------------------------------------- */

int rpc_server_new(rpc_server **out, const rpc_server_config *cfg, char *err, size_t errlen)
{
    *out = NULL;
    if (!cfg || !cfg->handler || !cfg->closed)
        return rpc_fail(err, errlen, "rpc server: a handler and a closed callback are required");
    rpc_server *s = calloc(1, sizeof *s);
    if (!s)
        return rpc_fail(err, errlen, "rpc server: out of memory");
    s->cfg = *cfg;
    if (!s->cfg.max_message)
        s->cfg.max_message = (size_t)256 << 20;
    if (!s->cfg.max_buffered)
        s->cfg.max_buffered = (size_t)1 << 30;
    if (s->cfg.max_connections <= 0)
        s->cfg.max_connections = 128;
    if (!s->cfg.max_streams)
        s->cfg.max_streams = 100;
    if (!s->cfg.socket_mode)
        s->cfg.socket_mode = 0660;
    if (!s->cfg.idle_timeout_ms)
        s->cfg.idle_timeout_ms = 300000;
    pthread_mutex_init(&s->mu, NULL);
    s->ep = epoll_create1(EPOLL_CLOEXEC);
    s->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    s->ev_tag.tag = TAG_EVENT;
    if (s->ep < 0 || s->evfd < 0 || ep_set(s, EPOLL_CTL_ADD, s->evfd, EPOLLIN, &s->ev_tag) != 0) {
        int e = errno;
        rpc_server_free(s);
        return rpc_fail(err, errlen, "rpc server: epoll/eventfd: %s", strerror(e));
    }
    *out = s;
    return 0;
}

static void conn_close(conn *c);
static void bury(rpc_server *s);

void rpc_server_free(rpc_server *s)
{
    if (!s)
        return;
    while (s->conns)
        conn_close(s->conns);
    rpc_server_close_listeners(s);
    bury(s);
    while (s->watches) {
        watch *w = s->watches;
        s->watches = w->next;
        free(w);
    }
    while (s->tasks) {
        task *t = s->tasks;
        s->tasks = t->next;
        free(t);
    }
    if (s->evfd >= 0)
        close(s->evfd);
    if (s->ep >= 0)
        close(s->ep);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

void rpc_server_get_stats(const rpc_server *s, rpc_server_stats *out)
{
    *out = s->st;
    out->connections_open = (uint64_t)s->n_conns;
}

/* ---- listeners ------------------------------------------------------------------------- */

static int listen_unix(rpc_server *s, const rpc_addr *a, listener *l, char *err, size_t errlen)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path, a->path, strlen(a->path) + 1);
    struct stat st;
    if (lstat(a->path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return rpc_fail(err, errlen, "listen unix://%s: the path exists and is not a socket", a->path);
        int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof sa) == 0) {
            close(probe);
            return rpc_fail(err, errlen, "listen unix://%s: another process is listening there", a->path);
        }
        if (probe >= 0)
            close(probe);
        unlink(a->path); /* a stale socket of a process that is gone */
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return rpc_fail(err, errlen, "listen unix://%s: socket: %s", a->path, strerror(errno));
    /* The socket file gets its final mode before anyone can connect: bind under a umask that leaves
     * nothing open, then chmod, then listen. */
    mode_t old = umask(0077);
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    int e = errno;
    umask(old);
    if (rc != 0) {
        close(fd);
        return rpc_fail(err, errlen, "listen unix://%s: bind: %s", a->path, strerror(e));
    }
    if (chmod(a->path, s->cfg.socket_mode) != 0 || listen(fd, 128) != 0) {
        e = errno;
        close(fd);
        unlink(a->path);
        return rpc_fail(err, errlen, "listen unix://%s: %s", a->path, strerror(e));
    }
    l->fd = fd;
    strcpy(l->unix_path, a->path);
    snprintf(l->name, sizeof l->name, "unix://%s", a->path);
    return 0;
}

static int listen_tcp(const rpc_addr *a, listener *l, char *err, size_t errlen)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
    struct addrinfo *res = NULL;
    int g = getaddrinfo(a->host, a->port, &hints, &res);
    if (g != 0)
        return rpc_fail(err, errlen, "listen %s:%s: %s", a->host, a->port, gai_strerror(g));
    int fd = -1, e = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 128) == 0)
            break;
        e = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return rpc_fail(err, errlen, "listen %s:%s: %s", a->host, a->port, strerror(e));
    l->fd = fd;
    snprintf(l->name, sizeof l->name, "%s:%s", a->host, a->port);
    return 0;
}

int rpc_server_listen(rpc_server *s, const char *addr, rpc_listen_kind kind, char *err, size_t errlen)
{
    rpc_addr a;
    if (rpc_addr_parse(addr, &a, err, errlen) != 0)
        return -1;
    listener *l = calloc(1, sizeof *l);
    if (!l)
        return rpc_fail(err, errlen, "listen %s: out of memory", addr);
    l->t.tag = TAG_LISTENER;
    l->kind = kind;
    int rc = a.is_unix ? listen_unix(s, &a, l, err, errlen) : listen_tcp(&a, l, err, errlen);
    if (rc != 0) {
        free(l);
        return -1;
    }
    if (ep_set(s, EPOLL_CTL_ADD, l->fd, EPOLLIN, l) != 0) {
        int e = errno;
        close(l->fd);
        if (l->unix_path[0])
            unlink(l->unix_path);
        free(l);
        return rpc_fail(err, errlen, "listen %s: epoll: %s", addr, strerror(e));
    }
    l->next = s->listeners;
    s->listeners = l;
    slog(s, RPC_LOG_INFO, "listening on %s (%s)", l->name, kind == RPC_LISTEN_GRPC ? "gRPC" : "HTTP status");
    return 0;
}

void rpc_server_close_listeners(rpc_server *s)
{
    while (s->listeners) {
        listener *l = s->listeners;
        s->listeners = l->next;
        epoll_ctl(s->ep, EPOLL_CTL_DEL, l->fd, NULL);
        close(l->fd);
        if (l->unix_path[0])
            unlink(l->unix_path);
        l->fd = -1;
        l->dead = true; /* called from a handler, an event later in this turn may still name it */
        l->next = s->dead_listeners;
        s->dead_listeners = l;
    }
}

int rpc_server_watch_fd(rpc_server *s, int fd, rpc_fd_fn fn, char *err, size_t errlen)
{
    watch *w = calloc(1, sizeof *w);
    if (!w)
        return rpc_fail(err, errlen, "watch: out of memory");
    w->t.tag = TAG_WATCH;
    w->fd = fd;
    w->fn = fn;
    if (ep_set(s, EPOLL_CTL_ADD, fd, EPOLLIN, w) != 0) {
        int e = errno;
        free(w);
        return rpc_fail(err, errlen, "watch: epoll: %s", strerror(e));
    }
    w->next = s->watches;
    s->watches = w;
    return 0;
}

/* ---- tasks ----------------------------------------------------------------------------- */

int rpc_server_post(rpc_server *s, rpc_task_fn fn, void *arg)
{
    task *t = malloc(sizeof *t);
    if (!t)
        return -1;
    t->fn = fn;
    t->arg = arg;
    t->next = NULL;
    pthread_mutex_lock(&s->mu);
    if (s->tasks_tail)
        s->tasks_tail->next = t;
    else
        s->tasks = t;
    s->tasks_tail = t;
    pthread_mutex_unlock(&s->mu);
    uint64_t one = 1;
    ssize_t w = write(s->evfd, &one, sizeof one);
    (void)w; /* EAGAIN only when the counter is saturated: the loop wakes up anyway */
    return 0;
}

static void run_tasks(rpc_server *s)
{
    uint64_t v;
    ssize_t r = read(s->evfd, &v, sizeof v);
    (void)r;
    pthread_mutex_lock(&s->mu);
    task *t = s->tasks;
    s->tasks = s->tasks_tail = NULL;
    pthread_mutex_unlock(&s->mu);
    while (t) {
        task *next = t->next;
        t->fn(t->arg);
        free(t);
        t = next;
    }
}

/* ---- calls ----------------------------------------------------------------------------- */

static void call_unlink(rpc_call *call)
{
    conn *c = call->c;
    if (call->prev)
        call->prev->next = call->next;
    else
        c->calls = call->next;
    if (call->next)
        call->next->prev = call->prev;
}

static void call_drop_buffer(rpc_call *call)
{
    if (call->buf) {
        call->c->s->st.buffered_bytes -= call->cap;
        free(call->buf);
        call->buf = NULL;
    }
    call->len = call->cap = 0;
}

static void call_free(rpc_call *call)
{
    if (call->deadline_ms)
        call->c->s->n_deadlines--;
    call_drop_buffer(call);
    free(call->resp);
    free(call->message);
    free(call);
}

const char *rpc_call_peer(const rpc_call *call)
{
    return call->c->peer;
}

/* grpc-message is percent-encoded: bytes outside 0x20..0x7e, and '%', become %XX. */
static char *percent_encode(const char *m)
{
    size_t n = strlen(m);
    char *o = malloc(3 * n + 1);
    if (!o)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)m[i];
        if (ch < 0x20 || ch > 0x7e || ch == '%')
            k += (size_t)sprintf(o + k, "%%%02X", ch);
        else
            o[k++] = (char)ch;
    }
    o[k] = 0;
    return o;
}

#define NV(n, v)                                                                                             \
    {                                                                                                        \
        (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP2_NV_FLAG_NONE                       \
    }

static ssize_t resp_read_cb(nghttp2_session *h2, int32_t stream_id, uint8_t *buf, size_t length,
                            uint32_t *flags, nghttp2_data_source *src, void *user)
{
    rpc_call *call = src->ptr;
    size_t left = call->resp_len - call->resp_off;
    size_t n = left < length ? left : length;
    memcpy(buf, call->resp + call->resp_off, n);
    call->resp_off += n;
    if (call->resp_off == call->resp_len) {
        *flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
        char code[12];
        snprintf(code, sizeof code, "%d", call->code);
        nghttp2_nv tr[2] = {NV("grpc-status", code), NV("grpc-message", call->message)};
        if (nghttp2_submit_trailer(h2, stream_id, tr, call->message[0] ? 2 : 1) != 0)
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    }
    return (ssize_t)n;
}

static void conn_flush(conn *c);

void rpc_call_reply(rpc_call *call, int code, const char *message, const uint8_t *resp, size_t len)
{
    conn *c = call->c;
    if (call->replied)
        return;
    call->replied = true;
    call->code = code;
    call->message = percent_encode(message ? message : "");
    if (!call->message)
        call->message = calloc(1, 1);
    if (c->dead || !call->message) {
        call_drop_buffer(call);
        return;
    }
    int rc;
    char codes[12];
    snprintf(codes, sizeof codes, "%d", code);
    if (code == RPC_OK) {
        call->resp = malloc(len + 5);
        if (!call->resp) {
            code = RPC_RESOURCE_EXHAUSTED;
            snprintf(codes, sizeof codes, "%d", code);
            free(call->message);
            call->message = percent_encode("out of memory for the response");
            goto trailers_only;
        }
        call->resp[0] = 0;
        call->resp[1] = (uint8_t)(len >> 24);
        call->resp[2] = (uint8_t)(len >> 16);
        call->resp[3] = (uint8_t)(len >> 8);
        call->resp[4] = (uint8_t)len;
        if (len)
            memcpy(call->resp + 5, resp, len);
        call->resp_len = len + 5;
        nghttp2_nv hd[2] = {NV(":status", "200"), NV("content-type", "application/grpc")};
        nghttp2_data_provider prd = {.source.ptr = call, .read_callback = resp_read_cb};
        rc = nghttp2_submit_response(c->h2, call->stream_id, hd, 2, &prd);
    } else {
    trailers_only:;
        nghttp2_nv hd[4] = {NV(":status", "200"), NV("content-type", "application/grpc"),
                            NV("grpc-status", codes), NV("grpc-message", call->message ? call->message : "")};
        rc = nghttp2_submit_response(c->h2, call->stream_id, hd, 4, NULL);
    }
    call_drop_buffer(call); /* only now: resp may point into the request's bytes (a handler that echoes) */
    if (rc != 0)
        slog(c->s, RPC_LOG_WARN, "%s: cannot answer stream %d: %s", c->peer, call->stream_id,
             nghttp2_strerror(rc));
    conn_flush(c);
}

/* Answers a call the framing or a limit already condemned; its later DATA is dropped. */
static void call_refuse(rpc_call *call, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void call_refuse(rpc_call *call, int code, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    call->refused = true;
    slog(call->c->s, RPC_LOG_INFO, "%s: %s refused (%s): %s", call->c->peer,
         call->path[0] ? call->path : "(no path)", rpc_status_name(code), msg);
    rpc_call_reply(call, code, msg, NULL, 0);
}

static uint32_t prefix_len(const uint8_t *p)
{
    return (uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 8 | p[4];
}

/* The request is complete: check the framing and hand it to the handler. */
static void call_dispatch(rpc_call *call)
{
    rpc_server *s = call->c->s;
    if (call->refused || call->dispatched || call->replied)
        return;
    call->dispatched = true;
    s->st.calls++;
    if (!call->post)
        return call_refuse(call, RPC_UNIMPLEMENTED, "gRPC calls use POST");
    if (!call->grpc_ctype)
        return call_refuse(call, RPC_INVALID_ARGUMENT, "content-type is not application/grpc");
    if (call->bad_timeout)
        return call_refuse(call, RPC_INVALID_ARGUMENT,
                           "malformed grpc-timeout header (1 to 8 digits, then H, M, S, m, u or n)");
    if (call->deadline_ms && now_ms() >= call->deadline_ms) {
        s->st.deadlines_exceeded++;
        return call_refuse(call, RPC_DEADLINE_EXCEEDED,
                           "the deadline (grpc-timeout) passed before the call could start");
    }
    if (call->len < 5)
        return call_refuse(call, RPC_INVALID_ARGUMENT,
                           "truncated request: %zu bytes, shorter than the 5-byte gRPC message prefix",
                           call->len);
    uint32_t n = prefix_len(call->buf);
    if (call->len != (size_t)n + 5)
        return call_refuse(call, RPC_INVALID_ARGUMENT,
                           "malformed request: the gRPC prefix announces %u message bytes, %zu arrived "
                           "(one message per call)",
                           n, call->len - 5);
    s->cfg.handler(s->cfg.ctx, call, call->path, call->buf + 5, n);
    if (!call->replied)
        call_drop_buffer(call); /* the handler has decoded what it needs */
}

/* ---- nghttp2 callbacks ----------------------------------------------------------------- */

static ssize_t send_cb(nghttp2_session *h2, const uint8_t *data, size_t len, int flags, void *user)
{
    conn *c = user;
    ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return NGHTTP2_ERR_WOULDBLOCK;
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    if (n > 0)
        c->last_ms = now_ms();
    return n;
}

static int begin_headers_cb(nghttp2_session *h2, const nghttp2_frame *f, void *user)
{
    conn *c = user;
    if (f->hd.type != NGHTTP2_HEADERS || f->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    rpc_call *call = calloc(1, sizeof *call);
    if (!call)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* nghttp2 resets the stream */
    call->c = c;
    call->stream_id = f->hd.stream_id;
    call->next = c->calls;
    if (c->calls)
        c->calls->prev = call;
    c->calls = call;
    nghttp2_session_set_stream_user_data(h2, f->hd.stream_id, call);
    return 0;
}

/* A grpc-timeout value (gRPC over HTTP/2: 1 to 8 digits, then H, M, S, m, u or n) in milliseconds,
 * rounded up; -1 when it does not parse. */
static int64_t grpc_timeout_ms(const uint8_t *v, size_t n)
{
    if (n < 2 || n > 9)
        return -1;
    int64_t x = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        x = x * 10 + (v[i] - '0');
    }
    switch (v[n - 1]) {
    case 'H': return x * 3600000;
    case 'M': return x * 60000;
    case 'S': return x * 1000;
    case 'm': return x;
    case 'u': return (x + 999) / 1000;
    case 'n': return (x + 999999) / 1000000;
    default: return -1;
    }
}

static int header_cb(nghttp2_session *h2, const nghttp2_frame *f, const uint8_t *name, size_t nlen,
                     const uint8_t *value, size_t vlen, uint8_t flags, void *user)
{
    if (f->hd.type != NGHTTP2_HEADERS)
        return 0;
    rpc_call *call = nghttp2_session_get_stream_user_data(h2, f->hd.stream_id);
    if (!call)
        return 0;
    if (nlen == 5 && !memcmp(name, ":path", 5)) {
        size_t n = vlen < sizeof call->path - 1 ? vlen : sizeof call->path - 1;
        memcpy(call->path, value, n);
        call->path[n] = 0;
    } else if (nlen == 7 && !memcmp(name, ":method", 7)) {
        call->post = vlen == 4 && !memcmp(value, "POST", 4);
    } else if (nlen == 12 && !memcmp(name, "content-type", 12)) {
        call->grpc_ctype = vlen >= 16 && !memcmp(value, "application/grpc", 16) &&
                           (vlen == 16 || value[16] == '+' || value[16] == ';');
    } else if (nlen == 12 && !memcmp(name, "grpc-timeout", 12)) {
        int64_t ms = grpc_timeout_ms(value, vlen);
        if (ms < 0) {
            call->bad_timeout = true;
        } else if (!call->deadline_ms) {
            call->deadline_ms = now_ms() + ms;
            if (!call->deadline_ms) /* 0 means none */
                call->deadline_ms = 1;
            call->c->s->n_deadlines++;
        }
    }
    return 0;
}

/* A request's bytes are buffered as they arrive: the buffer grows (doubling, up to the size the prefix
 * announced) and only what it holds counts against max_buffered, so a prefix announcing a large message
 * reserves nothing until its bytes come. */
static int data_chunk_cb(nghttp2_session *h2, uint8_t flags, int32_t stream_id, const uint8_t *data,
                         size_t len, void *user)
{
    conn *c = user;
    rpc_server *s = c->s;
    rpc_call *call = nghttp2_session_get_stream_user_data(h2, stream_id);
    if (!call || call->refused || call->replied || call->dispatched)
        return 0;
    size_t need = call->len + len;
    if (!call->want && need >= 5) { /* the prefix completes: it decides the size */
        uint8_t pre[5];
        size_t have = call->len;
        if (have)
            memcpy(pre, call->buf, have);
        memcpy(pre + have, data, 5 - have);
        if (pre[0] != 0) {
            call_refuse(call, RPC_UNIMPLEMENTED, "compressed messages are not supported (flag %u)", pre[0]);
            return 0;
        }
        uint32_t n = prefix_len(pre);
        if (n > s->cfg.max_message) {
            call_refuse(call, RPC_RESOURCE_EXHAUSTED, "request message of %u bytes exceeds the limit of %zu",
                        n, s->cfg.max_message);
            return 0;
        }
        call->want = (size_t)n + 5;
    }
    size_t limit = call->want ? call->want : 5; /* until the prefix is complete, its 5 bytes */
    if (need > limit) { /* only once the prefix is known: before it, need < 5 */
        call_refuse(call, RPC_INVALID_ARGUMENT,
                    "malformed request: more bytes than the gRPC prefix announced (one message per call)");
        return 0;
    }
    if (need > call->cap) {
        size_t cap = call->cap < 32768 ? 32768 : 2 * call->cap;
        if (cap > limit)
            cap = limit;
        if (cap < need)
            cap = need;
        if (s->st.buffered_bytes - call->cap + cap > s->cfg.max_buffered) {
            call_refuse(call, RPC_RESOURCE_EXHAUSTED,
                        "the daemon holds too many request bytes (%zu-byte cap); retry later",
                        s->cfg.max_buffered);
            return 0;
        }
        uint8_t *nb = realloc(call->buf, cap);
        if (!nb) {
            call_refuse(call, RPC_RESOURCE_EXHAUSTED, "out of memory for a %zu-byte request", cap);
            return 0;
        }
        s->st.buffered_bytes += cap - call->cap;
        call->buf = nb;
        call->cap = cap;
    }
    if (len)
        memcpy(call->buf + call->len, data, len);
    call->len += len;
    return 0;
}

static int frame_recv_cb(nghttp2_session *h2, const nghttp2_frame *f, void *user)
{
    if ((f->hd.type == NGHTTP2_HEADERS || f->hd.type == NGHTTP2_DATA) &&
        (f->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
        rpc_call *call = nghttp2_session_get_stream_user_data(h2, f->hd.stream_id);
        if (call)
            call_dispatch(call);
    }
    return 0;
}

static int stream_close_cb(nghttp2_session *h2, int32_t stream_id, uint32_t error_code, void *user)
{
    conn *c = user;
    rpc_call *call = nghttp2_session_get_stream_user_data(h2, stream_id);
    if (!call)
        return 0;
    nghttp2_session_set_stream_user_data(h2, stream_id, NULL);
    call_unlink(call);
    if (call->dispatched && !call->replied)
        c->s->cfg.closed(c->s->cfg.ctx, call);
    call_free(call);
    return 0;
}

static int invalid_frame_cb(nghttp2_session *h2, const nghttp2_frame *f, int lib_error, void *user)
{
    conn *c = user;
    c->s->st.protocol_errors++;
    slog(c->s, RPC_LOG_INFO, "%s: invalid HTTP/2 frame (type %u): %s", c->peer, f->hd.type,
         nghttp2_strerror(lib_error));
    return 0;
}

/* ---- connections ----------------------------------------------------------------------- */

/* EPOLLIN, except on an HTTP connection whose answer is on its way (what the client sends then is not
 * read, and a level-triggered EPOLLIN for it would wake the loop forever); EPOLLOUT while bytes wait. */
static void conn_update_events(conn *c)
{
    bool want_out, want_in = true;
    if (c->kind == RPC_LISTEN_GRPC) {
        want_out = c->h2 && nghttp2_session_want_write(c->h2);
    } else {
        want_out = c->out_off < c->out_len;
        want_in = !c->closing;
    }
    uint32_t ev = (want_in ? EPOLLIN : 0) | (want_out ? EPOLLOUT : 0);
    if (ev != c->events) {
        c->events = ev;
        ep_set(c->s, EPOLL_CTL_MOD, c->fd, ev, c);
    }
}

static void conn_close(conn *c)
{
    rpc_server *s = c->s;
    if (c->dead)
        return;
    c->dead = true;
    /* tell the handler about calls it still holds, then drop them all */
    while (c->calls) {
        rpc_call *call = c->calls;
        call_unlink(call);
        if (call->dispatched && !call->replied)
            s->cfg.closed(s->cfg.ctx, call);
        call_free(call);
    }
    if (c->h2)
        nghttp2_session_del(c->h2);
    epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    if (c->prev)
        c->prev->next = c->next;
    else
        s->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    s->n_conns--;
    c->h2 = NULL;
    c->next = s->graveyard;
    s->graveyard = c;
}

static void bury(rpc_server *s)
{
    while (s->graveyard) {
        conn *c = s->graveyard;
        s->graveyard = c->next;
        free(c->head);
        free(c->out);
        free(c);
    }
    while (s->dead_listeners) {
        listener *l = s->dead_listeners;
        s->dead_listeners = l->next;
        free(l);
    }
}

/* Sends what nghttp2 has queued; closes the connection when it is finished or broken. */
static void conn_flush(conn *c)
{
    if (c->dead || c->in_recv)
        return;
    if (c->kind == RPC_LISTEN_GRPC) {
        int rc = nghttp2_session_send(c->h2);
        if (rc != 0) {
            slog(c->s, RPC_LOG_DEBUG, "%s: send: %s", c->peer, nghttp2_strerror(rc));
            conn_close(c);
            return;
        }
        if (!nghttp2_session_want_read(c->h2) && !nghttp2_session_want_write(c->h2)) {
            conn_close(c);
            return;
        }
    } else {
        while (c->out_off < c->out_len) {
            ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
            if (n < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK)
                    break;
                conn_close(c);
                return;
            }
            c->out_off += (size_t)n;
            if (n > 0)
                c->last_ms = now_ms();
        }
        if (c->closing && c->out_off == c->out_len) {
            conn_close(c);
            return;
        }
    }
    conn_update_events(c);
}

static int conn_h2_init(conn *c)
{
    nghttp2_session_callbacks *cb;
    if (nghttp2_session_callbacks_new(&cb) != 0)
        return -1;
    nghttp2_session_callbacks_set_send_callback(cb, send_cb);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, begin_headers_cb);
    nghttp2_session_callbacks_set_on_header_callback(cb, header_cb);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, data_chunk_cb);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, frame_recv_cb);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, stream_close_cb);
    nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(cb, invalid_frame_cb);
    int rc = nghttp2_session_server_new(&c->h2, cb, c);
    nghttp2_session_callbacks_del(cb);
    if (rc != 0)
        return -1;
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, c->s->cfg.max_streams},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 16u << 20},
        {NGHTTP2_SETTINGS_MAX_FRAME_SIZE, 1u << 20},
    };
    if (nghttp2_submit_settings(c->h2, NGHTTP2_FLAG_NONE, iv, sizeof iv / sizeof iv[0]) != 0)
        return -1;
    /* the connection window: large uploads need not wait for a round trip per 64 KiB */
    nghttp2_session_set_local_window_size(c->h2, NGHTTP2_FLAG_NONE, 0, 256 << 20);
    return 0;
}

static void accept_all(rpc_server *s, listener *l)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int fd = accept4(l->fd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                slog(s, RPC_LOG_WARN, "accept on %s: %s", l->name, strerror(errno));
            return;
        }
        if (s->n_conns >= s->cfg.max_connections || s->stopping) {
            s->st.connections_refused++;
            slog(s, RPC_LOG_WARN, "%s: connection refused (%s)", l->name,
                 s->stopping ? "shutting down" : "connection limit reached");
            close(fd);
            continue;
        }
        conn *c = calloc(1, sizeof *c);
        if (!c) {
            close(fd);
            continue;
        }
        c->t.tag = TAG_CONN;
        c->s = s;
        c->fd = fd;
        c->kind = l->kind;
        c->events = EPOLLIN;
        c->last_ms = now_ms();
        if (ss.ss_family == AF_UNIX) {
            snprintf(c->peer, sizeof c->peer, "unix");
        } else {
            char host[48] = "?", port[8] = "?";
            getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, port, sizeof port,
                        NI_NUMERICHOST | NI_NUMERICSERV);
            snprintf(c->peer, sizeof c->peer, "%s:%s", host, port);
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
        if ((c->kind == RPC_LISTEN_GRPC && conn_h2_init(c) != 0) ||
            ep_set(s, EPOLL_CTL_ADD, fd, EPOLLIN, c) != 0) {
            if (c->h2)
                nghttp2_session_del(c->h2);
            close(fd);
            free(c);
            continue;
        }
        c->next = s->conns;
        if (s->conns)
            s->conns->prev = c;
        s->conns = c;
        s->n_conns++;
        s->st.connections_accepted++;
        slog(s, RPC_LOG_DEBUG, "%s: connected on %s", c->peer, l->name);
        if (c->kind == RPC_LISTEN_GRPC)
            conn_flush(c);
    }
}

static void http_answer(conn *c, int status, const char *ctype, const char *body, size_t len)
{
    const char *reason = status == 200   ? "OK"
                         : status == 404 ? "Not Found"
                         : status == 405 ? "Method Not Allowed"
                         : status == 431 ? "Request Header Fields Too Large"
                                         : "Bad Request";
    char head[256];
    int hn =
        snprintf(head, sizeof head,
                 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                 status, reason, ctype, len);
    free(c->out);
    c->out = malloc((size_t)hn + len);
    c->out_off = 0;
    c->out_len = 0;
    if (c->out) {
        memcpy(c->out, head, (size_t)hn);
        if (len)
            memcpy(c->out + hn, body, len);
        c->out_len = (size_t)hn + len;
    }
    c->closing = true;
    conn_flush(c);
}

static void http_request(conn *c)
{
    rpc_server *s = c->s;
    char *eol = strstr(c->head, "\r\n");
    if (eol)
        *eol = 0;
    char method[16], path[256];
    if (sscanf(c->head, "%15s %255s HTTP/1.%*c", method, path) != 2) {
        const char *m = "malformed request line\n";
        return http_answer(c, 400, "text/plain", m, strlen(m));
    }
    if (strcmp(method, "GET") != 0) {
        const char *m = "only GET is served here\n";
        return http_answer(c, 405, "text/plain", m, strlen(m));
    }
    char *q = strchr(path, '?');
    if (q)
        *q = 0;
    char *body = NULL;
    size_t len = 0;
    const char *ctype = "text/plain";
    int status = s->cfg.http ? s->cfg.http(s->cfg.ctx, path, &body, &len, &ctype) : 404;
    if (!body) {
        const char *m = "not found\n";
        http_answer(c, status == 200 ? 404 : status, "text/plain", m, strlen(m));
        return;
    }
    http_answer(c, status, ctype, body, len);
    free(body);
}

static void conn_readable(conn *c)
{
    uint8_t buf[READ_CHUNK];
    for (;;) {
        if (c->kind == RPC_LISTEN_HTTP && c->closing)
            return; /* answer on its way: ignore the rest */
        ssize_t n = recv(c->fd, buf, sizeof buf, 0);
        if (n == 0) {
            if (c->kind == RPC_LISTEN_GRPC || !c->closing) {
                conn_close(c);
                return;
            }
            return;
        }
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            if (errno == EINTR)
                continue;
            conn_close(c);
            return;
        }
        c->heard = true;
        c->last_ms = now_ms();
        if (c->kind == RPC_LISTEN_GRPC) {
            c->in_recv = true;
            ssize_t rc = nghttp2_session_mem_recv(c->h2, buf, (size_t)n);
            c->in_recv = false;
            if (rc < 0) {
                c->s->st.protocol_errors++;
                slog(c->s, RPC_LOG_INFO, "%s: HTTP/2 error, closing: %s", c->peer, nghttp2_strerror((int)rc));
                /* nghttp2 may have queued a GOAWAY: try to send it, then close either way */
                nghttp2_session_send(c->h2);
                conn_close(c);
                return;
            }
            conn_flush(c);
            if (c->dead)
                return;
        } else {
            if (!c->head && !(c->head = malloc(HTTP_HEAD_MAX + 1))) {
                conn_close(c);
                return;
            }
            size_t room = HTTP_HEAD_MAX - c->head_len;
            size_t take = (size_t)n < room ? (size_t)n : room;
            memcpy(c->head + c->head_len, buf, take);
            c->head_len += take;
            c->head[c->head_len] = 0;
            if (strstr(c->head, "\r\n\r\n") || strstr(c->head, "\n\n")) {
                http_request(c);
                return;
            }
            if (c->head_len == HTTP_HEAD_MAX) {
                const char *m = "request head too large\n";
                http_answer(c, 431, "text/plain", m, strlen(m));
                return;
            }
        }
    }
}

/* ---- loop ------------------------------------------------------------------------------ */

void rpc_server_stop(rpc_server *s, int grace_ms)
{
    s->stopping = true;
    int64_t deadline = now_ms() + (grace_ms > 0 ? grace_ms : 0);
    s->stop_deadline.tv_sec = deadline / 1000;
    s->stop_deadline.tv_nsec = (deadline % 1000) * 1000000;
    rpc_server_close_listeners(s);
    for (conn *c = s->conns, *next; c; c = next) {
        next = c->next;
        if (c->kind == RPC_LISTEN_GRPC)
            nghttp2_session_terminate_session(c->h2, NGHTTP2_NO_ERROR);
        else
            c->closing = true;
        conn_flush(c);
    }
}

/* A connection is idle when no call of it is in the handler's hands; one that moved no byte for
 * idle_timeout_ms, or sent nothing at all for IDLE_FIRST_MS, is closed, so that silent or stalled peers
 * cannot hold the connection slots or the request buffer cap. */
#define IDLE_FIRST_MS 10000
static bool conn_busy(const conn *c)
{
    for (const rpc_call *call = c->calls; call; call = call->next)
        if (call->dispatched && !call->replied)
            return true;
    return false;
}

static void sweep_idle(rpc_server *s)
{
    if (s->cfg.idle_timeout_ms < 0)
        return;
    int64_t now = now_ms();
    if (now - s->last_sweep_ms < 1000)
        return;
    s->last_sweep_ms = now;
    for (conn *c = s->conns, *next; c; c = next) {
        next = c->next;
        int64_t limit = s->cfg.idle_timeout_ms;
        if (!c->heard && limit > IDLE_FIRST_MS)
            limit = IDLE_FIRST_MS;
        if (c->dead || now - c->last_ms < limit || conn_busy(c))
            continue;
        s->st.connections_idle_closed++;
        slog(s, RPC_LOG_INFO, "%s: closed after %lld ms %s", c->peer, (long long)(now - c->last_ms),
             c->heard ? "without progress" : "without a byte");
        if (c->kind == RPC_LISTEN_GRPC && c->h2 && c->heard) { /* GOAWAY first: a client then reconnects */
            nghttp2_session_terminate_session(c->h2, NGHTTP2_NO_ERROR);
            nghttp2_session_send(c->h2);
        }
        conn_close(c);
    }
}

/* Answers DEADLINE_EXCEEDED for every call whose grpc-timeout has passed: one the handler holds is taken
 * from it first (`closed`, as if the client had left), one still arriving is refused. Returns the
 * milliseconds until the next deadline, or -1 when none is pending. */
static int sweep_deadlines(rpc_server *s)
{
    if (s->n_deadlines <= 0)
        return -1;
    int64_t now = now_ms(), next = -1;
    for (conn *c = s->conns, *cn; c; c = cn) {
        cn = c->next; /* a connection closed below moves to the graveyard's list */
        if (c->dead)
            continue;
    rescan: /* an answer may free its call (the stream closes), or close the whole connection */
        for (rpc_call *call = c->calls; call; call = call->next) {
            if (!call->deadline_ms || call->replied)
                continue;
            if (call->deadline_ms > now) {
                if (next < 0 || call->deadline_ms - now < next)
                    next = call->deadline_ms - now;
                continue;
            }
            s->st.deadlines_exceeded++;
            if (call->dispatched) {
                s->cfg.closed(s->cfg.ctx, call);
                slog(s, RPC_LOG_INFO, "%s: %s: the deadline (grpc-timeout) passed before the answer", c->peer,
                     call->path);
                rpc_call_reply(call, RPC_DEADLINE_EXCEEDED,
                               "the deadline (grpc-timeout) passed before the answer", NULL, 0);
            } else {
                call_refuse(call, RPC_DEADLINE_EXCEEDED,
                            "the deadline (grpc-timeout) passed before the request arrived whole");
            }
            if (c->dead)
                break;
            goto rescan;
        }
    }
    return next < 0 ? -1 : next > INT_MAX ? INT_MAX : (int)next;
}

int rpc_server_run(rpc_server *s)
{
    struct epoll_event evs[64];
    while (!s->stop) {
        int timeout = s->cfg.tick ? s->cfg.tick(s->cfg.ctx) : -1;
        if (s->stopping) {
            int64_t left =
                (int64_t)s->stop_deadline.tv_sec * 1000 + s->stop_deadline.tv_nsec / 1000000 - now_ms();
            if (!s->conns || left <= 0) {
                s->stop = true;
                break;
            }
            if (timeout < 0 || timeout > left)
                timeout = (int)left;
        }
        if (s->conns && s->cfg.idle_timeout_ms >= 0 && (timeout < 0 || timeout > 1000))
            timeout = 1000; /* the idle sweep's period */
        int due = sweep_deadlines(s);
        if (due >= 0 && (timeout < 0 || timeout > due))
            timeout = due;
        int n = epoll_wait(s->ep, evs, 64, timeout);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            slog(s, RPC_LOG_ERROR, "epoll_wait: %s", strerror(errno));
            return -1;
        }
        for (int i = 0; i < n; i++) {
            tagged *t = evs[i].data.ptr;
            if (!t)
                continue;
            switch (t->tag) {
            case TAG_LISTENER:
                if (!((listener *)t)->dead)
                    accept_all(s, (listener *)t);
                break;
            case TAG_EVENT: run_tasks(s); break;
            case TAG_WATCH: ((watch *)t)->fn(s->cfg.ctx, ((watch *)t)->fd); break;
            case TAG_CONN: {
                conn *c = (conn *)t;
                if (c->dead)
                    break;
                if (evs[i].events & (EPOLLERR | EPOLLHUP) && !(evs[i].events & EPOLLIN)) {
                    conn_close(c);
                    break;
                }
                if (c->dead)
                    break;
                if (evs[i].events & EPOLLIN)
                    conn_readable(c);
                if (!c->dead && (evs[i].events & EPOLLOUT))
                    conn_flush(c);
                break;
            }
            }
            if (s->stop)
                break;
        }
        sweep_idle(s);
        bury(s);
    }
    bury(s);
    return 0;
}
