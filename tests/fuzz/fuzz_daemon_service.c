/*
 * fuzz_daemon_service.c — libFuzzer target for cuzkd's service: the
 * cuzk.v1.ProvingEngine handlers behind the network loop (request decoding,
 * ids, limits, jobs submitted, awaited, cancelled, proved; keys preloaded and
 * evicted; status and metrics), the whole daemon in-process on the CPU
 * backend.
 *
 * The daemon runs for the whole process: the service from a config text
 * (synthetic circuits of 2^11 only, small limits; with CUZK_FUZZ_BITS_PARAMS
 * naming a .params of tests/fixtures/bits, also the file circuit "bits"), its
 * server on a unix socket, the loop on a thread. An input is a list of calls,
 * each a byte (method = byte % 8; bit 3: the call's client deadline is short,
 * as a client that gives up), a 16-bit little-endian length and that many
 * bytes of protobuf request, made one after another on one connection. Checked:
 *   - every call but AwaitProof and Prove is answered within 5 s, with a gRPC
 *     status in 0..16 (those two wait for their job, up to 8 s an input in all;
 *     with the bit a call gives up after 200 ms, and its job goes on without its
 *     client); the deadline travels as grpc-timeout, so the server may answer
 *     DEADLINE_EXCEEDED first, which for the other calls is a failure too;
 *   - an answer with status OK decodes as the method's response message;
 *   - a Prove or AwaitProof answered COMPLETED carries a 192-byte proof;
 *   - ASan and UBSan see no fault in the daemon's threads.
 * After each input every job it submitted is cancelled, so later inputs find
 * room (limits.max_jobs).
 *
 * CUZK_FUZZ_SERVICE_SEEDS=DIR writes seed inputs there first (scripts/fuzz.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>

#include "cuzk/v1/proving.pb-c.h"
#include "daemon.h"
#include "fuzz_net.h"
#include "rpc.h"

static const char *const METHODS[8] = {"SubmitProof", "AwaitProof", "Prove",      "CancelProof",
                                       "GetStatus",   "GetMetrics", "PreloadSRS", "EvictSRS"};
static const ProtobufCMessageDescriptor *const RESPONSES[8] = {
    &cuzk__v1__submit_proof_response__descriptor, &cuzk__v1__await_proof_response__descriptor,
    &cuzk__v1__prove_response__descriptor,        &cuzk__v1__cancel_proof_response__descriptor,
    &cuzk__v1__get_status_response__descriptor,   &cuzk__v1__get_metrics_response__descriptor,
    &cuzk__v1__preload_srs_response__descriptor,  &cuzk__v1__evict_srs_response__descriptor};

static cuzkd_config cfg;
static cuzkd_service *svc;
static rpc_server *srv;
static char sock_path[108], addr[128];

static void unlink_socket(void)
{
    unlink(sock_path);
}

/* ---- seeds ----------------------------------------------------------------------------- */

static void put_call(bytes *b, int method, const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    require(n < 65536, "seed message too large");
    uint8_t head[3] = {(uint8_t)method, (uint8_t)n, (uint8_t)(n >> 8)};
    put(b, head, 3);
    uint8_t *q = malloc(n ? n : 1);
    require(q != NULL, "out of memory");
    protobuf_c_message_pack(m, q);
    put(b, q, n);
    free(q);
}

