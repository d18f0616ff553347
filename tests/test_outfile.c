/*
 * test_outfile.c — the atomic output file of cuzk/outfile.h, which every file cuzk writes goes through.
 *
 * Oracles: the file system itself (what stands in the directory after each step: the destination's
 * bytes compared with what was written, the old file untouched after a failure, no "<path>.tmp.<pid>"
 * left behind) and errno-level failures made for real: a missing directory, a directory at the
 * destination, a directory appearing there before the rename, a file-size limit (RLIMIT_FSIZE) that
 * makes write(2) and fflush(3) fail part-way, and SIGTERM while a tracked temporary file is open.
 * snarkjs proof.json and public.json written through it read back equal.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuzk/common.h"
#include "cuzk/curve.h"
#include "cuzk/outfile.h"
#include "cuzk/snarkjs_json.h"
#include "testutil.h"

static char dir[] = "/tmp/cuzk_test_outfile_XXXXXX";
static char err[512];

static void path_in(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

/* Whether the file at path holds exactly len bytes equal to want. */
static bool holds(const char *path, const void *want, size_t len)
{
    size_t got_len = 0;
    uint8_t *got = test_read_file(path, &got_len);
    bool ok = got && got_len == len && !memcmp(got, want, len);
    free(got);
    return ok;
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot make %s", path);
}

static void test_commit(void)
{
    char path[256];
    path_in(path, sizeof path, "a.bin");
    size_t n = 3 * 65536 + 17;
    uint8_t *bytes = malloc(n);
    test_rand_bytes(bytes, n);
    cuzk_outfile o;
    int rc = cuzk_outfile_open(&o, path, 0, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK && o.tmp && access(o.tmp, F_OK) == 0 && access(path, F_OK) != 0,
          "open: rc %d (%s), the temporary file exists and the destination not yet", rc, err);
    for (size_t at = 0; at < n; at += 4096) /* several writes of one file */
        CHECK(cuzk_outfile_write(&o, bytes + at, n - at < 4096 ? n - at : 4096) == CUZK_OK, "write at %zu",
              at);
    rc = cuzk_outfile_commit(&o, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK && holds(path, bytes, n) && test_dir_count(dir, ".tmp.") == 0 && o.tmp == NULL,
          "commit: rc %d (%s), the destination holds the bytes, no temporary file", rc, err);

    /* through a stream, over the old file */
    rc = cuzk_outfile_open(&o, path, CUZK_OUTFILE_STREAM, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK && o.f, "stream: rc %d (%s)", rc, err);
    if (o.f)
        fprintf(o.f, "line %d\n", 7);
    CHECK(holds(path, bytes, n), "the old file stands while the new one is written");
    rc = cuzk_outfile_commit(&o, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK && holds(path, "line 7\n", 7) && test_dir_count(dir, NULL) == 1,
          "stream commit: rc %d (%s)", rc, err);

    /* write(2) beside a stream would reorder bytes: refused, and the file is not committed */
    rc = cuzk_outfile_open(&o, path, CUZK_OUTFILE_STREAM, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK && cuzk_outfile_write(&o, "x", 1) == CUZK_EIO, "write on a stream outfile: refused");
    rc = cuzk_outfile_commit(&o, NULL, err, sizeof err);
    CHECK(rc == CUZK_EIO && holds(path, "line 7\n", 7) && test_dir_count(dir, NULL) == 1,
          "... and its commit fails, leaving the old file: rc %d (%s)", rc, err);

    /* abort: the old file untouched, nothing else left; abort and commit after it are harmless */
    rc = cuzk_outfile_open(&o, path, 0, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK && cuzk_outfile_write(&o, bytes, 100) == CUZK_OK, "open for abort: %s", err);
    cuzk_outfile_abort(&o);
    cuzk_outfile_abort(&o);
    CHECK(holds(path, "line 7\n", 7) && test_dir_count(dir, NULL) == 1,
          "abort left the old file alone and nothing else");
    CHECK(cuzk_outfile_commit(&o, NULL, err, sizeof err) == CUZK_EINVAL, "commit after abort: EINVAL");
    CHECK(cuzk_outfile_write(&o, bytes, 1) == CUZK_EIO, "write after abort: refused");
    cuzk_outfile z;
    memset(&z, 0, sizeof z);
    cuzk_outfile_abort(&z); /* a zeroed one */
    CHECK(cuzk_outfile_commit(&z, NULL, err, sizeof err) == CUZK_EINVAL, "zeroed: commit EINVAL");
    unlink(path);
    free(bytes);
}

