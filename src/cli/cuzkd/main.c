/*
 * main.c — the cuzkd program: settings, signals, the server loop.
 *
 *   cuzkd [--config FILE] [--listen ADDR]... [options]
 *
 * Settings come from the defaults, then the TOML file (--config), then the
 * flags, each overriding the one before (docs/daemon.md lists them all).
 * Start-up order: log, signals (blocked in every thread and read from a
 * signalfd by the loop, so handlers never run in signal context), the engine
 * and the [srs] preload list, then the listeners — a client that can connect
 * finds the daemon ready. SIGTERM or SIGINT drain (a second one cancels what
 * is left at once), SIGHUP reopens the log file. Exit status: 0 after a clean
 * stop, 1 when the daemon could not start, 2 for a usage or configuration
 * error, 3 after it stopped because every device was lost to a fatal error
 * (engine.exit_on_device_lost: a new process starts the devices afresh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cuzk/common.h"
#include "daemon.h"

enum {
    O_STATUS = 1000,
    O_MODE,
    O_LEVEL,
    O_LOGFILE,
    O_LOGFMT,
    O_BUDGET,
    O_KEY_VRAM,
    O_KEY_TABLES,
    O_BACKEND,
    O_EVAL,
    O_EVAL_THREADS,
    O_SYNTH,
    O_GPUW,
    O_THREADS,
    O_POST,
    O_DEVICES,
    O_DEVICE_IDS,
    O_QUEUE,
    O_MAXJOBS,
    O_MAXMSG,
    O_MAXCONN,
    O_MAXIN,
    O_TTL,
    O_DRAIN,
    O_CIRCUIT,
    O_CACHE,
    O_SMAX,
    O_SDEF,
    O_SSEED,
    O_PRELOAD,
    O_PRINT,
    O_MAXRES,
    O_NO_ZPACK
};

static const struct option OPTS[] = {
    {"config", required_argument, NULL, 'c'},
    {"listen", required_argument, NULL, 'l'},
    {"status-listen", required_argument, NULL, O_STATUS},
    {"socket-mode", required_argument, NULL, O_MODE},
    {"log-level", required_argument, NULL, O_LEVEL},
    {"log-file", required_argument, NULL, O_LOGFILE},
    {"log-format", required_argument, NULL, O_LOGFMT},
    {"budget", required_argument, NULL, O_BUDGET},
    {"key-vram", required_argument, NULL, O_KEY_VRAM},
    {"key-tables", required_argument, NULL, O_KEY_TABLES},
    {"backend", required_argument, NULL, O_BACKEND},
    {"eval", required_argument, NULL, O_EVAL},
    {"eval-threads", required_argument, NULL, O_EVAL_THREADS},
    {"synth-workers", required_argument, NULL, O_SYNTH},
    {"gpu-workers", required_argument, NULL, O_GPUW},
    {"gpu-threads", required_argument, NULL, O_THREADS},
    {"post-workers", required_argument, NULL, O_POST},
    {"devices", required_argument, NULL, O_DEVICES},
    {"device-ids", required_argument, NULL, O_DEVICE_IDS},
    {"queue-depth", required_argument, NULL, O_QUEUE},
    {"max-jobs", required_argument, NULL, O_MAXJOBS},
    {"max-message", required_argument, NULL, O_MAXMSG},
    {"max-connections", required_argument, NULL, O_MAXCONN},
    {"max-input", required_argument, NULL, O_MAXIN},
    {"max-results", required_argument, NULL, O_MAXRES},
    {"results-ttl", required_argument, NULL, O_TTL},
    {"drain-timeout", required_argument, NULL, O_DRAIN},
    {"circuit", required_argument, NULL, O_CIRCUIT},
    {"param-cache", required_argument, NULL, O_CACHE},
    {"synth-max-scale", required_argument, NULL, O_SMAX},
    {"synth-default-scale", required_argument, NULL, O_SDEF},
    {"synth-seed", required_argument, NULL, O_SSEED},
    {"preload", required_argument, NULL, O_PRELOAD},
    {"print-config", no_argument, NULL, O_PRINT},
    {"no-zpack", no_argument, NULL, O_NO_ZPACK},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static void usage(FILE *f)
{
    fprintf(f, "Usage: cuzkd [--config FILE] [--listen ADDR]... [options]\n\n"
               "Serves the cuzk.v1 ProvingEngine gRPC API (HTTP/2 cleartext) from the cuzk proving engine.\n"
               "Flags override the config file (docs/daemon.md).\n\n"
               "  -c, --config FILE          TOML settings (cuzk.toml keys where they apply)\n"
               "  -l, --listen ADDR          unix:///path or host:port; repeat for several (default\n"
               "                             unix:///run/curio/cuzk.sock; TCP only when asked)\n"
               "      --status-listen ADDR   HTTP GET /metrics and /status on a second address (off)\n"
               "      --socket-mode MODE     permissions of unix sockets, octal (0660)\n"
               "      --log-level L          debug, info, warn, error (info)\n"
               "      --log-file FILE        append to FILE, reopened on SIGHUP (stderr)\n"
               "      --log-format F         text or json (text)\n"
               "      --budget SIZE          engine memory budget, e.g. 64GiB (auto: RAM - 5 GiB)\n"
               "      --key-vram SIZE        GPU: device bytes for resident proving keys per device;\n"
               "                             keys beyond it are streamed from host memory (auto: all)\n"
               "      --key-tables K|off     GPU: the largest k of the group tables a resident key's\n"
               "                             witness vectors may be held as (auto: off; K: the largest\n"
               "                             that fits with 8 GiB left free)\n"
               "      --backend B            auto, cpu or gpu (auto)\n"
               "      --eval P               where a, b, c are evaluated: auto, host or device (auto:\n"
               "                             the backend's choice, device on a GPU, host on the CPU)\n"
               "      --synth-workers N      synthesis workers (engine default 2)\n"
               "      --gpu-workers N        GPU workers per device (engine default 2)\n"
               "      --gpu-threads N        CPU threads per GPU worker (engine default: all CPUs)\n"
               "      --eval-threads N       host evaluation: threads of the synthesis workers' shared\n"
               "                             pool for a, b, c and the check (engine default: all CPUs)\n"
               "      --post-workers N       post-processing + verification workers (engine default 1)\n"
               "      --devices N            devices: the first N (CPU backend: lock domains)\n"
               "      --device-ids LIST      which devices by number, e.g. 1,3 or 0-3 (GPU: CUDA's\n"
               "                             numbers); replaces --devices and the reverse\n"
               "      --queue-depth N        GPU queue of synthesized partitions\n"
               "      --no-zpack             GPU, device evaluation: upload witnesses whole, not packed\n"
               "      --max-jobs N           unfinished jobs accepted at once (256)\n"
               "      --max-message SIZE     largest request message (256MiB)\n"
               "      --max-connections N    open client connections (128)\n"
               "      --max-input SIZE       witness bytes held by unfinished jobs (2GiB)\n"
               "      --max-results N        finished results kept for AwaitProof (10000)\n"
               "      --results-ttl DUR      how long results are kept, e.g. 600 or 10m (10m)\n"
               "      --drain-timeout DUR    on SIGTERM, time given to unfinished jobs (60s)\n"
               "      --circuit ID=PARAMS,R1CS   register a circuit (a .params key and its .r1cs)\n"
               "      --param-cache DIR      base directory of relative circuit paths\n"
               "      --preload ID           load a circuit before listening (repeatable)\n"
               "      --synth-max-scale LG   largest synthetic PoRep scale served (20)\n"
               "      --synth-default-scale LG   scale of SYNTH_POREP jobs that give none (12)\n"
               "      --synth-seed N         seed of the synthetic circuits (1)\n"
               "      --print-config         print the effective settings as TOML and exit\n"
               "  -h, --help                 this text\n"
               "  -V, --version              print the version\n");
}

static int bad(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "cuzkd: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\nRun `cuzkd --help` for the options.\n");
    return 2;
}

static int int_arg(const char *name, const char *v, int lo, int hi, int *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (!v[0] || *end || x < lo || x > hi) {
        fprintf(stderr, "cuzkd: %s expects an integer from %d to %d, not '%s'\n", name, lo, hi, v);
        return 2;
    }
    *out = (int)x;
    return 0;
}

/* A byte size such as 512M (never 0) or "auto" (0), for --budget and --key-vram. */
static int size_arg(const char *name, const char *v, const char *example, uint64_t *out)
{
    if (!strcmp(v, "auto")) {
        *out = 0;
        return 0;
    }
    if (cuzkd_parse_size(v, out) != 0 || *out == 0) {
        fprintf(
            stderr,
            "cuzkd: %s expects a size such as %s, or auto, not '%s'\nRun `cuzkd --help` for the options.\n",
            name, example, v);
        return 2;
    }
    return 0;
}

