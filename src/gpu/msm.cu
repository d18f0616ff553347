/*
 * msm.cu — G1/G2 multi-scalar multiplication on the GPU (cuzk/gpu_msm.h;
 * design and measurements in docs/design/014-gpu-msm.md).
 *
 * Stages, all on the caller's stream:
 *  1. classify   one thread per scalar: 0, 1 (Montgomery one) or other.
 *                CUB's DeviceSelect compacts the indices of the others (the
 *                tail); their count is read back (the first synchronisation)
 *                and picks the window width c.
 *  2. ones       the indices of the scalars equal to one compacted (CUB
 *                again), a grid-stride sum of their bases (no idle lanes),
 *                then a tree reduction of the per-thread partial sums.
 *  3. scalars    the tail's scalars converted out of Montgomery form (one
 *                multiplication by the integer 1), stored compacted.
 *  4. per window w of the W = ceil(256 / c) signed windows:
 *     digits     digit d_w of every tail scalar in [-2^(c-1), 2^(c-1)]; key
 *                |d_w| (0 = skip), value = base index | sign << 31.
 *     sort       CUB radix sort of (key, value) over the c key bits: each
 *                bucket's entries become one contiguous run (zeros first);
 *                the histogram is read off the runs' ends (no atomics).
 *     items      every bucket's run is cut into work items of at most T
 *                entries (T from the tail size); a thread sums one item into
 *                an XYZZ partial sum. Then, while one bucket may hold more
 *                than FOLD = 16 items, fold levels sum each bucket's items 16
 *                at a time in parallel (same layout, one scan per level), and
 *                a thread per bucket adds up the last <= 16. So one huge
 *                bucket (every scalar equal to 2; the top window of scalars
 *                near r, whose digit is only a carry) costs log16 levels of
 *                short chains, not one thread adding n / T items.
 *     tree       instead of items, for G1 windows of at least 2^25 entries:
 *                rounds of batch-affine additions that pair each bucket's
 *                points (msm_tree.cuh; one synchronisation per round). The
 *                next window's digits and sort run beside it on a stream of
 *                the workspace's own (three value buffers, two count and
 *                offset sets, in turn); a round of at least 2^22 slots is
 *                cut into two batches over two streams, and each batch's
 *                chain of small kernels runs on a stream of the highest
 *                priority (docs/design/020, tenth session).
 *     reduce     sum_b b·S_b: the buckets are cut into groups of m; a thread
 *                runs the running-sum recurrence over its group (2 additions
 *                per bucket) and adds (group offset)·(group sum) by
 *                double-and-add; the group results are tree-reduced into the
 *                window sum. The workspace keeps the buckets of every window
 *                (of the window width its size calls for), so all windows
 *                reduce at once: one launch for the groups and one per tree
 *                level, instead of as many per window (a window of a small
 *                tail had 256 groups: the GPU idled through ~2 ms of serial
 *                additions per window).
 *  5. combine    the W window sums and the ones sum are read back (the second
 *                synchronisation) and combined on the host by Horner's rule
 *                with c doublings per window.
 *
 * Every addition is complete (identity, P + P, P - P), so duplicate bases,
 * identity bases and repeated scalars need no special path.
 */
#include "gpu/msm_impl.cuh"

/* ---- workspace -------------------------------------------------------------- */


static size_t xyzz_bytes(cuzk_gpu_group g)
{
    return g == CUZK_GPU_G1 ? sizeof(g1_xyzz_t) : sizeof(g2_xyzz_t);
}

static size_t msm_max_buckets(void)
{
    return (size_t)1 << (MSM_MAX_C - 1);
}

/* Partials of one reduction step: the ones' per-thread sums, or the groups of every window of a batch
 * (msm_group_m doubles the group size until they fit). */
static size_t msm_red_len(size_t n_max)
{
    size_t groups = msm_bucket_cap(n_max) / MSM_GROUP_M;
    return MSM_ONES_THREADS > groups ? MSM_ONES_THREADS : groups;
}

static size_t cub_bytes_for(size_t n_max)
{
    size_t a = 0, b = 0, c = 0;
    cub::DoubleBuffer<uint32_t> kb(NULL, NULL), vb(NULL, NULL);
    cub::DeviceRadixSort::SortPairs(NULL, a, kb, vb, (int)n_max, 0, MSM_MAX_C);
    cub::DeviceSelect::Flagged(NULL, b, thrust::counting_iterator<uint32_t>(0), (const uint8_t *)NULL,
                               (uint32_t *)NULL, (uint32_t *)NULL, (int)n_max);
    cub::DeviceScan::ExclusiveSum(NULL, c, (const uint32_t *)NULL, (uint32_t *)NULL,
                                  (int)msm_max_buckets() + 2);
    size_t d = 0; /* a group table's entries: selected from a list, not counted */
    cub::DeviceSelect::Flagged(NULL, d, (const uint32_t *)NULL, (const uint8_t *)NULL, (uint32_t *)NULL,
                               (uint32_t *)NULL, (int)n_max);
    size_t m = a > b ? a : b, m2 = c > d ? c : d;
    return m > m2 ? m : m2;
}

