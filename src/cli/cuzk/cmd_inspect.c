/*
 * cmd_inspect.c — `cuzk inspect <file>`: what a file is, its sizes and
 * counts, and whether it is valid.
 *
 * Recognition goes from the most to the least specific evidence: the magic of
 * the circom/snarkjs binary containers ("zkey", "r1cs", "wtns"); bellperson's
 * .params/.vk, which have no magic, by cuzk_params_info (the length words must
 * account for every byte); a first non-blank byte '{' or '[' for the snarkjs
 * JSON files, told apart by their shape (an array is public.json, an object
 * with pi_a is proof.json, one with IC or vk_alpha_1 is
 * verification_key.json); and last a whole number of 192-byte bellperson
 * proofs. A .params/.vk begins with a random coordinate, so its first bytes
 * can be a blank and '{' (about one key in a thousand): the structure is asked
 * before the one byte. A file matching nothing is reported as unrecognized
 * (and invalid).
 *
 * Validity uses the library's own readers, so "valid" means "the prover or
 * verifier would accept it". The default level reads everything that is
 * cheap: the complete structure of every file, the six key points of a zkey,
 * every point of the JSON files, a .vk and proof bytes; for a .r1cs, the
 * wires no constraint uses are counted (information: the file stays valid).
 * --deep adds what costs time on large keys: every point of a .zkey or
 * .params decoded and checked on the curve and in the subgroup (on the thread
 * pool for .params).
 *
 * `cuzk inspect --circuit NAME [--seed S]` instead builds one of the gadget
 * circuits of cuzk/catalog.h with the witness of seed S (default 1) and prints
 * its fingerprint: inputs, aux, constraints (and how many the gadget itself
 * added), nnz of A, B, C, the prover's density popcounts, the domain, the
 * R1CS and witness digests; the status line says whether the witness
 * satisfies every row. `--circuit list` lists the names. These options are
 * parsed here (main.c hands the command line over when it sees --circuit).
 *
 * Output: a first line "<path>: <kind>", indented "name  value" lines, and
 * a last line "status: valid (<what was checked>)" or "status: invalid: <why>"
 * (the reason also goes to stderr as a `cuzk:` line). Exit 0 valid, 1
 * invalid or unrecognized, 2 usage error or an unreadable file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cuzk/catalog.h"
#include "cuzk/json.h"
#include "cuzk/params.h"
#include "cuzk/snarkjs.h"
#include "cuzk/snarkjs_json.h"
#include "cuzk/verify.h"

#define HEAD_LEN 64
#define MAX_PROOF_FILE ((size_t)CUZK_GROTH16_PROOF_SIZE << 20)

typedef struct {
    const char *path;
    const cli_args *a;
    uint64_t size;
    uint8_t head[HEAD_LEN];
    size_t head_len;
} inspect_ctx;

static void kind_line(const inspect_ctx *c, const char *kind)
{
    printf("%s: %s\n", c->path, kind);
    printf("  %-18s %llu bytes\n", "file size", (unsigned long long)c->size);
}

static void field(const char *name, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void field(const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("  %-18s ", name);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
}

/* Prints the status line; returns the exit status. */
static int verdict(const inspect_ctx *c, int rc, const char *err, const char *checked)
{
    if (rc == CUZK_OK) {
        printf("status: valid (%s)\n", checked);
        return CLI_OK;
    }
    const char *msg = (err && err[0]) ? err : cuzk_strerror(rc);
    printf("status: invalid: %s\n", msg);
    fflush(stdout);
    cli_error_lib(c->path, rc, msg);
    return CLI_FAIL;
}

static unsigned log2_ceil(uint64_t n)
{
    unsigned k = 0;
    while (((uint64_t)1 << k) < n)
        k++;
    return k;
}

/* ---- circom / snarkjs binary files ---------------------------------------------------------------- */

