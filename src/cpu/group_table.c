/*
 * group_table.c — tables of subset sums of fixed bases, for sums of the bases whose scalar is one.
 *
 * A Groth16 witness is mostly 0 and 1, and about half of it is 1, so the witness MSMs spend most of
 * their additions summing the bases whose scalar is one. With the bases fixed for a key's life, a table
 * can hold, for each group of k consecutive bases, the sums of every non-empty subset of the group; a
 * sum of ones then takes one addition for each group that holds a one instead of one for each one
 * (docs/design/020, thirty-sixth session: 75 % of the additions at k = 2, 59 % at k = 3 on the PoRep-shaped
 * witness).
 *
 * Layout (cuzk/msm.h): group g = i / k holds bases g·k .. g·k + k − 1; its entry for the mask m
 * (1 <= m < 2^k, bit j standing for base g·k + j) is out[g·(2^k − 1) + m − 1]. A last group that runs
 * past n treats the missing bases as the identity.
 *
 * Each task builds a run of groups in Jacobian form (entry m = entry m without its top bit + that bit's
 * base, a complete mixed addition: duplicates and opposite points come out right) and converts the run
 * to affine with one batch inversion.
 */
#include <stdlib.h>

#include "cuzk/msm.h"

#define GT_GROUPS 2048 /* groups a task (and a batch inversion) covers */

size_t cuzk_group_table_len(size_t n, unsigned k)
{
    if (k < 2 || k > CUZK_GROUP_TABLE_MAX_K)
        return 0;
    return (n + k - 1) / k * (((size_t)1 << k) - 1);
}

size_t cuzk_group_table_entry(size_t i, unsigned k)
{
    return i / k * (((size_t)1 << k) - 1) + ((size_t)1 << (i % k)) - 1;
}

#define GT_DEFINE(G, F)                                                                                      \
    typedef struct {                                                                                         \
        cuzk_##G##_affine *out;                                                                              \
        const cuzk_##G##_affine *bases;                                                                      \
        size_t n, groups;                                                                                    \
        unsigned k;                                                                                          \
        cuzk_##G *jac; /* per worker: GT_GROUPS · (2^k − 1) points */                                     \
        F *scratch;    /* per worker: as many field elements */                                              \
    } G##_gt_ctx;                                                                                            \
                                                                                                             \
    static void G##_gt_task(void *vctx, size_t task, int worker)                                             \
    {                                                                                                        \
        G##_gt_ctx *c = (G##_gt_ctx *)vctx;                                                                  \
        size_t per = ((size_t)1 << c->k) - 1, g0 = task * GT_GROUPS;                                         \
        size_t g1 = g0 + GT_GROUPS < c->groups ? g0 + GT_GROUPS : c->groups;                                 \
        cuzk_##G *jac = c->jac + (size_t)worker * GT_GROUPS * per;                                           \
        for (size_t g = g0; g < g1; g++) {                                                                   \
            cuzk_##G *e = jac + (g - g0) * per;                                                              \
            for (size_t m = 1; m <= per; m++) {                                                              \
                unsigned top = 0;                                                                            \
                while (m >> (top + 1))                                                                       \
                    top++;                                                                                   \
                size_t i = g * c->k + top, rest = m & ~((size_t)1 << top);                                   \
                cuzk_##G *r = &e[m - 1];                                                                     \
                if (rest)                                                                                    \
                    *r = e[rest - 1];                                                                        \
                else                                                                                         \
                    cuzk_##G##_set_identity(r);                                                              \
                if (i < c->n)                                                                                \
                    cuzk_##G##_add_affine(r, r, &c->bases[i]);                                               \
            }                                                                                                \
        }                                                                                                    \
        cuzk_##G##_batch_to_affine(c->out + g0 * per, jac, (g1 - g0) * per,                                  \
                                   c->scratch + (size_t)worker * GT_GROUPS * per);                           \
    }                                                                                                        \
                                                                                                             \
    int cuzk_##G##_group_table(cuzk_##G##_affine *out, const cuzk_##G##_affine *bases, size_t n, unsigned k, \
                               cuzk_pool *pool)                                                              \
    {                                                                                                        \
        if (k < 2 || k > CUZK_GROUP_TABLE_MAX_K || (n && (!out || !bases)))                                  \
            return CUZK_EINVAL;                                                                              \
        if (n == 0)                                                                                          \
            return CUZK_OK;                                                                                  \
        size_t per = ((size_t)1 << k) - 1, groups = (n + k - 1) / k;                                         \
        size_t tasks = (groups + GT_GROUPS - 1) / GT_GROUPS;                                                 \
        G##_gt_ctx c = {out, bases, n, groups, k, NULL, NULL};                                               \
        /* indexed by the pool's worker number, so sized for the whole pool */                               \
        size_t slots = (size_t)cuzk_pool_size(pool) * GT_GROUPS * per;                                       \
        c.jac = (cuzk_##G *)malloc(slots * sizeof *c.jac);                                                   \
        c.scratch = (F *)malloc(slots * sizeof *c.scratch);                                                  \
        if (!c.jac || !c.scratch) {                                                                          \
            free(c.jac);                                                                                     \
            free(c.scratch);                                                                                 \
            return CUZK_ENOMEM;                                                                              \
        }                                                                                                    \
        cuzk_pool_run(pool, tasks, G##_gt_task, &c);                                                         \
        free(c.jac);                                                                                         \
        free(c.scratch);                                                                                     \
        return CUZK_OK;                                                                                      \
    }

GT_DEFINE(g1, cuzk_fp)
GT_DEFINE(g2, cuzk_fp2)
