/*
 * cmd_params.c — the bellperson path:
 *   cuzk prove-params  <key.params> <circuit.r1cs> <witness.wtns> <proof.bin>
 *   cuzk coset-key     <key.params> <circuit.r1cs> <key.coset>
 *   cuzk verify-params <key.vk|key.params> <witness.wtns|public.json> <proof.bin>
 *
 * prove-params reads the proving key (every point decoded and checked to be
 * on its curve, the CLI's default level in cuzk/params.h, with progress), the
 * circom circuit as a constraint system and the witness, whose values are
 * bellperson's z = inputs ‖ aux directly (wire 0 = ONE, then the public
 * signals, then the private wires). The prover evaluates every constraint
 * before it starts (on by default on this path) and runs without its own
 * verification; the command verifies the 192-byte proof against the key's
 * vk unless --no-verify, then writes the bytes atomically.
 *
 * verify-params takes the public inputs either from a witness (values 1 ..
 * n_ic - 1, as the prover saw them) or from a snarkjs public.json, the key
 * from a .vk (every point checked, in the subgroup too) or from a whole
 * .params (its vk points are checked by cuzk_groth16_prepare; the other
 * vectors are only decoded). Exit status as `cuzk verify`: 0 OK, 1 INVALID,
 * 2 unreadable or malformed input.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuzk/cs.h"
#include "cuzk/params.h"
#include "cuzk/prove.h"
#include "cuzk/setup.h"
#include "cuzk/snarkjs.h"
#include "cuzk/snarkjs_json.h"
#include "cuzk/verify.h"
#ifdef CUZK_HAVE_GPU
#include "cuzk/gpu.h"
#include "cuzk/gpu_prove.h"
#include "cuzk/gpu_setup.h"
#endif

/* ---- prove-params ------------------------------------------------------------------ */

typedef struct {
    cuzk_pool *pool;
    cuzk_groth16_params pk;
    cuzk_cs cs;
    cuzk_snarkjs_wtns *wtns;
    cuzk_groth16_proof proof;
    cli_out out;
} params_job;

/* Everything a job holds; an unfinished output is removed. */
static void params_job_free(params_job *j)
{
    cli_out_abort(&j->out);
    cuzk_snarkjs_wtns_free(j->wtns);
    cuzk_cs_free(&j->cs);
    cuzk_groth16_params_free(&j->pk);
    cuzk_pool_free(j->pool);
}

static int read_params(cuzk_groth16_params *pk, const char *path, unsigned flags, cuzk_pool *pool,
                       const cli_args *a)
{
    char err[CLI_ERRLEN] = "";
    cli_progress p;
    cli_progress_init(&p, path);
    cuzk_params_read_opts opts = {
        .flags = flags,
        .pool = pool,
        .progress = a->progress ? cli_progress_fn : NULL,
        .progress_ctx = &p,
    };
    int rc = cuzk_params_read_ex(path, pk, &opts, err, sizeof err);
    if (rc != CUZK_OK) {
        if (p.tty && p.last_pct >= 0 && p.last_pct < 100)
            fputc('\n', stderr);
        cli_error_lib(path, rc, err);
        return -1;
    }
    return 0;
}

/* The circuit alone (no witness) as a constraint system. */
static int load_cs(cuzk_cs *cs, const char *r1cs_path)
{
    char err[CLI_ERRLEN] = "";
    cuzk_snarkjs_r1cs *r1cs = NULL;
    int rc = cuzk_snarkjs_r1cs_open(r1cs_path, &r1cs, err, sizeof err);
    if (rc == CUZK_OK)
        rc = cuzk_cs_from_snarkjs(cs, r1cs, err, sizeof err);
    cuzk_snarkjs_r1cs_free(r1cs);
    if (rc != CUZK_OK) {
        cli_error_lib(r1cs_path, rc, err);
        return -1;
    }
    return 0;
}

static int load_circuit(params_job *j, const char *r1cs_path, const char *wtns_path)
{
    char err[CLI_ERRLEN] = "";
    if (load_cs(&j->cs, r1cs_path) != 0)
        return -1;
    int rc;
    if ((rc = cuzk_snarkjs_wtns_open(wtns_path, &j->wtns, err, sizeof err)) != CUZK_OK) {
        cli_error_lib(wtns_path, rc, err);
        return -1;
    }
    size_t n_vars = j->cs.n_inputs + j->cs.n_aux;
    if (j->wtns->n != n_vars) {
        cli_error("%s has %u values but %s has %zu wires: is it the witness of another circuit?", wtns_path,
                  j->wtns->n, r1cs_path, n_vars);
        return -1;
    }
    return 0;
}