static int inspect_zkey(const inspect_ctx *c)
{
    char err[CLI_ERRLEN] = "";
    cuzk_snarkjs_zkey *zk = NULL;
    kind_line(c, "snarkjs Groth16 proving key (.zkey)");
    int rc = cuzk_snarkjs_zkey_open(c->path, &zk, err, sizeof err);
    if (rc == CUZK_OK) {
        field("version", "%u", zk->version);
        field("variables", "%u (wire 0 included)", zk->n_vars);
        field("public signals", "%u", zk->n_public);
        field("domain", "%u (2^%u)", zk->domain_size, log2_ceil(zk->domain_size));
        field("A/B coefficients", "%u", zk->n_coefs);
        field("points", "IC %zu, A %zu, B1 %zu, B2 %zu, C %zu, H %zu", zk->ic.count, zk->a.count,
              zk->b1.count, zk->b2.count, zk->c.count, zk->h.count);
        if (c->a->deep) {
            cli_note(c->a, "checking every point of %s", c->path);
            rc = cuzk_snarkjs_zkey_check_points(zk, CUZK_DECODE_CHECK_GROUP, err, sizeof err);
        }
    }
    cuzk_snarkjs_zkey_free(zk);
    return verdict(c, rc, err,
                   c->a->deep ? "structure and every point, subgroup included"
                              : "structure and key points; --deep checks every point");
}

/* Wires no constraint uses: information, not a verdict (the file is valid), but in a circom circuit
 * such a signal is usually a missing constraint: a private one takes any value a prover gives it. */
static void unused_line(const cuzk_snarkjs_r1cs *r)
{
    char which[128];
    int64_t n = cli_unused_wires(r, which, sizeof which);
    if (n < 0)
        field("unused wires", "not counted (out of memory for a %u-bit map)", r->n_wires);
    else if (n == 0)
        field("unused wires", "none (every wire but 0 is in a constraint)");
    else
        field("unused wires", "%lld in no constraint %s: nothing binds their values", (long long)n, which);
}

static int inspect_r1cs(const inspect_ctx *c)
{
    char err[CLI_ERRLEN] = "";
    cuzk_snarkjs_r1cs *r = NULL;
    kind_line(c, "circom constraint system (.r1cs)");
    int rc = cuzk_snarkjs_r1cs_open(c->path, &r, err, sizeof err);
    if (rc == CUZK_OK) {
        uint64_t rows = (uint64_t)r->n_constraints + r->n_pub_out + r->n_pub_in + 1;
        field("version", "%u", r->version);
        field("constraints", "%u", r->n_constraints);
        field("wires", "%u (wire 0 included)", r->n_wires);
        field("public", "%u outputs, %u inputs", r->n_pub_out, r->n_pub_in);
        field("private inputs", "%u", r->n_prv_in);
        field("labels", "%llu", (unsigned long long)r->n_labels);
        field("terms", "A %llu, B %llu, C %llu", (unsigned long long)r->a.nnz, (unsigned long long)r->b.nnz,
              (unsigned long long)r->c.nnz);
        field("Groth16 domain", "2^%u (constraints + public + 1 = %llu rows)", log2_ceil(rows),
              (unsigned long long)rows);
        unused_line(r);
    }
    cuzk_snarkjs_r1cs_free(r);
    return verdict(c, rc, err, "structure, every coefficient below r");
}

static int inspect_wtns(const inspect_ctx *c)
{
    char err[CLI_ERRLEN] = "";
    cuzk_snarkjs_wtns *w = NULL;
    kind_line(c, "circom witness (.wtns)");
    int rc = cuzk_snarkjs_wtns_open(c->path, &w, err, sizeof err);
    if (rc == CUZK_OK) {
        field("version", "%u", w->version);
        field("values", "%u (the constant 1 included)", w->n);
        if (w->n == 0 || !cuzk_fr_is_one(&w->values[0]))
            rc = cuzk_fail(err, sizeof err, CUZK_EINVAL, "wtns: the first value must be the constant 1");
    }
    cuzk_snarkjs_wtns_free(w);
    return verdict(c, rc, err, "structure, every value below r, first value 1");
}

/* ---- snarkjs JSON ---------------------------------------------------------------------------------- */

