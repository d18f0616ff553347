/*
 * fuzz_rpc_server.c — libFuzzer target for the bytes a client sends cuzkd's
 * network loop (src/rpc/server.c): the HTTP/2 connection of a gRPC listener
 * (our callbacks behind nghttp2: headers, the 5-byte message prefix, the
 * request buffer and its limits, dispatch) and the HTTP/1.1 head of a status
 * listener.
 *
 * One server runs for the whole process on a thread of its own, listening on
 * two unix sockets, with small limits (max_message 4096, max_buffered 16384)
 * so inputs reach them. Its handler answers "/t/Echo" with the message,
 * keeps "/t/Hold" calls unanswered (until the client leaves) and refuses
 * anything else. An input's first byte picks the listener; the rest is
 * written on a fresh connection, whose write side is then shut. Checked:
 *   - the server closes the connection once the input is consumed (no hang:
 *     a read that waits 5 s fails the run);
 *   - once it has, no call is held (each held call got `closed`), no request
 *     byte is counted as buffered and no connection is open;
 *   - what the server sends is never more than the input could ask for
 *     (bounded), and ASan/UBSan see no fault anywhere.
 *
 * CUZK_FUZZ_RPC_SEEDS=DIR in the environment writes seed connections there
 * first (made with nghttp2's client: calls that echo, hold, fail, carry a
 * wrong prefix, arrive in several DATA frames; and HTTP/1.1 requests), so the
 * mutations start from well-formed HTTP/2 (scripts/fuzz.sh sets it).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <nghttp2/nghttp2.h>

#include "fuzz_net.h"
#include "rpc.h"

/* ---- the server ------------------------------------------------------------------------ */

#define MAX_HELD 256
static rpc_server *srv;
static char grpc_path[108], http_path[108];
static rpc_call *held[MAX_HELD]; /* loop thread only */
static int n_held;

static void handler(void *ctx, rpc_call *call, const char *method, const uint8_t *msg, size_t len)
{
    (void)ctx;
    if (!strcmp(method, "/t/Echo"))
        rpc_call_reply(call, RPC_OK, NULL, msg, len);
    else if (!strcmp(method, "/t/Hold") && n_held < MAX_HELD)
        held[n_held++] = call;
    else
        rpc_call_reply(call, RPC_UNIMPLEMENTED, "no such method", NULL, 0);
}

static void closed(void *ctx, rpc_call *call)
{
    (void)ctx;
    for (int i = 0; i < n_held; i++)
        if (held[i] == call) {
            held[i] = held[--n_held];
            return;
        }
    require(0, "`closed` for a call the handler does not hold");
}

static int http(void *ctx, const char *path, char **body, size_t *len, const char **ctype)
{
    (void)ctx;
    if (strcmp(path, "/healthz") != 0)
        return 404;
    *body = strdup("ok\n");
    *len = *body ? 3 : 0;
    *ctype = "text/plain";
    return 200;
}

/* libFuzzer ends with exit(): the loop never returns, so its socket files are removed here */
static void unlink_sockets(void)
{
    unlink(grpc_path);
    unlink(http_path);
}

/* The loop's view, read on its thread. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done, held;
    rpc_server_stats st;
} probe;

static void probe_task(void *arg)
{
    probe *p = arg;
    pthread_mutex_lock(&p->mu);
    rpc_server_get_stats(srv, &p->st);
    p->held = n_held;
    p->done = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

static void read_probe(probe *p)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    require(rpc_server_post(srv, probe_task, p) == 0, "cannot post to the loop");
    pthread_mutex_lock(&p->mu);
    while (!p->done)
        pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
}

/* ---- seeds ----------------------------------------------------------------------------- */

static ssize_t seed_send(nghttp2_session *h2, const uint8_t *d, size_t n, int flags, void *user)
{
    (void)h2, (void)flags;
    put(user, d, n);
    return (ssize_t)n;
}

typedef struct {
    const uint8_t *p;
    size_t n, off, frame; /* frame: the most bytes a DATA frame carries */
} body;

static ssize_t seed_read(nghttp2_session *h2, int32_t sid, uint8_t *buf, size_t len, uint32_t *flags,
                         nghttp2_data_source *src, void *user)
{
    (void)h2, (void)sid, (void)user;
    body *b = src->ptr;
    size_t k = b->n - b->off;
    if (k > len)
        k = len;
    if (k > b->frame)
        k = b->frame;
    memcpy(buf, b->p + b->off, k);
    b->off += k;
    if (b->off == b->n)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)k;
}

