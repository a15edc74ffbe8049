/*
 * The QueryFrame rules the gate applies (seed 003, query_frame.py of the
 * original at v3.6): the quote's semantic consistency, the NL->symbol
 * relation with its synonym dictionary, the risk level, the missing slots,
 * the investigation guidance and the exploration requirements by risk.
 *
 * cc-frame(1) owns the QueryFrame; these are the gate's own copies of the
 * rules it needs to judge a submission, with the same Python semantics
 * (code points, str.lower(), str.split()).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_text.h"
#include "cc_gate_int.h"

#define MAX_SPLIT 4096		/* words compared by the word-overlap steps */

/* Words of s as a set test: does any word of a equal one of b? */
static int
words_meet(struct gs a, struct gs b)
{
	struct gs *wa = cc_xmalloc(MAX_SPLIT * sizeof *wa);
	struct gs *wb = cc_xmalloc(MAX_SPLIT * sizeof *wb);
	size_t na = py_split(a, wa, MAX_SPLIT), nb = py_split(b, wb, MAX_SPLIT);
	int meet = 0;

	for (size_t i = 0; i < na && !meet; i++)
		for (size_t k = 0; k < nb && !meet; k++)
			meet = wa[i].n == wb[k].n && memcmp(wa[i].s, wb[k].s, wa[i].n) == 0;
	free(wa);
	free(wb);
	return meet;
}

/* The particles the character overlap leaves out: が を に で は の と も */
static int
particle(int32_t c)
{
	return c == 0x304C || c == 0x3092 || c == 0x306B || c == 0x3067 ||
	    c == 0x306F || c == 0x306E || c == 0x3068 || c == 0x3082;
}

static size_t
drop_particles(int32_t *cp, size_t n)
{
	size_t u = 0;

	for (size_t i = 0; i < n; i++)
		if (!particle(cp[i]))
			cp[u++] = cp[i];
	return u;
}

int
gate_consistent(struct gs value, struct gs quote)
{
	size_t vn, qn, nv, nq, common = 0, i = 0, k = 0;
	char *v = py_lower(value, &vn), *q = py_lower(quote, &qn);
	struct gs vl = { v, vn }, ql = { q, qn };
	int32_t *vc = NULL, *qc = NULL;
	int ok;

	/* 1: either contains the other; 2: a word in common */
	if (py_in(vl, ql) || py_in(ql, vl) || words_meet(vl, ql)) {
		ok = 1;
		goto done;
	}
	/* 3: the characters, particles aside, overlap by half of the smaller set */
	nv = py_charset(vl, &vc);
	nv = drop_particles(vc, nv);
	nq = py_charset(ql, &qc);
	nq = drop_particles(qc, nq);
	if (nv == 0 || nq == 0) {
		ok = 0;
		goto done;
	}
	while (i < nv && k < nq) {
		if (vc[i] == qc[k]) {
			common++;
			i++;
			k++;
		} else if (vc[i] < qc[k]) {
			i++;
		} else {
			k++;
		}
	}
	ok = 2 * common >= (nv < nq ? nv : nq);	/* common / min >= 0.5 */
done:
	free(vc);
	free(qc);
	free(v);
	free(q);
	return ok;
}

/* s with every occurrence of `what` removed (str.replace(what, "")). */
static void
remove_all(struct cc_buf *out, struct gs s, const char *what)
{
	size_t wn = strlen(what), i = 0;

	out->len = 0;
	cc_buf_add(out, "", 0);
	while (i < s.n) {
		if (s.n - i >= wn && memcmp(s.s + i, what, wn) == 0) {
			i += wn;
			continue;
		}
		cc_buf_add(out, s.s + i, 1);
		i++;
	}
}

static int
any_term_in(const struct strv *terms, struct gs hay)
{
	for (size_t i = 0; i < terms->n; i++)
		if (py_in(GS(terms->v[i]), hay))
			return 1;
	return 0;
}