extern "C" size_t cuzk_gpu_msm_workspace_bytes(cuzk_gpu_group group, size_t n_max)
{
    size_t B = msm_max_buckets(), pb = xyzz_bytes(group);
    return n_max * (1 + 1 + 4 + 32 + 16 + (group == CUZK_GPU_G1 ? 4 : 0)) + 8 +
           (6 * B + 12 + (group == CUZK_GPU_G1 ? 2 * B + 4 : 0)) * 4 + msm_items_bound(n_max) * pb +
           msm_fold_len(msm_items_bound(n_max), B) * pb + msm_bucket_cap(n_max) * pb +
           2 * msm_red_len(n_max) * pb + (MSM_MAX_W + 1) * pb + cub_bytes_for(n_max) +
           (group == CUZK_GPU_G1 ? msm_tree_region_bytes(n_max, B) + msm_tree_rest_bytes(n_max, B) : 0);
}

extern "C" size_t cuzk_gpu_msm_lendable_bytes(cuzk_gpu_group group, size_t n_max)
{
    return group == CUZK_GPU_G1 ? msm_tree_region_bytes(n_max, msm_max_buckets()) : 0;
}

extern "C" void cuzk_gpu_msm_free(cuzk_gpu_msm *ws)
{
    if (!ws)
        return;
    void *ptrs[] = {ws->cls,     ws->tail_flag, ws->tail_idx, ws->n_sel,    ws->tail_k,  ws->keys[0],
                    ws->keys[1], ws->vals[0],   ws->vals[1],  ws->vals[2],  ws->counts,  ws->offs,
                    ws->counts2, ws->offs2,     ws->item_cnt, ws->item_off, ws->items,   ws->buckets,
                    ws->red[0],  ws->red[1],    ws->wins,     ws->cub_tmp,  ws->fold_cnt, ws->fold_off,
                    ws->folded};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        if (ptrs[i])
            cudaFree(ptrs[i]);
    for (int i = 0; i < 8; i++)
        if (ws->ev[i])
            cudaEventDestroy(ws->ev[i]);
    cudaEvent_t evs[] = {ws->ev_fork, ws->ev_sorted, ws->ev_join};
    for (int i = 0; i < 3; i++)
        if (evs[i])
            cudaEventDestroy(evs[i]);
    if (ws->st_sort)
        cudaStreamDestroy(ws->st_sort);
    msm_tree_free(ws->tree);
    free(ws);
}

extern "C" int cuzk_gpu_work_priority(void)
{
    return gpu_work_priority();
}

extern "C" int cuzk_gpu_msm_new(cuzk_gpu_msm **out, cuzk_gpu_group group, size_t n_max, char *err,
                                size_t errlen)
{
    return cuzk_gpu_msm_new_lent(out, group, n_max, NULL, 0, err, errlen);
}

