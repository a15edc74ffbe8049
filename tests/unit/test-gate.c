/*
 * Unit tests of the gate's library (lib/codeintel): Python's string
 * semantics the original's rules rely on, the QueryFrame rules on the peer
 * vectors (semconsistent, related, risk), the data files' loader, and the
 * tools called directly on a session held in memory (no store).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_session.h"
#include "codeintel/cc_gate_int.h"
#include "tap.h"

#define J(text) cc_json_parse((text), strlen(text))

static char *
path_of(const char *rel)
{
	const char *top = getenv("top_srcdir");
	size_t n = strlen(top ? top : ".") + strlen(rel) + 2;
	char *p = cc_xmalloc(n);

	snprintf(p, n, "%s/%s", top ? top : ".", rel);
	return p;
}

static struct gs
S(const char *s)
{
	return (struct gs){ s, strlen(s) };
}

static void
test_python(void)
{
	struct gs w[8];
	struct cc_buf b = {0};
	char *s;
	size_t n;
	int32_t *cs;
	jv l;

	is_int(py_len(S("エラーが出ない")), 7, "len counts code points (7, not 21 bytes)");
	is_int(py_len(S("")), 0, "len of nothing");
	s = py_lower(S("LOGIN Ａｕｔｈ ÄÖ"), &n);
	is_str(s, "login ａｕｔｈ äö", "lower(): Unicode-aware, no NFKC");
	free(s);
	s = py_lower(S("\xc4\xb0"), &n);
	is_str(s, "i\xcc\x87", "lower() of U+0130 is two code points, as Python's");
	free(s);
	is_int(py_split(S("  a\xe3\x80\x80" "b\tc \xc2\xa0" "d  "), w, 8), 4,
	    "split() on U+3000, tab and no-break space");
	ok(w[1].n == 1 && w[1].s[0] == 'b' && w[3].n == 1 && w[3].s[0] == 'd', "the words");
	is_int(py_split(S("a\xe2\x80\x8b" "b"), w, 8), 1, "U+200B is no space for split()");
	is_int(py_split(S(""), w, 8), 0, "split() of nothing is no word");
	ok(py_in(S(""), S("abc")) && py_in(S("bc"), S("abc")) && !py_in(S("abcd"), S("abc")),
	    "substring tests, '' in everything");
	is_int(py_charset(S("abcab"), &cs), 3, "the distinct characters");
	free(cs);
	py_repr(&b, S("it's"));
	is_str(b.data, "\"it's\"", "repr() picks double quotes for a quote inside");
	b.len = 0;
	py_repr(&b, S("a\tb\x01\xe3\x80\x80\xe3\x83\xad"));
	is_str(b.data, "'a\\tb\\x01\\u3000ロ'", "repr() escapes what Python does not print");
	b.len = 0;
	l = jv_array_append(jv_array_append(jv_array(), jv_string("A")), jv_string("B"));
	py_repr_list(&b, l);
	jv_free(l);
	is_str(b.data, "['A', 'B']", "a list's repr");
	b.len = 0;
	{
		const char *v[] = { "find_references", "find_definitions", "find_references" };

		py_repr_set(&b, v, 3);
		is_str(b.data, "{'find_definitions', 'find_references'}", "a set's repr, sorted");
		b.len = 0;
		py_repr_set(&b, v, 0);
		is_str(b.data, "set()", "the empty set");
	}
	cc_buf_release(&b);
	{
		static const char *const np[][2] = {
			{ "./auth/../auth/service.py", "auth/service.py" },
			{ "", "." }, { "/../a", "/a" }, { "../../a/./b", "../../a/b" },
			{ "//x//y/", "//x/y" }, { "///x", "/x" }, { "a/..", "." },
		};

		for (size_t i = 0; i < sizeof np / sizeof np[0]; i++) {
			s = py_normpath(np[i][0]);
			is_str(s, np[i][1], "normpath('%s')", np[i][0]);
			free(s);
		}
	}
	s = py_dirname("auth/x.py");
	is_str(s, "auth", "dirname");
	free(s);
	s = py_dirname("x.py");
	is_str(s, "", "dirname of a bare name");
	free(s);
	s = py_dirname("//x");
	is_str(s, "//", "dirname keeps a root of slashes");
	free(s);
	s = py_basename("a/b/");
	is_str(s, "", "basename after a slash");
	free(s);
}

/* Every line of a peer file, parsed; calls fn on each. */
static void
each(const char *file, void (*fn)(struct cc_gate *, jv), struct cc_gate *g)
{
	char *p = path_of(file), *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f = fopen(p, "r");

	ok(f != NULL, "%s", file);
	while (f && (len = getline(&line, &cap, f)) > 0) {
		jv v = cc_json_parse(line, (size_t)len);

		if (jv_get_kind(v) == JV_KIND_OBJECT)
			fn(g, v);
		jv_free(v);
	}
	if (f)
		fclose(f);
	free(line);
	free(p);
}

static const char *
member(jv o, const char *k)
{
	jv v = jv_object_get(jv_copy(o), jv_string(k));
	const char *s = jv_get_kind(v) == JV_KIND_STRING ? jv_string_value(v) : "";

	jv_free(v);
	return s;
}

