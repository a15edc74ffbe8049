/*
 * JSON text without building values: a strict RFC 8259 checker that
 * compacts as it goes and indexes the top-level members, and a serialiser
 * for jv values.
 *
 * Why not jv_parse + jv_dump for every record?  A stage reads one or two
 * fields and adds one; parsing and re-dumping the whole record with libjq
 * 1.6 costs several times more than the stage's own work, and rounds
 * integers beyond 2^53.  Checking the text in one pass and copying it keeps
 * every field byte for byte and leaves libjq for the few fields a stage
 * actually reads.
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"

#define MAX_DEPTH 512

struct lex {
	const char *s;
	size_t n, i;
	struct cc_buf *out;
	struct cc_json_doc *doc;
	int depth;
	const char *err;
};

static int
fail(struct lex *l, const char *why)
{
	if (!l->err) {
		l->err = why;
		l->doc->err_col = l->i + 1;
	}
	return -1;
}

/*
 * Output, or none: cc_json_index() checks text in place (l->out NULL),
 * where the compact text is the input itself and a position in it is
 * l->i.
 */
static inline void
put(struct lex *l, const void *p, size_t n)
{
	if (l->out)
		cc_buf_add(l->out, p, n);
}

static inline size_t
at(const struct lex *l)
{
	return l->out ? l->out->len : l->i;
}

static inline void
ws(struct lex *l)
{
	size_t start = l->i;

	while (l->i < l->n && (l->s[l->i] == ' ' || l->s[l->i] == '\t' ||
	    l->s[l->i] == '\n' || l->s[l->i] == '\r'))
		l->i++;
	if (l->i != start && !l->out)
		fail(l, "not compact");	/* in place, the text must be */
}

static int
hex(char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* The value of four hex digits at s[i], or -1. */
static long
hex4(const char *s, size_t n, size_t i)
{
	long v = 0;

	if (i + 4 > n)
		return -1;
	for (size_t k = i; k < i + 4; k++) {
		if (!hex(s[k]))
			return -1;
		v = v << 4 | (s[k] <= '9' ? s[k] - '0' : (s[k] | 0x20) - 'a' + 10);
	}
	return v;
}

/* Length of the UTF-8 sequence at s (at most n bytes), 0 if invalid. */
static size_t
utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp;

	if (c < 0xC2 || c > 0xF4)
		return 0;
	len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
	if (n < len)
		return 0;
	cp = c & (0x7F >> len);
	for (size_t k = 1; k < len; k++) {
		if ((s[k] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3F);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return len;
}

/*
 * A string token; *escaped says whether it holds a backslash.  Lone
 * surrogate escapes are valid JSON but not text: they are written as
 * \ufffd, as libjq would decode them.  A raw control character (a tab
 * pasted into a question) is strictly invalid, and libjq refuses most of
 * them; it is written escaped, so the record is read as its writer meant.
 */
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
/* 1 if any of the 8 bytes of x is below n (n <= 128) */
#define ANY_BELOW(x, n) ((((x) - ONES * (n)) & ~(x) & HIGHS) != 0)
/* 1 if any of the 8 bytes of x is b */
#define ANY_IS(x, b) ANY_BELOW((x) ^ (ONES * (b)), 1)

/*
 * Sixteen bytes at a time with SSE2 (every x86-64 has it): how many
 * bytes from s on (at most n, whole blocks of 16, ending on a character
 * boundary) are plain, as plain_run() counts them.  A block is plain when
 * it holds no quote, backslash or control character, and each of its
 * bytes above 0x7F is a lead byte of two or three bytes (C2-DF, E1-EC,
 * EE-EF: E0 and ED need their second byte checked, F0-F4 are four bytes
 * long; plain_run's own loop takes those) or a continuation byte, the
 * continuation bytes exactly where the leads want them.  A sequence
 * that runs past the block is left for the next one.  Japanese text was
 * the slow part of checking a record: a character at a time.
 */
#ifdef __SSE2__
#include <emmintrin.h>

static size_t
plain_blocks(const unsigned char *s, size_t n)
{
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
	const __m128i c1f = _mm_set1_epi8(0x1F), flip = _mm_set1_epi8((char)0x80);
	size_t i = 0;

	while (n - i >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(s + i));
		__m128i w;
		unsigned bad = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(
		    _mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
		    _mm_cmpeq_epi8(_mm_max_epu8(v, c1f), c1f)));	/* <= 0x1F */
		/* the bytes before the first that is no string text */
		unsigned before = bad ? (bad & -bad) - 1 : 0xFFFF;
		unsigned high = (unsigned)_mm_movemask_epi8(v) & before;
		unsigned cont, lead2, lead3, want;

		if (high) {
			/* w = v - 0x80 as signed bytes: 0x80-0xFF become 0-127 */
			w = _mm_xor_si128(v, flip);
			cont = (unsigned)_mm_movemask_epi8(_mm_andnot_si128(
			    _mm_cmpgt_epi8(w, _mm_set1_epi8(0x3F)),
			    _mm_cmpgt_epi8(w, _mm_set1_epi8(-1))));	/* 80-BF */
			lead2 = (unsigned)_mm_movemask_epi8(_mm_and_si128(
			    _mm_cmpgt_epi8(w, _mm_set1_epi8(0x41)),
			    _mm_cmplt_epi8(w, _mm_set1_epi8(0x60))));	/* C2-DF */
			lead3 = (unsigned)_mm_movemask_epi8(_mm_andnot_si128(
			    _mm_cmpeq_epi8(w, _mm_set1_epi8(0x6D)), _mm_and_si128(
			    _mm_cmpgt_epi8(w, _mm_set1_epi8(0x60)),
			    _mm_cmplt_epi8(w, _mm_set1_epi8(0x70)))));	/* E1-EF, not ED */
			cont &= before;
			lead2 &= before;
			lead3 &= before;
			if ((cont | lead2 | lead3) != high)
				return i;
			want = lead2 << 1 | lead3 << 1 | lead3 << 2;
			if ((want & before) != cont)
				return i;
			if (want & ~before) {
				/* the last character goes on past the block (or
				   into the quote): start there */
				unsigned lead = lead2 | lead3;

				if (bad)
					return i + 31 - (size_t)__builtin_clz(lead);
				i += 31 - (size_t)__builtin_clz(lead);	/* 14 or 15 */
				continue;
			}
		}
		if (bad)
			return i + (size_t)__builtin_ctz(bad);
		i += 16;
	}
	return i;
}
#else
static size_t
plain_blocks(const unsigned char *s, size_t n)
{
	(void)s;
	(void)n;
	return 0;
}
#endif

