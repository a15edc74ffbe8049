/*
 * Investigation guidance and exploration requirements as data: the
 * domain's guidance and requirements files (code-intel(5)).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_explore.h"
#include "cc_datafile.h"

struct hint {
	char *text, *action;
	char **tools;
	size_t ntools;
};

struct count {
	char *key;
	double n;
};

struct require {
	char **intents, **risks;	/* "*" matches any */
	size_t nintents, nrisks;
	struct count *counts;
	size_t ncounts;
	char **evidence;
	size_t nevidence;
};

#define NMASKS (1u << CC_QF_NSLOTS)

struct cc_explore {
	struct hint hints[CC_QF_NSLOTS];
	struct require *reqs;
	size_t nreqs;
	char **tools;		/* required_tools, for every intent and risk */
	size_t ntools;
	/*
	 * What is written for each set of missing slots and each require
	 * line, made once at load: the texts are long, and escaping them for
	 * every record cost more than framing it.
	 */
	struct cc_buf guidance[NMASKS], tools_text[NMASKS];
	struct cc_buf *req_json;	/* by require line; the last: none */
	const char *path;	/* the file being read */
	char err[512];
};

static void
add(char ***list, size_t *n, const char *w, size_t len)
{
	*list = cc_xrealloc(*list, (*n + 1) * sizeof **list);
	(*list)[*n] = cc_xmalloc(len + 1);
	memcpy((*list)[*n], w, len);
	(*list)[(*n)++][len] = '\0';
}

