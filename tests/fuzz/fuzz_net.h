/*
 * fuzz_net.h — what the two network fuzzers (fuzz_rpc_server, fuzz_daemon_service) share: a failed
 * property aborts with its reason, a growing byte buffer for the seeds they write, a seed file, and the
 * server's loop on a thread of its own for the whole process (libFuzzer ends with exit(), so the loop
 * never returns; each fuzzer removes its socket files at exit). Header-only, static functions.
 */
#ifndef CUZK_FUZZ_NET_H
#define CUZK_FUZZ_NET_H
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc.h"

static void require(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz: %s\n", what);
        abort();
    }
}

typedef struct {
    uint8_t *p;
    size_t n;
} bytes;

static void put(bytes *b, const void *d, size_t n)
{
    uint8_t *q = realloc(b->p, b->n + n);
    require(q != NULL, "out of memory");
    memcpy(q + b->n, d, n);
    b->p = q;
    b->n += n;
}

/* DIR/NAME holds the n bytes at p, or the run stops. */
static void seed_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    require(f && fwrite(p, 1, n, f) == n && fclose(f) == 0, "cannot write a seed");
}

static void *fuzz_loop_main(void *srv)
{
    require(rpc_server_run((rpc_server *)srv) == 0, "the loop failed");
    return NULL;
}

/* Runs srv's loop on a detached thread until the process ends. */
static void fuzz_start_loop(rpc_server *srv)
{
    pthread_t t;
    require(pthread_create(&t, NULL, fuzz_loop_main, srv) == 0, "cannot start the loop");
    pthread_detach(t);
}
#endif
