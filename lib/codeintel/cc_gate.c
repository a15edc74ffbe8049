/*
 * The phase gate's tools (seed 003; code_intel_server.py and
 * tools/session.py of the original at v3.6), as functions of their
 * arguments and the session's state.
 *
 * The session's state is one JSON object (cc-gate(1), SESSION STATE);
 * a stored state is read with kind checks everywhere, since libjq 1.6
 * aborts on a kind mismatch and a stored text may have been damaged.
 *
 * Beyond the original, wired as its design says: slot evidence from the
 * submitted exploration, HYPOTHESIS and FACT transitions of the slots,
 * validate_for_ready before every way into READY, the DecisionLog and the
 * OutcomeLog; and, with a repository, evidence checked instead of trusted.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_gate_int.h"

/* ---- jv helpers: they borrow, never assert on a kind ---- */

/* Member k of o (owned), jv_null() when o is no object or has none. */
static jv
get(jv o, const char *k)
{
	jv v;

	if (jv_get_kind(o) != JV_KIND_OBJECT)
		return jv_null();
	v = jv_object_get(jv_copy(o), jv_string(k));
	if (!jv_is_valid(v)) {
		jv_free(v);
		return jv_null();
	}
	return v;
}

/* Member k as a C string, or NULL; valid while o holds it unchanged. */
static const char *
gstr(jv o, const char *k)
{
	jv v = get(o, k);
	const char *s = jv_get_kind(v) == JV_KIND_STRING ? jv_string_value(v) : NULL;

	jv_free(v);
	return s;
}

static struct gs
view(jv s)
{
	if (jv_get_kind(s) != JV_KIND_STRING)
		return (struct gs){ "", 0 };
	return (struct gs){ jv_string_value(s), (size_t)jv_string_length_bytes(jv_copy(s)) };
}

static jv
set(jv o, const char *k, jv v)
{
	return jv_object_set(o, jv_string(k), v);
}

/* The strings of an array member (owned array; non-strings dropped). */
static jv
strings(jv o, const char *k)
{
	jv a = get(o, k), out = jv_array();

	if (jv_get_kind(a) == JV_KIND_ARRAY) {
		jv_array_foreach(a, i, e) {
			if (jv_get_kind(e) == JV_KIND_STRING)
				out = jv_array_append(out, e);
			else
				jv_free(e);
		}
	}
	jv_free(a);
	return out;
}

static int
jlen(jv a)
{
	return jv_get_kind(a) == JV_KIND_ARRAY ? jv_array_length(jv_copy(a)) : 0;
}

static int
has_string(jv a, const char *s)
{
	int found = 0;

	if (jv_get_kind(a) != JV_KIND_ARRAY)
		return 0;
	jv_array_foreach(a, i, e) {
		if (jv_get_kind(e) == JV_KIND_STRING && strcmp(jv_string_value(e), s) == 0)
			found = 1;
		jv_free(e);
	}
	return found;
}

/* A formatted string as a jv. */
static jv
vfmt(const char *f, va_list ap)
{
	char *s = NULL;
	int n = vasprintf(&s, f, ap);
	jv v;

	if (n < 0)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	v = jv_string_sized(s, n);
	free(s);
	return v;
}

static jv
fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static jv
fmt(const char *f, ...)
{
	va_list ap;
	jv v;

	va_start(ap, f);
	v = vfmt(f, ap);
	va_end(ap);
	return v;
}

/* v itself when a string, else the string def (borrows v). */
static jv
str_or(jv v, const char *def)
{
	return jv_get_kind(v) == JV_KIND_STRING ? jv_copy(v) : jv_string(def);
}

static jv
buf_str(struct cc_buf *b)
{
	jv v = jv_string_sized(b->data ? b->data : "", (int)b->len);

	cc_buf_release(b);
	return v;
}

static jv
strv_json(const struct strv *l)
{
	jv a = jv_array();

	for (size_t i = 0; i < l->n; i++)
		a = jv_array_append(a, jv_string(l->v[i]));
	return a;
}

static void
iso_time(time_t t, char *out, size_t n)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static jv
iso(time_t t)
{
	char s[32];

	iso_time(t, s, sizeof s);
	return jv_string(s);
}

/* ---- answers ---- */

static jv
error_answer(const char *code, jv message)
{
	return set(set(jv_object(), "error", jv_string(code)), "message", message);
}

static jv
bad_args(const char *f, ...) __attribute__((format(printf, 1, 2)));
static jv
bad_args(const char *f, ...)
{
	va_list ap;
	jv v;

	va_start(ap, f);
	v = vfmt(f, ap);
	va_end(ap);
	return error_answer("invalid_arguments", v);
}

int
cc_gate_is_error(jv a)
{
	jv e = get(a, "error"), allowed = get(a, "allowed");
	int is = jv_get_kind(e) == JV_KIND_STRING && jv_get_kind(allowed) == JV_KIND_NULL;

	jv_free(e);
	jv_free(allowed);
	return is;
}

static jv
no_session(int long_form)
{
	return error_answer("no_active_session", jv_string(long_form ?
	    "No active session. Use start_session first." : "No active session."));
}

/* ---- arguments ---- */

struct args {
	jv a;		/* the arguments object, borrowed */
	jv err;		/* the first problem's answer, or jv_invalid() */
};

static const char *
kind_name(jv_kind k)
{
	switch (k) {
	case JV_KIND_NULL: return "null";
	case JV_KIND_TRUE: case JV_KIND_FALSE: return "a boolean";
	case JV_KIND_NUMBER: return "a number";
	case JV_KIND_STRING: return "a string";
	case JV_KIND_ARRAY: return "an array";
	case JV_KIND_OBJECT: return "an object";
	default: return "invalid";
	}
}

static int
failed(struct args *x)
{
	return jv_is_valid(x->err);
}

/*
 * Member `name` of kind `want` (for booleans JV_KIND_TRUE stands for
 * both): jv_null() when absent or null.  A string holding JSON of the
 * kind wanted is taken for it: some MCP clients send arrays, objects and
 * booleans as JSON text.  Another kind sets x->err.
 */
static jv
arg(struct args *x, const char *name, jv_kind want)
{
	jv v = get(x->a, name);
	jv_kind k = jv_get_kind(v);

	if (failed(x) || k == JV_KIND_NULL) {
		jv_free(v);
		return jv_null();
	}
	if (k == JV_KIND_FALSE)
		k = JV_KIND_TRUE;
	if (k != want && k == JV_KIND_STRING && want != JV_KIND_STRING) {
		struct gs s = view(v);
		jv p = cc_json_parse(s.s, s.n);
		jv_kind pk = jv_get_kind(p);

		if (pk == JV_KIND_FALSE)
			pk = JV_KIND_TRUE;
		if (pk == want) {
			jv_free(v);
			return p;
		}
		jv_free(p);
	}
	if (k != want) {
		x->err = bad_args("argument '%s' must be %s, not %s", name,
		    want == JV_KIND_TRUE ? "a boolean" : kind_name(want), kind_name(k));
		jv_free(v);
		return jv_null();
	}
	return v;
}

/* A string member, at most max bytes; jv_null() when absent (required: an error). */
static jv
arg_str(struct args *x, const char *name, int required, size_t max)
{
	jv v = arg(x, name, JV_KIND_STRING);

	if (failed(x))
		return v;
	if (jv_get_kind(v) == JV_KIND_NULL) {
		if (required)
			x->err = bad_args("argument '%s' is required", name);
		return v;
	}
	if ((size_t)jv_string_length_bytes(jv_copy(v)) > max) {
		x->err = bad_args("argument '%s' is too long (%d bytes; at most %zu)", name,
		    jv_string_length_bytes(jv_copy(v)), max);
		jv_free(v);
		return jv_null();
	}
	return v;
}

/* An array of at most CC_GATE_MAX_ITEMS items: [] when absent or refused. */
static jv
arg_items(struct args *x, const char *name)
{
	jv v = arg(x, name, JV_KIND_ARRAY);
	int n;

	if (failed(x) || jv_get_kind(v) != JV_KIND_ARRAY) {
		jv_free(v);
		return jv_array();
	}
	n = jv_array_length(jv_copy(v));
	if (n > CC_GATE_MAX_ITEMS) {
		x->err = bad_args("argument '%s' has %d items; at most %d", name, n,
		    CC_GATE_MAX_ITEMS);
		jv_free(v);
		return jv_array();
	}
	return v;
}

/* An array of strings, each at most max bytes: [] when absent. */
static jv
arg_strings(struct args *x, const char *name, size_t max)
{
	jv v = arg_items(x, name);
	int n = jv_array_length(jv_copy(v));

	for (int i = 0; i < n && !failed(x); i++) {
		jv e = jv_array_get(jv_copy(v), i);

		if (jv_get_kind(e) != JV_KIND_STRING)
			x->err = bad_args("argument '%s' must be an array of strings "
			    "(item %d is %s)", name, i + 1, kind_name(jv_get_kind(e)));
		else if ((size_t)jv_string_length_bytes(jv_copy(e)) > max)
			x->err = bad_args("argument '%s': item %d is too long (at most "
			    "%zu bytes)", name, i + 1, max);
		jv_free(e);
	}
	if (failed(x)) {
		jv_free(v);
		return jv_array();
	}
	return v;
}

static int
arg_bool(struct args *x, const char *name, int def)
{
	jv v = arg(x, name, JV_KIND_TRUE);
	int b = jv_get_kind(v) == JV_KIND_NULL ? def : jv_get_kind(v) == JV_KIND_TRUE;

	jv_free(v);
	return b;
}

static jv
arg_obj(struct args *x, const char *name)
{
	return arg(x, name, JV_KIND_OBJECT);
}

/* The arguments must be an object; *x is set up to read them. */
static int
args_begin(struct args *x, jv args)
{
	x->a = args;
	x->err = jv_invalid();
	if (jv_get_kind(args) != JV_KIND_OBJECT) {
		x->err = bad_args("the arguments must be an object, not %s",
		    kind_name(jv_get_kind(args)));
		return -1;
	}
	return 0;
}

/* ---- the session ---- */

static int
phase_of(jv s)
{
	const char *p = gstr(s, "phase");
	int ph = p ? gate_phase_parse(p) : -1;

	return ph < 0 ? PH_EXPLORATION : ph;
}

static const struct gate_intent *
intent_of(const struct cc_gate *g, jv s)
{
	const struct gate_intent *in = gate_intent_find(g, gstr(s, "intent"));

	return in ? in : &g->intents[g->default_intent];
}

/* The session's risk, as a static string (it outlives changes to the session). */
static const char *
risk_of(jv s)
{
	const char *r = gstr(s, "risk_level");

	if (r && strcmp(r, "HIGH") == 0)
		return "HIGH";
	return r && strcmp(r, "MEDIUM") == 0 ? "MEDIUM" : "LOW";
}

static jv
allowed_tools(const struct cc_gate *g, int ph)
{
	jv a;

	if (g->phase_all[ph])
		return jv_array_append(jv_array(), jv_string("*"));
	a = strv_json(&g->phase_tools[ph]);
	return a;
}

static int
tool_allowed(const struct cc_gate *g, int ph, const char *tool)
{
	return g->phase_all[ph] || strv_has(&g->phase_tools[ph], tool);
}

static jv
phase_name(int ph)
{
	return jv_string(gate_phase_names[ph]);
}

/* A phase change, in the session's history. */
static jv
transition(jv s, int from, int to, const char *tool, jv detail, time_t now)
{
	jv h = get(s, "phase_history"), e = jv_object();

	if (jv_get_kind(h) != JV_KIND_ARRAY) {
		jv_free(h);
		h = jv_array();
	}
	e = set(e, "from", phase_name(from));
	e = set(e, "to", phase_name(to));
	e = set(e, "tool", jv_string(tool));
	e = set(e, "timestamp", iso(now));
	if (jv_get_kind(detail) == JV_KIND_OBJECT) {
		jv_object_foreach(detail, k, v)
			e = jv_object_set(e, k, v);
	}
	jv_free(detail);
	h = jv_array_append(h, e);
	s = set(s, "phase_history", h);
	return set(s, "phase", phase_name(to));
}