static int inspect_vk_json(const inspect_ctx *c, const char *text, size_t len)
{
    char err[CLI_ERRLEN] = "";
    cuzk_groth16_vk vk;
    memset(&vk, 0, sizeof vk);
    kind_line(c, "snarkjs verification key (verification_key.json)");
    int rc = cuzk_snarkjs_vk_parse(text, len, &vk, err, sizeof err);
    if (rc == CUZK_OK)
        field("public signals", "%zu (IC has %zu points)", vk.n_ic - 1, vk.n_ic);
    cuzk_groth16_vk_free(&vk);
    return verdict(c, rc, err, "every point on its curve and in the subgroup");
}

static int inspect_proof_json(const inspect_ctx *c, const char *text, size_t len)
{
    char err[CLI_ERRLEN] = "";
    cuzk_groth16_proof proof;
    kind_line(c, "snarkjs Groth16 proof (proof.json)");
    int rc = cuzk_snarkjs_proof_parse(text, len, &proof, err, sizeof err);
    return verdict(c, rc, err,
                   "every point on its curve and in the subgroup; `cuzk verify` checks the proof");
}

static int inspect_public_json(const inspect_ctx *c, const char *text, size_t len)
{
    char err[CLI_ERRLEN] = "";
    cuzk_fr *v = NULL;
    size_t n = 0;
    kind_line(c, "snarkjs public signals (public.json)");
    int rc = cuzk_snarkjs_public_parse(text, len, &v, &n, err, sizeof err);
    if (rc == CUZK_OK)
        field("values", "%zu", n);
    free(v);
    return verdict(c, rc, err, "every value a canonical decimal below r");
}

/* Which snarkjs file a parsed document looks like: 'v', 'p', 'u' (public) or 0. */
static int json_shape(const char *text, size_t len, char *err, size_t errlen)
{
    cuzk_json_doc *doc = NULL;
    if (cuzk_json_parse(text, len, NULL, &doc, err, errlen) != CUZK_OK)
        return -1;
    const cuzk_json_value *root = cuzk_json_root(doc);
    int shape = 0;
    if (root->type == CUZK_JSON_ARRAY)
        shape = 'u';
    else if (cuzk_json_member(root, "pi_a"))
        shape = 'p';
    else if (cuzk_json_member(root, "IC") || cuzk_json_member(root, "vk_alpha_1"))
        shape = 'v';
    cuzk_json_free(doc);
    return shape;
}

static int inspect_json(const inspect_ctx *c)
{
    char err[CLI_ERRLEN] = "";
    uint8_t *data = NULL;
    size_t len = 0;
    if (cli_read_file(c->path, CUZK_JSON_DEFAULT_MAX_BYTES, &data, &len) != 0)
        return CLI_USAGE;
    const char *text = (const char *)data;
    int status, shape = json_shape(text, len, err, sizeof err);
    if (shape == 'v')
        status = inspect_vk_json(c, text, len);
    else if (shape == 'p')
        status = inspect_proof_json(c, text, len);
    else if (shape == 'u')
        status = inspect_public_json(c, text, len);
    else {
        kind_line(c, "JSON text, not a snarkjs Groth16 file");
        if (shape == 0)
            cuzk_fail(err, sizeof err, CUZK_EINVAL,
                      "an object without pi_a, IC or vk_alpha_1 (not proof.json or verification_key.json)");
        status = verdict(c, CUZK_EINVAL, err, "");
    }
    free(data);
    return status;
}

/* ---- bellperson files --------------------------------------------------------------------------------- */

static int check_params(const inspect_ctx *c, char *err, size_t errlen)
{
    cuzk_groth16_params pk;
    memset(&pk, 0, sizeof pk);
    cuzk_pool *pool = cli_pool_new(c->a);
    if (!pool)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "no thread pool");
    cli_progress p;
    cli_progress_init(&p, c->path);
    cuzk_params_read_opts opts = {
        .flags = CUZK_PARAMS_CHECK_GROUP,
        .pool = pool,
        .progress = c->a->progress ? cli_progress_fn : NULL,
        .progress_ctx = &p,
    };
    int rc = cuzk_params_read_ex(c->path, &pk, &opts, err, errlen);
    if (rc != CUZK_OK && p.tty && p.last_pct >= 0 && p.last_pct < 100)
        fputc('\n', stderr);
    cuzk_groth16_params_free(&pk);
    cuzk_pool_free(pool);
    return rc;
}

