/*
 * fuzz_config.c — libFuzzer target for cuzkd's configuration reader
 * (src/cli/cuzkd/config.c: the TOML subset, the key table, sizes, durations,
 * addresses, device lists, circuit ids).
 *
 * Each input is parsed from the fuzzer's own buffer (the reader takes a length,
 * so AddressSanitizer sees any read past the end). A failure must come with a
 * message. A success is checked (cuzkd_config_check may refuse it; that is
 * fine) and printed as `cuzkd --print-config` prints it; the printed text must
 * load again, and print again to the same bytes: what the daemon writes as its
 * effective settings is a config it accepts and means the same thing.
 * Seeds: tests/fuzz/corpus/fuzz_config (the documented example and small cases).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

static void require(int cond, const char *what, const char *text)
{
    if (!cond) {
        fprintf(stderr, "fuzz_config: %s\n%s\n", what, text ? text : "");
        abort();
    }
}

static char *print(const cuzkd_config *c, size_t *n)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, n);
    if (!f)
        return NULL;
    cuzkd_config_print(f, c);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    cuzkd_config a, b;
    cuzkd_config_init(&a);
    char err[256] = "";
    if (cuzkd_config_parse(&a, "fuzz.toml", (const char *)data, size, err, sizeof err) != 0) {
        require(err[0] != '\0', "a refused config without a message", NULL);
        cuzkd_config_free(&a);
        return 0;
    }
    char chk[256] = "";
    if (cuzkd_config_check(&a, chk, sizeof chk) != 0)
        require(chk[0] != '\0', "a config the check refuses without a message", NULL);
    size_t n1 = 0, n2 = 0;
    char *t1 = print(&a, &n1);
    if (t1) {
        cuzkd_config_init(&b);
        err[0] = '\0';
        int rc = cuzkd_config_parse(&b, "printed.toml", t1, n1, err, sizeof err);
        if (rc != 0) {
            char what[400];
            snprintf(what, sizeof what, "the printed config does not load: %s", err);
            require(0, what, t1);
        }
        char *t2 = print(&b, &n2);
        require(t2 == NULL || (n1 == n2 && !memcmp(t1, t2, n1)), "printed twice, two different texts", t1);
        free(t2);
        cuzkd_config_free(&b);
        free(t1);
    }
    cuzkd_config_free(&a);
    return 0;
}
