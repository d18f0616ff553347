/*
 * cmd_setup.c — `cuzk setup <circuit.r1cs> <out.params> [<out.vk>]`: a
 * circuit-specific Groth16 key in bellperson's layout, from a circom .r1cs;
 * `cuzk setup <circuit.r1cs> <out.zkey>`: the same in snarkjs's .zkey layout
 * (cuzk/zkey_setup.h), chosen by the output's name ending in ".zkey", with no
 * powers-of-tau file.
 *
 * NOT A TRUSTED CEREMONY: the toxic waste comes from getrandom() in this
 * process (cuzk/setup.h), and the command says so on stderr every time it
 * runs. The circuit is converted with cuzk_cs_from_snarkjs (wire 0 = ONE,
 * then the public outputs and inputs as bellperson inputs, the rest as aux).
 *
 * Every output's temporary file (cli_out: removed on failure or a signal) is
 * created before the setup starts, so a bad destination fails at once. The
 * .params and .vk are written into theirs when the key is made and renamed
 * into place together, the .vk first: a failure leaves the old files as they
 * were. A .zkey is streamed into its temporary file as the setup computes it
 * and renamed over the output only when the whole key is written.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cuzk/cs.h"
#include "cuzk/params.h"
#include "cuzk/setup.h"
#include "cuzk/snarkjs.h"
#include "cuzk/zkey_setup.h"

#define WARNING                                                                                              \
    "cuzk: WARNING: NOT A TRUSTED CEREMONY — for tests and benchmarks only. The toxic waste was drawn\n"   \
    "cuzk: in this process; anyone who learns it can forge proofs for this key.\n"

static int load_cs(cuzk_cs *cs, const char *path, const cli_args *a)
{
    char err[CLI_ERRLEN] = "";
    cuzk_snarkjs_r1cs *r1cs = NULL;
    cli_note(a, "reading %s", path);
    int rc = cuzk_snarkjs_r1cs_open(path, &r1cs, err, sizeof err);
    /* nothing binds a free wire's value: say so; whether the key can be made is the setup's to say */
    char which[128];
    int64_t n_free = rc == CUZK_OK ? cli_unused_wires(r1cs, which, sizeof which) : 0;
    if (n_free > 0)
        fprintf(stderr, "cuzk: warning: %s: %lld wires are in no constraint %s: nothing binds their values\n",
                path, (long long)n_free, which);
    if (rc == CUZK_OK)
        rc = cuzk_cs_from_snarkjs(cs, r1cs, err, sizeof err);
    cuzk_snarkjs_r1cs_free(r1cs);
    if (rc != CUZK_OK) {
        cli_error_lib(path, rc, err);
        return -1;
    }
    return 0;
}

static int make_key(cuzk_groth16_params *pk, const cuzk_cs *cs, cuzk_pool *pool, const cli_args *a)
{
    char err[CLI_ERRLEN] = "";
    unsigned lg = 0;
    int rc = cuzk_groth16_domain_lg(&lg, cs, err, sizeof err);
    if (rc == CUZK_OK) {
        cli_note(a, "setup: %zu constraints, %zu inputs, %zu aux variables, domain 2^%u, %d threads",
                 cs->n_constraints, cs->n_inputs, cs->n_aux, lg, cuzk_pool_size(pool));
        rc = cuzk_groth16_setup(pk, cs, NULL, pool, err, sizeof err);
    }
    if (rc != CUZK_OK) {
        cli_error_lib(a->pos[0], rc, err);
        return -1;
    }
    return 0;
}

/* Writes the .params (and .vk) into their open outputs, then commits them as one: a failure leaves both
 * files as they were. */
static int write_keys(const cuzk_groth16_params *pk, cli_out *params_out, cli_out *vk_out, const cli_args *a)
{
    char err[CLI_ERRLEN] = "";
    const char *params_path = a->pos[1], *vk_path = a->n_pos > 2 ? a->pos[2] : NULL;
    cli_note(a, "writing %s%s%s", params_path, vk_path ? " and " : "", vk_path ? vk_path : "");
    int rc = cuzk_params_write_to(params_out, pk, err, sizeof err);
    if (rc == CUZK_OK && vk_path)
        rc = cuzk_vk_write_to(vk_out, &pk->vk, err, sizeof err);
    if (rc != CUZK_OK) {
        cli_error_lib(NULL, rc, err);
        return -1;
    }
    if (vk_path ? cli_out_commit_pair(params_out, vk_out) != 0 : cli_out_commit(params_out) != 0)
        return -1;
    return 0;
}

static bool is_zkey_name(const char *path)
{
    size_t n = strlen(path);
    return n >= 5 && !strcmp(path + n - 5, ".zkey");
}

/* The sink of cuzk_zkey_setup: the atomic output. cli_out_write prints its own error. */
typedef struct {
    cli_out *out;
    bool failed;
} zkey_sink_ctx;

static int zkey_sink(void *ctx, const void *buf, size_t len)
{
    zkey_sink_ctx *z = ctx;
    if (cli_out_write(z->out, buf, len) != 0) {
        z->failed = true;
        return -1;
    }
    return 0;
}