/* Proves on the device the command line asks for (cli_args.device). */
static int prove_on_device(params_job *j, const cli_args *a, const cuzk_prove_opts *opts, char *err,
                           size_t errlen)
{
    bool gpu = false;
    int rc = cli_use_gpu(a, &gpu, err, errlen);
    if (rc != CUZK_OK)
        return rc;
#ifdef CUZK_HAVE_GPU
    if (gpu) {
        cuzk_gpu_pk *gpk = NULL;
        cuzk_gpu_cs *gcs = NULL;
        cuzk_gpu_prover *pr = NULL;
        rc = cuzk_gpu_pk_load(&gpk, &j->pk, err, errlen);
        if (rc == CUZK_OK)
            rc = cuzk_gpu_prover_new(&pr, gpk, err, errlen);
        /* a, b, c evaluated on the device; a circuit too large for the device form is evaluated here */
        if (rc == CUZK_OK && cuzk_gpu_cs_load(&gcs, &j->cs, NULL, err, errlen) != CUZK_OK)
            gcs = NULL;
        if (rc == CUZK_OK) {
            cli_note(a, gcs ? "proving on the GPU (a, b, c evaluated there)" : "proving on the GPU");
            rc = cuzk_gpu_groth16_prove(&j->proof, &j->pk, gpk, pr, gcs, &j->cs, j->wtns->values, NULL, NULL,
                                        opts, j->pool, err, errlen);
        }
        cuzk_gpu_cs_free(gcs);
        cuzk_gpu_prover_free(pr);
        cuzk_gpu_pk_free(gpk);
        return rc;
    }
#endif
    return cuzk_groth16_prove_ex(&j->proof, &j->pk, &j->cs, j->wtns->values, NULL, NULL, opts, j->pool, err,
                                 errlen);
}

static int prove_and_check(params_job *j, const cli_args *a, cli_timer *t)
{
    char err[CLI_ERRLEN] = "";
    cuzk_groth16_pvk pvk;
    int rc = cuzk_groth16_prepare(&pvk, &j->pk.vk, err, sizeof err);
    if (rc != CUZK_OK) {
        cli_error_lib(a->pos[0], rc, err);
        return -1;
    }
    cuzk_prove_opts opts = {.flags = CUZK_PROVE_NO_VERIFY, .pvk = &pvk};
    cli_note(a, "proving: %zu constraints, %zu variables, %d threads", j->cs.n_constraints,
             j->cs.n_inputs + j->cs.n_aux, cuzk_pool_size(j->pool));
    rc = prove_on_device(j, a, &opts, err, sizeof err);
    if (rc != CUZK_OK) {
        cli_error_lib(NULL, rc, err);
        return -1;
    }
    cli_timer_lap(t, "prove");
    if (a->no_verify)
        return 0;
    rc = cuzk_groth16_verify(&pvk, j->wtns->values + 1, j->cs.n_inputs - 1, &j->proof, err, sizeof err);
    if (rc != CUZK_OK) {
        cli_error("the new proof does not verify against the key (nothing written): %s",
                  err[0] ? err : cuzk_strerror(rc));
        return -1;
    }
    cli_timer_lap(t, "verify");
    return 0;
}

static int write_proof(params_job *j)
{
    uint8_t bytes[CUZK_GROTH16_PROOF_SIZE];
    cuzk_groth16_proof_to_bytes(bytes, &j->proof);
    if (cli_out_write(&j->out, bytes, sizeof bytes) != 0 || cli_out_commit(&j->out) != 0)
        return -1;
    return 0;
}

