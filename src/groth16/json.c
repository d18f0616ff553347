/*
 * json.c — the strict, bounded JSON reader and the snarkjs-style writer of
 * cuzk/json.h, plus decimal <-> field element conversion.
 *
 * The reader makes two passes over the text with one iterative routine.
 * Pass 1 validates everything and counts: the number of values and, for each
 * array or object in the order they open, how many items it holds. Pass 2
 * repeats the walk knowing those counts, so each container's items can be
 * carved out of one value array as a contiguous block the moment it opens
 * (value i of a container is items[i], O(1) access, no linked lists, no
 * reallocation that would move values). Strings are decoded in pass 2 into
 * one byte arena of len + 1 bytes: a decoded string plus its NUL never
 * outgrows its quoted form, and a number plus its NUL fits in the number and
 * the delimiter or end that follows it. Duplicate keys are found in pass 2
 * when an object closes (pairwise for small objects, by sorting otherwise).
 *
 * Nesting lives on an explicit stack of max_depth entries, so no input can
 * exhaust the C stack. Memory is bounded by the input cap and the value cap
 * (a value takes at least one input byte, so the value cap is what keeps an
 * input like "[0,0,0,...]" from costing 64 bytes of tree per 2 bytes of text).
 *
 * The writer appends to a growing buffer and mirrors bfj's layout (what
 * snarkjs's command line uses to write proof.json and public.json): newline
 * and one space per level before every item and before every closing
 * bracket, "key": value, no newline at the end.
 *
 * Decimal conversion works on canonical limbs: digits are folded in 19 at a
 * time (x = x * 10^k + chunk, 128-bit products), and printed by repeated
 * division by 10^19.
 */
#include "cuzk/json.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hard caps that hold whatever limits the caller asks for. */
#define MAX_DEPTH_CAP 4096u

struct cuzk_json_doc {
    cuzk_json_value *values; /* values[0] is the root */
    char *arena;             /* decoded strings and number literals */
};

/* ---- parser state -------------------------------------------------------------- */

typedef struct {
    cuzk_json_value *node; /* the container (pass 2) */
    size_t count;          /* items seen so far */
    size_t ordinal;        /* index of the container in opening order */
    bool is_object;
} frame;

typedef struct {
    const char *s;
    size_t len, pos;
    unsigned max_depth;
    size_t max_values;
    bool build; /* pass 2 */
    char *err;
    size_t errlen;
    /* pass 1 results, pass 2 inputs */
    size_t n_values;
    size_t *counts;
    size_t counts_cap;
    /* pass 2 */
    cuzk_json_value *values;
    size_t next_value;
    char *arena;
    size_t arena_len, arena_cap;
    const cuzk_json_value **scratch;
    size_t scratch_cap;
    /* key of the member being parsed (pass 2) */
    const char *pending_key;
    size_t pending_key_len;
    frame *stack;
    unsigned depth;
} parser;

