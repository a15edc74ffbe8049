/*
 * The gate's data: gate.conf (which tools each phase lets through, how a
 * session of each intent starts, how much exploration each risk requires,
 * which devrag reasons each shortfall allows) and gate.frame (what the gate
 * needs of the QueryFrame: synonyms for the NL->symbol check, the
 * investigation hints, the extraction prompt).  Both are read whole at
 * start; the first problem stops the program (cc-gate exits 2).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_gate_int.h"

const char *const gate_phase_names[PH_N] = {
	"EXPLORATION", "SEMANTIC", "VERIFICATION", "READY",
};

const char *const gate_slot_names[SLOT_N] = {
	"target_feature", "trigger_condition", "observed_issue", "desired_action",
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
	for (int i = 0; i < SLOT_N; i++)
		if (strcmp(name, gate_slot_names[i]) == 0)
			return i;
	return -1;
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
	int k;

	if (r->failed++)
		return;
	k = snprintf(r->err, r->errlen, "%s:%u: ", r->path, r->line);
	if (k < 0 || (size_t)k >= r->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(r->err + k, r->errlen - (size_t)k, fmt, ap);
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

/* A comma list into l; '*' is any (empty list). */
static void
add_list(struct strv *l, const char *word)
{
	char *copy, *tok, *save = NULL;

	if (strcmp(word, "*") == 0)
		return;
	copy = cc_xstrdup(word);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		strv_add(l, tok);
	free(copy);
}