int
gate_related(const struct cc_gate *g, struct gs nl, struct gs sym)
{
	size_t nn, sn, nw;
	char *n = py_lower(nl, &nn), *s = py_lower(sym, &sn);
	struct gs nlow = { n, nn }, slow = { s, sn }, *w;
	struct cc_buf a = {0}, b = {0};
	int rel = 0;

	/* 1: either contains the other (so an empty symbol is always related) */
	if (py_in(nlow, slow) || py_in(slow, nlow)) {
		rel = 1;
		goto done;
	}
	/* 2: a word of two characters or more, 機能 and 処理 taken out first */
	remove_all(&a, nlow, "\xe6\xa9\x9f\xe8\x83\xbd");	/* 機能 */
	remove_all(&b, (struct gs){ a.data, a.len }, "\xe5\x87\xa6\xe7\x90\x86");	/* 処理 */
	w = cc_xmalloc(MAX_SPLIT * sizeof *w);
	nw = py_split((struct gs){ b.data, b.len }, w, MAX_SPLIT);
	for (size_t i = 0; i < nw && !rel; i++)
		rel = py_len(w[i]) >= 2 && py_in(w[i], slow);
	free(w);
	/* 3: a dictionary key in the term as written, one of its words in the symbol */
	for (size_t i = 0; i < g->nsynonyms && !rel; i++)
		rel = py_in(GS(g->synonyms[i].key), nl) &&
		    any_term_in(&g->synonyms[i].terms, slow);
	/* 4: a word of a group in the term, a word of the same group in the symbol */
	for (size_t i = 0; i < g->nsynonyms && !rel; i++)
		rel = any_term_in(&g->synonyms[i].terms, nlow) &&
		    any_term_in(&g->synonyms[i].terms, slow);
done:
	cc_buf_release(&a);
	cc_buf_release(&b);
	free(n);
	free(s);
	return rel;
}

const char *
gate_slot_value(jv frame, int slot, size_t *n)
{
	jv v;
	const char *s = NULL;

	if (jv_get_kind(frame) != JV_KIND_OBJECT)
		return NULL;
	v = jv_object_get(jv_copy(frame), jv_string(gate_slot_names[slot]));
	if (jv_get_kind(v) == JV_KIND_STRING && jv_string_length_bytes(jv_copy(v)) > 0) {
		s = jv_string_value(v);	/* the frame keeps it alive */
		if (n)
			*n = (size_t)jv_string_length_bytes(jv_copy(v));
	}
	jv_free(v);
	return s;
}

static int
has_hypothesis_slot(jv frame)
{
	jv src = jv_object_get(jv_copy(frame), jv_string("slot_source"));
	int found = 0;

	if (jv_get_kind(src) == JV_KIND_OBJECT) {
		jv_object_foreach(src, k, v) {
			if (jv_get_kind(v) == JV_KIND_STRING &&
			    strcmp(jv_string_value(v), "HYPOTHESIS") == 0)
				found = 1;
			jv_free(k);
			jv_free(v);
		}
	}
	jv_free(src);
	return found;
}

const char *
gate_risk(const struct cc_gate *g, jv frame, const struct gate_intent *in)
{
	size_t on = 0;
	const char *obs = gate_slot_value(frame, SLOT_OBSERVED, &on);
	int any = 0;

	(void)g;
	for (int s = 0; s < SLOT_N; s++)
		any |= gate_slot_value(frame, s, NULL) != NULL;
	/* 1: an action wanted with no problem observed, whatever the intent */
	if (gate_slot_value(frame, SLOT_DESIRED, NULL) && !obs)
		return "HIGH";
	/* 2: a change with no target */
	if (in && (in->roles & ROLE_CHANGE) && !gate_slot_value(frame, SLOT_TARGET, NULL))
		return "HIGH";
	/* 3: a build with nothing known */
	if (in && (in->roles & ROLE_BUILD) && !any)
		return "HIGH";
	/* 4: a problem told in under ten characters (code points) */
	if (obs && py_len((struct gs){ obs, on }) < 10)
		return "MEDIUM";
	/* 5: a slot still a hypothesis */
	if (jv_get_kind(frame) == JV_KIND_OBJECT && has_hypothesis_slot(frame))
		return "MEDIUM";
	return "LOW";
}