static int run_prove_params(const cli_args *a)
{
    params_job j;
    memset(&j, 0, sizeof j);
    j.out.fd = -1;
    cli_timer t;
    cli_timer_start(&t);
    int status = CLI_FAIL;
    if (cli_input_ok(a->pos[0]) || cli_input_ok(a->pos[1]) || cli_input_ok(a->pos[2]) ||
        cli_out_open(&j.out, a->pos[3]) || !(j.pool = cli_pool_new(a)))
        goto done;
    if (read_params(&j.pk, a->pos[0], CUZK_PARAMS_CHECK_CURVE, j.pool, a) != 0 ||
        load_circuit(&j, a->pos[1], a->pos[2]) != 0)
        goto done;
    cli_timer_lap(&t, "load");
    if (prove_and_check(&j, a, &t) != 0 || write_proof(&j) != 0)
        goto done;
    cli_timer_lap(&t, "write");
    cli_timer_report(&t, a, cuzk_pool_size(j.pool));
    status = CLI_OK;
done:
    params_job_free(&j);
    return status;
}

const cli_command cli_cmd_prove_params = {
    .name = "prove-params",
    .synopsis = "<key.params> <circuit.r1cs> <witness.wtns> <proof.bin>",
    .summary = "prove with a bellperson .params key: 192-byte proof",
    .help = "Computes a Groth16 proof in bellperson's convention: the proving key key.params\n"
            "(bellperson layout, e.g. from `cuzk setup`; or a coset key file from `cuzk coset-key`), the\n"
            "circuit circuit.r1cs (circom) and the witness witness.wtns. Writes the 192-byte proof\n"
            "(compressed A, B, C) to proof.bin.\n"
            "\n"
            "Every key point is checked to be on its curve while loading. The witness is checked\n"
            "against every constraint before proving, and the proof is verified against the key's\n"
            "verifying key before it is written (atomically; after a failure proof.bin is untouched).\n"
            "With --device gpu (or auto on a machine with a CUDA device and a build with the CUDA backend)\n"
            "the H polynomial and the five MSMs run on the GPU; the proof bytes are the same.\n"
            "Exit status: 0 success, 1 failure, 2 usage error.",
    .flags = CLI_F_THREADS | CLI_F_NO_VERIFY | CLI_F_VERBOSE | CLI_F_PROGRESS | CLI_F_DEVICE,
    .min_pos = 4,
    .max_pos = 4,
    .run = run_prove_params,
    .outputs = 1u << 3, /* proof.bin */
};

/* ---- coset-key ---------------------------------------------------------------------- */

static int run_coset_key(const cli_args *a)
{
    params_job j;
    memset(&j, 0, sizeof j);
    j.out.fd = -1;
    cli_timer t;
    cli_timer_start(&t);
    int status = CLI_FAIL;
    char err[CLI_ERRLEN] = "";
    bool gpu = false;
    if (cli_input_ok(a->pos[0]) || cli_input_ok(a->pos[1]) || cli_out_open(&j.out, a->pos[2]) ||
        !(j.pool = cli_pool_new(a)))
        goto done;
    int rc = cli_use_gpu(a, &gpu, err, sizeof err);
    if (rc != CUZK_OK) {
        cli_error_lib(NULL, rc, err);
        goto done;
    }
    if (read_params(&j.pk, a->pos[0], CUZK_PARAMS_CHECK_CURVE, j.pool, a) != 0 ||
        load_cs(&j.cs, a->pos[1]) != 0)
        goto done;
    if (j.pk.h_coset) {
        cli_error("%s is already a coset key file", a->pos[0]);
        goto done;
    }
    cli_timer_lap(&t, "load");
    cli_progress p;
    cli_progress_init(&p, "converting");
    cuzk_groth16_coset_opts co = {NULL, a->progress ? cli_progress_fn : NULL, &p, 0};
#ifdef CUZK_HAVE_GPU
    if (gpu)
        co.accel = cuzk_gpu_coset_accel();
#endif
    cli_note(a, "converting: a domain of %zu points, %zu variables, transforms on the %s", j.pk.n_h + 1,
             j.cs.n_inputs + j.cs.n_aux, co.accel ? "GPU" : "CPU");
    rc = cuzk_groth16_params_to_coset(&j.pk, &j.cs, &co, j.pool, err, sizeof err);
    if (rc != CUZK_OK) {
        if (p.tty && p.last_pct >= 0 && p.last_pct < 100)
            fputc('\n', stderr);
        cli_error_lib(a->pos[0], rc, err);
        goto done;
    }
    cli_timer_lap(&t, "convert");
    if ((rc = cuzk_coset_key_write_to(&j.out, &j.pk, err, sizeof err)) != CUZK_OK) {
        cli_error_lib(a->pos[2], rc, err);
        goto done;
    }
    if (cli_out_commit(&j.out) != 0)
        goto done;
    cli_timer_lap(&t, "write");
    cli_timer_report(&t, a, cuzk_pool_size(j.pool));
    status = CLI_OK;
done:
    params_job_free(&j);
    return status;
}