static int
count(struct reader *r, const char *w)
{
	char *end;
	long v = strtol(w, &end, 10);

	if (*end || end == w || v < 0 || v > 1000000) {
		bad(r, "'%s' is not a count", w);
		return 0;
	}
	return (int)v;
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
			else if (strcmp(ws->w[i], "build") == 0)
				in->roles |= ROLE_BUILD;
			else if (strcmp(ws->w[i], "change") == 0)
				in->roles |= ROLE_CHANGE;
			else if (strcmp(ws->w[i], "ready") == 0)
				in->start = PH_READY;
			else
				bad(r, "intent: unknown role '%s' (code, build, change, ready)",
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
	} else if (strcmp(d, "requires") == 0) {
		struct gate_req *q;

		if (ws->n < 7) {
			bad(r, "requires: expected INTENTS RISKS SYMBOLS ENTRY_POINTS "
			    "FILES PATTERNS [SLOT...]");
			return;
		}
		g->reqs = cc_xrealloc(g->reqs, (g->nreqs + 1) * sizeof *g->reqs);
		q = &g->reqs[g->nreqs++];
		memset(q, 0, sizeof *q);
		add_list(&q->intents, ws->w[1]);
		add_list(&q->risks, ws->w[2]);
		for (size_t i = 0; i < q->intents.n; i++)
			if (intent_index(g, q->intents.v[i]) < 0)
				bad(r, "requires: unknown intent '%s'", q->intents.v[i]);
		for (size_t i = 0; i < q->risks.n; i++)
			if (strcmp(q->risks.v[i], "HIGH") && strcmp(q->risks.v[i], "MEDIUM") &&
			    strcmp(q->risks.v[i], "LOW"))
				bad(r, "requires: unknown risk '%s'", q->risks.v[i]);
		q->symbols = count(r, ws->w[3]);
		q->entry_points = count(r, ws->w[4]);
		q->files = count(r, ws->w[5]);
		q->patterns = count(r, ws->w[6]);
		for (int i = 7; i < ws->n; i++) {
			int s = gate_slot_parse(ws->w[i]);

			if (s < 0)
				bad(r, "requires: unknown slot '%s'", ws->w[i]);
			else
				q->slots |= 1u << s;
		}
	} else if (strcmp(d, "required-tools") == 0) {
		add_words(&g->required_tools, ws, 1);
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

static void
frame_line(struct cc_gate *g, struct reader *r, struct words *ws)
{
	const char *d = ws->w[0];

	if (strcmp(d, "synonym") == 0) {
		struct gate_synonym *s;

		if (ws->n < 3) {
			bad(r, "synonym: expected KEY TERM...");
			return;
		}
		g->synonyms = cc_xrealloc(g->synonyms, (g->nsynonyms + 1) * sizeof *g->synonyms);
		s = &g->synonyms[g->nsynonyms++];
		memset(s, 0, sizeof *s);
		s->key = cc_xstrdup(ws->w[1]);
		add_words(&s->terms, ws, 2);
	} else if (strcmp(d, "hint") == 0 || strcmp(d, "action") == 0) {
		int slot = ws->n >= 3 ? gate_slot_parse(ws->w[1]) : -1;
		int text = strcmp(d, "hint") == 0 ? 3 : 2;
		struct gate_hint *h;

		if (slot < 0 || ws->n <= text) {
			bad(r, "%s: expected SLOT %sTEXT", d, text == 3 ? "TOOL,... " : "");
			return;
		}
		h = &g->hints[slot];
		if (text == 3) {
			free(h->hint);
			strv_free(&h->tools);
			add_list(&h->tools, ws->w[2]);
			h->hint = cc_xstrdup(ws->rest[3]);
		} else {
			free(h->action);
			h->action = cc_xstrdup(ws->rest[2]);
		}
	} else if (strcmp(d, "prompt") == 0) {
		/* the text after "prompt " as it is, spaces and all */
		const char *t = ws->rest[0] + 6;

		if (*t == ' ')
			t++;
		cc_buf_add(&g->prompt, t, strlen(t));
		cc_buf_add(&g->prompt, "\n", 1);
	} else {
		bad(r, "unknown directive '%s'", d);
	}
}

static int
read_file(struct cc_gate *g, struct reader *r, int frame)
{
	FILE *f = fopen(r->path, "r");
	char *line = NULL, *copy;
	size_t cap = 0;
	ssize_t len;
	struct words ws;

	if (!f) {
		snprintf(r->err, r->errlen, "cannot open '%s': %s", r->path, strerror(errno));
		return -1;
	}
	while (!r->failed && (len = getline(&line, &cap, f)) >= 0) {
		r->line++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (memchr(line, '\0', (size_t)len)) {
			bad(r, "a NUL byte");
			break;
		}
		copy = cc_xstrdup(line);
		split_words(copy, &ws, line);
		if (ws.n > 0 && ws.w[0][0] != '#') {
			if (frame)
				frame_line(g, r, &ws);
			else
				conf_line(g, r, &ws);
		}
		free(copy);
	}
	free(line);
	fclose(f);
	return r->failed ? -1 : 0;
}

/* What a usable gate must have, checked once both files are read. */
static void
check(struct cc_gate *g, struct reader *r)
{
	for (int p = 0; p < PH_N; p++)
		if (!g->phase_all[p] && g->phase_tools[p].n == 0)
			bad(r, "no phase line for %s", gate_phase_names[p]);
	if (g->nintents == 0 || g->default_intent < 0)
		bad(r, "intents: need intent lines and an intent-default");
	if (g->nreqs == 0)
		bad(r, "no requires line");
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

static void
check_frame(struct cc_gate *g, struct reader *r)
{
	for (int s = 0; s < SLOT_N; s++)
		if (!g->hints[s].hint || !g->hints[s].action)
			bad(r, "no hint and action for %s", gate_slot_names[s]);
	if (g->prompt.len == 0)
		bad(r, "no prompt lines");
}

struct cc_gate *
cc_gate_load(const char *conf, const char *frame, char *err, size_t errlen)
{
	struct cc_gate *g = calloc(1, sizeof *g);
	struct reader r = { .path = conf, .err = err, .errlen = errlen };

	if (!g)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	g->default_intent = -1;
	if (read_file(g, &r, 0) < 0)
		goto fail;
	r.line = 0;
	check(g, &r);
	if (r.failed)
		goto fail;
	r = (struct reader){ .path = frame, .err = err, .errlen = errlen };
	if (read_file(g, &r, 1) < 0)
		goto fail;
	check_frame(g, &r);
	if (r.failed)
		goto fail;
	return g;
fail:
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
	for (size_t i = 0; i < g->nreqs; i++) {
		strv_free(&g->reqs[i].intents);
		strv_free(&g->reqs[i].risks);
	}
	free(g->reqs);
	strv_free(&g->required_tools);
	strv_free(&g->verification_tools);
	strv_free(&g->devrag_reasons);
	strv_free(&g->always_reasons);
	for (size_t i = 0; i < g->nreasons; i++) {
		free(g->reasons[i].key);
		strv_free(&g->reasons[i].reasons);
	}
	free(g->reasons);
	for (size_t i = 0; i < g->nsynonyms; i++) {
		free(g->synonyms[i].key);
		strv_free(&g->synonyms[i].terms);
	}
	free(g->synonyms);
	for (int s = 0; s < SLOT_N; s++) {
		free(g->hints[s].hint);
		free(g->hints[s].action);
		strv_free(&g->hints[s].tools);
	}
	cc_buf_release(&g->prompt);
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
