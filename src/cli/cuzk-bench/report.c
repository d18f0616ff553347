/*
 * report.c — `cuzk-bench timeline report FILE [--svg OUT.svg]`: a thin shell
 * around cuzk_timeline_report (cuzk/timeline_report.h), which reads the
 * file, prints the analysis on stdout and draws the waterfall.
 *
 * The subcommand exists only in builds that contain the report library:
 * the check is on its source file (src/engine/timeline_report.c, found
 * through this program's src/ include path), because the build compiles
 * every src/ file into the library, so "the source is there" is exactly
 * "the function is linked".
 */
#include <stdio.h>

#include "bench.h"

#if defined(__has_include)
#if __has_include("engine/timeline_report.c") && __has_include("cuzk/timeline_report.h")
#define BENCH_HAVE_REPORT 1
#endif
#endif

#ifdef BENCH_HAVE_REPORT
#include "cuzk/timeline_report.h"

const bool bench_have_report = true;

int bench_report(const char *path, const char *svg)
{
    char err[BENCH_ERRLEN] = "";
    int rc = cuzk_timeline_report(path, stdout, svg, err, sizeof err);
    if (rc != CUZK_OK) {
        bench_error("%s", err[0] ? err : cuzk_strerror(rc));
        return BENCH_FAIL;
    }
    return BENCH_OK;
}
#else
const bool bench_have_report = false;

int bench_report(const char *path, const char *svg)
{
    (void)path;
    (void)svg;
    bench_error("timeline report is not part of this build");
    return BENCH_FAIL;
}
#endif