/*
 * How many bytes from s on (at most n) are plain: printable ASCII other
 * than " and \, or whole well-formed UTF-8 sequences of two or three
 * bytes (all the Japanese text there is).  Whole blocks go through
 * plain_blocks(); the rest, eight ASCII bytes at a time or a character
 * at a time, up to the next block.
 */
static size_t
plain_run(const unsigned char *s, size_t n)
{
	size_t i = 0;

	for (;;) {
		size_t stop;

		i += plain_blocks(s + i, n - i);
		stop = n - i > 16 ? i + 16 : n;
		while (i < stop) {
			while (stop - i >= 8) {
				uint64_t x;

				memcpy(&x, s + i, 8);
				if ((x & HIGHS) || ANY_BELOW(x, 0x20) || ANY_IS(x, '"') ||
				    ANY_IS(x, '\\'))
					break;
				i += 8;
			}
			if (i >= stop)
				break;
			unsigned char c = s[i];

			if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\')
				i++;
			else if (c >= 0xE1 && c < 0xF0 && c != 0xED && n - i >= 3 &&
			    (s[i + 1] & 0xC0) == 0x80 && (s[i + 2] & 0xC0) == 0x80)
				i += 3;	/* E0 and ED (overlong, surrogates): utf8_seq */
			else if (c >= 0xC2 && c < 0xE0 && n - i >= 2 &&
			    (s[i + 1] & 0xC0) == 0x80)
				i += 2;
			else
				return i;
		}
		if (i >= n)
			return n;
	}
}

static int
string(struct lex *l, int *escaped)
{
	size_t run = l->i++;

	*escaped = 0;
	while (l->i < l->n) {
		unsigned char c;

		l->i += plain_run((const unsigned char *)l->s + l->i, l->n - l->i);
		if (l->i >= l->n)
			break;
		c = (unsigned char)l->s[l->i];
		if (c == '"') {
			l->i++;
			put(l, l->s + run, l->i - run);
			return 0;
		}
		if (c == '\\') {
			char e = l->i + 1 < l->n ? l->s[l->i + 1] : 0;
			long u, lo;

			*escaped = 1;
			if (e != 'u') {
				if (!e || !strchr("\"\\/bfnrt", e))
					return fail(l, "bad escape");
				l->i += 2;
				continue;
			}
			if ((u = hex4(l->s, l->n, l->i + 2)) < 0)
				return fail(l, "bad \\u escape");
			if (u < 0xD800 || u > 0xDFFF) {
				l->i += 6;
				continue;
			}
			lo = u <= 0xDBFF && l->i + 7 < l->n && l->s[l->i + 6] == '\\' &&
			    l->s[l->i + 7] == 'u' ? hex4(l->s, l->n, l->i + 8) : -1;
			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				l->i += 12;	/* a proper pair */
				continue;
			}
			if (!l->out)	/* in place: the text would change */
				return fail(l, "lone surrogate");
			put(l, l->s + run, l->i - run);
			put(l, "\\ufffd", 6);
			l->i += 6;
			run = l->i;
		} else if (c < 0x20) {
			char esc[8];

			if (!l->out)
				return fail(l, "control character");
			put(l, l->s + run, l->i - run);
			snprintf(esc, sizeof esc, "\\u%04x", c);
			put(l, esc, 6);
			*escaped = 1;
			run = ++l->i;
		} else if (c < 0x80) {
			l->i++;
		} else {
			size_t k = utf8_seq((const unsigned char *)l->s + l->i, l->n - l->i);

			if (k == 0) {
				l->doc->needs_rewrite = 1;	/* invalid UTF-8 */
				l->i++;
			} else {
				l->i += k;
			}
		}
	}
	return fail(l, "unterminated string");
}

static int
digits(struct lex *l)
{
	size_t start = l->i;

	while (l->i < l->n && l->s[l->i] >= '0' && l->s[l->i] <= '9')
		l->i++;
	return l->i > start ? 0 : fail(l, "digit expected");
}

static int
number(struct lex *l)
{
	size_t start = l->i;

	if (l->s[l->i] == '-')
		l->i++;
	if (l->i < l->n && l->s[l->i] == '0')
		l->i++;
	else if (digits(l))
		return -1;
	if (l->i < l->n && l->s[l->i] == '.') {
		l->i++;
		if (digits(l))
			return -1;
	}
	if (l->i < l->n && (l->s[l->i] | 0x20) == 'e') {
		l->i++;
		if (l->i < l->n && (l->s[l->i] == '+' || l->s[l->i] == '-'))
			l->i++;
		if (digits(l))
			return -1;
	}
	put(l, l->s + start, l->i - start);
	return 0;
}

static int value(struct lex *l);

static int
member(struct lex *l)
{
	size_t key_at = at(l), val_at, sub = l->doc->nsubs;
	int escaped;

	ws(l);
	if (l->i >= l->n || l->s[l->i] != '"')
		return fail(l, "member name expected");
	if (string(l, &escaped))
		return -1;
	ws(l);
	if (l->i >= l->n || l->s[l->i] != ':')
		return fail(l, "':' expected");
	l->i++;
	put(l, ":", 1);
	val_at = at(l);
	if (value(l))
		return -1;
	if (l->depth == 1) {
		struct cc_json_doc *d = l->doc;

		if (escaped)
			d->needs_rewrite = 1;	/* keys are matched byte-wise */
		if (d->nfields == d->cap) {
			d->cap = d->cap ? d->cap * 2 : 16;
			d->fields = cc_xrealloc(d->fields, d->cap * sizeof *d->fields);
		}
		d->fields[d->nfields++] = (struct cc_json_field){
			.key_at = key_at + 1, .key_len = val_at - key_at - 3,
			.val_at = val_at, .val_len = at(l) - val_at,
			.sub = sub, .nsub = d->nsubs - sub,
		};
	} else if (l->depth == 2) {	/* a member of a top-level member */
		struct cc_json_doc *d = l->doc;

		if (d->nsubs == d->subcap) {
			d->subcap = d->subcap ? d->subcap * 2 : 64;
			d->subs = cc_xrealloc(d->subs, d->subcap * sizeof *d->subs);
		}
		d->subs[d->nsubs++] = (struct cc_json_field){
			.key_at = key_at + 1, .key_len = val_at - key_at - 3,
			.val_at = val_at, .val_len = at(l) - val_at,
		};
	}
	return 0;
}

