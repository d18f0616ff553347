/*
 * config.c — cuzkd's settings and the TOML subset they are read from.
 *
 * The subset: comments (#), [table] and [table.sub] headers (bare or quoted
 * key parts), and `key = value` lines whose value is a basic "string" (escapes
 * \" \\ \n \t), a 'literal string', an integer (optionally with _ separators,
 * 0x/0o prefixes), true/false, or an array of those, which may span lines.
 * That is all cuzk.toml files use. Each key is looked up in one table of known
 * keys: most set a field, a few keys of the original daemon that have no
 * meaning here are accepted and noted (so an existing cuzk.toml loads), and
 * an unknown key is an error naming the file and line, as is a value of the
 * wrong type. Sizes are integers (bytes) or strings such as "64GiB"; durations
 * integers (seconds) or strings such as "30s", "5m".
 */
#define _GNU_SOURCE /* asprintf */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/common.h"
#include "daemon.h"

#define DEFAULT_LISTEN "unix:///run/curio/cuzk.sock"

static char *xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) {
        fprintf(stderr, "cuzkd: out of memory\n");
        exit(1);
    }
    return d;
}

void cuzkd_config_init(cuzkd_config *c)
{
    memset(c, 0, sizeof *c);
    c->listen[0] = xstrdup(DEFAULT_LISTEN);
    c->n_listen = 1;
    c->socket_mode = 0660;
    c->log_level = RPC_LOG_INFO;
    c->safety_margin = (uint64_t)5 << 30;
    strcpy(c->backend, "auto");
    strcpy(c->eval, "auto");
    c->max_message = (uint64_t)256 << 20;
    c->max_buffered = (uint64_t)1 << 30;
    c->max_input_bytes = (uint64_t)2 << 30;
    c->max_connections = 128;
    c->max_streams = 100;
    c->max_jobs = 256;
    c->max_results = 10000;
    c->results_ttl_s = 600;
    c->drain_timeout_s = 60;
    c->idle_timeout_s = 300;
    c->synth_default_scale = 12;
    c->synth_max_scale = 20;
    c->synth_seed = 1;
}

void cuzkd_config_clear_listen(cuzkd_config *c)
{
    for (int i = 0; i < c->n_listen; i++)
        free(c->listen[i]);
    c->n_listen = 0;
}

void cuzkd_config_free(cuzkd_config *c)
{
    cuzkd_config_clear_listen(c);
    free(c->status_listen);
    free(c->log_file);
    free(c->param_cache);
    for (int i = 0; i < c->n_circuits; i++) {
        free(c->circuits[i].id);
        free(c->circuits[i].params);
        free(c->circuits[i].r1cs);
    }
    free(c->circuits);
    for (int i = 0; i < c->n_preload; i++)
        free(c->preload[i]);
    free(c->preload);
    free(c->notes);
    memset(c, 0, sizeof *c);
}

int cuzkd_config_add_listen(cuzkd_config *c, const char *addr, char *err, size_t errlen)
{
    rpc_addr a;
    if (rpc_addr_parse(addr, &a, err, errlen) != 0)
        return -1;
    if (c->n_listen >= CUZKD_MAX_LISTEN)
        return rpc_fail(err, errlen, "at most %d listen addresses", CUZKD_MAX_LISTEN);
    c->listen[c->n_listen++] = xstrdup(addr);
    return 0;
}