static int inspect_params(const inspect_ctx *c, const cuzk_params_summary *s)
{
    char err[CLI_ERRLEN] = "";
    int rc = CUZK_OK;
    const char *checked;
    kind_line(c, s->vk_only ? "bellperson Groth16 verifying key (.vk)"
                 : s->coset ? "cuzk coset key (a .params key in the coset form: `cuzk coset-key`)"
                            : "bellperson Groth16 proving key (.params)");
    field("public inputs", "%u (ic has %u points, ONE included)", s->n_ic ? s->n_ic - 1 : 0, s->n_ic);
    if (s->vk_only) {
        cuzk_groth16_vk vk;
        memset(&vk, 0, sizeof vk);
        rc = cuzk_vk_read(c->path, &vk, CUZK_PARAMS_CHECK_GROUP, err, sizeof err);
        cuzk_groth16_vk_free(&vk);
        checked = "every point on its curve and in the subgroup";
    } else {
        if (s->coset) { /* h over the coset's Lagrange basis, l over every variable */
            field("domain", "%u (h has %u points)", s->n_h, s->n_h);
            field("aux variables", "%u (l has %u points, inputs included)", s->n_l - s->n_ic, s->n_l);
        } else {
            field("domain", "%llu (h has %u points)", (unsigned long long)s->n_h + 1, s->n_h);
            field("aux variables", "%u (l)", s->n_l);
        }
        field("query sizes", "a %u, b_g1 %u, b_g2 %u", s->n_a, s->n_b_g1, s->n_b_g2);
        checked = "length words; --deep checks every point";
        if (c->a->deep) {
            rc = check_params(c, err, sizeof err);
            checked = "every point on its curve and in the subgroup";
        }
    }
    return verdict(c, rc, err, checked);
}

static int inspect_proofs(const inspect_ctx *c)
{
    char err[CLI_ERRLEN] = "";
    uint8_t *data = NULL;
    size_t len = 0, n = 0;
    if (cli_read_file(c->path, MAX_PROOF_FILE, &data, &len) != 0)
        return CLI_USAGE;
    size_t max = len / CUZK_GROTH16_PROOF_SIZE;
    cuzk_groth16_proof *proofs = malloc(max * sizeof *proofs);
    kind_line(c, "bellperson Groth16 proof bytes (192 bytes per proof)");
    int rc = proofs ? cuzk_groth16_proofs_from_bytes(proofs, max, data, len, &n, err, sizeof err)
                    : cuzk_fail(err, sizeof err, CUZK_ENOMEM, "out of memory");
    field("proofs", "%zu", max);
    free(proofs);
    free(data);
    return verdict(c, rc, err, "every point canonical, on its curve, in the subgroup, not the identity");
}

/* ---- recognition ----------------------------------------------------------------------------------------
 */

