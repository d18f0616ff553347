/*
 * remote.c — `cuzk-bench --addr ADDR <command>`: drive a running cuzkd over gRPC (docs/daemon.md).
 *
 *   single  [job options]             one Prove call; prints the job's outcome and timings
 *   batch   -c N -j M [job options]   N Prove calls from M client threads (one connection each);
 *                                     prints per-proof lines and a throughput / latency summary
 *   status                            GetStatus, readable
 *   preload -c ID                     PreloadSRS
 *   metrics                           GetMetrics (Prometheus text)
 *
 * Job options: -t/--type synth-porep (default) | circuit | porep | snap | wpost | winning (the last four
 * are the Filecoin kinds, which cuzkd answers UNIMPLEMENTED for now), --scale LG and --partitions N
 * (synth-porep), --circuit ID and --wtns FILE (circuit: the witness file is sent as is), --priority P,
 * --request-id ID (single), --out FILE (single: the proof bytes). Exit status: 0 every call succeeded
 * and every proof was delivered, 1 a call or a proof failed, 2 a usage error.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#ifdef CUZK_HAVE_RPC
#include "cuzk/v1/proving.pb-c.h"
#include "rpc.h"

#define SVC "/cuzk.v1.ProvingEngine/"

typedef struct {
    const char *addr, *cmd;
    int kind;
    unsigned scale, partitions;
    const char *circuit, *wtns, *request_id, *out;
    int priority;
    unsigned count, concurrency;
    uint8_t *wtns_bytes;
    size_t wtns_len;
} remote_opts;

static int remote_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "cuzk-bench: --addr: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nUsage: cuzk-bench --addr ADDR single|batch|status|preload|metrics [options]\n"
                    "Run `cuzk-bench --addr ADDR --help` for details.\n");
    return BENCH_USAGE;
}

static void remote_help(void)
{
    printf(
        "Usage: cuzk-bench --addr ADDR <command> [options]\n\n"
        "Drives a running cuzkd (unix:///path or host:port) over gRPC (cuzk.v1.ProvingEngine).\n\n"
        "Commands:\n"
        "  single             one Prove call\n"
        "  batch -c N -j M    N Prove calls from M concurrent clients\n"
        "  status             GetStatus\n"
        "  preload -c ID      PreloadSRS of a circuit id (synth-porep-<LG> or a registered one)\n"
        "  metrics            GetMetrics\n\n"
        "Job options (single, batch):\n"
        "  -t, --type T       synth-porep (default), circuit, or porep|snap|wpost|winning (Filecoin kinds)\n"
        "  --scale LG         synth-porep: log2 of the circuit's domain, 11..26 (daemon default if absent)\n"
        "  --partitions N     synth-porep: partitions per proof (default 10)\n"
        "  --circuit ID       circuit: the registered circuit id\n"
        "  --wtns FILE        circuit: the snarkjs witness, sent as is\n"
        "  --priority P       low, normal, high or critical\n"
        "  --request-id ID    single: the job id to use\n"
        "  --out FILE         single: write the proof bytes (192 per partition)\n"
        "  -c, --count N      batch: proofs (default 4)\n"
        "  -j, --concurrency M  batch: clients (default 2)\n");
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One call on an open client: packs req, unpacks the answer with desc. NULL on any failure (printed). */
static ProtobufCMessage *remote_call(rpc_client *cl, const char *method, const ProtobufCMessage *req,
                                     const ProtobufCMessageDescriptor *desc, int *code)
{
    size_t n = protobuf_c_message_get_packed_size(req);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        bench_error("out of memory");
        return NULL;
    }
    protobuf_c_message_pack(req, buf);
    char msg[512], err[512];
    uint8_t *resp = NULL;
    size_t rlen = 0;
    int st = -1;
    int rc = rpc_client_call(cl, method, buf, n, 0, &st, msg, sizeof msg, &resp, &rlen, err, sizeof err);
    free(buf);
    *code = st;
    if (rc != 0) {
        bench_error("%s: %s", method + strlen(SVC), err);
        return NULL;
    }
    if (st != RPC_OK) {
        bench_error("%s: %s: %s", method + strlen(SVC), rpc_status_name(st), msg);
        return NULL;
    }
    ProtobufCMessage *m = protobuf_c_message_unpack(desc, NULL, rlen, resp);
    free(resp);
    if (!m)
        bench_error("%s: the answer is not a valid %s", method + strlen(SVC), desc->short_name);
    return m;
}

static rpc_client *remote_open(const char *addr)
{
    rpc_client *cl;
    char err[512];
    if (rpc_client_open(&cl, addr, err, sizeof err) != 0) {
        bench_error("%s", err);
        return NULL;
    }
    return cl;
}