int cuzkd_config_add_circuit(cuzkd_config *c, const char *id, const char *params, const char *r1cs, char *err,
                             size_t errlen)
{
    if (!id[0] || strlen(id) > 63)
        return rpc_fail(err, errlen, "circuit id '%s' must have 1 to 63 characters", id);
    for (const char *p = id; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
            return rpc_fail(err, errlen, "circuit id '%s': only letters, digits, '-', '_' and '.'", id);
    if (!strncmp(id, "synth-porep-", 12))
        return rpc_fail(err, errlen, "circuit id '%s': the synth-porep- prefix names the synthetic circuits",
                        id);
    int i = 0;
    for (; i < c->n_circuits; i++)
        if (!strcmp(c->circuits[i].id, id))
            break;
    if (i == c->n_circuits) {
        cuzkd_circuit_conf *n = realloc(c->circuits, (size_t)(c->n_circuits + 1) * sizeof *n);
        if (!n)
            return rpc_fail(err, errlen, "out of memory");
        c->circuits = n;
        memset(&n[i], 0, sizeof n[i]);
        n[i].id = xstrdup(id);
        c->n_circuits++;
    }
    if (params) {
        free(c->circuits[i].params);
        c->circuits[i].params = xstrdup(params);
    }
    if (r1cs) {
        free(c->circuits[i].r1cs);
        c->circuits[i].r1cs = xstrdup(r1cs);
    }
    return 0;
}

int cuzkd_parse_size(const char *s, uint64_t *out)
{
    if (!s || s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    while (*end == ' ')
        end++;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: break;
    }
    if (shift) {
        end++;
        if (!strcmp(end, "iB") || !strcmp(end, "B") || !strcmp(end, "ib") || !strcmp(end, "b"))
            end += strlen(end);
    } else if (!strcmp(end, "B")) {
        end++;
    }
    if (*end || v > ((uint64_t)INT64_MAX >> shift)) /* sizes stay below 2^63 (TOML integers are signed) */
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

int cuzkd_parse_key_tables(const char *s, int *out)
{
    if (!s)
        return -1;
    if (!strcmp(s, "auto"))
        *out = 0;
    else if (!strcmp(s, "off"))
        *out = -1;
    else if (s[0] >= '2' && s[0] <= '4' && !s[1])
        *out = s[0] - '0';
    else
        return -1;
    return 0;
}

int cuzkd_parse_duration(const char *s, int *out)
{
    if (!s || s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || v < 0)
        return -1;
    long mul = 1;
    if (!strcmp(end, "ms")) {
        v = (v + 999) / 1000;
        end += 2;
    } else if (*end == 's' || *end == 'm' || *end == 'h') {
        mul = *end == 's' ? 1 : *end == 'm' ? 60 : 3600;
        end++;
    }
    if (*end || v > 100000000L / mul)
        return -1;
    *out = (int)(v * mul);
    return 0;
}

/* ---- TOML values ------------------------------------------------------------------------- */

typedef enum { V_STR, V_INT, V_BOOL, V_ARRAY } vtype;

typedef struct tval {
    vtype t;
    char *s;
    long long i;
    bool b;
    struct tval *items;
    int n;
} tval;

static void tval_free(tval *v)
{
    free(v->s);
    for (int k = 0; k < v->n; k++)
        tval_free(&v->items[k]);
    free(v->items);
    memset(v, 0, sizeof *v);
}

typedef struct {
    const char *path;
    char *text;
    const char *p;
    int line;
    char *err;
    size_t errlen;
} parser;

static int perr(parser *ps, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int perr(parser *ps, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rpc_fail(ps->err, ps->errlen, "%s:%d: %s", ps->path, ps->line, msg);
}

static void skip_ws(parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r')
        ps->p++;
}

/* whitespace, comments and newlines (inside arrays) */
static void skip_ws_nl(parser *ps)
{
    for (;;) {
        skip_ws(ps);
        if (*ps->p == '#') {
            while (*ps->p && *ps->p != '\n')
                ps->p++;
        }
        if (*ps->p == '\n') {
            ps->line++;
            ps->p++;
            continue;
        }
        return;
    }
}

static int parse_string(parser *ps, char **out)
{
    char q = *ps->p++;
    size_t cap = 64, n = 0;
    char *s = malloc(cap);
    if (!s)
        return perr(ps, "out of memory");
    for (;;) {
        char ch = *ps->p;
        if (!ch || ch == '\n') {
            free(s);
            return perr(ps, "unterminated string");
        }
        ps->p++;
        if (ch == q)
            break;
        if (q == '"' && ch == '\\') {
            char e = *ps->p;
            if (!e || e == '\n') {
                free(s);
                return perr(ps, "unterminated string");
            }
            ps->p++;
            switch (e) {
            case '"': ch = '"'; break;
            case '\\': ch = '\\'; break;
            case 'n': ch = '\n'; break;
            case 't': ch = '\t'; break;
            default: free(s); return perr(ps, "unsupported escape \\%c", e);
            }
        }
        if (n + 2 > cap) {
            char *ns = realloc(s, cap *= 2);
            if (!ns) {
                free(s);
                return perr(ps, "out of memory");
            }
            s = ns;
        }
        s[n++] = ch;
    }
    s[n] = 0;
    *out = s;
    return 0;
}

static int parse_value(parser *ps, tval *v, int depth)
{
    memset(v, 0, sizeof *v);
    skip_ws(ps);
    char ch = *ps->p;
    if (ch == '"' || ch == '\'') {
        v->t = V_STR;
        return parse_string(ps, &v->s);
    }
    if (ch == '[') {
        if (depth > 0)
            return perr(ps, "nested arrays are not supported");
        ps->p++;
        v->t = V_ARRAY;
        for (;;) {
            skip_ws_nl(ps);
            if (*ps->p == ']') {
                ps->p++;
                return 0;
            }
            tval *ni = realloc(v->items, (size_t)(v->n + 1) * sizeof *ni);
            if (!ni)
                return perr(ps, "out of memory");
            v->items = ni;
            if (parse_value(ps, &v->items[v->n], depth + 1) != 0)
                return -1;
            v->n++;
            skip_ws_nl(ps);
            if (*ps->p == ',') {
                ps->p++;
                continue;
            }
            if (*ps->p != ']')
                return perr(ps, "expected ',' or ']' in an array");
        }
    }
    if (!strncmp(ps->p, "true", 4) || !strncmp(ps->p, "false", 5)) {
        v->t = V_BOOL;
        v->b = ps->p[0] == 't';
        ps->p += v->b ? 4 : 5;
        return 0;
    }
    if (ch == '-' || ch == '+' || (ch >= '0' && ch <= '9')) {
        char digits[64];
        size_t n = 0;
        const char *q = ps->p;
        while ((isalnum((unsigned char)*q) || *q == '_' || *q == '-' || *q == '+') && n < sizeof digits - 1) {
            if (*q != '_')
                digits[n++] = *q;
            q++;
        }
        digits[n] = 0;
        int base = 10;
        const char *d = digits;
        bool neg = false;
        if (*d == '-' || *d == '+')
            neg = *d++ == '-';
        if (!strncmp(d, "0x", 2))
            base = 16, d += 2;
        else if (!strncmp(d, "0o", 2))
            base = 8, d += 2;
        else if (!strncmp(d, "0b", 2))
            base = 2, d += 2;
        errno = 0;
        char *end = (char *)d;
        long long x =
            isalnum((unsigned char)*d) ? strtoll(d, &end, base) : 0; /* one sign, before the prefix */
        if (errno || *end || end == d)
            return perr(ps, "'%s' is not an integer", digits);
        v->t = V_INT;
        v->i = neg ? -x : x;
        ps->p = q;
        return 0;
    }
    return perr(ps, "expected a value (string, integer, boolean or array)");
}

/* ---- keys -------------------------------------------------------------------------------- */

typedef enum {
    K_IGNORED,
    K_LISTEN,
    K_STR,
    K_SIZE,
    K_DURATION,
    K_INT,
    K_MODE,
    K_LEVEL,
    K_FORMAT,
    K_BACKEND,
    K_EVAL,
    K_BUDGET,
    K_DEVICES,
    K_DEVICE_IDS,
    K_PRELOAD,
    K_U64,
    K_TABLES,  /* engine.key_tables: 2..4, "off" (-1) or "auto" (0) */
    K_NOT_BOOL /* a boolean stored negated (the field says what false turns on) */
} kkind;

typedef struct {
    const char *name; /* table.key */
    kkind kind;
    size_t off;       /* field offset */
    long long lo, hi; /* K_INT bounds */
    const char *why;  /* K_IGNORED: why */
} keydef;

#define F(f) offsetof(cuzkd_config, f)

static const keydef KEYS[] = {
    {"daemon.listen", K_LISTEN, 0, 0, 0, NULL},
    {"daemon.status_listen", K_STR, F(status_listen), 0, 0, NULL},
    {"daemon.socket_mode", K_MODE, F(socket_mode), 0, 0, NULL},
    {"logging.level", K_LEVEL, F(log_level), 0, 0, NULL},
    {"logging.format", K_FORMAT, F(log_json), 0, 0, NULL},
    {"logging.file", K_STR, F(log_file), 0, 0, NULL},
    {"memory.total_budget", K_BUDGET, F(budget), 0, 0, NULL},
    {"memory.safety_margin", K_SIZE, F(safety_margin), 0, 0, NULL},
    {"memory.eviction_min_idle", K_IGNORED, 0, 0, 0, "keys are unloaded only by EvictSRS"},
    {"memory.pinned_budget", K_IGNORED, 0, 0, 0, "deprecated; memory.total_budget covers everything"},
    {"memory.working_memory_budget", K_IGNORED, 0, 0, 0, "deprecated; memory.total_budget covers everything"},
    {"gpus.devices", K_DEVICES, F(devices), 0, 0, NULL},
    {"gpus.gpu_threads", K_INT, F(gpu_threads), 0, 4096, NULL},
    {"gpus.gpu_workers_per_device", K_INT, F(gpu_workers), 0, 64, NULL},
    {"gpus.backend", K_BACKEND, F(backend), 0, 0, NULL},
    {"gpus.key_vram", K_BUDGET, F(key_vram), 0, 0, NULL},
    {"gpus.key_tables", K_TABLES, F(key_tables), 0, 0, NULL},
    {"engine.devices", K_INT, F(devices), 0, 64, NULL},
    {"engine.device_ids", K_DEVICE_IDS, F(device_mask), 0, 0, NULL},
    {"engine.gpu_workers", K_INT, F(gpu_workers), 0, 64, NULL},
    {"engine.gpu_threads", K_INT, F(gpu_threads), 0, 4096, NULL},
    {"engine.eval_threads", K_INT, F(eval_threads), 0, 4096, NULL},
    {"engine.synth_workers", K_INT, F(synth_workers), 0, 1024, NULL},
    {"engine.post_workers", K_INT, F(post_workers), 0, 1024, NULL},
    {"engine.queue_depth", K_INT, F(queue_depth), 0, 65536, NULL},
    {"engine.backend", K_BACKEND, F(backend), 0, 0, NULL},
    {"engine.eval", K_EVAL, F(eval), 0, 0, NULL},
    {"engine.key_vram", K_BUDGET, F(key_vram), 0, 0, NULL},
    {"engine.key_tables", K_TABLES, F(key_tables), 0, 0, NULL},
    {"engine.zpack", K_NOT_BOOL, F(no_zpack), 0, 0, NULL},
    {"engine.exit_on_device_lost", K_NOT_BOOL, F(stay_without_device), 0, 0, NULL},
    {"pipeline.max_parallel_synthesis", K_INT, F(synth_workers), 0, 1024, NULL},
    {"pipeline.max_gpu_queue_depth", K_INT, F(queue_depth), 0, 65536, NULL},
    {"pipeline.enabled", K_IGNORED, 0, 0, 0, "the partition pipeline is the only mode"},
    {"pipeline.synthesis_lookahead", K_IGNORED, 0, 0, 0, "the GPU queue depth bounds look-ahead"},
    {"pipeline.synthesis_concurrency", K_IGNORED, 0, 0, 0, "see engine.synth_workers"},
    {"pipeline.slot_size", K_IGNORED, 0, 0, 0, "no slotted pipeline"},
    {"synthesis.threads", K_IGNORED, 0, 0, 0, "see engine.synth_workers and gpus.gpu_threads"},
    {"synthesis.partition_workers", K_IGNORED, 0, 0, 0, "deprecated; see engine.synth_workers"},
    {"scheduler.max_batch_size", K_IGNORED, 0, 0, 0, "no cross-job batching"},
    {"scheduler.max_batch_wait_ms", K_IGNORED, 0, 0, 0, "no cross-job batching"},
    {"scheduler.sort_by_type", K_IGNORED, 0, 0, 0, "jobs are ordered by priority, then arrival"},
    {"srs.param_cache", K_STR, F(param_cache), 0, 0, NULL},
    {"srs.preload", K_PRELOAD, 0, 0, 0, NULL},
    {"limits.max_message_size", K_SIZE, F(max_message), 0, 0, NULL},
    {"limits.max_buffered_bytes", K_SIZE, F(max_buffered), 0, 0, NULL},
    {"limits.max_input_bytes", K_SIZE, F(max_input_bytes), 0, 0, NULL},
    {"limits.max_connections", K_INT, F(max_connections), 1, 100000, NULL},
    {"limits.max_streams", K_INT, F(max_streams), 1, 100000, NULL},
    {"limits.max_jobs", K_INT, F(max_jobs), 1, 100000, NULL},
    {"limits.max_results", K_INT, F(max_results), 0, 10000000, NULL},
    {"limits.results_ttl", K_DURATION, F(results_ttl_s), 0, 0, NULL},
    {"limits.drain_timeout", K_DURATION, F(drain_timeout_s), 0, 0, NULL},
    {"limits.idle_timeout", K_DURATION, F(idle_timeout_s), 0, 0, NULL},
    {"synthetic.default_scale", K_INT, F(synth_default_scale), 11, 26, NULL},
    {"synthetic.max_scale", K_INT, F(synth_max_scale), 11, 26, NULL},
    {"synthetic.seed", K_U64, F(synth_seed), 1, 0, NULL},
};

static void note(cuzkd_config *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void note(cuzkd_config *c, const char *fmt, ...)
{
    char line[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t old = c->notes ? strlen(c->notes) : 0;
    char *n = realloc(c->notes, old + strlen(line) + 2);
    if (!n)
        return;
    memcpy(n + old, line, strlen(line));
    n[old + strlen(line)] = '\n';
    n[old + strlen(line) + 1] = 0;
    c->notes = n;
}

static const char *vname(vtype t)
{
    return t == V_STR ? "a string" : t == V_INT ? "an integer" : t == V_BOOL ? "a boolean" : "an array";
}

static int set_key(parser *ps, cuzkd_config *c, const char *table, const char *key, tval *v)
{
    char full[256];
    snprintf(full, sizeof full, "%s%s%s", table, table[0] ? "." : "", key);
    /* [circuits.<id>] params / r1cs */
    if (!strncmp(table, "circuits.", 9)) {
        const char *id = table + 9;
        if (strcmp(key, "params") != 0 && strcmp(key, "r1cs") != 0)
            return perr(ps, "unknown key '%s' (a circuit has params and r1cs)", full);
        if (v->t != V_STR)
            return perr(ps, "%s must be a string, not %s", full, vname(v->t));
        char e[200];
        int rc = cuzkd_config_add_circuit(c, id, !strcmp(key, "params") ? v->s : NULL,
                                          !strcmp(key, "r1cs") ? v->s : NULL, e, sizeof e);
        return rc ? perr(ps, "%s", e) : 0;
    }
    const keydef *k = NULL;
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
        if (!strcmp(KEYS[i].name, full))
            k = &KEYS[i];
    if (!k)
        return perr(ps, "unknown key '%s' (docs/daemon.md lists the keys)", full);
    char *field = (char *)c + k->off;
    switch (k->kind) {
    case K_IGNORED: note(c, "config: %s is accepted and ignored: %s", full, k->why); return 0;
    case K_LISTEN: {
        cuzkd_config_clear_listen(c);
        int n = v->t == V_ARRAY ? v->n : 1;
        for (int i = 0; i < n; i++) {
            tval *it = v->t == V_ARRAY ? &v->items[i] : v;
            if (it->t != V_STR)
                return perr(ps, "%s must be a string or an array of strings", full);
            char e[200];
            if (cuzkd_config_add_listen(c, it->s, e, sizeof e) != 0)
                return perr(ps, "%s", e);
        }
        return 0;
    }
    case K_PRELOAD: {
        if (v->t != V_ARRAY)
            return perr(ps, "%s must be an array of circuit ids", full);
        for (int i = 0; i < v->n; i++) {
            if (v->items[i].t != V_STR)
                return perr(ps, "%s must be an array of strings", full);
            char **np = realloc(c->preload, (size_t)(c->n_preload + 1) * sizeof *np);
            if (!np)
                return perr(ps, "out of memory");
            c->preload = np;
            c->preload[c->n_preload++] = xstrdup(v->items[i].s);
        }
        return 0;
    }
    case K_STR: {
        if (v->t != V_STR)
            return perr(ps, "%s must be a string, not %s", full, vname(v->t));
        char **dst = (char **)field;
        free(*dst);
        *dst = v->s[0] ? xstrdup(v->s) : NULL;
        if (!strcmp(full, "daemon.status_listen") && *dst) {
            rpc_addr a;
            char e[200];
            if (rpc_addr_parse(*dst, &a, e, sizeof e) != 0)
                return perr(ps, "%s", e);
        }
        return 0;
    }
    case K_SIZE:
    case K_BUDGET: {
        /* 0 is a size only for the safety margin; a budget's 0 is written "auto" */
        uint64_t x = 0;
        bool is_auto = v->t == V_STR && k->kind == K_BUDGET && !strcmp(v->s, "auto");
        bool ok = v->t == V_INT ? v->i >= 0 && (x = (uint64_t)v->i, true)
                                : is_auto || (v->t == V_STR && cuzkd_parse_size(v->s, &x) == 0);
        if (!ok || (x == 0 && !is_auto && strcmp(full, "memory.safety_margin")))
            return perr(ps, "%s must be a size such as 4096, \"512MiB\" or \"64GiB\"%s", full,
                        k->kind == K_BUDGET ? " (or \"auto\")" : "");
        *(uint64_t *)field = x;
        return 0;
    }
    case K_DURATION: {
        int x;
        if (v->t == V_INT && v->i >= 0 && v->i < 100000000)
            x = (int)v->i;
        else if (v->t != V_STR || cuzkd_parse_duration(v->s, &x) != 0)
            return perr(ps, "%s must be a duration such as 30, \"30s\" or \"5m\"", full);
        *(int *)field = x;
        return 0;
    }
    case K_INT:
        if (v->t != V_INT || v->i < k->lo || v->i > k->hi)
            return perr(ps, "%s must be an integer from %lld to %lld", full, k->lo, k->hi);
        if (k->off == F(synth_default_scale) || k->off == F(synth_max_scale))
            *(unsigned *)field = (unsigned)v->i;
        else
            *(int *)field = (int)v->i;
        return 0;
    case K_U64:
        if (v->t != V_INT || v->i < k->lo)
            return perr(ps, "%s must be a positive integer", full);
        *(uint64_t *)field = (uint64_t)v->i;
        return 0;
    case K_TABLES:
        if (v->t == V_INT && v->i >= 2 && v->i <= 4)
            *(int *)field = (int)v->i;
        else if (v->t != V_STR || cuzkd_parse_key_tables(v->s, (int *)field) != 0)
            return perr(ps, "%s must be 2, 3 or 4 (the largest k), \"off\" or \"auto\"", full);
        return 0;
    case K_MODE: {
        long long m = -1;
        if (v->t == V_INT)
            m = v->i; /* 0o660 in TOML is octal already */
        else if (v->t == V_STR) {
            char *end;
            m = strtoll(v->s, &end, 8);
            if (*end || !v->s[0])
                m = -1;
        }
        if (m < 0 || m > 0777)
            return perr(ps, "%s must be an octal mode such as \"0660\" or 0o660", full);
        *(unsigned *)field = (unsigned)m;
        return 0;
    }
    case K_LEVEL: {
        int l = v->t == V_STR ? cuzkd_log_level_parse(v->s) : -1;
        if (l < 0)
            return perr(ps, "%s must be \"debug\", \"info\", \"warn\" or \"error\"", full);
        *(int *)field = l;
        return 0;
    }
    case K_FORMAT:
        if (v->t != V_STR || (strcmp(v->s, "text") && strcmp(v->s, "json")))
            return perr(ps, "%s must be \"text\" or \"json\"", full);
        *(bool *)field = !strcmp(v->s, "json");
        return 0;
    case K_BACKEND:
        if (v->t != V_STR || (strcmp(v->s, "auto") && strcmp(v->s, "cpu") && strcmp(v->s, "gpu")))
            return perr(ps, "%s must be \"auto\", \"cpu\" or \"gpu\"", full);
        strcpy(field, v->s);
        return 0;
    case K_NOT_BOOL:
        if (v->t != V_BOOL)
            return perr(ps, "%s must be true or false", full);
        *(bool *)field = !v->b;
        return 0;
    case K_EVAL:
        if (v->t != V_STR || (strcmp(v->s, "auto") && strcmp(v->s, "host") && strcmp(v->s, "device")))
            return perr(ps, "%s must be \"auto\", \"host\" or \"device\"", full);
        strcpy(field, v->s);
        return 0;
    case K_DEVICES:
        /* the original lists device ordinals ([] = all); a count is taken too */
        if (v->t == V_ARRAY) {
            uint64_t m = 0;
            for (int i = 0; i < v->n; i++) {
                const tval *d = &v->items[i];
                if (d->t != V_INT || d->i < 0 || d->i > 63 || (m >> d->i & 1))
                    return perr(ps, "%s: a list of distinct device numbers 0..63 such as [0, 1] or [1, 3]",
                                full);
                m |= (uint64_t)1 << d->i;
            }
            *(int *)field = v->n;
            c->device_mask = m;
            return 0;
        }
        if (v->t == V_INT && v->i >= 0 && v->i <= 64) {
            *(int *)field = (int)v->i;
            c->device_mask = 0;
            return 0;
        }
        return perr(ps, "%s must be a device count or a list of device numbers such as [0, 1] or [1, 3]",
                    full);
    case K_DEVICE_IDS:
        if (v->t != V_STR || cuzk_engine_device_list_parse(v->s, (uint64_t *)field) != CUZK_OK)
            return perr(ps, "%s must be a list of distinct device numbers 0..63 such as \"1,3\" or \"0-3\"",
                        full);
        return 0;
    }
    return 0;
}

static int parse_table(parser *ps, char *table, size_t tlen)
{
    ps->p++; /* [ */
    if (*ps->p == '[')
        return perr(ps, "arrays of tables ([[...]]) are not supported");
    size_t n = 0;
    for (;;) {
        skip_ws(ps);
        char part[128];
        if (*ps->p == '"' || *ps->p == '\'') {
            char *s;
            if (parse_string(ps, &s) != 0)
                return -1;
            snprintf(part, sizeof part, "%s", s);
            free(s);
        } else {
            size_t k = 0;
            while (isalnum((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '-') {
                if (k < sizeof part - 1)
                    part[k++] = *ps->p;
                ps->p++;
            }
            part[k] = 0;
            if (!k)
                return perr(ps, "bad table name");
        }
        size_t pl = strlen(part);
        if (n + pl + 2 > tlen)
            return perr(ps, "table name too long");
        if (n)
            table[n++] = '.';
        memcpy(table + n, part, pl);
        n += pl;
        table[n] = 0;
        skip_ws(ps);
        if (*ps->p == '.') {
            ps->p++;
            continue;
        }
        if (*ps->p != ']')
            return perr(ps, "expected ']' after the table name");
        ps->p++;
        return 0;
    }
}

int cuzkd_config_load(cuzkd_config *c, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return rpc_fail(err, errlen, "config %s: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *text = malloc(cap);
    for (size_t r; text && (r = fread(text + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            char *nt = cap > (16u << 20) ? NULL : realloc(text, cap *= 2);
            if (!nt) {
                free(text);
                text = NULL;
            } else {
                text = nt;
            }
        }
    }
    bool rerr = ferror(f);
    fclose(f);
    if (!text || rerr) {
        free(text);
        return rpc_fail(err, errlen, "config %s: cannot read it (or larger than 16 MiB)", path);
    }
    int rc = cuzkd_config_parse(c, path, text, n, err, errlen);
    free(text);
    return rc;
}

int cuzkd_config_parse(cuzkd_config *c, const char *name, const char *data, size_t n, char *err,
                       size_t errlen)
{
    if (memchr(data, 0, n))
        return rpc_fail(err, errlen, "config %s: contains a NUL byte", name);
    char *text = malloc(n + 1);
    if (!text)
        return rpc_fail(err, errlen, "config %s: out of memory", name);
    memcpy(text, data, n);
    text[n] = 0;
    parser ps = {.path = name, .text = text, .p = text, .line = 1, .err = err, .errlen = errlen};
    char table[256] = "";
    int rc = 0;
    while (rc == 0 && *ps.p) {
        skip_ws(&ps);
        char ch = *ps.p;
        if (ch == '#') {
            while (*ps.p && *ps.p != '\n')
                ps.p++;
        } else if (ch == '\n') {
            /* end of line below */
        } else if (!ch) {
            break;
        } else if (ch == '[') {
            if ((rc = parse_table(&ps, table, sizeof table)) != 0)
                break;
        } else {
            char key[128];
            size_t k = 0;
            if (ch == '"' || ch == '\'') {
                char *s;
                if ((rc = parse_string(&ps, &s)) != 0)
                    break;
                snprintf(key, sizeof key, "%s", s);
                free(s);
            } else {
                while (isalnum((unsigned char)*ps.p) || *ps.p == '_' || *ps.p == '-') {
                    if (k < sizeof key - 1)
                        key[k++] = *ps.p;
                    ps.p++;
                }
                key[k] = 0;
                if (!k) {
                    rc = perr(&ps, "expected a key, a [table] or a comment");
                    break;
                }
            }
            skip_ws(&ps);
            if (*ps.p == '.') {
                rc = perr(&ps, "dotted keys are not supported: use a [table]");
                break;
            }
            if (*ps.p != '=') {
                rc = perr(&ps, "expected '=' after '%s'", key);
                break;
            }
            ps.p++;
            tval v;
            if ((rc = parse_value(&ps, &v, 0)) == 0)
                rc = set_key(&ps, c, table, key, &v);
            tval_free(&v);
            if (rc)
                break;
        }
        skip_ws(&ps);
        if (*ps.p == '#')
            while (*ps.p && *ps.p != '\n')
                ps.p++;
        if (*ps.p == '\n') {
            ps.p++;
            ps.line++;
        } else if (*ps.p) {
            rc = perr(&ps, "unexpected text after the value");
        }
    }
    free(text);
    return rc;
}

int cuzkd_config_check(const cuzkd_config *c, char *err, size_t errlen)
{
    if (c->n_listen == 0)
        return rpc_fail(err, errlen, "no listen address (daemon.listen or --listen)");
    for (int i = 0; i < c->n_circuits; i++)
        if (!c->circuits[i].params || !c->circuits[i].r1cs)
            return rpc_fail(err, errlen, "circuit '%s' needs both params and r1cs", c->circuits[i].id);
    if (c->synth_default_scale > c->synth_max_scale)
        return rpc_fail(err, errlen, "synthetic.default_scale %u is above synthetic.max_scale %u",
                        c->synth_default_scale, c->synth_max_scale);
    if (c->max_message < 1024 || c->max_message > ((uint64_t)1 << 31))
        return rpc_fail(err, errlen, "limits.max_message_size must be from 1 KiB to 2 GiB");
    for (int i = 0; c->log_file && i < c->n_circuits; i++) { /* log lines appended to a key would ruin it */
        const char *files[2] = {c->circuits[i].params, c->circuits[i].r1cs};
        for (int k = 0; k < 2; k++) {
            char *p = cuzkd_config_path(c, files[k]);
            bool same = p && cuzk_same_file(c->log_file, p);
            free(p);
            if (same)
                return rpc_fail(err, errlen,
                                "logging.file %s is the %s file of circuit '%s': the log would write into it",
                                c->log_file, k ? "r1cs" : "params", c->circuits[i].id);
        }
    }
    return 0;
}

char *cuzkd_config_path(const cuzkd_config *c, const char *p)
{
    char *out;
    if (p[0] == '/' || !c->param_cache)
        out = strdup(p);
    else if (asprintf(&out, "%s/%s", c->param_cache, p) < 0)
        out = NULL;
    return out;
}

/* s (NULL: "") as a basic string the reader takes back: quotes, backslashes, newlines and tabs escaped. */
static void put_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        switch (*s) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        default: fputc(*s, f);
        }
    }
    fputc('"', f);
}

void cuzkd_config_print(FILE *f, const cuzkd_config *c)
{
    static const char *const levels[] = {"debug", "info", "warn", "error"};
    fprintf(f, "[daemon]\nlisten = [");
    for (int i = 0; i < c->n_listen; i++) {
        fputs(i ? ", " : "", f);
        put_str(f, c->listen[i]);
    }
    fputs("]\nstatus_listen = ", f);
    put_str(f, c->status_listen);
    fprintf(f, "\nsocket_mode = \"%04o\"\n\n", c->socket_mode);
    fprintf(f, "[logging]\nlevel = \"%s\"\nformat = \"%s\"\nfile = ", levels[c->log_level],
            c->log_json ? "json" : "text");
    put_str(f, c->log_file);
    fputs("\n\n", f);
    if (c->budget)
        fprintf(f, "[memory]\ntotal_budget = %llu\n", (unsigned long long)c->budget);
    else
        fprintf(f, "[memory]\ntotal_budget = \"auto\"\n");
    fprintf(f, "safety_margin = %llu\n\n", (unsigned long long)c->safety_margin);
    fprintf(f,
            "[engine]\nbackend = \"%s\"\neval = \"%s\"\ndevices = %d\ngpu_workers = %d\ngpu_threads = %d\n"
            "eval_threads = %d\nsynth_workers = %d\npost_workers = %d\nqueue_depth = %d\n",
            c->backend, c->eval, c->devices, c->gpu_workers, c->gpu_threads, c->eval_threads,
            c->synth_workers, c->post_workers, c->queue_depth);
    if (c->device_mask) {
        char ids[256];
        cuzk_engine_device_list_format(c->device_mask, ids, sizeof ids);
        fprintf(f, "device_ids = \"%s\"\n", ids);
    }
    fprintf(f, "zpack = %s\n", c->no_zpack ? "false" : "true");
    fprintf(f, "exit_on_device_lost = %s\n", c->stay_without_device ? "false" : "true");
    if (c->key_vram)
        fprintf(f, "key_vram = %llu\n", (unsigned long long)c->key_vram);
    else
        fprintf(f, "key_vram = \"auto\"\n");
    if (c->key_tables > 0)
        fprintf(f, "key_tables = %d\n\n", c->key_tables);
    else
        fprintf(f, "key_tables = \"%s\"\n\n", c->key_tables ? "off" : "auto");
    fprintf(f,
            "[limits]\nmax_message_size = %llu\nmax_buffered_bytes = %llu\nmax_input_bytes = %llu\n"
            "max_connections = %d\nmax_streams = %d\nmax_jobs = %d\nmax_results = %d\nresults_ttl = %d\n"
            "drain_timeout = %d\nidle_timeout = %d\n\n",
            (unsigned long long)c->max_message, (unsigned long long)c->max_buffered,
            (unsigned long long)c->max_input_bytes, c->max_connections, c->max_streams, c->max_jobs,
            c->max_results, c->results_ttl_s, c->drain_timeout_s, c->idle_timeout_s);
    fputs("[srs]\nparam_cache = ", f);
    put_str(f, c->param_cache);
    fputs("\npreload = [", f);
    for (int i = 0; i < c->n_preload; i++) {
        fputs(i ? ", " : "", f);
        put_str(f, c->preload[i]);
    }
    fprintf(f, "]\n\n[synthetic]\ndefault_scale = %u\nmax_scale = %u\nseed = %llu\n", c->synth_default_scale,
            c->synth_max_scale, (unsigned long long)c->synth_seed);
    for (int i = 0; i < c->n_circuits; i++) { /* ids are letters, digits, '-', '_' and '.': bare */
        fprintf(f, "\n[circuits.%s]\nparams = ", c->circuits[i].id);
        put_str(f, c->circuits[i].params);
        fputs("\nr1cs = ", f);
        put_str(f, c->circuits[i].r1cs);
        fputc('\n', f);
    }
}
