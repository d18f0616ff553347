/*
 * cmd_prove.c — `cuzk prove <circuit.zkey> <witness.wtns> <proof.json>
 * <public.json>`: the snarkjs path, with rapidsnark's arguments.
 *
 * Order of work, cheapest failure first: both outputs' temporary files are
 * created before anything is read (an unwritable destination costs nothing),
 * then the zkey is mapped and the witness decoded, their sizes compared (a
 * witness of another circuit is refused before any arithmetic), the zkey's
 * verifying key extracted and prepared, and with --check-witness the
 * circuit's .r1cs loaded so the prover can evaluate every constraint first.
 * The prover itself runs with verification off; this command verifies the
 * proof against the zkey's key right after (timed on its own for --verbose)
 * unless --no-verify, then formats proof.json and public.json exactly as
 * snarkjs writes them and renames both into place. Any failure removes the
 * temporary files, so neither output is ever half-written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuzk/cs.h"
#include "cuzk/prove.h"
#include "cuzk/snarkjs.h"
#include "cuzk/snarkjs_json.h"
#include "cuzk/verify.h"
#ifdef CUZK_HAVE_GPU
#include "cuzk/gpu.h"
#include "cuzk/gpu_prove.h"
#endif

typedef struct {
    cuzk_pool *pool;
    cuzk_snarkjs_zkey *zk;
    cuzk_snarkjs_wtns *wtns;
    cuzk_cs cs;
    bool have_cs;
    cuzk_groth16_vk vk;
    cuzk_groth16_pvk pvk;
    cuzk_groth16_proof proof;
    cuzk_fr *pub;
    cli_out proof_out, public_out;
} prove_job;

static void job_free(prove_job *j)
{
    cli_out_abort(&j->proof_out);
    cli_out_abort(&j->public_out);
    cuzk_snarkjs_zkey_free(j->zk);
    cuzk_snarkjs_wtns_free(j->wtns);
    cuzk_cs_free(&j->cs);
    cuzk_groth16_vk_free(&j->vk);
    free(j->pub);
    cuzk_pool_free(j->pool);
}

/* Loads the circuit for --check-witness and checks that it is the zkey's. */
static int load_circuit(prove_job *j, const char *path)
{
    char err[CLI_ERRLEN] = "";
    cuzk_snarkjs_r1cs *r1cs = NULL;
    int rc = cuzk_snarkjs_r1cs_open(path, &r1cs, err, sizeof err);
    if (rc != CUZK_OK) {
        cli_error_lib(path, rc, err);
        return -1;
    }
    uint64_t n_pub = (uint64_t)r1cs->n_pub_out + r1cs->n_pub_in;
    if (r1cs->n_wires != j->zk->n_vars || n_pub != j->zk->n_public) {
        cli_error("%s has %u wires and %llu public signals, the zkey %u and %u: not the same circuit", path,
                  r1cs->n_wires, (unsigned long long)n_pub, j->zk->n_vars, j->zk->n_public);
        cuzk_snarkjs_r1cs_free(r1cs);
        return -1;
    }
    rc = cuzk_cs_from_snarkjs(&j->cs, r1cs, err, sizeof err);
    cuzk_snarkjs_r1cs_free(r1cs);
    if (rc != CUZK_OK) {
        cli_error_lib(path, rc, err);
        return -1;
    }
    j->have_cs = true;
    return 0;
}

static int load(prove_job *j, const cli_args *a)
{
    const char *zkey_path = a->pos[0], *wtns_path = a->pos[1];
    char err[CLI_ERRLEN] = "";
    int rc;
    cli_note(a, "loading %s and %s", zkey_path, wtns_path);
    if ((rc = cuzk_snarkjs_zkey_open(zkey_path, &j->zk, err, sizeof err)) != CUZK_OK) {
        cli_error_lib(zkey_path, rc, err);
        return -1;
    }
    if ((rc = cuzk_snarkjs_wtns_open(wtns_path, &j->wtns, err, sizeof err)) != CUZK_OK) {
        cli_error_lib(wtns_path, rc, err);
        return -1;
    }
    if (j->wtns->n != j->zk->n_vars) {
        cli_error("%s has %u values but %s expects %u: is it the witness of another circuit?", wtns_path,
                  j->wtns->n, zkey_path, j->zk->n_vars);
        return -1;
    }
    if ((rc = cuzk_snarkjs_zkey_vk(&j->vk, j->zk, err, sizeof err)) != CUZK_OK ||
        (rc = cuzk_groth16_prepare(&j->pvk, &j->vk, err, sizeof err)) != CUZK_OK) {
        cli_error_lib(zkey_path, rc, err);
        return -1;
    }
    if (a->check_witness && load_circuit(j, a->check_witness) != 0)
        return -1;
    return 0;
}

/* Proves on the device the command line asks for (cli_args.device). */
static int prove_on_device(prove_job *j, const cli_args *a, const cuzk_prove_opts *opts, char *err,
                           size_t errlen)
{
    bool gpu = false;
    int rc = cli_use_gpu(a, &gpu, err, errlen);
    if (rc != CUZK_OK)
        return rc;
#ifdef CUZK_HAVE_GPU
    if (gpu) {
        cuzk_gpu_pk *gpk = NULL;
        cuzk_gpu_prover *pr = NULL;
        rc = cuzk_gpu_zkey_load(&gpk, j->zk, j->pool, err, errlen);
        if (rc == CUZK_OK)
            rc = cuzk_gpu_prover_new(&pr, gpk, err, errlen);
        if (rc == CUZK_OK) {
            cli_note(a, "proving on the GPU");
            rc = cuzk_gpu_groth16_prove_zkey(&j->proof, j->pub, j->zk, gpk, pr, j->wtns->values, j->wtns->n,
                                             NULL, NULL, opts, j->pool, err, errlen);
        }
        cuzk_gpu_prover_free(pr);
        cuzk_gpu_pk_free(gpk);
        return rc;
    }
#endif
    return cuzk_groth16_prove_zkey_ex(&j->proof, j->pub, j->zk, j->wtns->values, j->wtns->n, NULL, NULL, opts,
                                      j->pool, err, errlen);
}

