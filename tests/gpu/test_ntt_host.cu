/*
 * test_ntt_host.cu — the GPU NTT's kernel schedule run on the host, against
 * the CPU NTT. No device is used: the pass kernels' phase functions are
 * __host__ __device__, so a loop over (thread block, phase, thread) runs the
 * device schedule exactly (barriers between phases); the bit reversal of NN
 * transforms likewise. Each transform runs its threads in forward order and
 * the next in reverse order, so a phase whose threads read what other threads
 * of the same phase write gives different results in the two orders: a cheap
 * race detector.
 *
 *   test_ntt_host [LG_MAX [LAST_LG]]   every mode at 2^1..2^LG_MAX (default
 *                            14), both conventions, fresh random inputs, with
 *                            and without extras; LAST_LG: one more size, with extras and always dst
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/ntt.cu"

#include "cuzk/ntt.h"
extern "C" {
#include "testutil.h"
}
#include "ntt_extras_ref.h"

/* One phase of a thread block: stmt for every thread tid < n, in reverse order when rev. */
#define EACH_THREAD(n, stmt)                                                                                 \
    for (unsigned k_ = 0; k_ < (n); k_++) {                                                                  \
        unsigned tid = rev ? (n)-1 - k_ : k_;                                                                \
        stmt;                                                                                                \
    }

/* One pass of the job on the host, phase by phase as k_pass runs it (its steps of one or two stages). */
static void host_pass(const pass_args *a, unsigned grid, unsigned smem_bytes, bool dit, bool rev, uint4 *sm)
{
    memset(sm, 0xa5, smem_bytes);
    for (unsigned tile = 0; tile < grid; tile++) {
        EACH_THREAD(NTT_THREADS, pass_fill(a, tile, tid, sm));
        unsigned nb = 1u << a->lgnb;
        for (unsigned it = 0; it < nb; it++) {
            EACH_THREAD(NTT_THREADS, pass_load(a, tile, it, tid, sm));
            for (unsigned k = 0; k < pass_steps(a); k++) {
                if (dit)
                    EACH_THREAD(NTT_THREADS, pass_step<true>(a, tile, k, tid, sm))
                else
                    EACH_THREAD(NTT_THREADS, pass_step<false>(a, tile, k, tid, sm))
            }
            EACH_THREAD(NTT_THREADS, pass_store(a, tile, it, tid, sm));
        }
    }
}

/* The bit-reversal kernels on the host: k_bitrev's tile pairs, or k_bitrev_small's one block below 2^8. */
static void host_bitrev(fr_t *x, const fr_t *sub, unsigned lg, bool rev)
{
    uint4 sm[4 * NTT_BR * NTT_BR_PAD];
    bitrev_args ba = {x, sub, lg};
    unsigned nt = NTT_BR * NTT_BR;
    if (lg < 2 * NTT_LG_BR) {
        EACH_THREAD(nt, bitrev_small_load(&ba, tid, sm));
        EACH_THREAD(nt, bitrev_small_store(&ba, tid, sm));
        return;
    }
    for (unsigned c = 0; c < (1u << (lg - 2 * NTT_LG_BR)); c++) {
        if (rev_bits(c, lg - 2 * NTT_LG_BR) < c)
            continue;
        EACH_THREAD(nt, bitrev_load(&ba, c, tid, sm));
        EACH_THREAD(nt, bitrev_store(&ba, c, tid, sm));
    }
}

/* The whole transform on the host, through ntt_prepare and the kernels' phase functions. */
static int host_ntt(fr_t *x, unsigned lg, cuzk_ntt_dir dir, cuzk_ntt_order order, bool coset,
                    const cuzk_ntt_domain *dom, const cuzk_gpu_ntt_extra *ex, bool rev)
{
    char err[256];
    ntt_job job;
    if (ntt_prepare(&job, lg, dir, order, coset, dom, ex, err, sizeof err) != CUZK_OK) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    fr_t *scratch = (fr_t *)calloc(job.scratch_elems, sizeof(fr_t));
    uint4 *sm = (uint4 *)malloc((4u << NTT_LG_TILE) * 16);
    if (!scratch || !sm) {
        free(scratch);
        free(sm);
        return -1;
    }
    ntt_bind(&job, x, scratch);
    for (unsigned i = 0; i < job.tab_threads; i++)
        tables_entry(&job.tab, i);
    for (unsigned i = 0; i < job.npass; i++)
        host_pass(&job.pass[i], job.grid[i], job.smem[i], job.dit, rev, sm);
    if (job.bitrev)
        host_bitrev(x, job.sub, lg, rev);
    free(scratch);
    free(sm);
    return 0;
}

/*
 * Every mode of both conventions at 2^lg through the host schedule, against the CPU NTT, fresh random
 * inputs; each transform runs its threads in the order opposite to the previous one's. With extras, each
 * extra (cuzk_gpu_ntt_extra) on or off at random (sub only for NN) and the CPU side computed by
 * ntt_extras_want; without, the call takes no extras at all.
 */
