/*
 * daemon.h — what the parts of cuzkd share (docs/daemon.md).
 *
 *   main.c     command line, configuration merge, signals, start and stop
 *   config.c   the TOML subset and the settings it fills (flags override it)
 *   log.c      leveled log lines (text or JSON) to stderr or a file, reopened on SIGHUP
 *   service.c  the cuzk.v1 calls: jobs, registered circuits, the engine, status and metrics
 */
#ifndef CUZKD_DAEMON_H
#define CUZKD_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/engine.h"
#include "rpc.h"

#ifndef CUZK_VERSION
#define CUZK_VERSION "unknown"
#endif

#define CUZKD_MAX_LISTEN 8
#define CUZKD_ERRLEN 512

/* A circuit registered under [circuits.<id>]: a bellperson .params key and the circom .r1cs it was
 * made for. */
typedef struct {
    char *id, *params, *r1cs;
} cuzkd_circuit_conf;

typedef struct {
    /* [daemon] */
    char *listen[CUZKD_MAX_LISTEN];
    int n_listen;
    char *status_listen; /* NULL: off */
    unsigned socket_mode;
    /* [logging] */
    int log_level; /* rpc_log_level */
    bool log_json;
    char *log_file; /* NULL: stderr */
    /* [memory] */
    uint64_t budget; /* 0: auto */
    uint64_t safety_margin;
    /* [gpus], [synthesis], [pipeline]: engine knobs, 0 = the engine's default */
    int devices, gpu_workers, gpu_threads, eval_threads, synth_workers, post_workers, queue_depth;
    uint64_t
        device_mask;   /* cuzk_engine_config.device_mask: which devices by number; 0: the first `devices` */
    char backend[8];   /* "auto", "cpu", "gpu" */
    char eval[8];      /* where a, b, c are evaluated: "auto", "host", "device" (cuzk_engine_config.eval) */
    uint64_t key_vram; /* cuzk_engine_config.key_vram; 0: auto */
    int key_tables;    /* cuzk_engine_config.key_tables: 2..4, -1 off; 0: auto (the engine's: off) */
    bool no_zpack;     /* engine.zpack = false: CUZK_ENGINE_NO_ZPACK (witnesses uploaded whole) */
    bool stay_without_device; /* engine.exit_on_device_lost = false: keep serving (refusing work) once no
                                 device is usable, instead of exiting with status 3 for a restart */
    /* [limits] */
    uint64_t max_message, max_buffered, max_input_bytes;
    int max_connections, max_streams, max_jobs, max_results;
    int idle_timeout_s; /* an idle client connection is closed after this long (0: never) */
    int results_ttl_s, drain_timeout_s;
    /* [srs] */
    char *param_cache; /* base directory of relative circuit paths */
    /* [circuits.<id>] */
    cuzkd_circuit_conf *circuits;
    int n_circuits;
    /* [synthetic] */
    unsigned synth_default_scale, synth_max_scale;
    uint64_t synth_seed;
    /* [srs] preload: circuit ids loaded before the daemon starts listening */
    char **preload;
    int n_preload;
    /* lines about keys read but ignored (compatibility), logged once the log is open */
    char *notes;
} cuzkd_config;

/* Defaults (docs/daemon.md). */
void cuzkd_config_init(cuzkd_config *c);
void cuzkd_config_free(cuzkd_config *c);
/* Reads a TOML file into c (keys present replace defaults). 0, or -1 with "FILE:LINE: why" in err. */
int cuzkd_config_load(cuzkd_config *c, const char *path, char *err, size_t errlen);
/* The same for n bytes of TOML text already in memory (no NUL needed at the end; one inside is an error);
 * name stands for the file in messages. */
int cuzkd_config_parse(cuzkd_config *c, const char *name, const char *text, size_t n, char *err,
                       size_t errlen);
/* Parses "4096", "512M", "64GiB" (binary suffixes); 0 or -1. */
int cuzkd_parse_size(const char *s, uint64_t *out);
/* Parses engine.key_tables: "2", "3" or "4" (the largest k), "off" (-1) or "auto" (0: the engine's
 * default, none); 0 or -1. */