static int prove(prove_job *j, const cli_args *a)
{
    char err[CLI_ERRLEN] = "";
    j->pub = calloc((size_t)j->zk->n_public + 1, sizeof *j->pub);
    if (!j->pub) {
        cli_error("out of memory");
        return -1;
    }
    cuzk_prove_opts opts = {
        .flags = CUZK_PROVE_NO_VERIFY | (j->have_cs ? 0 : CUZK_PROVE_NO_CHECK),
        .pvk = &j->pvk,
        .cs = j->have_cs ? &j->cs : NULL,
    };
    cli_note(a, "proving: %u variables, domain %u, %d threads", j->zk->n_vars, j->zk->domain_size,
             cuzk_pool_size(j->pool));
    int rc = prove_on_device(j, a, &opts, err, sizeof err);
    if (rc != CUZK_OK) {
        cli_error_lib(NULL, rc, err);
        return -1;
    }
    return 0;
}

static int verify(prove_job *j)
{
    char err[CLI_ERRLEN] = "";
    int rc = cuzk_groth16_verify(&j->pvk, j->pub, j->zk->n_public, &j->proof, err, sizeof err);
    if (rc != CUZK_OK) {
        cli_error("the new proof does not verify against the zkey's key (nothing written): %s",
                  err[0] ? err : cuzk_strerror(rc));
        return -1;
    }
    return 0;
}

static int write_outputs(prove_job *j)
{
    char err[CLI_ERRLEN] = "";
    char *proof_text = NULL, *public_text = NULL;
    size_t proof_len = 0, public_len = 0;
    int rc = cuzk_snarkjs_proof_format(&j->proof, &proof_text, &proof_len, err, sizeof err);
    if (rc == CUZK_OK)
        rc = cuzk_snarkjs_public_format(j->pub, j->zk->n_public, &public_text, &public_len, err, sizeof err);
    int status = -1;
    if (rc != CUZK_OK)
        cli_error_lib(NULL, rc, err);
    else if (cli_out_write(&j->proof_out, proof_text, proof_len) == 0 &&
             cli_out_write(&j->public_out, public_text, public_len) == 0 &&
             cli_out_commit_pair(&j->proof_out, &j->public_out) == 0)
        status = 0;
    free(proof_text);
    free(public_text);
    return status;
}

static int run_prove(const cli_args *a)
{
    const char *proof_path = a->pos[2], *public_path = a->pos[3];
    prove_job j;
    memset(&j, 0, sizeof j);
    j.proof_out.fd = j.public_out.fd = -1;
    cli_timer t;
    cli_timer_start(&t);
    int status = CLI_FAIL;
    if (cli_input_ok(a->pos[0]) || cli_input_ok(a->pos[1]) ||
        (a->check_witness && cli_input_ok(a->check_witness)) || cli_out_open(&j.proof_out, proof_path) ||
        cli_out_open(&j.public_out, public_path) || !(j.pool = cli_pool_new(a)))
        goto done;
    if (load(&j, a) != 0)
        goto done;
    cli_timer_lap(&t, "load");
    if (prove(&j, a) != 0)
        goto done;
    cli_timer_lap(&t, "prove");
    if (!a->no_verify) {
        if (verify(&j) != 0)
            goto done;
        cli_timer_lap(&t, "verify");
    }
    if (write_outputs(&j) != 0)
        goto done;
    cli_timer_lap(&t, "write");
    cli_timer_report(&t, a, cuzk_pool_size(j.pool));
    status = CLI_OK;
done:
    job_free(&j);
    return status;
}

const cli_command cli_cmd_prove = {
    .name = "prove",
    .synopsis = "<circuit.zkey> <witness.wtns> <proof.json> <public.json>",
    .summary = "prove a circom circuit from its snarkjs .zkey and a .wtns witness",
    .help = "Computes a Groth16 proof with the proving key circuit.zkey (snarkjs, BLS12-381) and the\n"
            "witness witness.wtns (snarkjs wtns calculate), and writes proof.json and public.json in\n"
            "snarkjs's format, byte for byte what `snarkjs groth16 prove` writes for the same proof\n"
            "(the same arguments as rapidsnark's prover). `snarkjs groth16 verify` accepts the result.\n"
            "\n"
            "The proof is verified against the zkey's own verifying key before anything is written.\n"
            "Both outputs are written atomically (a temporary file renamed into place): after a failure\n"
            "neither file has been touched. A witness with the wrong number of values is refused.\n"
            "With --check-witness the witness is first checked against every constraint of the\n"
            "circuit's .r1cs (which must be the zkey's circuit); the first failing constraint is named.\n"
            "With --device gpu (or auto on a machine with a CUDA device and a build with the CUDA backend)\n"
            "the H polynomial and the five MSMs run on the GPU; the proof bytes are the same.\n"
            "Exit status: 0 success, 1 failure, 2 usage error.",
    .flags =
        CLI_F_THREADS | CLI_F_NO_VERIFY | CLI_F_CHECK_WITNESS | CLI_F_VERBOSE | CLI_F_PROGRESS | CLI_F_DEVICE,
    .min_pos = 4,
    .max_pos = 4,
    .run = run_prove,
    .outputs = 1u << 2 | 1u << 3, /* proof.json, public.json */
};
