/*
 * fuzz_params.c — libFuzzer target for the bellperson .params / .vk readers
 * of cuzk/params.h.
 *
 * The readers take a path and map the file, so each input is written into one
 * anonymous in-memory file (memfd_create) created on the first call and
 * truncated and rewritten on every later one; the readers open it again
 * through /proc/self/fd/N. Nothing touches the disk and nothing accumulates
 * between inputs. Every input goes to cuzk_params_info, cuzk_vk_read and
 * cuzk_params_read, the two readers under each point-check level (0, CURVE,
 * GROUP). Seed with a small .params, .vk and coset key file (scripts/fuzz.sh
 * makes them with `cuzk setup` and `cuzk coset-key`). Properties checked
 * besides memory safety:
 *   - a failure comes with a message and leaves the output zeroed;
 *   - a stricter check level never accepts what a looser one rejects;
 *   - what a reader accepts agrees with cuzk_params_info: the same counts and form, and
 *     a .vk is accepted by cuzk_vk_read exactly when info says vk_only.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuzk/params.h"

static void require(int cond)
{
    if (!cond)
        abort();
}

static int all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

/* Replaces the contents of the process's one scratch file with d[0..n) and returns its path. */
static const char *scratch_path(const uint8_t *d, size_t n)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("cuzk_fuzz_params", MFD_CLOEXEC);
        if (fd < 0)
            return NULL;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0)
        return NULL;
    size_t done = 0;
    while (done < n) {
        ssize_t w = pwrite(fd, d + done, n - done, (off_t)done);
        if (w <= 0)
            return NULL;
        done += (size_t)w;
    }
    return path;
}

static const unsigned levels[3] = {0, CUZK_PARAMS_CHECK_CURVE, CUZK_PARAMS_CHECK_GROUP};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = scratch_path(data, size);
    if (!path)
        return 0;

    char err[256] = "";
    cuzk_params_summary s;
    int info_rc = cuzk_params_info(path, &s, err, sizeof err);
    require(info_rc == CUZK_OK || err[0]);
    if (info_rc == CUZK_OK)
        require(s.file_size == size);

    int prev = CUZK_OK;
    for (int k = 0; k < 3; k++) {
        cuzk_groth16_vk vk;
        err[0] = 0;
        int rc = cuzk_vk_read(path, &vk, levels[k], err, sizeof err);
        if (rc != CUZK_OK) {
            require(err[0] && all_zero(&vk, sizeof vk));
        } else {
            require(prev == CUZK_OK && info_rc == CUZK_OK && s.vk_only && vk.n_ic == s.n_ic);
        }
        prev = rc;
        cuzk_groth16_vk_free(&vk);
    }

    prev = CUZK_OK;
    for (int k = 0; k < 3; k++) {
        cuzk_groth16_params pk;
        err[0] = 0;
        int rc = cuzk_params_read(path, &pk, levels[k], NULL, err, sizeof err);
        if (rc != CUZK_OK) {
            require(err[0] && all_zero(&pk, sizeof pk));
        } else {
            require(prev == CUZK_OK && info_rc == CUZK_OK);
            require(pk.vk.n_ic == s.n_ic && pk.n_h == s.n_h && pk.n_l == s.n_l && pk.n_a == s.n_a &&
                    pk.n_b == s.n_b_g1 && pk.n_b == s.n_b_g2 && pk.h_coset == s.coset);
        }
        prev = rc;
        cuzk_groth16_params_free(&pk);
    }
    return 0;
}