static int fail_at(parser *p, size_t pos, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail_at(parser *p, size_t pos, int code, const char *fmt, ...)
{
    if (!p->err || p->errlen == 0)
        return code;
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos && i < p->len; i++) {
        if (p->s[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cuzk_fail(p->err, p->errlen, code, "json: line %zu, column %zu (byte %zu): %s", line, col, pos,
                     msg);
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Reads the 4 hex digits of a \u escape starting at i (just after "\u"). */
static int read_hex4(parser *p, size_t i, unsigned *out)
{
    if (p->len - i < 4)
        return fail_at(p, i, CUZK_EINVAL, "unterminated \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(p->s[i + k]);
        if (h < 0)
            return fail_at(p, i + k, CUZK_EINVAL, "bad hex digit in \\u escape");
        v = v << 4 | (unsigned)h;
    }
    *out = v;
    return CUZK_OK;
}

/* Length of the valid UTF-8 sequence at i (2..4 bytes), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t i, size_t len)
{
    unsigned c = s[i];
    size_t n;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else {
        return 0;
    }
    if (len - i < n)
        return 0;
    if (s[i + 1] < lo || s[i + 1] > hi)
        return 0;
    for (size_t k = 2; k < n; k++)
        if (s[i + k] < 0x80 || s[i + k] > 0xbf)
            return 0;
    return n;
}

static void arena_put(parser *p, char c)
{
    /* The arena was sized so this cannot overflow (see the note at the top). */
    if (p->arena_len < p->arena_cap)
        p->arena[p->arena_len++] = c;
}

static void arena_put_utf8(parser *p, unsigned cp)
{
    if (cp < 0x80) {
        arena_put(p, (char)cp);
    } else if (cp < 0x800) {
        arena_put(p, (char)(0xc0 | cp >> 6));
        arena_put(p, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        arena_put(p, (char)(0xe0 | cp >> 12));
        arena_put(p, (char)(0x80 | (cp >> 6 & 0x3f)));
        arena_put(p, (char)(0x80 | (cp & 0x3f)));
    } else {
        arena_put(p, (char)(0xf0 | cp >> 18));
        arena_put(p, (char)(0x80 | (cp >> 12 & 0x3f)));
        arena_put(p, (char)(0x80 | (cp >> 6 & 0x3f)));
        arena_put(p, (char)(0x80 | (cp & 0x3f)));
    }
}

/* Parses the string whose opening quote is at p->pos; in pass 2 the decoded
 * bytes go to the arena and *out / *out_len describe them. */
static int parse_string(parser *p, const char **out, size_t *out_len)
{
    const unsigned char *s = (const unsigned char *)p->s;
    size_t start = p->pos, i = p->pos + 1;
    size_t a0 = p->arena_len;
    for (;;) {
        if (i >= p->len)
            return fail_at(p, start, CUZK_EINVAL, "unterminated string");
        unsigned c = s[i];
        if (c == '"') {
            i++;
            break;
        }
        if (c < 0x20)
            return fail_at(p, i, CUZK_EINVAL, "control character 0x%02x in string", c);
        if (c == '\\') {
            if (i + 1 >= p->len)
                return fail_at(p, start, CUZK_EINVAL, "unterminated string");
            char e = (char)s[i + 1];
            char d = 0;
            switch (e) {
            case '"': d = '"'; break;
            case '\\': d = '\\'; break;
            case '/': d = '/'; break;
            case 'b': d = '\b'; break;
            case 'f': d = '\f'; break;
            case 'n': d = '\n'; break;
            case 'r': d = '\r'; break;
            case 't': d = '\t'; break;
            case 'u': break;
            default:
                return fail_at(p, i, CUZK_EINVAL, "bad escape '\\%c' in string",
                               e > 0x20 && e < 0x7f ? e : '?');
            }
            if (e != 'u') {
                if (p->build)
                    arena_put(p, d);
                i += 2;
                continue;
            }
            unsigned cp;
            int rc = read_hex4(p, i + 2, &cp);
            if (rc)
                return rc;
            if (cp >= 0xdc00 && cp <= 0xdfff)
                return fail_at(p, i, CUZK_EINVAL, "lone low surrogate \\u%04x in string", cp);
            if (cp >= 0xd800 && cp <= 0xdbff) {
                unsigned lo;
                if (p->len - (i + 6) < 2 || s[i + 6] != '\\' || s[i + 7] != 'u')
                    return fail_at(p, i, CUZK_EINVAL, "high surrogate \\u%04x not followed by a low one", cp);
                rc = read_hex4(p, i + 8, &lo);
                if (rc)
                    return rc;
                if (lo < 0xdc00 || lo > 0xdfff)
                    return fail_at(p, i + 6, CUZK_EINVAL, "high surrogate \\u%04x not followed by a low one",
                                   cp);
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                i += 6;
            }
            if (p->build)
                arena_put_utf8(p, cp);
            i += 6;
            continue;
        }
        size_t n = 1;
        if (c >= 0x80) {
            n = utf8_seq(s, i, p->len);
            if (n == 0)
                return fail_at(p, i, CUZK_EINVAL, "invalid UTF-8 in string");
        }
        if (p->build)
            for (size_t k = 0; k < n; k++)
                arena_put(p, (char)s[i + k]);
        i += n;
    }
    if (p->build) {
        *out = p->arena + a0;
        *out_len = p->arena_len - a0;
        arena_put(p, 0);
    }
    p->pos = i;
    return CUZK_OK;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int parse_number(parser *p, const char **out, size_t *out_len)
{
    size_t start = p->pos, i = p->pos;
    if (i < p->len && p->s[i] == '-')
        i++;
    if (i >= p->len || !is_digit(p->s[i]))
        return fail_at(p, i, CUZK_EINVAL, "expected a digit in number");
    if (p->s[i] == '0') {
        i++;
        if (i < p->len && is_digit(p->s[i]))
            return fail_at(p, start, CUZK_EINVAL, "number with a leading zero");
    } else {
        while (i < p->len && is_digit(p->s[i]))
            i++;
    }
    if (i < p->len && p->s[i] == '.') {
        i++;
        if (i >= p->len || !is_digit(p->s[i]))
            return fail_at(p, i, CUZK_EINVAL, "expected a digit after '.' in number");
        while (i < p->len && is_digit(p->s[i]))
            i++;
    }
    if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        i++;
        if (i < p->len && (p->s[i] == '+' || p->s[i] == '-'))
            i++;
        if (i >= p->len || !is_digit(p->s[i]))
            return fail_at(p, i, CUZK_EINVAL, "expected a digit in exponent");
        while (i < p->len && is_digit(p->s[i]))
            i++;
    }
    if (p->build) {
        size_t a0 = p->arena_len;
        for (size_t k = start; k < i; k++)
            arena_put(p, p->s[k]);
        *out = p->arena + a0;
        *out_len = i - start;
        arena_put(p, 0);
    }
    p->pos = i;
    return CUZK_OK;
}

static int key_cmp(const void *a, const void *b)
{
    const cuzk_json_value *x = *(const cuzk_json_value *const *)a;
    const cuzk_json_value *y = *(const cuzk_json_value *const *)b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, n);
    if (c)
        return c;
    if (x->key_len != y->key_len)
        return x->key_len < y->key_len ? -1 : 1;
    return x < y ? -1 : x > y;
}

static bool same_key(const cuzk_json_value *x, const cuzk_json_value *y)
{
    return x->key_len == y->key_len && memcmp(x->key, y->key, x->key_len) == 0;
}

/* Pass 2: rejects an object that names a member twice. */
static int check_duplicates(parser *p, const cuzk_json_value *obj)
{
    size_t n = obj->n;
    const cuzk_json_value *dup = NULL;
    if (n <= 16) {
        for (size_t i = 1; i < n && !dup; i++)
            for (size_t j = 0; j < i; j++)
                if (same_key(&obj->items[i], &obj->items[j])) {
                    dup = &obj->items[i];
                    break;
                }
    } else {
        if (p->scratch_cap < n) {
            const cuzk_json_value **s = realloc(p->scratch, n * sizeof *s);
            if (!s)
                return cuzk_fail(p->err, p->errlen, CUZK_ENOMEM, "json: out of memory");
            p->scratch = s;
            p->scratch_cap = n;
        }
        for (size_t i = 0; i < n; i++)
            p->scratch[i] = &obj->items[i];
        qsort(p->scratch, n, sizeof *p->scratch, key_cmp);
        for (size_t i = 1; i < n; i++)
            if (same_key(p->scratch[i - 1], p->scratch[i])) {
                dup = p->scratch[i]; /* ties sort by position: this is the later one */
                break;
            }
    }
    if (dup)
        return fail_at(p, dup->offset, CUZK_EINVAL, "duplicate key \"%.64s\" in object", dup->key);
    return CUZK_OK;
}

/* Claims the slot of the next value: the root, or the next item of the open container. */
static cuzk_json_value *new_value(parser *p, cuzk_json_type t, size_t offset)
{
    if (!p->build)
        return NULL;
    cuzk_json_value *v;
    if (p->depth == 0) {
        v = &p->values[0];
    } else {
        frame *f = &p->stack[p->depth - 1];
        v = (cuzk_json_value *)&f->node->items[f->count];
    }
    memset(v, 0, sizeof *v);
    v->type = t;
    v->offset = offset;
    if (p->depth > 0 && p->stack[p->depth - 1].is_object) {
        v->key = p->pending_key;
        v->key_len = p->pending_key_len;
    }
    return v;
}

/* Parses "key" ':' of an object member, leaving p->pos at the value. */
static int parse_member_key(parser *p)
{
    if (p->pos >= p->len)
        return fail_at(p, p->pos, CUZK_EINVAL, "unexpected end of input, expected an object key");
    if (p->s[p->pos] != '"')
        return fail_at(p, p->pos, CUZK_EINVAL, "expected a string key in object");
    int rc = parse_string(p, &p->pending_key, &p->pending_key_len);
    if (rc)
        return rc;
    skip_ws(p);
    if (p->pos >= p->len || p->s[p->pos] != ':')
        return fail_at(p, p->pos, CUZK_EINVAL, "expected ':' after object key");
    p->pos++;
    skip_ws(p);
    return CUZK_OK;
}

static int count_value(parser *p)
{
    if (p->n_values >= p->max_values)
        return fail_at(p, p->pos, CUZK_ERANGE, "more than %zu values", p->max_values);
    p->n_values++;
    return CUZK_OK;
}

/* Closes the innermost container (its bracket at p->pos). */
static int close_container(parser *p)
{
    frame *f = &p->stack[p->depth - 1];
    if (!p->build) {
        p->counts[f->ordinal] = f->count;
    } else {
        f->node->n = f->count;
        if (f->is_object) {
            int rc = check_duplicates(p, f->node);
            if (rc)
                return rc;
        }
    }
    p->depth--;
    p->pos++;
    return CUZK_OK;
}

/* One walk over the whole document (pass 1 or pass 2). */
static int walk(parser *p)
{
    p->pos = 0;
    p->depth = 0;
    size_t ordinal = 0;
    skip_ws(p);
    for (;;) {
        /* a value starts at p->pos */
        if (p->pos >= p->len)
            return fail_at(p, p->pos, CUZK_EINVAL,
                           p->len == 0 ? "empty input" : "unexpected end of input, expected a value");
        size_t start = p->pos;
        char c = p->s[p->pos];
        int rc = CUZK_OK;
        if (!p->build && (rc = count_value(p)))
            return rc;
        if (c == '{' || c == '[') {
            if (p->depth >= p->max_depth)
                return fail_at(p, start, CUZK_ERANGE, "nesting deeper than %u levels", p->max_depth);
            cuzk_json_value *v = new_value(p, c == '{' ? CUZK_JSON_OBJECT : CUZK_JSON_ARRAY, start);
            if (!p->build) {
                if (ordinal >= p->counts_cap) {
                    size_t cap = p->counts_cap ? 2 * p->counts_cap : 64;
                    size_t *nc = realloc(p->counts, cap * sizeof *nc);
                    if (!nc)
                        return cuzk_fail(p->err, p->errlen, CUZK_ENOMEM, "json: out of memory");
                    p->counts = nc;
                    p->counts_cap = cap;
                }
            } else {
                size_t n = p->counts[ordinal];
                v->items = &p->values[p->next_value];
                p->next_value += n;
            }
            if (p->depth > 0)
                p->stack[p->depth - 1].count++;
            frame *f = &p->stack[p->depth++];
            f->node = v;
            f->count = 0;
            f->ordinal = ordinal++;
            f->is_object = c == '{';
            p->pos++;
            skip_ws(p);
            char close = f->is_object ? '}' : ']';
            if (p->pos < p->len && p->s[p->pos] == close) {
                if ((rc = close_container(p)))
                    return rc;
            } else {
                if (f->is_object && (rc = parse_member_key(p)))
                    return rc;
                continue;
            }
        } else {
            cuzk_json_value *v = NULL;
            if (c == '"') {
                v = new_value(p, CUZK_JSON_STRING, start);
                const char *str = NULL;
                size_t n = 0;
                rc = parse_string(p, &str, &n);
                if (v) {
                    v->str = str;
                    v->len = n;
                }
            } else if (c == '-' || is_digit(c)) {
                v = new_value(p, CUZK_JSON_NUMBER, start);
                const char *str = NULL;
                size_t n = 0;
                rc = parse_number(p, &str, &n);
                if (v) {
                    v->str = str;
                    v->len = n;
                }
            } else {
                static const struct {
                    const char *word;
                    cuzk_json_type type;
                } lits[] = {{"true", CUZK_JSON_TRUE}, {"false", CUZK_JSON_FALSE}, {"null", CUZK_JSON_NULL}};
                size_t k;
                for (k = 0; k < 3; k++) {
                    size_t n = strlen(lits[k].word);
                    if (p->len - p->pos >= n && memcmp(p->s + p->pos, lits[k].word, n) == 0) {
                        new_value(p, lits[k].type, start);
                        p->pos += n;
                        break;
                    }
                }
                if (k == 3) {
                    unsigned char u = (unsigned char)c;
                    if (u >= 0x21 && u < 0x7f)
                        rc = fail_at(p, start, CUZK_EINVAL, "unexpected character '%c', expected a value", c);
                    else
                        rc = fail_at(p, start, CUZK_EINVAL, "unexpected byte 0x%02x, expected a value", u);
                }
            }
            if (rc)
                return rc;
            if (p->depth > 0)
                p->stack[p->depth - 1].count++;
        }
        /* a value ended: close containers until one continues with ',' */
        for (;;) {
            skip_ws(p);
            if (p->depth == 0) {
                if (p->pos != p->len)
                    return fail_at(p, p->pos, CUZK_EINVAL, "unexpected data after the JSON value");
                return CUZK_OK;
            }
            frame *f = &p->stack[p->depth - 1];
            char close = f->is_object ? '}' : ']';
            if (p->pos >= p->len)
                return fail_at(p, p->pos, CUZK_EINVAL, "unexpected end of input, expected ',' or '%c'",
                               close);
            char d = p->s[p->pos];
            if (d == close) {
                if ((rc = close_container(p)))
                    return rc;
                continue;
            }
            if (d != ',')
                return fail_at(p, p->pos, CUZK_EINVAL, "expected ',' or '%c' after %s", close,
                               f->is_object ? "object member" : "array element");
            p->pos++;
            skip_ws(p);
            if (p->pos < p->len && p->s[p->pos] == close)
                return fail_at(p, p->pos, CUZK_EINVAL, "trailing comma before '%c'", close);
            if (f->is_object && (rc = parse_member_key(p)))
                return rc;
            break;
        }
    }
}

int cuzk_json_parse(const char *text, size_t len, const cuzk_json_limits *lim, cuzk_json_doc **out, char *err,
                    size_t errlen)
{
    *out = NULL;
    size_t max_bytes = lim && lim->max_bytes ? lim->max_bytes : CUZK_JSON_DEFAULT_MAX_BYTES;
    unsigned max_depth = lim && lim->max_depth ? lim->max_depth : CUZK_JSON_DEFAULT_MAX_DEPTH;
    size_t max_values = lim && lim->max_values ? lim->max_values : CUZK_JSON_DEFAULT_MAX_VALUES;
    if (max_depth > MAX_DEPTH_CAP)
        max_depth = MAX_DEPTH_CAP;
    if (len > max_bytes)
        return cuzk_fail(err, errlen, CUZK_ERANGE, "json: input of %zu bytes exceeds the limit of %zu", len,
                         max_bytes);
    if (!text && len)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "json: no input");
    parser p = {.s = text,
                .len = len,
                .max_depth = max_depth,
                .max_values = max_values,
                .err = err,
                .errlen = errlen};
    int rc = CUZK_ENOMEM;
    p.stack = malloc(((size_t)max_depth + 1) * sizeof *p.stack);
    if (!p.stack)
        goto fail;
    if ((rc = walk(&p)))
        goto fail;
    rc = CUZK_ENOMEM;
    cuzk_json_doc *doc = calloc(1, sizeof *doc);
    if (!doc)
        goto fail;
    p.values = calloc(p.n_values, sizeof *p.values);
    p.arena_cap = len + 1;
    p.arena = malloc(p.arena_cap);
    if (!p.values || !p.arena) {
        free(doc);
        goto fail;
    }
    p.build = true;
    p.next_value = 1;
    if ((rc = walk(&p))) {
        free(doc);
        goto fail;
    }
    doc->values = p.values;
    doc->arena = p.arena;
    free(p.stack);
    free(p.counts);
    free(p.scratch);
    *out = doc;
    return CUZK_OK;
fail:
    if (rc == CUZK_ENOMEM)
        cuzk_fail(err, errlen, rc, "json: out of memory");
    free(p.stack);
    free(p.counts);
    free(p.scratch);
    free(p.values);
    free(p.arena);
    return rc;
}

const cuzk_json_value *cuzk_json_root(const cuzk_json_doc *doc)
{
    return doc ? &doc->values[0] : NULL;
}

void cuzk_json_free(cuzk_json_doc *doc)
{
    if (!doc)
        return;
    free(doc->values);
    free(doc->arena);
    free(doc);
}

const cuzk_json_value *cuzk_json_member(const cuzk_json_value *obj, const char *key)
{
    if (!obj || obj->type != CUZK_JSON_OBJECT)
        return NULL;
    size_t n = strlen(key);
    for (size_t i = 0; i < obj->n; i++)
        if (obj->items[i].key_len == n && memcmp(obj->items[i].key, key, n) == 0)
            return &obj->items[i];
    return NULL;
}

int cuzk_json_u64(const cuzk_json_value *v, uint64_t *out)
{
    if (!v || v->type != CUZK_JSON_NUMBER || v->len == 0 || v->len > 20)
        return CUZK_EINVAL;
    uint64_t x = 0;
    for (size_t i = 0; i < v->len; i++) {
        char c = v->str[i];
        if (!is_digit(c))
            return CUZK_EINVAL; /* sign, fraction or exponent */
        unsigned d = (unsigned)(c - '0');
        if (x > (UINT64_MAX - d) / 10)
            return CUZK_ERANGE;
        x = x * 10 + d;
    }
    *out = x;
    return CUZK_OK;
}

const char *cuzk_json_type_name(cuzk_json_type t)
{
    switch (t) {
    case CUZK_JSON_NULL: return "null";
    case CUZK_JSON_FALSE: return "false";
    case CUZK_JSON_TRUE: return "true";
    case CUZK_JSON_NUMBER: return "number";
    case CUZK_JSON_STRING: return "string";
    case CUZK_JSON_ARRAY: return "array";
    case CUZK_JSON_OBJECT: return "object";
    }
    return "?";
}

/* ---- writer ------------------------------------------------------------------------ */

void cuzk_json_writer_init(cuzk_json_writer *w)
{
    memset(w, 0, sizeof *w);
}

void cuzk_json_writer_free(cuzk_json_writer *w)
{
    free(w->buf);
    memset(w, 0, sizeof *w);
}

static void w_put(cuzk_json_writer *w, const char *s, size_t n)
{
    if (w->status)
        return;
    if (w->cap - w->len <= n) {
        size_t cap = w->cap ? w->cap : 256;
        while (cap - w->len <= n)
            cap *= 2;
        char *b = realloc(w->buf, cap);
        if (!b) {
            w->status = CUZK_ENOMEM;
            return;
        }
        w->buf = b;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = 0;
}

static void w_newline(cuzk_json_writer *w, unsigned indent)
{
    w_put(w, "\n", 1);
    for (unsigned i = 0; i < indent; i++)
        w_put(w, " ", 1);
}

/* Separator and indentation before a value (or a key) at the current level. */
static void w_set_error(cuzk_json_writer *w, int code)
{
    if (!w->status)
        w->status = code;
}

static void w_before_item(cuzk_json_writer *w, bool is_key)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth > 0 && w->in_object[w->depth] != is_key) {
        w_set_error(w, CUZK_EINVAL); /* a key outside an object or a member without a key */
        return;
    }
    if (w->depth == 0) {
        if (w->has_items[0] || is_key)
            w_set_error(w, CUZK_EINVAL); /* a second root value, or a key at the top */
        w->has_items[0] = true;
        return;
    }
    if (w->has_items[w->depth])
        w_put(w, ",", 1);
    w->has_items[w->depth] = true;
    w_newline(w, w->depth);
}

static void w_begin(cuzk_json_writer *w, const char *open)
{
    w_before_item(w, false);
    if (w->depth >= CUZK_JSON_WRITER_MAX_DEPTH) {
        w_set_error(w, CUZK_ERANGE);
        return;
    }
    w_put(w, open, 1);
    w->depth++;
    w->has_items[w->depth] = false;
    w->in_object[w->depth] = open[0] == '{';
}

static void w_end(cuzk_json_writer *w, const char *close)
{
    if (w->depth == 0 || w->after_key || w->in_object[w->depth] != (close[0] == '}')) {
        w_set_error(w, CUZK_EINVAL);
        return;
    }
    w->depth--;
    w_newline(w, w->depth);
    w_put(w, close, 1);
}

void cuzk_json_write_begin_object(cuzk_json_writer *w)
{
    w_begin(w, "{");
}
void cuzk_json_write_end_object(cuzk_json_writer *w)
{
    w_end(w, "}");
}
void cuzk_json_write_begin_array(cuzk_json_writer *w)
{
    w_begin(w, "[");
}
void cuzk_json_write_end_array(cuzk_json_writer *w)
{
    w_end(w, "]");
}

static void w_quoted(cuzk_json_writer *w, const char *s, size_t len)
{
    w_put(w, "\"", 1);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        const char *e = NULL;
        switch (c) {
        case '"': e = "\\\""; break;
        case '\\': e = "\\\\"; break;
        case '\b': e = "\\b"; break;
        case '\f': e = "\\f"; break;
        case '\n': e = "\\n"; break;
        case '\r': e = "\\r"; break;
        case '\t': e = "\\t"; break;
        default:
            if (c < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", c);
                e = esc;
            }
        }
        if (e)
            w_put(w, e, strlen(e));
        else
            w_put(w, (const char *)&s[i], 1);
    }
    w_put(w, "\"", 1);
}

