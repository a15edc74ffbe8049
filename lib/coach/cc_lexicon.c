/*
 * Weighted cue lexicons (format in cc_lexicon.h).  Loading folds and
 * compiles every pattern once and indexes the literals each cue's matches
 * begin with; a scan folds the text once, applies the fixes, finds the
 * literals in one pass and runs only the cues that can match, then looks
 * at the modifiers around each place a cue matched and keeps the place
 * that weighs most.  The JIT compiler runs once a stream has proved long,
 * as in cc_rules.c.
 */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_litindex.h"
#include "coach/cc_lexicon.h"

#define JIT_AFTER 1000		/* scans before the patterns are JIT-compiled */
#define MAX_PLACES 16		/* places of one cue looked at */
#define BEFORE_WINDOW 96	/* bytes before a cue a modifier may span */

struct lclass {
	char *name;
	double soft, strong;
	int has_soft, has_strong;
	char *as_name;		/* until resolved */
	int as;			/* -1: the class itself */
};

struct cue {
	int cls;
	double weight;
	int line;
	int always;		/* no literal prefilter */
	pcre2_code *re;
};

enum mod_kind { MOD_SOFTEN, MOD_INTENSIFY, MOD_NEGATE };

struct modifier {
	enum mod_kind kind;
	int after;		/* after the cue (anchored there), else before it */
	pcre2_code *re;
};

struct fix {
	pcre2_code *re;
	char *replacement;
};

struct cc_lexicon {
	char *path;
	struct lclass *classes;
	size_t nclasses;
	struct cue *cues;
	size_t ncues;
	struct modifier *mods;
	size_t nmods;
	struct fix *fixes;
	size_t nfixes;
	struct cc_lexicon_line *extra;
	size_t nextra;
	struct cc_litindex *lits;
	struct cc_lithit *lithits;
	pcre2_match_data *md;
	unsigned long scans;
	int jit;
	char *text;
	size_t text_len;
	int fixed;		/* a fix rewrote the text of the last scan */
	struct cc_lexicon_hit *hits;
	size_t nhits;
	char err[512];
};