/* One connection: listener byte 0 (gRPC), the client preface and SETTINGS, then the calls: each a
 * POST to paths[i] with the DATA bodies[i] (its own bytes, prefix included) cut into frames of `frame`,
 * with a grpc-timeout header when timeout is not NULL. */
static void seed_grpc(const char *dir, const char *name, int n, const char *const *paths, const bytes *bodies,
                      size_t frame, const char *ctype, const char *timeout)
{
    bytes out = {0};
    put(&out, "\0", 1);
    nghttp2_session_callbacks *cb;
    require(nghttp2_session_callbacks_new(&cb) == 0, "nghttp2 callbacks");
    nghttp2_session_callbacks_set_send_callback(cb, seed_send);
    nghttp2_session *h2;
    require(nghttp2_session_client_new(&h2, cb, &out) == 0, "nghttp2 client");
    nghttp2_session_callbacks_del(cb);
    nghttp2_submit_settings(h2, NGHTTP2_FLAG_NONE, NULL, 0);
    body bs[8];
    for (int i = 0; i < n && i < 8; i++) {
        bs[i] = (body){.p = bodies[i].p, .n = bodies[i].n, .frame = frame};
        nghttp2_nv hd[] = {
            {(uint8_t *)":method", (uint8_t *)"POST", 7, 4, NGHTTP2_NV_FLAG_NONE},
            {(uint8_t *)":scheme", (uint8_t *)"http", 7, 4, NGHTTP2_NV_FLAG_NONE},
            {(uint8_t *)":path", (uint8_t *)paths[i], 5, strlen(paths[i]), NGHTTP2_NV_FLAG_NONE},
            {(uint8_t *)":authority", (uint8_t *)"localhost", 10, 9, NGHTTP2_NV_FLAG_NONE},
            {(uint8_t *)"content-type", (uint8_t *)ctype, 12, strlen(ctype), NGHTTP2_NV_FLAG_NONE},
            {(uint8_t *)"te", (uint8_t *)"trailers", 2, 8, NGHTTP2_NV_FLAG_NONE},
            {(uint8_t *)"grpc-timeout", (uint8_t *)(timeout ? timeout : ""), 12,
             timeout ? strlen(timeout) : 0, NGHTTP2_NV_FLAG_NONE},
        };
        nghttp2_data_provider prd = {.source = {.ptr = &bs[i]}, .read_callback = seed_read};
        require(nghttp2_submit_request(h2, NULL, hd, timeout ? 7 : 6, &prd, NULL) > 0, "nghttp2 request");
    }
    require(nghttp2_session_send(h2) == 0, "nghttp2 send");
    nghttp2_session_del(h2);
    seed_file(dir, name, out.p, out.n);
    free(out.p);
}

/* A gRPC message: the flag byte, the announced length, then `n` bytes of payload. */
static bytes message(uint8_t flag, uint32_t announced, size_t n)
{
    bytes b = {0};
    uint8_t pre[5] = {flag, (uint8_t)(announced >> 24), (uint8_t)(announced >> 16), (uint8_t)(announced >> 8),
                      (uint8_t)announced};
    put(&b, pre, 5);
    for (size_t i = 0; i < n; i++) {
        uint8_t c = (uint8_t)('a' + i % 26);
        put(&b, &c, 1);
    }
    return b;
}

static void seed_http(const char *dir, const char *name, const char *text)
{
    bytes b = {0};
    put(&b, "\1", 1);
    put(&b, text, strlen(text));
    seed_file(dir, name, b.p, b.n);
    free(b.p);
}

