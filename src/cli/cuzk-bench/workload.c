/*
 * workload.c — what cuzk-bench proves (--workload NAME).
 *
 * A workload supplies a circuit (cuzk_cs), its proving key and a synthesis
 * callback that writes partition p's witness. The table below is the only
 * place that knows the names; a new workload (the PoRep-shaped generator)
 * is one more entry with its own build function, and every other part of
 * the program stays as it is.
 *
 *   random   cuzk_cs_random: a satisfiable Groth16-like circuit (aux values
 *            mostly 0/1, coefficients mostly ±1) with 2^LG - 2 rows, one
 *            public input and as many aux variables as rows; the key comes
 *            from cuzk_groth16_setup with fresh toxic waste (not a trusted
 *            setup; with --seed the toxic waste comes from the seed, so a
 *            seeded run gives the same proof bytes every time). Every
 *            partition proves the same witness: synthesis is a copy, so
 *            the run measures the engine and the prover.
 *   porep    the PoRep-shaped generator (cuzk/porep_synth.h) at scale
 *            2^-(27 - LG): rows about 2^LG, LG in 11..27 (27 is one full
 *            32 GiB partition), the same circuit for every partition
 *            and a different witness for each (partition p mod 10, as the
 *            ten partitions of one proof), built by the synthesis worker on
 *            the workload's witness pool (--witness-threads threads, default
 *            one per online CPU; a full partition's witness is ~20 cpu-s).
 *            The pool is shared: synthesis workers that build witnesses at
 *            the same time take turns on it, each run using every thread.
 *            Key from cuzk_groth16_setup (not a trusted setup; seeded
 *            toxic waste with --seed, as for random).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cuzk/porep_synth.h"
#include "cuzk/setup.h"
#ifdef CUZK_HAVE_GPU
#include "cuzk/gpu_setup.h"
#endif

#define RANDOM_INPUTS 2 /* ONE and one public input */

typedef int (*workload_build_fn)(bench_workload *w, const bench_opts *o, char *err, size_t errlen);

static int workload_setup(bench_workload *w, unsigned lg, const bench_opts *o, char *err, size_t errlen);

typedef struct {
    cuzk_fr *z;
    size_t n_z;
} random_state;

static int random_synth(void *user, uint64_t job, uint32_t part, cuzk_fr *z, size_t n_z, char *err,
                        size_t errlen)
{
    const random_state *st = user;
    if (n_z != st->n_z)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "random workload: witness of %zu values asked, circuit has %zu", n_z, st->n_z);
    memcpy(z, st->z, n_z * sizeof *z);
    return CUZK_OK;
}

static void random_free(void *user)
{
    random_state *st = user;
    if (st)
        free(st->z);
    free(st);
}

/* The workload summary's words for the key's form (--key-form). */
static const char *key_form(const bench_opts *o)
{
    switch (o->key_form) {
    case BENCH_KEY_BELLPERSON: return "key in bellperson's form";
    case BENCH_KEY_CONVERTED: return "key converted to the coset form";
    default: return "key in the coset form";
    }
}

static int random_build(bench_workload *w, const bench_opts *o, char *err, size_t errlen)
{
    size_t m = (size_t)1 << o->constraints_lg;
    size_t nc = m - RANDOM_INPUTS, na = nc;
    random_state *st = calloc(1, sizeof *st);
    if (!st || !(st->z = malloc((RANDOM_INPUTS + na) * sizeof *st->z))) {
        random_free(st);
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "random workload: out of memory for 2^%u rows",
                         o->constraints_lg);
    }
    st->n_z = RANDOM_INPUTS + na;
    w->user = st;
    w->free_user = random_free;
    w->synth = random_synth;
    int rc = cuzk_cs_random(&w->cs, st->z, RANDOM_INPUTS, na, nc, o->seed, CUZK_CS_RANDOM_BITS);
    if (rc != CUZK_OK)
        return cuzk_fail(err, errlen, rc, "random workload: cannot build a circuit of %zu rows", nc);
    if ((rc = workload_setup(w, o->constraints_lg, o, err, errlen)) != CUZK_OK)
        return rc;
    snprintf(w->desc, sizeof w->desc, "random (2^%u domain, %zu constraints, %zu aux, seed %llu; %s)",
             o->constraints_lg, nc, na, (unsigned long long)o->seed, key_form(o));
    return CUZK_OK;
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A non-zero scalar from the stream x: 32 bytes reduced mod r, drawn again while zero. */
static void seeded_fr(cuzk_fr *out, uint64_t *x)
{
    do {
        uint8_t b[32];
        for (int i = 0; i < 4; i++) {
            uint64_t v = splitmix64(x);
            for (int k = 0; k < 8; k++)
                b[8 * i + k] = (uint8_t)(v >> (8 * k));
        }
        cuzk_fr_from_le32_reduce(out, b);
    } while (cuzk_fr_is_zero(out));
}