static void check_modes(unsigned lg, bool extras, bool force_dst, unsigned *runs)
{
    size_t n = (size_t)1 << lg;
    cuzk_fr *x = (cuzk_fr *)malloc(5 * n * sizeof *x), *want = (cuzk_fr *)malloc(n * sizeof *want);
    CHECK(x && want, "out of memory at 2^%u", lg);
    if (!x || !want) {
        free(x);
        free(want);
        return;
    }
    cuzk_fr *src = x + n, *mul = x + 2 * n, *sub = x + 3 * n, *dst = x + 4 * n, scale;
    const cuzk_ntt_order orders[] = {CUZK_NTT_NN, CUZK_NTT_NR, CUZK_NTT_RN};
    const cuzk_ntt_convention convs[] = {CUZK_NTT_BELLPERSON, CUZK_NTT_SNARKJS};
    for (unsigned cv = 0; cv < 2; cv++) {
        char err[256];
        cuzk_ntt_domain d;
        int drc = cuzk_ntt_domain_init(&d, lg, convs[cv], err, sizeof err);
        CHECK(drc == CUZK_OK, "domain 2^%u: %s", lg, err);
        if (drc != CUZK_OK)
            continue;
        for (int dir = 0; dir < 2; dir++)
            for (int o = 0; o < 3; o++)
                for (int coset = 0; coset < 2; coset++) {
                    for (size_t i = 0; i < (extras ? 4 : 1) * n; i++) /* x, src, mul, sub */
                        test_rand_fr(&x[i]);
                    test_rand_fr(&scale);
                    ntt_extras_pick pk = {false, false, false, false, false, NTT_ALIAS_NONE};
                    if (extras)
                        pk = ntt_extras_draw(orders[o], n, &scale);
                    pk.dst = pk.dst || force_dst;
                    cuzk_gpu_ntt_extra ex = ntt_extras_of(pk, src, mul, &scale, sub, dst);
                    memset(dst, 0xa5, n * sizeof *dst); /* every output must be written */
                    if (pk.alias != NTT_ALIAS_NONE)
                        memcpy(dst, pk.alias == NTT_ALIAS_MUL ? mul : src, n * sizeof *dst);
                    cuzk_ntt_dir dr = dir ? CUZK_NTT_INVERSE : CUZK_NTT_FORWARD;
                    int rc = ntt_extras_want(want, &d, dr, orders[o], coset, pk, x, src, mul, &scale, sub, NULL,
                                             err, sizeof err);
                    CHECK(rc == CUZK_OK, "cpu ntt 2^%u: %s", lg, err);
                    bool rev = ((*runs)++ & 1) != 0;
                    rc = host_ntt((fr_t *)x, lg, dr, orders[o], coset, &d, extras ? &ex : NULL, rev);
                    CHECK(rc == 0, "host schedule 2^%u failed", lg);
                    const cuzk_fr *out = pk.dst ? dst : x;
                    size_t bad = 0;
                    for (size_t i = 0; i < n; i++)
                        bad += memcmp(&want[i], &out[i], sizeof out[i]) != 0;
                    CHECK(bad == 0,
                          "2^%u conv %u dir %d order %d coset %d threads %s, extras (src %d mul %d scale %d "
                          "sub %d dst %d, %s in dst): %zu of %zu differ",
                          lg, cv, dir, o, coset, rev ? "reversed" : "forward", pk.src, pk.mul, pk.scale,
                          pk.sub, pk.dst, ntt_alias_name(pk.alias), bad, n);
                }
        cuzk_ntt_domain_release(&d);
    }
    free(x);
    free(want);
}

int main(int argc, char **argv)
{
    unsigned lg_max = argc > 1 ? (unsigned)atoi(argv[1]) : 14,
             last_lg = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
    if (lg_max < 1 || lg_max > 22 || (argc > 2 && (last_lg < 1 || last_lg > 22))) {
        fprintf(stderr, "usage: test_ntt_host [LG_MAX 1..22 [LAST_LG 1..22]]\n");
        return 2;
    }
    test_rng_init("test_ntt_host");
    unsigned runs = 0;
    for (unsigned lg = 1; lg <= lg_max; lg++)
        check_modes(lg, false, false, &runs);
    /* the extras, at sizes of one, two and three passes and with the small and the tiled bit reversal;
     * every size once more with extras (dst among them, which folds NN's permutation into the last
     * pass's stores); with LAST_LG (test_ntt_host 12 17), that size once with extras and dst: 2^17 is the
     * smallest with the 2^27 transform's last pass (9 stages, two blocks a tile) */
    for (unsigned lg = 1; lg <= lg_max; lg++)
        check_modes(lg, true, false, &runs);
    const unsigned ex_lg[] = {1, 5, 9, 12, 14, 21};
    for (unsigned i = 0; i < sizeof ex_lg / sizeof ex_lg[0]; i++)
        for (unsigned k = 0; k < 4 && ex_lg[i] <= lg_max; k++)
            check_modes(ex_lg[i], true, false, &runs);
    if (last_lg)
        check_modes(last_lg, true, true, &runs);
    return test_finish("test_ntt_host");
}
