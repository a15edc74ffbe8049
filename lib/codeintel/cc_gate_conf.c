/*
 * The gate's data: gate.conf (which tools each phase lets through, how a
 * session of each intent starts, which devrag reasons each shortfall
 * allows) and the QueryFrame's data it shares with cc-frame (synonyms for
 * the NL->symbol check, the investigation guidance, how much exploration
 * each risk requires).  All are read whole at start; the first problem
 * stops the program (cc-gate exits 2).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_gate_int.h"
#include "cc_datafile.h"

const char *const gate_phase_names[PH_N] = {
	"EXPLORATION", "SEMANTIC", "VERIFICATION", "READY",
};

const char *const gate_text_keys[] = {
	"exploration_hint",		/* start_session, in EXPLORATION */
	"blocked_exploration_devrag",	/* devrag_search in EXPLORATION */
	"blocked_verification_devrag",	/* devrag_search in VERIFICATION */
	"semantic_complete",		/* submit_semantic's success */
	NULL,
};

const char *
gate_text(const struct cc_gate *g, const char *key)
{
	for (size_t i = 0; i < g->ntexts; i++)
		if (strcmp(g->texts[i].key, key) == 0)
			return g->texts[i].text;
	return "";
}

int
gate_phase_parse(const char *name)
{
	for (int i = 0; i < PH_N; i++)
		if (strcmp(name, gate_phase_names[i]) == 0)
			return i;
	return -1;
}

int
gate_slot_parse(const char *name)
{
	return cc_qframe_slot(name, strlen(name));
}

struct reader {
	const char *path;
	unsigned line;
	char *err;
	size_t errlen;
	int failed;
};

static void __attribute__((format(printf, 2, 3)))
bad(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	if (r->failed++)
		return;
	va_start(ap, fmt);
	cc_datafile_verror(r->err, r->errlen, r->path, (int)r->line, fmt, ap);
	va_end(ap);
}

/* The words of a line, and where each starts (for "the rest of the line"). */
#define MAX_WORDS 64
struct words {
	char *w[MAX_WORDS];
	char *rest[MAX_WORDS];	/* the line from word i on, unsplit */
	int n;
};

