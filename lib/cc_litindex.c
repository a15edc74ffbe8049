/*
 * A literal prefilter for regular expressions.
 *
 * Most routing cues are alternations of words (営業時間|opening hours|...).
 * PCRE2 tries such a pattern at every position of the text, and for
 * Japanese its first-byte bitmap cannot help (every kana starts with the
 * same byte), so forty cues cost tens of microseconds a query.  Instead,
 * for each pattern we work out a set of literals that every match must
 * begin with; one pass over the text looks them up by their first code
 * point, and only patterns with a literal present are run, anchored at
 * the places the literals were found.  A pattern
 * whose matches need not begin with a literal (.{1,14}, [abc], x?) is
 * reported as such and always run, so the prefilter never changes a
 * result, only how often the regex engine is asked.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_litindex.h"

#define BUCKETS 1024

struct lit {
	size_t off;		/* in the pool */
	size_t n;
	size_t key;		/* bytes of s that chose its bucket */
	int target;
	int next;		/* chain in the bucket */
};

/*
 * What the scan reads of a literal, the literals of a bucket side by
 * side (filed by the first scan after an add): walking a bucket's linked
 * chain across the whole array missed the cache at nearly every step,
 * and the scan was a sixth of cc-route's time for a tenth of its
 * instructions.
 */
struct flit {
	uint64_t head;		/* its first 8 bytes (fewer: the rest zero) */
	uint32_t off;		/* in the pool */
	uint16_t n;		/* its length, or its first 65,535 bytes' */
	uint8_t key;		/* bytes of it that chose its bucket */
	int target;
};

/*
 * The literals' bytes live in one pool, not one allocation each: a cold
 * question builds the bundled rules' 1,890 literals from the rules cache
 * and drops them at exit, and a malloc and a free each cost it a tenth
 * of its instructions (issue 16).
 */
struct cc_litindex {
	struct lit *lits;
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
	int head[BUCKETS];
	/* the same, bucket by bucket: bucket b is flits[start[b]..start[b + 1]) */
	struct flit *flits;	/* NULL: not filed since the last add */
	uint32_t start[BUCKETS + 1];
};

/*
 * Literals are filed by their first character, and by the first two when
 * both are ASCII (many English words share a first letter; a kana or
 * kanji alone is selective enough).  The scan looks up both keys at each
 * ASCII position.
 */
static size_t
key_len(const unsigned char *s, size_t n)
{
	if (s[0] < 0x80)
		return n >= 2 && s[1] < 0x80 ? 2 : 1;
	size_t k = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : 2;
	return k <= n ? k : n;
}

static unsigned
bucket(const unsigned char *s, size_t k)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < k; i++)
		h = (h ^ s[i]) * 16777619u;
	return (h ^ (uint32_t)k) & (BUCKETS - 1);
}

struct cc_litindex *
cc_litindex_new(void)
{
	struct cc_litindex *x = calloc(1, sizeof *x);

	if (!x)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	for (int i = 0; i < BUCKETS; i++)
		x->head[i] = -1;
	return x;
}

void
cc_litindex_free(struct cc_litindex *x)
{
	if (!x)
		return;
	free(x->pool);
	free(x->lits);
	free(x->flits);
	free(x);
}

/* File literal s (n > 0 bytes, copied into the pool) for target. */
static void
add(struct cc_litindex *x, const char *s, size_t n, int target)
{
	struct lit *l;
	unsigned b;

	free(x->flits);	/* filed again at the next scan */
	x->flits = NULL;
	if (x->n == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 256;
		x->lits = cc_xrealloc(x->lits, x->cap * sizeof *x->lits);
	}
	if (n > x->pool_cap - x->pool_len) {
		while (n > x->pool_cap - x->pool_len)
			x->pool_cap = x->pool_cap ? x->pool_cap * 2 : 8192;
		x->pool = cc_xrealloc(x->pool, x->pool_cap);
	}
	memcpy(x->pool + x->pool_len, s, n);
	l = &x->lits[x->n];
	l->off = x->pool_len;
	x->pool_len += n;
	l->n = n;
	l->key = key_len((const unsigned char *)s, n);
	l->target = target;
	b = bucket((const unsigned char *)s, l->key);
	l->next = x->head[b];
	x->head[b] = (int)x->n++;
}

/* ---- first-literal sets of a pattern ---- */

struct set {
	struct cc_buf *lits;	/* collected literals */
	size_t n, cap;
};

