/*
 * verify.c — Groth16 verification (single and batched) and the 192-byte
 * proof encoding; the contract is in cuzk/verify.h.
 *
 * Single proof. The prepared key holds e(alpha, beta) and the Miller-loop
 * lines of -gamma and -delta, so a verification is: check the proof points,
 * IC = ic[0] + sum x_i ic[i] (one double-and-add per non-zero input), compute
 * the lines of B, one multi-Miller loop over (A, B), (IC, -gamma),
 * (C, -delta), one final exponentiation, one comparison with e(alpha, beta).
 * Preparing B costs the same point arithmetic an unprepared loop would do, so
 * all three pairs share the 63 squarings of f.
 *
 * Batch (bellperson's verify_proofs_batch). With weights z_j drawn uniformly
 * from [0, 2^128), the n equations e(A_j, B_j) = e(ab) e(IC_j, gamma) e(C_j,
 * delta) are replaced by their weighted product
 *     prod_j e(z_j A_j, B_j) · e(sum_j z_j IC_j, -gamma) · e(sum_j z_j C_j, -delta)
 *         = e(alpha, beta)^(sum_j z_j).
 * If some proof is invalid the product holds for at most one value of one
 * weight given the others, i.e. with probability <= 2^-128. sum_j z_j IC_j is
 * formed on the scalar side first: s_0 = sum z_j, s_i = sum_j z_j x_ji, then
 * one combination of the ic points, so the cost in G1 is one 128-bit
 * multiplication for each A_j and C_j plus one IC combination, and the Miller
 * loop has n + 2 pairs with one final exponentiation for the whole batch.
 * The weights come from getrandom(): a prover who could predict them could
 * make two wrong proofs cancel.
 */
#include "cuzk/verify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cuzk/serialize.h"

/* Checks that p is a G1 group element (the identity is one). */
static int check_g1(const cuzk_g1_affine *p, const char *what, char *err, size_t errlen)
{
    if (cuzk_g1_affine_is_identity(p))
        return CUZK_OK;
    if (!cuzk_g1_affine_on_curve(p))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "verify: %s is not on the curve", what);
    if (!cuzk_g1_affine_in_group(p))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "verify: %s is not in the r-order subgroup", what);
    return CUZK_OK;
}

static int check_g2(const cuzk_g2_affine *p, const char *what, char *err, size_t errlen)
{
    if (cuzk_g2_affine_is_identity(p))
        return CUZK_OK;
    if (!cuzk_g2_affine_on_curve(p))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "verify: %s is not on the curve", what);
    if (!cuzk_g2_affine_in_group(p))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "verify: %s is not in the r-order subgroup", what);
    return CUZK_OK;
}

int cuzk_groth16_prepare(cuzk_groth16_pvk *pvk, const cuzk_groth16_vk *vk, char *err, size_t errlen)
{
    if (!vk->ic || vk->n_ic == 0)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "verify: the key has no IC points");
    int rc;
    if ((rc = check_g1(&vk->alpha_g1, "key alpha", err, errlen)) ||
        (rc = check_g2(&vk->beta_g2, "key beta", err, errlen)) ||
        (rc = check_g2(&vk->gamma_g2, "key gamma", err, errlen)) ||
        (rc = check_g2(&vk->delta_g2, "key delta", err, errlen)))
        return rc;
    for (size_t i = 0; i < vk->n_ic; i++) {
        char what[40];
        snprintf(what, sizeof what, "key IC[%zu]", i);
        if ((rc = check_g1(&vk->ic[i], what, err, errlen)))
            return rc;
    }
    cuzk_pairing(&pvk->alpha_beta, &vk->alpha_g1, &vk->beta_g2);
    cuzk_g2_affine neg;
    cuzk_g2_affine_neg(&neg, &vk->gamma_g2);
    cuzk_g2_prepare(&pvk->neg_gamma, &neg);
    cuzk_g2_affine_neg(&neg, &vk->delta_g2);
    cuzk_g2_prepare(&pvk->neg_delta, &neg);
    pvk->ic = vk->ic;
    pvk->n_ic = vk->n_ic;
    return CUZK_OK;
}

static int check_count(const cuzk_groth16_pvk *pvk, size_t n_inputs, char *err, size_t errlen)
{
    if (n_inputs + 1 != pvk->n_ic || n_inputs == SIZE_MAX)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "verify: %zu public inputs but the key expects %zu",
                         n_inputs, pvk->n_ic - 1);
    return CUZK_OK;
}

