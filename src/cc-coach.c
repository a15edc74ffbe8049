/*
 * cc-coach: the homework coach's stage, its tools, its session state and
 * the parent report (seed 001).  As a stage (no command) it reads the
 * child's utterances and adds `coach`: what the child said and what it did
 * to the session (cc_coach_turn).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_session.h"
#include "cc_text.h"
#include "cc_time.h"
#include "cc_record.h"
#include "cc_domain.h"
#include "coach/cc_coach.h"

static const char usage_text[] =
	"usage: cc-coach [-u] [-n] < records.ndjson\n"
	"       cc-coach call TOOL JSON-ARGS [-s SESSION]\n"
	"       cc-coach state -s SESSION [--set JSON]\n"
	"       cc-coach report -s SESSION [-f text|markdown|json] [-l ja|en]\n"
	"       cc-coach tools\n"
	"The homework coach (seed 001).  As a stage, adds coach {event, problem,\n"
	"check, hint, progress, answer_request, stumbles, working_minutes, ...}\n"
	"to each record from its \"query\" and its session (\"session_id\").\n"
	"The commands call one of its tools, show or set a session's state and\n"
	"write a parent report.  JSON-ARGS is an object (or a JSON string\n"
	"holding one); - reads it from standard input.\n"
	"  -n, --no-memory       stage: every record on its own, nothing kept\n"
	"  -s, --session ID      the session whose state is read and kept\n"
	"      --set JSON        state: replace the session's state\n"
	"  -f, --format FORMAT   report: text (default), markdown or json\n"
	"  -l, --lang LANG       report: ja (default) or en\n"
	"  -D, --domain D        the domain (default $CC_DOMAIN, else homework-coach)\n"
	"  -u, --unbuffered      flush after every record\n"
	"  -h, --help            show this help\n"
	"  -V, --version         show the version\n";

/*
 * The tools, in the seed's order: the one list `cc-coach tools` prints and
 * cc-coach(1) documents.  A tool of another module plugs in with its line;
 * a NULL function is a tool whose module is not built yet.
 */
static const struct coach_tool {
	const char *name;
	cc_coach_tool_fn *fn;
	const char *args;
	const char *what;
} tools[] = {
	{ "calculate_and_verify", cc_coach_calculate_and_verify,
	  "expression child_answer grade_level",
	  "check a child's answer to an arithmetic expression (lib/coach/cc_calc)" },
	{ "manage_hint", cc_coach_manage_hint, "session_id action [problem_id]",
	  "three hint levels per problem: get_current, advance, reset" },
	{ "check_curriculum", cc_coach_check_curriculum, "grade_level subject topic",
	  "what grades 1-3 learn: prerequisites, objectives, mistakes, strategies" },
	{ "record_progress", cc_coach_record_progress,
	  "user_id session_id problem_id outcome hints_used time_spent_seconds",
	  "points, streak and titles for a finished problem" },
	{ "analyze_homework_image", cc_coach_analyze_homework_image,
	  "image_data [expected_subject]",
	  "read the problems on a photo of a worksheet (lib/coach/cc_image)" },
	{ "update_emotion", cc_coach_update_emotion,
	  "frustration confidence fatigue excitement primary_emotion",
	  "record the child's emotion, support level and action (lib/coach/cc_emotion)" },
};
#define NTOOLS (sizeof tools / sizeof tools[0])

struct opts {
	const char *session, *set, *format, *lang;
	int unbuffered, no_memory;
};

static _Noreturn void
usage_error(const char *fmt, const char *arg)
{
	cc_warn(fmt, arg);
	fputs(usage_text, stderr);
	exit(CC_EXIT_USAGE);
}

/* The whole of standard input (at most 64 MiB: a 10 MiB photo in base64). */
static char *
read_stdin(size_t *len)
{
	struct cc_buf b = {0};
	char chunk[65536];
	size_t n;

	while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
		if (b.len + n > 64u << 20)
			cc_die(CC_EXIT_DATA, "the JSON arguments on standard input are "
			    "larger than 64 MiB");
		cc_buf_add(&b, chunk, n);
	}
	if (ferror(stdin))
		cc_die(CC_EXIT_DATA, "cannot read standard input");
	*len = b.len;
	return b.data ? b.data : cc_xstrdup("");
}