static int read_head(inspect_ctx *c)
{
    int fd = open(c->path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        cli_error("%s: cannot open: %s", c->path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    c->size = (uint64_t)st.st_size;
    ssize_t n = pread(fd, c->head, HEAD_LEN, 0);
    close(fd);
    if (n < 0) {
        cli_error("%s: cannot read: %s", c->path, strerror(errno));
        return -1;
    }
    c->head_len = (size_t)n;
    return 0;
}

static bool looks_like_json(const inspect_ctx *c)
{
    for (size_t i = 0; i < c->head_len; i++) {
        uint8_t b = c->head[i];
        if (b == ' ' || b == '\t' || b == '\n' || b == '\r')
            continue;
        return b == '{' || b == '[';
    }
    return false;
}

/* What is not a container nor a .params/.vk (rc, err: why cuzk_params_info refused it). */
static int inspect_other(const inspect_ctx *c, int rc, const char *err)
{
    if (looks_like_json(c))
        return inspect_json(c);
    if (c->size > 0 && c->size % CUZK_GROTH16_PROOF_SIZE == 0 && c->size <= MAX_PROOF_FILE)
        return inspect_proofs(c);
    kind_line(c, "unrecognized");
    char why[2 * CLI_ERRLEN];
    if (c->size == 0)
        snprintf(why, sizeof why, "empty file");
    else
        snprintf(why, sizeof why,
                 "no .zkey/.r1cs/.wtns magic, not JSON, not a whole number of 192-byte proofs, "
                 "and not a bellperson .params/.vk (%s)",
                 err[0] ? err : cuzk_strerror(rc));
    return verdict(c, CUZK_EINVAL, why, "");
}

static int run_inspect(const cli_args *a)
{
    inspect_ctx c = {.path = a->pos[0], .a = a};
    if (cli_input_ok(c.path) != 0 || read_head(&c) != 0)
        return CLI_USAGE;
    if (c.head_len >= 4 && !memcmp(c.head, "zkey", 4))
        return inspect_zkey(&c);
    if (c.head_len >= 4 && !memcmp(c.head, "r1cs", 4))
        return inspect_r1cs(&c);
    if (c.head_len >= 4 && !memcmp(c.head, "wtns", 4))
        return inspect_wtns(&c);
    char err[CLI_ERRLEN] = "";
    cuzk_params_summary s;
    int rc = cuzk_params_info(c.path, &s, err, sizeof err);
    if (rc == CUZK_OK)
        return inspect_params(&c, &s);
    return inspect_other(&c, rc, err);
}

/* ---- gadget circuits ------------------------------------------------------------------------------------
 */

static bool is_circuit_opt(const char *arg)
{
    return !strcmp(arg, "--circuit") || !strncmp(arg, "--circuit=", 10);
}

bool cli_inspect_circuit_wanted(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            return false;
        if (is_circuit_opt(argv[i]))
            return true;
    }
    return false;
}

static int circuit_usage(const char *fmt, const char *what)
{
    fprintf(stderr, "cuzk: inspect: ");
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
    fprintf(stderr, "Usage: cuzk inspect --circuit NAME [--seed S]   (NAME `list` lists the circuits)\n");
    return CLI_USAGE;
}

/* Takes "--opt VALUE" or "--opt=VALUE" at argv[*i]; NULL (after a message) when the value is missing. */
static const char *opt_value(int argc, char **argv, int *i, size_t optlen)
{
    const char *arg = argv[*i];
    if (arg[optlen] == '=')
        return arg[optlen + 1] ? arg + optlen + 1 : NULL;
    if (*i + 1 < argc && argv[*i + 1][0])
        return argv[++*i];
    return NULL;
}

static void hex_line(const char *name, const uint8_t d[32])
{
    char hex[65];
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    field(name, "%s", hex);
}

int cli_inspect_circuit_main(int argc, char **argv)
{
    const char *name = NULL, *seed_s = NULL;
    for (int i = 0; i < argc; i++) {
        if (is_circuit_opt(argv[i])) {
            if (name)
                return circuit_usage("%s given twice", "--circuit");
            if (!(name = opt_value(argc, argv, &i, 9)))
                return circuit_usage("%s needs a value", "--circuit");
        } else if (!strcmp(argv[i], "--seed") || !strncmp(argv[i], "--seed=", 7)) {
            if (seed_s)
                return circuit_usage("%s given twice", "--seed");
            if (!(seed_s = opt_value(argc, argv, &i, 6)))
                return circuit_usage("%s needs a value", "--seed");
        } else {
            return circuit_usage("'%s' does not go with --circuit", argv[i]);
        }
    }
    if (!name) /* e.g. "--seed --circuit": the option before took it as its value */
        return circuit_usage("%s NAME is missing", "--circuit");
    if (!strcmp(name, "list")) {
        for (size_t k = 0; k < cuzk_catalog_count(); k++)
            printf("%-22s %s\n", cuzk_catalog_name(k), cuzk_catalog_summary(k));
        return CLI_OK;
    }
    uint64_t seed = 1;
    if (seed_s) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(seed_s, &end, 0);
        if (errno || *end || seed_s[0] == '-' || seed_s[0] == '+' || seed_s[0] == ' ')
            return circuit_usage("--seed expects an unsigned 64-bit integer, not '%s'", seed_s);
        seed = v;
    }
    size_t k = 0;
    while (k < cuzk_catalog_count() && strcmp(cuzk_catalog_name(k), name))
        k++;
    if (k == cuzk_catalog_count())
        return circuit_usage("no circuit named '%s' (`cuzk inspect --circuit list` lists them)", name);
    char err[CLI_ERRLEN] = "";
    cuzk_catalog_fp fp;
    int rc = cuzk_catalog_fingerprint(name, seed, &fp, err, sizeof err);
    if (rc != CUZK_OK) {
        cli_error("circuit %s: %s", name, err[0] ? err : cuzk_strerror(rc));
        return CLI_FAIL;
    }
    uint64_t rows = fp.n_constraints + fp.n_inputs;
    printf("circuit %s: %s\n", name, cuzk_catalog_summary(k));
    field("seed", "%llu", (unsigned long long)seed);
    field("inputs", "%llu (ONE included)", (unsigned long long)fp.n_inputs);
    field("aux", "%llu", (unsigned long long)fp.n_aux);
    field("constraints", "%llu (gadget %llu, input allocation %llu)", (unsigned long long)fp.n_constraints,
          (unsigned long long)fp.gadget_constraints,
          (unsigned long long)(fp.n_constraints - fp.gadget_constraints));
    field("nnz", "A %llu, B %llu, C %llu", (unsigned long long)fp.nnz_a, (unsigned long long)fp.nnz_b,
          (unsigned long long)fp.nnz_c);
    field("density", "A aux %llu, B input %llu, B aux %llu", (unsigned long long)fp.a_aux,
          (unsigned long long)fp.b_input, (unsigned long long)fp.b_aux);
    field("Groth16 domain", "2^%u (constraints + inputs = %llu rows)", log2_ceil(rows),
          (unsigned long long)rows);
    hex_line("r1cs digest", fp.digest);
    hex_line("witness digest", fp.witness_digest);
    if (fp.first_failure >= 0) {
        printf("status: invalid: the witness fails row %lld\n", (long long)fp.first_failure);
        fflush(stdout);
        cli_error("circuit %s: the witness fails row %lld", name, (long long)fp.first_failure);
        return CLI_FAIL;
    }
    printf("status: valid (the witness satisfies every row)\n");
    return CLI_OK;
}

