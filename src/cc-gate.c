/* cc-gate: seed 003's phase gate for a coding agent, from the shell or as a stage. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_session.h"
#include "cc_domain.h"
#include "cc_term.h"
#include "codeintel/cc_gate.h"

static const char usage_text[] =
	"usage: cc-gate [options] call TOOL [JSON-ARGS | -]\n"
	"       cc-gate [options] tools\n"
	"       cc-gate [options]          (a stage: records with a \"gate\" request)\n"
	"The phase gate of a coding agent's session: EXPLORATION, SEMANTIC,\n"
	"VERIFICATION, READY, with the original server's tools (cc-gate tools).\n"
	"  -s, --session ID       the session (records: their session_id first)\n"
	"  -r, --repo DIR         check evidence in the repository DIR\n"
	"  -l, --log-dir DIR      decisions.ndjson, outcomes.ndjson (default\n"
	"                         $CC_STATE_DIR/gate)\n"
	"  -n, --no-log           write no log\n"
	"  -p, --pretty           indent the answer\n"
	"  -c, --conf FILE        the gate's data (default: the domain's gate.conf)\n"
	"  -f, --frame DIR        the QueryFrame's data: synonyms, guidance,\n"
	"                         requirements (default: the domain's, cc-frame's)\n"
	"  -D, --domain NAME|DIR  the domain (default $CC_DOMAIN)\n"
	"  -u, --unbuffered       flush after every record\n"
	"  -h, --help             show this help\n"
	"  -V, --version          show the version\n";

struct gatekeeper {
	struct cc_config cfg;
	struct cc_gate *gate;
	struct cc_session *store;
	const char *session;	/* -s */
	int pretty;
};

static void
print(jv v, int pretty)
{
	if (pretty) {
		jv s = jv_dump_string(jv_copy(v), JV_PRINT_INDENT_FLAGS(2));

		fputs(jv_string_value(s), stdout);
		jv_free(s);
	} else {
		struct cc_buf b = {0};

		cc_json_put(&b, v);
		fwrite(b.data, 1, b.len, stdout);
		cc_buf_release(&b);
	}
	fputc('\n', stdout);
}

/* An error answer's code and message on stderr, escaped (it may quote the agent). */
static void
warn_answer(const char *tool, jv ans)
{
	jv code = jv_object_get(jv_copy(ans), jv_string("error"));
	jv msg = jv_object_get(jv_copy(ans), jv_string("message"));
	struct cc_buf b = {0}, t = {0};

	if (jv_get_kind(msg) == JV_KIND_STRING)
		cc_term_escape(&b, jv_string_value(msg),
		    (size_t)jv_string_length_bytes(jv_copy(msg)), 0);
	cc_term_escape(&t, tool, strlen(tool), 0);
	cc_warn("%s: %s%s%s", t.data ? t.data : "", jv_get_kind(code) == JV_KIND_STRING ?
	    jv_string_value(code) : "error", b.len ? ": " : "", b.len ? b.data : "");
	cc_buf_release(&b);
	cc_buf_release(&t);
	jv_free(code);
	jv_free(msg);
}

static struct cc_session *
store(struct gatekeeper *gk)
{
	char err[512];

	if (!gk->store && !(gk->store = cc_session_open(&gk->cfg, 0, err, sizeof err)))
		cc_die(CC_EXIT_INTERNAL, "session store: %s", err);
	return gk->store;
}

/* The arguments from the command line: JSON text, or '-' for standard input. */
static jv
read_args(const char *text)
{
	struct cc_buf b = {0};
	char chunk[65536];
	size_t n;
	jv v;

	if (strcmp(text, "-") != 0) {
		if (strlen(text) > CC_GATE_MAX_ARGS)
			cc_die(CC_EXIT_DATA, "the arguments are larger than %d bytes",
			    CC_GATE_MAX_ARGS);
		v = cc_json_parse(text, strlen(text));
	} else {
		while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
			cc_buf_add(&b, chunk, n);
			if (b.len > CC_GATE_MAX_ARGS) {
				cc_buf_release(&b);
				cc_die(CC_EXIT_DATA, "the arguments are larger than %d bytes",
				    CC_GATE_MAX_ARGS);
			}
		}
		v = cc_json_parse(b.data ? b.data : "", b.len);
		cc_buf_release(&b);
	}
	if (!jv_is_valid(v)) {
		jv_free(v);
		cc_die(CC_EXIT_DATA, "the arguments are not JSON: expected an object, "
		    "such as '{\"file_path\": \"auth/login.py\"}'");
	}
	return v;
}

