/*
 * Fuzz target "gate": an agent's arguments through the phase gate's tools
 * (lib/codeintel), on sessions held in memory in each phase, as cc-gate
 * and an MCP server hand them over: a JSON text, or a JSON string holding
 * one.  The first byte picks the tool (a gate tool, or an exploration tool
 * the gate lets through or blocks); the second the session's phase.  A
 * first byte of 0xFF makes the rest a stored session instead, read as
 * cc_gate_call() reads one and given to every tool.
 *
 * Checked: every answer is one JSON object that serialises and scans back;
 * an answer is an error answer or not, never both kinds of failure; the
 * session after a call is still one the gate can read; the logs are
 * {log, line} objects.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "codeintel/cc_gate.h"
#include "fuzz.h"

static struct cc_gate *gate;
static jv phases[4];	/* a session in EXPLORATION, SEMANTIC, VERIFICATION, READY */

static const char *const explore[] = {
	"find_definitions", "find_references", "search_text", "devrag_search", "query",
	"analyze_structure", "no_such_tool",
};
#define NEXPLORE (sizeof explore / sizeof explore[0])

static jv
call(const char *tool, jv args, jv *s)
{
	const struct cc_gate_tool *t = cc_gate_tool(tool);
	struct cc_gate_ctx c = { .gate = gate, .session_id = "fz", .logs = jv_array() };
	struct cc_buf b = {0};
	struct cc_json_doc doc = {0};
	char why[256];
	jv r;

	r = t ? t->fn(&c, args, s, 1736902800) :
	    cc_gate_use(&c, tool, args, jv_null(), s, 1736902800);
	fuzz_assert(jv_get_kind(r) == JV_KIND_OBJECT);
	cc_json_put(&b, r);
	fuzz_assert(cc_json_scan(&doc, b.data, b.len) == 0 && doc.text.data[0] == '{');
	fuzz_assert(jv_get_kind(*s) == JV_KIND_NULL || cc_gate_session_check(*s, why, sizeof why));
	fuzz_assert(jv_get_kind(c.logs) == JV_KIND_ARRAY);
	jv_array_foreach(c.logs, i, l) {
		jv line = jv_object_get(jv_copy(l), jv_string("line"));

		fuzz_assert(jv_get_kind(line) == JV_KIND_OBJECT);
		jv_free(line);
		jv_free(l);
	}
	(void)cc_gate_is_error(r);
	cc_json_doc_release(&doc);
	cc_buf_release(&b);
	jv_free(c.logs);
	return r;
}

static jv
parse(const char *text)
{
	return cc_json_parse(text, strlen(text));
}

/* The sessions the inputs are tried on, made once through the tools. */
static void
setup(void)
{
	const char *dir = getenv("CC_DATADIR");
	char conf[4096], frame[4096], err[512];
	jv s = jv_null(), a;
	static const char *const script[][2] = {
		{ "start_session", "{\"intent\": \"MODIFY\", \"query\": \"ログイン機能でエラーが出ない\"}" },
		{ "set_query_frame", "{\"target_feature\": {\"value\": \"ログイン機能\", \"quote\": "
		  "\"ログイン機能\"}, \"observed_issue\": {\"value\": \"エラーが出ない\", \"quote\": "
		  "\"エラーが出ない\"}}" },
		{ "find_definitions", "{}" },
		{ "find_references", "{}" },
		{ "submit_understanding", "{\"symbols_identified\": [\"X\"]}" },
		{ "submit_semantic", "{\"hypotheses\": [{\"text\": \"h\", \"slot\": \"trigger_condition\"}], "
		  "\"devrag_reason\": \"architecture_unknown\"}" },
		{ "submit_verification", "{\"verified\": [{\"hypothesis\": \"h\", \"status\": "
		  "\"confirmed\", \"slot\": \"trigger_condition\", \"evidence\": {\"tool\": \"query\", "
		  "\"target\": \"t\", \"result\": \"r\"}}]}" },
	};

	if (dir && *dir) {
		snprintf(conf, sizeof conf, "%s/code-intel/gate.conf", dir);
		snprintf(frame, sizeof frame, "%s/code-intel", dir);
	} else {
		/* the source tree, from where this file is */
		const char *slash = strrchr(__FILE__, '/');
		int n = slash ? (int)(slash - __FILE__) : 1;

		snprintf(conf, sizeof conf, "%.*s/../../share/concierge/code-intel/gate.conf",
		    n, slash ? __FILE__ : ".");
		snprintf(frame, sizeof frame, "%.*s/../../share/concierge/code-intel",
		    n, slash ? __FILE__ : ".");
	}
	if (!(gate = cc_gate_load(conf, frame, err, sizeof err))) {
		fprintf(stderr, "gate: %s\n", err);
		abort();
	}
	for (size_t i = 0; i < sizeof script / sizeof script[0]; i++) {
		jv r;

		a = parse(script[i][1]);
		r = call(script[i][0], a, &s);
		jv_free(r);
		jv_free(a);
		/* the phases, as the script passes through them */
		if (i == 3)
			phases[0] = jv_copy(s);
		else if (i == 4)
			phases[1] = jv_copy(s);
		else if (i == 5)
			phases[2] = jv_copy(s);
		else if (i == 6)
			phases[3] = jv_copy(s);
	}
	jv_free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	jv args, s;
	size_t ntools = cc_gate_ntools + NEXPLORE;

	if (!gate)
		setup();
	if (size < 2)
		return 0;
	args = cc_json_parse((const char *)data + 2, size - 2);
	if (data[0] == 0xFF) {
		/* a stored session, read as cc_gate_call() reads one */
		char why[256];

		if (jv_get_kind(args) == JV_KIND_OBJECT && cc_gate_session_check(args, why, sizeof why)) {
			for (size_t t = 0; t < ntools; t++) {
				jv r, a = parse("{\"symbols_identified\": [\"A\"], \"file_path\": \"a\", "
				    "\"hypotheses\": [\"h\"], \"devrag_reason\": \"architecture_unknown\", "
				    "\"verified\": [{\"hypothesis\": \"h\", \"status\": \"confirmed\", "
				    "\"evidence\": {\"tool\": \"query\", \"target\": \"t\", \"result\": \"r\"}}], "
				    "\"session_id\": \"fz\", \"outcome\": \"failure\", \"analysis\": {}}");

				s = jv_copy(args);
				r = call(t < cc_gate_ntools ? cc_gate_tools[t].name :
				    explore[t - cc_gate_ntools], a, &s);
				jv_free(r);
				jv_free(a);
				jv_free(s);
			}
		}
		jv_free(args);
		return 0;
	}
	/* arguments given as a JSON string holding the object, as some clients send them */
	if (jv_get_kind(args) == JV_KIND_STRING) {
		jv inner = cc_json_parse(jv_string_value(args),
		    (size_t)jv_string_length_bytes(jv_copy(args)));

		jv_free(args);
		args = inner;
	}
	if (jv_is_valid(args)) {
		size_t t = data[0] % ntools;
		jv r;

		s = jv_copy(phases[data[1] % 4]);
		r = call(t < cc_gate_ntools ? cc_gate_tools[t].name : explore[t - cc_gate_ntools],
		    args, &s);
		jv_free(r);
		jv_free(s);
		/* and with no session at all */
		s = jv_null();
		r = call(t < cc_gate_ntools ? cc_gate_tools[t].name : explore[t - cc_gate_ntools],
		    args, &s);
		jv_free(r);
		jv_free(s);
	}
	jv_free(args);
	return 0;
}