static void test_refused(void)
{
    char path[256];
    cuzk_outfile o;
    int before = test_dir_count(dir, NULL);
    path_in(path, sizeof path, "no/such/dir/x.bin");
    int rc = cuzk_outfile_open(&o, path, 0, "params write", err, sizeof err);
    CHECK(rc == CUZK_EIO && strstr(err, "params write: cannot create ") == err && strstr(err, "x.bin.tmp.") &&
              o.tmp == NULL,
          "missing directory: rc %d \"%s\"", rc, err);
    path_in(path, sizeof path, "adir");
    CHECK(mkdir(path, 0755) == 0, "mkdir %s", path);
    rc = cuzk_outfile_open(&o, path, 0, NULL, err, sizeof err);
    CHECK(rc == CUZK_EIO && strstr(err, "is a directory") && test_dir_count(dir, NULL) == before + 1,
          "a directory at the destination: refused at open: rc %d \"%s\"", rc, err);
    rmdir(path);
    CHECK(cuzk_outfile_open(&o, "", 0, NULL, err, sizeof err) == CUZK_EINVAL, "empty path: EINVAL");
    CHECK(cuzk_outfile_open(&o, NULL, 0, NULL, err, sizeof err) == CUZK_EINVAL, "no path: EINVAL");
    CHECK(cuzk_outfile_open(NULL, "x", 0, NULL, err, sizeof err) == CUZK_EINVAL, "no outfile: EINVAL");

    /* a directory appears at the destination before the commit: the rename fails, the file goes */
    path_in(path, sizeof path, "late");
    rc = cuzk_outfile_open(&o, path, 0, "svg", err, sizeof err);
    CHECK(rc == CUZK_OK && cuzk_outfile_write(&o, "x", 1) == CUZK_OK, "open late: %s", err);
    char inner[300];
    snprintf(inner, sizeof inner, "%s/keep", path);
    CHECK(mkdir(path, 0755) == 0, "mkdir %s", path);
    put_file(inner, "k"); /* a non-empty directory: rename(2) cannot replace it */
    rc = cuzk_outfile_commit(&o, "svg", err, sizeof err);
    CHECK(rc == CUZK_EIO && strstr(err, "svg: cannot rename ") == err && test_dir_count(dir, ".tmp.") == 0 &&
              holds(inner, "k", 1),
          "rename onto a directory: rc %d \"%s\"", rc, err);
    unlink(inner);
    rmdir(path);
    CHECK(test_dir_count(dir, NULL) == before, "refusals left nothing behind");
}

/* Writes that fail part-way (a file-size limit: EFBIG instead of SIGXFSZ), by write(2) and by stdio. */
static void test_short_writes(void)
{
    char path[256];
    path_in(path, sizeof path, "old.bin");
    put_file(path, "old");
    struct rlimit keep, lim;
    getrlimit(RLIMIT_FSIZE, &keep);
    lim = keep;
    lim.rlim_cur = 10000;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit");
    uint8_t big[30000];
    test_rand_bytes(big, sizeof big);
    for (int stream = 0; stream < 2; stream++) {
        cuzk_outfile o;
        int rc = cuzk_outfile_open(&o, path, stream ? CUZK_OUTFILE_STREAM : 0, NULL, err, sizeof err);
        CHECK(rc == CUZK_OK, "open: %s", err);
        if (rc)
            continue;
        if (stream) {
            CHECK(fwrite(big, 1, sizeof big, o.f) <= sizeof big, "stream write");
        } else {
            CHECK(cuzk_outfile_write(&o, big, sizeof big) == CUZK_EIO && o.errnum == EFBIG,
                  "write past the limit: EIO, errno %d", o.errnum);
            CHECK(cuzk_outfile_write(&o, big, 1) == CUZK_EIO, "a later write is refused too");
        }
        rc = cuzk_outfile_commit(&o, "zkey setup", err, sizeof err);
        CHECK(rc == CUZK_EIO && strstr(err, "zkey setup: writing ") == err && strstr(err, strerror(EFBIG)) &&
                  holds(path, "old", 3) && test_dir_count(dir, NULL) == 1,
              "%s: commit after a failed write: rc %d \"%s\", the old file stands, nothing else",
              stream ? "stream" : "write", rc, err);
    }
    setrlimit(RLIMIT_FSIZE, &keep);
    signal(SIGXFSZ, prev);
    unlink(path);
}