static int run_setup_zkey(const cli_args *a)
{
    const char *r1cs_path = a->pos[0], *zkey_path = a->pos[1];
    cli_out out = {0};
    if (cli_input_ok(r1cs_path) || cli_out_open(&out, zkey_path))
        return CLI_FAIL;
    cli_timer t;
    cli_timer_start(&t);
    cuzk_cs cs;
    memset(&cs, 0, sizeof cs);
    cuzk_pool *pool = NULL;
    int status = CLI_FAIL;
    if (load_cs(&cs, r1cs_path, a) != 0 || !(pool = cli_pool_new(a)))
        goto done;
    cli_timer_lap(&t, "load");
    char err[CLI_ERRLEN] = "";
    unsigned lg = 0;
    int rc = cuzk_zkey_domain_lg(&lg, &cs, err, sizeof err);
    if (rc == CUZK_OK) {
        cli_note(a,
                 "setup: %zu constraints, %zu public signals, %zu variables, domain 2^%u, %d threads; "
                 "writing %s",
                 cs.n_constraints, cs.n_inputs - 1, cs.n_inputs + cs.n_aux, lg, cuzk_pool_size(pool),
                 zkey_path);
        zkey_sink_ctx sink = {.out = &out};
        rc = cuzk_zkey_setup(&cs, NULL, zkey_sink, &sink, pool, err, sizeof err);
        if (rc != CUZK_OK && sink.failed)
            goto done; /* the write error is already on stderr */
    }
    if (rc != CUZK_OK) {
        cli_error_lib(r1cs_path, rc, err);
        goto done;
    }
    cli_timer_lap(&t, "setup");
    if (cli_out_commit(&out) != 0)
        goto done;
    cli_timer_lap(&t, "sync");
    cli_timer_report(&t, a, cuzk_pool_size(pool));
    status = CLI_OK;
done:
    cli_out_abort(&out);
    cuzk_cs_free(&cs);
    cuzk_pool_free(pool);
    return status;
}

static int run_setup(const cli_args *a)
{
    fputs(WARNING, stderr);
    if (is_zkey_name(a->pos[1])) {
        if (a->n_pos > 2) {
            cli_error("setup: a .zkey output takes no third argument (the key holds its verifying key: "
                      "`snarkjs zkey export verificationkey %s verification_key.json`)",
                      a->pos[1]);
            return CLI_USAGE;
        }
        return run_setup_zkey(a);
    }
    cli_out params_out = {0}, vk_out = {0};
    if (cli_input_ok(a->pos[0]) || cli_out_open(&params_out, a->pos[1]) ||
        (a->n_pos > 2 && cli_out_open(&vk_out, a->pos[2]))) {
        cli_out_abort(&params_out);
        return CLI_FAIL;
    }
    cli_timer t;
    cli_timer_start(&t);
    cuzk_cs cs;
    memset(&cs, 0, sizeof cs);
    cuzk_groth16_params pk;
    memset(&pk, 0, sizeof pk);
    cuzk_pool *pool = NULL;
    int status = CLI_FAIL;
    if (load_cs(&cs, a->pos[0], a) != 0 || !(pool = cli_pool_new(a)))
        goto done;
    cli_timer_lap(&t, "load");
    if (make_key(&pk, &cs, pool, a) != 0)
        goto done;
    cli_timer_lap(&t, "setup");
    if (write_keys(&pk, &params_out, &vk_out, a) != 0)
        goto done;
    cli_timer_lap(&t, "write");
    cli_timer_report(&t, a, cuzk_pool_size(pool));
    status = CLI_OK;
done:
    cli_out_abort(&params_out);
    cli_out_abort(&vk_out);
    cuzk_groth16_params_free(&pk);
    cuzk_cs_free(&cs);
    cuzk_pool_free(pool);
    return status;
}

const cli_command cli_cmd_setup = {
    .name = "setup",
    .synopsis = "<circuit.r1cs> <out.params> [<out.vk>] | <circuit.r1cs> <out.zkey>",
    .summary = "make a bellperson .params/.vk or snarkjs .zkey key from a .r1cs (NOT a trusted ceremony)",
    .help = "Builds a Groth16 proving key in bellperson's .params layout for the circuit in\n"
            "circuit.r1cs (circom, BLS12-381), and optionally its verifying key as a .vk file.\n"
            "Public outputs and public inputs of the circuit become the key's public inputs.\n"
            "\n"
            "When the output's name ends in .zkey, the key is a snarkjs Groth16 .zkey instead,\n"
            "made directly (no powers-of-tau file): `snarkjs groth16 prove`, `cuzk prove` and\n"
            "`snarkjs zkey export verificationkey` accept it. It takes no third argument.\n"
            "\n"
            "NOT A TRUSTED CEREMONY: the toxic waste is drawn from the system's random generator in\n"
            "this process, and whoever learns it can forge proofs. Use the keys for tests and\n"
            "benchmarks only; production keys come from a multi-party ceremony.\n"
            "\n"
            "Wires that no constraint uses (nothing binds their values) get a warning on stderr;\n"
            "a .zkey is made all the same, a .params key cannot hold a free private wire.\n"
            "\n"
            "Outputs are written atomically; on failure no output file is left behind.\n"
            "Exit status: 0 success, 1 failure, 2 usage error.",
    .flags = CLI_F_THREADS | CLI_F_VERBOSE | CLI_F_PROGRESS,
    .min_pos = 2,
    .max_pos = 3,
    .run = run_setup,
    .outputs = 1u << 1 | 1u << 2, /* the key, the .vk */
};