static int __attribute__((format(printf, 3, 4)))
load_error(struct cc_lexicon *x, int line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(x->err, sizeof x->err, "%s:%d: ", x->path, line);

	va_start(ap, fmt);
	vsnprintf(x->err + n, sizeof x->err - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Fold and compile; `wrap` puts the pattern inside "%s" (a format). */
static pcre2_code *
compile(struct cc_lexicon *x, int line, const char *src, const char *wrap,
    uint32_t flags)
{
	size_t flen;
	char *folded = cc_text_fold(src, strlen(src), &flen, CC_FOLD_KEEP_CASE);
	struct cc_buf b = {0};
	int errcode;
	PCRE2_SIZE erroff;
	pcre2_code *re;

	if (wrap) {
		const char *at = strstr(wrap, "%s");

		cc_buf_add(&b, wrap, (size_t)(at - wrap));
		cc_buf_add(&b, folded, flen);
		cc_buf_add(&b, at + 2, strlen(at + 2));
	} else {
		cc_buf_add(&b, folded, flen);
	}
	/* no PCRE2_UCP: \b and \w mean Latin words, as in cc_rules.c */
	re = pcre2_compile((PCRE2_SPTR)b.data, b.len,
	    PCRE2_UTF | PCRE2_CASELESS | PCRE2_MATCH_INVALID_UTF | flags,
	    &errcode, &erroff, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(errcode, msg, sizeof msg);
		load_error(x, line, "bad pattern '%s': %s", src, (char *)msg);
	}
	free(folded);
	cc_buf_release(&b);
	return re;
}

static int
parse_weight(const char *s, double *w)
{
	char *end;

	errno = 0;
	*w = strtod(s, &end);
	return !*s || *end || errno || !(*w >= 0 && *w <= 1) ? -1 : 0;
}

int
cc_lexicon_class(const struct cc_lexicon *x, const char *name)
{
	for (size_t i = 0; name && i < x->nclasses; i++)
		if (strcmp(x->classes[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *
cc_lexicon_class_name(const struct cc_lexicon *x, int cls)
{
	return cls >= 0 && (size_t)cls < x->nclasses ? x->classes[cls].name : NULL;
}

static int
parse_class(struct cc_lexicon *x, char *rest, int line)
{
	char *name = cc_word(&rest), *kw;
	struct lclass c = { .as = -1 };

	if (!*name)
		return load_error(x, line, "expected 'class NAME [soft W] [strong W [as CLASS]]'");
	if (cc_lexicon_class(x, name) >= 0)
		return load_error(x, line, "class '%s' twice", name);
	while (*(kw = cc_word(&rest))) {
		char *v = cc_word(&rest);

		if (strcmp(kw, "soft") == 0 && parse_weight(v, &c.soft) == 0)
			c.has_soft = 1;
		else if (strcmp(kw, "strong") == 0 && parse_weight(v, &c.strong) == 0)
			c.has_strong = 1;
		else if (strcmp(kw, "as") == 0 && *v && !c.as_name)
			c.as_name = cc_xstrdup(v);
		else {
			free(c.as_name);
			return load_error(x, line, "bad '%s %s' in class '%s' "
			    "(soft W, strong W, as CLASS; weights 0-1)", kw, v, name);
		}
	}
	c.name = cc_xstrdup(name);
	x->classes = cc_xrealloc(x->classes, (x->nclasses + 1) * sizeof *x->classes);
	x->classes[x->nclasses++] = c;
	return 0;
}

static int
parse_cue(struct cc_lexicon *x, char *rest, int line)
{
	char *cls = cc_word(&rest), *w = cc_word(&rest);
	struct cue c = { .line = line };
	size_t flen;
	char *folded;

	rest = cc_trim(rest);
	if (!*cls || !*w || !*rest)
		return load_error(x, line, "expected 'cue CLASS WEIGHT PATTERN'");
	if ((c.cls = cc_lexicon_class(x, cls)) < 0)
		return load_error(x, line, "unknown class '%s' (declare it with 'class')", cls);
	if (parse_weight(w, &c.weight) < 0)
		return load_error(x, line, "bad weight '%s': a number from 0 to 1", w);
	if (!(c.re = compile(x, line, rest, NULL, 0)))
		return -1;
	folded = cc_text_fold(rest, strlen(rest), &flen, CC_FOLD_KEEP_CASE);
	c.always = cc_litindex_add_pattern(x->lits, folded, (int)x->ncues) < 0;
	free(folded);
	x->cues = cc_xrealloc(x->cues, (x->ncues + 1) * sizeof *x->cues);
	x->cues[x->ncues++] = c;
	return 0;
}

static int
parse_modifier(struct cc_lexicon *x, const char *kw, char *rest, int line)
{
	char *where = cc_word(&rest);
	struct modifier m;

	rest = cc_trim(rest);
	m.kind = strcmp(kw, "soften") == 0 ? MOD_SOFTEN :
	    strcmp(kw, "intensify") == 0 ? MOD_INTENSIFY : MOD_NEGATE;
	if (strcmp(where, "before") != 0 && strcmp(where, "after") != 0)
		return load_error(x, line, "expected '%s before|after PATTERN'", kw);
	if (!*rest)
		return load_error(x, line, "expected '%s %s PATTERN'", kw, where);
	m.after = strcmp(where, "after") == 0;
	/* after: from the cue's end on; before: ending where the cue begins */
	m.re = m.after ? compile(x, line, rest, "(?:%s)", PCRE2_ANCHORED) :
	    compile(x, line, rest, "(?:%s)\\z", 0);
	if (!m.re)
		return -1;
	x->mods = cc_xrealloc(x->mods, (x->nmods + 1) * sizeof *x->mods);
	x->mods[x->nmods++] = m;
	return 0;
}

static int
parse_line(struct cc_lexicon *x, char *line, int lineno, const char *const *extra)
{
	char *rest, *kw;

	line = cc_trim(line);
	if (!*line || *line == '#')
		return 0;
	rest = line;
	kw = cc_word(&rest);
	if (strcmp(kw, "class") == 0)
		return parse_class(x, rest, lineno);
	if (strcmp(kw, "cue") == 0)
		return parse_cue(x, rest, lineno);
	if (strcmp(kw, "soften") == 0 || strcmp(kw, "intensify") == 0 ||
	    strcmp(kw, "negate") == 0)
		return parse_modifier(x, kw, rest, lineno);
	if (strcmp(kw, "fix") == 0) {
		char *arrow = strstr(rest, " => "), *repl;
		size_t n = strlen(rest);
		struct fix f;

		if (arrow) {
			repl = arrow + 4;
		} else if (n >= 3 && strcmp(rest + n - 3, " =>") == 0) {
			arrow = rest + n - 3;	/* the line is trimmed: "=>" alone */
			repl = arrow + 3;	/* replaces with nothing */
		} else {
			return load_error(x, lineno, "expected 'fix PATTERN => TEXT'");
		}
		*arrow = '\0';
		if (!(f.re = compile(x, lineno, cc_trim(rest), NULL, 0)))
			return -1;
		f.replacement = cc_text_fold(repl, strlen(repl), NULL, 0);
		x->fixes = cc_xrealloc(x->fixes, (x->nfixes + 1) * sizeof *x->fixes);
		x->fixes[x->nfixes++] = f;
		return 0;
	}
	for (size_t i = 0; extra && extra[i]; i++) {
		if (strcmp(extra[i], kw) == 0) {
			x->extra = cc_xrealloc(x->extra, (x->nextra + 1) * sizeof *x->extra);
			x->extra[x->nextra++] = (struct cc_lexicon_line){
				.directive = extra[i], .args = cc_xstrdup(cc_trim(rest)),
				.line = lineno };
			return 0;
		}
	}
	return load_error(x, lineno, "unknown directive '%s'", kw);
}

struct cc_lexicon *
cc_lexicon_load(const char *path, const char *const *extra, char *err, size_t errlen)
{
	struct cc_lexicon *x = calloc(1, sizeof *x);
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;

	if (!x)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	x->path = cc_xstrdup(path);
	x->lits = cc_litindex_new();
	if (!(f = fopen(path, "r"))) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		cc_lexicon_free(x);
		return NULL;
	}
	while (rc == 0 && getline(&line, &cap, f) >= 0)
		rc = parse_line(x, line, ++lineno, extra);
	free(line);
	fclose(f);
	for (size_t i = 0; rc == 0 && i < x->nclasses; i++) {
		struct lclass *c = &x->classes[i];

		if (c->as_name && (c->as = cc_lexicon_class(x, c->as_name)) < 0)
			rc = load_error(x, lineno, "class '%s': unknown class '%s' after 'as'",
			    c->name, c->as_name);
	}
	if (rc < 0) {
		snprintf(err, errlen, "%s", x->err);
		cc_lexicon_free(x);
		return NULL;
	}
	x->md = pcre2_match_data_create(1, NULL);
	x->lithits = cc_xmalloc((x->ncues + 1) * sizeof *x->lithits);
	x->hits = cc_xmalloc((x->ncues + 1) * sizeof *x->hits);
	return x;
}

void
cc_lexicon_free(struct cc_lexicon *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->nclasses; i++) {
		free(x->classes[i].name);
		free(x->classes[i].as_name);
	}
	for (size_t i = 0; i < x->ncues; i++)
		pcre2_code_free(x->cues[i].re);
	for (size_t i = 0; i < x->nmods; i++)
		pcre2_code_free(x->mods[i].re);
	for (size_t i = 0; i < x->nfixes; i++) {
		pcre2_code_free(x->fixes[i].re);
		free(x->fixes[i].replacement);
	}
	for (size_t i = 0; i < x->nextra; i++)
		free((char *)x->extra[i].args);
	free(x->classes);
	free(x->cues);
	free(x->mods);
	free(x->fixes);
	free(x->extra);
	cc_litindex_free(x->lits);
	free(x->lithits);
	free(x->hits);
	free(x->text);
	free(x->path);
	pcre2_match_data_free(x->md);
	free(x);
}

const char *
cc_lexicon_path(const struct cc_lexicon *x)
{
	return x->path;
}

size_t
cc_lexicon_nextra(const struct cc_lexicon *x)
{
	return x->nextra;
}

const struct cc_lexicon_line *
cc_lexicon_extra(const struct cc_lexicon *x, size_t i)
{
	return i < x->nextra ? &x->extra[i] : NULL;
}

/* CC_NO_JIT: valgrind cannot see into JIT code (see cc_rules.c). */
static void
jit_all(struct cc_lexicon *x)
{
	x->jit = 1;
	if (getenv("CC_NO_JIT"))
		return;
	for (size_t i = 0; i < x->ncues; i++)
		pcre2_jit_compile(x->cues[i].re, PCRE2_JIT_COMPLETE);
	for (size_t i = 0; i < x->nmods; i++)
		pcre2_jit_compile(x->mods[i].re, PCRE2_JIT_COMPLETE);
	for (size_t i = 0; i < x->nfixes; i++)
		pcre2_jit_compile(x->fixes[i].re, PCRE2_JIT_COMPLETE);
}

static void
apply_fixes(struct cc_lexicon *x)
{
	for (size_t i = 0; i < x->nfixes; i++) {
		PCRE2_SIZE outlen;
		char *out;
		int rc;

		/*
		 * Most texts need no fix: ask whether the pattern matches at all
		 * first (pcre2_substitute costs a buffer and a match data of its
		 * own even when nothing is replaced).
		 */
		if (pcre2_match(x->fixes[i].re, (PCRE2_SPTR)x->text, x->text_len, 0, 0,
		    x->md, NULL) == PCRE2_ERROR_NOMATCH)
			continue;
		outlen = x->text_len * 2 + 64;
		out = cc_xmalloc(outlen + 1);
		rc = pcre2_substitute(x->fixes[i].re, (PCRE2_SPTR)x->text,
		    x->text_len, 0, PCRE2_SUBSTITUTE_GLOBAL |
		    PCRE2_SUBSTITUTE_OVERFLOW_LENGTH, NULL, NULL,
		    (PCRE2_SPTR)x->fixes[i].replacement, PCRE2_ZERO_TERMINATED,
		    (PCRE2_UCHAR *)out, &outlen);

		if (rc == PCRE2_ERROR_NOMEMORY) {	/* outlen is now the need */
			out = cc_xrealloc(out, outlen + 1);
			rc = pcre2_substitute(x->fixes[i].re, (PCRE2_SPTR)x->text,
			    x->text_len, 0, PCRE2_SUBSTITUTE_GLOBAL, NULL, NULL,
			    (PCRE2_SPTR)x->fixes[i].replacement, PCRE2_ZERO_TERMINATED,
			    (PCRE2_UCHAR *)out, &outlen);
		}
		if (rc > 0) {
			free(x->text);
			x->text = out;
			x->text_len = outlen;
			x->fixed = 1;
		} else {
			free(out);	/* no match, or an error: keep the text */
		}
	}
}

/* Does the modifier hold around the cue at [s, e)? */
static int
modifier_at(struct cc_lexicon *x, const struct modifier *m, size_t s, size_t e)
{
	size_t from;

	if (m->after)
		return pcre2_match(m->re, (PCRE2_SPTR)x->text, x->text_len, e, 0,
		    x->md, NULL) >= 0;
	/* the text before the cue, from a character boundary in the window */
	from = s > BEFORE_WINDOW ? s - BEFORE_WINDOW : 0;
	while (from < s && ((unsigned char)x->text[from] & 0xC0) == 0x80)
		from++;
	return pcre2_match(m->re, (PCRE2_SPTR)x->text, s, from, 0, x->md, NULL) >= 0;
}

/* The weight of cue c at [s, e) of the text, with the modifiers around it. */
static struct cc_lexicon_hit
weigh(struct cc_lexicon *x, const struct cue *c, size_t s, size_t e)
{
	const struct lclass *k = &x->classes[c->cls];
	struct cc_lexicon_hit h = { .cls = c->cls, .cue_cls = c->cls,
		.weight = c->weight, .written = c->weight, .mod = CC_LEX_PLAIN,
		.line = c->line, .start = s, .end = e };
	int held[3] = {0, 0, 0};

	for (size_t i = 0; i < x->nmods; i++)
		if (!held[x->mods[i].kind] && modifier_at(x, &x->mods[i], s, e))
			held[x->mods[i].kind] = 1;
	if (held[MOD_NEGATE]) {
		h.mod = CC_LEX_NEGATED;
		h.weight = 0;
	} else if (held[MOD_SOFTEN]) {
		h.mod = CC_LEX_SOFT;
		if (k->has_soft && h.weight > k->soft)
			h.weight = k->soft;
	} else if (held[MOD_INTENSIFY]) {
		h.mod = CC_LEX_STRONG;
		if (k->has_strong && h.weight < k->strong)
			h.weight = k->strong;
		if (k->as >= 0)
			h.cls = k->as;
	}
	return h;
}

size_t
cc_lexicon_scan(struct cc_lexicon *x, const char *text, size_t len)
{
	if (!x->jit && ++x->scans >= JIT_AFTER)
		jit_all(x);
	free(x->text);
	x->text = cc_text_fold(text, len, &x->text_len, 0);
	x->fixed = 0;
	apply_fixes(x);
	memset(x->lithits, 0, x->ncues * sizeof *x->lithits);
	cc_litindex_scan(x->lits, x->text, x->text_len, x->lithits);
	x->nhits = 0;
	for (size_t i = 0; i < x->ncues; i++) {
		const struct cue *c = &x->cues[i];
		struct cc_lexicon_hit best = {0};
		size_t from = 0;
		int found = 0;

		if (!c->always) {
			if (!x->lithits[i].n)
				continue;	/* none of the literals it begins with */
			from = x->lithits[i].pos[0];
		}
		for (int k = 0; k < MAX_PLACES && from <= x->text_len; k++) {
			int rc = pcre2_match(c->re, (PCRE2_SPTR)x->text, x->text_len,
			    from, 0, x->md, NULL);
			PCRE2_SIZE *ov;
			size_t s, e;

			if (rc < 0)	/* no (more) match, or a matching limit */
				break;
			ov = pcre2_get_ovector_pointer(x->md);
			s = ov[0];
			e = ov[1];
			if (e <= s) {	/* an empty match says nothing: step on */
				from = s + 1;
				while (from < x->text_len &&
				    ((unsigned char)x->text[from] & 0xC0) == 0x80)
					from++;
				continue;
			}
			struct cc_lexicon_hit h = weigh(x, c, s, e);

			if (!found || h.weight > best.weight)
				best = h;
			found = 1;
			from = e;
		}
		if (found)
			x->hits[x->nhits++] = best;
	}
	return x->nhits;
}

const struct cc_lexicon_hit *
cc_lexicon_hit(const struct cc_lexicon *x, size_t i)
{
	return i < x->nhits ? &x->hits[i] : NULL;
}

const char *
cc_lexicon_text(const struct cc_lexicon *x, size_t *len)
{
	if (len)
		*len = x->text ? x->text_len : 0;
	return x->text ? x->text : "";
}

/* The length of the folded text of the first k bytes of s. */
static size_t
folded_len(const char *s, size_t k)
{
	size_t n;
	char *f = cc_text_fold(s, k, &n, 0);

	free(f);
	return n;
}

/*
 * Folding a longer prefix never gives a shorter text, so binary searches
 * over the prefixes that end on a character boundary find the span: the
 * longest prefix that folds to at most `start` bytes, and the shortest
 * that folds to at least `end`.
 */
int
cc_lexicon_source(const struct cc_lexicon *x, const char *orig, size_t len,
    size_t start, size_t end, size_t *os, size_t *oe)
{
	size_t *b, m = 0, lo, hi;
	int rc = -1;

	if (x->fixed || !x->text || start >= end || end > x->text_len)
		return -1;
	b = cc_xmalloc((len + 2) * sizeof *b);
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)orig[i] & 0xC0) != 0x80)
			b[m++] = i;
	b[m] = len;
	lo = 0;
	hi = m;
	while (lo < hi) {
		size_t mid = (lo + hi + 1) / 2;

		if (folded_len(orig, b[mid]) <= start)
			lo = mid;
		else
			hi = mid - 1;
	}
	*os = b[lo];
	lo = 0;
	hi = m;
	if (folded_len(orig, len) >= end) {
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (folded_len(orig, b[mid]) >= end)
				hi = mid;
			else
				lo = mid + 1;
		}
		*oe = b[lo];
		/* marks that fold into the character before: ﾌﾟ, か゛ */
		while (*oe < len) {
			size_t i = *oe;
			int32_t cp = cc_utf8_next(orig, len, &i);

			if (!(cp == 0xFF9E || cp == 0xFF9F || cp == 0x3099 || cp == 0x309A ||
			    (cp >= 0x0300 && cp <= 0x036F)))
				break;
			*oe = i;
		}
		rc = *os < *oe ? 0 : -1;
	}
	free(b);
	return rc;
}