/*
 * A JSON object from the command line: the object itself, or a JSON string
 * that holds one (what a model's function call often sends).  Owned, or
 * jv_invalid() after a message naming what.
 */
static jv
json_object(const char *text, size_t len, const char *what)
{
	jv v = cc_json_parse(text, len);

	if (jv_get_kind(v) == JV_KIND_STRING) {
		jv inner = cc_json_parse(jv_string_value(v),
		    (size_t)jv_string_length_bytes(jv_copy(v)));

		jv_free(v);
		v = inner;
	}
	if (!jv_is_valid(v)) {
		jv_free(v);
		cc_warn("%s: not valid JSON", what);
		return jv_invalid();
	}
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		cc_warn("%s: expected a JSON object, not %s", what,
		    jv_kind_name(jv_get_kind(v)));
		jv_free(v);
		return jv_invalid();
	}
	return v;
}

static void
print_json(jv v)
{
	struct cc_buf b = {0};

	cc_json_put(&b, v);
	cc_buf_add(&b, "\n", 1);
	fwrite(b.data, 1, b.len, stdout);
	cc_buf_release(&b);
}

static struct cc_session *
open_store(const struct cc_config *cfg)
{
	char err[512];
	struct cc_session *s = cc_session_open(cfg, 0, err, sizeof err);

	if (!s)
		cc_die(CC_EXIT_INTERNAL, "cannot open the session store: %s", err);
	return s;
}

static void
load_data(const struct cc_config *cfg, struct cc_coach_data *d)
{
	char err[768], *dir = cc_config_domain_path(cfg, "");

	/* the folder path ends in "/": drop it for the messages */
	dir[strlen(dir) - 1] = '\0';
	if (cc_coach_data_load(d, dir, err, sizeof err) < 0)
		cc_die(CC_EXIT_USAGE, "%s", err);
	free(dir);
}

static int
cmd_tools(void)
{
	for (size_t i = 0; i < NTOOLS; i++)
		printf("%-22s %-9s %s\n%33sargs: %s\n", tools[i].name,
		    tools[i].fn ? "built" : "not-built", tools[i].what, "",
		    tools[i].args);
	return CC_EXIT_OK;
}

static int
cmd_call(const struct cc_config *cfg, const struct opts *o, const char *name,
    const char *argtext)
{
	const struct coach_tool *t = NULL;
	struct cc_coach_data data;
	struct cc_session *store = NULL;
	char err[768], *input = NULL;
	size_t len;
	jv args, state, before, result;
	int status;

	for (size_t i = 0; i < NTOOLS; i++)
		if (strcmp(tools[i].name, name) == 0)
			t = &tools[i];
	if (!t)
		usage_error("unknown tool '%s' (cc-coach tools lists them)", name);
	if (strcmp(argtext, "-") == 0)
		argtext = input = read_stdin(&len);
	else
		len = strlen(argtext);
	args = json_object(argtext, len, "the tool's arguments");
	free(input);
	if (!jv_is_valid(args))
		return CC_EXIT_DATA;
	if (!t->fn) {
		result = cc_coach_error("%s is not built yet", t->name);
		print_json(result);
		jv_free(result);
		jv_free(args);
		cc_warn("%s: not built yet", t->name);
		return CC_EXIT_INTERNAL;
	}

	load_data(cfg, &data);
	state = jv_object();
	if (o->session) {
		store = open_store(cfg);
		jv_free(state);
		/* read and written under the lock: a stage's turn in between is
		   neither lost nor undone */
		if (cc_session_state_hold(store, "coach") < 0 ||
		    cc_session_state_hold(store, "emotion") < 0)
			cc_die(CC_EXIT_INTERNAL, "cannot lock the session's state: %s",
			    cc_session_error(store));
		if (cc_coach_state_load(store, o->session, &state, cfg->now, err, sizeof err) < 0)
			cc_die(CC_EXIT_INTERNAL, "%s", err);
	}
	before = jv_copy(state);
	result = t->fn(&data, args, &state, cfg->now);
	print_json(result);
	status = CC_EXIT_OK;
	if (cc_coach_is_error(result)) {
		status = CC_EXIT_DATA;	/* and the state is left as it was */
	} else if (store && cc_coach_state_save(store, o->session, before, state,
	    cfg->now, err, sizeof err) < 0) {
		cc_warn("%s", err);
		status = CC_EXIT_INTERNAL;
	}
	jv_free(result);
	jv_free(before);
	jv_free(state);
	jv_free(args);
	cc_session_close(store);
	cc_coach_data_release(&data);
	return status;
}

