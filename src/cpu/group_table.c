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
 * Each task builds a run of groups in affine form, level by level: the singletons are the bases; then
 * for d = 2 .. k, every entry whose mask has d bits is the entry without its top bit plus that bit's
 * base, all of one level's additions sharing one batch inversion (Montgomery's trick), so an entry
 * costs about six products instead of a Jacobian addition and a conversion (≈ 3.5× faster at k = 3:
 * bench group_table). The identity (stored as (0, 0)), equal points (a doubling) and opposite points
 * (the identity) are decided before the batch, so every denominator is non-zero.
 */
#include <stdlib.h>
#include <string.h>

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

#define GT_ADD 0 /* an entry's addition: a + b with distinct x */
#define GT_DBL 1 /* a + a */

#define GT_DEFINE(G, F)                                                                                      \
    typedef struct {                                                                                         \
        cuzk_##G##_affine *out;                                                                              \
        const cuzk_##G##_affine *bases;                                                                      \
        size_t n, groups;                                                                                    \
        unsigned k;                                                                                          \
        F *den, *scratch; /* per worker: GT_GROUPS · (2^k − 1) field elements each */                     \
        uint32_t *job;    /* per worker: as many entries (offset · 2 + kind) */                             \
    } G##_gt_ctx;                                                                                            \
                                                                                                             \
    static void G##_gt_task(void *vctx, size_t task, int worker)                                             \
    {                                                                                                        \
        G##_gt_ctx *c = (G##_gt_ctx *)vctx;                                                                  \
        size_t per = ((size_t)1 << c->k) - 1, g0 = task * GT_GROUPS,                                         \
               slot = (size_t)worker * GT_GROUPS * per;                                                      \
        size_t g1 = g0 + GT_GROUPS < c->groups ? g0 + GT_GROUPS : c->groups;                                 \
        cuzk_##G##_affine *e = c->out + g0 * per;                                                            \
        F *den = c->den + slot, *scr = c->scratch + slot;                                                    \
        uint32_t *job = c->job + slot;                                                                       \
        for (size_t g = g0; g < g1; g++) /* the singletons: the bases, the identity past n */                \
            for (unsigned j = 0; j < c->k; j++) {                                                            \
                size_t i = g * c->k + j;                                                                     \
                cuzk_##G##_affine *r = &e[(g - g0) * per + ((size_t)1 << j) - 1];                            \
                if (i < c->n)                                                                                \
                    *r = c->bases[i];                                                                        \
                else                                                                                         \
                    memset(r, 0, sizeof *r);                                                                 \
            }                                                                                                \
        for (unsigned d = 2; d <= c->k; d++) {                                                               \
            size_t cnt = 0;                                                                                  \
            for (size_t g = 0; g < g1 - g0; g++)                                                             \
                for (size_t m = 3; m <= per; m++) {                                                          \
                    if ((unsigned)__builtin_popcountll(m) != d)                                              \
                        continue;                                                                            \
                    unsigned top = 63 - (unsigned)__builtin_clzll(m);                                        \
                    cuzk_##G##_affine *r = &e[g * per + m - 1];                                              \
                    const cuzk_##G##_affine *a = &e[g * per + (m & ~((size_t)1 << top)) - 1];                \
                    const cuzk_##G##_affine *b = &e[g * per + ((size_t)1 << top) - 1];                       \
                    if (cuzk_##G##_affine_is_identity(a)) {                                                  \
                        *r = *b;                                                                             \
                    } else if (cuzk_##G##_affine_is_identity(b)) {                                           \
                        *r = *a;                                                                             \
                    } else if (!F##_eq(&a->x, &b->x)) {                                                      \
                        F##_sub(&den[cnt], &b->x, &a->x);                                                    \
                        job[cnt++] = (uint32_t)((g * per + m - 1) * 2 + GT_ADD);                             \
                    } else if (F##_eq(&a->y, &b->y) && !F##_is_zero(&a->y)) {                                \
                        F##_dbl(&den[cnt], &a->y);                                                           \
                        job[cnt++] = (uint32_t)((g * per + m - 1) * 2 + GT_DBL);                             \
                    } else { /* opposite points (or a point of order 2) */                                   \
                        memset(r, 0, sizeof *r);                                                             \
                    }                                                                                        \
                }                                                                                            \
            F##_batch_inv(den, den, cnt, scr);                                                               \
            for (size_t t = 0; t < cnt; t++) {                                                               \
                size_t off = job[t] >> 1, m = off % per + 1, g = off / per;                                  \
                unsigned top = 63 - (unsigned)__builtin_clzll(m);                                            \
                cuzk_##G##_affine *r = &e[off];                                                              \
                const cuzk_##G##_affine *a = &e[g * per + (m & ~((size_t)1 << top)) - 1];                    \
                const cuzk_##G##_affine *b = &e[g * per + ((size_t)1 << top) - 1];                           \
                F lambda, t1;                                                                                \
                if (job[t] & 1) { /* doubling: lambda = 3 x^2 / 2y */                                        \
                    F##_sqr(&t1, &a->x);                                                                     \
                    F##_dbl(&lambda, &t1);                                                                   \
                    F##_add(&t1, &lambda, &t1);                                                              \
                } else { /* lambda = (yb − ya) / (xb − xa) */                                            \
                    F##_sub(&t1, &b->y, &a->y);                                                              \
                }                                                                                            \
                F##_mul(&lambda, &t1, &den[t]);                                                              \
                F x3, y3;                                                                                    \
                F##_sqr(&x3, &lambda);                                                                       \
                F##_sub(&x3, &x3, &a->x);                                                                    \
                F##_sub(&x3, &x3, &b->x);                                                                    \
                F##_sub(&y3, &a->x, &x3);                                                                    \
                F##_mul(&y3, &y3, &lambda);                                                                  \
                F##_sub(&y3, &y3, &a->y);                                                                    \
                r->x = x3, r->y = y3;                                                                        \
            }                                                                                                \
        }                                                                                                    \
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
        G##_gt_ctx c = {out, bases, n, groups, k, NULL, NULL, NULL};                                         \
        /* indexed by the pool's worker number, so sized for the whole pool */                               \
        size_t slots = (size_t)cuzk_pool_size(pool) * GT_GROUPS * per;                                       \
        c.den = (F *)malloc(slots * sizeof *c.den);                                                          \
        c.scratch = (F *)malloc(slots * sizeof *c.scratch);                                                  \
        c.job = (uint32_t *)malloc(slots * sizeof *c.job);                                                   \
        if (!c.den || !c.scratch || !c.job) {                                                                \
            free(c.den);                                                                                     \
            free(c.scratch);                                                                                 \
            free(c.job);                                                                                     \
            return CUZK_ENOMEM;                                                                              \
        }                                                                                                    \
        cuzk_pool_run(pool, tasks, G##_gt_task, &c);                                                         \
        free(c.den);                                                                                         \
        free(c.scratch);                                                                                     \
        free(c.job);                                                                                         \
        return CUZK_OK;                                                                                      \
    }

GT_DEFINE(g1, cuzk_fp)
GT_DEFINE(g2, cuzk_fp2)
