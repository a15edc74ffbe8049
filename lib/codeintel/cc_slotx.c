/*
 * The deterministic QueryFrame extractor: ordered PCRE2 rules from the
 * domain's frame.patterns (code-intel(5)) quote the four slots of a
 * request.  Filled slots are masked with a control character per slot in
 * a working copy of the text, so later rules neither overlap them nor
 * quote them twice, and may anchor on them ({T} {C} {I} {A}).  Quotes are
 * then trimmed of white space, edge punctuation, unbalanced backticks and
 * the file's trim words, so a rule may match generously.
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
#include "cc_slotx.h"
#include "cc_datafile.h"

#define MAX_INTENTS 8
#define JIT_AFTER 200		/* extractions before the patterns are JIT-compiled */
#define MAX_TRIES 64		/* later starts tried when a match overlaps */
/*
 * Requests are a few sentences; the rules look at this much of one at most
 * (a quote must stand in the request, not be all of it), and each match
 * may take this many steps: long or hostile text costs milliseconds, not
 * minutes of backtracking.
 */
#define MAX_TEXT 4096
#define MATCH_LIMIT 200000

/* What a rule needs the request to hold: +ja, +en */
enum { NEED_JA = 1, NEED_LATIN = 2 };

struct rule {
	int slot;
	int need;		/* NEED_*: skipped on a request without it */
	pcre2_code *re;
	int group;		/* the group quoted: q, else 0 */
	char *intents[MAX_INTENTS];	/* none: every intent */
	size_t nintents;
	int line;
};

struct macro {
	char *name, *body;
};

/* A word taken off the start or end of the quotes of some slots. */
struct trimword {
	char *word;
	size_t len;
	unsigned slots;		/* bit i: slot i */
};

struct cc_slotx {
	struct rule *rules;
	size_t nrules;
	struct macro *macros;
	size_t nmacros;
	struct trimword *trim_start, *trim_end;
	size_t ntrim_start, ntrim_end;
	/* the bytes a trim word can begin (start) or end (end) with, case folded */
	unsigned char first_byte[256], last_byte[256];
	char **none;
	size_t nnone;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	struct cc_buf work;	/* the text with filled slots masked */
	unsigned long runs;
	int jit;
	const char *path;
	char err[512];
};

static int __attribute__((format(printf, 3, 4)))
fail(struct cc_slotx *x, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cc_datafile_verror(x->err, sizeof x->err, x->path, line, fmt, ap);
	va_end(ap);
	return -1;
}

static void
add(char ***list, size_t *n, const char *w)
{
	*list = cc_xrealloc(*list, (*n + 1) * sizeof **list);
	(*list)[(*n)++] = cc_xstrdup(w);
}

static void
free_list(char **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

void
cc_slotx_free(struct cc_slotx *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->nrules; i++) {
		pcre2_code_free(x->rules[i].re);
		for (size_t k = 0; k < x->rules[i].nintents; k++)
			free(x->rules[i].intents[k]);
	}
	for (size_t i = 0; i < x->nmacros; i++) {
		free(x->macros[i].name);
		free(x->macros[i].body);
	}
	free(x->rules);
	free(x->macros);
	for (size_t i = 0; i < x->ntrim_start; i++)
		free(x->trim_start[i].word);
	for (size_t i = 0; i < x->ntrim_end; i++)
		free(x->trim_end[i].word);
	free(x->trim_start);
	free(x->trim_end);
	free_list(x->none, x->nnone);
	pcre2_match_data_free(x->md);
	pcre2_match_context_free(x->mc);
	cc_buf_release(&x->work);
	free(x);
}

/* The body of macro name[0..n), or NULL; the masks are built in. */
static const char *
macro(const struct cc_slotx *x, const char *name, size_t n)
{
	static const struct { const char *name, *body; } builtin[] = {
		/*
		 * A slot's whole masked run, entered at its start only and never
		 * given back: a pattern that starts with one stays linear.
		 */
		{ "T", "(?<!\\x01)\\x01++" }, { "C", "(?<!\\x02)\\x02++" },
		{ "I", "(?<!\\x03)\\x03++" }, { "A", "(?<!\\x04)\\x04++" },
		{ "M", "[\\x01-\\x04]" },		/* one masked character */
		{ "R", "(?<![\\x01-\\x04])[\\x01-\\x04]++" },	/* a whole run of them */
	};

	for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
		if (strlen(builtin[i].name) == n && memcmp(builtin[i].name, name, n) == 0)
			return builtin[i].body;
	for (size_t i = 0; i < x->nmacros; i++)
		if (strlen(x->macros[i].name) == n && memcmp(x->macros[i].name, name, n) == 0)
			return x->macros[i].body;
	return NULL;
}