static void
set_add(struct set *st, const char *s, size_t n)
{
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 8;
		st->lits = cc_xrealloc(st->lits, st->cap * sizeof *st->lits);
	}
	memset(&st->lits[st->n], 0, sizeof st->lits[st->n]);
	cc_buf_add(&st->lits[st->n++], s, n);
}

static void
set_release(struct set *st)
{
	for (size_t i = 0; i < st->n; i++)
		cc_buf_release(&st->lits[i]);
	free(st->lits);
	st->lits = NULL;
	st->n = st->cap = 0;
}

/* The end of the group that opens at p[0] == '(' (index of its ')'). */
static size_t
group_end(const char *p, size_t n)
{
	int depth = 0, cls = 0;

	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\\') {
			i++;
		} else if (cls) {
			if (p[i] == ']')
				cls = 0;
		} else if (p[i] == '[') {
			cls = 1;
		} else if (p[i] == '(') {
			depth++;
		} else if (p[i] == ')' && --depth == 0) {
			return i;
		}
	}
	return n;
}

static int
quantifier(char c)
{
	return c == '?' || c == '*' || c == '+' || c == '{';
}

static int
may_be_empty_quantifier(const char *p, size_t n)
{
	return n > 0 && (p[0] == '?' || p[0] == '*' ||
	    (p[0] == '{' && n > 1 && p[1] == '0'));
}

static int first_set(const char *p, size_t n, struct set *out);

/*
 * The literals every match of the sequence p[0..n) begins with (no
 * top-level '|').  Zero-width items at the start are skipped; a leading
 * literal run is taken whole; a leading group contributes its own set.
 */
static int
seq_set(const char *p, size_t n, struct set *out)
{
	size_t i = 0;

	for (;;) {
		if (i >= n)
			return -1;	/* matches the empty string */
		if (p[i] == '^' || p[i] == '$') {
			i++;
			continue;
		}
		if (p[i] == '\\' && i + 1 < n && strchr("bBAzZG", p[i + 1])) {
			i += 2;
			continue;
		}
		if (p[i] == '(' && i + 2 < n && p[i + 1] == '?' &&
		    (p[i + 2] == '=' || p[i + 2] == '!' || p[i + 2] == '<')) {
			if (p[i + 2] == '<' && i + 3 < n && p[i + 3] != '=' && p[i + 3] != '!')
				return -1;	/* a named group: not handled */
			i += group_end(p + i, n - i) + 1;	/* lookaround */
			continue;
		}
		break;
	}
	/*
	 * A digit (\d: ASCII digits alone, without PCRE2_UCP, and the text is
	 * folded, so full-width digits are ASCII by then) is one of ten
	 * literals, so dates and times are prefiltered like words.
	 */
	if (p[i] == '\\' && i + 1 < n && p[i + 1] == 'd') {
		if (i + 2 < n && may_be_empty_quantifier(p + i + 2, n - i - 2))
			return -1;
		for (char d = '0'; d <= '9'; d++)
			set_add(out, &d, 1);
		return 0;
	}
	if (p[i] == '(') {
		size_t end = i + group_end(p + i, n - i), start = i + 1;

		if (end >= n)
			return -1;
		if (end + 1 < n && may_be_empty_quantifier(p + end + 1, n - end - 1))
			return -1;
		if (p[start] == '?') {
			if (start + 1 < n && p[start + 1] == ':')
				start += 2;
			else
				return -1;	/* flags or other extensions */
		}
		return first_set(p + start, end - start, out);
	}
	/* a run of literal characters */
	struct cc_buf lit = {0};
	size_t last = 0;	/* length of lit before the last character */

	while (i < n) {
		const char *c = p + i;
		size_t k = 1;
		char esc;

		if (*c == '\\') {
			if (i + 1 >= n)
				break;
			esc = c[1];
			if ((esc >= 'a' && esc <= 'z') || (esc >= 'A' && esc <= 'Z') ||
			    (esc >= '0' && esc <= '9'))
				break;	/* a class, reference or zero-width escape */
			last = lit.len;
			cc_buf_add(&lit, &esc, 1);
			i += 2;
			continue;
		}
		if (strchr(".[]()|^$*+?{", *c))
			break;
		while (i + k < n && ((unsigned char)p[i + k] & 0xC0) == 0x80)
			k++;	/* one UTF-8 character */
		last = lit.len;
		cc_buf_add(&lit, c, k);
		i += k;
	}
	if (i < n && quantifier(p[i]))
		lit.len = last;	/* the last character may repeat or vanish */
	if (lit.len == 0) {
		cc_buf_release(&lit);
		return -1;
	}
	set_add(out, lit.data, lit.len);
	cc_buf_release(&lit);
	return 0;
}

