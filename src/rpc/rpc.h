/*
 * rpc.h — gRPC over HTTP/2 cleartext (h2c, prior knowledge) for cuzkd and its
 * clients, on nghttp2 (framing, flow control, HPACK) and protobuf-c (the
 * cuzk.v1 messages, generated at build time from proto/cuzk/v1/proving.proto).
 *
 * Server. One thread runs everything network-facing: an epoll loop over the
 * listeners (unix sockets and TCP, gRPC or the small HTTP/1.1 status server),
 * the connections, an eventfd that other threads use to hand work to the
 * loop (rpc_server_post), and any file descriptor the program adds (a
 * signalfd, say). Only unary calls exist in cuzk.v1, so a call is: request
 * headers, the DATA of one length-prefixed message (1 byte compressed flag, 4
 * bytes big-endian length, the protobuf bytes), END_STREAM. When the last
 * byte arrives the loop checks the framing and hands the message to the
 * program's handler, which answers at once or later, always on the loop's
 * thread (work done elsewhere comes back through rpc_server_post). Answers
 * are a response message followed by trailers (grpc-status, grpc-message),
 * or, for an error, the trailers alone ("Trailers-Only").
 *
 * Limits: messages above max_message are refused as soon as their length
 * prefix arrives (RESOURCE_EXHAUSTED); request bytes buffered over all
 * connections are capped by max_buffered (counted as they arrive, not as
 * announced); connections by max_connections, and a connection that moves
 * no byte while none of its calls is with the handler is closed after
 * idle_timeout_ms (10 s if it never sent one);
 * concurrent streams per connection by max_streams (advertised in SETTINGS,
 * enforced by nghttp2). A call with a grpc-timeout header that is still
 * unanswered when it passes is answered DEADLINE_EXCEEDED by the loop, which
 * first takes it from the handler through `closed`. A connection that breaks
 * the protocol (bad preface, bad frames) is closed by nghttp2's GOAWAY; other
 * connections never notice.
 *
 * Ownership of a call: the loop owns every rpc_call. The handler may keep the
 * pointer until it calls rpc_call_reply (after which the call is the loop's
 * again) or until the `closed` callback reports that the client went away
 * first (the pointer is then dead). Both happen on the loop's thread, so no
 * locking is needed around a call.
 *
 * Client. rpc_client is one blocking HTTP/2 connection for sequential unary
 * calls (cuzk-bench --addr and the tests); use one client per thread.
 */
#ifndef CUZK_RPC_H
#define CUZK_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* gRPC status codes (grpc/doc/statuscodes.md). */
enum {
    RPC_OK = 0,
    RPC_CANCELLED = 1,
    RPC_UNKNOWN = 2,
    RPC_INVALID_ARGUMENT = 3,
    RPC_DEADLINE_EXCEEDED = 4,
    RPC_NOT_FOUND = 5,
    RPC_ALREADY_EXISTS = 6,
    RPC_PERMISSION_DENIED = 7,
    RPC_RESOURCE_EXHAUSTED = 8,
    RPC_FAILED_PRECONDITION = 9,
    RPC_ABORTED = 10,
    RPC_OUT_OF_RANGE = 11,
    RPC_UNIMPLEMENTED = 12,
    RPC_INTERNAL = 13,
    RPC_UNAVAILABLE = 14,
    RPC_DATA_LOSS = 15,
    RPC_UNAUTHENTICATED = 16,
};

/* "RESOURCE_EXHAUSTED" for 8; "UNKNOWN_STATUS" outside 0..16. */
const char *rpc_status_name(int code);

/* Writes the message into err (when err and errlen allow) and returns -1: every failing path of the rpc
 * code and of cuzkd's config reader reads `return rpc_fail(err, errlen, "...", ...)`. */