const cli_command cli_cmd_inspect = {
    .name = "inspect",
    .synopsis = "<file> | --circuit NAME [--seed S]",
    .summary = "tell what a key, circuit, witness or proof file is, its sizes, and if it is valid",
    .help = "Recognizes snarkjs/circom files (.zkey, .r1cs, .wtns, verification_key.json, proof.json,\n"
            "public.json) and bellperson files (.params, .vk, 192-byte proofs) by their content, prints\n"
            "their counts and sizes, and checks them with the same readers the prover and verifiers\n"
            "use. The last line is `status: valid (...)` or `status: invalid: <reason>`.\n"
            "\n"
            "By default the checks are the cheap ones: the full structure, plus every point of the\n"
            "small files. --deep also decodes every point of a .zkey or .params and checks that it is\n"
            "on its curve and in the prime-order subgroup. For a .r1cs it counts the wires that no\n"
            "constraint uses (nothing binds their values), and names the first.\n"
            "\n"
            "--circuit NAME [--seed S] builds a named gadget circuit (SHA-256 blocks, Merkle insertion,\n"
            "bit decomposition, packing, Poseidon, PoR paths, the Filecoin label) with the witness of\n"
            "seed S (default 1) and prints its fingerprint: inputs, aux, constraints, nnz of A/B/C,\n"
            "densities, R1CS and witness digests.\n"
            "`--circuit list` lists the names.\n"
            "Exit status: 0 valid, 1 invalid or unrecognized, 2 usage error or unreadable file.",
    .flags = CLI_F_THREADS | CLI_F_DEEP | CLI_F_PROGRESS,
    .min_pos = 1,
    .max_pos = 1,
    .run = run_inspect,
};