static int
container(struct lex *l, char close)
{
	if (++l->depth > MAX_DEPTH)
		return fail(l, "nested too deeply");
	put(l, l->s + l->i++, 1);
	ws(l);
	if (l->i < l->n && l->s[l->i] == close) {
		put(l, &close, 1);
		l->i++;
		l->depth--;
		return 0;
	}
	for (;;) {
		if (close == '}' ? member(l) : value(l))
			return -1;
		ws(l);
		if (l->i >= l->n)
			return fail(l, close == '}' ? "'}' expected" : "']' expected");
		if (l->s[l->i] == close)
			break;
		if (l->s[l->i] != ',')
			return fail(l, "',' expected");
		put(l, ",", 1);
		l->i++;
	}
	put(l, &close, 1);
	l->i++;
	l->depth--;
	return 0;
}

static int
literal(struct lex *l, const char *word)
{
	size_t k = strlen(word);

	if (l->n - l->i < k || memcmp(l->s + l->i, word, k) != 0)
		return fail(l, "unexpected character");
	put(l, word, k);
	l->i += k;
	return 0;
}

static int
value(struct lex *l)
{
	int escaped;

	ws(l);
	if (l->i >= l->n)
		return fail(l, "unexpected end of text");
	switch (l->s[l->i]) {
	case '{':
		return container(l, '}');
	case '[':
		return container(l, ']');
	case '"':
		return string(l, &escaped);
	case 't':
		return literal(l, "true");
	case 'f':
		return literal(l, "false");
	case 'n':
		return literal(l, "null");
	default:
		if (l->s[l->i] == '-' || (l->s[l->i] >= '0' && l->s[l->i] <= '9'))
			return number(l);
		return fail(l, "unexpected character");
	}
}

int
cc_json_scan(struct cc_json_doc *doc, const char *s, size_t n)
{
	struct lex l = { .s = s, .n = n, .out = &doc->text, .doc = doc };

	doc->text.len = 0;
	doc->nfields = 0;
	doc->nsubs = 0;
	doc->needs_rewrite = 0;
	doc->err = NULL;
	doc->err_col = 0;
	if (value(&l) == 0) {
		ws(&l);
		if (l.i < n)
			fail(&l, "extra text after the value");
	}
	doc->err = l.err;
	return l.err ? -1 : 0;
}

int
cc_json_index(struct cc_json_doc *doc, const char *s, size_t n)
{
	struct lex l = { .s = s, .n = n, .out = NULL, .doc = doc };

	doc->text.len = 0;
	doc->nfields = 0;
	doc->nsubs = 0;
	doc->needs_rewrite = 0;
	doc->err = NULL;
	doc->err_col = 0;
	if (value(&l) == 0 && l.i < n)
		fail(&l, "extra text after the value");
	doc->err = l.err;
	return l.err || doc->needs_rewrite ? -1 : 0;
}

const struct cc_json_field *
cc_json_field(const struct cc_json_doc *doc, const char *key)
{
	size_t k = strlen(key);

	/* JSON objects with a repeated name: the last one wins, as in libjq */
	for (size_t i = doc->nfields; i-- > 0;) {
		const struct cc_json_field *f = &doc->fields[i];

		if (f->key_len == k && memcmp(doc->text.data + f->key_at, key, k) == 0)
			return f;
	}
	return NULL;
}

const struct cc_json_field *
cc_json_subfield(const struct cc_json_doc *doc, const struct cc_json_field *f,
    const char *key)
{
	size_t k = strlen(key);

	for (size_t i = f->sub + f->nsub; i-- > f->sub;) {	/* the last wins */
		const struct cc_json_field *s = &doc->subs[i];

		if (s->key_len == k && memcmp(doc->text.data + s->key_at, key, k) == 0)
			return s;
	}
	return NULL;
}

/* After the string at s[0] == '"': its closing quote is the first one
   that follows an even number of backslashes. */
static size_t
skip_string(const char *s, size_t n)
{
	size_t i = 1;

	for (;;) {
		const char *q = memchr(s + i, '"', n - i);
		size_t j, bs = 0;

		if (!q)
			return n;
		j = (size_t)(q - s);
		while (j - bs > 1 && s[j - 1 - bs] == '\\')
			bs++;
		if (bs % 2 == 0)
			return j + 1;
		i = j + 1;
	}
}

/* Bytes that end a run inside a container: strings and nesting. */
static const unsigned char structural[256] = {
	['"'] = 1, ['{'] = 1, ['['] = 1, ['}'] = 1, [']'] = 1,
};

/*
 * The end of the string at s[0..n) (s[0] is its quote), past its closing
 * quote.  A name or a short value ends within its first few words, found
 * eight bytes at a time; a longer one, or one with an escape, goes to
 * skip_string()'s memchr, which is faster over a passage's text.
 */
static size_t
skip_str(const char *s, size_t n)
{
	size_t i = 1;

	while (n - i >= 8 && i < 33) {
		uint64_t x;

		memcpy(&x, s + i, 8);
		if (ANY_IS(x, '"') || ANY_IS(x, '\\'))
			break;
		i += 8;
	}
	for (; i < n && i < 41; i++) {
		if (s[i] == '"')
			return i + 1;
		if (s[i] == '\\')
			break;
	}
	return skip_string(s, n);
}