static void fill_submit(const remote_opts *o, Cuzk__V1__SubmitProofRequest *s, const char *request_id)
{
    s->proof_kind = o->kind;
    s->priority = o->priority;
    s->request_id = (char *)(request_id ? request_id : "");
    if (o->kind == CUZK__V1__PROOF_KIND__SYNTH_POREP) {
        s->porep_scale = o->scale;
        s->num_partitions = o->partitions;
    } else if (o->kind == CUZK__V1__PROOF_KIND__GROTH16_CIRCUIT) {
        s->circuit_id = (char *)o->circuit;
        s->vanilla_proof.data = o->wtns_bytes;
        s->vanilla_proof.len = o->wtns_len;
    }
}

typedef struct {
    double latency, prove_s, queue_s;
    bool ok;
} proof_stat;

/* One Prove; fills st; returns the response (or NULL). */
static Cuzk__V1__ProveResponse *prove_once(rpc_client *cl, const remote_opts *o, const char *rid,
                                           proof_stat *st)
{
    Cuzk__V1__SubmitProofRequest s = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
    fill_submit(o, &s, rid);
    Cuzk__V1__ProveRequest p = CUZK__V1__PROVE_REQUEST__INIT;
    p.submit = &s;
    int code;
    double t0 = mono();
    Cuzk__V1__ProveResponse *r = (Cuzk__V1__ProveResponse *)remote_call(
        cl, SVC "Prove", &p.base, &cuzk__v1__prove_response__descriptor, &code);
    st->latency = mono() - t0;
    st->ok = r && r->result && r->result->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
    if (r && r->result) {
        st->prove_s = (double)r->result->gpu_compute_ms / 1000.0;
        st->queue_s = (double)r->result->queue_wait_ms / 1000.0;
        if (!st->ok)
            bench_error("job %s: %s: %s", r->result->job_id,
                        protobuf_c_enum_descriptor_get_value(
                            &cuzk__v1__await_proof_response__status__descriptor, r->result->status)
                            ? protobuf_c_enum_descriptor_get_value(
                                  &cuzk__v1__await_proof_response__status__descriptor, r->result->status)
                                  ->name
                            : "?",
                        r->result->error_message);
    }
    return r;
}

static int cmd_single(const remote_opts *o)
{
    bench_out out = {0}; /* atomic: the whole proof or no file; a bad destination fails before the request */
    if (o->out && bench_out_open(&out, o->out) != BENCH_OK)
        return BENCH_FAIL;
    rpc_client *cl = remote_open(o->addr);
    if (!cl) {
        bench_out_abort(&out);
        return BENCH_FAIL;
    }
    proof_stat st;
    Cuzk__V1__ProveResponse *r = prove_once(cl, o, o->request_id, &st);
    int rc = st.ok ? BENCH_OK : BENCH_FAIL;
    if (st.ok) {
        const Cuzk__V1__AwaitProofResponse *a = r->result;
        printf("job          %s\nstatus       COMPLETED\nproof        %zu bytes (%u partitions, verified by "
               "the daemon)\n"
               "wall         %.3f s\ndaemon       total %llu ms, queue %llu ms, load %llu ms, synthesis %llu "
               "ms, "
               "prove %llu ms\n",
               a->job_id, a->proof.len, a->num_partitions, st.latency, (unsigned long long)a->total_ms,
               (unsigned long long)a->queue_wait_ms, (unsigned long long)a->srs_load_ms,
               (unsigned long long)a->synthesis_ms, (unsigned long long)a->gpu_compute_ms);
        if (out.f) {
            fwrite(a->proof.data, 1, a->proof.len, out.f); /* a short write shows at the commit */
            rc = bench_out_commit(&out);
        }
    }
    bench_out_abort(&out); /* no-op after a commit */
    if (r)
        protobuf_c_message_free_unpacked(&r->base, NULL);
    rpc_client_close(cl);
    return rc;
}

typedef struct {
    const remote_opts *o;
    pthread_mutex_t mu;
    unsigned next, done;
    proof_stat *stats;
    bool conn_failed;
} batch_state;

