/*
 * snarkjs_files.c — the binary container shared by circom's .r1cs and
 * snarkjs's .wtns / .zkey files, and the helpers the three readers share.
 *
 * A file is: 4 magic bytes, u32 version, u32 nSections, then nSections times
 * {u32 id, u64 size, size bytes}, every integer little-endian. snarkjs finds
 * sections by id and writes them in different orders depending on the tool
 * (circom's r1cs, a fresh `groth16 setup` zkey and a contributed zkey all
 * differ), so the table is read into an array first and sections are looked up
 * by id afterwards.
 *
 * The table walk is where a hostile file is stopped: every entry header and
 * every declared size is compared with the bytes that remain BEFORE the
 * offset moves, so no later code can be handed a section that runs past the
 * end. Sizes are u64 and compared by subtraction (size <= len - pos), never by
 * adding to an offset, so no sum can wrap. Two entries with one id, more than
 * SNARKJS_MAX_SECTIONS entries and bytes after the last section are errors:
 * snarkjs never writes them, and accepting them would make "the" section
 * ambiguous.
 *
 * Files are mapped read-only (MAP_PRIVATE); the .zkey reader keeps the mapping
 * for the life of the object because its point sections are used in place,
 * the .r1cs and .wtns readers decode and release it at once.
 */
#include "groth16/snarkjs_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int snarkjs_image_map(snarkjs_image *im, const char *path, const char *kind, char *err, size_t errlen)
{
    memset(im, 0, sizeof *im);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cuzk_fail(err, errlen, CUZK_EIO, "%s: cannot open %s: %s", kind, path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return cuzk_fail(err, errlen, CUZK_EIO, "%s: cannot stat %s: %s", kind, path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return cuzk_fail(err, errlen, CUZK_EIO, "%s: %s is not a regular file", kind, path);
    }
    if (st.st_size < 12) {
        close(fd);
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: %s is %lld bytes, too short for the 12-byte header",
                         kind, path, (long long)st.st_size);
    }
    if ((uint64_t)st.st_size > SIZE_MAX) {
        close(fd);
        return cuzk_fail(err, errlen, CUZK_ERANGE, "%s: %s is too large to map", kind, path);
    }
    size_t len = (size_t)st.st_size;
    void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED)
        return cuzk_fail(err, errlen, CUZK_EIO, "%s: cannot map %s (%zu bytes): %s", kind, path, len,
                         strerror(e));
    im->data = p;
    im->len = len;
    im->map = p;
    im->map_len = len;
    return CUZK_OK;
}

void snarkjs_image_release(snarkjs_image *im)
{
    if (im->map)
        munmap(im->map, im->map_len);
    memset(im, 0, sizeof *im);
}

static void printable_magic(char out[20], const uint8_t *m)
{
    bool text = true;
    for (int i = 0; i < 4; i++)
        text = text && m[i] >= 0x20 && m[i] < 0x7f && m[i] != '"' && m[i] != '\\';
    if (text)
        snprintf(out, 20, "\"%c%c%c%c\"", m[0], m[1], m[2], m[3]);
    else
        snprintf(out, 20, "0x%02x%02x%02x%02x", m[0], m[1], m[2], m[3]);
}

int snarkjs_container_parse(snarkjs_container *c, const uint8_t *data, size_t len, const char *kind,
                            uint32_t max_version, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->data = data;
    c->len = len;
    if (len < 12)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: file is %zu bytes, too short for the 12-byte header",
                         kind, len);
    if (memcmp(data, kind, 4) != 0) {
        char got[20];
        printable_magic(got, data);
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: bad magic %s, expected \"%s\" (not a .%s file)", kind,
                         got, kind, kind);
    }
    c->version = snarkjs_le32(data + 4);
    if (c->version < 1 || c->version > max_version)
        return cuzk_fail(err, errlen, CUZK_ERANGE, "%s: version %u not supported (known: 1..%u)", kind,
                         c->version, max_version);
    uint32_t n = snarkjs_le32(data + 8);
    if (n > SNARKJS_MAX_SECTIONS)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: %u sections declared, at most %d supported", kind, n,
                         SNARKJS_MAX_SECTIONS);
    uint64_t pos = 12;
    for (uint32_t i = 0; i < n; i++) {
        if (len - pos < 12)
            return cuzk_fail(err, errlen, CUZK_EINVAL,
                             "%s: section entry #%u of %u: header at byte %llu runs past the end of the "
                             "file (%zu bytes)",
                             kind, i, n, (unsigned long long)pos, len);
        uint32_t id = snarkjs_le32(data + pos);
        uint64_t size = snarkjs_le64(data + pos + 4);
        pos += 12;
        if (size > len - pos)
            return cuzk_fail(err, errlen, CUZK_EINVAL,
                             "%s: section %u (entry #%u) declares %llu bytes at byte %llu but only %llu "
                             "remain in the file",
                             kind, id, i, (unsigned long long)size, (unsigned long long)pos,
                             (unsigned long long)(len - pos));
        for (uint32_t j = 0; j < i; j++)
            if (c->sec[j].id == id)
                return cuzk_fail(err, errlen, CUZK_EINVAL,
                                 "%s: section %u appears twice (entries #%u and #%u)", kind, id, j, i);
        c->sec[i].id = id;
        c->sec[i].off = pos;
        c->sec[i].size = size;
        pos += size;
    }
    if (pos != len)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "%s: %llu bytes after the last of %u sections (file is %zu bytes)", kind,
                         (unsigned long long)(len - pos), n, len);
    c->n = n;
    return CUZK_OK;
}