int rpc_fail(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- addresses ------------------------------------------------------------------------- */

/* An address as written on a command line: "unix:///run/cuzk.sock" (also "unix:/path" and
 * "unix:path") or "host:port" ("127.0.0.1:9820", "[::1]:9820", "localhost:9820"); an optional
 * "http://" in front of host:port is accepted and ignored. */
typedef struct {
    bool is_unix;
    char path[108]; /* unix */
    char host[256]; /* tcp, without brackets */
    char port[8];   /* tcp */
} rpc_addr;

/* Parses s into *out; 0, or -1 with the reason in err. */
int rpc_addr_parse(const char *s, rpc_addr *out, char *err, size_t errlen);

/* ---- server ---------------------------------------------------------------------------- */

typedef struct rpc_server rpc_server;
typedef struct rpc_call rpc_call;

typedef enum { RPC_LOG_DEBUG = 0, RPC_LOG_INFO = 1, RPC_LOG_WARN = 2, RPC_LOG_ERROR = 3 } rpc_log_level;

/* A complete request: `method` is the :path ("/cuzk.v1.ProvingEngine/GetStatus"), msg the message
 * bytes (valid during the call only). Answer with rpc_call_reply, now or later. */
typedef void (*rpc_handler_fn)(void *ctx, rpc_call *call, const char *method, const uint8_t *msg, size_t len);
/* The client left (stream reset, connection closed) before the handler answered: forget call. */
typedef void (*rpc_closed_fn)(void *ctx, rpc_call *call);
/* An HTTP/1.1 GET on a status listener: fill *body (malloc'd, taken over) and *ctype, return the
 * HTTP status (200, 404, ...). */
typedef int (*rpc_http_fn)(void *ctx, const char *path, char **body, size_t *len, const char **ctype);
/* Called once per loop turn; returns the milliseconds until it wants to run again (-1: no need). */
typedef int (*rpc_tick_fn)(void *ctx);
typedef void (*rpc_log_fn)(void *ctx, rpc_log_level level, const char *msg);
/* A watched file descriptor became readable. */
typedef void (*rpc_fd_fn)(void *ctx, int fd);
/* Work handed to the loop's thread. */
typedef void (*rpc_task_fn)(void *arg);

typedef struct {
    size_t max_message;     /* largest request message in bytes (default 256 MiB) */
    size_t max_buffered;    /* request bytes held over all connections (default 1 GiB) */
    int max_connections;    /* open connections (default 128) */
    uint32_t max_streams;   /* concurrent streams per connection (default 100) */
    unsigned socket_mode;   /* permissions of unix sockets (default 0660) */
    int idle_timeout_ms;    /* a connection with no call in the handler's hands that moves no byte for this
                               long is closed (default 300000; before its first byte: 10 s at most);
                               negative: never */
    rpc_handler_fn handler; /* required */
    rpc_closed_fn closed;   /* required */
    rpc_http_fn http;       /* needed for HTTP listeners */
    rpc_tick_fn tick;       /* optional */
    rpc_log_fn log;         /* optional */
    void *ctx;              /* passed to every callback */
} rpc_server_config;

typedef enum { RPC_LISTEN_GRPC = 0, RPC_LISTEN_HTTP = 1 } rpc_listen_kind;

int rpc_server_new(rpc_server **out, const rpc_server_config *cfg, char *err, size_t errlen);
/* Closes every connection (answering nothing more; open calls get `closed`), the listeners (unix
 * socket files are removed) and frees the server. */
void rpc_server_free(rpc_server *s);

/* Binds and listens on addr. A unix socket file left by a dead process is replaced; one a live
 * process answers on is refused. */
int rpc_server_listen(rpc_server *s, const char *addr, rpc_listen_kind kind, char *err, size_t errlen);
/* Closes the listeners (and removes their socket files): no new connections. */
void rpc_server_close_listeners(rpc_server *s);
/* Watches fd for readability; fn runs on the loop's thread. */
int rpc_server_watch_fd(rpc_server *s, int fd, rpc_fd_fn fn, char *err, size_t errlen);

/* Runs the loop until rpc_server_stop; returns 0, or -1 if epoll itself failed. */
int rpc_server_run(rpc_server *s);
/* From the loop's thread: ends every connection politely (GOAWAY after what is queued is sent),
 * waits up to grace_ms for the bytes to leave, then makes rpc_server_run return. */
void rpc_server_stop(rpc_server *s, int grace_ms);
/* From any thread: runs fn(arg) on the loop's thread soon. 0, or -1 when out of memory. */
int rpc_server_post(rpc_server *s, rpc_task_fn fn, void *arg);

/* Answers a call: code RPC_OK with the response message (len may be 0), or an error code with a
 * message (resp ignored). Loop thread only; the call is gone afterwards. */
void rpc_call_reply(rpc_call *call, int code, const char *message, const uint8_t *resp, size_t len);
/* The peer of a call, for logs ("unix" or "127.0.0.1:53412"). */
const char *rpc_call_peer(const rpc_call *call);

/* Counters (loop thread). */
typedef struct {
    uint64_t connections_accepted, connections_refused, connections_open;
    uint64_t calls, protocol_errors, buffered_bytes;
    uint64_t connections_idle_closed; /* closed by the idle timeout */
    uint64_t deadlines_exceeded;      /* calls answered DEADLINE_EXCEEDED: their grpc-timeout passed */
} rpc_server_stats;
void rpc_server_get_stats(const rpc_server *s, rpc_server_stats *out);

/* ---- client ---------------------------------------------------------------------------- */

typedef struct rpc_client rpc_client;

/* Connects to addr and exchanges the HTTP/2 preface. */
int rpc_client_open(rpc_client **out, const char *addr, char *err, size_t errlen);
void rpc_client_close(rpc_client *c);

/* One unary call: sends req (len bytes) to method ("/cuzk.v1.ProvingEngine/Prove"), waits at most
 * timeout_ms (0: no limit; sent as grpc-timeout, so the server gives up too) and returns 0 with *status (gRPC
 * code), message (grpc-message, decoded) and, for RPC_OK, *resp (malloc'd, *resp_len bytes); or -1 with err
 * when the transport failed. */
int rpc_client_call(rpc_client *c, const char *method, const uint8_t *req, size_t len, int timeout_ms,
                    int *status, char *message, size_t msglen, uint8_t **resp, size_t *resp_len, char *err,
                    size_t errlen);

#endif