/*
 * The end of the compact value at s[0..n): strings to their closing quote,
 * containers by depth (skipping their strings), scalars to the next
 * delimiter.  The text was checked by cc_json_scan(), so nothing here
 * needs to validate; it only must not run past n.  Inside a container
 * only quotes and brackets matter: the bytes between are passed by a
 * table, not token by token.
 */
static size_t
skip_compact(const char *s, size_t n)
{
	size_t i = 1;
	int depth = 1;

	if (n == 0)
		return 0;
	switch (s[0]) {
	case '"':
		return skip_str(s, n);
	case '}': case ']':
		return 1;
	case '{': case '[':
		break;
	default:
		i = 0;
		while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']')
			i++;
		return i;
	}
	while (i < n) {
		unsigned char c = (unsigned char)s[i];

		if (!structural[c]) {
			i++;
		} else if (c == '"') {
			i += skip_str(s + i, n - i);
		} else {
			i++;
			if (c == '{' || c == '[')
				depth++;
			else if (--depth == 0)
				return i;
		}
	}
	return n;
}

/* 1 if the quote at s[i] is one (not escaped): an even run of backslashes before it */
static int
real_quote(const char *s, size_t i)
{
	size_t bs = 0;

	while (bs < i && s[i - 1 - bs] == '\\')
		bs++;
	return bs % 2 == 0;
}

const char *
cc_json_member_last(const char *obj, size_t n, const char *key, size_t *len)
{
	size_t k = strlen(key), i, name_end;
	int depth = 0;

	if (n < 2 || obj[0] != '{' || obj[n - 1] != '}')
		return NULL;
	/* back from the end, outside strings, to the last member's colon */
	for (i = n - 2; i > 0; i--) {
		char c = obj[i];

		if (c == '"') {	/* a string's end: back to where it begins */
			do
				i--;
			while (i > 0 && !(obj[i] == '"' && real_quote(obj, i)));
			if (i == 0)
				return NULL;
		} else if (c == '}' || c == ']') {
			depth++;
		} else if (c == '{' || c == '[') {
			depth--;
		} else if (c == ':' && depth == 0) {
			break;
		}
	}
	if (i < 3 || obj[i - 1] != '"')
		return NULL;
	name_end = i - 1;
	if (name_end < k + 1 || obj[name_end - k - 1] != '"' ||
	    memcmp(obj + name_end - k, key, k) != 0 ||
	    !real_quote(obj, name_end - k - 1) ||
	    (obj[name_end - k - 2] != ',' && obj[name_end - k - 2] != '{'))
		return NULL;
	*len = n - 1 - (i + 1);
	return obj + i + 1;
}

const char *
cc_json_member(const char *obj, size_t n, const char *key, size_t *len)
{
	size_t k = strlen(key), i = 1;
	const char *found = NULL;

	if (n < 2 || obj[0] != '{')
		return NULL;
	while (i < n && obj[i] == '"') {
		size_t j = i + skip_compact(obj + i, n - i);	/* after the name */
		size_t name = i + 1, name_len = j - 1 - name, vlen;

		if (j >= n || obj[j] != ':')
			return NULL;
		i = j + 1;
		vlen = skip_compact(obj + i, n - i);
		/* a repeated name: the last one wins, as in libjq */
		if (name_len == k && memcmp(obj + name, key, k) == 0) {
			found = obj + i;
			*len = vlen;
		}
		i += vlen;
		if (i >= n || obj[i] != ',')
			break;
		i++;
	}
	return found;
}

const char *
cc_json_next(const char *arr, size_t n, size_t *pos, size_t *len)
{
	size_t i = *pos ? *pos : 1;

	if (n < 2 || arr[0] != '[' || i >= n || arr[i] == ']')
		return NULL;
	*len = skip_compact(arr + i, n - i);
	*pos = i + *len;
	if (*pos < n && arr[*pos] == ',')
		(*pos)++;
	return arr + i;
}

int
cc_json_members(const char *obj, size_t n, const char *const keys[],
    const char *vals[], size_t lens[])
{
	size_t i = 1;
	int nk = 0, found = 0;

	while (keys[nk])
		vals[nk++] = NULL;
	if (n < 2 || obj[0] != '{')
		return 0;
	while (i < n && obj[i] == '"') {
		size_t j = i + skip_compact(obj + i, n - i);	/* after the name */
		size_t name = i + 1, name_len = j - 1 - name, vlen;

		if (j >= n || obj[j] != ':')
			break;
		i = j + 1;
		vlen = skip_compact(obj + i, n - i);
		for (int k = 0; k < nk; k++)	/* the last one wins */
			if (strlen(keys[k]) == name_len &&
			    memcmp(obj + name, keys[k], name_len) == 0) {
				found += vals[k] == NULL;
				vals[k] = obj + i;
				lens[k] = vlen;
			}
		i += vlen;
		if (i >= n || obj[i] != ',')
			break;
		i++;
	}
	return found;
}

/*
 * Compact, checked text to jv.  libjq's parser costs about 70 instructions
 * a byte; for text cc_json_scan() has already checked, strings without
 * escapes are copied as they are and only numbers and escaped strings go
 * through a parser (strtod in the C locale, or libjq for the string).
 */
static jv to_jv(const char *s, size_t n, size_t *used);

static jv
string_to_jv(const char *s, size_t n, size_t *used)
{
	size_t end = skip_string(s, n);

	*used = end;
	if (end < 2)
		return jv_invalid();
	if (!memchr(s + 1, '\\', end - 2))
		return jv_string_sized(s + 1, (int)(end - 2));
	return jv_parse_sized(s, (int)end);
}

static jv
number_to_jv(const char *s, size_t n, size_t *used)
{
	static locale_t c_locale;
	char buf[64], *end;
	size_t k = 0;

	while (k < n && s[k] != ',' && s[k] != '}' && s[k] != ']')
		k++;
	*used = k;
	if (!c_locale)
		c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (k >= sizeof buf || !c_locale)
		return jv_parse_sized(s, (int)k);
	memcpy(buf, s, k);
	buf[k] = '\0';
	return jv_number(strtod_l(buf, &end, c_locale));
}