/* src with every {name} replaced by its (already expanded) body. */
static char *
expand(struct cc_slotx *x, int line, const char *src)
{
	struct cc_buf b = {0};
	const char *p = src;

	cc_buf_add(&b, "", 0);
	while (*p) {
		size_t n = 0;

		if (*p == '{' && (p[1] == '_' || ((p[1] | 0x20) >= 'a' && (p[1] | 0x20) <= 'z'))) {
			n = 1;
			while (p[n] == '_' || ((p[n] | 0x20) >= 'a' && (p[n] | 0x20) <= 'z') ||
			    (p[n] >= '0' && p[n] <= '9'))
				n++;
			if (p[n] != '}') {
				n = 0;
			} else {
				const char *body = macro(x, p + 1, n - 1);

				if (!body) {
					fail(x, line, "unknown piece '{%.*s}' (define it first)",
					    (int)(n - 1), p + 1);
					cc_buf_release(&b);
					return NULL;
				}
				cc_buf_add(&b, "(?:", 3);
				cc_buf_add(&b, body, strlen(body));
				cc_buf_add(&b, ")", 1);
				p += n + 1;
				continue;
			}
		}
		cc_buf_add(&b, p, 1);
		p++;
	}
	return b.data;
}

static pcre2_code *
compile(struct cc_slotx *x, int line, const char *src)
{
	int errcode;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)src, PCRE2_ZERO_TERMINATED,
	    PCRE2_UTF | PCRE2_CASELESS | PCRE2_MATCH_INVALID_UTF, &errcode, &off, NULL);

	if (!re) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(errcode, msg, sizeof msg);
		fail(x, line, "bad pattern: %s at byte %zu of '%s'", (char *)msg,
		    (size_t)off, src);
	}
	return re;
}

/* Mark a byte in a table, both cases of a Latin letter. */
static void
mark_byte(unsigned char *table, unsigned char b)
{
	table[b] = 1;
	if ((b | 0x20) >= 'a' && (b | 0x20) <= 'z')
		table[b | 0x20] = table[b & ~0x20] = 1;
}

static int
parse_line(void *ctx, char *line, int lineno)
{
	struct cc_slotx *x = ctx;
	char *rest = line, *kw = cc_word(&rest), *w;

	rest += strspn(rest, " \t");
	if (strcmp(kw, "define") == 0) {
		char *name = cc_word(&rest), *body;
		pcre2_code *re;

		rest += strspn(rest, " \t");
		if (!*name || !*rest)
			return fail(x, lineno, "expected 'define NAME PATTERN'");
		if (!(body = expand(x, lineno, rest)))
			return -1;
		if (!(re = compile(x, lineno, body))) {
			free(body);
			return -1;
		}
		pcre2_code_free(re);
		x->macros = cc_xrealloc(x->macros, (x->nmacros + 1) * sizeof *x->macros);
		x->macros[x->nmacros].name = cc_xstrdup(name);
		x->macros[x->nmacros++].body = body;
		return 0;
	}
	if (strcmp(kw, "none") == 0) {
		while (*(w = cc_word(&rest)))
			add(&x->none, &x->nnone, w);
		return 0;
	}
	if (strcmp(kw, "trim-start") == 0 || strcmp(kw, "trim-end") == 0) {
		struct trimword **list = kw[5] == 's' ? &x->trim_start : &x->trim_end;
		size_t *n = kw[5] == 's' ? &x->ntrim_start : &x->ntrim_end;
		unsigned slots = (1u << CC_QF_NSLOTS) - 1;

		if (*rest == '@') {	/* @SLOT,SLOT: for these slots only */
			char *list_ = cc_word(&rest) + 1, *tok;

			slots = 0;
			for (tok = strtok(list_, ","); tok; tok = strtok(NULL, ",")) {
				int i = cc_qframe_slot(tok, strlen(tok));

				if (i < 0)
					return fail(x, lineno, "unknown slot '%s'", tok);
				slots |= 1u << i;
			}
		}
		while (*(w = cc_word(&rest))) {
			*list = cc_xrealloc(*list, (*n + 1) * sizeof **list);
			(*list)[(*n)++] = (struct trimword){ cc_xstrdup(w), strlen(w), slots };
			mark_byte(kw[5] == 's' ? x->first_byte : x->last_byte,
			    (unsigned char)(kw[5] == 's' ? w[0] : w[strlen(w) - 1]));
		}
		return 0;
	}
	int slot = cc_qframe_slot(kw, strlen(kw));
	struct rule r = { .slot = slot, .line = lineno };
	char *src = NULL;

	if (slot < 0)
		return fail(x, lineno, "unknown slot or directive '%s'", kw);
	if (*rest == '@') {	/* @INTENT,INTENT: for these intents only */
		char *list = cc_word(&rest) + 1, *tok;

		for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
			if (r.nintents == MAX_INTENTS)
				return fail(x, lineno, "more than %d intents", MAX_INTENTS);
			r.intents[r.nintents++] = cc_xstrdup(tok);
		}
		rest += strspn(rest, " \t");
	}
	while (*rest == '+') {	/* +ja, +en: what the request must hold */
		char *opt = cc_word(&rest);

		if (strcmp(opt, "+ja") == 0)
			r.need |= NEED_JA;
		else if (strcmp(opt, "+en") == 0)
			r.need |= NEED_LATIN;
		else
			return fail(x, lineno, "unknown option '%s' (+ja, +en)", opt);
		rest += strspn(rest, " \t");
	}
	if (!*rest || !(src = expand(x, lineno, rest)) || !(r.re = compile(x, lineno, src))) {
		if (!*rest)
			fail(x, lineno, "expected 'SLOT [@INTENT,...] PATTERN'");
		else
			free(src);
		for (size_t k = 0; k < r.nintents; k++)
			free(r.intents[k]);
		return -1;
	}
	free(src);
	r.group = pcre2_substring_number_from_name(r.re, (PCRE2_SPTR) "q");
	if (r.group < 0)
		r.group = 0;
	x->rules = cc_xrealloc(x->rules, (x->nrules + 1) * sizeof *x->rules);
	x->rules[x->nrules++] = r;
	return 0;
}