/* The frame's slot sources, each slot in order: (slot, source) pairs. */
static const char *
slot_source(jv frame, int slot)
{
	jv src = get(frame, "slot_source");
	const char *v = gstr(src, gate_slot_names[slot]);

	jv_free(src);
	return v;
}

static jv
set_slot_source(jv frame, int slot, const char *source)
{
	jv src = get(frame, "slot_source");

	if (jv_get_kind(src) != JV_KIND_OBJECT) {
		jv_free(src);
		src = jv_object();
	}
	src = set(src, gate_slot_names[slot], jv_string(source));
	return set(frame, "slot_source", src);
}

static jv
set_slot_evidence(jv frame, int slot, jv ev)
{
	jv all = get(frame, "slot_evidence");

	if (jv_get_kind(all) != JV_KIND_OBJECT) {
		jv_free(all);
		all = jv_object();
	}
	all = set(all, gate_slot_names[slot], ev);
	return set(frame, "slot_evidence", all);
}

static int
has_slot_evidence(jv frame, int slot)
{
	jv all = get(frame, "slot_evidence"), e = get(all, gate_slot_names[slot]);
	int has = jv_get_kind(e) == JV_KIND_OBJECT;

	jv_free(all);
	jv_free(e);
	return has;
}

/* validate_for_ready(frame): what keeps the session from READY. */
static jv
validate_for_ready(jv frame)
{
	jv errors = jv_array(), syms = get(frame, "mapped_symbols"), names = jv_array();

	if (jv_get_kind(frame) != JV_KIND_OBJECT) {
		jv_free(syms);
		jv_free(names);
		return errors;
	}
	for (int s = 0; s < SLOT_N; s++) {
		const char *src = slot_source(frame, s);

		if (src && strcmp(src, "HYPOTHESIS") == 0)
			errors = jv_array_append(errors, fmt("Slot '%s' is still HYPOTHESIS. "
			    "Must verify with code intel tools first.", gate_slot_names[s]));
	}
	if (jv_get_kind(syms) == JV_KIND_ARRAY) {
		jv_array_foreach(syms, i, m) {
			const char *src = gstr(m, "source");
			jv name = get(m, "name");

			if (src && strcmp(src, "HYPOTHESIS") == 0 &&
			    jv_get_kind(name) == JV_KIND_STRING)
				names = jv_array_append(names, jv_copy(name));
			jv_free(name);
			jv_free(m);
		}
	}
	if (jlen(names)) {
		struct cc_buf b = {0};

		cc_buf_add(&b, "Symbols ", 8);
		py_repr_list(&b, names);
		cc_buf_add(&b, " are still HYPOTHESIS. Must verify with code intel tools first.",
		    63);
		errors = jv_array_append(errors, buf_str(&b));
	}
	jv_free(names);
	jv_free(syms);
	return errors;
}

/* The slots as the DecisionLog and the status show them. */
static jv
frame_dict(const struct cc_gate *g, jv frame)
{
	jv d, missing, hyp;

	if (jv_get_kind(frame) != JV_KIND_OBJECT)
		return jv_null();
	d = jv_object();
	hyp = jv_array();
	d = set(d, "raw_query", get(frame, "raw_query"));
	for (int s = 0; s < SLOT_N; s++) {
		const char *src = slot_source(frame, s);

		d = set(d, gate_slot_names[s], get(frame, gate_slot_names[s]));
		if (src && strcmp(src, "HYPOTHESIS") == 0)
			hyp = jv_array_append(hyp, jv_string(gate_slot_names[s]));
	}
	missing = gate_missing_slots(frame);
	d = set(d, "mapped_symbols", get(frame, "mapped_symbols"));
	d = set(d, "slot_source", get(frame, "slot_source"));
	d = set(d, "slot_evidence", get(frame, "slot_evidence"));
	d = set(d, "slot_quotes", get(frame, "slot_quotes"));
	d = set(d, "missing_slots", missing);
	(void)g;
	return set(d, "hypothesis_slots", hyp);
}

/* ---- the DecisionLog ---- */

static jv
transitions(jv s)
{
	jv h = get(s, "phase_history"), out = jv_array();

	if (jv_get_kind(h) == JV_KIND_ARRAY) {
		jv_array_foreach(h, i, e) {
			const char *f = gstr(e, "from"), *t = gstr(e, "to");

			if (f && t)
				out = jv_array_append(out, fmt("%s->%s", f, t));
			jv_free(e);
		}
	}
	jv_free(h);
	return out;
}

static void
log_line(struct cc_gate_ctx *c, const char *log, jv line)
{
	if (jv_get_kind(c->logs) != JV_KIND_ARRAY) {
		jv_free(line);
		return;
	}
	c->logs = jv_array_append(c->logs, set(set(jv_object(), "log", jv_string(log)),
	    "line", line));
}

/*
 * One decision of the gate (the original's DecisionLog, v3.6 fields
 * filled): what was asked, the frame and risk it was judged with, the
 * phase before and after, and the answer given.  The session counts its
 * decisions so record ids never repeat.
 */
static void
log_decision(struct cc_gate_ctx *c, jv *s, const char *tool, int before, jv answer,
    time_t now)
{
	const struct cc_gate *g = c->gate;
	const struct gate_intent *in = intent_of(g, *s);
	jv seq = get(*s, "decisions"), frame = get(*s, "query_frame"), line = jv_object();
	jv intent = jv_object(), missing = gate_missing_slots(frame), guide;
	int n = jv_get_kind(seq) == JV_KIND_NUMBER ? (int)jv_number_value(seq) + 1 : 1;
	char ts[32];

	jv_free(seq);
	iso_time(now, ts, sizeof ts);
	*s = set(*s, "decisions", jv_number(n));
	intent = set(intent, "type", get(*s, "intent"));
	intent = set(intent, "requires_code_understanding", jv_bool(in->roles & ROLE_CODE));
	intent = set(intent, "required_phases", strv_json(&in->required_phases));
	guide = jv_get_kind(frame) == JV_KIND_OBJECT ? gate_guidance(g, missing) : jv_null();
	line = set(line, "record_id", fmt("decision_%s_%s_%d%s%s", gstr(*s, "session_id") ?
	    gstr(*s, "session_id") : "", ts, n, c->nonce ? "_" : "", c->nonce ? c->nonce : ""));
	line = set(line, "session_id", get(*s, "session_id"));
	line = set(line, "timestamp", jv_string(ts));
	line = set(line, "tool", jv_string(tool));
	line = set(line, "query", get(*s, "query"));
	line = set(line, "intent", intent);
	line = set(line, "query_frame", frame_dict(g, frame));
	line = set(line, "missing_slots", jv_get_kind(frame) == JV_KIND_OBJECT ?
	    jv_copy(missing) : jv_array());
	line = set(line, "risk_level", jv_string(risk_of(*s)));
	line = set(line, "slot_based_tools", jv_get_kind(guide) == JV_KIND_OBJECT ?
	    get(guide, "recommended_tools") : jv_array());
	line = set(line, "phase_before", phase_name(before));
	line = set(line, "final_phase", phase_name(phase_of(*s)));
	line = set(line, "phase_transitions", transitions(*s));
	line = set(line, "decision", jv_copy(answer));
	log_line(c, "decisions", line);
	jv_free(guide);
	jv_free(missing);
	jv_free(frame);
}

/* ---- start_session ---- */

/* The extraction prompt of cc-frame, the query after it. */
static jv
extraction_prompt(jv query)
{
	struct cc_buf b = {0};
	struct gs q = view(query);

	cc_buf_add(&b, cc_qframe_prompt, strlen(cc_qframe_prompt));
	cc_buf_add(&b, q.s, q.n);
	return buf_str(&b);
}

jv
cc_gate_start_session(struct cc_gate_ctx *c, jv args, jv *session, time_t now)
{
	const struct cc_gate *g = c->gate;
	const struct gate_intent *in;
	struct args x;
	jv intent, query, s, r, qf;
	char *upper, id[64];
	const char *sid = c->session_id;
	int replaced = jv_get_kind(*session) != JV_KIND_NULL && jv_is_valid(*session);

	if (args_begin(&x, args) < 0)
		return x.err;
	intent = arg_str(&x, "intent", 1, 64);
	query = arg_str(&x, "query", 1, CC_GATE_MAX_TEXT);
	if (failed(&x)) {
		jv_free(intent);
		jv_free(query);
		return x.err;
	}
	/* the router's normalisation: upper case; a name it does not know is the default */
	upper = gate_upper(jv_string_value(intent));
	in = gate_intent_find(g, upper);
	free(upper);
	if (!in)
		in = &g->intents[g->default_intent];
	if (!sid) {
		struct tm tm;

		/* the original's id: session_YYYYMMDD_HHMMSS */
		gmtime_r(&now, &tm);
		strftime(id, sizeof id, "session_%Y%m%d_%H%M%S", &tm);
		sid = id;
	}
	s = jv_object();
	s = set(s, "v", jv_number(1));
	s = set(s, "session_id", jv_string(sid));
	s = set(s, "intent", jv_string(in->name));
	s = set(s, "query", jv_copy(query));
	s = set(s, "created_at", iso(now));
	s = set(s, "phase", phase_name(in->start));
	s = set(s, "risk_level", jv_string("LOW"));
	s = set(s, "query_frame", jv_null());
	s = set(s, "exploration", jv_null());
	s = set(s, "semantic", jv_null());
	s = set(s, "verification", jv_null());
	s = set(s, "tools_used", jv_array());
	s = set(s, "tool_calls", jv_array());
	s = set(s, "tool_calls_count", jv_number(0));
	s = set(s, "phase_history", jv_array());
	s = set(s, "decisions", jv_number(0));
	s = set(s, "outcomes", jv_array());

	qf = jv_object();
	qf = set(qf, "status", jv_string("pending"));
	qf = set(qf, "extraction_prompt", extraction_prompt(query));
	qf = set(qf, "next_step", jv_string("Extract slots from query using the prompt, "
	    "then call set_query_frame."));
	r = jv_object();
	r = set(r, "success", jv_true());
	r = set(r, "session_id", jv_string(sid));
	r = set(r, "intent", jv_string(in->name));
	if (strcmp(in->name, jv_string_value(intent)) != 0)
		r = set(r, "intent_given", jv_copy(intent));
	r = set(r, "current_phase", phase_name(in->start));
	r = set(r, "allowed_tools", allowed_tools(g, in->start));
	r = set(r, "message", fmt("Session started. Phase: %s", gate_phase_names[in->start]));
	if (replaced)
		r = set(r, "replaced_session", jv_true());
	r = set(r, "query_frame", qf);
	if (in->start == PH_EXPLORATION)
		r = set(r, "exploration_hint", jv_string(gate_text(g, "exploration_hint")));
	jv_free(*session);
	*session = s;
	log_decision(c, session, "start_session", in->start, r, now);
	jv_free(intent);
	jv_free(query);
	return r;
}

/* ---- set_query_frame ---- */