/* --seed: toxic waste from a splitmix64 stream of the seed, tau outside the domain of size 2^lg, so that a
 * seeded run is reproducible end to end (same circuit, key, r and s: the same proof bytes). */
static void toxic_seeded(cuzk_groth16_toxic *tw, uint64_t seed, unsigned lg)
{
    uint64_t x = seed ^ 0x746f786963ULL; /* "toxic": a stream apart from the circuit's */
    for (;;) {
        seeded_fr(&tw->tau, &x);
        cuzk_fr t = tw->tau, u;
        for (unsigned i = 0; i < lg; i++) {
            cuzk_fr_sqr(&u, &t);
            t = u;
        }
        if (!cuzk_fr_is_one(&t)) /* tau^(2^lg) = 1: tau lies in the domain */
            break;
    }
    seeded_fr(&tw->alpha, &x);
    seeded_fr(&tw->beta, &x);
    seeded_fr(&tw->gamma, &x);
    seeded_fr(&tw->delta, &x);
}

/* The key for w->cs (domain 2^lg) from fresh toxic waste, or with --seed from the seed's. */
static int workload_setup(bench_workload *w, unsigned lg, const bench_opts *o, char *err, size_t errlen)
{
    cuzk_groth16_toxic tw;
    cuzk_pool *pool = cuzk_pool_new(o->cfg.gpu_threads);
    int rc = CUZK_OK;
    if (o->seeded)
        toxic_seeded(&tw, o->seed, lg);
    else
        rc = cuzk_groth16_toxic_random(&tw, (size_t)1 << lg, err, errlen);
    const cuzk_setup_accel *accel = o->setup_accel;
#ifdef CUZK_HAVE_GPU
    /* on the GPU: the engine's devices (--device-ids, else the first --devices, else all), never another */
    cuzk_gpu_setup_devices devs;
    cuzk_setup_accel on;
    if (accel == cuzk_gpu_setup_accel()) {
        cuzk_gpu_setup_accel_mask(&on, &devs, cuzk_engine_device_set(&o->cfg));
        accel = &on;
    }
#endif
    cuzk_groth16_setup_opts so = {.accel = accel, .h_coset = o->key_form == BENCH_KEY_COSET};
    if (rc == CUZK_OK)
        rc = cuzk_groth16_setup_ex(&w->pk, &w->cs, &tw, &so, pool, err, errlen);
    /* converted: as `cuzk coset-key` does to a .params key (docs/design/022) */
    if (rc == CUZK_OK && o->key_form == BENCH_KEY_CONVERTED) {
        cuzk_groth16_coset_opts co = {NULL, NULL, NULL, 0};
#ifdef CUZK_HAVE_GPU
        if (o->setup_accel == cuzk_gpu_setup_accel())
            co.accel = cuzk_gpu_coset_accel();
#endif
        double t0 = bench_now();
        rc = cuzk_groth16_params_to_coset(&w->pk, &w->cs, &co, pool, err, errlen);
        if (rc == CUZK_OK)
            fprintf(stderr, "cuzk-bench: key converted to the coset form in %.2f s (transforms on the %s)\n",
                    bench_now() - t0, co.accel ? "GPU" : "CPU");
    }
    cuzk_pool_free(pool);
    return rc;
}

typedef struct {
    cuzk_porep_shape shape;
    size_t n_z;
    cuzk_pool *pool; /* the witness pool, owned */
} porep_state;