/* Applies one flag to cfg; 0 or an exit status. */
static int apply(cuzkd_config *cfg, int o, const char *v, bool *listen_seen, bool *print)
{
    char err[CUZKD_ERRLEN];
    int x;
    switch (o) {
    case 'c': return 0; /* read before the flags */
    case 'l':
        if (!*listen_seen) {
            cuzkd_config_clear_listen(cfg);
            *listen_seen = true;
        }
        if (cuzkd_config_add_listen(cfg, v, err, sizeof err) != 0)
            return bad("--listen: %s%s", err, "");
        return 0;
    case O_STATUS: {
        rpc_addr a;
        if (rpc_addr_parse(v, &a, err, sizeof err) != 0)
            return bad("--status-listen: %s%s", err, "");
        free(cfg->status_listen);
        cfg->status_listen = strdup(v);
        return 0;
    }
    case O_MODE: {
        char *end;
        long m = strtol(v, &end, 8);
        if (!v[0] || *end || m < 0 || m > 0777)
            return bad("--socket-mode expects an octal mode such as 0660, not '%s'%s", v, "");
        cfg->socket_mode = (unsigned)m;
        return 0;
    }
    case O_LEVEL:
        if ((x = cuzkd_log_level_parse(v)) < 0)
            return bad("--log-level expects debug, info, warn or error, not '%s'%s", v, "");
        cfg->log_level = x;
        return 0;
    case O_LOGFILE:
        free(cfg->log_file);
        cfg->log_file = strdup(v);
        return 0;
    case O_LOGFMT:
        if (strcmp(v, "text") && strcmp(v, "json"))
            return bad("--log-format expects text or json, not '%s'%s", v, "");
        cfg->log_json = !strcmp(v, "json");
        return 0;
    case O_BUDGET: return size_arg("--budget", v, "512M or 64GiB", &cfg->budget);
    case O_KEY_VRAM: return size_arg("--key-vram", v, "512M or 40GiB", &cfg->key_vram);
    case O_KEY_TABLES:
        if (cuzkd_parse_key_tables(v, &cfg->key_tables) != 0)
            return bad("--key-tables expects 2, 3, 4, off or auto, not '%s'%s", v, "");
        return 0;
    case O_BACKEND:
        if (strcmp(v, "auto") && strcmp(v, "cpu") && strcmp(v, "gpu"))
            return bad("--backend expects auto, cpu or gpu, not '%s'%s", v, "");
        snprintf(cfg->backend, sizeof cfg->backend, "%s", v);
        return 0;
    case O_EVAL:
        if (strcmp(v, "auto") && strcmp(v, "host") && strcmp(v, "device"))
            return bad("--eval expects auto, host or device, not '%s'%s", v, "");
        snprintf(cfg->eval, sizeof cfg->eval, "%s", v);
        return 0;
    case O_SYNTH: return int_arg("--synth-workers", v, 1, 1024, &cfg->synth_workers);
    case O_GPUW: return int_arg("--gpu-workers", v, 1, 64, &cfg->gpu_workers);
    case O_THREADS: return int_arg("--gpu-threads", v, 1, 4096, &cfg->gpu_threads);
    case O_EVAL_THREADS: return int_arg("--eval-threads", v, 1, 4096, &cfg->eval_threads);
    case O_POST: return int_arg("--post-workers", v, 1, 1024, &cfg->post_workers);
    case O_DEVICES: /* the first N: a list from the file no longer applies */
        cfg->device_mask = 0;
        return int_arg("--devices", v, 1, 64, &cfg->devices);
    case O_DEVICE_IDS:
        if (cuzk_engine_device_list_parse(v, &cfg->device_mask) != CUZK_OK)
            return bad("--device-ids expects distinct device numbers 0..63 such as 1,3 or 0-3, not '%s'%s", v,
                       "");
        cfg->devices = 0; /* as many as the list names */
        return 0;
    case O_QUEUE: return int_arg("--queue-depth", v, 1, 65536, &cfg->queue_depth);
    case O_MAXJOBS: return int_arg("--max-jobs", v, 1, 100000, &cfg->max_jobs);
    case O_MAXCONN: return int_arg("--max-connections", v, 1, 100000, &cfg->max_connections);
    case O_MAXRES: return int_arg("--max-results", v, 0, 10000000, &cfg->max_results);
    case O_MAXMSG:
        if (cuzkd_parse_size(v, &cfg->max_message) != 0)
            return bad("--max-message expects a size such as 256MiB, not '%s'%s", v, "");
        return 0;
    case O_MAXIN:
        /* 0 would refuse every witness, and limits.max_input_bytes = 0 does not load (--print-config) */
        if (cuzkd_parse_size(v, &cfg->max_input_bytes) != 0 || cfg->max_input_bytes == 0)
            return bad("--max-input expects a size such as 2GiB, not '%s'%s", v, "");
        return 0;
    case O_TTL:
        if (cuzkd_parse_duration(v, &cfg->results_ttl_s) != 0)
            return bad("--results-ttl expects a duration such as 600, 30s or 10m, not '%s'%s", v, "");
        return 0;
    case O_DRAIN:
        if (cuzkd_parse_duration(v, &cfg->drain_timeout_s) != 0)
            return bad("--drain-timeout expects a duration such as 0, 30s or 5m, not '%s'%s", v, "");
        return 0;
    case O_CIRCUIT: {
        char *s = strdup(v);
        char *eq = s ? strchr(s, '=') : NULL;
        char *comma = eq ? strchr(eq + 1, ',') : NULL;
        int rc = 0;
        if (!eq || !comma || eq == s || comma == eq + 1 || !comma[1])
            rc = bad("--circuit expects ID=PARAMS,R1CS, not '%s'%s", v, "");
        else {
            *eq = *comma = 0;
            if (cuzkd_config_add_circuit(cfg, s, eq + 1, comma + 1, err, sizeof err) != 0)
                rc = bad("--circuit: %s%s", err, "");
        }
        free(s);
        return rc;
    }
    case O_CACHE:
        free(cfg->param_cache);
        cfg->param_cache = strdup(v);
        return 0;
    case O_SMAX: return int_arg("--synth-max-scale", v, 11, 26, (int *)&cfg->synth_max_scale);
    case O_SDEF: return int_arg("--synth-default-scale", v, 11, 26, (int *)&cfg->synth_default_scale);
    case O_SSEED: {
        char *end;
        errno = 0;
        unsigned long long s = v[0] >= '0' && v[0] <= '9' ? strtoull(v, &end, 10) : 0;
        if (s == 0 || errno || *end || s > INT64_MAX) /* what the config file can say back (--print-config) */
            return bad("--synth-seed expects an integer from 1 to 2^63 - 1, not '%s'%s", v, "");
        cfg->synth_seed = s;
        return 0;
    }
    case O_PRELOAD: {
        char **np = realloc(cfg->preload, (size_t)(cfg->n_preload + 1) * sizeof *np);
        if (!np)
            return bad("out of memory%s%s", "", "");
        cfg->preload = np;
        cfg->preload[cfg->n_preload++] = strdup(v);
        return 0;
    }
    case O_PRINT: *print = true; return 0;
    case O_NO_ZPACK: cfg->no_zpack = true; return 0;
    default: return 2;
    }
}