/* The union of the sets of the top-level alternatives of p[0..n). */
static int
first_set(const char *p, size_t n, struct set *out)
{
	size_t start = 0;
	int depth = 0, cls = 0;

	for (size_t i = 0; i <= n; i++) {
		if (i < n && p[i] == '\\') {
			i++;
			continue;
		}
		if (i < n && cls) {
			if (p[i] == ']')
				cls = 0;
			continue;
		}
		if (i < n && p[i] == '[')
			cls = 1;
		else if (i < n && p[i] == '(')
			depth++;
		else if (i < n && p[i] == ')')
			depth--;
		else if (i == n || (p[i] == '|' && depth == 0)) {
			if (seq_set(p + start, i - start, out) < 0)
				return -1;
			start = i + 1;
		}
	}
	return 0;
}

int
cc_litindex_add_pattern(struct cc_litindex *x, const char *pattern, int target)
{
	struct set st = {0};

	if (first_set(pattern, strlen(pattern), &st) < 0) {
		set_release(&st);
		return -1;
	}
	for (size_t i = 0; i < st.n; i++) {
		size_t n;
		/* the text is folded to lower case; so is the literal */
		char *s = cc_text_fold(st.lits[i].data, st.lits[i].len, &n, 0);

		if (n == 0) {	/* folding left nothing: never filter */
			free(s);
			set_release(&st);
			return -1;
		}
		add(x, s, n, target);
		free(s);
	}
	set_release(&st);
	return 0;
}

size_t
cc_litindex_size(const struct cc_litindex *x)
{
	return x->n;
}

const char *
cc_litindex_get(const struct cc_litindex *x, size_t i, size_t *n, int *target)
{
	*n = x->lits[i].n;
	*target = x->lits[i].target;
	return x->pool + x->lits[i].off;
}

void
cc_litindex_add_literal(struct cc_litindex *x, const char *s, size_t n, int target)
{
	add(x, s, n, target);
}

/*
 * The index as it is built, for a cache: u32 words in the machine's
 * order (the cache is read where it was written): the number of
 * literals, the pool's length, the pool, then each literal (offset,
 * length, key length, target, next in its bucket), then the buckets'
 * heads.  Filing 1,890 literals again one by one was a twentieth of a
 * cold question (issue 16).
 */
static void
put32(struct cc_buf *b, size_t v)
{
	uint32_t w = (uint32_t)v;

	cc_buf_add(b, (const char *)&w, 4);
}

void
cc_litindex_save(const struct cc_litindex *x, struct cc_buf *b)
{
	put32(b, x->n);
	put32(b, x->pool_len);
	cc_buf_add(b, x->pool ? x->pool : "", x->pool_len);
	for (size_t i = 0; i < x->n; i++) {
		const struct lit *l = &x->lits[i];

		put32(b, l->off);
		put32(b, l->n);
		put32(b, l->key);
		put32(b, (size_t)l->target);
		put32(b, (size_t)(uint32_t)l->next);
	}
	for (int i = 0; i < BUCKETS; i++)
		put32(b, (size_t)(uint32_t)x->head[i]);
}

static uint32_t
get32(const unsigned char *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return w;
}

struct cc_litindex *
cc_litindex_load(const unsigned char *p, size_t len)
{
	struct cc_litindex *x;
	size_t n, pool;

	if (len < 8)
		return NULL;
	n = get32(p);
	pool = get32(p + 4);
	if (pool > len - 8 || n > (len - 8 - pool) / 20 ||
	    len != 8 + pool + 20 * n + 4 * BUCKETS)
		return NULL;
	x = cc_litindex_new();
	x->pool = cc_xmalloc(pool + 1);
	memcpy(x->pool, p + 8, pool);
	x->pool_len = x->pool_cap = pool;
	x->lits = cc_xmalloc((n + 1) * sizeof *x->lits);
	x->cap = n + 1;
	p += 8 + pool;
	for (x->n = 0; x->n < n; x->n++, p += 20) {
		struct lit *l = &x->lits[x->n];
		uint32_t next = get32(p + 16);

		l->off = get32(p);
		l->n = get32(p + 4);
		l->key = get32(p + 8);
		l->target = (int)get32(p + 12);
		l->next = next == UINT32_MAX ? -1 : (int)next;
		/* in the pool, keyed within itself, chained to earlier ones only */
		if (l->n == 0 || l->off > pool || l->n > pool - l->off || l->key == 0 ||
		    l->key > l->n || l->key > 4 || l->target < 0 ||
		    (next != UINT32_MAX && next >= x->n))
			goto bad;
	}
	for (int i = 0; i < BUCKETS; i++, p += 4) {
		uint32_t h = get32(p);

		if (h != UINT32_MAX && h >= n)
			goto bad;
		x->head[i] = h == UINT32_MAX ? -1 : (int)h;
	}
	return x;
bad:
	cc_litindex_free(x);
	return NULL;
}