extern "C" int cuzk_gpu_msm_new_lent(cuzk_gpu_msm **out, cuzk_gpu_group group, size_t n_max, void *lent,
                                     size_t lent_bytes, char *err, size_t errlen)
{
    *out = NULL;
    if (group != CUZK_GPU_G1 && group != CUZK_GPU_G2)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu msm: unknown group %d", (int)group);
    if (n_max == 0 || n_max > ((size_t)1 << 31))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "gpu msm: workspace size %zu outside 1..2^31", n_max);
    cuzk_gpu_msm *ws = (cuzk_gpu_msm *)calloc(1, sizeof *ws);
    if (!ws)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "gpu msm: out of host memory");
    ws->group = group;
    ws->n_max = n_max;
    ws->point_bytes = xyzz_bytes(group);
    ws->max_items = msm_items_bound(n_max);
    ws->red_len = msm_red_len(n_max);
    ws->cub_bytes = cub_bytes_for(n_max);
    ws->bucket_cap = msm_bucket_cap(n_max);
    ws->ones_split = msm_ones_split();
    size_t B = msm_max_buckets(), pb = ws->point_bytes;
    struct {
        void **p;
        size_t bytes;
    } allocs[] = {
        {(void **)&ws->cls, n_max},
        {(void **)&ws->tail_flag, n_max},
        {(void **)&ws->tail_idx, n_max * 4},
        {(void **)&ws->n_sel, 8},
        {(void **)&ws->tail_k, n_max * 32},
        {(void **)&ws->keys[0], n_max * 4},
        {(void **)&ws->keys[1], n_max * 4},
        {(void **)&ws->vals[0], n_max * 4},
        {(void **)&ws->vals[1], n_max * 4},
        {(void **)&ws->vals[2], group == CUZK_GPU_G1 ? n_max * 4 : 0},
        {(void **)&ws->counts, (B + 2) * 4},
        {(void **)&ws->offs, (B + 2) * 4},
        {(void **)&ws->counts2, group == CUZK_GPU_G1 ? (B + 2) * 4 : 0},
        {(void **)&ws->offs2, group == CUZK_GPU_G1 ? (B + 2) * 4 : 0},
        {(void **)&ws->item_cnt, (B + 2) * 4},
        {(void **)&ws->item_off, (B + 2) * 4},
        {&ws->items, ws->max_items * pb},
        {(void **)&ws->fold_cnt, (B + 2) * 4},
        {(void **)&ws->fold_off, (B + 2) * 4},
        {&ws->folded, msm_fold_len(ws->max_items, B) * pb},
        {&ws->buckets, ws->bucket_cap * pb},
        {&ws->red[0], ws->red_len * pb},
        {&ws->red[1], ws->red_len * pb},
        {&ws->wins, (MSM_MAX_W + 1) * pb},
        {&ws->cub_tmp, ws->cub_bytes},
    };
    for (size_t i = 0; i < sizeof allocs / sizeof allocs[0]; i++) {
        if (!allocs[i].bytes)
            continue;
        cudaError_t e = cudaMalloc(allocs[i].p, allocs[i].bytes);
        if (e != cudaSuccess) {
            cudaGetLastError();
            int rc = cuda_fail(err, errlen, "cudaMalloc of the msm workspace", e);
            cuzk_gpu_msm_free(ws);
            return rc;
        }
    }
    for (int i = 0; i < 8; i++) {
        cudaError_t e = cudaEventCreate(&ws->ev[i]);
        if (e != cudaSuccess) {
            int rc = cuda_fail(err, errlen, "cudaEventCreate", e);
            cuzk_gpu_msm_free(ws);
            return rc;
        }
    }
    cudaError_t e = cudaStreamCreateWithPriority(&ws->st_sort, cudaStreamNonBlocking, gpu_work_priority());
    cudaEvent_t *evs[] = {&ws->ev_fork, &ws->ev_sorted, &ws->ev_join};
    for (int i = 0; e == cudaSuccess && i < 3; i++)
        e = cudaEventCreateWithFlags(evs[i], cudaEventDisableTiming);
    if (e != cudaSuccess) {
        int rc = cuda_fail(err, errlen, "the msm workspace's sort stream and events", e);
        cuzk_gpu_msm_free(ws);
        return rc;
    }
    if (group == CUZK_GPU_G1) {
        int rc = msm_tree_new(&ws->tree, n_max, B, lent, lent_bytes, err, errlen);
        if (rc) {
            cuzk_gpu_msm_free(ws);
            return rc;
        }
        ws->tree_min = MSM_TREE_MIN;
        ws->tree_finish = MSM_TREE_FINISH;
    }
    *out = ws;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_msm_set_tree(cuzk_gpu_msm *ws, size_t min_entries, size_t finish_slots)
{
    if (!ws || !ws->tree)
        return;
    ws->tree_min = min_entries ? min_entries : MSM_TREE_MIN;
    ws->tree_finish = min_entries ? finish_slots : MSM_TREE_FINISH;
}

extern "C" void cuzk_gpu_msm_set_ones_split(cuzk_gpu_msm *ws, unsigned launches)
{
    if (ws)
        ws->ones_split = launches == 0 ? msm_ones_split() : launches > 64 ? 64 : launches;
}

extern "C" void cuzk_gpu_msm_set_tree_parts(cuzk_gpu_msm *ws, unsigned parts, size_t split_min)
{
    if (!ws || !ws->tree)
        return;
    ws->tree->parts = parts == 0 ? MSM_TREE_PARTS : parts > MSM_TREE_MAX_PARTS ? MSM_TREE_MAX_PARTS : parts;
    ws->tree->split_min = parts == 0 ? MSM_TREE_SPLIT_MIN : split_min ? split_min : 1;
}