jv
cc_gate_set_query_frame(struct cc_gate_ctx *c, jv args, jv *session, time_t now)
{
	const struct cc_gate *g = c->gate;
	struct args x;
	jv errors = jv_array(), validated = jv_array(), frame, sources = jv_object();
	jv quotes = jv_object(), slots[SLOT_N], r, exp, missing, guide, qf, query;
	struct gs raw;
	const char *risk;
	struct cc_buf b = {0};
	int ph;

	if (args_begin(&x, args) < 0) {
		jv_free(errors);
		jv_free(validated);
		jv_free(sources);
		jv_free(quotes);
		return x.err;
	}
	for (int s = 0; s < SLOT_N; s++)
		slots[s] = arg_obj(&x, gate_slot_names[s]);
	for (int s = 0; s < SLOT_N && !failed(&x); s++) {
		jv v = get(slots[s], "value"), q = get(slots[s], "quote");

		if ((jv_get_kind(v) != JV_KIND_STRING && jv_get_kind(v) != JV_KIND_NULL) ||
		    (jv_get_kind(q) != JV_KIND_STRING && jv_get_kind(q) != JV_KIND_NULL))
			x.err = bad_args("argument '%s': value and quote must be strings",
			    gate_slot_names[s]);
		else if ((size_t)view(v).n > CC_GATE_MAX_NAME || view(q).n > CC_GATE_MAX_NAME)
			x.err = bad_args("argument '%s': value or quote too long (at most "
			    "%d bytes)", gate_slot_names[s], CC_GATE_MAX_NAME);
		jv_free(v);
		jv_free(q);
	}
	if (failed(&x) || jv_get_kind(*session) != JV_KIND_OBJECT) {
		for (int s = 0; s < SLOT_N; s++)
			jv_free(slots[s]);
		jv_free(errors);
		jv_free(validated);
		jv_free(sources);
		jv_free(quotes);
		return failed(&x) ? x.err : no_session(1);
	}
	/*
	 * Once the exploration is submitted the frame is what it was judged
	 * by: a new one would re-rate the risk after the fact and clear the
	 * HYPOTHESIS marks.  (The original took a frame at any time.)
	 */
	exp = get(*session, "exploration");
	if (jv_get_kind(exp) == JV_KIND_OBJECT) {
		jv_free(exp);
		for (int s = 0; s < SLOT_N; s++)
			jv_free(slots[s]);
		jv_free(errors);
		jv_free(validated);
		jv_free(sources);
		jv_free(quotes);
		r = set(jv_object(), "success", jv_false());
		r = set(r, "error", jv_string("frame_locked"));
		return set(r, "message", jv_string("The QueryFrame cannot be changed after "
		    "submit_understanding: the exploration was judged by the frame set before it."));
	}
	jv_free(exp);
	ph = phase_of(*session);
	query = get(*session, "query");
	raw = view(query);
	frame = set(jv_object(), "raw_query", jv_copy(query));
	for (int s = 0; s < SLOT_N; s++) {
		jv v, q;
		struct gs vs, qs;

		if (jv_get_kind(slots[s]) == JV_KIND_NULL) {
			frame = set(frame, gate_slot_names[s], jv_null());
			continue;
		}
		v = get(slots[s], "value");
		q = get(slots[s], "quote");
		vs = view(v);
		qs = view(q);
		/* validate_slot: a value; a quote in the query; the two consistent */
		if (cc_qframe_validate(vs.s, vs.n, qs.s, qs.n, raw.s, raw.n) != CC_QF_VALID) {
			jv e = set(jv_object(), "slot", jv_string(gate_slot_names[s]));
			jv q_given = get(slots[s], "quote");
			/* f"quote '{slot_data.get('quote', '')}'": null shows as None */
			int has_q = jv_object_has(jv_copy(slots[s]), jv_string("quote"));
			e = set(e, "error", jv_get_kind(q_given) == JV_KIND_STRING ?
			    fmt("quote '%s' not found in query or semantically inconsistent",
			    jv_string_value(q_given)) :
			    fmt("quote '%s' not found in query or semantically inconsistent",
			    has_q ? "None" : ""));
			jv_free(q_given);
			errors = jv_array_append(errors, e);
			frame = set(frame, gate_slot_names[s], jv_null());
		} else {
			frame = set(frame, gate_slot_names[s], jv_copy(v));
			quotes = set(quotes, gate_slot_names[s], jv_copy(q));
			sources = set(sources, gate_slot_names[s], jv_string("FACT"));
			validated = jv_array_append(validated, jv_string(gate_slot_names[s]));
		}
		jv_free(v);
		jv_free(q);
	}
	for (int s = 0; s < SLOT_N; s++)
		jv_free(slots[s]);
	jv_free(query);
	if (jlen(errors)) {
		jv_free(frame);
		jv_free(validated);
		jv_free(sources);
		jv_free(quotes);
		r = set(jv_object(), "success", jv_false());
		r = set(r, "error", jv_string("validation_failed"));
		r = set(r, "validation_errors", errors);
		r = set(r, "message", jv_string("Some slot validations failed. Check quotes "
		    "match original query."));
		log_decision(c, session, "set_query_frame", ph, r, now);
		return r;
	}
	jv_free(errors);
	frame = set(frame, "mapped_symbols", jv_array());
	frame = set(frame, "slot_source", jv_copy(sources));
	frame = set(frame, "slot_evidence", jv_object());
	frame = set(frame, "slot_quotes", quotes);
	risk = gate_risk(frame, intent_of(g, *session));
	missing = gate_missing_slots(frame);
	guide = gate_guidance(g, missing);
	*session = set(*session, "query_frame", jv_copy(frame));
	*session = set(*session, "risk_level", jv_string(risk));

	qf = jv_object();
	qf = set(qf, "raw_query", get(frame, "raw_query"));
	for (int s = 0; s < SLOT_N; s++)
		qf = set(qf, gate_slot_names[s], get(frame, gate_slot_names[s]));
	qf = set(qf, "validated_slots", validated);
	qf = set(qf, "slot_sources", sources);
	r = set(jv_object(), "success", jv_true());
	r = set(r, "query_frame", qf);
	r = set(r, "risk_level", jv_string(risk));
	r = set(r, "missing_slots", jv_copy(missing));
	r = set(r, "investigation_guidance", guide);
	r = set(r, "exploration_requirements", gate_requirements(g, risk,
	    intent_of(g, *session)));
	cc_buf_add(&b, "QueryFrame set. Risk level: ", 28);
	cc_buf_add(&b, risk, strlen(risk));
	cc_buf_add(&b, ". Missing slots: ", 17);
	py_repr_list(&b, missing);
	r = set(r, "message", buf_str(&b));
	jv_free(missing);
	jv_free(frame);
	log_decision(c, session, "set_query_frame", ph, r, now);
	return r;
}

/* ---- get_session_status ---- */

jv
cc_gate_get_session_status(struct cc_gate_ctx *c, jv args, jv *session, time_t now)
{
	const struct cc_gate *g = c->gate;
	jv r, f, s = *session;
	int ph;

	(void)now;
	if (jv_get_kind(args) != JV_KIND_OBJECT && jv_get_kind(args) != JV_KIND_NULL) {
		struct args x;

		args_begin(&x, args);
		return x.err;
	}
	if (jv_get_kind(s) != JV_KIND_OBJECT)
		return no_session(1);
	ph = phase_of(s);
	r = jv_object();
	r = set(r, "session_id", get(s, "session_id"));
	r = set(r, "intent", get(s, "intent"));
	r = set(r, "query", get(s, "query"));
	r = set(r, "current_phase", phase_name(ph));
	r = set(r, "allowed_tools", allowed_tools(g, ph));
	r = set(r, "exploration", get(s, "exploration"));
	r = set(r, "semantic", get(s, "semantic"));
	r = set(r, "verification", get(s, "verification"));
	r = set(r, "tool_calls_count", get(s, "tool_calls_count"));
	/* beyond the original: what the gate judges by */
	r = set(r, "risk_level", jv_string(risk_of(s)));
	f = get(s, "query_frame");
	r = set(r, "query_frame", frame_dict(g, f));
	jv_free(f);
	r = set(r, "exploration_requirements", gate_requirements(g, risk_of(s),
	    intent_of(g, s)));
	r = set(r, "tools_used", strings(s, "tools_used"));
	r = set(r, "phase_history", get(s, "phase_history"));
	r = set(r, "outcomes", get(s, "outcomes"));
	r = set(r, "created_at", get(s, "created_at"));
	r = set(r, "updated_at", get(s, "updated_at"));
	return r;
}

/* ---- submit_understanding ---- */

/* Python's str.strip() of whitespace, as a view. */
static struct gs
strip(struct gs s)
{
	while (s.n && (s.s[0] == ' ' || (s.s[0] >= '\t' && s.s[0] <= '\r'))) {
		s.s++;
		s.n--;
	}
	while (s.n && (s.s[s.n - 1] == ' ' || (s.s[s.n - 1] >= '\t' && s.s[s.n - 1] <= '\r')))
		s.n--;
	return s;
}

static int
cmp_gs(const void *a, const void *b)
{
	const struct gs *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->n < y->n ? x->n : y->n);

	return c ? c : (x->n > y->n) - (x->n < y->n);
}

static int
distinct(jv list)
{
	int n = jlen(list), u = 0;
	struct gs *v = cc_xmalloc(((size_t)n + 1) * sizeof *v);

	for (int i = 0; i < n; i++) {
		jv e = jv_array_get(jv_copy(list), i);

		v[i] = view(e);	/* the list keeps the string */
		jv_free(e);
	}
	qsort(v, (size_t)n, sizeof *v, cmp_gs);
	for (int i = 0; i < n; i++)
		if (i == 0 || cmp_gs(&v[i], &v[i - 1]) != 0)
			u++;
	free(v);
	return u;
}

/* validate_exploration_consistency: the submission must hang together. */
static jv
consistency(jv syms, jv eps, jv pats, jv files)
{
	jv errors = jv_array();
	int u;

	jv_array_foreach(eps, i, ep) {
		struct gs e = view(ep), base = e;
		int linked = 0;

		/* ep.split(".")[0].split("(")[0].strip() */
		for (size_t k = 0; k < base.n; k++)
			if (base.s[k] == '.') {
				base.n = k;
				break;
			}
		for (size_t k = 0; k < base.n; k++)
			if (base.s[k] == '(') {
				base.n = k;
				break;
			}
		base = strip(base);
		jv_array_foreach(syms, k, sym) {
			struct gs sv = view(sym);

			linked |= py_in(base, sv) || py_in(sv, base);
			jv_free(sym);
		}
		if (!linked)
			errors = jv_array_append(errors, fmt("entry_point '%.*s' not linked to "
			    "any symbol in symbols_identified", (int)e.n, e.s));
		jv_free(ep);
	}
	if (jlen(pats) && !jlen(files))
		errors = jv_array_append(errors, jv_string("patterns provided but no files analyzed"));
	if ((u = distinct(syms)) < jlen(syms))
		errors = jv_array_append(errors, fmt("duplicate symbols detected: %d given, "
		    "%d unique", jlen(syms), u));
	if ((u = distinct(files)) < jlen(files))
		errors = jv_array_append(errors, fmt("duplicate files detected: %d given, "
		    "%d unique", jlen(files), u));
	return errors;
}

/* Add or raise a mapped symbol (QueryFrame.add_mapped_symbol). */
static jv
map_symbol(jv frame, jv name, const char *source, double confidence, jv evidence)
{
	jv syms = get(frame, "mapped_symbols"), out = jv_array();
	int found = 0;

	if (jv_get_kind(syms) != JV_KIND_ARRAY) {
		jv_free(syms);
		syms = jv_array();
	}
	jv_array_foreach(syms, i, m) {
		jv mn = get(m, "name");
		jv conf = get(m, "confidence");

		if (jv_get_kind(mn) == JV_KIND_STRING && jv_equal(jv_copy(mn), jv_copy(name))) {
			found = 1;
			if (strcmp(source, "FACT") == 0 || (jv_get_kind(conf) == JV_KIND_NUMBER &&
			    confidence > jv_number_value(conf))) {
				m = set(m, "source", jv_string(source));
				m = set(m, "confidence", jv_number(confidence));
				if (jv_get_kind(evidence) == JV_KIND_OBJECT)
					m = set(m, "evidence", jv_copy(evidence));
			}
		}
		jv_free(mn);
		jv_free(conf);
		out = jv_array_append(out, m);
	}
	jv_free(syms);
	if (!found) {
		jv m = set(jv_object(), "name", jv_copy(name));

		m = set(m, "source", jv_string(source));
		m = set(m, "confidence", jv_number(confidence));
		m = set(m, "evidence", jv_copy(evidence));
		out = jv_array_append(out, m);
	}
	jv_free(name);
	jv_free(evidence);
	return set(frame, "mapped_symbols", out);
}

static jv
slot_ev(const char *tool, jv params, jv summary, time_t now)
{
	jv e = set(jv_object(), "tool", jv_string(tool));

	e = set(e, "params", params);
	e = set(e, "result_summary", summary);
	return set(e, "timestamp", iso(now));
}