static void porep_free(void *user)
{
    porep_state *st = user;
    if (st)
        cuzk_pool_free(st->pool);
    free(st);
}

static int porep_synth(void *user, uint64_t job, uint32_t part, cuzk_fr *z, size_t n_z, char *err,
                       size_t errlen)
{
    const porep_state *st = user;
    if (n_z != st->n_z)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "porep workload: witness of %zu values asked, circuit has %zu", n_z, st->n_z);
    return cuzk_porep_synth_witness(z, &st->shape, part % CUZK_POREP_PARTITIONS, st->pool, err, errlen);
}

static int porep_build(bench_workload *w, const bench_opts *o, char *err, size_t errlen)
{
    porep_state *st = calloc(1, sizeof *st);
    if (!st)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "porep workload: out of memory");
    w->user = st;
    w->free_user = porep_free;
    w->synth = porep_synth;
    if (!(st->pool = cuzk_pool_new((int)o->witness_threads)))
        return cuzk_fail(err, errlen, CUZK_ENOMEM,
                         "porep workload: cannot start the witness pool (%u threads)", o->witness_threads);
    int rc = cuzk_porep_shape_scale(&st->shape, 27 - o->constraints_lg, o->seed);
    if (rc == CUZK_OK)
        rc = cuzk_porep_synth_check(&st->shape, err, errlen);
    if (rc != CUZK_OK)
        return rc;
    st->n_z = st->shape.inputs + st->shape.aux;
    cuzk_pool *pool = cuzk_pool_new(o->cfg.gpu_threads);
    rc = cuzk_porep_synth_cs(&w->cs, &st->shape, pool, err, errlen);
    cuzk_pool_free(pool);
    unsigned lg = 0;
    while (((uint64_t)1 << lg) < st->shape.rows)
        lg++;
    if (rc == CUZK_OK)
        rc = workload_setup(w, lg, o, err, errlen);
    if (rc != CUZK_OK)
        return rc;
    snprintf(w->desc, sizeof w->desc,
             "porep-shaped at 2^-%u scale (%llu rows incl. %llu inputs, %llu aux, 2^%u domain, seed %llu; "
             "witness pool %d thread%s; %s)",
             27 - o->constraints_lg, (unsigned long long)st->shape.rows, (unsigned long long)st->shape.inputs,
             (unsigned long long)st->shape.aux, lg, (unsigned long long)o->seed, cuzk_pool_size(st->pool),
             cuzk_pool_size(st->pool) == 1 ? "" : "s", key_form(o));
    return CUZK_OK;
}

/* Each workload's --constraints range (parse_run refuses the rest, so the builds take it as given). */
static const struct {
    const char *name;
    workload_build_fn build;
    unsigned lg_min, lg_max;
} WORKLOADS[] = {
    {"random", random_build, 2, 26},
    {"porep", porep_build, 11, 27}, /* 27 - LG is the scale; 27 is one full 32 GiB partition */
};

int bench_workload_lg_range(const char *name, unsigned *lo, unsigned *hi)
{
    for (size_t i = 0; i < sizeof WORKLOADS / sizeof WORKLOADS[0]; i++)
        if (!strcmp(name, WORKLOADS[i].name)) {
            *lo = WORKLOADS[i].lg_min;
            *hi = WORKLOADS[i].lg_max;
            return CUZK_OK;
        }
    return CUZK_EINVAL;
}

const char *const bench_workload_names[] = {"random", "porep", NULL};

int bench_workload_new(bench_workload *w, const bench_opts *o, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    for (size_t i = 0; i < sizeof WORKLOADS / sizeof WORKLOADS[0]; i++)
        if (!strcmp(o->workload, WORKLOADS[i].name)) {
            int rc = WORKLOADS[i].build(w, o, err, errlen);
            if (rc != CUZK_OK)
                bench_workload_free(w);
            return rc;
        }
    return cuzk_fail(err, errlen, CUZK_EINVAL, "unknown workload '%s'", o->workload);
}

void bench_workload_free(bench_workload *w)
{
    cuzk_groth16_params_free(&w->pk);
    cuzk_cs_free(&w->cs);
    if (w->free_user)
        w->free_user(w->user);
    memset(w, 0, sizeof *w);
}
