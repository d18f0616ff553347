/*
 * test_msm_items_host.cu — the MSM workspace's bound on a window's work items, on the host (no device).
 *
 * A window of a tail of n entries makes ceil(n / T) chunks of T = msm_item_len(n) entries, plus at most
 * one item for each of its 2^(c-1) keys that a chunk boundary splits (c = msm_pick_window(n)); the
 * workspace made for n_max entries holds msm_items_bound(n_max) items, and every tail of n <= n_max
 * entries must fit (a window writes its items by index: one more is a write past the buffer). Checked
 * for every n_max up to 2^20 + 2^14 against the running maximum over all n below it, then for random
 * and edge n_max (powers of two, multiples of MSM_ITEMS and of MSM_ITEM_FILL, each ± 1) against random
 * and edge n below them. The earlier bound, ceil(n_max / msm_item_len(n_max)) + 2^19, is shown to fail
 * at n = 2^25 under n_max = 2^25 + 1 (the chunk count is not monotone in n), so this test can fail.
 * Built twice: with the default MSM_ITEM_FILL and with -DMSM_ITEM_FILL=65536 (test_msm_items_host_fill).
 */
#include <stdint.h>
#include <stdio.h>

#include "gpu/msm_impl.cuh"

extern "C" {
#include "testutil.h"
}

/* The items a window of n tail entries can make. */
static size_t items_needed(size_t n)
{
    unsigned T = msm_item_len(n), c = msm_pick_window(n);
    return (n + T - 1) / T + ((size_t)1 << (c - 1));
}

static void check_pair(size_t n, size_t n_max)
{
    size_t need = items_needed(n), bound = msm_items_bound(n_max);
    CHECK(need <= bound, "a tail of %zu entries needs %zu items, the workspace for %zu holds %zu", n, need,
          n_max, bound);
}

/* Random n in [1, n_max], biased toward the edges. */
static size_t draw_below(size_t n_max)
{
    uint64_t r = test_rand64();
    switch (r & 3) {
    case 0: return n_max;
    case 1: return n_max - (size_t)((r >> 2) % (n_max < 64 ? n_max : 64));
    default: return 1 + (size_t)((r >> 2) % n_max);
    }
}

int main(void)
{
    test_rng_init("test_msm_items_host");
    /* every n_max up to 2^20 + 2^14, against the most any smaller tail needs */
    size_t most = 0;
    for (size_t n = 1; n <= ((size_t)1 << 20) + ((size_t)1 << 14); n++) {
        size_t need = items_needed(n);
        most = need > most ? need : most;
        if (most > msm_items_bound(n)) {
            CHECK(0, "n_max %zu: some tail of at most that many entries needs %zu items, the bound is %zu", n,
                  most, msm_items_bound(n));
            break;
        }
    }
    /* edges: powers of two, multiples of MSM_ITEMS and MSM_ITEM_FILL, each +-1, with tails below them */
    size_t edges[512];
    int ne = 0;
    for (int s = 1; s <= 31; s++)
        for (int d = -1; d <= 1; d++)
            edges[ne++] = ((size_t)1 << s) + (size_t)(ptrdiff_t)d;
    for (size_t k = 1; k <= 64; k++)
        for (int d = -1; d <= 1; d++) {
            edges[ne++] = k * MSM_ITEMS + (size_t)(ptrdiff_t)d;
            if (MSM_ITEM_FILL)
                edges[ne++] = k * (size_t)MSM_ITEM_FILL + (size_t)(ptrdiff_t)d;
        }
    for (int i = 0; i < ne; i++) {
        for (int j = 0; j < ne; j++)
            if (edges[j] <= edges[i])
                check_pair(edges[j], edges[i]);
        for (int k = 0; k < 200; k++)
            check_pair(draw_below(edges[i]), edges[i]);
    }
    /* random workspaces up to 2^31 entries */
    for (int i = 0; i < 200000; i++) {
        size_t n_max = 1 + (size_t)(test_rand64() % ((uint64_t)1 << 31));
        check_pair(draw_below(n_max), n_max);
    }
    /* the earlier bound fails here: 2^25 entries make 2^20 chunks of 32, 2^25 + 1 make 1,016,801 of 33 */
    size_t n = (size_t)1 << 25, n_max = n + 1;
    size_t earlier = (n_max + msm_item_len(n_max) - 1) / msm_item_len(n_max) + ((size_t)1 << 19);
    CHECK(items_needed(n) > earlier && items_needed(n) <= msm_items_bound(n_max),
          "2^25 under 2^25 + 1: needs %zu, earlier bound %zu, bound %zu", items_needed(n), earlier,
          msm_items_bound(n_max));
    return test_finish(MSM_ITEM_FILL ? "test_msm_items_host (MSM_ITEM_FILL)" : "test_msm_items_host");
}