struct cc_slotx *
cc_slotx_load(const char *path, char *err, size_t errlen)
{
	struct cc_slotx *x = calloc(1, sizeof *x);

	if (!x)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	x->path = path;
	if (cc_datafile_each(path, parse_line, x, x->err, sizeof x->err) < 0) {
		snprintf(err, errlen, "%s", x->err);
		cc_slotx_free(x);
		return NULL;
	}
	x->path = NULL;
	x->md = pcre2_match_data_create(32, NULL);
	x->mc = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(x->mc, MATCH_LIMIT);
	return x;
}

/* ---- trimming a quote ---- */

/* The code point that ends at s[end) (its start in *at), or -1. */
static int32_t
last_char(const char *s, size_t start, size_t end, size_t *at)
{
	size_t i = end, j;

	if (end <= start)
		return -1;
	do
		i--;
	while (i > start && ((unsigned char)s[i] & 0xC0) == 0x80);
	j = i;
	*at = i;
	return cc_utf8_next(s, end, &j);
}

static int
space_or_punct(int32_t c)
{
	static const int32_t punct[] = {
		' ', '\t', '\n', '\r', 0x3000, ',', '.', ';', ':', '!', '?',
		0x3001, 0x3002, 0xFF0C, 0xFF0E, 0xFF1B, 0xFF1A, 0xFF01, 0xFF1F, 0x30FB,
	};

	for (size_t i = 0; i < sizeof punct / sizeof *punct; i++)
		if (c == punct[i])
			return 1;
	return 0;
}