const cli_command cli_cmd_coset_key = {
    .name = "coset-key",
    .synopsis = "<key.params> <circuit.r1cs> <key.coset>",
    .summary = "convert a .params key to the coset form: two NTTs fewer a proof",
    .help = "Converts the bellperson proving key key.params of the circuit circuit.r1cs (circom) to the\n"
            "coset form and writes it to key.coset, a file only cuzk reads (docs/design/022). The key's\n"
            "toxic waste is not needed. prove-params and cuzkd take key.coset in place of key.params and\n"
            "prove the same proof bytes with two NTTs fewer per proof (87 of 1356 ms a 2^27 partition\n"
            "on an H100).\n"
            "\n"
            "The conversion is two G1 transforms of the key's domain (about m log2 m scalar\n"
            "multiplications): minutes on the GPU, hours on the CPU at 2^27, so it is done once per key.\n"
            "The key must belong to the circuit: sizes are checked, and a key of another circuit of the\n"
            "same shape gives a key whose proofs fail verification (every proof is verified). key.coset\n"
            "is written atomically; after a failure it is untouched.\n"
            "Exit status: 0 success, 1 failure, 2 usage error.",
    .flags = CLI_F_THREADS | CLI_F_VERBOSE | CLI_F_PROGRESS | CLI_F_DEVICE,
    .min_pos = 3,
    .max_pos = 3,
    .run = run_coset_key,
    .outputs = 1u << 2, /* the coset key file */
};

/* ---- verify-params ------------------------------------------------------------------ */

typedef struct {
    cuzk_groth16_vk vk;
    cuzk_groth16_params pk;
    const cuzk_groth16_vk *key; /* &vk or &pk.vk */
    cuzk_fr *inputs;
    size_t n_inputs;
    cuzk_groth16_proof proof;
} vparams_files;

static int load_key(vparams_files *f, const cli_args *a)
{
    const char *path = a->pos[0];
    char err[CLI_ERRLEN] = "";
    cuzk_params_summary info;
    int rc = cuzk_params_info(path, &info, err, sizeof err);
    if (rc == CUZK_OK && info.vk_only) {
        rc = cuzk_vk_read(path, &f->vk, CUZK_PARAMS_CHECK_GROUP, err, sizeof err);
        f->key = &f->vk;
    } else if (rc == CUZK_OK) {
        cuzk_pool *pool = cli_pool_new(a);
        if (!pool)
            return -1;
        int r = read_params(&f->pk, path, 0, pool, a);
        cuzk_pool_free(pool);
        f->key = &f->pk.vk;
        return r;
    }
    if (rc != CUZK_OK) {
        cli_error_lib(path, rc, err);
        return -1;
    }
    return 0;
}

static bool is_wtns(const char *path)
{
    char magic[4] = {0};
    FILE *f = fopen(path, "rb");
    bool yes = f && fread(magic, 1, sizeof magic, f) == sizeof magic && !memcmp(magic, "wtns", 4);
    if (f)
        fclose(f);
    return yes;
}

/* Public inputs = values 1 .. want of the witness at path. */
static int inputs_from_wtns(vparams_files *f, const char *path, size_t want, char *err, size_t errlen)
{
    cuzk_snarkjs_wtns *w = NULL;
    int rc = cuzk_snarkjs_wtns_open(path, &w, err, errlen);
    if (rc == CUZK_OK && w->n <= want) {
        rc = cuzk_fail(err, errlen, CUZK_EINVAL, "the witness has %u values, the key has %zu public inputs",
                       w->n, want);
    } else if (rc == CUZK_OK) {
        f->inputs = malloc((want ? want : 1) * sizeof *f->inputs);
        if (f->inputs)
            memcpy(f->inputs, w->values + 1, want * sizeof *f->inputs);
        else
            rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "out of memory");
        f->n_inputs = want;
    }
    cuzk_snarkjs_wtns_free(w);
    return rc;
}