static void
split_words(char *line, struct words *ws, const char *orig)
{
	char *p = line;

	ws->n = 0;
	while (ws->n < MAX_WORDS) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		ws->rest[ws->n] = (char *)orig + (p - line);
		ws->w[ws->n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

static void
add_words(struct strv *l, struct words *ws, int from)
{
	for (int i = from; i < ws->n; i++)
		strv_add(l, ws->w[i]);
}

static int
intent_index(const struct cc_gate *g, const char *name)
{
	for (size_t i = 0; i < g->nintents; i++)
		if (strcmp(g->intents[i].name, name) == 0)
			return (int)i;
	return -1;
}

static void
conf_line(struct cc_gate *g, struct reader *r, struct words *ws)
{
	const char *d = ws->w[0];

	if (strcmp(d, "phase") == 0) {
		int ph = ws->n >= 2 ? gate_phase_parse(ws->w[1]) : -1;

		if (ph < 0) {
			bad(r, "phase: expected EXPLORATION, SEMANTIC, VERIFICATION or READY");
			return;
		}
		for (int i = 2; i < ws->n; i++) {
			if (strcmp(ws->w[i], "*") == 0) {
				g->phase_all[ph] = 1;
				continue;
			}
			strv_add(&g->phase_tools[ph], ws->w[i]);
			if (!strv_has(&g->known, ws->w[i]))
				strv_add(&g->known, ws->w[i]);
		}
	} else if (strcmp(d, "intent") == 0) {
		struct gate_intent *in;

		if (ws->n < 2 || intent_index(g, ws->w[1]) >= 0) {
			bad(r, "intent: expected a new intent's name");
			return;
		}
		g->intents = cc_xrealloc(g->intents, (g->nintents + 1) * sizeof *g->intents);
		in = &g->intents[g->nintents++];
		memset(in, 0, sizeof *in);
		in->name = cc_xstrdup(ws->w[1]);
		in->start = PH_EXPLORATION;
		for (int i = 2; i < ws->n; i++) {
			if (strcmp(ws->w[i], "code") == 0)
				in->roles |= ROLE_CODE;
			else if (strcmp(ws->w[i], "ready") == 0)
				in->start = PH_READY;
			else
				bad(r, "intent: unknown role '%s' (code, ready)",
				    ws->w[i]);
		}
	} else if (strcmp(d, "intent-default") == 0) {
		if (ws->n != 2 || (g->default_intent = intent_index(g, ws->w[1])) < 0)
			bad(r, "intent-default: expected an intent named above");
	} else if (strcmp(d, "required-phases") == 0) {
		int i = ws->n >= 2 ? intent_index(g, ws->w[1]) : -1;

		if (i < 0)
			bad(r, "required-phases: expected an intent named above");
		else
			add_words(&g->intents[i].required_phases, ws, 2);
	} else if (strcmp(d, "verification-tools") == 0) {
		add_words(&g->verification_tools, ws, 1);
	} else if (strcmp(d, "devrag-reasons") == 0) {
		add_words(&g->devrag_reasons, ws, 1);
	} else if (strcmp(d, "always-reasons") == 0) {
		add_words(&g->always_reasons, ws, 1);
	} else if (strcmp(d, "text") == 0) {
		struct gate_text *t;

		if (ws->n < 3) {
			bad(r, "text: expected KEY TEXT");
			return;
		}
		g->texts = cc_xrealloc(g->texts, (g->ntexts + 1) * sizeof *g->texts);
		t = &g->texts[g->ntexts++];
		t->key = cc_xstrdup(ws->w[1]);
		t->text = cc_xstrdup(ws->rest[2]);
	} else if (strcmp(d, "reasons") == 0) {
		struct gate_reason *x;

		if (ws->n < 2) {
			bad(r, "reasons: expected KEY [REASON...]");
			return;
		}
		g->reasons = cc_xrealloc(g->reasons, (g->nreasons + 1) * sizeof *g->reasons);
		x = &g->reasons[g->nreasons++];
		memset(x, 0, sizeof *x);
		x->key = cc_xstrdup(ws->w[1]);
		add_words(&x->reasons, ws, 2);
	} else {
		bad(r, "unknown directive '%s'", d);
	}
}

/* What the reader of a line needs: the gate it fills and where errors go. */
struct conf_reading {
	struct cc_gate *g;
	struct reader *r;
};

static int
one_line(void *ctx, char *line, int lineno)
{
	struct conf_reading *c = ctx;
	char *copy = cc_xstrdup(line);
	struct words ws;

	c->r->line = (unsigned)lineno;
	split_words(copy, &ws, line);
	if (ws.n > 0)
		conf_line(c->g, c->r, &ws);
	free(copy);
	return c->r->failed ? -1 : 0;
}

static int
read_file(struct cc_gate *g, struct reader *r)
{
	struct conf_reading c = { g, r };

	if (cc_datafile_each(r->path, one_line, &c, r->err, r->errlen) < 0) {
		r->failed = 1;
		return -1;
	}
	return 0;
}

/* What a usable gate must have, checked once the file is read. */
static void
check(struct cc_gate *g, struct reader *r)
{
	for (int p = 0; p < PH_N; p++)
		if (!g->phase_all[p] && g->phase_tools[p].n == 0)
			bad(r, "no phase line for %s", gate_phase_names[p]);
	if (g->nintents == 0 || g->default_intent < 0)
		bad(r, "intents: need intent lines and an intent-default");
	if (g->devrag_reasons.n == 0 || g->verification_tools.n == 0)
		bad(r, "need devrag-reasons and verification-tools");
	for (size_t i = 0; i < g->nreasons; i++)
		for (size_t k = 0; k < g->reasons[i].reasons.n; k++)
			if (!strv_has(&g->devrag_reasons, g->reasons[i].reasons.v[k]))
				bad(r, "reasons %s: '%s' is not in devrag-reasons",
				    g->reasons[i].key, g->reasons[i].reasons.v[k]);
	for (size_t k = 0; k < g->always_reasons.n; k++)
		if (!strv_has(&g->devrag_reasons, g->always_reasons.v[k]))
			bad(r, "always-reasons: '%s' is not in devrag-reasons",
			    g->always_reasons.v[k]);
	for (int i = 0; gate_text_keys[i]; i++)
		if (!*gate_text(g, gate_text_keys[i]))
			bad(r, "no text %s", gate_text_keys[i]);
}

struct cc_gate *
cc_gate_load(const char *conf, const char *frame_dir, char *err, size_t errlen)
{
	struct cc_gate *g = calloc(1, sizeof *g);
	struct reader r = { .path = conf, .err = err, .errlen = errlen };
	char *syn = gate_path_join(frame_dir, "synonyms");
	char *guidance = gate_path_join(frame_dir, "guidance");
	char *reqs = gate_path_join(frame_dir, "requirements");

	if (!g)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	g->default_intent = -1;
	if (read_file(g, &r) < 0)
		goto fail;
	r.line = 0;
	check(g, &r);
	if (r.failed ||
	    !(g->synonyms = cc_synonyms_load(syn, err, errlen)) ||
	    !(g->explore = cc_explore_load(guidance, reqs, err, errlen)))
		goto fail;
	free(syn);
	free(guidance);
	free(reqs);
	return g;
fail:
	free(syn);
	free(guidance);
	free(reqs);
	cc_gate_free(g);
	return NULL;
}

void
cc_gate_free(struct cc_gate *g)
{
	if (!g)
		return;
	for (int p = 0; p < PH_N; p++)
		strv_free(&g->phase_tools[p]);
	strv_free(&g->known);
	for (size_t i = 0; i < g->nintents; i++) {
		free(g->intents[i].name);
		strv_free(&g->intents[i].required_phases);
	}
	free(g->intents);
	strv_free(&g->verification_tools);
	strv_free(&g->devrag_reasons);
	strv_free(&g->always_reasons);
	for (size_t i = 0; i < g->nreasons; i++) {
		free(g->reasons[i].key);
		strv_free(&g->reasons[i].reasons);
	}
	free(g->reasons);
	cc_synonyms_free(g->synonyms);
	cc_explore_free(g->explore);
	for (size_t i = 0; i < g->ntexts; i++) {
		free(g->texts[i].key);
		free(g->texts[i].text);
	}
	free(g->texts);
	free(g->repo);
	free(g->log_dir);
	free(g);
}

void
cc_gate_set_log_dir(struct cc_gate *g, const char *dir)
{
	free(g->log_dir);
	g->log_dir = dir ? cc_xstrdup(dir) : NULL;
}

void
cc_gate_set_log_store(struct cc_gate *g)
{
	cc_gate_set_log_dir(g, NULL);
	g->log_store = 1;
}
