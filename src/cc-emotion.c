/* cc-emotion: how the child feels, for the homework coach (seed 001, section 6). */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_session.h"
#include "cc_domain.h"
#include "coach/cc_emotion.h"

static const char usage_text[] =
	"usage: cc-emotion [-nu] [-c FILE] < records.ndjson\n"
	"Adds emotion {frustration, confidence, fatigue, excitement,\n"
	"primary_emotion, support_level, action_recommended, debug_info} to each\n"
	"NDJSON record from its \"query\", the numbers cc-coach puts in \"coach\"\n"
	"and the session's last turn (\"session_id\").\n"
	"  -c, --cues FILE    emotion cues (default: the domain's emotion.cues)\n"
	"  -n, --no-memory    decide every record on its own\n"
	"  -u, --unbuffered   flush after every record\n"
	"  -h, --help         show this help\n"
	"  -V, --version      show the version\n";

struct stage {
	struct cc_config cfg;
	struct cc_emotion *emotion;
	struct cc_session *store;
	int store_failed, no_memory;
	double *inputs;
};

static struct cc_session *
store(struct stage *st)
{
	char err[512];

	if (st->store || st->store_failed || st->no_memory)
		return st->store;
	if (!(st->store = cc_session_open(&st->cfg, 0, err, sizeof err))) {
		cc_warn("session memory unavailable, going on without it: %s", err);
		st->store_failed = 1;
	}
	return st->store;
}

/* A store that fails later is given up the same way, after one warning. */
static void
store_lost(struct stage *st, unsigned long line, const char *what)
{
	cc_warn("line %lu: %s: %s; going on without session memory", line, what,
	    cc_session_error(st->store));
	cc_session_close(st->store);
	st->store = NULL;
	st->store_failed = 1;
}

static enum cc_outcome
process(void *ctx, struct cc_record *rec, struct cc_jw *out)
{
	struct stage *st = ctx;
	struct cc_emotion_turn t = { .given = jv_invalid() };
	jv given = cc_record_get(rec, "emotion"), state = jv_invalid();
	char *sid = NULL, *json = NULL, err[600];
	int rc, have_state = 0;

	t.text = cc_record_query(rec, &t.len);
	/* the caller's own scores: an object holding any of the four */
	if (jv_get_kind(given) == JV_KIND_OBJECT) {
		static const char *const keys[] = {
			"frustration", "confidence", "fatigue", "excitement",
		};
		for (int i = 0; i < 4 && !jv_is_valid(t.given); i++)
			if (jv_object_has(jv_copy(given), jv_string(keys[i])))
				t.given = given;
	} else if (jv_is_valid(given) && jv_get_kind(given) != JV_KIND_NULL) {
		jv_free(given);
		return cc_record_fail(rec, "bad_emotion", "\"emotion\" is not an object");
	}
	if (!t.text && !jv_is_valid(t.given)) {
		jv_free(given);
		return CC_RECORD_PASS;	/* nothing to read a feeling from */
	}
	for (size_t i = 0; i < cc_emotion_ninputs(st->emotion); i++) {
		jv v = cc_record_at(rec, cc_emotion_input_path(st->emotion, i));

		st->inputs[i] = jv_get_kind(v) == JV_KIND_NUMBER ? jv_number_value(v) : NAN;
		jv_free(v);
	}
	t.inputs = st->inputs;
	t.now = st->cfg.now_frozen ? st->cfg.now : time(NULL);
	if (!st->no_memory && (sid = cc_record_session_id(rec)) && store(st)) {
		rc = cc_session_state_get(st->store, sid, "emotion", &json, NULL);
		if (rc < 0) {
			store_lost(st, rec->line, "cannot read session memory");
		} else {
			if (rc > 0)
				state = cc_json_parse(json, strlen(json));
			have_state = 1;
			t.state = &state;
		}
		free(json);
	}
	if (cc_emotion_turn(st->emotion, &t, out, err, sizeof err) < 0) {
		jv_free(given);
		jv_free(state);
		free(sid);
		return cc_record_fail(rec, "bad_emotion", "%s", err);
	}
	if (have_state && st->store) {
		struct cc_buf b = {0};

		cc_json_put(&b, state);
		if (cc_session_state_put(st->store, sid, "emotion", b.data, t.now) < 0)
			store_lost(st, rec->line, "cannot record the emotion");
		cc_buf_release(&b);
	}
	jv_free(given);
	jv_free(state);
	free(sid);
	return CC_RECORD_SET;
}

static void
flush_store(void *ctx)
{
	struct stage *st = ctx;

	if (st->store && cc_session_flush(st->store) < 0) {
		cc_warn("cannot save session memory: %s; going on without it",
		    cc_session_error(st->store));
		cc_session_close(st->store);
		st->store = NULL;
		st->store_failed = 1;
	}
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		CC_COMMON_LONGOPTS,
		{"cues", required_argument, NULL, 'c'},
		{"no-memory", no_argument, NULL, 'n'},
		{NULL, 0, NULL, 0},
	};
	struct stage st = {0};
	struct cc_stage stage = { .name = "cc-emotion", .key = "emotion",
		.process = process, .flush = flush_store, .ctx = &st };
	const char *cues = NULL, *domain = getenv("CC_DOMAIN");
	char *path = NULL, err[768];
	struct cc_domain *dom;
	int c, status;

	cc_set_progname(argv[0]);
	opterr = 0;
	/* this stage is the homework coach's: its domain unless told otherwise */
	if (!domain || !*domain)
		setenv("CC_DOMAIN", "homework-coach", 1);
	while ((c = getopt_long(argc, argv, CC_COMMON_SHORTOPTS "c:n", opts, NULL)) != -1) {
		if (cc_option_common(c, argv, usage_text, &stage.unbuffered))
			continue;
		if (c == 'c')
			cues = optarg;
		else if (c == 'n')
			st.no_memory = 1;
	}
	if (optind < argc) {
		cc_warn("unexpected argument '%s'", argv[optind]);
		fputs(usage_text, stderr);
		return CC_EXIT_USAGE;
	}
	cc_config_load(&st.cfg);
	dom = cc_domain_for_stage(&st.cfg, &stage);
	if (!stage.process)
		goto run;
	if (!cues)
		cues = path = cc_config_domain_path(&st.cfg, "emotion.cues");
	if (!(st.emotion = cc_emotion_load(cues, err, sizeof err)))
		cc_die(CC_EXIT_USAGE, "%s", err);
	st.inputs = cc_xmalloc((cc_emotion_ninputs(st.emotion) + 1) * sizeof *st.inputs);
run:
	status = cc_record_run(&stage, stdin, stdout);
	cc_emotion_free(st.emotion);
	cc_session_close(st.store);
	cc_domain_free(dom);
	cc_config_release(&st.cfg);
	free(st.inputs);
	free(path);
	return status;
}