/*
 * The evidence for each slot, from the submission (the original designed
 * slot_evidence and never filled it):
 *   - given: slot_evidence.SLOT {tool, target, result, files, value}, which
 *     must name a tool this session called, and with a repository a target
 *     found in the files; it may fill a slot the query left empty;
 *   - found: a symbol of symbols_identified related to the slot's value
 *     (the NL->symbol relation; with a repository, a symbol found there).
 * An evidenced slot is FACT; the target's related symbols are mapped
 * symbols, FACT.  Problems with given evidence go to *errors.
 */
static jv
evidence_slots(struct cc_gate_ctx *c, jv frame, jv given, jv syms, jv tools_used,
    struct gate_files *files, const unsigned char *sym_ok, jv *errors, time_t now)
{
	const struct cc_gate *g = c->gate;

	for (int s = 0; s < SLOT_N; s++) {
		const char *name = gate_slot_names[s];
		jv e = get(given, name);
		size_t vn = 0;
		const char *value = gate_slot_value(frame, s, &vn);

		if (jv_get_kind(e) == JV_KIND_OBJECT) {
			jv tool = get(e, "tool"), target = get(e, "target"), result = get(e, "result");
			jv val = get(e, "value"), efiles = strings(e, "files");
			int bad = 0;
			char why[512];

			if (!view(tool).n || !has_string(tools_used, jv_string_value(tool))) {
				*errors = jv_array_append(*errors, view(tool).n ?
				    fmt("slot_evidence.%s: tool '%s' was not called in this session",
				    name, jv_string_value(tool)) :
				    fmt("slot_evidence.%s: tool is required", name));
				bad = 1;
			}
			if (!view(target).n || !view(result).n) {
				*errors = jv_array_append(*errors, fmt("slot_evidence.%s: %s is required",
				    name, view(target).n ? "result" : "target"));
				bad = 1;
			}
			if (!value && !view(val).n) {
				*errors = jv_array_append(*errors, fmt("slot_evidence.%s: value is "
				    "required (the query left %s empty)", name, name));
				bad = 1;
			}
			if (files && !bad) {
				jv_array_foreach(efiles, i, f) {
					if (gate_files_add(files, view(f), why, sizeof why) < 0) {
						*errors = jv_array_append(*errors, fmt("slot_evidence.%s: "
						    "file '%s' %s", name, jv_string_value(f), why));
						bad = 1;
					}
					jv_free(f);
				}
				if (!bad && !gate_files_find(files, view(target), why, sizeof why)) {
					*errors = jv_array_append(*errors, fmt("slot_evidence.%s: target "
					    "'%s' %s", name, jv_string_value(target), why));
					bad = 1;
				}
			}
			if (!bad) {
				jv params = set(set(jv_object(), "target", jv_copy(target)),
				    "files", jv_copy(efiles));

				if (!value)
					frame = set(frame, name, jv_copy(val));
				frame = set_slot_evidence(frame, s, slot_ev(jv_string_value(tool),
				    params, jv_copy(result), now));
				frame = set_slot_source(frame, s, "FACT");
			}
			jv_free(tool);
			jv_free(target);
			jv_free(result);
			jv_free(val);
			jv_free(efiles);
		} else if (value) {
			jv related = jv_array();

			jv_array_foreach(syms, i, sym) {
				if (view(sym).n && (!files || sym_ok[i]) &&
				    gate_related(g, (struct gs){ value, vn }, view(sym)))
					related = jv_array_append(related, jv_copy(sym));
				jv_free(sym);
			}
			if (jlen(related)) {
				struct cc_buf b = {0};
				jv ev;

				py_repr_list(&b, related);
				cc_buf_add(&b, " related to ", 12);
				py_repr(&b, (struct gs){ value, vn });
				if (files)
					cc_buf_add(&b, ", found in the repository", 25);
				ev = slot_ev("nl_symbol_mapping", set(jv_object(), "symbols",
				    jv_copy(related)), buf_str(&b), now);
				if (s == SLOT_TARGET) {
					jv_array_foreach(related, i, sym)
						frame = map_symbol(frame, sym, "FACT", 1.0, jv_copy(ev));
				}
				frame = set_slot_evidence(frame, s, ev);
				frame = set_slot_source(frame, s, "FACT");
			}
			jv_free(related);
		}
		jv_free(e);
	}
	return frame;
}

static jv
wrong_phase(int ph, const char *what)
{
	jv r = set(jv_object(), "success", jv_false());

	r = set(r, "next_phase", phase_name(ph));
	return set(r, "message", fmt("Cannot submit %s in phase %s", what, gate_phase_names[ph]));
}

/* submit_understanding's slot_evidence: {SLOT: {tool, target, result, files, value}}. */
static jv
arg_slot_evidence(struct args *x)
{
	jv v = arg_obj(x, "slot_evidence");

	if (jv_get_kind(v) != JV_KIND_OBJECT)
		return v;
	jv_object_foreach(v, k, e) {
		if (!failed(x) && gate_slot_parse(jv_string_value(k)) < 0)
			x->err = bad_args("argument 'slot_evidence': '%s' is no slot",
			    jv_string_value(k));
		else if (!failed(x)) {
			struct args y;

			if (args_begin(&y, e) < 0) {
				jv_free(y.err);
				x->err = bad_args("argument 'slot_evidence.%s' must be an object",
				    jv_string_value(k));
			} else {
				static const char *const str[] = { "tool", "target", "result",
				    "value", NULL };

				for (int i = 0; str[i] && !failed(&y); i++)
					jv_free(arg_str(&y, str[i], 0, CC_GATE_MAX_NAME));
				jv_free(arg_strings(&y, "files", CC_GATE_MAX_NAME));
				if (failed(&y))
					x->err = y.err;
			}
		}
		jv_free(k);
		jv_free(e);
	}
	if (failed(x)) {
		jv_free(v);
		return jv_null();
	}
	return v;
}

jv
cc_gate_submit_understanding(struct cc_gate_ctx *c, jv args, jv *session, time_t now)
{
	const struct cc_gate *g = c->gate;
	const struct gate_intent *in;
	jv req, req_tools, req_evidence;
	struct args x;
	struct gate_files *files = NULL;
	unsigned char *sym_ok = NULL;
	jv syms, eps, pats, fl, notes, given, tools_used, missing, frame, cons, hyp;
	jv ev_errors, found, unevidenced = jv_array(), exp, r, miss_tools = jv_array();
	const char *risk, *tf, *conf;
	size_t tfn = 0;
	char why[512];
	int ph, to;

	if (args_begin(&x, args) < 0) {
		jv_free(unevidenced);
		jv_free(miss_tools);
		return x.err;
	}
	syms = arg_strings(&x, "symbols_identified", CC_GATE_MAX_NAME);
	eps = arg_strings(&x, "entry_points", CC_GATE_MAX_NAME);
	pats = arg_strings(&x, "existing_patterns", CC_GATE_MAX_NAME);
	fl = arg_strings(&x, "files_analyzed", CC_GATE_MAX_NAME);
	notes = arg_str(&x, "notes", 0, CC_GATE_MAX_TEXT);
	given = arg_slot_evidence(&x);
	if (failed(&x) || jv_get_kind(*session) != JV_KIND_OBJECT) {
		jv_free(syms);
		jv_free(eps);
		jv_free(pats);
		jv_free(fl);
		jv_free(notes);
		jv_free(given);
		jv_free(unevidenced);
		jv_free(miss_tools);
		return failed(&x) ? x.err : no_session(0);
	}
	ph = phase_of(*session);
	if (ph != PH_EXPLORATION) {
		jv_free(syms);
		jv_free(eps);
		jv_free(pats);
		jv_free(fl);
		jv_free(notes);
		jv_free(given);
		jv_free(unevidenced);
		jv_free(miss_tools);
		r = wrong_phase(ph, "exploration");
		log_decision(c, session, "submit_understanding", ph, r, now);
		return r;
	}
	in = intent_of(g, *session);
	risk = risk_of(*session);
	req = gate_requirements(g, risk, in);
	tools_used = strings(*session, "tools_used");
	missing = jv_array();

	/* evaluate_exploration_v36: the counts, the tools, the slots' evidence */
	{
		static const char *const keys[] = { "symbols_identified", "entry_points",
			"files_analyzed", "existing_patterns" };
		const int have[] = { jlen(syms), jlen(eps), jlen(fl), jlen(pats) };

		for (int k = 0; k < 4; k++)
			if (have[k] < gate_requirement(req, keys[k]))
				missing = jv_array_append(missing, fmt("%s: %d/%d", keys[k],
				    have[k], gate_requirement(req, keys[k])));
	}
	req_tools = strings(req, "required_tools");
	jv_array_foreach(req_tools, i, t) {
		if (!has_string(tools_used, jv_string_value(t)))
			miss_tools = jv_array_append(miss_tools, jv_copy(t));
		jv_free(t);
	}
	jv_free(req_tools);
	req_evidence = strings(req, "required_slot_evidence");
	if (jlen(miss_tools)) {
		struct cc_buf b = {0};
		const char **v = cc_xmalloc((size_t)jlen(miss_tools) * sizeof *v);

		jv_array_foreach(miss_tools, i, t) {
			v[i] = jv_string_value(t);	/* miss_tools keeps it */
			jv_free(t);
		}
		cc_buf_add(&b, "required_tools: missing ", 24);
		py_repr_set(&b, v, (size_t)jlen(miss_tools));
		free(v);
		missing = jv_array_append(missing, buf_str(&b));
	}

	/* with a repository, the files, symbols and entry points are looked at */
	ev_errors = jv_array();
	found = jv_array();
	if (g->repo) {
		files = gate_files_new(g);
		sym_ok = calloc((size_t)jlen(syms) + 1, 1);
		jv_array_foreach(fl, i, f) {
			if (gate_files_add(files, view(f), why, sizeof why) < 0)
				ev_errors = jv_array_append(ev_errors, fmt("file '%s' %s",
				    jv_string_value(f), why));
			jv_free(f);
		}
		jv_array_foreach(syms, i, sym) {
			if (gate_files_find(files, view(sym), why, sizeof why)) {
				sym_ok[i] = 1;
				found = jv_array_append(found, set(set(set(jv_object(), "kind",
				    jv_string("symbol")), "name", jv_copy(sym)), "where", jv_string(why)));
			} else {
				ev_errors = jv_array_append(ev_errors, fmt("symbol '%s' %s",
				    jv_string_value(sym), why));
			}
			jv_free(sym);
		}
		jv_array_foreach(eps, i, ep) {
			if (gate_files_find(files, view(ep), why, sizeof why))
				found = jv_array_append(found, set(set(set(jv_object(), "kind",
				    jv_string("entry_point")), "name", jv_copy(ep)), "where",
				    jv_string(why)));
			else
				ev_errors = jv_array_append(ev_errors, fmt("entry point '%s' %s",
				    jv_string_value(ep), why));
			jv_free(ep);
		}
	}

	frame = get(*session, "query_frame");
	if (jv_get_kind(frame) == JV_KIND_OBJECT) {
		frame = evidence_slots(c, frame, given, syms, tools_used, files, sym_ok,
		    &ev_errors, now);
		for (int s = 0; s < SLOT_N; s++)
			if (has_string(req_evidence, gate_slot_names[s]) &&
			    !has_slot_evidence(frame, s)) {
				missing = jv_array_append(missing, fmt("slot_evidence: %s not evidenced",
				    gate_slot_names[s]));
				unevidenced = jv_array_append(unevidenced, jv_string(gate_slot_names[s]));
			}
	} else if (jv_get_kind(given) == JV_KIND_OBJECT) {
		ev_errors = jv_array_append(ev_errors, jv_string("slot_evidence: no QueryFrame "
		    "was set (set_query_frame)"));
	}

	/* v3.4: the submission must hang together */
	cons = consistency(syms, eps, pats, fl);
	jv_array_foreach(cons, i, e) {
		missing = jv_array_append(missing, fmt("consistency: %s", jv_string_value(e)));
		jv_free(e);
	}
	/* v3.6: the target's words must be found among the symbols */
	if ((tf = gate_slot_value(frame, SLOT_TARGET, &tfn))) {
		int any = 0;

		jv_array_foreach(syms, i, sym) {
			any |= gate_related(g, (struct gs){ tf, tfn }, view(sym));
			jv_free(sym);
		}
		if (!any) {
			struct cc_buf b = {0};

			cc_buf_add(&b, "nl_symbol_mapping: '", 20);
			cc_buf_add(&b, tf, tfn);
			cc_buf_add(&b, "' has no matching symbol in ", 28);
			py_repr_list(&b, syms);
			missing = jv_array_append(missing, buf_str(&b));
		}
	}
	jv_array_foreach(ev_errors, i, e) {
		missing = jv_array_append(missing, fmt("evidence: %s", jv_string_value(e)));
		jv_free(e);
	}
	conf = jlen(missing) ? "low" : "high";

	/* v3.6: no READY while a slot or a symbol is a HYPOTHESIS */
	hyp = validate_for_ready(frame);
	jv_array_foreach(hyp, i, e)
		missing = jv_array_append(missing, e);
	if (jlen(hyp))
		conf = "low";
	to = strcmp(conf, "high") == 0 && !jlen(cons) && !jlen(hyp) ? PH_READY : PH_SEMANTIC;

	exp = jv_object();
	exp = set(exp, "symbols_identified", jv_copy(syms));
	exp = set(exp, "entry_points", jv_copy(eps));
	exp = set(exp, "existing_patterns", jv_copy(pats));
	exp = set(exp, "files_analyzed", jv_copy(fl));
	exp = set(exp, "tools_used", jv_copy(tools_used));
	exp = set(exp, "notes", str_or(notes, ""));
	exp = set(exp, "evaluated_confidence", jv_string(conf));
	exp = set(exp, "missing_requirements", jv_copy(missing));
	exp = set(exp, "requirements", jv_copy(req));
	exp = set(exp, "unevidenced_slots", jv_copy(unevidenced));
	if (g->repo) {
		exp = set(exp, "evidence_found", jv_copy(found));
		exp = set(exp, "evidence_errors", jv_copy(ev_errors));
	}
	*session = set(*session, "exploration", exp);
	if (jv_get_kind(frame) == JV_KIND_OBJECT) {
		/* judged at the risk it had; rated again for what was found */
		*session = set(*session, "query_frame", jv_copy(frame));
		*session = set(*session, "risk_level", jv_string(gate_risk(frame, in)));
	}
	*session = transition(*session, PH_EXPLORATION, to, "submit_understanding",
	    set(set(jv_object(), "evaluated_confidence", jv_string(conf)),
	    "risk_level", jv_string(risk)), now);

	r = set(jv_object(), "success", jv_true());
	r = set(r, "next_phase", phase_name(to));
	r = set(r, "evaluated_confidence", jv_string(conf));
	if (to == PH_READY) {
		r = set(r, "risk_level", jv_string(risk));
		r = set(r, "message", jv_string("Exploration sufficient. Ready for implementation."));
	} else {
		r = set(r, "missing_requirements", jv_copy(missing));
		r = set(r, "risk_level", jv_string(risk));
		r = set(r, "message", jv_string("Exploration insufficient. Use devrag to gather "
		    "more context."));
		r = set(r, "hint", jv_string("Use devrag_search, then submit_semantic with "
		    "hypotheses and devrag_reason."));
		if (jlen(cons)) {
			r = set(r, "consistency_errors", jv_copy(cons));
			r = set(r, "consistency_hint", jv_string("Your exploration results have "
			    "consistency issues. Ensure entry_points are linked to symbols, no "
			    "duplicates, etc."));
		}
	}
	if (jv_get_kind(frame) == JV_KIND_OBJECT) {
		jv ev = get(frame, "slot_evidence"), names = jv_array();

		if (jv_get_kind(ev) == JV_KIND_OBJECT) {
			for (int s = 0; s < SLOT_N; s++)
				if (has_slot_evidence(frame, s))
					names = jv_array_append(names, jv_string(gate_slot_names[s]));
		}
		jv_free(ev);
		r = set(r, "evidenced_slots", names);
	}
	if (g->repo) {
		r = set(r, "evidence_checked", jv_true());
		if (jlen(ev_errors))
			r = set(r, "evidence_errors", jv_copy(ev_errors));
	}
	log_decision(c, session, "submit_understanding", ph, r, now);

	gate_files_free(files);
	free(sym_ok);
	jv_free(syms);
	jv_free(eps);
	jv_free(pats);
	jv_free(fl);
	jv_free(notes);
	jv_free(given);
	jv_free(tools_used);
	jv_free(missing);
	jv_free(frame);
	jv_free(cons);
	jv_free(hyp);
	jv_free(ev_errors);
	jv_free(found);
	jv_free(unevidenced);
	jv_free(miss_tools);
	jv_free(req_evidence);
	jv_free(req);
	return r;
}