static jv
to_jv(const char *s, size_t n, size_t *used)
{
	size_t i = 1, k;
	jv v;

	*used = n;
	if (n == 0)
		return jv_invalid();
	switch (s[0]) {
	case '"':
		return string_to_jv(s, n, used);
	case '{':
		v = jv_object();
		while (i < n && s[i] == '"') {
			jv key = string_to_jv(s + i, n - i, &k), val;

			i += k + 1;	/* the name and its colon */
			if (i > n || !jv_is_valid(key)) {
				jv_free(key);
				break;
			}
			val = to_jv(s + i, n - i, &k);
			i += k;
			v = jv_object_set(v, key, val);
			if (i < n && s[i] == ',')
				i++;
		}
		*used = i + 1;	/* the closing brace */
		return v;
	case '[':
		v = jv_array();
		while (i < n && s[i] != ']') {
			v = jv_array_append(v, to_jv(s + i, n - i, &k));
			i += k;
			if (i < n && s[i] == ',')
				i++;
		}
		*used = i + 1;
		return v;
	case 't':
		*used = 4;
		return jv_true();
	case 'f':
		*used = 5;
		return jv_false();
	case 'n':
		*used = 4;
		return jv_null();
	default:
		return number_to_jv(s, n, used);
	}
}

jv
cc_json_to_jv(const char *s, size_t n)
{
	size_t used;

	return to_jv(s, n, &used);
}

void
cc_json_doc_release(struct cc_json_doc *doc)
{
	cc_buf_release(&doc->text);
	free(doc->fields);
	doc->fields = NULL;
	doc->nfields = doc->cap = 0;
	free(doc->subs);
	doc->subs = NULL;
	doc->nsubs = doc->subcap = 0;
}