/* Public inputs from a .wtns or from a snarkjs public.json. */
static int load_inputs(vparams_files *f, const char *path)
{
    char err[CLI_ERRLEN] = "";
    size_t want = f->key->n_ic - 1;
    int rc;
    if (is_wtns(path)) {
        rc = inputs_from_wtns(f, path, want, err, sizeof err);
    } else {
        rc = cuzk_snarkjs_public_read(path, &f->inputs, &f->n_inputs, err, sizeof err);
        if (rc == CUZK_OK && f->n_inputs != want)
            rc = cuzk_fail(err, sizeof err, CUZK_EINVAL, "%zu public values, the key expects %zu",
                           f->n_inputs, want);
    }
    if (rc != CUZK_OK) {
        cli_error_lib(path, rc, err);
        return -1;
    }
    return 0;
}

static int load_proof(vparams_files *f, const char *path)
{
    char err[CLI_ERRLEN] = "";
    uint8_t *data = NULL;
    size_t len = 0;
    if (cli_read_file(path, 1 << 20, &data, &len) != 0)
        return -1;
    int rc = CUZK_EINVAL;
    if (len != CUZK_GROTH16_PROOF_SIZE)
        cli_error("%s: %zu bytes, a bellperson proof has %d", path, len, CUZK_GROTH16_PROOF_SIZE);
    else if ((rc = cuzk_groth16_proof_from_bytes(&f->proof, data, err, sizeof err)) != CUZK_OK)
        cli_error_lib(path, rc, err);
    free(data);
    return rc == CUZK_OK ? 0 : -1;
}

static int run_verify_params(const cli_args *a)
{
    vparams_files f;
    memset(&f, 0, sizeof f);
    cli_timer t;
    cli_timer_start(&t);
    int status = CLI_USAGE;
    char err[CLI_ERRLEN] = "";
    cuzk_groth16_pvk pvk;
    if (cli_input_ok(a->pos[0]) || cli_input_ok(a->pos[1]) || cli_input_ok(a->pos[2]) || load_key(&f, a))
        goto done;
    int rc = cuzk_groth16_prepare(&pvk, f.key, err, sizeof err);
    if (rc != CUZK_OK) {
        cli_error_lib(a->pos[0], rc, err);
        goto done;
    }
    if (load_inputs(&f, a->pos[1]) || load_proof(&f, a->pos[2]))
        goto done;
    cli_timer_lap(&t, "load");
    rc = cuzk_groth16_verify(&pvk, f.inputs, f.n_inputs, &f.proof, err, sizeof err);
    cli_timer_lap(&t, "verify");
    if (rc == CUZK_OK || rc == CUZK_EVERIFY) {
        printf("%s\n", rc == CUZK_OK ? "OK" : "INVALID");
        status = rc == CUZK_OK ? CLI_OK : CLI_FAIL;
        cli_timer_report(&t, a, 1);
    } else {
        cli_error_lib(NULL, rc, err);
    }
done:
    cuzk_groth16_vk_free(&f.vk);
    cuzk_groth16_params_free(&f.pk);
    free(f.inputs);
    return status;
}

const cli_command cli_cmd_verify_params = {
    .name = "verify-params",
    .synopsis = "<key.vk|key.params> <witness.wtns|public.json> <proof.bin>",
    .summary = "verify a 192-byte bellperson proof (exit 0 valid, 1 invalid, 2 unreadable)",
    .help = "Verifies the 192-byte proof in proof.bin against a bellperson verifying key (a .vk file,\n"
            "or the .params file that contains it; a .vk is much faster to load). The public inputs\n"
            "are taken from a witness (.wtns: the values after the leading 1, as many as the key has\n"
            "inputs) or from a snarkjs public.json. Every point is checked to be in its group.\n"
            "\n"
            "Prints OK and exits 0 when the proof is valid; prints INVALID and exits 1 when the\n"
            "pairing check fails; exits 2 with a message when a file is missing or malformed.",
    .flags = CLI_F_THREADS | CLI_F_VERBOSE | CLI_F_PROGRESS,
    .min_pos = 3,
    .max_pos = 3,
    .run = run_verify_params,
    .status_is_answer = true,
};