/* ---- submit_semantic ---- */

/* Each missing requirement's key allows some reasons; two are always allowed. */
static jv
validate_semantic_reason(const struct cc_gate *g, jv missing, const char *reason)
{
	struct strv allowed = {0};
	struct cc_buf b = {0};
	jv msg;

	if (!jlen(missing))
		return jv_string("No missing requirements but entered SEMANTIC phase");
	jv_array_foreach(missing, i, m) {
		struct gs key = view(m);

		for (size_t k = 0; k < key.n; k++)
			if (key.s[k] == ':') {
				key.n = k;
				break;
			}
		key = strip(key);
		/*
		 * The original's "required_tools" entry was {} (a dict) where a
		 * set was meant, and set |= dict raised TypeError: the session
		 * was then stuck in SEMANTIC.  Here a key with no reasons of its
		 * own just adds none.
		 */
		for (size_t r = 0; r < g->nreasons; r++)
			if (strlen(g->reasons[r].key) == key.n &&
			    memcmp(g->reasons[r].key, key.s, key.n) == 0)
				for (size_t k = 0; k < g->reasons[r].reasons.n; k++)
					if (!strv_has(&allowed, g->reasons[r].reasons.v[k]))
						strv_add(&allowed, g->reasons[r].reasons.v[k]);
		jv_free(m);
	}
	for (size_t k = 0; k < g->always_reasons.n; k++)
		if (!strv_has(&allowed, g->always_reasons.v[k]))
			strv_add(&allowed, g->always_reasons.v[k]);
	if (strv_has(&allowed, reason)) {
		strv_free(&allowed);
		return jv_null();
	}
	cc_buf_add(&b, "devrag_reason '", 15);
	cc_buf_add(&b, reason, strlen(reason));
	cc_buf_add(&b, "' is not allowed for missing: ", 30);
	py_repr_list(&b, missing);
	cc_buf_add(&b, ". Allowed reasons: ", 19);
	{
		/* in the order devrag-reasons lists them (the original's set order is random) */
		jv list = jv_array();

		for (size_t k = 0; k < g->devrag_reasons.n; k++)
			if (strv_has(&allowed, g->devrag_reasons.v[k]))
				list = jv_array_append(list, jv_string(g->devrag_reasons.v[k]));
		py_repr_list(&b, list);
		jv_free(list);
	}
	msg = buf_str(&b);
	strv_free(&allowed);
	return msg;
}

/* hypotheses: strings or {text, confidence, slot}; a clean list of objects. */
static jv
arg_hypotheses(struct args *x)
{
	jv v = arg_items(x, "hypotheses"), out = jv_array();

	jv_array_foreach(v, i, h) {
		jv text = jv_null(), conf = jv_null(), slot = jv_null();

		if (failed(x)) {
			jv_free(h);
			continue;
		}
		if (jv_get_kind(h) == JV_KIND_STRING) {
			text = jv_copy(h);
		} else if (jv_get_kind(h) == JV_KIND_OBJECT) {
			struct args y;

			args_begin(&y, h);
			text = arg_str(&y, "text", 0, CC_GATE_MAX_TEXT);
			conf = arg_str(&y, "confidence", 0, 16);
			slot = arg_str(&y, "slot", 0, 64);
			if (failed(&y))
				x->err = y.err;
			else if (jv_get_kind(conf) == JV_KIND_STRING &&
			    strcmp(jv_string_value(conf), "high") &&
			    strcmp(jv_string_value(conf), "medium") &&
			    strcmp(jv_string_value(conf), "low"))
				x->err = bad_args("hypothesis %d: confidence must be high, medium "
				    "or low", i + 1);
			else if (jv_get_kind(slot) == JV_KIND_STRING &&
			    gate_slot_parse(jv_string_value(slot)) < 0)
				x->err = bad_args("hypothesis %d: '%s' is no slot", i + 1,
				    jv_string_value(slot));
		} else {
			x->err = bad_args("hypothesis %d must be a string or an object, not %s",
			    i + 1, kind_name(jv_get_kind(h)));
		}
		if (jv_get_kind(text) == JV_KIND_STRING &&
		    (size_t)jv_string_length_bytes(jv_copy(text)) > CC_GATE_MAX_TEXT)
			x->err = bad_args("hypothesis %d is too long", i + 1);
		if (!failed(x)) {
			jv o = set(jv_object(), "text", str_or(text, ""));

			o = set(o, "confidence", str_or(conf, "medium"));
			if (jv_get_kind(slot) == JV_KIND_STRING)
				o = set(o, "slot", jv_copy(slot));
			out = jv_array_append(out, o);
		}
		jv_free(text);
		jv_free(conf);
		jv_free(slot);
		jv_free(h);
	}
	jv_free(v);
	return out;
}

/*
 * What SEMANTIC guessed is a HYPOTHESIS until VERIFICATION confirms it
 * (the design's rule; the original never marked one): the slots the
 * exploration could not evidence, and any slot a hypothesis names.
 */
static jv
mark_hypotheses(const struct cc_gate *g, jv s, jv hyps)
{
	jv frame = get(s, "query_frame"), exp = get(s, "exploration");
	jv unev = strings(exp, "unevidenced_slots");

	jv_array_foreach(hyps, i, h) {
		const char *slot = gstr(h, "slot");

		if (slot && jv_get_kind(frame) != JV_KIND_OBJECT) {
			jv_free(frame);
			frame = set(set(jv_object(), "raw_query", get(s, "query")),
			    "mapped_symbols", jv_array());
		}
		if (slot) {
			int k = gate_slot_parse(slot);

			if (!gate_slot_value(frame, k, NULL))
				frame = set(frame, slot, get(h, "text"));
			frame = set_slot_source(frame, k, "HYPOTHESIS");
		}
		jv_free(h);
	}
	jv_array_foreach(unev, i, name) {
		int k = gate_slot_parse(jv_string_value(name));

		if (k >= 0 && jv_get_kind(frame) == JV_KIND_OBJECT)
			frame = set_slot_source(frame, k, "HYPOTHESIS");
		jv_free(name);
	}
	if (jv_get_kind(frame) == JV_KIND_OBJECT) {
		s = set(s, "risk_level", jv_string(gate_risk(frame, intent_of(g, s))));
		s = set(s, "query_frame", frame);
	} else {
		jv_free(frame);
	}
	jv_free(exp);
	jv_free(unev);
	return s;
}