static void
free_list(char **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

/* Comma-separated words into a list. */
static void
add_commas(char ***list, size_t *n, const char *s)
{
	while (*s) {
		size_t len = strcspn(s, ",");

		if (len)
			add(list, n, s, len);
		s += len + (s[len] == ',');
	}
}

void
cc_explore_free(struct cc_explore *x)
{
	if (!x)
		return;
	for (int i = 0; i < CC_QF_NSLOTS; i++) {
		free(x->hints[i].text);
		free(x->hints[i].action);
		free_list(x->hints[i].tools, x->hints[i].ntools);
	}
	for (size_t r = 0; r < x->nreqs; r++) {
		free_list(x->reqs[r].intents, x->reqs[r].nintents);
		free_list(x->reqs[r].risks, x->reqs[r].nrisks);
		free_list(x->reqs[r].evidence, x->reqs[r].nevidence);
		for (size_t c = 0; c < x->reqs[r].ncounts; c++)
			free(x->reqs[r].counts[c].key);
		free(x->reqs[r].counts);
	}
	free(x->reqs);
	free_list(x->tools, x->ntools);
	for (unsigned m = 0; m < NMASKS; m++) {
		cc_buf_release(&x->guidance[m]);
		cc_buf_release(&x->tools_text[m]);
	}
	for (size_t r = 0; x->req_json && r <= x->nreqs; r++)
		cc_buf_release(&x->req_json[r]);
	free(x->req_json);
	free(x);
}

static int __attribute__((format(printf, 3, 4)))
fail(struct cc_explore *x, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cc_datafile_verror(x->err, sizeof x->err, x->path, line, fmt, ap);
	va_end(ap);
	return -1;
}

/* SLOT tools TOOL... | SLOT hint TEXT | SLOT action TEXT */
static int
guidance_line(void *ctx, char *rest, int line)
{
	struct cc_explore *x = ctx;
	char *slot = cc_word(&rest), *what = cc_word(&rest);
	int i = cc_qframe_slot(slot, strlen(slot));
	struct hint *h;

	rest += strspn(rest, " \t");
	if (i < 0)
		return fail(x, line, "unknown slot '%s'", slot);
	h = &x->hints[i];
	if (strcmp(what, "tools") == 0) {
		char *w;

		while (*(w = cc_word(&rest)))
			add(&h->tools, &h->ntools, w, strlen(w));
	} else if (strcmp(what, "hint") == 0 && *rest) {
		free(h->text);
		h->text = cc_xstrdup(rest);
	} else if (strcmp(what, "action") == 0 && *rest) {
		free(h->action);
		h->action = cc_xstrdup(rest);
	} else {
		return fail(x, line, "expected 'SLOT tools TOOL...', 'SLOT hint TEXT' "
		    "or 'SLOT action TEXT'");
	}
	return 0;
}

/* require INTENTS RISKS KEY=N... [slot_evidence=SLOT,...] | tools TOOL... */
static int
requirements_line(void *ctx, char *rest, int line)
{
	struct cc_explore *x = ctx;
	char *kw = cc_word(&rest), *w;

	if (strcmp(kw, "tools") == 0) {
		while (*(w = cc_word(&rest)))
			add(&x->tools, &x->ntools, w, strlen(w));
		return 0;
	}
	if (strcmp(kw, "require") != 0)
		return fail(x, line, "unknown directive '%s' (require, tools)", kw);
	struct require r = {0};
	char *intents = cc_word(&rest), *risks = cc_word(&rest);

	add_commas(&r.intents, &r.nintents, intents);
	add_commas(&r.risks, &r.nrisks, risks);
	while (*(w = cc_word(&rest))) {
		char *eq = strchr(w, '='), *end;

		if (!eq)
			goto bad;
		*eq = '\0';
		if (strcmp(w, "slot_evidence") == 0) {
			add_commas(&r.evidence, &r.nevidence, eq + 1);
			for (size_t k = 0; k < r.nevidence; k++)
				if (cc_qframe_slot(r.evidence[k], strlen(r.evidence[k])) < 0) {
					fail(x, line, "unknown slot '%s'", r.evidence[k]);
					goto free;
				}
			continue;
		}
		r.counts = cc_xrealloc(r.counts, (r.ncounts + 1) * sizeof *r.counts);
		r.counts[r.ncounts].n = strtod(eq + 1, &end);
		r.counts[r.ncounts++].key = cc_xstrdup(w);
		if (end == eq + 1 || *end)
			goto bad;
	}
	if (!r.nintents || !r.nrisks)
		goto bad;
	x->reqs = cc_xrealloc(x->reqs, (x->nreqs + 1) * sizeof *x->reqs);
	x->reqs[x->nreqs++] = r;
	return 0;
bad:
	fail(x, line, "expected 'require INTENT,... RISK,... KEY=N... "
	    "[slot_evidence=SLOT,...]'");
free:
	free_list(r.intents, r.nintents);
	free_list(r.risks, r.nrisks);
	free_list(r.evidence, r.nevidence);
	for (size_t c = 0; c < r.ncounts; c++)
		free(r.counts[c].key);
	free(r.counts);
	return -1;
}

static int
read_file(struct cc_explore *x, const char *path, cc_datafile_fn fn)
{
	x->path = path;
	return cc_datafile_each(path, fn, x, x->err, sizeof x->err);
}

static void prepare(struct cc_explore *x);

struct cc_explore *
cc_explore_load(const char *guidance, const char *requirements, char *err, size_t errlen)
{
	struct cc_explore *x = calloc(1, sizeof *x);

	if (!x)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	if (read_file(x, guidance, guidance_line) < 0 ||
	    read_file(x, requirements, requirements_line) < 0) {
		snprintf(err, errlen, "%s", x->err);
		cc_explore_free(x);
		return NULL;
	}
	prepare(x);
	return x;
}

/* The tools of the missing slots, first occurrence kept; their number. */
static size_t
tools_for(const struct cc_explore *x, const int missing[CC_QF_NSLOTS],
    const char **out, size_t max)
{
	size_t n = 0;

	for (int i = 0; i < CC_QF_NSLOTS; i++) {
		for (size_t t = 0; missing[i] && t < x->hints[i].ntools; t++) {
			size_t k = 0;

			while (k < n && strcmp(out[k], x->hints[i].tools[t]) != 0)
				k++;
			if (k == n && n < max)
				out[n++] = x->hints[i].tools[t];
		}
	}
	return n;
}

static void
build_guidance(const struct cc_explore *x, const int missing[CC_QF_NSLOTS],
    struct cc_jw *w)
{
	const char *tools[64];
	size_t n = tools_for(x, missing, tools, 64);

	cc_jw_object(w);
	cc_jw_key(w, "hints");
	cc_jw_array(w);
	for (int i = 0; i < CC_QF_NSLOTS; i++) {
		if (!missing[i])
			continue;
		cc_jw_object(w);
		cc_jw_key(w, "slot");
		cc_jw_cstr(w, cc_qframe_slot_names[i]);
		cc_jw_key(w, "hint");
		cc_jw_cstr(w, x->hints[i].text);
		cc_jw_key(w, "action");
		cc_jw_cstr(w, x->hints[i].action);
		cc_jw_end(w);
	}
	cc_jw_end(w);
	cc_jw_key(w, "recommended_tools");
	cc_jw_array(w);
	for (size_t t = 0; t < n; t++)
		cc_jw_cstr(w, tools[t]);
	cc_jw_end(w);
	cc_jw_end(w);
}

static void
build_tools_text(const struct cc_explore *x, const int missing[CC_QF_NSLOTS],
    struct cc_buf *b)
{
	const char *tools[64];
	size_t n = tools_for(x, missing, tools, 64);

	for (size_t t = 0; t < n; t++) {
		if (t)
			cc_buf_add(b, ", ", 2);
		cc_buf_add(b, tools[t], strlen(tools[t]));
	}
}

static int
listed(char **list, size_t n, const char *v)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], "*") == 0 || (v && strcmp(list[i], v) == 0))
			return 1;
	return 0;
}