/* Two files committed as one: both new on success; when second's rename fails (a directory appears at its
 * path after open), first's destination is as it was: its old bytes back, or no file where there was
 * none; nothing else is left in the directory. A failed write of first leaves second untouched too. */
static void test_pair(void)
{
    char p1[256], p2[256];
    path_in(p1, sizeof p1, "pair.params");
    path_in(p2, sizeof p2, "pair.vk");
    for (int had_old = 1; had_old >= 0; had_old--) {
        for (int fail = 0; fail < 2; fail++) {
            if (had_old) {
                put_file(p1, "old first");
                put_file(p2, "old second");
            }
            uint8_t a[5000], b[300];
            test_rand_bytes(a, sizeof a);
            test_rand_bytes(b, sizeof b);
            cuzk_outfile o1, o2;
            int rc = cuzk_outfile_open(&o1, p1, CUZK_OUTFILE_TRACK, NULL, err, sizeof err);
            CHECK(rc == CUZK_OK, "pair open first: %s", err);
            rc = cuzk_outfile_open(&o2, p2, fail ? 0 : CUZK_OUTFILE_STREAM, NULL, err, sizeof err);
            CHECK(rc == CUZK_OK, "pair open second: %s", err);
            cuzk_outfile_write(&o1, a, sizeof a);
            if (o2.f)
                fwrite(b, 1, sizeof b, o2.f);
            else
                cuzk_outfile_write(&o2, b, sizeof b);
            if (fail) { /* second's destination becomes a directory before the rename */
                unlink(p2);
                CHECK(mkdir(p2, 0755) == 0, "mkdir %s", p2);
            }
            rc = cuzk_outfile_commit_pair(&o1, &o2, "setup", err, sizeof err);
            size_t left = test_dir_count(dir, NULL);
            if (!fail)
                CHECK(rc == CUZK_OK && holds(p1, a, sizeof a) && holds(p2, b, sizeof b) && left == 2 &&
                          !o1.tmp && !o2.tmp,
                      "pair (old files %d): rc %d (%s), both new, %zu entries", had_old, rc, err, left);
            else
                CHECK(rc == CUZK_EIO && strstr(err, "setup: cannot rename") &&
                          (had_old ? holds(p1, "old first", 9) : access(p1, F_OK) != 0) && left == 2 - !had_old &&
                          !o1.tmp && !o2.tmp,
                      "pair, second's rename failing (old files %d): rc %d (%s), first as it was, %zu entries",
                      had_old, rc, err, left);
            unlink(p1);
            unlink(p2);
            rmdir(p2);
        }
    }
    /* a failed write of first: nothing renamed */
    put_file(p1, "old first");
    put_file(p2, "old second");
    cuzk_outfile o1, o2;
    CHECK(cuzk_outfile_open(&o1, p1, 0, NULL, err, sizeof err) == CUZK_OK &&
              cuzk_outfile_open(&o2, p2, 0, NULL, err, sizeof err) == CUZK_OK,
          "pair open: %s", err);
    o1.errnum = ENOSPC; /* as a failed write leaves it */
    cuzk_outfile_write(&o2, "new", 3);
    int rc = cuzk_outfile_commit_pair(&o1, &o2, NULL, err, sizeof err);
    CHECK(rc == CUZK_EIO && strstr(err, strerror(ENOSPC)) && holds(p1, "old first", 9) &&
              holds(p2, "old second", 10) && test_dir_count(dir, NULL) == 2,
          "pair, first's write failed: rc %d (%s), both old, nothing else", rc, err);
    unlink(p1);
    unlink(p2);
}

/* A tracked temporary file goes when SIGTERM or SIGPIPE (a reader gone) ends the process; an untracked
 * one stays (for a daemon's library writes, whose signals the daemon handles). */
