/*
 * cmd_verify.c — `cuzk verify <verification_key.json> <public.json>
 * <proof.json>`, the arguments in snarkjs's order.
 *
 * The three files go through the strict snarkjs JSON readers (every field
 * element canonical, every point on its curve and in its subgroup), the key
 * is prepared, and one Groth16 check decides. The exit status separates the
 * two kinds of "no": 1 with INVALID on stdout when the files are well formed
 * and the pairing equation fails, 2 with a message when a file cannot be
 * read or is malformed (a point off the curve, a wrong number of public
 * inputs), so a script can tell a forged proof from a broken pipeline.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "cuzk/snarkjs_json.h"
#include "cuzk/verify.h"

typedef struct {
    cuzk_groth16_vk vk;
    cuzk_groth16_proof proof;
    cuzk_fr *inputs;
    size_t n_inputs;
} verify_files;

static int load(verify_files *f, const char *vk_path, const char *public_path, const char *proof_path)
{
    char err[CLI_ERRLEN] = "";
    int rc;
    if (cli_input_ok(vk_path) || cli_input_ok(public_path) || cli_input_ok(proof_path))
        return -1;
    if ((rc = cuzk_snarkjs_vk_read(vk_path, &f->vk, err, sizeof err)) != CUZK_OK) {
        cli_error_lib(vk_path, rc, err);
        return -1;
    }
    if ((rc = cuzk_snarkjs_public_read(public_path, &f->inputs, &f->n_inputs, err, sizeof err)) != CUZK_OK) {
        cli_error_lib(public_path, rc, err);
        return -1;
    }
    if ((rc = cuzk_snarkjs_proof_read(proof_path, &f->proof, err, sizeof err)) != CUZK_OK) {
        cli_error_lib(proof_path, rc, err);
        return -1;
    }
    if (f->n_inputs + 1 != f->vk.n_ic) {
        cli_error("%s has %zu public values but %s expects %zu", public_path, f->n_inputs, vk_path,
                  f->vk.n_ic - 1);
        return -1;
    }
    return 0;
}

/* Verifies the loaded files: CLI_OK, CLI_FAIL (the equation fails) or CLI_USAGE (malformed). */
static int check(const verify_files *f, const cli_args *a, cli_timer *t)
{
    char err[CLI_ERRLEN] = "";
    cuzk_groth16_pvk pvk;
    int rc = cuzk_groth16_prepare(&pvk, &f->vk, err, sizeof err);
    if (rc != CUZK_OK) {
        cli_error_lib(a->pos[0], rc, err);
        return CLI_USAGE;
    }
    rc = cuzk_groth16_verify(&pvk, f->inputs, f->n_inputs, &f->proof, err, sizeof err);
    cli_timer_lap(t, "verify");
    if (rc == CUZK_OK) {
        printf("OK\n");
        return CLI_OK;
    }
    if (rc == CUZK_EVERIFY) {
        printf("INVALID\n");
        return CLI_FAIL;
    }
    cli_error_lib(NULL, rc, err);
    return CLI_USAGE;
}

static int run_verify(const cli_args *a)
{
    verify_files f = {0};
    cli_timer t;
    cli_timer_start(&t);
    int status = CLI_USAGE;
    if (load(&f, a->pos[0], a->pos[1], a->pos[2]) == 0) {
        cli_timer_lap(&t, "load");
        status = check(&f, a, &t);
        cli_timer_report(&t, a, 1);
    }
    cuzk_groth16_vk_free(&f.vk);
    free(f.inputs);
    return status;
}

const cli_command cli_cmd_verify = {
    .name = "verify",
    .synopsis = "<verification_key.json> <public.json> <proof.json>",
    .summary = "verify a snarkjs Groth16 proof (exit 0 valid, 1 invalid, 2 unreadable)",
    .help = "Verifies proof.json against verification_key.json and the public signals in public.json\n"
            "(snarkjs's files and argument order, BLS12-381). Every point is checked to lie on its\n"
            "curve and in the prime-order subgroup before the pairing check.\n"
            "\n"
            "Prints OK and exits 0 when the proof is valid; prints INVALID and exits 1 when the\n"
            "pairing check fails; exits 2 with a message when a file is missing or malformed\n"
            "(bad JSON, a value not below its modulus, a point off the curve, a count mismatch).",
    .flags = CLI_F_VERBOSE,
    .min_pos = 3,
    .max_pos = 3,
    .run = run_verify,
    .status_is_answer = true,
};