static int
cmd_state(const struct cc_config *cfg, const struct opts *o)
{
	struct cc_session *store = open_store(cfg);
	char err[512];
	jv state;
	int status = CC_EXIT_OK;

	if (o->set) {
		jv emotion;

		state = json_object(o->set, strlen(o->set), "--set");
		if (!jv_is_valid(state)) {
			cc_session_close(store);
			return CC_EXIT_DATA;
		}
		emotion = jv_object_get(jv_copy(state), jv_string("emotion"));
		if (jv_is_valid(emotion) && jv_get_kind(emotion) != JV_KIND_OBJECT) {
			cc_warn("--set: \"emotion\" must be a JSON object");
			status = CC_EXIT_DATA;
		} else if (cc_coach_state_save(store, o->session, jv_null(), state,
		    cfg->now, err, sizeof err) < 0) {
			cc_warn("%s", err);
			status = CC_EXIT_INTERNAL;
		}
		jv_free(emotion);
	} else if (cc_coach_state_load(store, o->session, &state, cfg->now, err, sizeof err) < 0) {
		cc_warn("%s", err);
		status = CC_EXIT_INTERNAL;
	} else {
		print_json(state);
	}
	jv_free(state);
	cc_session_close(store);
	return status;
}

static int
cmd_report(const struct cc_config *cfg, const struct opts *o)
{
	enum cc_coach_format format = CC_COACH_TEXT;
	struct cc_coach_data data;
	struct cc_session *store;
	struct cc_buf out = {0};
	char err[512];
	jv state, report;

	if (o->format && strcmp(o->format, "markdown") == 0)
		format = CC_COACH_MARKDOWN;
	else if (o->format && strcmp(o->format, "json") == 0)
		format = CC_COACH_JSON;
	else if (o->format && strcmp(o->format, "text") != 0)
		usage_error("unknown format '%s': text, markdown or json", o->format);
	if (o->lang && strcmp(o->lang, "ja") != 0 && strcmp(o->lang, "en") != 0)
		usage_error("unknown language '%s': ja or en", o->lang);
	load_data(cfg, &data);
	store = open_store(cfg);
	if (cc_coach_state_load(store, o->session, &state, cfg->now, err, sizeof err) < 0)
		cc_die(CC_EXIT_INTERNAL, "%s", err);
	report = cc_coach_report(&data, state, o->session, cfg->now,
	    o->lang ? o->lang : "ja");
	cc_coach_report_write(&data, report, format, &out);
	fwrite(out.data ? out.data : "", 1, out.len, stdout);
	cc_buf_release(&out);
	jv_free(report);
	jv_free(state);
	cc_session_close(store);
	cc_coach_data_release(&data);
	return CC_EXIT_OK;
}

/* A domain names a folder under the data directory: nothing that leaves it. */
/* ---- the stage ---- */

/*
 * The sessions a stage keeps parsed between turns: a busy service's active
 * children, each state a few kB (CC_COACH_MAX_SOLVED finished problems at
 * most), held within a budget of their texts' length.
 */
#define KEPT_SESSIONS 4096
#define KEPT_BYTES (32u << 20)

struct stage {
	struct cc_config cfg;
	struct cc_coach_data data;
	struct cc_session *store;
	struct cc_coach_states *kept;
	struct cc_coach_done done;	/* a turn's finished problems, reused */
	int store_failed, no_memory;
};

static struct cc_session *
stage_store(struct stage *st)
{
	char err[512];

	if (st->store || st->store_failed || st->no_memory)
		return st->store;
	if (!(st->store = cc_session_open(&st->cfg, 0, err, sizeof err))) {
		/* as the other stages: coaching goes on, without memory */
		cc_warn("session memory unavailable, coaching without it: %s", err);
		st->store_failed = 1;
	} else {
		st->kept = cc_coach_states_new(KEPT_SESSIONS, KEPT_BYTES);
		cc_coach_states_use_fields(st->kept, cc_coach_fields_usable(&st->data));
	}
	return st->store;
}