/* Append code point cp to p as UTF-8; returns the new end. */
static char *
put_utf8(char *p, unsigned long cp)
{
	if (cp < 0x80) {
		*p++ = (char)cp;
	} else if (cp < 0x800) {
		*p++ = (char)(0xC0 | cp >> 6);
		*p++ = (char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*p++ = (char)(0xE0 | cp >> 12);
		*p++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*p++ = (char)(0x80 | (cp & 0x3F));
	} else {
		*p++ = (char)(0xF0 | cp >> 18);
		*p++ = (char)(0x80 | ((cp >> 12) & 0x3F));
		*p++ = (char)(0x80 | ((cp >> 6) & 0x3F));
		*p++ = (char)(0x80 | (cp & 0x3F));
	}
	return p;
}

char *
cc_json_unescape(const char *s, size_t n)
{
	/* a decoded string is never longer than its text */
	char *out = cc_xmalloc(n + 1), *p = out;
	size_t i = 1, end = n ? n - 1 : 0;

	while (i < end) {
		const char *bs = memchr(s + i, '\\', end - i);
		size_t run = bs ? (size_t)(bs - (s + i)) : end - i;
		long u, lo;

		memcpy(p, s + i, run);
		p += run;
		i += run;
		if (i >= end)
			break;
		switch (s[i + 1]) {
		case 'b': *p++ = '\b'; break;
		case 'f': *p++ = '\f'; break;
		case 'n': *p++ = '\n'; break;
		case 'r': *p++ = '\r'; break;
		case 't': *p++ = '\t'; break;
		case 'u':
			u = hex4(s, n, i + 2);
			if (u >= 0xD800 && u <= 0xDBFF && i + 11 < end &&
			    s[i + 6] == '\\' && s[i + 7] == 'u' &&
			    (lo = hex4(s, n, i + 8)) >= 0xDC00 && lo <= 0xDFFF) {
				p = put_utf8(p, 0x10000 + ((unsigned long)(u - 0xD800) << 10) +
				    (unsigned long)(lo - 0xDC00));
				i += 6;
			} else if (u < 0 || (u >= 0xD800 && u <= 0xDFFF)) {
				p = put_utf8(p, 0xFFFD);	/* as libjq */
			} else {
				p = put_utf8(p, (unsigned long)u);
			}
			i += 4;
			break;
		default: *p++ = s[i + 1]; break;	/* " \ / */
		}
		i += 2;
	}
	*p = '\0';
	return out;
}

jv
cc_json_parse(const char *s, size_t n)
{
	struct cc_json_doc doc = {0};
	jv v = jv_invalid();

	/*
	 * libjq 1.6 leaks the value it holds when a second one follows
	 * without a separator ({"a" "b"}, found by fuzzing): text from
	 * outside is checked first, and the checked text needs no second
	 * parser (cc_json_to_jv turns invalid UTF-8 into U+FFFD as libjq does).
	 */
	if (n <= INT32_MAX && cc_json_scan(&doc, s ? s : "", n) == 0)
		v = cc_json_to_jv(doc.text.data, doc.text.len);
	cc_json_doc_release(&doc);
	return v;
}

/* ---- serialising jv values ---- */

/* Bytes that must be escaped in a JSON string (controls, quote, backslash). */
static const unsigned char needs_escape[256] = {
	[0x00 ... 0x1F] = 1, ['"'] = 1, ['\\'] = 1, [0x7F] = 1,
};

static void
put_string(struct cc_buf *b, const char *s, size_t n)
{
	static const char hexd[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t run = 0, i = 0;

	cc_buf_grow_to(b, n + 2);
	b->data[b->len++] = '"';
	for (;;) {
		while (n - i >= 8) {	/* eight bytes at a time: most need nothing */
			uint64_t x;

			memcpy(&x, u + i, 8);
			if (ANY_BELOW(x, 0x20) || ANY_IS(x, '"') || ANY_IS(x, '\\') ||
			    ANY_IS(x, 0x7F))
				break;
			i += 8;
		}
		while (i < n && !needs_escape[u[i]])
			i++;
		cc_buf_add(b, s + run, i - run);
		if (i == n)
			break;
		char esc[6] = { '\\' };
		size_t k = 2;

		switch (u[i]) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\n': esc[1] = 'n'; break;
		case '\t': esc[1] = 't'; break;
		case '\r': esc[1] = 'r'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		default:
			memcpy(esc + 1, "u00", 3);
			esc[4] = hexd[u[i] >> 4];
			esc[5] = hexd[u[i] & 15];
			k = 6;
		}
		cc_buf_add(b, esc, k);
		run = ++i;
	}
	cc_buf_add(b, "\"", 1);
}

/* Decimal digits of v >= 0 into s; returns their count. */
static int
snprintf_int(char *s, long long v)
{
	char rev[24];
	int n = 0, k = 0;

	do
		rev[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		s[k++] = rev[--n];
	return k;
}

/* The shortest decimal form that reads back as the same double. */
static void
put_number(struct cc_buf *b, double d)
{
	char tmp[40], *p = tmp + sizeof tmp;
	int len;

	if (isnan(d)) {
		cc_buf_add(b, "null", 4);
		return;
	}
	if (isinf(d))
		d = d > 0 ? 1.7976931348623157e308 : -1.7976931348623157e308;
	/* the range first: converting beyond long long is undefined */
	if (fabs(d) < 1e15 && d == (double)(long long)d) {
		/* integers, the common case: no printf */
		unsigned long long u = (unsigned long long)fabs(d);

		do
			*--p = (char)('0' + u % 10);
		while (u /= 10);
		if (d < 0)
			*--p = '-';
		cc_buf_add(b, p, (size_t)(tmp + sizeof tmp - p));
		return;
	}
	if (fabs(d) < 1e9 && d * 1000 == floor(d * 1000)) {
		/* confidences and scores: up to three decimals, no printf */
		long long m = llround(fabs(d) * 1000);
		int k = 0;

		if (d < 0)
			tmp[k++] = '-';
		k += snprintf_int(tmp + k, m / 1000);
		if (m % 1000) {
			tmp[k++] = '.';
			tmp[k++] = (char)('0' + m / 100 % 10);
			if (m % 100) {
				tmp[k++] = (char)('0' + m / 10 % 10);
				if (m % 10)
					tmp[k++] = (char)('0' + m % 10);
			}
		}
		cc_buf_add(b, tmp, (size_t)k);
		return;
	}
	len = snprintf(tmp, sizeof tmp, "%.15g", d);
	if (strtod(tmp, NULL) != d)
		len = snprintf(tmp, sizeof tmp, "%.17g", d);
	cc_buf_add(b, tmp, (size_t)len);
}

void
cc_json_put(struct cc_buf *b, jv v)
{
	switch (jv_get_kind(v)) {
	case JV_KIND_NULL:
		cc_buf_add(b, "null", 4);
		break;
	case JV_KIND_TRUE:
		cc_buf_add(b, "true", 4);
		break;
	case JV_KIND_FALSE:
		cc_buf_add(b, "false", 5);
		break;
	case JV_KIND_NUMBER:
		put_number(b, jv_number_value(v));
		break;
	case JV_KIND_STRING:
		put_string(b, jv_string_value(v),
		    (size_t)jv_string_length_bytes(jv_copy(v)));
		break;
	case JV_KIND_ARRAY: {
		int n = jv_array_length(jv_copy(v));

		cc_buf_add(b, "[", 1);
		for (int i = 0; i < n; i++) {
			jv e = jv_array_get(jv_copy(v), i);

			if (i)
				cc_buf_add(b, ",", 1);
			cc_json_put(b, e);
			jv_free(e);
		}
		cc_buf_add(b, "]", 1);
		break;
	}
	case JV_KIND_OBJECT: {
		int first = 1;

		cc_buf_add(b, "{", 1);
		/* the macro evaluates its object many times: it must borrow */
		jv_object_foreach(v, key, val) {
			if (!first)
				cc_buf_add(b, ",", 1);
			first = 0;
			put_string(b, jv_string_value(key),
			    (size_t)jv_string_length_bytes(jv_copy(key)));
			cc_buf_add(b, ":", 1);
			cc_json_put(b, val);
			jv_free(key);
			jv_free(val);
		}
		cc_buf_add(b, "}", 1);
		break;
	}
	default:
		cc_buf_add(b, "null", 4);	/* an invalid value has no text */
	}
}

void
cc_json_memo_release(struct cc_json_memo *m)
{
	for (size_t i = 0; i < m->n; i++)
		jv_free(m->parts[i].v);
	for (size_t i = 0; i < m->nelems; i++)
		jv_free(m->elems[i].v);
	free(m->parts);
	free(m->elems);
	if (m->parts)
		jv_free(m->keys);
	cc_buf_release(&m->text);
	memset(m, 0, sizeof *m);
}

static int
is_container(jv v)
{
	return jv_get_kind(v) == JV_KIND_ARRAY || jv_get_kind(v) == JV_KIND_OBJECT;
}

/*
 * Write the elements of array a after the old ones of the same member
 * (old[0..n)): each container element is looked for a little ahead of the
 * last one found (entries appended, the oldest dropped), and the new
 * elements are listed in *now.
 */
static void
put_elems(struct cc_buf *b, size_t start, jv a, const struct cc_json_memo *m,
    const struct cc_json_memo_part *old, size_t n, struct cc_json_memo_part **now,
    size_t *nnow, size_t *cap)
{
	size_t cursor = 0;
	int len = jv_array_length(jv_copy(a));

	cc_buf_add(b, "[", 1);
	for (int j = 0; j < len; j++) {
		jv e = jv_array_get(jv_copy(a), j);
		size_t at;

		if (j)
			cc_buf_add(b, ",", 1);
		at = b->len;
		if (!is_container(e)) {
			cc_json_put(b, e);
			jv_free(e);
			continue;
		}
		for (size_t i = cursor; i < n && i < cursor + 8; i++)
			if (jv_identical(jv_copy(old[i].v), jv_copy(e))) {
				cc_buf_add(b, m->text.data + old[i].at, old[i].len);
				cursor = i + 1;
				break;
			}
		if (b->len == at)
			cc_json_put(b, e);
		if (*nnow == *cap) {
			*cap = *cap ? 2 * *cap : 16;
			*now = cc_xrealloc(*now, *cap * sizeof **now);
		}
		(*now)[(*nnow)++] = (struct cc_json_memo_part){ e, at - start, b->len - at, 0, 0 };
	}
	cc_buf_add(b, "]", 1);
}

void
cc_json_put_memo(struct cc_buf *b, jv v, struct cc_json_memo *m)
{
	struct cc_json_memo_part *parts, *elems = NULL;
	size_t start = b->len, n = 0, nelems = 0, cap = 0;
	jv keys;
	int first = 1;

	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		cc_json_memo_release(m);
		cc_json_put(b, v);
		return;
	}
	parts = cc_xmalloc(((size_t)jv_object_length(jv_copy(v)) + 1) * sizeof *parts);
	keys = jv_array();
	cc_buf_add(b, "{", 1);
	jv_object_foreach(v, key, val) {
		const struct cc_json_memo_part *same = NULL, *was = NULL;
		size_t at, e0 = nelems;

		if (!first)
			cc_buf_add(b, ",", 1);
		first = 0;
		put_string(b, jv_string_value(key),
		    (size_t)jv_string_length_bytes(jv_copy(key)));
		cc_buf_add(b, ":", 1);
		if (!is_container(val)) {
			cc_json_put(b, val);
			jv_free(key);
			jv_free(val);
			continue;
		}
		at = b->len;
		for (size_t i = 0; i < m->n && !same; i++) {
			if (jv_identical(jv_copy(m->parts[i].v), jv_copy(val)))
				same = &m->parts[i];
			else if (jv_equal(jv_array_get(jv_copy(m->keys), (int)i), jv_copy(key)))
				was = &m->parts[i];
		}
		if (same) {
			/* its elements are the same as well */
			cc_buf_add(b, m->text.data + same->at, same->len);
			for (size_t i = 0; i < same->nelem; i++) {
				struct cc_json_memo_part p = m->elems[same->elem + i];

				if (nelems == cap) {
					cap = cap ? 2 * cap : 16;
					elems = cc_xrealloc(elems, cap * sizeof *elems);
				}
				p.v = jv_copy(p.v);
				p.at = p.at - same->at + (at - start);
				elems[nelems++] = p;
			}
		} else if (jv_get_kind(val) == JV_KIND_ARRAY) {
			put_elems(b, start, val, m, was ? m->elems + was->elem : NULL,
			    was ? was->nelem : 0, &elems, &nelems, &cap);
		} else {
			cc_json_put(b, val);
		}
		parts[n++] = (struct cc_json_memo_part){ val, at - start, b->len - at,
		    e0, nelems - e0 };
		keys = jv_array_append(keys, key);
	}
	cc_buf_add(b, "}", 1);
	cc_json_memo_release(m);
	cc_buf_add(&m->text, b->data + start, b->len - start);
	m->parts = parts;
	m->n = n;
	m->elems = elems;
	m->nelems = nelems;
	m->keys = keys;
}

/* ---- shared names ---- */

#define NAMES 512	/* a power of 2; three quarters of it are used */
static struct name {
	const char *s;	/* the string's own bytes */
	jv v;
} names[NAMES];
static size_t nnames;

jv
cc_jv_name(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	size_t i;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 16777619u;
	for (i = h & (NAMES - 1); names[i].s; i = (i + 1) & (NAMES - 1))
		if (strcmp(names[i].s, s) == 0)
			return jv_copy(names[i].v);
	if (nnames >= NAMES / 4 * 3)
		return jv_string(s);
	names[i].v = jv_string(s);
	names[i].s = jv_string_value(names[i].v);
	nnames++;
	return jv_copy(names[i].v);
}

void
cc_jv_names_release(void)
{
	for (size_t i = 0; i < NAMES; i++)
		if (names[i].s)
			jv_free(names[i].v);
	memset(names, 0, sizeof names);
	nnames = 0;
}

/* ---- the streaming writer ---- */

void
cc_jw_init(struct cc_jw *w, struct cc_buf *b)
{
	*w = (struct cc_jw){ .b = b };
}

/*
 * What the tracking of a value (cc_jw_track) must see of an item: in an
 * object, a value only after its key and a key only where a member
 * starts; one value at the top.  Anything else is a misuse whose text
 * cc_json_index() would refuse: the tracking gives up.
 */
static void
track_item(struct cc_jw *w, int key)
{
	int object = w->depth && ((w->is_object >> (w->depth & 63)) & 1);

	if (key ? !object || w->after_key : object ? !w->after_key :
	    w->depth == 0 && (w->has_item & 1))
		w->untracked = 1;
}

/* Before any value (key 0) or key: the comma, unless right after a key. */
static void
item_(struct cc_jw *w, int key)
{
	uint64_t bit = (uint64_t)1 << (w->depth & 63);

	w->index = NULL;	/* the text is no longer the one indexed */
	if (w->track)
		track_item(w, key);
	if (w->after_key)
		w->after_key = 0;
	else if (w->has_item & bit)
		cc_buf_add(w->b, ",", 1);
	w->has_item |= bit;
}

static void
item(struct cc_jw *w)
{
	item_(w, 0);
}

static void
open_(struct cc_jw *w, int object)
{
	uint64_t bit;

	item(w);
	cc_buf_add(w->b, object ? "{" : "[", 1);
	bit = (uint64_t)1 << (++w->depth & 63);
	w->has_item &= ~bit;
	w->is_object = object ? w->is_object | bit : w->is_object & ~bit;
}

void
cc_jw_object(struct cc_jw *w)
{
	open_(w, 1);
}

void
cc_jw_array(struct cc_jw *w)
{
	open_(w, 0);
}

/* The text of s[0..n) would be checked as it is: valid UTF-8. */
static int
plain_text(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	unsigned char high = 0;

	/* names and most values are ASCII: nothing to check in them */
	for (size_t k = 0; k < n && k < 64; k++)
		high |= u[k];
	if (n <= 64 && high < 0x80)
		return 1;

	for (;;) {
		size_t k;

		i += plain_run(u + i, n - i);
		if (i >= n)
			return 1;
		if (u[i] < 0x80) {	/* '"', '\\' or a control: escaped */
			i++;
			continue;
		}
		if (!(k = utf8_seq(u + i, n - i)))
			return 0;
		i += k;
	}
}

/* The member of the top level being written ends here. */
static void
track_close(struct cc_jw *w)
{
	struct cc_json_doc *d = w->track;

	if (d->nfields)
		d->fields[d->nfields - 1].val_len = w->b->len -
		    d->fields[d->nfields - 1].val_at;
}

/* Text written by others at s[0..n): check it as the scan would. */
static void
track_text(struct cc_jw *w, size_t at)
{
	struct cc_json_doc piece = {0};

	if (w->depth == 0 ||	/* the whole value: its members unknown */
	    cc_json_index(&piece, w->b->data + at, w->b->len - at) < 0)
		w->untracked = 1;
	cc_json_doc_release(&piece);
}

void
cc_jw_track(struct cc_jw *w, struct cc_json_doc *doc)
{
	w->track = doc;
	w->untracked = w->b->len != 0;	/* offsets count from the value */
	doc->nfields = doc->nsubs = 0;
	doc->text.len = 0;
	doc->needs_rewrite = 0;
	doc->err = NULL;
	doc->err_col = 0;
}

const struct cc_json_doc *
cc_jw_tracked(const struct cc_jw *w)
{
	if (!w->track || w->untracked || w->depth != 0 || w->after_key ||
	    !(w->has_item & 1))
		return NULL;
	return w->track;
}

void
cc_jw_end(struct cc_jw *w)
{
	int object = (w->is_object >> (w->depth & 63)) & 1;

	if (w->track) {
		if (w->depth == 0 || w->after_key)
			w->untracked = 1;
		else if (w->depth == 1 && object)
			track_close(w);
	}
	cc_buf_add(w->b, object ? "}" : "]", 1);
	w->depth--;
}

/*
 * 1 if s[0..n) is printable ASCII without a quote or a backslash: written
 * as it is, and valid as the scan would check it.  Names and most short
 * values (agents, categories, rule ids) are, and were half the cost of
 * the writer as they went through put_string() and plain_text().
 */
static int
plain_ascii(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	for (; n - i >= 8; i += 8) {
		uint64_t x;

		memcpy(&x, u + i, 8);
		if ((x & HIGHS) || ANY_BELOW(x, 0x20) || ANY_IS(x, '"') ||
		    ANY_IS(x, '\\') || ANY_IS(x, 0x7F))
			return 0;
	}
	for (; i < n; i++)
		if (u[i] >= 0x80 || needs_escape[u[i]])
			return 0;
	return 1;
}

/* put_string() of a plain_ascii() string, with `after` (a ':', or nothing) */
static void
put_plain(struct cc_buf *b, const char *s, size_t n, int after)
{
	char *d;

	cc_buf_grow_to(b, n + 3);
	d = b->data + b->len;
	*d++ = '"';
	memcpy(d, s, n);
	d += n;
	*d++ = '"';
	if (after)
		*d++ = (char)after;
	*d = '\0';
	b->len = (size_t)(d - b->data);
}

void
cc_jw_key(struct cc_jw *w, const char *key)
{
	size_t n = strlen(key), at;
	int plain = plain_ascii(key, n);

	if (w->track) {
		if (w->depth == 1)
			track_close(w);
		if (!plain && !plain_text(key, n))
			w->untracked = 1;
	}
	item_(w, 1);
	at = w->b->len;
	if (plain) {
		put_plain(w->b, key, n, ':');
	} else {
		put_string(w->b, key, n);
		cc_buf_add(w->b, ":", 1);
	}
	w->after_key = 1;
	if (w->track && w->depth == 1) {
		struct cc_json_doc *d = w->track;

		/* a name with escapes makes the scan rewrite the record */
		if (w->b->len - at != n + 3)
			w->untracked = 1;
		if (d->nfields == d->cap) {
			d->cap = d->cap ? d->cap * 2 : 16;
			d->fields = cc_xrealloc(d->fields, d->cap * sizeof *d->fields);
		}
		d->fields[d->nfields++] = (struct cc_json_field){
			.key_at = at + 1, .key_len = n,
			.val_at = w->b->len, .val_len = 0,
		};
	}
}

void
cc_jw_str(struct cc_jw *w, const char *s, size_t n)
{
	item(w);
	if (n <= 64 && plain_ascii(s, n)) {
		put_plain(w->b, s, n, 0);
		return;
	}
	if (w->track && !plain_text(s, n))
		w->untracked = 1;
	put_string(w->b, s, n);
}

void
cc_jw_cstr(struct cc_jw *w, const char *s)
{
	if (s)
		cc_jw_str(w, s, strlen(s));
	else
		cc_jw_null(w);
}

void
cc_jw_num(struct cc_jw *w, double d)
{
	item(w);
	put_number(w->b, d);
}

void
cc_jw_bool(struct cc_jw *w, int b)
{
	item(w);
	cc_buf_add(w->b, b ? "true" : "false", b ? 4 : 5);
}

void
cc_jw_null(struct cc_jw *w)
{
	item(w);
	cc_buf_add(w->b, "null", 4);
}

void
cc_jw_jv(struct cc_jw *w, jv v)
{
	size_t at;

	item(w);
	at = w->b->len;
	cc_json_put(w->b, v);
	if (w->track)
		track_text(w, at);
}

void
cc_jw_raw_checked(struct cc_jw *w, const char *json, size_t n)
{
	item(w);
	cc_buf_add(w->b, json, n);
	if (w->track && w->depth == 0)
		w->untracked = 1;	/* the whole value: its members unknown */
}

void
cc_jw_raw(struct cc_jw *w, const char *json, size_t n)
{
	size_t at;

	item(w);
	at = w->b->len;
	cc_buf_add(w->b, json, n);
	if (w->track)
		track_text(w, at);
}

void
cc_jw_raw_indexed(struct cc_jw *w, const char *json, size_t n,
    const struct cc_json_doc *idx)
{
	int whole = w->depth == 0 && w->b->len == 0;

	cc_jw_raw(w, json, n);
	if (whole)
		w->index = idx;
}