static int
latin(char c)
{
	return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

/* Does the word w (n bytes) stand at s[start..end) (its start, or its end)? */
static int
word_at(const char *s, size_t start, size_t end, const char *w, size_t n, int at_end)
{
	size_t at;

	if (n == 0 || n > end - start)
		return 0;
	at = at_end ? end - n : start;
	if ((s[at] | 0x20) != (w[0] | 0x20) || strncasecmp(s + at, w, n) != 0)
		return 0;
	if (!latin(w[0]))	/* a particle: a plain prefix or suffix */
		return n < end - start;
	/* a Latin word: whole, with more text beyond it */
	if (n == end - start)
		return 0;
	return at_end ? !latin(s[at - 1]) && !(s[at - 1] >= '0' && s[at - 1] <= '9') :
	    !latin(s[at + n]) && !(s[at + n] >= '0' && s[at + n] <= '9');
}

static void
trim(const struct cc_slotx *x, int slot, const char *s, size_t *startp, size_t *endp)
{
	size_t start = *startp, end = *endp, at = 0;
	int changed = 1;

	while (changed && end > start) {
		size_t i = start, ticks = 0;
		int32_t c;

		changed = 0;
		c = cc_utf8_next(s, end, &i);
		if (space_or_punct(c)) {
			start = i;
			changed = 1;
			continue;
		}
		c = last_char(s, start, end, &at);
		if (space_or_punct(c)) {
			end = at;
			changed = 1;
			continue;
		}
		for (size_t k = start; k < end; k++)
			ticks += s[k] == '`';
		if (ticks % 2 && s[start] == '`') {	/* a backtick left alone */
			start++;
			changed = 1;
			continue;
		}
		if (ticks % 2 && s[end - 1] == '`') {
			end--;
			changed = 1;
			continue;
		}
		if (ticks == 2 && s[start] == '`' && s[end - 1] == '`' && end - start > 2) {
			start++;	/* `symbol` quotes the symbol */
			end--;
			changed = 1;
			continue;
		}
		for (size_t w = 0; x->first_byte[(unsigned char)s[start]] &&
		    w < x->ntrim_start && !changed; w++)
			if (x->trim_start[w].slots >> slot & 1 &&
			    word_at(s, start, end, x->trim_start[w].word, x->trim_start[w].len, 0)) {
				start += x->trim_start[w].len;
				changed = 1;
			}
		for (size_t w = 0; x->last_byte[(unsigned char)s[end - 1]] &&
		    w < x->ntrim_end && !changed; w++)
			if (x->trim_end[w].slots >> slot & 1 &&
			    word_at(s, start, end, x->trim_end[w].word, x->trim_end[w].len, 1)) {
				end -= x->trim_end[w].len;
				changed = 1;
			}
	}
	*startp = start;
	*endp = end;
}

/* ---- extraction ---- */

static int
for_intent(const struct rule *r, const char *intent)
{
	if (!r->nintents)
		return 1;
	for (size_t k = 0; intent && k < r->nintents; k++)
		if (strcmp(r->intents[k], intent) == 0)
			return 1;
	return 0;
}

static void
jit_all(struct cc_slotx *x)
{
	x->jit = 1;
	if (getenv("CC_NO_JIT"))	/* valgrind cannot see into JIT code */
		return;
	for (size_t i = 0; i < x->nrules; i++)
		pcre2_jit_compile(x->rules[i].re, PCRE2_JIT_COMPLETE);
}

void
cc_slotx_extract(struct cc_slotx *x, const char *text, size_t len, const char *intent,
    struct cc_slotx_span spans[CC_QF_NSLOTS])
{
	char *w;
	int has = 0;

	memset(spans, 0, CC_QF_NSLOTS * sizeof *spans);
	for (size_t k = 0; k < x->nnone; k++)
		if (intent && strcmp(x->none[k], intent) == 0)
			return;
	if (!x->jit && ++x->runs >= JIT_AFTER)
		jit_all(x);
	if (len > MAX_TEXT) {	/* the head of a long text, cut between characters */
		len = MAX_TEXT;
		while (len > 0 && ((unsigned char)text[len] & 0xC0) == 0x80)
			len--;
	}
	x->work.len = 0;
	cc_buf_add(&x->work, text, len);
	w = x->work.data;
	/* kana and kanji (U+3040-9FFF, and fullwidth forms) begin with E3-E9, EF */
	for (size_t i = 0; i < len && has != (NEED_JA | NEED_LATIN); i++) {
		unsigned char c = (unsigned char)text[i];

		if ((c >= 0xE3 && c <= 0xE9) || c == 0xEF)
			has |= NEED_JA;
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
			has |= NEED_LATIN;
	}
	for (size_t i = 0; i < x->nrules; i++) {
		const struct rule *r = &x->rules[i];
		size_t from = 0;

		if (spans[r->slot].end > spans[r->slot].start || !for_intent(r, intent) ||
		    (r->need & has) != r->need)
			continue;
		for (int tries = 0; tries < MAX_TRIES && from <= len; tries++) {
			int rc = pcre2_match(r->re, (PCRE2_SPTR)w, len, from, 0, x->md, x->mc);
			PCRE2_SIZE *ov = pcre2_get_ovector_pointer(x->md);
			size_t s, e, next;

			if (rc < 0)
				break;	/* no match (or a match limit): the next rule */
			s = ov[2 * r->group];
			e = ov[2 * r->group + 1];
			if (rc <= r->group || s == PCRE2_UNSET) {
				s = ov[0];
				e = ov[1];
			}
			trim(x, r->slot, w, &s, &e);
			if (e > s && !memchr(w + s, '\x01', e - s) && !memchr(w + s, '\x02', e - s) &&
			    !memchr(w + s, '\x03', e - s) && !memchr(w + s, '\x04', e - s)) {
				spans[r->slot] = (struct cc_slotx_span){ s, e, r->line };
				memset(w + s, 1 + r->slot, e - s);
				break;
			}
			/* overlaps a quoted slot, or empty: look further on */
			if ((next = ov[0]) >= len)
				break;
			cc_utf8_next(w, len, &next);
			if (next <= from)
				break;
			from = next;
		}
	}
}