/*
 * The risk of a frame as a session holds it (JSON): the gate reads the
 * slots and the HYPOTHESIS marks and asks cc_qframe_risk.  The consistency
 * and NL->symbol vectors are replayed on cc_qframe and cc_synonyms by
 * test-codeintel; the gate calls those.
 */
static void
one_risk(struct cc_gate *g, jv v)
{
	jv frame = jv_object_get(jv_copy(v), jv_string("frame"));
	jv expect = jv_object_get(jv_copy(v), jv_string("expect"));
	const struct gate_intent *in = gate_intent_find(g, member(v, "intent"));

	/* an intent the gate does not know behaves as the default one */
	if (!in)
		in = &g->intents[g->default_intent];
	is_str(gate_risk(frame, in), member(expect, "risk_level"), "risk %s",
	    member(v, "id"));
	jv_free(frame);
	jv_free(expect);
}

static struct cc_gate *
load(void)
{
	char *c = path_of("share/concierge/code-intel/gate.conf");
	char *f = path_of("share/concierge/code-intel"), err[512];
	struct cc_gate *g = cc_gate_load(c, f, err, sizeof err);

	ok(g != NULL, "the bundled gate data loads%s%s", g ? "" : ": ", g ? "" : err);
	free(c);
	free(f);
	return g;
}

static void
test_loader(void)
{
	static const struct {
		const char *conf, *err;
	} bad[] = {
		{ "phase NOWHERE x\n", "x.conf:1: phase: expected" },
		{ "intent A\nintent A\n", "x.conf:2: intent: expected a new" },
		{ "intent A zoom\n", "unknown role 'zoom'" },
		{ "requires * * 1 0 1 0\n", "unknown directive 'requires'" },
		{ "bogus\n", "unknown directive 'bogus'" },
		{ "phase READY *\n", "no phase line for EXPLORATION" },
	};
	char dir[] = "/tmp/cc-gate-test.XXXXXX", conf[300], frame[300], err[512];
	struct cc_gate *g;
	FILE *f;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(conf, sizeof conf, "%s/x.conf", dir);
	snprintf(frame, sizeof frame, "%s/x.frame", dir);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		f = fopen(conf, "w");
		fputs(bad[i].conf, f);
		fclose(f);
		g = cc_gate_load(conf, frame, err, sizeof err);
		ok(!g && strstr(err, bad[i].err), "a bad gate.conf is refused: %s", bad[i].err);
		if (!ok(!g, "...and nothing loaded"))
			cc_gate_free(g);
		else if (!strstr(err, bad[i].err))
			printf("#   got: %s\n", err);
	}
	g = cc_gate_load("/nonexistent/gate.conf", frame, err, sizeof err);
	ok(!g && strstr(err, "cannot open '/nonexistent/gate.conf'"), "a missing file is named");
	/* a good gate.conf, and a directory without cc-frame's data */
	{
		char *good = path_of("share/concierge/code-intel/gate.conf");

		g = cc_gate_load(good, dir, err, sizeof err);
		ok(!g && strstr(err, "synonyms"), "the QueryFrame's data is required: %s", err);
		if (g)
			cc_gate_free(g);
		free(good);
	}
	unlink(conf);
	rmdir(dir);
}

/* The tools on a session in memory. */
static jv
run(struct cc_gate *g, cc_gate_fn fn, const char *args, jv *s)
{
	struct cc_gate_ctx c = { .gate = g, .session_id = "u1", .logs = jv_array() };
	jv a = cc_json_parse(args, strlen(args)), r = fn(&c, a, s, 1736902800);

	jv_free(a);
	jv_free(c.logs);
	return r;
}

static const char *
field(jv r, const char *k)
{
	static char buf[256];
	jv v = jv_object_get(jv_copy(r), jv_string(k));

	if (jv_get_kind(v) == JV_KIND_STRING)
		snprintf(buf, sizeof buf, "%s", jv_string_value(v));
	else if (jv_get_kind(v) == JV_KIND_TRUE || jv_get_kind(v) == JV_KIND_FALSE)
		snprintf(buf, sizeof buf, "%s", jv_get_kind(v) == JV_KIND_TRUE ? "true" : "false");
	else
		snprintf(buf, sizeof buf, "(%d)", (int)jv_get_kind(v));
	jv_free(v);
	return buf;
}