void cuzk_json_write_key(cuzk_json_writer *w, const char *key)
{
    if (w->after_key) {
        w_set_error(w, CUZK_EINVAL);
        return;
    }
    w_before_item(w, true);
    w_quoted(w, key, strlen(key));
    w_put(w, ": ", 2);
    w->after_key = true;
}

void cuzk_json_write_string(cuzk_json_writer *w, const char *s, size_t len)
{
    w_before_item(w, false);
    w_quoted(w, s, len);
}

void cuzk_json_write_u64(cuzk_json_writer *w, uint64_t v)
{
    char b[24];
    int n = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    w_before_item(w, false);
    w_put(w, b, (size_t)n);
}

int cuzk_json_writer_finish(cuzk_json_writer *w, char **out, size_t *len, char *err, size_t errlen)
{
    int rc = w->status;
    if (!rc && (w->depth != 0 || w->after_key || !w->has_items[0]))
        rc = CUZK_EINVAL;
    if (rc) {
        const char *why = rc == CUZK_ENOMEM   ? "out of memory"
                          : rc == CUZK_ERANGE ? "nesting too deep"
                                              : "document incomplete or malformed";
        return cuzk_fail(err, errlen, rc, "json writer: %s", why);
    }
    *out = w->buf;
    *len = w->len;
    w->buf = NULL;
    w->len = w->cap = 0;
    return CUZK_OK;
}