/* Up to the first 8 bytes of s as a word (the rest zero), for one compare. */
static uint64_t
head_word(const unsigned char *s, size_t n)
{
	uint64_t w = 0;

	memcpy(&w, s, n < 8 ? n : 8);
	return w;
}

/* File the literals bucket by bucket, each bucket in the order of its chain. */
static void
file(struct cc_litindex *x)
{
	uint32_t k = 0;

	x->flits = cc_xmalloc((x->n ? x->n : 1) * sizeof *x->flits);
	for (unsigned b = 0; b < BUCKETS; b++) {
		x->start[b] = k;
		for (int i = x->head[b]; i >= 0; i = x->lits[i].next) {
			const struct lit *l = &x->lits[i];

			if (l->off > UINT32_MAX)
				cc_die(CC_EXIT_INTERNAL, "more than 4 GB of literals");
			/*
			 * A longer literal is filed by its first 65,535 bytes:
			 * every match still begins with them.
			 */
			x->flits[k++] = (struct flit){
				.head = head_word((const unsigned char *)x->pool + l->off, l->n),
				.off = (uint32_t)l->off,
				.n = (uint16_t)(l->n < UINT16_MAX ? l->n : UINT16_MAX),
				.key = (uint8_t)l->key, .target = l->target,
			};
		}
	}
	x->start[BUCKETS] = k;
}

struct scan {
	struct cc_lithit *hits;
	int *touched;		/* or NULL */
	size_t *ntouched;
};

/*
 * The literals with key length k that the text has at `at`.  Most of a
 * bucket differs from the text in its first eight bytes (two kana and a
 * bit), which are compared as one word before the rest (w: the text's
 * at `at`).
 */
static void
probe(const struct cc_litindex *x, const char *text, size_t len, size_t at,
    size_t k, uint64_t w, const struct scan *sc)
{
	static const uint64_t mask[9] = {
		0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF, 0xFFFFFFFFFF, 0xFFFFFFFFFFFF,
		0xFFFFFFFFFFFFFF, ~(uint64_t)0,
	};
	unsigned b = bucket((const unsigned char *)text + at, k);
	const struct flit *l = x->flits + x->start[b], *end = x->flits + x->start[b + 1];

	for (; l < end; l++) {
		struct cc_lithit *h;

		if (l->key != k || (w & mask[l->n < 8 ? l->n : 8]) != l->head ||
		    l->n > len - at ||
		    (l->n > 8 && memcmp(text + at + 8, x->pool + l->off + 8, l->n - 8u) != 0))
			continue;
		h = &sc->hits[l->target];
		if (h->n > 0 && h->n <= CC_LIT_POS && h->pos[h->n - 1] == at)
			continue;	/* another literal of this target, same place */
		if (h->n == 0 && sc->touched)
			sc->touched[(*sc->ntouched)++] = l->target;
		if (h->n < CC_LIT_POS)
			h->pos[h->n] = at;
		if (h->n <= CC_LIT_POS)
			h->n++;
	}
}

static void
scan(struct cc_litindex *x, const char *text, size_t len, const struct scan *sc)
{
	const unsigned char *u = (const unsigned char *)text;

	if (!x->flits)
		file(x);
	for (size_t i = 0; i < len; ) {
		size_t k = key_len(u + i, len - i);
		uint64_t w = head_word(u + i, len - i);

		if (u[i] < 0x80) {
			probe(x, text, len, i, 1, w, sc);
			if (k == 2)
				probe(x, text, len, i, 2, w, sc);
			i++;
		} else {
			probe(x, text, len, i, k, w, sc);
			i += k;
		}
	}
}

void
cc_litindex_scan(struct cc_litindex *x, const char *text, size_t len,
    struct cc_lithit *hits)
{
	struct scan sc = { hits, NULL, NULL };

	scan(x, text, len, &sc);
}

void
cc_litindex_scan_touched(struct cc_litindex *x, const char *text,
    size_t len, struct cc_lithit *hits, int *touched, size_t *ntouched)
{
	struct scan sc = { hits, touched, ntouched };

	scan(x, text, len, &sc);
}