jv
cc_gate_submit_semantic(struct cc_gate_ctx *c, jv args, jv *session, time_t now)
{
	const struct cc_gate *g = c->gate;
	struct args x;
	jv hyps, reason, queries, r, exp, missing, why, sem;
	int ph;

	if (args_begin(&x, args) < 0)
		return x.err;
	hyps = arg_hypotheses(&x);
	reason = arg_str(&x, "devrag_reason", 0, 256);
	queries = arg_strings(&x, "search_queries", CC_GATE_MAX_TEXT);
	if (failed(&x) || jv_get_kind(*session) != JV_KIND_OBJECT) {
		jv_free(hyps);
		jv_free(reason);
		jv_free(queries);
		return failed(&x) ? x.err : no_session(0);
	}
	/* the handler refuses a reason outside the enum before anything else */
	if (view(reason).n && !strv_has(&g->devrag_reasons, jv_string_value(reason))) {
		r = error_answer("invalid_devrag_reason", fmt("Invalid devrag_reason: '%s'",
		    jv_string_value(reason)));
		r = set(r, "valid_reasons", strv_json(&g->devrag_reasons));
		jv_free(hyps);
		jv_free(reason);
		jv_free(queries);
		return r;
	}
	ph = phase_of(*session);
	exp = get(*session, "exploration");
	missing = strings(exp, "missing_requirements");
	if (ph != PH_SEMANTIC) {
		r = wrong_phase(ph, "semantic");
	} else if (!view(reason).n) {
		r = set(jv_object(), "success", jv_false());
		r = set(r, "next_phase", phase_name(ph));
		r = set(r, "message", jv_string("devrag_reason is required (must be "
		    "DevragReason enum)."));
		r = set(r, "valid_reasons", strv_json(&g->devrag_reasons));
	} else if (jlen(missing) && jv_get_kind(why = validate_semantic_reason(g, missing,
	    jv_string_value(reason))) == JV_KIND_STRING) {
		r = set(jv_object(), "success", jv_false());
		r = set(r, "next_phase", phase_name(ph));
		r = set(r, "message", why);
		r = set(r, "missing_requirements", jv_copy(missing));
		r = set(r, "hint", jv_string("Choose a devrag_reason that matches why "
		    "exploration failed."));
	} else if (!jlen(hyps)) {
		r = set(jv_object(), "success", jv_false());
		r = set(r, "next_phase", phase_name(ph));
		r = set(r, "message", jv_string("At least one hypothesis is required from "
		    "devrag results."));
	} else {
		sem = set(jv_object(), "hypotheses", jv_copy(hyps));
		sem = set(sem, "devrag_reason", jv_copy(reason));
		sem = set(sem, "search_queries", jv_copy(queries));
		*session = set(*session, "semantic", sem);
		*session = mark_hypotheses(g, *session, hyps);
		*session = transition(*session, PH_SEMANTIC, PH_VERIFICATION, "submit_semantic",
		    set(jv_object(), "devrag_reason", jv_copy(reason)), now);
		r = set(jv_object(), "success", jv_true());
		r = set(r, "next_phase", phase_name(PH_VERIFICATION));
		r = set(r, "message", jv_string(gate_text(g, "semantic_complete")));
		/* the original handed back Hypothesis objects, which json.dumps refused */
		r = set(r, "hypotheses_to_verify", jv_copy(hyps));
		{
			jv frame = get(*session, "query_frame"), hs = jv_array();

			for (int s = 0; s < SLOT_N; s++) {
				const char *src = slot_source(frame, s);

				if (src && strcmp(src, "HYPOTHESIS") == 0)
					hs = jv_array_append(hs, jv_string(gate_slot_names[s]));
			}
			if (jlen(hs))
				r = set(r, "hypothesis_slots", hs);
			else
				jv_free(hs);
			jv_free(frame);
		}
	}
	log_decision(c, session, "submit_semantic", ph, r, now);
	jv_free(hyps);
	jv_free(reason);
	jv_free(queries);
	jv_free(exp);
	jv_free(missing);
	return r;
}

/* ---- submit_verification ---- */

/* verified: [{hypothesis, status, evidence: {tool, target, result, files}, slot}] */
static jv
arg_verified(struct args *x)
{
	jv v = arg_items(x, "verified"), out = jv_array();

	jv_array_foreach(v, i, item) {
		struct args y, z;
		jv h, st, slot, ev, tool = jv_null(), target = jv_null(), result = jv_null();
		jv files = jv_array(), e, o;

		if (failed(x)) {
			jv_free(item);
			jv_free(files);
			continue;
		}
		if (args_begin(&y, item) < 0) {
			jv_free(y.err);
			x->err = bad_args("verified item %d must be an object", i + 1);
			jv_free(item);
			jv_free(files);
			continue;
		}
		h = arg_str(&y, "hypothesis", 0, CC_GATE_MAX_TEXT);
		st = arg_str(&y, "status", 0, 16);
		slot = arg_str(&y, "slot", 0, 64);
		ev = arg_obj(&y, "evidence");
		if (!failed(&y) && jv_get_kind(ev) == JV_KIND_OBJECT) {
			args_begin(&z, ev);
			tool = arg_str(&z, "tool", 0, 256);
			target = arg_str(&z, "target", 0, CC_GATE_MAX_NAME);
			result = arg_str(&z, "result", 0, CC_GATE_MAX_TEXT);
			jv_free(files);
			files = arg_strings(&z, "files", CC_GATE_MAX_NAME);
			if (failed(&z))
				y.err = z.err;
		}
		if (!failed(&y) && jv_get_kind(st) == JV_KIND_STRING &&
		    strcmp(jv_string_value(st), "confirmed") && strcmp(jv_string_value(st), "rejected"))
			y.err = bad_args("verified item %d: status must be confirmed or rejected",
			    i + 1);
		if (!failed(&y) && jv_get_kind(slot) == JV_KIND_STRING &&
		    gate_slot_parse(jv_string_value(slot)) < 0)
			y.err = bad_args("verified item %d: '%s' is no slot", i + 1,
			    jv_string_value(slot));
		if (failed(&y)) {
			x->err = y.err;
		} else {
			/* the handler's defaults: "" for what is missing, status "rejected" */
			e = set(jv_object(), "tool", str_or(tool, ""));
			e = set(e, "target", str_or(target, ""));
			e = set(e, "result", str_or(result, ""));
			e = set(e, "files", jv_copy(files));
			o = set(jv_object(), "hypothesis", str_or(h, ""));
			o = set(o, "status", str_or(st, "rejected"));
			o = set(o, "evidence", e);
			if (jv_get_kind(slot) == JV_KIND_STRING)
				o = set(o, "slot", jv_copy(slot));
			out = jv_array_append(out, o);
		}
		jv_free(h);
		jv_free(st);
		jv_free(slot);
		jv_free(ev);
		jv_free(tool);
		jv_free(target);
		jv_free(result);
		jv_free(files);
		jv_free(item);
	}
	jv_free(v);
	return out;
}

/* Is a verified item about this slot?  Named, through its hypothesis, or related. */
static int
linked(const struct cc_gate *g, jv item, int slot, jv frame, jv sem_hyps)
{
	const char *named = gstr(item, "slot"), *value;
	jv ev = get(item, "evidence"), h = get(item, "hypothesis"), target = get(ev, "target");
	size_t vn = 0;
	int yes = 0;

	if (named) {
		yes = strcmp(named, gate_slot_names[slot]) == 0;
		goto done;
	}
	jv_array_foreach(sem_hyps, i, sh) {
		const char *s = gstr(sh, "slot");
		jv text = get(sh, "text");

		if (s && strcmp(s, gate_slot_names[slot]) == 0 && view(h).n &&
		    jv_equal(jv_copy(text), jv_copy(h)))
			yes = 1;
		jv_free(text);
		jv_free(sh);
	}
	value = gate_slot_value(frame, slot, &vn);
	if (!yes && value)
		yes = (view(target).n && gate_related(g, (struct gs){ value, vn }, view(target))) ||
		    (view(h).n && gate_related(g, (struct gs){ value, vn }, view(h)));
done:
	jv_free(ev);
	jv_free(h);
	jv_free(target);
	return yes;
}

jv
cc_gate_submit_verification(struct cc_gate_ctx *c, jv args, jv *session, time_t now)
{
	const struct cc_gate *g = c->gate;
	struct args x;
	struct gate_files *files = NULL;
	jv verified, r = jv_invalid(), frame = jv_null(), sem, sem_hyps = jv_null(), blocks;
	jv rejected = jv_array(), ver;
	int ph, all = 1;
	char why[512];

	if (args_begin(&x, args) < 0) {
		jv_free(rejected);
		return x.err;
	}
	verified = arg_verified(&x);
	if (failed(&x) || jv_get_kind(*session) != JV_KIND_OBJECT) {
		jv_free(verified);
		jv_free(rejected);
		return failed(&x) ? x.err : no_session(0);
	}
	ph = phase_of(*session);
	if (ph != PH_VERIFICATION) {
		r = wrong_phase(ph, "verification");
		goto out;
	}
	if (!jlen(verified)) {
		r = set(set(set(jv_object(), "success", jv_false()), "next_phase",
		    phase_name(ph)), "message", jv_string("Must verify at least one hypothesis."));
		goto out;
	}
	/* v3.3: structured evidence, from a tool that can verify */
	jv_array_foreach(verified, i, vh) {
		jv ev = get(vh, "evidence");
		const char *tool = gstr(ev, "tool"), *h = gstr(vh, "hypothesis");
		jv err = jv_null();

		if (!jv_is_valid(r)) {
			if (!strv_has(&g->verification_tools, tool ? tool : "")) {
				struct cc_buf b = {0};

				cc_buf_add(&b, "Invalid tool '", 14);
				cc_buf_add(&b, tool ? tool : "", tool ? strlen(tool) : 0);
				cc_buf_add(&b, "'. Must be one of: ", 19);
				py_repr_set(&b, (const char *const *)g->verification_tools.v,
				    g->verification_tools.n);
				err = buf_str(&b);
			} else if (!gstr(ev, "target") || !*gstr(ev, "target")) {
				err = jv_string("evidence.target is required");
			} else if (!gstr(ev, "result") || !*gstr(ev, "result")) {
				err = jv_string("evidence.result is required");
			} else if (g->repo && strcmp(gstr(vh, "status"), "confirmed") == 0) {
				/* a confirmation's files and target are looked at */
				jv fs = strings(ev, "files"), target = get(ev, "target");

				if (!files)
					files = gate_files_new(g);
				jv_array_foreach(fs, k, f) {
					if (jv_get_kind(err) == JV_KIND_NULL &&
					    gate_files_add(files, view(f), why, sizeof why) < 0)
						err = fmt("file '%s' %s", jv_string_value(f), why);
					jv_free(f);
				}
				if (jv_get_kind(err) == JV_KIND_NULL && !jlen(fs)) {
					/* no files of its own: the explored ones */
					jv exp = get(*session, "exploration"), ef = strings(exp,
					    "files_analyzed");

					jv_array_foreach(ef, k, f) {
						gate_files_add(files, view(f), why, sizeof why);
						jv_free(f);
					}
					jv_free(ef);
					jv_free(exp);
				}
				if (jv_get_kind(err) == JV_KIND_NULL &&
				    !gate_files_find(files, view(target), why, sizeof why))
					err = fmt("target '%s' %s", jv_string_value(target), why);
				jv_free(fs);
				jv_free(target);
			}
			if (jv_get_kind(err) == JV_KIND_STRING) {
				r = set(jv_object(), "success", jv_false());
				r = set(r, "next_phase", phase_name(ph));
				r = set(r, "message", fmt("Invalid evidence for hypothesis '%s': %s",
				    h ? h : "", jv_string_value(err)));
				r = set(r, "valid_tools", strv_json(&g->verification_tools));
			}
		}
		if (strcmp(gstr(vh, "status"), "confirmed") != 0) {
			all = 0;
			rejected = jv_array_append(rejected, jv_copy(vh));
		}
		jv_free(err);
		jv_free(ev);
		jv_free(vh);
	}
	if (jv_is_valid(r))
		goto out;

	/*
	 * HYPOTHESIS -> FACT: a slot a confirmed item is about is now a fact,
	 * with that item as its evidence; one only rejected is UNRESOLVED;
	 * one no item is about stays a HYPOTHESIS and keeps READY shut.
	 */
	frame = get(*session, "query_frame");
	sem = get(*session, "semantic");
	sem_hyps = get(sem, "hypotheses");
	jv_free(sem);
	for (int s = 0; s < SLOT_N && jv_get_kind(frame) == JV_KIND_OBJECT; s++) {
		const char *src = slot_source(frame, s);
		jv confirmed = jv_null();
		int about = 0;

		if (!src || strcmp(src, "HYPOTHESIS") != 0)
			continue;
		jv_array_foreach(verified, i, vh) {
			if (linked(g, vh, s, frame, sem_hyps)) {
				about = 1;
				if (strcmp(gstr(vh, "status"), "confirmed") == 0 &&
				    jv_get_kind(confirmed) == JV_KIND_NULL) {
					jv_free(confirmed);
					confirmed = jv_copy(vh);
				}
			}
			jv_free(vh);
		}
		if (jv_get_kind(confirmed) == JV_KIND_OBJECT) {
			jv ev = get(confirmed, "evidence");
			jv params = set(set(jv_object(), "target", get(ev, "target")), "files",
			    get(ev, "files"));

			frame = set_slot_evidence(frame, s, slot_ev(gstr(ev, "tool"), params,
			    get(ev, "result"), now));
			frame = set_slot_source(frame, s, "FACT");
			jv_free(ev);
		} else if (about) {
			frame = set_slot_source(frame, s, "UNRESOLVED");
		}
		jv_free(confirmed);
	}
	/* mapped symbols a confirmed item names as its target are facts too */
	if (jv_get_kind(frame) == JV_KIND_OBJECT) {
		jv_array_foreach(verified, i, vh) {
			jv ev = get(vh, "evidence"), target = get(ev, "target"), syms =
			    get(frame, "mapped_symbols");
			int is_mapped = 0;

			jv_array_foreach(syms, k, m) {
				jv n = get(m, "name");

				is_mapped |= jv_equal(n, jv_copy(target));
				jv_free(m);
			}
			if (is_mapped && strcmp(gstr(vh, "status"), "confirmed") == 0)
				frame = map_symbol(frame, jv_copy(target), "FACT", 1.0,
				    slot_ev(gstr(ev, "tool"), set(jv_object(), "target",
				    jv_copy(target)), get(ev, "result"), now));
			jv_free(syms);
			jv_free(target);
			jv_free(ev);
			jv_free(vh);
		}
	}
	blocks = validate_for_ready(frame);
	if (jlen(blocks)) {
		struct cc_buf b = {0};

		jv_array_foreach(blocks, i, m) {
			if (i)
				cc_buf_add(&b, " ", 1);
			cc_buf_add(&b, jv_string_value(m), strlen(jv_string_value(m)));
			jv_free(m);
		}
		r = set(jv_object(), "success", jv_false());
		r = set(r, "next_phase", phase_name(ph));
		r = set(r, "message", buf_str(&b));
		r = set(r, "hypothesis_blocks", blocks);
		r = set(r, "hint", jv_string("Verify what each HYPOTHESIS slot says: give the "
		    "verified item \"slot\": SLOT, or verify a symbol related to its value."));
		goto out;
	}
	jv_free(blocks);
	ver = set(set(jv_object(), "verified", jv_copy(verified)), "all_confirmed",
	    jv_bool(all));
	*session = set(*session, "verification", ver);
	if (jv_get_kind(frame) == JV_KIND_OBJECT) {
		*session = set(*session, "query_frame", jv_copy(frame));
		*session = set(*session, "risk_level", jv_string(gate_risk(frame,
		    intent_of(g, *session))));
	}
	*session = transition(*session, PH_VERIFICATION, PH_READY, "submit_verification",
	    set(jv_object(), "all_confirmed", jv_bool(all)), now);
	r = set(set(jv_object(), "success", jv_true()), "next_phase", phase_name(PH_READY));
	if (jlen(rejected)) {
		r = set(r, "message", jv_string("Verification complete with some rejected "
		    "hypotheses."));
		r = set(r, "warning", fmt("%d hypotheses were rejected. Do NOT implement based "
		    "on rejected hypotheses.", jlen(rejected)));
		r = set(r, "rejected", jv_copy(rejected));
	} else {
		r = set(r, "message", jv_string("All hypotheses verified. Ready for "
		    "implementation."));
	}
out:
	log_decision(c, session, "submit_verification", ph, r, now);
	gate_files_free(files);
	jv_free(verified);
	jv_free(frame);
	jv_free(sem_hyps);
	jv_free(rejected);
	return r;
}