/* ---- decimal field elements ---------------------------------------------------------- */

#define TEN19 10000000000000000000ull

/* Parses canonical decimal digits into n limbs; max_digits bounds the value below 2^(64 n). */
static int decimal_to_limbs(uint64_t *x, size_t n, const uint64_t *mod, size_t max_digits, const char *s,
                            size_t len, const char *what, char *err, size_t errlen)
{
    if (len == 0)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: empty decimal string", what);
    int shown = len < 40 ? (int)len : 40; /* s need not be NUL-terminated */
    for (size_t i = 0; i < len; i++)
        if (!is_digit(s[i]))
            return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: '%.*s' is not a decimal integer (byte %zu)", what,
                             shown, s, i);
    if (len > 1 && s[0] == '0')
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: '%.*s' has a leading zero", what, shown, s);
    if (len > max_digits)
        return cuzk_fail(err, errlen, CUZK_ENONCANONICAL, "%s: %zu-digit value is not below the modulus",
                         what, len);
    memset(x, 0, n * sizeof *x);
    size_t i = 0;
    while (i < len) {
        size_t k = len - i < 19 ? len - i : 19;
        uint64_t mul = 1, chunk = 0;
        for (size_t j = 0; j < k; j++) {
            mul *= 10;
            chunk = chunk * 10 + (uint64_t)(s[i + j] - '0');
        }
        unsigned __int128 carry = chunk;
        for (size_t l = 0; l < n; l++) {
            unsigned __int128 t = (unsigned __int128)x[l] * mul + carry;
            x[l] = (uint64_t)t;
            carry = t >> 64;
        }
        i += k;
    }
    for (size_t l = n; l-- > 0;) {
        if (x[l] != mod[l]) {
            if (x[l] < mod[l])
                return CUZK_OK;
            break;
        }
    }
    return cuzk_fail(err, errlen, CUZK_ENONCANONICAL, "%s: %.*s%s is not below the modulus", what, shown, s,
                     len > 40 ? "..." : "");
}

