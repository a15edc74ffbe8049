/*
 * The QueryFrame as a session holds it (a JSON object: each slot's value,
 * slot_source, slot_evidence, ...), put to the rules cc-frame(1) applies:
 * cc_qframe's risk, cc_synonyms' NL->symbol relation, cc_explore's
 * guidance and requirements.  One set of rules and one set of data for
 * both programs; what is here only reads the session's JSON.
 */
#include "config.h"

#include <string.h>

#include "cc_gate_int.h"

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

/* The frame's slots and HYPOTHESIS marks as cc_qframe takes them; borrows frame. */
static void
qframe_of(jv frame, struct cc_qframe *f)
{
	jv src = jv_get_kind(frame) == JV_KIND_OBJECT ?
	    jv_object_get(jv_copy(frame), jv_string("slot_source")) : jv_null();

	memset(f, 0, sizeof *f);
	for (int s = 0; s < SLOT_N; s++) {
		f->value[s] = gate_slot_value(frame, s, &f->len[s]);
		if (!f->value[s])
			f->len[s] = 0;
	}
	if (jv_get_kind(src) == JV_KIND_OBJECT) {
		jv_object_foreach(src, k, v) {
			int s = cc_qframe_slot(jv_string_value(k),
			    (size_t)jv_string_length_bytes(jv_copy(k)));

			/* a mark on any key counts, as the original's any() over the dict */
			if (jv_get_kind(v) == JV_KIND_STRING &&
			    strcmp(jv_string_value(v), "HYPOTHESIS") == 0)
				f->hypothesis[s >= 0 ? s : 0] = 1;
			jv_free(k);
			jv_free(v);
		}
	}
	jv_free(src);
}

const char *
gate_risk(jv frame, const struct gate_intent *in)
{
	struct cc_qframe f;

	qframe_of(frame, &f);
	return cc_qframe_risk(&f, in ? in->name : NULL);
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
	int marked[CC_QF_NSLOTS] = {0};
	jv out, guide;

	jv_array_foreach(missing, i, name) {
		int s = jv_get_kind(name) == JV_KIND_STRING ?
		    gate_slot_parse(jv_string_value(name)) : -1;

		if (s >= 0)
			marked[s] = 1;
		jv_free(name);
	}
	out = jv_object_set(jv_object(), jv_string("missing_slots"), jv_copy(missing));
	guide = cc_explore_guidance_jv(g->explore, marked);
	jv_object_foreach(guide, k, v)
		out = jv_object_set(out, k, v);
	jv_free(guide);
	return out;
}

jv
gate_requirements(const struct cc_gate *g, const char *risk, const struct gate_intent *in)
{
	return cc_explore_requirements_jv(g->explore, in ? in->name : NULL, risk);
}

int
gate_requirement(jv req, const char *key)
{
	jv v = jv_object_get(jv_copy(req), jv_string(key));
	int n = jv_get_kind(v) == JV_KIND_NUMBER ? (int)jv_number_value(v) : 0;

	jv_free(v);
	return n;
}

int
gate_related(const struct cc_gate *g, struct gs nl, struct gs sym)
{
	return cc_synonyms_related(g->synonyms, nl.s ? nl.s : "", nl.n,
	    sym.s ? sym.s : "", sym.n) != 0;
}

const struct gate_intent *
gate_intent_find(const struct cc_gate *g, const char *name)
{
	for (size_t i = 0; name && i < g->nintents; i++)
		if (strcmp(g->intents[i].name, name) == 0)
			return &g->intents[i];
	return NULL;
}