jv
gate_missing_slots(jv frame)
{
	jv m = jv_array();

	for (int s = 0; s < SLOT_N; s++)
		if (!gate_slot_value(frame, s, NULL))
			m = jv_array_append(m, jv_string(gate_slot_names[s]));
	return m;
}

jv
gate_guidance(const struct cc_gate *g, jv missing)
{
	jv hints = jv_array(), tools = jv_array(), out;
	struct strv seen = {0};
	int n = jv_array_length(jv_copy(missing));

	for (int i = 0; i < n; i++) {
		jv name = jv_array_get(jv_copy(missing), i);
		int s = jv_get_kind(name) == JV_KIND_STRING ?
		    gate_slot_parse(jv_string_value(name)) : -1;
		const struct gate_hint *h;

		jv_free(name);
		if (s < 0)
			continue;
		h = &g->hints[s];
		hints = jv_array_append(hints, jv_object_set(jv_object_set(jv_object_set(
		    jv_object(), jv_string("slot"), jv_string(gate_slot_names[s])),
		    jv_string("hint"), jv_string(h->hint)),
		    jv_string("action"), jv_string(h->action)));
		for (size_t k = 0; k < h->tools.n; k++) {
			if (strv_has(&seen, h->tools.v[k]))
				continue;
			strv_add(&seen, h->tools.v[k]);
			tools = jv_array_append(tools, jv_string(h->tools.v[k]));
		}
	}
	strv_free(&seen);
	out = jv_object_set(jv_object(), jv_string("missing_slots"), jv_copy(missing));
	out = jv_object_set(out, jv_string("hints"), hints);
	return jv_object_set(out, jv_string("recommended_tools"), tools);
}

const struct gate_intent *
gate_intent_find(const struct cc_gate *g, const char *name)
{
	for (size_t i = 0; name && i < g->nintents; i++)
		if (strcmp(g->intents[i].name, name) == 0)
			return &g->intents[i];
	return NULL;
}

const struct gate_req *
gate_requirements(const struct cc_gate *g, const char *risk, const struct gate_intent *in)
{
	for (size_t i = 0; i < g->nreqs; i++) {
		const struct gate_req *q = &g->reqs[i];

		if (q->intents.n && !(in && strv_has(&q->intents, in->name)))
			continue;
		if (q->risks.n && !(risk && strv_has(&q->risks, risk)))
			continue;
		return q;
	}
	return &g->reqs[g->nreqs - 1];
}

jv
gate_requirements_json(const struct cc_gate *g, const struct gate_req *r)
{
	jv slots = jv_array(), tools = jv_array(), o = jv_object();

	for (int s = 0; s < SLOT_N; s++)
		if (r->slots & (1u << s))
			slots = jv_array_append(slots, jv_string(gate_slot_names[s]));
	for (size_t i = 0; i < g->required_tools.n; i++)
		tools = jv_array_append(tools, jv_string(g->required_tools.v[i]));
	o = jv_object_set(o, jv_string("symbols_identified"), jv_number(r->symbols));
	o = jv_object_set(o, jv_string("entry_points"), jv_number(r->entry_points));
	o = jv_object_set(o, jv_string("files_analyzed"), jv_number(r->files));
	o = jv_object_set(o, jv_string("existing_patterns"), jv_number(r->patterns));
	o = jv_object_set(o, jv_string("required_slot_evidence"), slots);
	return jv_object_set(o, jv_string("required_tools"), tools);
}
