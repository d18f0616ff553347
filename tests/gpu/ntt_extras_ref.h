/*
 * ntt_extras_ref.h — what a transform with extras (cuzk_gpu_ntt_extra) must produce, from the CPU NTT:
 * want = T(src ⊙ mul)·scale − sub[rev(i)], in dst when given, else in place. Shared by the host-schedule test
 * (test_ntt_host.cu) and the device test (test_gpu_ntt.cu); include after cuzk/gpu_ntt.h and testutil.h.
 */
#ifndef CUZK_TESTS_NTT_EXTRAS_REF_H
#define CUZK_TESTS_NTT_EXTRAS_REF_H

/* Which input vector, if any, is given in dst's place (the caller puts its values there). */
typedef enum { NTT_ALIAS_NONE, NTT_ALIAS_MUL, NTT_ALIAS_SRC } ntt_alias;

static const char *ntt_alias_name(ntt_alias a)
{
    return a == NTT_ALIAS_MUL ? "mul" : a == NTT_ALIAS_SRC ? "src" : "nothing";
}

typedef struct {
    bool src, mul, scale, sub, dst;
    ntt_alias alias;
} ntt_extras_pick;

/* Each extra on or off at random (sub only for NN; dst, the output vector, in half the draws, where the
 * NN permutation moves into the last pass, and then one time in two mul, or src without mul, given in
 * dst's vector, which the transform reads before it writes there); *scale (already random) becomes n one
 * time in two, which cancels an inverse's n^-1 (the path that drops the last pass's product). */
static ntt_extras_pick ntt_extras_draw(cuzk_ntt_order order, size_t n, cuzk_fr *scale)
{
    unsigned bits = (unsigned)test_rand64();
    if (bits & 16)
        cuzk_fr_from_u64(scale, n);
    ntt_extras_pick pk;
    pk.src = (bits & 1) != 0, pk.mul = (bits & 2) != 0, pk.scale = (bits & 4) != 0;
    pk.sub = order == CUZK_NTT_NN && (bits & 8) != 0, pk.dst = (bits & 32) != 0;
    pk.alias = NTT_ALIAS_NONE;
    if (pk.dst && (bits & 64)) /* the H pipeline's last transform writes over its mul vector */
        pk.alias = pk.mul ? NTT_ALIAS_MUL : pk.src ? NTT_ALIAS_SRC : NTT_ALIAS_NONE;
    return pk;
}

/* The extras of pk over the given vectors (host or device). */
static cuzk_gpu_ntt_extra ntt_extras_of(ntt_extras_pick pk, const cuzk_fr *src, const cuzk_fr *mul,
                                        const cuzk_fr *scale, const cuzk_fr *sub, cuzk_fr *dst)
{
    cuzk_gpu_ntt_extra ex = {pk.src ? src : NULL, pk.mul ? mul : NULL, pk.scale ? scale : NULL,
                             pk.sub ? sub : NULL, pk.dst ? dst : NULL};
    if (pk.alias == NTT_ALIAS_MUL)
        ex.mul = dst;
    else if (pk.alias == NTT_ALIAS_SRC)
        ex.src = dst;
    return ex;
}

/* want (n = d->n elements) from the host vectors: x is the input when src is off. */
static int ntt_extras_want(cuzk_fr *want, const cuzk_ntt_domain *d, cuzk_ntt_dir dir, cuzk_ntt_order order,
                           bool coset, ntt_extras_pick pk, const cuzk_fr *x, const cuzk_fr *src,
                           const cuzk_fr *mul, const cuzk_fr *scale, const cuzk_fr *sub, cuzk_pool *pool,
                           char *err, size_t errlen)
{
    size_t n = d->n;
    for (size_t i = 0; i < n; i++) {
        want[i] = pk.src ? src[i] : x[i];
        if (pk.mul)
            cuzk_fr_mul(&want[i], &want[i], &mul[i]);
    }
    int rc = cuzk_ntt(d, want, dir, order, coset, pool, err, errlen);
    if (rc != CUZK_OK)
        return rc;
    for (size_t i = 0; i < n; i++) {
        if (pk.scale)
            cuzk_fr_mul(&want[i], &want[i], scale);
        if (pk.sub) {
            size_t r = 0;
            for (unsigned b = 0; b < d->lg; b++)
                r |= ((i >> b) & 1) << (d->lg - 1 - b);
            cuzk_fr_sub(&want[i], &want[i], &sub[r]);
        }
    }
    return CUZK_OK;
}

#endif