static void write_seeds(const char *dir)
{
    mkdir(dir, 0755);
    const char *echo[] = {"/t/Echo", "/t/Hold", "/t/Nope", "/t/Echo"};
    bytes m[4] = {message(0, 11, 11), message(0, 3, 3), message(0, 0, 0), message(0, 100, 100)};
    seed_grpc(dir, "echo", 1, echo, m, 16384, "application/grpc", NULL);
    seed_grpc(dir, "four-calls", 4, echo, m, 16384, "application/grpc+proto", NULL);
    seed_grpc(dir, "frames-of-3", 1, echo + 3, m + 3, 3, "application/grpc", NULL);
    seed_grpc(dir, "hold", 1, echo + 1, m + 1, 16384, "application/grpc", NULL);
    bytes bad[4] = {message(0, 2, 9), message(0, 9, 2), message(1, 4, 4), message(0, 5000, 0)};
    seed_grpc(dir, "prefix-short", 1, echo, bad, 16384, "application/grpc", NULL);
    seed_grpc(dir, "prefix-long", 1, echo, bad + 1, 16384, "application/grpc", NULL);
    seed_grpc(dir, "compressed", 1, echo, bad + 2, 16384, "application/grpc", NULL);
    seed_grpc(dir, "too-large", 1, echo, bad + 3, 16384, "application/grpc", NULL);
    seed_grpc(dir, "prefix-short-frames", 1, echo, bad, 2, "application/grpc", NULL);
    seed_grpc(dir, "not-grpc", 1, echo, m, 16384, "text/plain", NULL);
    seed_grpc(dir, "hold-deadline", 1, echo + 1, m + 1, 16384, "application/grpc", "1m");
    seed_grpc(dir, "deadline-passed", 4, echo, m, 16384, "application/grpc", "0n");
    seed_grpc(dir, "deadline-malformed", 1, echo, m, 16384, "application/grpc", "1.5S");
    for (int i = 0; i < 4; i++)
        free(m[i].p), free(bad[i].p);
    seed_http(dir, "http-health", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    seed_http(dir, "http-query", "GET /metrics?x=1 HTTP/1.0\n\n");
    seed_http(dir, "http-post", "POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
}

/* ---- the target ------------------------------------------------------------------------ */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *seeds = getenv("CUZK_FUZZ_RPC_SEEDS");
    if (seeds && *seeds)
        write_seeds(seeds);
    rpc_server_config cfg = {.max_message = 4096,
                             .max_buffered = 16384,
                             .max_connections = 8,
                             .max_streams = 16,
                             .handler = handler,
                             .closed = closed,
                             .http = http};
    char err[256];
    require(rpc_server_new(&srv, &cfg, err, sizeof err) == 0, err);
    snprintf(grpc_path, sizeof grpc_path, "/tmp/cuzk-fuzz-rpc-%d.grpc", (int)getpid());
    snprintf(http_path, sizeof http_path, "/tmp/cuzk-fuzz-rpc-%d.http", (int)getpid());
    char addr[128];
    snprintf(addr, sizeof addr, "unix://%s", grpc_path);
    require(rpc_server_listen(srv, addr, RPC_LISTEN_GRPC, err, sizeof err) == 0, err);
    snprintf(addr, sizeof addr, "unix://%s", http_path);
    require(rpc_server_listen(srv, addr, RPC_LISTEN_HTTP, err, sizeof err) == 0, err);
    atexit(unlink_sockets);
    fuzz_start_loop(srv);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    require(fd >= 0, "socket");
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", data[0] & 1 ? http_path : grpc_path);
    require(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "cannot connect to the server");
    /* write and read side by side: the server may answer (or close) before the input is all sent */
    size_t off = 1, got = 0;
    bool shut = false;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN | (shut ? 0 : POLLOUT)};
        int r = poll(&p, 1, 5000);
        require(r > 0 || (r < 0 && errno == EINTR), "the server neither read nor closed for 5 s");
        if (r < 0)
            continue;
        if (!shut && (p.revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t n = off < size ? send(fd, data + off, size - off, MSG_NOSIGNAL | MSG_DONTWAIT) : 0;
            if (n > 0)
                off += (size_t)n;
            if (off == size || (n < 0 && errno != EAGAIN && errno != EINTR)) {
                shutdown(fd, SHUT_WR);
                shut = true;
            }
        }
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            uint8_t buf[65536];
            ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                break;
            if (n > 0)
                got += (size_t)n;
            /* answers: at most ≈ the echoed bytes and a few hundred bytes of frames a call */
            require(got <= 64 * size + 65536, "the server sent far more than the input asked for");
        }
    }
    close(fd);
    /* the server closed first, so the connection is gone from its loop: nothing may be left of it */
    probe p;
    read_probe(&p);
    require(p.held == 0, "a held call was never reported closed");
    require(p.st.connections_open == 0, "a connection is still open after the server closed it");
    require(p.st.buffered_bytes == 0, "request bytes still counted as buffered with no connection open");
    return 0;
}