static int check_proof(const cuzk_groth16_proof *proof, size_t j, bool batch, char *err, size_t errlen)
{
    char a[40], b[40], c[40];
    if (batch) {
        snprintf(a, sizeof a, "proof %zu A", j);
        snprintf(b, sizeof b, "proof %zu B", j);
        snprintf(c, sizeof c, "proof %zu C", j);
    } else {
        strcpy(a, "proof A");
        strcpy(b, "proof B");
        strcpy(c, "proof C");
    }
    int rc;
    if ((rc = check_g1(&proof->a, a, err, errlen)) || (rc = check_g2(&proof->b, b, err, errlen)) ||
        (rc = check_g1(&proof->c, c, err, errlen)))
        return rc;
    return CUZK_OK;
}

/* out = sum_i s[i] ic[i] over n points (scalars Montgomery Fr). */
static void ic_combine(cuzk_g1_affine *out, const cuzk_g1_affine *ic, const cuzk_fr *s, size_t n)
{
    cuzk_g1 acc, t;
    cuzk_g1_set_identity(&acc);
    for (size_t i = 0; i < n; i++) {
        if (cuzk_fr_is_zero(&s[i]))
            continue;
        if (cuzk_fr_is_one(&s[i])) {
            cuzk_g1_add_affine(&acc, &acc, &ic[i]);
            continue;
        }
        cuzk_g1_from_affine(&t, &ic[i]);
        cuzk_g1_mul_fr(&t, &t, &s[i]);
        cuzk_g1_add(&acc, &acc, &t);
    }
    cuzk_g1_to_affine(out, &acc);
}

int cuzk_groth16_verify(const cuzk_groth16_pvk *pvk, const cuzk_fr *inputs, size_t n_inputs,
                        const cuzk_groth16_proof *proof, char *err, size_t errlen)
{
    int rc;
    if ((rc = check_count(pvk, n_inputs, err, errlen)) || (rc = check_proof(proof, 0, false, err, errlen)))
        return rc;
    /* IC = ic[0] + sum x_i ic[i]: the weights are 1, x_1, ..., x_n */
    cuzk_g1 acc, t;
    cuzk_g1_from_affine(&acc, &pvk->ic[0]);
    for (size_t i = 0; i < n_inputs; i++) {
        if (cuzk_fr_is_zero(&inputs[i]))
            continue;
        cuzk_g1_from_affine(&t, &pvk->ic[i + 1]);
        cuzk_g1_mul_fr(&t, &t, &inputs[i]);
        cuzk_g1_add(&acc, &acc, &t);
    }
    cuzk_g1_affine P[3];
    P[0] = proof->a;
    cuzk_g1_to_affine(&P[1], &acc);
    P[2] = proof->c;
    cuzk_g2_prepared b;
    cuzk_g2_prepare(&b, &proof->b);
    const cuzk_g2_prepared *Q[3] = {&b, &pvk->neg_gamma, &pvk->neg_delta};
    cuzk_fp12 f;
    cuzk_miller_loop_prepared_n(&f, P, Q, 3);
    cuzk_final_exp(&f, &f);
    if (!cuzk_fp12_eq(&f, &pvk->alpha_beta))
        return cuzk_fail(err, errlen, CUZK_EVERIFY, "verify: the pairing equation does not hold");
    return CUZK_OK;
}

