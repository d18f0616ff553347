/*
 * fuzz_daemon_log.c — libFuzzer target for the JSON escaping of cuzkd's log
 * lines (cuzkd_json_escape, src/cli/cuzkd/log.c): log messages carry a
 * client's bytes (method names, ids, paths), and each line of the JSON log
 * must stay one JSON object whatever they are.
 *
 * The input up to its first NUL is escaped into a buffer whose size the first
 * byte picks (small ones cut the text). Checked with the library's own strict
 * JSON reader (cuzk/json.h: no control characters, no invalid UTF-8, no lone
 * surrogates):
 *   - the escaped text, quoted, always reads as one JSON string, and fits the
 *     buffer with its NUL;
 *   - with room for everything, what it reads as (valid UTF-8 by the reader's
 *     rules) escapes and reads back to exactly itself;
 *   - an input the reader takes as a string's content as it is (no quotes,
 *     backslashes or control characters, valid UTF-8) reads back unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/json.h"
#include "daemon.h"

static void require(int cond)
{
    if (!cond)
        abort();
}

/* The JSON string `"esc"` read back: its decoded bytes (malloc'd) and length, or NULL if it does not read. */
static char *read_back(const char *esc, size_t n, size_t *len)
{
    char *q = malloc(n + 2);
    if (!q)
        return NULL;
    q[0] = '"';
    memcpy(q + 1, esc, n);
    q[n + 1] = '"';
    cuzk_json_doc *doc = NULL;
    char err[128];
    char *out = NULL;
    if (cuzk_json_parse(q, n + 2, NULL, &doc, err, sizeof err) == CUZK_OK) {
        const cuzk_json_value *v = cuzk_json_root(doc);
        if (v->type == CUZK_JSON_STRING && (out = malloc(v->len + 1))) {
            memcpy(out, v->str, v->len + 1);
            *len = v->len;
        }
    }
    cuzk_json_free(doc);
    free(q);
    return out;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t cap_pick = data[0];
    char *s = malloc(size);
    if (!s)
        return 0;
    memcpy(s, data + 1, size - 1);
    s[size - 1] = 0;
    size_t slen = strlen(s), full = 6 * slen + 8;
    size_t caps[2] = {full, 1 + cap_pick % 64};
    for (int t = 0; t < 2; t++) {
        size_t cap = caps[t];
        char *esc = malloc(cap);
        require(esc != NULL);
        size_t n = cuzkd_json_escape(esc, cap, s);
        require(n < cap && esc[n] == 0 && strlen(esc) == n);
        size_t dlen = 0;
        char *d = read_back(esc, n, &dlen);
        require(d != NULL); /* one JSON string, whatever the bytes and the cut */
        if (t == 0) {
            /* the decoded text is valid UTF-8: escaping it again reads back to itself */
            char *esc2 = malloc(6 * dlen + 8);
            require(esc2 != NULL && strlen(d) == dlen);
            size_t n2 = cuzkd_json_escape(esc2, 6 * dlen + 8, d);
            size_t d2len = 0;
            char *d2 = read_back(esc2, n2, &d2len);
            require(d2 != NULL && d2len == dlen && !memcmp(d2, d, dlen));
            /* text the reader itself takes as the content of a string comes back unchanged */
            int plain = 1;
            for (size_t i = 0; i < slen; i++)
                plain &= s[i] != '"' && s[i] != '\\';
            if (plain) {
                size_t rlen = 0;
                char *r = read_back(s, slen, &rlen);
                if (r)
                    require(dlen == slen && !memcmp(d, s, slen));
                free(r);
            }
            free(d2);
            free(esc2);
        }
        free(d);
        free(esc);
    }
    free(s);
    return 0;
}