/* A store that fails in the middle of a run is given up, as cc-route does. */
static void
store_lost(struct stage *st, unsigned long line, const char *why)
{
	cc_warn("line %lu: %s; coaching without session memory from here on", line, why);
	cc_session_close(st->store);
	cc_coach_states_free(st->kept);
	st->store = NULL;
	st->kept = NULL;
	st->store_failed = 1;
}

/*
 * 1 if the record's language is English (language_detection.
 * detected_language "en"): read from the record's text where it can be,
 * parsed where it is escaped.
 */
static int
in_english(struct cc_record *rec)
{
	static const char path[] = "language_detection.detected_language";
	const char *v;
	size_t n;
	jv lang;
	int en;

	if (!jv_is_valid(rec->whole)) {
		v = cc_record_raw_at(rec, path, &n);
		if (!v || v[0] != '"')
			return 0;
		if (!memchr(v, '\\', n))
			return n == 4 && memcmp(v, "\"en\"", 4) == 0;
	}
	lang = cc_record_at(rec, path);
	en = jv_get_kind(lang) == JV_KIND_STRING && strcmp(jv_string_value(lang), "en") == 0;
	jv_free(lang);
	return en;
}

static enum cc_outcome
coach_record(void *ctx, struct cc_record *rec, struct cc_jw *out)
{
	struct stage *st = ctx;
	char *session, err[512];
	const char *q;
	size_t qlen;
	jv state = jv_object(), before;
	struct cc_coach_recap *recap = NULL;
	struct cc_coach_fields *fields = NULL;
	int changed;

	cc_config_tick(&st->cfg);

	if (!(q = cc_record_query(rec, &qlen))) {
		jv_free(state);
		return cc_record_fail(rec, "no_query", "the record has no string \"query\"");
	}
	/* a number is its JSON text, as cc-route, cc-emotion and cc-gate read it */
	session = cc_record_session_id(rec);
	if (session && stage_store(st)) {
		jv_free(state);
		/* on failure the turn goes on from {} */
		if (cc_coach_states_load_fields(st->kept, st->store, session,
		    st->cfg.now, &state, &fields, &recap, err, sizeof err) < 0)
			store_lost(st, rec->line, err);
	}
	if (fields) {
		/* a kept session whose state is fields: read and set as such */
		changed = cc_coach_turn_fields(&st->data, q, qlen, in_english(rec) ?
		    "en" : "ja", fields, st->cfg.now, recap, &st->done, out);
		if (cc_coach_states_save_fields(st->kept, st->store, session, changed,
		    &st->done, st->cfg.now, err, sizeof err) < 0)
			store_lost(st, rec->line, err);
		free(session);
		return CC_RECORD_SET;
	}
	/* (a kept session's state is compared by its text: no copy to keep) */
	before = recap ? jv_invalid() : jv_copy(state);
	changed = cc_coach_turn(&st->data, q, qlen, in_english(rec) ? "en" : "ja",
	    &state, st->cfg.now, recap, out);
	if (session && st->store) {
		/* a turn that changed nothing writes nothing, not even its text */
		if ((recap && !changed ? cc_coach_states_unchanged(st->kept, st->store,
		    session, state, st->cfg.now, err, sizeof err) :
		    cc_coach_states_save(st->kept, st->store, session, before, state,
		    st->cfg.now, err, sizeof err)) < 0)
			store_lost(st, rec->line, err);
	} else {
		jv_free(state);
	}
	jv_free(before);
	free(session);
	return CC_RECORD_SET;
}

/* What was kept is visible to the next process when the output is. */
static void
stage_flush(void *ctx)
{
	struct stage *st = ctx;

	if (st->store && cc_session_flush(st->store) < 0)
		store_lost(st, 0, "cannot save the session");
}