static void
build_requirements(const struct cc_explore *x, const struct require *r, struct cc_jw *w)
{
	cc_jw_object(w);
	for (size_t c = 0; r && c < r->ncounts; c++) {
		cc_jw_key(w, r->counts[c].key);
		cc_jw_num(w, r->counts[c].n);
	}
	cc_jw_key(w, "required_slot_evidence");
	cc_jw_array(w);
	for (size_t e = 0; r && e < r->nevidence; e++)
		cc_jw_cstr(w, r->evidence[e]);
	cc_jw_end(w);
	cc_jw_key(w, "required_tools");
	cc_jw_array(w);
	for (size_t t = 0; t < x->ntools; t++)
		cc_jw_cstr(w, x->tools[t]);
	cc_jw_end(w);
	cc_jw_end(w);
}

/* Everything written for a set of slots or a require line, made once. */
static void
prepare(struct cc_explore *x)
{
	struct cc_jw w;

	for (unsigned m = 0; m < NMASKS; m++) {
		int missing[CC_QF_NSLOTS];

		for (int i = 0; i < CC_QF_NSLOTS; i++)
			missing[i] = m >> i & 1;
		cc_jw_init(&w, &x->guidance[m]);
		build_guidance(x, missing, &w);
		cc_buf_add(&x->tools_text[m], "", 0);
		build_tools_text(x, missing, &x->tools_text[m]);
	}
	x->req_json = calloc(x->nreqs + 1, sizeof *x->req_json);
	if (!x->req_json)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	for (size_t r = 0; r <= x->nreqs; r++) {
		cc_jw_init(&w, &x->req_json[r]);
		build_requirements(x, r < x->nreqs ? &x->reqs[r] : NULL, &w);
	}
}

static unsigned
mask_of(const int missing[CC_QF_NSLOTS])
{
	unsigned m = 0;

	for (int i = 0; i < CC_QF_NSLOTS; i++)
		m |= (missing[i] != 0) << i;
	return m;
}

void
cc_explore_write_guidance(const struct cc_explore *x, const int missing[CC_QF_NSLOTS],
    struct cc_jw *w)
{
	const struct cc_buf *b = &x->guidance[mask_of(missing)];

	cc_jw_raw(w, b->data, b->len);
}

void
cc_explore_tools_text(const struct cc_explore *x, const int missing[CC_QF_NSLOTS],
    struct cc_buf *b)
{
	const struct cc_buf *t = &x->tools_text[mask_of(missing)];

	cc_buf_add(b, t->data, t->len);
}

/* The first require line that names the intent and the risk; nreqs: none. */
static size_t
require_for(const struct cc_explore *x, const char *intent, const char *risk)
{
	size_t r = 0;

	while (r < x->nreqs && !(listed(x->reqs[r].intents, x->reqs[r].nintents, intent) &&
	    listed(x->reqs[r].risks, x->reqs[r].nrisks, risk)))
		r++;
	return r;
}

void
cc_explore_write_requirements(const struct cc_explore *x, const char *intent,
    const char *risk, struct cc_jw *w)
{
	size_t r = require_for(x, intent, risk);

	cc_jw_raw(w, x->req_json[r].data, x->req_json[r].len);
}

jv
cc_explore_guidance_jv(const struct cc_explore *x, const int missing[CC_QF_NSLOTS])
{
	const struct cc_buf *b = &x->guidance[mask_of(missing)];

	return cc_json_parse(b->data, b->len);
}

jv
cc_explore_requirements_jv(const struct cc_explore *x, const char *intent,
    const char *risk)
{
	size_t r = require_for(x, intent, risk);

	return cc_json_parse(x->req_json[r].data, x->req_json[r].len);
}