/* ---- check_write_target ---- */

/* The set of explored files, in the order first seen. */
static jv
explored_files(jv s)
{
	jv exp = get(s, "exploration"), ver = get(s, "verification"), out = jv_array();
	jv fl = strings(exp, "files_analyzed"), items = get(ver, "verified");

	jv_array_foreach(fl, i, f) {
		if (!has_string(out, jv_string_value(f)))
			out = jv_array_append(out, jv_copy(f));
		jv_free(f);
	}
	if (jv_get_kind(items) == JV_KIND_ARRAY) {
		jv_array_foreach(items, i, vh) {
			jv ev = get(vh, "evidence"), ef = strings(ev, "files");

			jv_array_foreach(ef, k, f) {
				if (!has_string(out, jv_string_value(f)))
					out = jv_array_append(out, jv_copy(f));
				jv_free(f);
			}
			jv_free(ef);
			jv_free(ev);
			jv_free(vh);
		}
	}
	jv_free(fl);
	jv_free(items);
	jv_free(exp);
	jv_free(ver);
	return out;
}

static void
repr_set_of(struct cc_buf *b, jv list)
{
	int n = jlen(list);
	const char **v = cc_xmalloc(((size_t)n + 1) * sizeof *v);

	jv_array_foreach(list, i, e) {
		v[i] = jv_string_value(e);	/* list keeps it */
		jv_free(e);
	}
	py_repr_set(b, v, (size_t)n);
	free(v);
}

/* validate_write_target: NULL when allowed, else why (fresh). */
static jv
validate_write_target(const char *path, jv explored, int exists, int allow_new)
{
	struct cc_buf b = {0};
	char *norm, *base;
	int ok = 0;

	if (!exists) {
		char *parent;
		jv dirs = jv_array();

		if (!allow_new)
			return fmt("New file creation not allowed: %s", path);
		parent = py_dirname(path);
		jv_array_foreach(explored, i, f) {
			char *d = py_dirname(jv_string_value(f));

			if (!has_string(dirs, d))
				dirs = jv_array_append(dirs, jv_string(d));
			ok |= strcmp(d, parent) == 0;
			free(d);
			jv_free(f);
		}
		free(parent);
		if (ok || !jlen(dirs)) {
			jv_free(dirs);
			return jv_null();
		}
		cc_buf_add(&b, "New file '", 10);
		cc_buf_add(&b, path, strlen(path));
		cc_buf_add(&b, "' is in unexplored directory. Explored directories: ", 52);
		repr_set_of(&b, dirs);
		jv_free(dirs);
		return buf_str(&b);
	}
	/* the path as written, normalised; or only its file name */
	norm = py_normpath(path);
	base = py_basename(norm);
	jv_array_foreach(explored, i, f) {
		char *fn = py_normpath(jv_string_value(f)), *fb = py_basename(jv_string_value(f));

		ok |= strcmp(fn, norm) == 0 || strcmp(fb, base) == 0;
		free(fn);
		free(fb);
		jv_free(f);
	}
	free(norm);
	free(base);
	if (ok)
		return jv_null();
	cc_buf_add(&b, "File '", 6);
	cc_buf_add(&b, path, strlen(path));
	cc_buf_add(&b, "' was not explored. Run EXPLORATION first or add to files_analyzed. "
	    "Explored files: ", 85);
	repr_set_of(&b, explored);
	return buf_str(&b);
}

jv
cc_gate_check_write_target(struct cc_gate_ctx *c, jv args, jv *session, time_t now)
{
	const struct cc_gate *g = c->gate;
	struct args x;
	jv path, r, explored, why = jv_null();
	char *rel = NULL, err[512];
	int allow, ph, exists;
	struct stat st;

	if (args_begin(&x, args) < 0)
		return x.err;
	path = arg_str(&x, "file_path", 1, CC_GATE_MAX_NAME);
	allow = arg_bool(&x, "allow_new_files", 1);
	if (!failed(&x) && memchr(jv_string_value(path), '\0', view(path).n))
		x.err = bad_args("argument 'file_path' contains a NUL byte");
	if (failed(&x) || jv_get_kind(*session) != JV_KIND_OBJECT) {
		jv_free(path);
		return failed(&x) ? x.err : no_session(0);
	}
	ph = phase_of(*session);
	if (ph != PH_READY) {
		r = set(jv_object(), "allowed", jv_false());
		r = set(r, "error", fmt("Write not allowed in phase %s", gate_phase_names[ph]));
		goto out;
	}
	explored = explored_files(*session);
	if (!jlen(explored)) {
		jv_free(explored);
		r = set(set(jv_object(), "allowed", jv_true()), "error", jv_null());
		goto out;
	}
	if (g->repo) {
		/* in the repository, never out of it */
		exists = gate_repo_target(g, jv_string_value(path), &rel, err, sizeof err);
		if (exists < 0)
			why = jv_string(err);
	} else {
		exists = stat(jv_string_value(path), &st) == 0;
	}
	if (jv_get_kind(why) == JV_KIND_NULL)
		why = validate_write_target(rel && jv_string_value(path)[0] == '/' ? rel :
		    jv_string_value(path), explored, exists, allow);
	if (jv_get_kind(why) == JV_KIND_NULL) {
		r = set(set(jv_object(), "allowed", jv_true()), "error", jv_null());
		jv_free(explored);
	} else {
		r = set(jv_object(), "allowed", jv_false());
		r = set(r, "error", jv_copy(why));
		r = set(r, "explored_files", explored);
		r = set(r, "hint", jv_string("Add the file to exploration first, or run "
		    "additional exploration."));
	}
out:
	r = set(r, "current_phase", phase_name(ph));
	log_decision(c, session, "check_write_target", ph, r, now);
	free(rel);
	jv_free(why);
	jv_free(path);
	return r;
}

/* ---- record_outcome and get_outcome_stats (the OutcomeLog) ---- */

static int
one_of(const char *s, const char *const *v)
{
	for (int i = 0; v[i]; i++)
		if (strcmp(s, v[i]) == 0)
			return 1;
	return 0;
}

jv
cc_gate_record_outcome(struct cc_gate_ctx *c, jv args, jv *session, time_t now)
{
	static const char *const outcomes[] = { "success", "failure", "partial", NULL };
	const struct cc_gate *g = c->gate;
	struct args x, y;
	jv sid, outcome, analysis, trigger, a = jv_object(), line, r, exp, sem;
	jv root = jv_null(), point = jv_null(), rs = jv_array(), rf = jv_array(), fb = jv_null();
	char ts[32];

	if (args_begin(&x, args) < 0) {
		jv_free(a);
		jv_free(rs);
		jv_free(rf);
		return x.err;
	}
	sid = arg_str(&x, "session_id", 1, CC_GATE_MAX_SESSION_ID);
	outcome = arg_str(&x, "outcome", 1, 16);
	analysis = arg_obj(&x, "analysis");
	trigger = arg_str(&x, "trigger_message", 0, CC_GATE_MAX_TEXT);
	if (!failed(&x) && !one_of(jv_string_value(outcome), outcomes))
		x.err = bad_args("argument 'outcome' must be success, failure or partial");
	if (!failed(&x) && jv_get_kind(analysis) == JV_KIND_OBJECT) {
		args_begin(&y, analysis);
		root = arg_str(&y, "root_cause", 0, CC_GATE_MAX_TEXT);
		point = arg_str(&y, "failure_point", 0, 32);
		jv_free(rs);
		rs = arg_strings(&y, "related_symbols", CC_GATE_MAX_NAME);
		jv_free(rf);
		rf = arg_strings(&y, "related_files", CC_GATE_MAX_NAME);
		fb = arg_str(&y, "user_feedback_summary", 0, CC_GATE_MAX_TEXT);
		if (!failed(&y) && jv_get_kind(point) == JV_KIND_STRING &&
		    gate_phase_parse(jv_string_value(point)) < 0)
			y.err = bad_args("argument 'analysis.failure_point' must be a phase or null");
		if (failed(&y))
			x.err = y.err;
	}
	if (failed(&x)) {
		jv_free(sid);
		jv_free(outcome);
		jv_free(analysis);
		jv_free(trigger);
		jv_free(a);
		jv_free(root);
		jv_free(point);
		jv_free(rs);
		jv_free(rf);
		jv_free(fb);
		return x.err;
	}
	iso_time(now, ts, sizeof ts);
	a = set(a, "root_cause", jv_get_kind(root) == JV_KIND_STRING ? root : jv_string(""));
	a = set(a, "failure_point", point);
	a = set(a, "related_symbols", rs);
	a = set(a, "related_files", rf);
	a = set(a, "user_feedback_summary", jv_get_kind(fb) == JV_KIND_STRING ? fb :
	    jv_string(""));
	exp = get(*session, "exploration");
	sem = get(*session, "semantic");
	line = set(jv_object(), "session_id", jv_copy(sid));
	line = set(line, "timestamp", jv_string(ts));
	line = set(line, "outcome", jv_copy(outcome));
	line = set(line, "phase_at_outcome", jv_get_kind(*session) == JV_KIND_OBJECT ?
	    phase_name(phase_of(*session)) : jv_string("UNKNOWN"));
	line = set(line, "intent", jv_get_kind(*session) == JV_KIND_OBJECT ?
	    get(*session, "intent") : jv_string("UNKNOWN"));
	line = set(line, "devrag_used", jv_bool(jv_get_kind(sem) == JV_KIND_OBJECT));
	line = set(line, "confidence_was", gstr(exp, "evaluated_confidence") ?
	    get(exp, "evaluated_confidence") : jv_string(""));
	line = set(line, "trigger_message", str_or(trigger, ""));
	line = set(line, "analysis", a);
	line = set(line, "record_id", fmt("outcome_%s_%s%s%s", jv_string_value(sid), ts,
	    c->nonce ? "_" : "", c->nonce ? c->nonce : ""));
	if (jv_get_kind(*session) == JV_KIND_OBJECT) {
		jv list = get(*session, "outcomes");

		if (jv_get_kind(list) != JV_KIND_ARRAY) {
			jv_free(list);
			list = jv_array();
		}
		/* the latest hundred, for get_session_status; the log keeps all */
		while (jlen(list) >= 100)
			list = jv_array_slice(list, 1, jlen(list));
		list = jv_array_append(list, set(set(set(jv_object(), "record_id",
		    get(line, "record_id")), "outcome", jv_copy(outcome)), "timestamp",
		    jv_string(ts)));
		*session = set(*session, "outcomes", list);
	}
	r = set(jv_object(), "success", jv_true());
	r = set(r, "log_file", g->log_dir ? fmt("%s/outcomes.ndjson", g->log_dir) :
	    g->log_store ? jv_string("store:outcomes") : jv_null());
	r = set(r, "record_id", get(line, "record_id"));
	log_line(c, "outcomes", line);
	jv_free(exp);
	jv_free(sem);
	jv_free(sid);
	jv_free(outcome);
	jv_free(analysis);
	jv_free(trigger);
	return r;
}