static void on_signal(void *ctx, int fd)
{
    cuzkd_service *svc = ctx;
    struct signalfd_siginfo si;
    while (read(fd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGHUP) {
            cuzkd_log_reopen();
        } else {
            LOG_INFO("signal %s received", si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
            static bool seen;
            cuzkd_service_shutdown(svc, seen);
            seen = true;
        }
    }
}

int main(int argc, char **argv)
{
    /* A log file grown past the file-size limit (RLIMIT_FSIZE) must not kill the daemon: its writes fail
     * with EFBIG instead, and the log says so once on stderr (log.c). */
    signal(SIGXFSZ, SIG_IGN);
    cuzkd_config cfg;
    cuzkd_config_init(&cfg);
    char err[CUZKD_ERRLEN] = "";
    int status = 0;
    /* pass 1: help, version, the config file */
    opterr = 0;
    const char *config_path = NULL;
    for (int o; (o = getopt_long(argc, argv, "c:l:hV", OPTS, NULL)) != -1;) {
        if (o == 'h') {
            usage(stdout);
            cuzkd_config_free(&cfg);
            return 0;
        }
        if (o == 'V') {
            printf("cuzkd %s\n", CUZK_VERSION);
            cuzkd_config_free(&cfg);
            return 0;
        }
        if (o == 'c')
            config_path = optarg;
    }
    if (config_path && cuzkd_config_load(&cfg, config_path, err, sizeof err) != 0) {
        fprintf(stderr, "cuzkd: %s\n", err);
        cuzkd_config_free(&cfg);
        return 2;
    }
    /* pass 2: every flag, over the file */
    optind = 1;
    opterr = 1;
    bool listen_seen = false, print = false;
    for (int o; (o = getopt_long(argc, argv, "c:l:hV", OPTS, NULL)) != -1;) {
        if (o == '?' || o == ':') {
            fprintf(stderr, "Run `cuzkd --help` for the options.\n");
            cuzkd_config_free(&cfg);
            return 2;
        }
        if ((status = apply(&cfg, o, optarg, &listen_seen, &print)) != 0) {
            cuzkd_config_free(&cfg);
            return status;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "cuzkd: unexpected argument '%s'\nRun `cuzkd --help` for the options.\n",
                argv[optind]);
        cuzkd_config_free(&cfg);
        return 2;
    }
    if (cuzkd_config_check(&cfg, err, sizeof err) != 0) {
        fprintf(stderr, "cuzkd: %s\n", err);
        cuzkd_config_free(&cfg);
        return 2;
    }
    if (cfg.log_file && config_path && cuzk_same_file(cfg.log_file, config_path)) {
        fprintf(stderr, "cuzkd: logging.file %s is the config file %s: the log would write into it\n",
                cfg.log_file, config_path);
        cuzkd_config_free(&cfg);
        return 2;
    }
    if (print) {
        cuzkd_config_print(stdout, &cfg);
        cuzkd_config_free(&cfg);
        return 0;
    }
    if (cuzkd_log_open(cfg.log_file, cfg.log_level, cfg.log_json, err, sizeof err) != 0) {
        fprintf(stderr, "cuzkd: %s\n", err);
        cuzkd_config_free(&cfg);
        return 1;
    }
    LOG_INFO("cuzkd %s starting (pid %d)%s%s", CUZK_VERSION, (int)getpid(), config_path ? ", config " : "",
             config_path ? config_path : "");
    for (char *n = cfg.notes, *e; n && *n; n = e + 1) {
        e = strchr(n, '\n');
        LOG_INFO("%.*s", (int)(e - n), n);
    }
    /* Signals: blocked here, before any thread exists, so every thread inherits the mask and only the
     * signalfd sees them. A broken client socket must not kill the daemon. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    int sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    cuzkd_service *svc = NULL;
    rpc_server *srv = NULL;
    if (sfd < 0) {
        LOG_ERROR("signalfd failed");
        status = 1;
        goto out;
    }
    if (cuzkd_service_new(&svc, &cfg, err, sizeof err) != CUZK_OK) {
        LOG_ERROR("cannot start: %s", err);
        status = 1;
        goto out;
    }
    rpc_server_config sc = {
        .max_message = cfg.max_message,
        .max_buffered = cfg.max_buffered,
        .max_connections = cfg.max_connections,
        .max_streams = (uint32_t)cfg.max_streams,
        .idle_timeout_ms = cfg.idle_timeout_s > 0 ? cfg.idle_timeout_s * 1000 : -1,
        .socket_mode = cfg.socket_mode,
        .handler = cuzkd_service_handle,
        .closed = cuzkd_service_closed,
        .http = cuzkd_service_http,
        .tick = cuzkd_service_tick,
        .log = cuzkd_service_rpc_log,
        .ctx = svc,
    };
    if (rpc_server_new(&srv, &sc, err, sizeof err) != 0) {
        LOG_ERROR("cannot start: %s", err);
        status = 1;
        goto out;
    }
    cuzkd_service_attach(svc, srv);
    for (int i = 0; i < cfg.n_listen; i++)
        if (rpc_server_listen(srv, cfg.listen[i], RPC_LISTEN_GRPC, err, sizeof err) != 0) {
            LOG_ERROR("cannot start: %s", err);
            status = 1;
            goto out;
        }
    if (cfg.status_listen &&
        rpc_server_listen(srv, cfg.status_listen, RPC_LISTEN_HTTP, err, sizeof err) != 0) {
        LOG_ERROR("cannot start: %s", err);
        status = 1;
        goto out;
    }
    if (rpc_server_watch_fd(srv, sfd, on_signal, err, sizeof err) != 0) {
        LOG_ERROR("cannot start: %s", err);
        status = 1;
        goto out;
    }
    LOG_INFO("ready");
    if (rpc_server_run(srv) != 0)
        status = 1;
    if (!status)
        status = cuzkd_service_exit_status(svc);
    LOG_INFO("stopped%s", status == 3 ? " (no usable device: exit status 3)" : "");
out:
    cuzkd_service_quiesce(svc); /* no job thread may post to the server once it is gone */
    rpc_server_free(srv);       /* tells the service about calls still open; the service must outlive it */
    cuzkd_service_free(svc);
    if (sfd >= 0)
        close(sfd);
    cuzkd_log_close();
    cuzkd_config_free(&cfg);
    return status;
}