static void write_seeds(const char *dir, const char *wtns_path)
{
    mkdir(dir, 0755);
    Cuzk__V1__SubmitProofRequest sub = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
    sub.request_id = "s1";
    sub.proof_kind = CUZK__V1__PROOF_KIND__SYNTH_POREP;
    sub.porep_scale = 11;
    sub.num_partitions = 2;
    sub.priority = CUZK__V1__PRIORITY__HIGH;
    Cuzk__V1__AwaitProofRequest aw = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
    aw.job_id = "s1";
    aw.timeout_ms = 20000;
    Cuzk__V1__CancelProofRequest ca = CUZK__V1__CANCEL_PROOF_REQUEST__INIT;
    ca.job_id = "s1";
    Cuzk__V1__GetStatusRequest st = CUZK__V1__GET_STATUS_REQUEST__INIT;
    Cuzk__V1__GetMetricsRequest me = CUZK__V1__GET_METRICS_REQUEST__INIT;
    Cuzk__V1__PreloadSrsRequest pre = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
    pre.circuit_id = "synth-porep-11";
    Cuzk__V1__EvictSrsRequest ev = CUZK__V1__EVICT_SRS_REQUEST__INIT;
    ev.circuit_id = "synth-porep-11";
    Cuzk__V1__ProveRequest pr = CUZK__V1__PROVE_REQUEST__INIT;

    bytes b = {0};
    put_call(&b, 0, &sub.base);
    put_call(&b, 1, &aw.base);
    put_call(&b, 4, &st.base);
    seed_file(dir, "submit-await-status", b.p, b.n);
    b.n = 0;
    put_call(&b, 6, &pre.base);
    put_call(&b, 0, &sub.base);
    put_call(&b, 3, &ca.base);
    put_call(&b, 1 | 8, &aw.base);
    put_call(&b, 7, &ev.base);
    put_call(&b, 5, &me.base);
    seed_file(dir, "preload-submit-cancel-evict", b.p, b.n);
    b.n = 0;
    sub.request_id = "";
    pr.submit = &sub;
    put_call(&b, 2, &pr.base);
    put_call(&b, 0, &sub.base);
    put_call(&b, 0, &sub.base);
    seed_file(dir, "prove-twice-anonymous", b.p, b.n);
    b.n = 0;
    put_call(&b, 2 | 8, &pr.base); /* the client leaves before its proof */
    put_call(&b, 4, &st.base);
    seed_file(dir, "prove-and-leave", b.p, b.n);
    if (wtns_path) {
        FILE *f = fopen(wtns_path, "rb");
        if (f) {
            bytes w = {0};
            uint8_t buf[4096];
            size_t k;
            while ((k = fread(buf, 1, sizeof buf, f)) > 0)
                put(&w, buf, k);
            fclose(f);
            Cuzk__V1__SubmitProofRequest g = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
            g.request_id = "g1";
            g.proof_kind = CUZK__V1__PROOF_KIND__GROTH16_CIRCUIT;
            g.circuit_id = "bits";
            g.vanilla_proof.data = w.p;
            g.vanilla_proof.len = w.n;
            ProtobufCBinaryData two[2] = {{w.n, w.p}, {w.n, w.p}};
            b.n = 0;
            put_call(&b, 0, &g.base);
            aw.job_id = "g1";
            put_call(&b, 1, &aw.base);
            g.request_id = "g2";
            g.vanilla_proof.len = 0;
            g.n_vanilla_proofs = 2;
            g.vanilla_proofs = two;
            pr.submit = &g;
            put_call(&b, 2, &pr.base);
            seed_file(dir, "groth16-bits", b.p, b.n);
            free(w.p);
        }
    }
    free(b.p);
}

/* ---- the target ------------------------------------------------------------------------ */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *params = getenv("CUZK_FUZZ_BITS_PARAMS");
    const char *seeds = getenv("CUZK_FUZZ_SERVICE_SEEDS");
    if (seeds && *seeds)
        write_seeds(seeds, params && *params ? "tests/fixtures/bits/witness.wtns" : NULL);
    snprintf(sock_path, sizeof sock_path, "/tmp/cuzk-fuzz-service-%d.sock", (int)getpid());
    snprintf(addr, sizeof addr, "unix://%s", sock_path);
    char text[2048];
    int n = snprintf(text, sizeof text,
                     "[daemon]\nlisten = [\"%s\"]\n[logging]\nlevel = \"error\"\n"
                     "[engine]\nbackend = \"cpu\"\nsynth_workers = 2\npost_workers = 1\neval_threads = 2\n"
                     "[gpus]\ngpu_workers_per_device = 1\ngpu_threads = 2\n"
                     "[memory]\ntotal_budget = \"2GiB\"\n"
                     "[limits]\nmax_jobs = 8\nmax_results = 16\nmax_input_bytes = \"1MiB\"\n"
                     "max_message_size = \"64KiB\"\n"
                     "[synthetic]\ndefault_scale = 11\nmax_scale = 11\nseed = 3\n",
                     addr);
    if (params && *params)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "[circuits.bits]\nparams = \"%s\"\nr1cs = \"tests/fixtures/bits/circuit.r1cs\"\n",
                      params);
    char err[512];
    cuzkd_config_init(&cfg);
    require(cuzkd_config_parse(&cfg, "fuzz", text, strlen(text), err, sizeof err) == 0, err);
    require(cuzkd_log_open(NULL, cfg.log_level, false, err, sizeof err) == 0, err); /* errors only */
    require(cuzkd_service_new(&svc, &cfg, err, sizeof err) == 0, err);
    rpc_server_config sc = {.max_message = 65536,
                            .max_buffered = 1 << 20,
                            .max_connections = 8,
                            .max_streams = 16,
                            .handler = cuzkd_service_handle,
                            .closed = cuzkd_service_closed,
                            .http = cuzkd_service_http,
                            .tick = cuzkd_service_tick,
                            .log = cuzkd_service_rpc_log,
                            .ctx = svc};
    require(rpc_server_new(&srv, &sc, err, sizeof err) == 0, err);
    cuzkd_service_attach(svc, srv);
    require(rpc_server_listen(srv, addr, RPC_LISTEN_GRPC, err, sizeof err) == 0, err);
    atexit(unlink_socket);
    fuzz_start_loop(srv);
    return 0;
}