int cuzkd_parse_key_tables(const char *s, int *out);
/* Parses "90", "30s", "5m", "2h" into seconds; 0 or -1. */
int cuzkd_parse_duration(const char *s, int *out);
/* Sets listen/mode/...; used by both the file and the flags. */
int cuzkd_config_add_listen(cuzkd_config *c, const char *addr, char *err, size_t errlen);
void cuzkd_config_clear_listen(cuzkd_config *c);
int cuzkd_config_add_circuit(cuzkd_config *c, const char *id, const char *params, const char *r1cs, char *err,
                             size_t errlen);
/* Checks the values against each other (duplicate circuit ids, scales in range, a log file that is one
 * of the circuits' files...). */
int cuzkd_config_check(const cuzkd_config *c, char *err, size_t errlen);
/* A circuit's file path as the daemon opens it: p itself when absolute or without srs.param_cache, else
 * param_cache/p. malloc'd (NULL when out of memory). */
char *cuzkd_config_path(const cuzkd_config *c, const char *p);
/* The effective settings as TOML, for --print-config. */
void cuzkd_config_print(FILE *f, const cuzkd_config *c);

/* ---- log --------------------------------------------------------------------------------- */

/* s as the content of a JSON string (no quotes) into out (cap bytes, NUL-terminated, cut at a whole
 * character when full): quotes, backslashes and control characters escaped, bytes that are not UTF-8 as
 * \ufffd. Returns the bytes written. The JSON log's lines use it. */
size_t cuzkd_json_escape(char *out, size_t cap, const char *s);
/* Opens the log (path NULL: stderr). 0 or -1 with err. */
int cuzkd_log_open(const char *path, int level, bool json, char *err, size_t errlen);
/* Reopens the file (after logrotate moved it); a no-op on stderr. */
void cuzkd_log_reopen(void);
void cuzkd_log_close(void);
bool cuzkd_log_enabled(int level);
void cuzkd_log(int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
#define LOG_DEBUG(...) cuzkd_log(RPC_LOG_DEBUG, __VA_ARGS__)
#define LOG_INFO(...) cuzkd_log(RPC_LOG_INFO, __VA_ARGS__)
#define LOG_WARN(...) cuzkd_log(RPC_LOG_WARN, __VA_ARGS__)
#define LOG_ERROR(...) cuzkd_log(RPC_LOG_ERROR, __VA_ARGS__)
/* "debug", "info", "warn" (or "warning"), "error" -> level; -1 if unknown. */
int cuzkd_log_level_parse(const char *s);

/* ---- service ----------------------------------------------------------------------------- */

typedef struct cuzkd_service cuzkd_service;

/* Builds the engine and the circuit table from cfg (borrowed for the service's life). */
int cuzkd_service_new(cuzkd_service **out, const cuzkd_config *cfg, char *err, size_t errlen);
/* Binds the service to its server (before rpc_server_run). */
void cuzkd_service_attach(cuzkd_service *svc, rpc_server *srv);
/* Starts a drain: new work is refused, queued and running jobs finish within the drain timeout
 * (now, if immediate), then the rest is cancelled and the server stops. */
void cuzkd_service_shutdown(cuzkd_service *svc, bool immediate);
/* Cancels every unfinished job and waits for every job and helper thread (their last tasks stay
 * queued in the server, which frees them). Call before rpc_server_free when the loop ended early. */
void cuzkd_service_quiesce(cuzkd_service *svc);
/* The exit status the daemon should end with: 3 when it stopped because no device was usable, else 0. */
int cuzkd_service_exit_status(const cuzkd_service *svc);
/* Waits for every job and helper thread, then frees the engine, the circuits and the jobs. */
void cuzkd_service_free(cuzkd_service *svc);

/* rpc_server_config callbacks; ctx is the service. */
void cuzkd_service_handle(void *ctx, rpc_call *call, const char *method, const uint8_t *msg, size_t len);
void cuzkd_service_closed(void *ctx, rpc_call *call);
int cuzkd_service_http(void *ctx, const char *path, char **body, size_t *len, const char **ctype);
int cuzkd_service_tick(void *ctx);
void cuzkd_service_rpc_log(void *ctx, rpc_log_level level, const char *msg);

#endif