int cuzk_fp_from_decimal(cuzk_fp *r, const char *s, size_t len, char *err, size_t errlen)
{
    uint64_t x[6];
    int rc = decimal_to_limbs(x, 6, CUZK_P, 115, s, len, "Fp", err, errlen);
    if (rc)
        return rc;
    cuzk_fp_from_canonical(r, x);
    return CUZK_OK;
}

int cuzk_fr_from_decimal(cuzk_fr *r, const char *s, size_t len, char *err, size_t errlen)
{
    uint64_t x[4];
    int rc = decimal_to_limbs(x, 4, CUZK_R, 77, s, len, "Fr", err, errlen);
    if (rc)
        return rc;
    cuzk_fr_from_canonical(r, x);
    return CUZK_OK;
}

/* Prints the n-limb integer x (destroyed) in decimal into out. */
static size_t limbs_to_decimal(char *out, uint64_t *x, size_t n)
{
    char rev[128];
    size_t nd = 0;
    for (;;) {
        bool zero = true;
        unsigned __int128 rem = 0;
        for (size_t l = n; l-- > 0;) {
            unsigned __int128 cur = rem << 64 | x[l];
            x[l] = (uint64_t)(cur / TEN19);
            rem = cur % TEN19;
            if (x[l])
                zero = false;
        }
        uint64_t chunk = (uint64_t)rem;
        for (int j = 0; j < 19; j++) {
            rev[nd++] = (char)('0' + chunk % 10);
            chunk /= 10;
            if (zero && chunk == 0)
                break;
        }
        if (zero)
            break;
    }
    while (nd > 1 && rev[nd - 1] == '0')
        nd--;
    for (size_t i = 0; i < nd; i++)
        out[i] = rev[nd - 1 - i];
    out[nd] = 0;
    return nd;
}

size_t cuzk_fp_to_decimal(char out[CUZK_FP_DECIMAL_SIZE], const cuzk_fp *a)
{
    uint64_t x[6];
    cuzk_fp_to_canonical(x, a);
    return limbs_to_decimal(out, x, 6);
}

size_t cuzk_fr_to_decimal(char out[CUZK_FR_DECIMAL_SIZE], const cuzk_fr *a)
{
    uint64_t x[4];
    cuzk_fr_to_canonical(x, a);
    return limbs_to_decimal(out, x, 4);
}