int cuzk_groth16_verify_batch(const cuzk_groth16_pvk *pvk, const cuzk_fr *inputs, size_t n_inputs,
                              const cuzk_groth16_proof *proofs, size_t n_proofs, char *err, size_t errlen)
{
    int rc;
    if (n_proofs == 0)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "verify: empty batch");
    if ((rc = check_count(pvk, n_inputs, err, errlen)))
        return rc;
    if (n_proofs > SIZE_MAX / sizeof(cuzk_g2_affine) / 4)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "verify: batch of %zu proofs is too large", n_proofs);
    for (size_t j = 0; j < n_proofs; j++)
        if ((rc = check_proof(&proofs[j], j, true, err, errlen)))
            return rc;

    uint64_t(*z)[2] = malloc(n_proofs * sizeof *z);
    cuzk_g1 *za = malloc(n_proofs * sizeof *za);
    cuzk_g1_affine *za_aff = malloc(n_proofs * sizeof *za_aff);
    cuzk_fp *scratch = malloc(n_proofs * sizeof *scratch);
    cuzk_g2_affine *b = malloc(n_proofs * sizeof *b);
    cuzk_fr *s = calloc(pvk->n_ic, sizeof *s);
    if (!z || !za || !za_aff || !scratch || !b || !s) {
        rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "verify: out of memory for a batch of %zu", n_proofs);
        goto out;
    }
    if (cuzk_random_bytes(z, n_proofs * sizeof *z)) {
        rc = cuzk_fail(err, errlen, CUZK_EIO, "verify: getrandom failed");
        goto out;
    }
    uint64_t zsum[3] = {0, 0, 0}; /* sum of the weights as an integer: < n 2^128 */
    cuzk_g1 csum, t;
    cuzk_g1_set_identity(&csum);
    for (size_t j = 0; j < n_proofs; j++) {
        if (z[j][0] == 0 && z[j][1] == 0)
            z[j][0] = 1;
        const uint64_t zl[4] = {z[j][0], z[j][1], 0, 0};
        cuzk_fr zf, w;
        cuzk_fr_from_canonical(&zf, zl);
        /* scalars of the ic points */
        cuzk_fr_add(&s[0], &s[0], &zf);
        for (size_t i = 0; i < n_inputs; i++) {
            cuzk_fr_mul(&w, &zf, &inputs[j * n_inputs + i]);
            cuzk_fr_add(&s[i + 1], &s[i + 1], &w);
        }
        unsigned __int128 acc = (unsigned __int128)zsum[0] + z[j][0];
        zsum[0] = (uint64_t)acc;
        acc = (acc >> 64) + zsum[1] + z[j][1];
        zsum[1] = (uint64_t)acc;
        zsum[2] += (uint64_t)(acc >> 64);
        /* z_j A_j and z_j C_j */
        cuzk_g1_from_affine(&t, &proofs[j].a);
        cuzk_g1_mul(&za[j], &t, z[j], 2);
        cuzk_g1_from_affine(&t, &proofs[j].c);
        cuzk_g1_mul(&t, &t, z[j], 2);
        cuzk_g1_add(&csum, &csum, &t);
        b[j] = proofs[j].b;
    }
    cuzk_g1_batch_to_affine(za_aff, za, n_proofs, scratch);
    cuzk_g1_affine P[2];
    ic_combine(&P[0], pvk->ic, s, pvk->n_ic);
    cuzk_g1_to_affine(&P[1], &csum);
    const cuzk_g2_prepared *Q[2] = {&pvk->neg_gamma, &pvk->neg_delta};
    cuzk_fp12 f, g;
    cuzk_miller_loop_n(&f, za_aff, b, n_proofs);
    cuzk_miller_loop_prepared_n(&g, P, Q, 2);
    cuzk_fp12_mul(&f, &f, &g);
    cuzk_final_exp(&f, &f);
    cuzk_fp12_pow(&g, &pvk->alpha_beta, zsum, 3);
    rc = cuzk_fp12_eq(&f, &g) ? CUZK_OK
                              : cuzk_fail(err, errlen, CUZK_EVERIFY,
                                          "verify: the batch of %zu proofs does not verify", n_proofs);
out:
    free(z);
    free(za);
    free(za_aff);
    free(scratch);
    free(b);
    free(s);
    return rc;
}

/* ---- bytes ---------------------------------------------------------------------------- */

void cuzk_groth16_proof_to_bytes(uint8_t out[CUZK_GROTH16_PROOF_SIZE], const cuzk_groth16_proof *proof)
{
    cuzk_g1_compress(out, &proof->a);
    cuzk_g2_compress(out + 48, &proof->b);
    cuzk_g1_compress(out + 144, &proof->c);
}

int cuzk_groth16_proof_from_bytes(cuzk_groth16_proof *proof, const uint8_t in[CUZK_GROTH16_PROOF_SIZE],
                                  char *err, size_t errlen)
{
    const unsigned flags = CUZK_DECODE_CHECK_GROUP | CUZK_DECODE_REJECT_IDENTITY;
    cuzk_groth16_proof p;
    char m[160];
    int rc;
    const char *what = "A";
    if (!(rc = cuzk_g1_uncompress(&p.a, in, flags, m, sizeof m))) {
        what = "B";
        if (!(rc = cuzk_g2_uncompress(&p.b, in + 48, flags, m, sizeof m))) {
            what = "C";
            rc = cuzk_g1_uncompress(&p.c, in + 144, flags, m, sizeof m);
        }
    }
    if (rc)
        return cuzk_fail(err, errlen, rc, "proof: %s: %s", what, m);
    *proof = p;
    return CUZK_OK;
}

int cuzk_groth16_proofs_from_bytes(cuzk_groth16_proof *proofs, size_t max, const uint8_t *in, size_t len,
                                   size_t *n, char *err, size_t errlen)
{
    *n = 0;
    if (len == 0 || len % CUZK_GROTH16_PROOF_SIZE)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "proof: %zu bytes is not a positive multiple of %d", len,
                         CUZK_GROTH16_PROOF_SIZE);
    size_t count = len / CUZK_GROTH16_PROOF_SIZE;
    if (count > max)
        return cuzk_fail(err, errlen, CUZK_ERANGE, "proof: %zu proofs but room for %zu", count, max);
    for (size_t j = 0; j < count; j++) {
        char m[200];
        int rc = cuzk_groth16_proof_from_bytes(&proofs[j], in + j * CUZK_GROTH16_PROOF_SIZE, m, sizeof m);
        if (rc)
            return cuzk_fail(err, errlen, rc, "proof %zu of %zu: %s", j, count, m);
    }
    *n = count;
    return CUZK_OK;
}