const snarkjs_section *snarkjs_find(const snarkjs_container *c, uint32_t id)
{
    for (uint32_t i = 0; i < c->n; i++)
        if (c->sec[i].id == id)
            return &c->sec[i];
    return NULL;
}

int snarkjs_require(const snarkjs_container *c, uint32_t id, const char *name, snarkjs_cursor *cur, char *err,
                    size_t errlen)
{
    const snarkjs_section *s = snarkjs_find(c, id);
    if (!s)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: section %u (%s) is missing", c->kind, id, name);
    cur->p = c->data + s->off;
    cur->left = s->size;
    return CUZK_OK;
}

int snarkjs_expect_size(const snarkjs_container *c, uint32_t id, const char *name, uint64_t size,
                        uint64_t extra, uint64_t count, uint64_t stride, char *err, size_t errlen)
{
    /* count < 2^32 and stride <= 2^16 in every caller, but guard the product anyway. */
    bool overflow = stride && count > (UINT64_MAX - extra) / stride;
    uint64_t want = overflow ? 0 : extra + count * stride;
    if (overflow || size != want) {
        if (extra)
            return cuzk_fail(err, errlen, CUZK_EINVAL,
                             "%s: section %u (%s) has %llu bytes, expected %llu+%llu*%llu=%llu", c->kind, id,
                             name, (unsigned long long)size, (unsigned long long)extra,
                             (unsigned long long)stride, (unsigned long long)count, (unsigned long long)want);
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "%s: section %u (%s) has %llu bytes, expected %llu*%llu=%llu", c->kind, id, name,
                         (unsigned long long)size, (unsigned long long)stride, (unsigned long long)count,
                         (unsigned long long)want);
    }
    return CUZK_OK;
}

bool snarkjs_bytes_eq_limbs(const uint8_t *bytes, const uint64_t *limbs, size_t nlimbs)
{
    for (size_t i = 0; i < nlimbs; i++)
        if (snarkjs_le64(bytes + 8 * i) != limbs[i])
            return false;
    return true;
}

void snarkjs_hex_le(char *buf, const uint8_t *bytes, size_t n8)
{
    static const char digits[] = "0123456789abcdef";
    char *o = buf;
    *o++ = '0';
    *o++ = 'x';
    for (size_t i = n8; i-- > 0;) {
        *o++ = digits[bytes[i] >> 4];
        *o++ = digits[bytes[i] & 15];
    }
    *o = 0;
}

/* BN254's r: the default circom prime, named in the error so the fix is obvious. */
static const uint64_t BN254_R[4] = {0x43e1f593f0000001ull, 0x2833e84879b97091ull, 0xb85045b68181585dull,
                                    0x30644e72e131a029ull};

int snarkjs_read_prime_r(snarkjs_cursor *cur, const char *kind, const char *what, char *err, size_t errlen)
{
    const uint8_t *p = snarkjs_take(cur, 4);
    if (!p)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: %s is too short for the field size", kind, what);
    uint32_t n8 = snarkjs_le32(p);
    if (n8 != 32)
        return cuzk_fail(err, errlen, CUZK_ERANGE,
                         "%s: field elements are %u bytes, expected 32 (BLS12-381 scalar field)", kind, n8);
    if (!(p = snarkjs_take(cur, 32)))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: %s is too short for the 32-byte prime", kind, what);
    if (!snarkjs_bytes_eq_limbs(p, CUZK_R, 4)) {
        char hex[72];
        snarkjs_hex_le(hex, p, 32);
        bool bn = snarkjs_bytes_eq_limbs(p, BN254_R, 4);
        return cuzk_fail(err, errlen, CUZK_ERANGE, "%s: field prime %s is not the BLS12-381 scalar field r%s",
                         kind, hex,
                         bn ? " (it is BN254's r: compile the circuit with --prime bls12381)" : "");
    }
    return CUZK_OK;
}