#define ANSWER_MS 5000      /* the most any call but AwaitProof and Prove may take */
#define WAIT_BUDGET_MS 8000 /* what AwaitProof and Prove calls of one input may wait in all */

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* One call; returns its status, or -1 when the client's deadline passed (allowed only when `may_wait`).
 * A SubmitProof's job id goes into ids (when not NULL, up to 64). */
static int one_call(rpc_client *c, int m, const uint8_t *req, size_t len, int deadline_ms, bool may_wait,
                    char ids[][128], int *n_ids)
{
    char method[96], msg[512], err[512];
    snprintf(method, sizeof method, "/cuzk.v1.ProvingEngine/%s", METHODS[m]);
    int status = -1;
    uint8_t *resp = NULL;
    size_t rlen = 0;
    int rc = rpc_client_call(c, method, req, len, deadline_ms, &status, msg, sizeof msg, &resp, &rlen, err,
                             sizeof err);
    if (rc != 0) {
        if (!may_wait) {
            fprintf(stderr, "fuzz_daemon_service: %s not answered within %d ms: %s\n", METHODS[m],
                    deadline_ms, err);
            abort();
        }
        free(resp);
        return -1;
    }
    require(status >= 0 && status <= 16, "a gRPC status outside 0..16");
    if (status == RPC_DEADLINE_EXCEEDED && !may_wait) { /* the deadline travels as grpc-timeout */
        fprintf(stderr, "fuzz_daemon_service: %s not answered within %d ms: the server says %s\n", METHODS[m],
                deadline_ms, msg);
        abort();
    }
    if (status == RPC_OK) {
        ProtobufCMessage *r = protobuf_c_message_unpack(RESPONSES[m], NULL, rlen, resp);
        require(r != NULL, "an OK answer that does not decode as the method's response");
        const Cuzk__V1__AwaitProofResponse *aw = NULL;
        if (m == 1)
            aw = (const Cuzk__V1__AwaitProofResponse *)r;
        else if (m == 2)
            aw = ((const Cuzk__V1__ProveResponse *)r)->result;
        if (aw && aw->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED)
            require(aw->proof.len % 192 == 0 && aw->proof.len > 0,
                    "a completed proof that is not 192-byte proofs");
        if (m == 0 && ids && *n_ids < 64)
            snprintf(ids[(*n_ids)++], 128, "%s", ((const Cuzk__V1__SubmitProofResponse *)r)->job_id);
        protobuf_c_message_free_unpacked(r, NULL);
    }
    free(resp);
    return status;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    rpc_client *c = NULL;
    char err[512];
    require(rpc_client_open(&c, addr, err, sizeof err) == 0, err);
    char ids[64][128];
    int n_ids = 0, calls = 0, wait_left = WAIT_BUDGET_MS;
    size_t off = 0;
    while (off + 3 <= size && calls < 16) {
        int m = data[off] % 8;
        bool hurry = data[off] & 8;
        size_t len = (size_t)data[off + 1] | (size_t)data[off + 2] << 8;
        off += 3;
        if (len > size - off)
            len = size - off;
        /* AwaitProof and Prove last as long as the job (up to 1024 partitions): their deadline may pass,
         * from a budget per input that keeps it well inside libFuzzer's -timeout; every other call must
         * be answered within ANSWER_MS */
        bool waits = m == 1 || m == 2;
        int deadline = hurry ? 200 : waits ? (wait_left > 0 ? wait_left : 1) : ANSWER_MS;
        int64_t t0 = now_ms();
        if (one_call(c, m, data + off, len, deadline, hurry || waits, ids, &n_ids) < 0) {
            /* the client gave up: a fresh connection for the rest, as a client would reconnect */
            rpc_client_close(c);
            require(rpc_client_open(&c, addr, err, sizeof err) == 0, err);
        }
        if (waits)
            wait_left -= (int)(now_ms() - t0);
        off += len;
        calls++;
    }
    /* leave room for the next input: cancel the jobs its SubmitProof calls started (a Prove's job ends on
     * its own) */
    for (int i = 0; i < n_ids; i++) {
        Cuzk__V1__CancelProofRequest ca = CUZK__V1__CANCEL_PROOF_REQUEST__INIT;
        ca.job_id = ids[i];
        uint8_t buf[256];
        size_t n = protobuf_c_message_pack(&ca.base, buf);
        one_call(c, 3, buf, n, ANSWER_MS, false, NULL, NULL);
    }
    rpc_client_close(c);
    return 0;
}