static void test_signal(void)
{
    for (int k = 0; k < 4; k++) {
        int tracked = !(k & 1), sig = k < 2 ? SIGTERM : SIGPIPE;
        char path[256];
        path_in(path, sizeof path, tracked ? "sig.bin" : "nosig.bin");
        int fds[2];
        CHECK(pipe(fds) == 0, "pipe");
        pid_t pid = fork();
        if (pid == 0) {
            cuzk_outfile o;
            char e[256];
            if (cuzk_outfile_open(&o, path, tracked ? CUZK_OUTFILE_TRACK : 0, NULL, e, sizeof e) != CUZK_OK)
                _exit(3);
            cuzk_outfile_write(&o, "partial", 7);
            if (write(fds[1], "r", 1) != 1)
                _exit(4);
            for (;;)
                pause();
        }
        char c = 0;
        close(fds[1]);
        CHECK(read(fds[0], &c, 1) == 1 && c == 'r', "child ready");
        close(fds[0]);
        CHECK(test_dir_count(dir, ".tmp.") == 1, "%s: the temporary file exists while writing", path);
        kill(pid, sig);
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sig, "child ended by %s (status %d)", strsignal(sig),
              status);
        CHECK(test_dir_count(dir, ".tmp.") == (tracked ? 0 : 1) && access(path, F_OK) != 0,
              "%s: after %s %d temporary files (want %d), no destination", path, strsignal(sig),
              test_dir_count(dir, ".tmp."), tracked ? 0 : 1);
        char tmp[300];
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)pid);
        unlink(tmp);
    }
}

/* snarkjs's proof.json and public.json, written through the outfile, read back equal. */
static void test_snarkjs_writes(void)
{
    cuzk_fr k[3];
    for (int i = 0; i < 3; i++)
        test_rand_fr(&k[i]);
    cuzk_g1 p;
    cuzk_g2 q;
    cuzk_groth16_proof pr, back;
    cuzk_g1_from_affine(&p, &CUZK_G1_GENERATOR);
    cuzk_g1_mul_fr(&p, &p, &k[0]);
    cuzk_g1_to_affine(&pr.a, &p);
    cuzk_g1_mul_fr(&p, &p, &k[1]);
    cuzk_g1_to_affine(&pr.c, &p);
    cuzk_g2_from_affine(&q, &CUZK_G2_GENERATOR);
    cuzk_g2_mul_fr(&q, &q, &k[2]);
    cuzk_g2_to_affine(&pr.b, &q);
    char path[256];
    path_in(path, sizeof path, "proof.json");
    int rc = cuzk_snarkjs_proof_write(path, &pr, err, sizeof err);
    CHECK(rc == CUZK_OK, "proof.json write: %s", err);
    rc = cuzk_snarkjs_proof_read(path, &back, err, sizeof err);
    CHECK(rc == CUZK_OK && cuzk_g1_affine_eq(&back.a, &pr.a) && cuzk_g2_affine_eq(&back.b, &pr.b) &&
              cuzk_g1_affine_eq(&back.c, &pr.c),
          "proof.json read back: rc %d %s", rc, err);
    unlink(path);
    path_in(path, sizeof path, "public.json");
    cuzk_fr *got = NULL;
    size_t n = 0;
    rc = cuzk_snarkjs_public_write(path, k, 3, err, sizeof err);
    CHECK(rc == CUZK_OK, "public.json write: %s", err);
    rc = cuzk_snarkjs_public_read(path, &got, &n, err, sizeof err);
    CHECK(rc == CUZK_OK && n == 3 && got && !memcmp(got, k, sizeof k), "public.json read back: rc %d %s", rc,
          err);
    free(got);
    unlink(path);
    path_in(path, sizeof path, "no/dir/public.json");
    rc = cuzk_snarkjs_public_write(path, k, 3, err, sizeof err);
    CHECK(rc == CUZK_EIO && strstr(err, "cannot create"), "public.json into a missing directory: %s", err);
    CHECK(test_dir_count(dir, NULL) == 0, "snarkjs writes left nothing behind");
}

int main(void)
{
    signal(SIGPIPE, SIG_DFL); /* as a program starts, whatever the test runner set (test_signal) */
    test_rng_init("test_outfile");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    test_commit();
    test_refused();
    test_short_writes();
    test_pair();
    test_signal();
    test_snarkjs_writes();
    CHECK(test_dir_count(dir, NULL) == 0, "the scratch directory is empty at the end (%d entries)",
          test_dir_count(dir, NULL));
    rmdir(dir);
    return test_finish("test_outfile");
}