static int
run_stage(const struct opts *o)
{
	struct stage st = { .no_memory = o->no_memory };
	struct cc_stage stage = { .name = "cc-coach", .key = "coach",
		.process = coach_record, .flush = stage_flush,
		.unbuffered = o->unbuffered, .ctx = &st };
	struct cc_domain *dom;
	int status;

	cc_config_load(&st.cfg);
	if (cc_tz_use(st.cfg.tz) < 0)
		cc_die(CC_EXIT_USAGE, "unknown time zone CC_TZ='%s'", st.cfg.tz);
	dom = cc_domain_for_stage(&st.cfg, &stage);
	if (stage.process)
		load_data(&st.cfg, &st.data);
	/*
	 * Records are handed on, and the sessions' batch committed, whenever
	 * the input buffer runs out of whole lines: stdio's 4 kB for a file
	 * or a pipe made that every 15 records, 64 kB every 230 (and each
	 * commit logs every page the batch changed: most of the state's
	 * pages, with 2,000 sessions).  A read still returns what a pipe
	 * holds, so a quiet stream waits no longer.
	 */
	static char inbuf[1 << 20];

	setvbuf(stdin, inbuf, _IOFBF, sizeof inbuf);
	status = cc_record_run(&stage, stdin, stdout);
	if (stage.process)
		cc_coach_data_release(&st.data);
	cc_session_close(st.store);
	cc_coach_states_free(st.kept);
	cc_buf_release(&st.done.text);
	cc_domain_free(dom);
	cc_config_release(&st.cfg);
	return status;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CC_COMMON_LONGOPTS,
		{"session", required_argument, NULL, 's'},
		{"set", required_argument, NULL, 'S'},
		{"format", required_argument, NULL, 'f'},
		{"lang", required_argument, NULL, 'l'},
		{"no-memory", no_argument, NULL, 'n'},
		{NULL, 0, NULL, 0},
	};
	struct opts o = {0};
	struct cc_config cfg;
	const char *cmd, *env_domain = getenv("CC_DOMAIN");
	int c, status, nargs;

	cc_set_progname(argv[0]);
	opterr = 0;
	/* the coach's own program serves its domain unless told otherwise */
	if (!env_domain || !*env_domain)
		setenv("CC_DOMAIN", "homework-coach", 1);
	while ((c = getopt_long(argc, argv, CC_COMMON_SHORTOPTS "s:f:l:n", longopts,
	    NULL)) != -1) {
		if (cc_option_common(c, argv, usage_text, &o.unbuffered))
			continue;
		switch (c) {
		case 's': o.session = optarg; break;
		case 'S': o.set = optarg; break;
		case 'f': o.format = optarg; break;
		case 'l': o.lang = optarg; break;
		case 'n': o.no_memory = 1; break;
		}
	}
	if (optind >= argc) {
		if (o.session || o.set || o.format || o.lang)
			usage_error("%s", "-s, --set, -f and -l belong to a command");
		return run_stage(&o);
	}
	cmd = argv[optind++];
	nargs = argc - optind;
	if (o.session && (!*o.session || strlen(o.session) > 200 ||
	    !cc_utf8_valid(o.session, strlen(o.session))))
		usage_error("invalid session id '%s': 1 to 200 bytes of UTF-8", o.session);
	if (o.set && strcmp(cmd, "state") != 0)
		usage_error("%s", "--set is an option of the state command");

	cc_config_load(&cfg);
	if (cc_tz_use(cfg.tz) < 0)
		cc_die(CC_EXIT_USAGE, "unknown time zone CC_TZ='%s'", cfg.tz);

	if (strcmp(cmd, "tools") == 0) {
		if (nargs)
			usage_error("unexpected argument '%s'", argv[optind]);
		status = cmd_tools();
	} else if (strcmp(cmd, "call") == 0) {
		if (nargs < 2)
			usage_error("%s", nargs ? "call: expected the tool's JSON arguments"
			    : "call: expected a tool and its JSON arguments");
		if (nargs > 2)
			usage_error("unexpected argument '%s'", argv[optind + 2]);
		status = cmd_call(&cfg, &o, argv[optind], argv[optind + 1]);
	} else if (strcmp(cmd, "state") == 0 || strcmp(cmd, "report") == 0) {
		if (nargs)
			usage_error("unexpected argument '%s'", argv[optind]);
		if (!o.session)
			usage_error("%s: expected -s SESSION", cmd);
		status = cmd[0] == 's' ? cmd_state(&cfg, &o) : cmd_report(&cfg, &o);
	} else {
		usage_error("unknown command '%s': call, state, report or tools", cmd);
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		cc_die(CC_EXIT_INTERNAL, "cannot write the output");
	cc_config_release(&cfg);
	return status;
}