static void *batch_worker(void *arg)
{
    batch_state *b = arg;
    rpc_client *cl = remote_open(b->o->addr);
    if (!cl) {
        pthread_mutex_lock(&b->mu);
        b->conn_failed = true;
        pthread_mutex_unlock(&b->mu);
        return NULL;
    }
    for (;;) {
        pthread_mutex_lock(&b->mu);
        unsigned i = b->next < b->o->count ? b->next++ : b->o->count;
        pthread_mutex_unlock(&b->mu);
        if (i >= b->o->count)
            break;
        proof_stat st;
        Cuzk__V1__ProveResponse *r = prove_once(cl, b->o, NULL, &st);
        if (r)
            protobuf_c_message_free_unpacked(&r->base, NULL);
        b->stats[i] = st;
        fprintf(stderr, "cuzk-bench: proof %u/%u %s  wall %.3f s  prove %.3f s  queue %.3f s\n", i + 1,
                b->o->count, st.ok ? "ok" : "FAILED", st.latency, st.prove_s, st.queue_s);
    }
    rpc_client_close(cl);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmd_batch(const remote_opts *o)
{
    batch_state b = {.o = o};
    pthread_mutex_init(&b.mu, NULL);
    b.stats = calloc(o->count, sizeof *b.stats);
    pthread_t *t = calloc(o->concurrency, sizeof *t);
    if (!b.stats || !t) {
        free(b.stats);
        free(t);
        bench_error("out of memory");
        return BENCH_FAIL;
    }
    double t0 = mono();
    unsigned started = 0;
    for (unsigned i = 0; i < o->concurrency; i++, started++)
        if (pthread_create(&t[i], NULL, batch_worker, &b) != 0)
            break;
    for (unsigned i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    double wall = mono() - t0;
    unsigned ok = 0;
    double *lat = calloc(o->count, sizeof *lat);
    double psum = 0, pmin = 1e30, pmax = 0;
    for (unsigned i = 0; i < o->count; i++) {
        if (b.stats[i].ok) {
            lat[ok++] = b.stats[i].latency;
            psum += b.stats[i].prove_s;
            pmin = b.stats[i].prove_s < pmin ? b.stats[i].prove_s : pmin;
            pmax = b.stats[i].prove_s > pmax ? b.stats[i].prove_s : pmax;
        }
    }
    printf("proofs       %u submitted, %u completed, %u failed (%u clients)\n", o->count, ok, o->count - ok,
           o->concurrency);
    printf("wall         %.3f s\n", wall);
    if (ok && lat) {
        qsort(lat, ok, sizeof *lat, cmp_double);
        double lsum = 0;
        for (unsigned i = 0; i < ok; i++)
            lsum += lat[i];
        printf("throughput   %.3f s/proof, %.1f proofs/min\n", wall / ok, ok * 60.0 / wall);
        printf("latency      avg %.3f s, p50 %.3f s, max %.3f s, min %.3f s\n", lsum / ok, lat[ok / 2],
               lat[ok - 1], lat[0]);
        printf("prove        avg %.3f s, min %.3f s, max %.3f s (daemon-side device phase)\n", psum / ok,
               pmin, pmax);
    }
    bool fail = ok != o->count || b.conn_failed;
    free(lat);
    free(b.stats);
    free(t);
    pthread_mutex_destroy(&b.mu);
    return fail ? BENCH_FAIL : BENCH_OK;
}

static int cmd_status(const remote_opts *o)
{
    rpc_client *cl = remote_open(o->addr);
    if (!cl)
        return BENCH_FAIL;
    Cuzk__V1__GetStatusRequest rq = CUZK__V1__GET_STATUS_REQUEST__INIT;
    int code;
    Cuzk__V1__GetStatusResponse *r = (Cuzk__V1__GetStatusResponse *)remote_call(
        cl, SVC "GetStatus", &rq.base, &cuzk__v1__get_status_response__descriptor, &code);
    rpc_client_close(cl);
    if (!r)
        return BENCH_FAIL;
    printf("daemon       cuzkd %s, %s backend, up %llu s\n", r->version, r->backend,
           (unsigned long long)r->uptime_seconds);
    printf("proofs       %llu completed, %llu failed, %llu cancelled; %llu partitions completed, %llu in "
           "flight\n",
           (unsigned long long)r->total_proofs_completed, (unsigned long long)r->total_proofs_failed,
           (unsigned long long)r->total_proofs_cancelled, (unsigned long long)r->partitions_completed,
           (unsigned long long)r->partitions_in_flight);
    printf("memory       %llu of %llu bytes reserved (keys %llu)\n", (unsigned long long)r->memory_used_bytes,
           (unsigned long long)r->memory_limit_bytes, (unsigned long long)r->memory_keys_bytes);
    printf("gpus         %zu\n", r->n_gpus);
    for (size_t i = 0; i < r->n_gpus; i++)
        printf("  gpu %u      %s, %llu bytes\n", r->gpus[i]->ordinal, r->gpus[i]->name,
               (unsigned long long)r->gpus[i]->vram_total_bytes);
    printf("loaded       %zu circuit%s\n", r->n_loaded_srs, r->n_loaded_srs == 1 ? "" : "s");
    for (size_t i = 0; i < r->n_loaded_srs; i++)
        printf("  %-24s %llu bytes, %u in use\n", r->loaded_srs[i]->circuit_id,
               (unsigned long long)r->loaded_srs[i]->size_bytes, r->loaded_srs[i]->ref_count);
    for (size_t i = 0; i < r->n_queues; i++)
        printf("queue        %-16s %u pending, %u in progress (partitions: %u pending, %u in flight)\n",
               r->queues[i]->proof_kind, r->queues[i]->pending, r->queues[i]->in_progress,
               r->queues[i]->partitions_pending, r->queues[i]->partitions_in_flight);
    printf("results kept %u\n", r->results_retained);
    protobuf_c_message_free_unpacked(&r->base, NULL);
    return BENCH_OK;
}

static int cmd_preload(const remote_opts *o)
{
    rpc_client *cl = remote_open(o->addr);
    if (!cl)
        return BENCH_FAIL;
    Cuzk__V1__PreloadSrsRequest rq = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
    rq.circuit_id = (char *)o->circuit;
    int code;
    Cuzk__V1__PreloadSrsResponse *r = (Cuzk__V1__PreloadSrsResponse *)remote_call(
        cl, SVC "PreloadSRS", &rq.base, &cuzk__v1__preload_srs_response__descriptor, &code);
    rpc_client_close(cl);
    if (!r)
        return BENCH_FAIL;
    if (r->already_loaded)
        printf("%s was already loaded\n", o->circuit);
    else
        printf("%s loaded in %llu ms\n", o->circuit, (unsigned long long)r->load_time_ms);
    protobuf_c_message_free_unpacked(&r->base, NULL);
    return BENCH_OK;
}

static int cmd_metrics(const remote_opts *o)
{
    rpc_client *cl = remote_open(o->addr);
    if (!cl)
        return BENCH_FAIL;
    Cuzk__V1__GetMetricsRequest rq = CUZK__V1__GET_METRICS_REQUEST__INIT;
    int code;
    Cuzk__V1__GetMetricsResponse *r = (Cuzk__V1__GetMetricsResponse *)remote_call(
        cl, SVC "GetMetrics", &rq.base, &cuzk__v1__get_metrics_response__descriptor, &code);
    rpc_client_close(cl);
    if (!r)
        return BENCH_FAIL;
    fputs(r->prometheus_text, stdout);
    protobuf_c_message_free_unpacked(&r->base, NULL);
    return BENCH_OK;
}

static int parse_uint(const char *flag, const char *v, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long x = v ? strtoul(v, &end, 10) : 0;
    if (!v || !v[0] || v[0] == '-' || errno || *end || x < lo || x > hi) {
        fprintf(stderr, "cuzk-bench: --addr: %s expects an integer from %u to %u, not '%s'\n", flag, lo, hi,
                v ? v : "");
        return BENCH_USAGE;
    }
    *out = (unsigned)x;
    return BENCH_OK;
}

static int read_file(const char *path, uint8_t **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        bench_error("%s: %s", path, strerror(errno));
        return BENCH_FAIL;
    }
    size_t cap = 65536, n = 0;
    uint8_t *b = malloc(cap);
    for (size_t r; b && (r = fread(b + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            uint8_t *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                b = NULL;
            } else {
                b = nb;
            }
        }
    }
    bool bad = ferror(f) || !b;
    fclose(f);
    if (bad) {
        free(b);
        bench_error("%s: cannot read it", path);
        return BENCH_FAIL;
    }
    *out = b;
    *len = n;
    return BENCH_OK;
}

const bool bench_have_remote = true;

int bench_remote(int argc, char **argv)
{
    remote_opts o = {.kind = CUZK__V1__PROOF_KIND__SYNTH_POREP, .count = 4, .concurrency = 2};
    int i = 1;
    const char *a = argv[i];
    if (!strncmp(a, "--addr=", 7))
        o.addr = a + 7;
    else if (i + 1 < argc)
        o.addr = argv[++i];
    if (!o.addr || !o.addr[0])
        return remote_usage("%s needs an address (unix:///path or host:port)", a);
    i++;
    if (i >= argc)
        return remote_usage("missing command%s", "");
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
        remote_help();
        return BENCH_OK;
    }
    o.cmd = argv[i++];
    bool job = !strcmp(o.cmd, "single") || !strcmp(o.cmd, "batch");
    if (!job && strcmp(o.cmd, "status") && strcmp(o.cmd, "preload") && strcmp(o.cmd, "metrics"))
        return remote_usage("unknown command '%s'", o.cmd);
    for (; i < argc; i++) {
        const char *f = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int rc = BENCH_OK;
        if (!strcmp(f, "--help") || !strcmp(f, "-h")) {
            remote_help();
            return BENCH_OK;
        }
        if (job && (!strcmp(f, "-t") || !strcmp(f, "--type"))) {
            static const struct {
                const char *n;
                int k;
            } K[] = {{"synth-porep", CUZK__V1__PROOF_KIND__SYNTH_POREP},
                     {"circuit", CUZK__V1__PROOF_KIND__GROTH16_CIRCUIT},
                     {"porep", CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT},
                     {"snap", CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE},
                     {"wpost", CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION},
                     {"winning", CUZK__V1__PROOF_KIND__WINNING_POST}};
            size_t k = 0;
            for (; v && k < sizeof K / sizeof K[0]; k++)
                if (!strcmp(v, K[k].n))
                    break;
            if (!v || k == sizeof K / sizeof K[0])
                return remote_usage(
                    "--type expects synth-porep, circuit, porep, snap, wpost or winning, not '%s'",
                    v ? v : "");
            o.kind = K[k].k;
        } else if (job && !strcmp(f, "--scale")) {
            rc = parse_uint(f, v, 11, 26, &o.scale);
        } else if (job && !strcmp(f, "--partitions")) {
            rc = parse_uint(f, v, 1, 1024, &o.partitions);
        } else if ((job && !strcmp(f, "--circuit")) ||
                   (!strcmp(o.cmd, "preload") && (!strcmp(f, "-c") || !strcmp(f, "--circuit-id")))) {
            if (!v || !v[0])
                return remote_usage("%s needs a circuit id", f);
            o.circuit = v;
        } else if (job && !strcmp(f, "--wtns")) {
            if (!v || !v[0])
                return remote_usage("%s needs a file", f);
            o.wtns = v;
        } else if (job && !strcmp(f, "--priority")) {
            cuzk_engine_prio p;
            if (!v || cuzk_engine_prio_parse(v, &p) != CUZK_OK)
                return remote_usage("--priority expects low, normal, high or critical, not '%s'", v ? v : "");
            o.priority = (int)p + 1;
        } else if (!strcmp(o.cmd, "single") && !strcmp(f, "--request-id")) {
            if (!v || !v[0])
                return remote_usage("%s needs a value", f);
            o.request_id = v;
        } else if (!strcmp(o.cmd, "single") && !strcmp(f, "--out")) {
            if (!v || !v[0])
                return remote_usage("%s needs a file", f);
            o.out = v;
        } else if (!strcmp(o.cmd, "batch") && (!strcmp(f, "-c") || !strcmp(f, "--count"))) {
            rc = parse_uint(f, v, 1, 1000000, &o.count);
        } else if (!strcmp(o.cmd, "batch") && (!strcmp(f, "-j") || !strcmp(f, "--concurrency"))) {
            rc = parse_uint(f, v, 1, 1024, &o.concurrency);
        } else {
            return remote_usage("unknown option '%s' for this command", f);
        }
        if (rc != BENCH_OK)
            return rc;
        i++;
    }
    if (!strcmp(o.cmd, "preload") && !o.circuit)
        return remote_usage("preload needs -c ID%s", "");
    if (o.kind == CUZK__V1__PROOF_KIND__GROTH16_CIRCUIT && (!o.circuit || !o.wtns))
        return remote_usage("--type circuit needs --circuit ID and --wtns FILE%s", "");
    if (job && o.wtns && read_file(o.wtns, &o.wtns_bytes, &o.wtns_len) != BENCH_OK)
        return BENCH_FAIL;
    int rc;
    if (!strcmp(o.cmd, "single"))
        rc = cmd_single(&o);
    else if (!strcmp(o.cmd, "batch"))
        rc = cmd_batch(&o);
    else if (!strcmp(o.cmd, "status"))
        rc = cmd_status(&o);
    else if (!strcmp(o.cmd, "preload"))
        rc = cmd_preload(&o);
    else
        rc = cmd_metrics(&o);
    free(o.wtns_bytes);
    return rc;
}

#else /* no nghttp2 / protobuf-c at build time */

const bool bench_have_remote = false;

int bench_remote(int argc, char **argv)
{
    bench_error("--addr: this build has no gRPC client (it needs libnghttp2-dev, libprotobuf-c-dev and "
                "protobuf-c-compiler: scripts/install-deps.sh)");
    return BENCH_FAIL;
}

#endif
