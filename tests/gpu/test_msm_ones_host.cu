/*
 * test_msm_ones_host.cu — the MSM's sum of the bases whose scalar is one, cut into launches, on the host.
 *
 * msm_run cuts k_ones's grid-stride loop into at most ws->ones_split launches with ones_cut (from the
 * number of entries, a bound: the count of ones is on the device), and each thread of a launch adds the
 * entries ones_range gives it. Here every thread of every launch is played on the host with small grids,
 * for random entry counts, counts of ones at or below them (none, all, random) and cuts: every one must
 * be added exactly once, by the thread that owns it (t = i mod stride) and in increasing order, every
 * partial must be started by the first launch before a later launch adds to it, nothing at or past the
 * count of ones may be read, and no more launches run than asked. Then the cut alone at the real grid
 * (MSM_ONES_THREADS) for entry counts up to 2^31. Last, the group tables' masks and entries (the
 * kernels' helpers) against the layout of the host's builder.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/msm_impl.cuh"

extern "C" {
#include "testutil.h"
}

/* Plays one MSM's ones' sum: n entries, `ones` of them ones, `stride` threads, cut into `split` launches.
 * Returns false after the first failed check. */
static bool play(size_t n, size_t ones, size_t stride, size_t split)
{
    size_t J, per;
    ones_cut(n, stride, split, &J, &per);
    static uint8_t seen[1 << 16];
    static size_t last[1 << 10]; /* per thread: 0 = not started, else 1 + the last entry added (or 1) */
    memset(seen, 0, ones);
    memset(last, 0, stride * sizeof last[0]);
    size_t launches = 0;
    for (size_t j0 = 0; j0 < J; j0 += per) {
        size_t j1 = j0 + per < J ? j0 + per : J;
        launches++;
        for (size_t t = 0; t < stride; t++) {
            size_t lo, hi;
            if (!ones_range(t, stride, ones, j0, j1, &lo, &hi))
                continue;
            if (j0 == 0)
                last[t] = 1;
            else if (!last[t]) {
                CHECK(0, "n %zu ones %zu stride %zu split %zu: thread %zu adds before its partial starts", n,
                      ones, stride, split, t);
                return false;
            }
            for (size_t i = lo; i < hi; i += stride) {
                bool ok = i < ones && i % stride == t && !seen[i] && i + 2 > last[t];
                if (!ok) {
                    CHECK(
                        0,
                        "n %zu ones %zu stride %zu split %zu: thread %zu adds entry %zu (seen %d, last %zu)",
                        n, ones, stride, split, t, i, i < ones ? seen[i] : -1, last[t]);
                    return false;
                }
                seen[i] = 1;
                last[t] = i + 2;
            }
        }
    }
    for (size_t t = 0; t < stride; t++)
        if (!last[t]) {
            CHECK(0, "n %zu ones %zu stride %zu split %zu: thread %zu's partial never started", n, ones,
                  stride, split, t);
            return false;
        }
    for (size_t i = 0; i < ones; i++)
        if (!seen[i]) {
            CHECK(0, "n %zu ones %zu stride %zu split %zu: entry %zu never added", n, ones, stride, split, i);
            return false;
        }
    size_t want = split < 1 ? 1 : split;
    CHECK(launches >= 1 && launches <= want, "n %zu stride %zu split %zu: %zu launches", n, stride, split,
          launches);
    return launches >= 1 && launches <= want;
}

int main(void)
{
    test_rng_init("test_msm_ones_host");
    static const size_t strides[] = {1, 2, 3, 7, 32, 33, 100, 1024};
    static const size_t splits[] = {0, 1, 2, 3, 5, 8, 64};
    size_t played = 0;
    for (size_t si = 0; si < sizeof strides / sizeof strides[0]; si++) {
        size_t s = strides[si];
        for (int r = 0; r < 300; r++) {
            uint64_t x = test_rand64();
            size_t n = 1 + (size_t)(x % 60000);
            if (r < 6) /* edges: one entry, a whole number of steps, one past it */
                n = r < 2 ? 1 + r : s * (size_t)(r + 1) + (r & 1);
            size_t ones = (r % 3 == 0) ? n : (r % 3 == 1) ? 0 : (size_t)((x >> 20) % (n + 1));
            size_t split =
                r < 100 ? splits[r % (sizeof splits / sizeof splits[0])] : 1 + (size_t)((x >> 40) % 70);
            if (!play(n, ones, s, split))
                return test_finish("test_msm_ones_host");
            played++;
        }
    }
    /* the real grid: the cut covers the steps [0, J) in at most split launches of per steps each */
    size_t cuts = 0;
    for (int r = 0; r < 200000; r++) {
        uint64_t x = test_rand64();
        size_t n = r < 96 ? ((size_t)1 << (r % 32)) + (size_t)(r / 32) - 1 /* 2^k - 1, 2^k, 2^k + 1 */
                          : 1 + (size_t)(x % ((size_t)1 << 31));
        if (n == 0)
            continue;
        size_t split = 1 + (size_t)((x >> 33) % 64), J, per;
        ones_cut(n, MSM_ONES_THREADS, split, &J, &per);
        size_t launches = per ? (J + per - 1) / per : 0;
        bool ok = J * MSM_ONES_THREADS >= n && (J - 1) * MSM_ONES_THREADS < n && per >= 1 && launches >= 1 &&
                  launches <= split && launches * per >= J && (launches - 1) * per < J;
        CHECK(ok, "n %zu split %zu: %zu steps of %u threads, %zu a launch, %zu launches", n, split, J,
              MSM_ONES_THREADS, per, launches);
        if (!ok)
            break;
        cuts++;
    }
    /* group tables: the kernels' mask and entries against the layout the host builder writes (cuzk/msm.h):
     * every entry of a group with a one inside the table, distinct, the singletons where the library puts
     * them, and the mask the ones' bits of the group */
    size_t groups_seen = 0;
    static uint8_t cls[4096];
    for (int r = 0; r < 2000; r++) {
        uint64_t x = test_rand64();
        unsigned k = 2 + (unsigned)(x % (CUZK_GROUP_TABLE_MAX_K - 1));
        size_t n = 1 + (size_t)((x >> 8) % sizeof cls), len = cuzk_group_table_len(n, k);
        for (size_t i = 0; i < n; i++)
            cls[i] = (uint8_t)(test_rand64() % 3); /* CLS_ZERO, CLS_ONE, CLS_TAIL */
        for (size_t i = 0; i < n; i++)
            CHECK(group_single((uint32_t)i, k) == cuzk_group_table_entry(i, k), "k %u: singleton of %zu", k, i);
        uint32_t prev = 0;
        for (size_t g = 0; g * k < n; g++) {
            unsigned m = group_ones_mask(cls, n, g, k), want = 0;
            for (unsigned j = 0; j < k && g * k + j < n; j++)
                want |= (unsigned)(cls[g * k + j] == CLS_ONE) << j;
            CHECK(m == want, "k %u n %zu group %zu: mask %u, the ones' bits %u", k, n, g, m, want);
            for (unsigned mm = 1; mm < (1u << k); mm++) {
                uint32_t e = group_entry(g, mm, k);
                CHECK(e < len && (g == 0 && mm == 1 ? e == 0 : e == prev + 1), "k %u group %zu mask %u: entry %u",
                      k, g, mm, e);
                prev = e;
            }
            groups_seen++;
        }
    }
    printf("test_msm_ones_host: %zu sums played, %zu cuts at %u threads, %zu table groups\n", played, cuts,
           MSM_ONES_THREADS, groups_seen);
    return test_finish("test_msm_ones_host");
}
