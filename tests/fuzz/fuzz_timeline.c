/*
 * fuzz_timeline.c — libFuzzer target for the TIMELINE reader and report
 * (cuzk/timeline_report.h).
 *
 * Every input is copied into an exact-size heap buffer (no terminating NUL,
 * so AddressSanitizer sees any read past the end) and parsed. A log that
 * parses is analysed and its report printed to /dev/null, so the interval
 * matching, percentiles, unions and gap search run on arbitrary event
 * orders. Properties checked besides memory safety: a failure comes with a
 * message and no log; a success with a log whose line count is at least one;
 * the analysis of a parsed log succeeds (it may fail only for memory).
 * Seeds: tests/fuzz/corpus/fuzz_timeline (a few lines written by the engine).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/timeline_report.h"

static void require(int cond)
{
    if (!cond)
        abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    char err[256] = "";
    cuzk_tlr_log *log = NULL;
    int rc = cuzk_tlr_parse(text, size, &log, err, sizeof err);
    if (rc != CUZK_OK) {
        require(log == NULL && err[0] != '\0');
    } else {
        require(log != NULL && log->n_lines >= 1);
        cuzk_tlr_stats *st = NULL;
        err[0] = '\0';
        rc = cuzk_tlr_analyze(log, &st, err, sizeof err);
        require(rc == CUZK_OK || rc == CUZK_ENOMEM);
        if (rc == CUZK_OK) {
            FILE *null = fopen("/dev/null", "w");
            if (null) {
                cuzk_tlr_print(null, "fuzz", log, st, err, sizeof err);
                fclose(null);
            }
        }
        cuzk_tlr_stats_free(st);
    }
    cuzk_tlr_log_free(log);
    free(text);
    return 0;
}