static jv
counts3(void)
{
	return set(set(set(jv_object(), "success", jv_number(0)), "failure", jv_number(0)),
	    "partial", jv_number(0));
}

static jv
counts2(void)
{
	return set(set(jv_object(), "success", jv_number(0)), "failure", jv_number(0));
}

/* get_failure_stats' shape, with no outcome yet. */
static jv
stats_empty(void)
{
	jv s = set(jv_object(), "total", jv_number(0));

	s = set(s, "by_outcome", counts3());
	s = set(s, "by_intent", jv_object());
	s = set(s, "by_phase", jv_object());
	s = set(s, "devrag_correlation", set(set(jv_object(), "with_devrag", counts2()),
	    "without_devrag", counts2()));
	return set(s, "confidence_correlation", set(set(jv_object(), "high", counts2()),
	    "low", counts2()));
}

/* Add 1 at the path a.b.c of an object (made on the way when missing). */
static jv
bump(jv o, const char *a, const char *b, const char *c3)
{
	jv path = jv_array_append(jv_array_append(jv_array(), jv_string(a)), jv_string(b));
	jv v;
	jv n;

	if (c3)
		path = jv_array_append(path, jv_string(c3));
	v = jv_getpath(jv_copy(o), jv_copy(path));
	n = jv_number(jv_get_kind(v) == JV_KIND_NUMBER ? jv_number_value(v) + 1 : 1);
	jv_free(v);
	return jv_setpath(o, path, n);
}

jv
gate_stats_add(jv stats, jv line)
{
	const char *outcome = gstr(line, "outcome"), *intent = gstr(line, "intent");
	const char *phase = gstr(line, "phase_at_outcome"), *conf = gstr(line, "confidence_was");
	jv devrag = get(line, "devrag_used"), total;
	int sf;

	if (jv_get_kind(stats) != JV_KIND_OBJECT) {
		jv_free(stats);
		stats = stats_empty();
	}
	outcome = outcome ? outcome : "unknown";
	intent = intent ? intent : "unknown";
	phase = phase ? phase : "unknown";
	sf = !strcmp(outcome, "success") || !strcmp(outcome, "failure");
	total = get(stats, "total");
	stats = set(stats, "total", jv_number(jv_get_kind(total) == JV_KIND_NUMBER ?
	    jv_number_value(total) + 1 : 1));
	jv_free(total);
	if (sf || !strcmp(outcome, "partial"))
		stats = bump(stats, "by_outcome", outcome, NULL);
	{
		jv bi = get(stats, "by_intent"), bp = get(stats, "by_phase");
		jv i = get(bi, intent), p = get(bp, phase);

		if (jv_get_kind(i) != JV_KIND_OBJECT)
			stats = jv_setpath(stats, jv_array_append(jv_array_append(jv_array(),
			    jv_string("by_intent")), jv_string(intent)), counts3());
		if (jv_get_kind(p) != JV_KIND_OBJECT)
			stats = jv_setpath(stats, jv_array_append(jv_array_append(jv_array(),
			    jv_string("by_phase")), jv_string(phase)), counts3());
		jv_free(i);
		jv_free(p);
		jv_free(bi);
		jv_free(bp);
	}
	if (sf || !strcmp(outcome, "partial")) {
		stats = bump(stats, "by_intent", intent, outcome);
		stats = bump(stats, "by_phase", phase, outcome);
	}
	if (sf) {
		stats = bump(stats, "devrag_correlation", jv_get_kind(devrag) == JV_KIND_TRUE ?
		    "with_devrag" : "without_devrag", outcome);
		if (conf && (!strcmp(conf, "high") || !strcmp(conf, "low")))
			stats = bump(stats, "confidence_correlation", conf, outcome);
	}
	jv_free(devrag);
	return stats;
}

jv
cc_gate_get_outcome_stats(struct cc_gate_ctx *c, jv args, jv *stats, time_t now)
{
	(void)c;
	(void)now;
	if (jv_get_kind(args) != JV_KIND_OBJECT && jv_get_kind(args) != JV_KIND_NULL) {
		struct args x;

		args_begin(&x, args);
		return x.err;
	}
	return jv_get_kind(*stats) == JV_KIND_OBJECT ? jv_copy(*stats) : stats_empty();
}

/* ---- the tools the gate lets through or not ---- */

int
cc_gate_knows(const struct cc_gate *g, const char *tool)
{
	return cc_gate_tool(tool) != NULL || strv_has(&g->known, tool);
}

jv
cc_gate_allowed(struct cc_gate *g, const char *tool, jv session)
{
	jv r;
	int ph;

	if (jv_get_kind(session) != JV_KIND_OBJECT || cc_gate_tool(tool))
		return jv_null();	/* no session: every tool (the original's rule) */
	ph = phase_of(session);
	if (tool_allowed(g, ph, tool))
		return jv_null();
	r = set(jv_object(), "error", jv_string("phase_blocked"));
	if (ph == PH_EXPLORATION && strcmp(tool, "devrag_search") == 0)
		r = set(r, "message", jv_string(gate_text(g, "blocked_exploration_devrag")));
	else if (ph == PH_VERIFICATION && strcmp(tool, "devrag_search") == 0)
		r = set(r, "message", jv_string(gate_text(g, "blocked_verification_devrag")));
	else
		r = set(r, "message", fmt("Tool '%s' is not allowed in phase %s", tool,
		    gate_phase_names[ph]));
	r = set(r, "current_phase", phase_name(ph));
	r = set(r, "allowed_tools", allowed_tools(g, ph));
	return set(r, "hint", jv_string("Use get_session_status to see current phase "
	    "requirements."));
}

/* The original's summary of a tool's answer (v3.5 result_detail). */
static jv
summarise(jv result, jv *detail)
{
	static const char *const lists[] = { "matches", "definitions", "references",
	    "symbols", NULL };
	jv e;

	*detail = jv_null();
	if (jv_get_kind(result) != JV_KIND_OBJECT)
		return jv_string("");
	e = get(result, "error");
	if (jv_get_kind(e) != JV_KIND_NULL) {
		jv s = jv_get_kind(e) == JV_KIND_STRING ? fmt("error: %s", jv_string_value(e)) :
		    jv_string("error");

		*detail = set(set(jv_object(), "status", jv_string("error")), "error_type",
		    str_or(e, "unknown"));
		jv_free(e);
		return s;
	}
	jv_free(e);
	for (int i = 0; lists[i]; i++) {
		jv l = get(result, lists[i]);

		if (jv_get_kind(l) != JV_KIND_NULL) {
			int n = jlen(l);

			jv_free(l);
			*detail = set(set(jv_object(), "status", jv_string(n ? "found" : "no_match")),
			    "hit_count", jv_number(n));
			return fmt("%d %s", n, lists[i]);
		}
		jv_free(l);
	}
	*detail = set(jv_object(), "status", jv_string("completed"));
	return jv_string("completed");
}

/* The arguments as recorded: whole when small, else a note of their size. */
static jv
params_of(jv args)
{
	struct cc_buf b = {0};
	jv p;

	cc_json_put(&b, args);
	p = b.len <= 4096 ? jv_copy(args) : set(set(jv_object(), "truncated", jv_true()),
	    "bytes", jv_number((double)b.len));
	cc_buf_release(&b);
	return p;
}

#define KEEP_CALLS 200		/* tool calls kept in the session; all are counted */

jv
cc_gate_use(struct cc_gate_ctx *c, const char *tool, jv args, jv result, jv *session,
    time_t now)
{
	struct cc_gate *g = c->gate;
	jv blocked, calls, used, count, rec, detail, r;
	int ph;

	if (!cc_gate_knows(g, tool)) {
		r = error_answer("unknown_tool", fmt("Unknown tool: %s", tool));
		return set(r, "known_tools", strv_json(&g->known));
	}
	if (jv_get_kind(*session) != JV_KIND_OBJECT) {
		r = set(jv_object(), "allowed", jv_true());
		r = set(r, "recorded", jv_false());
		return set(r, "message", jv_string("No active session: the call is not gated."));
	}
	ph = phase_of(*session);
	blocked = cc_gate_allowed(g, tool, *session);
	if (jv_get_kind(blocked) == JV_KIND_OBJECT) {
		log_decision(c, session, tool, ph, blocked, now);
		return blocked;
	}
	jv_free(blocked);
	rec = set(jv_object(), "tool", jv_string(tool));
	rec = set(rec, "params", params_of(args));
	rec = set(rec, "result_summary", summarise(result, &detail));
	rec = set(rec, "phase", phase_name(ph));
	rec = set(rec, "timestamp", iso(now));
	if (jv_get_kind(detail) == JV_KIND_OBJECT)
		rec = set(rec, "result_detail", detail);
	else
		jv_free(detail);
	calls = get(*session, "tool_calls");
	if (jv_get_kind(calls) != JV_KIND_ARRAY) {
		jv_free(calls);
		calls = jv_array();
	}
	while (jlen(calls) >= KEEP_CALLS)
		calls = jv_array_slice(calls, 1, jlen(calls));
	calls = jv_array_append(calls, rec);
	used = strings(*session, "tools_used");
	if (!has_string(used, tool))
		used = jv_array_append(used, jv_string(tool));
	count = get(*session, "tool_calls_count");
	*session = set(*session, "tool_calls", calls);
	*session = set(*session, "tools_used", used);
	*session = set(*session, "tool_calls_count", jv_number(jv_get_kind(count) ==
	    JV_KIND_NUMBER ? jv_number_value(count) + 1 : 1));
	jv_free(count);
	r = set(jv_object(), "recorded", jv_true());
	r = set(r, "tool", jv_string(tool));
	return set(r, "current_phase", phase_name(ph));
}