/* One call; consumes args. */
static int
call(struct gatekeeper *gk, const char *tool, jv args)
{
	jv ans;
	int status;

	ans = cc_gate_call(gk->gate, gk->store, tool, args, jv_null(), gk->session,
	    gk->cfg.now, NULL, &status);
	print(ans, gk->pretty);
	if (status != CC_EXIT_OK)
		warn_answer(tool, ans);
	jv_free(ans);
	jv_free(args);
	return status;
}

/* The record's session (cc_record_session_id), else -s. */
static char *
record_session(struct gatekeeper *gk, struct cc_record *rec)
{
	char *id = cc_record_session_id(rec);

	return id ? id : gk->session ? cc_xstrdup(gk->session) : NULL;
}

/*
 * A record {"session_id", "gate": {"tool", "args", "result"}}: the call's
 * answer replaces the request, {"tool", "session_id", "phase", "result"}.
 * Records without "gate" pass on untouched.
 */
static enum cc_outcome
process(void *ctx, struct cc_record *rec, struct cc_jw *out)
{
	struct gatekeeper *gk = ctx;
	jv req, tool, args, result, ans;
	char *sid, *used = NULL, *phase;
	int status;

	if (!cc_record_has(rec, "gate"))
		return CC_RECORD_PASS;
	req = cc_record_get(rec, "gate");
	tool = jv_get_kind(req) == JV_KIND_OBJECT ?
	    jv_object_get(jv_copy(req), jv_string("tool")) : jv_null();
	if (jv_get_kind(tool) != JV_KIND_STRING || !jv_string_length_bytes(jv_copy(tool)) ||
	    memchr(jv_string_value(tool), '\0', (size_t)jv_string_length_bytes(jv_copy(tool)))) {
		jv_free(req);
		jv_free(tool);
		return cc_record_fail(rec, "bad_request", "\"gate\" must be an object with a "
		    "string \"tool\" (and \"args\")");
	}
	args = jv_object_get(jv_copy(req), jv_string("args"));
	result = jv_object_get(jv_copy(req), jv_string("result"));
	if (!jv_is_valid(result)) {
		jv_free(result);
		result = jv_null();
	}
	sid = record_session(gk, rec);
	ans = cc_gate_call(gk->gate, gk->store, jv_string_value(tool), args, result, sid,
	    gk->cfg.now, &used, &status);
	if (status == CC_EXIT_INTERNAL) {
		jv msg = jv_object_get(jv_copy(ans), jv_string("message"));

		cc_record_fail(rec, "store", "%s", jv_get_kind(msg) == JV_KIND_STRING ?
		    jv_string_value(msg) : "session store failed");
		jv_free(msg);
		jv_free(ans);
		jv_free(req);
		jv_free(tool);
		jv_free(args);
		jv_free(result);
		free(sid);
		return CC_RECORD_FAIL;
	}
	phase = cc_gate_phase_of(gk->store, used);
	cc_jw_object(out);
	cc_jw_key(out, "tool");
	cc_jw_jv(out, tool);
	cc_jw_key(out, "session_id");
	cc_jw_cstr(out, used ? used : sid);
	cc_jw_key(out, "phase");
	cc_jw_cstr(out, phase);
	cc_jw_key(out, "result");
	cc_jw_jv(out, ans);
	cc_jw_end(out);
	free(phase);
	free(used);
	free(sid);
	jv_free(ans);
	jv_free(req);
	jv_free(tool);
	jv_free(args);
	jv_free(result);
	return CC_RECORD_SET;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		CC_COMMON_LONGOPTS,
		{"session", required_argument, NULL, 's'},
		{"repo", required_argument, NULL, 'r'},
		{"log-dir", required_argument, NULL, 'l'},
		{"no-log", no_argument, NULL, 'n'},
		{"pretty", no_argument, NULL, 'p'},
		{"conf", required_argument, NULL, 'c'},
		{"frame", required_argument, NULL, 'f'},
		{NULL, 0, NULL, 0},
	};
	struct gatekeeper gk = {0};
	struct cc_stage stage = { .name = "cc-gate", .key = "gate", .process = process,
		.ctx = &gk };
	struct cc_domain *domain = NULL;
	const char *repo = NULL, *log_dir = NULL, *conf = NULL, *frame = NULL, *cmd;
	char *conf_path = NULL, *log_path = NULL, err[768];
	int c, status, no_log = 0;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, CC_COMMON_SHORTOPTS "s:r:l:npc:f:", opts,
	    NULL)) != -1) {
		if (cc_option_common(c, argv, usage_text, &stage.unbuffered))
			continue;
		if (c == 's')
			gk.session = optarg;
		else if (c == 'r')
			repo = optarg;
		else if (c == 'l')
			log_dir = optarg;
		else if (c == 'n')
			no_log = 1;
		else if (c == 'p')
			gk.pretty = 1;
		else if (c == 'c')
			conf = optarg;
		else if (c == 'f')
			frame = optarg;
	}
	cmd = optind < argc ? argv[optind] : NULL;
	if (cmd && strcmp(cmd, "tools") == 0 && optind + 1 == argc) {
		jv list = cc_gate_tools_list();

		print(list, gk.pretty);
		jv_free(list);
		return fflush(stdout) == 0 ? CC_EXIT_OK : CC_EXIT_INTERNAL;
	}
	if (cmd && (strcmp(cmd, "call") != 0 || optind + 2 > argc || optind + 3 < argc)) {
		if (strcmp(cmd, "call") == 0)
			cc_warn("call: expected TOOL [JSON-ARGS | -]");
		else
			cc_warn("unknown command '%s'", cmd);
		fputs(usage_text, stderr);
		return CC_EXIT_USAGE;
	}
	if (gk.session && (!*gk.session || strlen(gk.session) > CC_GATE_MAX_SESSION_ID))
		cc_die(CC_EXIT_USAGE, "invalid session id: 1 to %d bytes",
		    CC_GATE_MAX_SESSION_ID);
	cc_config_load(&gk.cfg);
	if (!cmd) {
		domain = cc_domain_for_stage(&gk.cfg, &stage);
		if (!stage.process)
			goto run;
	}
	if (!conf)
		conf = conf_path = cc_config_domain_path(&gk.cfg, "gate.conf");
	if (!frame)
		frame = gk.cfg.domain_dir;
	if (!(gk.gate = cc_gate_load(conf, frame, err, sizeof err)))
		cc_die(CC_EXIT_USAGE, "%s%s", err, conf_path && access(conf, F_OK) < 0 ?
		    " (the domain has no gate: cc-gate serves a domain with gate.conf, "
		    "see cc-gate(1))" : "");
	if (repo && cc_gate_set_repo(gk.gate, repo, err, sizeof err) < 0)
		cc_die(CC_EXIT_USAGE, "%s", err);
	if (!no_log && !log_dir && cc_session_keeps_logs(&gk.cfg)) {
		/* a store that spans machines keeps the logs too */
		cc_gate_set_log_store(gk.gate);
	} else if (!no_log) {
		if (!log_dir) {
			size_t n = strlen(gk.cfg.state_dir) + 6;

			log_path = cc_xmalloc(n);
			snprintf(log_path, n, "%s/gate", gk.cfg.state_dir);
			log_dir = log_path;
		}
		cc_gate_set_log_dir(gk.gate, log_dir);
	}
	if (cmd) {
		/* the arguments first: what dies on them leaves nothing open */
		jv args = read_args(optind + 2 < argc ? argv[optind + 2] : "{}");

		store(&gk);
		status = call(&gk, argv[optind + 1], args);
		if (fflush(stdout) != 0)
			status = CC_EXIT_INTERNAL;
		goto done;
	}
	/* before the first record: a store that cannot be opened loses none */
	store(&gk);
run:
	status = cc_record_run(&stage, stdin, stdout);
done:
	cc_session_close(gk.store);
	cc_gate_free(gk.gate);
	cc_domain_free(domain);
	cc_config_release(&gk.cfg);
	free(conf_path);
	free(log_path);
	return status;
}