static void
test_tools(struct cc_gate *g)
{
	jv s = jv_null(), r, res;
	struct cc_gate_ctx c = { .gate = g, .logs = jv_array() };

	r = run(g, cc_gate_submit_understanding, "{}", &s);
	is_str(field(r, "error"), "no_active_session", "no session: an error answer");
	ok(cc_gate_is_error(r), "...which is an error answer");
	jv_free(r);
	r = run(g, cc_gate_start_session, "{\"intent\": 5, \"query\": \"x\"}", &s);
	is_str(field(r, "error"), "invalid_arguments", "an intent of the wrong type");
	jv_free(r);
	ok(jv_get_kind(s) == JV_KIND_NULL, "...makes no session");
	r = run(g, cc_gate_start_session, "{\"intent\": \"implement\", \"query\": \"x\"}", &s);
	is_str(field(r, "intent"), "IMPLEMENT", "an intent is upper-cased");
	jv_free(r);
	r = cc_gate_use(&c, "devrag_search", jv_null(), jv_null(), &s, 0);
	is_str(field(r, "error"), "phase_blocked", "devrag_search is blocked in EXPLORATION");
	jv_free(r);
	res = J("{\"definitions\": [1, 2]}");
	r = cc_gate_use(&c, "find_definitions", jv_null(), res, &s, 0);
	is_str(field(r, "recorded"), "true", "find_definitions is recorded");
	jv_free(r);
	jv_free(res);
	r = cc_gate_use(&c, "no_such_tool", jv_null(), jv_null(), &s, 0);
	is_str(field(r, "error"), "unknown_tool", "a tool no phase names is unknown");
	jv_free(r);
	r = run(g, cc_gate_submit_understanding, "{\"symbols_identified\": \"AuthService\"}", &s);
	is_str(field(r, "error"), "invalid_arguments", "a string for a list is refused");
	jv_free(r);
	r = run(g, cc_gate_submit_understanding, "{\"symbols_identified\": \"[\\\"A\\\"]\"}", &s);
	is_str(field(r, "next_phase"), "SEMANTIC", "a list sent as JSON text is taken");
	jv_free(r);
	r = run(g, cc_gate_set_query_frame, "{\"target_feature\": {\"value\": \"x\", \"quote\": \"x\"}}",
	    &s);
	is_str(field(r, "error"), "frame_locked", "no new frame once the exploration is in");
	jv_free(r);
	r = run(g, cc_gate_get_outcome_stats, "{}", &s);
	ok(jv_get_kind(r) == JV_KIND_OBJECT, "statistics of nothing");
	jv_free(r);
	jv_free(s);
	jv_free(c.logs);
}

/* The store layer: what an MCP server does around a tool it runs itself. */
static void
test_store(struct cc_gate *g)
{
	char dir[] = "/tmp/cc-gate-store.XXXXXX", err[512], cmd[300], *sid = NULL, *ph;
	struct cc_config cfg;
	struct cc_session *store;
	jv r, args, res;
	int st;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	setenv("CC_STATE_DIR", dir, 1);
	cc_config_load(&cfg);
	store = cc_session_open(&cfg, 0, err, sizeof err);
	if (!ok(store != NULL, "a store")) {
		cc_config_release(&cfg);
		return;
	}
	args = J("{\"intent\": \"MODIFY\", \"query\": \"x\"}");
	r = cc_gate_call(g, store, "start_session", args, jv_null(), NULL, cfg.now, &sid, &st);
	jv_free(args);
	ok(st == 0 && sid && strncmp(sid, "session_", 8) == 0, "start_session makes an id: %s",
	    sid ? sid : "(none)");
	jv_free(r);
	r = cc_gate_check(g, store, "devrag_search", sid);
	is_str(field(r, "error"), "phase_blocked", "check: devrag_search may not run");
	jv_free(r);
	r = cc_gate_check(g, store, "find_definitions", sid);
	ok(jv_get_kind(r) == JV_KIND_NULL, "check: find_definitions may");
	jv_free(r);
	r = cc_gate_check(g, store, "nonsense", sid);
	is_str(field(r, "error"), "unknown_tool", "check: a tool no phase names");
	jv_free(r);
	r = cc_gate_check(g, store, "devrag_search", "no-such-session");
	ok(jv_get_kind(r) == JV_KIND_NULL, "check: no session, no gate");
	jv_free(r);
	args = J("{\"symbol\": \"A\"}");
	res = J("{\"definitions\": []}");
	r = cc_gate_call(g, store, "find_definitions", args, res, sid, cfg.now, NULL, &st);
	jv_free(args);
	jv_free(res);
	is_str(field(r, "recorded"), "true", "then the call is recorded with its answer");
	jv_free(r);
	ph = cc_gate_phase_of(store, sid);
	is_str(ph, "EXPLORATION", "the phase in the store");
	free(ph);
	args = J("\"{\\\"x\\\": 1}\"");
	r = cc_gate_call(g, store, "get_session_status", args, jv_null(), sid, cfg.now, NULL, &st);
	is_int(st, 0, "arguments as a JSON string holding an object");
	jv_free(r);
	jv_free(args);
	args = jv_number(3);
	r = cc_gate_call(g, store, "get_session_status", args, jv_null(), sid, cfg.now, NULL, &st);
	ok(st == 3 && strcmp(field(r, "error"), "invalid_arguments") == 0, "arguments that are a number");
	jv_free(r);
	cc_session_close(store);
	cc_config_release(&cfg);
	free(sid);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ok(system(cmd) == 0, "cleaned up");
	unsetenv("CC_STATE_DIR");
}

int
main(void)
{
	struct cc_gate *g;

	test_python();
	test_loader();
	if (!(g = load()))
		return 1;
	each("tests/data/code-intel/peer/risk.ndjson", one_risk, g);
	test_tools(g);
	test_store(g);
	cc_gate_free(g);
	return tap_done();
}
