/*
 * cc-tutor: what the homework coach says (seed 001).  For the agent
 * cc-route chose, how the child feels (cc-emotion) and what cc-coach saw,
 * the domain's reply rules (replies.rules, cc-rules(5), whose input lines
 * read those members) choose a text of its responses, filled in with the
 * rules' slots.  Then the guard: a reply that states the answer of the
 * open problem (cc-coach's forbid list, in digits, kanji, kana or words)
 * is refused for the rules' fallback text, then for the guard's own.  An
 * LLM, when one is configured, only rewords the chosen reply, under the
 * same guard.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_rules.h"
#include "cc_texts.h"
#include "cc_llm.h"
#include "cc_http.h"
#include "cc_domain.h"
#include "coach/cc_calc.h"

static const char usage_text[] =
	"usage: cc-tutor [-u] [--rules FILE] [--no-llm] < records.ndjson\n"
	"Adds tutor {reply {key, text, emotion}, guard, llm, debug_info} to each\n"
	"record: the homework coach's reply, chosen by the domain's reply rules\n"
	"from route, emotion and coach, and never stating the open problem's\n"
	"answer.\n"
	"  -r, --rules FILE   reply rules (default: the domain's replies.rules)\n"
	"      --no-llm       compose only, even with CC_LLM_BASE_URL set\n"
	"  -D, --domain D     the domain (default $CC_DOMAIN, else homework-coach)\n"
	"  -u, --unbuffered   flush after every record\n"
	"  -h, --help         show this help\n"
	"  -V, --version      show the version\n";

#define MAX_VARS CC_RULES_MAX_SLOTS

struct tutor {
	struct cc_rules *rules;
	struct cc_texts *texts;
	struct cc_llm llm;
	int use_llm, llm_failed;
	int reply, fallback, lead;	/* slots */
};

/* The record's forbid list (coach.forbid): strings, owned jv array. */
static jv
forbidden(struct cc_record *rec)
{
	jv f = cc_record_at(rec, "coach.forbid"), out = jv_array();
	int n = jv_get_kind(f) == JV_KIND_ARRAY ? jv_array_length(jv_copy(f)) : 0;

	for (int i = 0; i < n; i++) {
		jv s = jv_array_get(jv_copy(f), i);

		if (jv_get_kind(s) == JV_KIND_STRING && jv_string_length_bytes(jv_copy(s)) > 0)
			out = jv_array_append(out, s);
		else
			jv_free(s);
	}
	jv_free(f);
	return out;
}

/* The first forbidden value text states, or NULL; borrows forbid. */
static const char *
leaks(jv forbid, const char *text, jv *keep)
{
	for (int i = 0; i < jv_array_length(jv_copy(forbid)); i++) {
		jv s = jv_array_get(jv_copy(forbid), i);

		if (cc_calc_states_value(text, strlen(text), jv_string_value(s))) {
			*keep = jv_array_append(*keep, jv_copy(s));
			const char *v = jv_string_value(s);

			jv_free(s);
			return v;
		}
		jv_free(s);
	}
	return NULL;
}

/* The text key, filled in with every slot the rules set; -1 if no text. */
static int
compose(struct tutor *t, const char *key, const char *lang, struct cc_buf *out,
    const char **emotion)
{
	struct cc_var vars[MAX_VARS + 1];
	size_t n = 0;
	const char *tmpl = key ? cc_texts_get(t->texts, key, lang, emotion) : NULL;

	if (!tmpl)
		return -1;
	for (size_t i = 0; i < cc_rules_nslots(t->rules) && n < MAX_VARS; i++) {
		const char *v = cc_rules_value(t->rules, (int)i);

		if (v)
			vars[n++] = (struct cc_var){ cc_rules_slot_name(t->rules, i), v, 0 };
	}
	vars[n] = (struct cc_var){ 0 };
	out->len = 0;
	cc_texts_fill(out, tmpl, vars);
	if (t->lead >= 0 && cc_rules_value(t->rules, t->lead)) {
		const char *lt = cc_texts_get(t->texts, cc_rules_value(t->rules, t->lead),
		    lang, NULL);
		struct cc_buf b = {0};
		size_t tag = out->data[0] == '[' && strchr(out->data, ']') ?
		    (size_t)(strchr(out->data, ']') - out->data + 1) : 0;

		if (lt) {
			/* after the emotion tag, before the reply; a sentence of
			   Latin script ends with a space before the next */
			cc_buf_add(&b, out->data, tag);
			cc_texts_fill(&b, lt, vars);
			if (b.len && strchr(".!?", b.data[b.len - 1]))
				cc_buf_add(&b, " ", 1);
			cc_buf_add(&b, out->data + tag, out->len - tag);
			cc_buf_release(out);
			*out = b;
		}
	}
	return 0;
}

/*
 * An LLM's wording of the reply: the composed text and what it is about,
 * never the answer (which the model is not told), checked by the guard.
 * 0 with the text in out, or -1 with why.
 */
static int
reword(struct tutor *t, const char *composed, const char *lang, jv forbid,
    struct cc_buf *out, char *why, size_t whylen)
{
	const char *sys = cc_texts_get(t->texts, "llm.system", lang, NULL);
	const char *user = cc_texts_get(t->texts, "llm.reword", lang, NULL);
	struct cc_buf u = {0};
	struct cc_var v[] = { { "reply", composed, 0 }, { 0 } };
	jv keep = jv_array();
	const char *leak;
	int rc = -1;

	if (!sys || !user) {
		snprintf(why, whylen, "no llm.system or llm.reword text");
		jv_free(keep);
		return -1;
	}
	cc_texts_fill(&u, user, v);
	out->len = 0;
	if (cc_llm_chat(&t->llm, sys, u.data, out, why, whylen) < 0) {
		t->llm_failed = 1;
	} else if (!out->data || !*out->data) {
		snprintf(why, whylen, "an empty reply");
	} else if ((leak = leaks(forbid, out->data, &keep))) {
		snprintf(why, whylen, "states the answer (%s)", leak);
	} else {
		rc = 0;
	}
	cc_buf_release(&u);
	jv_free(keep);
	return rc;
}

static enum cc_outcome
tutor_record(void *ctx, struct cc_record *rec, struct cc_jw *out)
{
	struct tutor *t = ctx;
	struct cc_rules_context rc = {0};
	char *inputs[CC_RULES_MAX_SLOTS];
	size_t qlen;
	const char *q = cc_record_query(rec, &qlen), *emotion = NULL, *leak;
	const char *candidates[3], *used = NULL;
	jv lang_jv = cc_record_at(rec, "route.language"), forbid, keep = jv_array();
	const char *lang = jv_get_kind(lang_jv) == JV_KIND_STRING &&
	    strcmp(jv_string_value(lang_jv), "en") == 0 ? "en" : "ja";
	struct cc_buf text = {0}, worded = {0};
	char why[300] = "";
	int nc = 0;

	if (!q) {
		jv_free(lang_jv);
		jv_free(keep);
		return cc_record_fail(rec, "no_query", "the record has no string \"query\"");
	}
	cc_rules_read_inputs(t->rules, rec, &rc, inputs);
	cc_rules_eval(t->rules, q, qlen, &rc);
	cc_rules_inputs_release(t->rules, inputs);
	forbid = forbidden(rec);

	/* the chosen reply, the rules' fallback, the guard's own text */
	candidates[nc++] = cc_rules_value(t->rules, t->reply);
	if (t->fallback >= 0)
		candidates[nc++] = cc_rules_value(t->rules, t->fallback);
	candidates[nc++] = "guard.safe";
	cc_jw_object(out);
	cc_jw_key(out, "guard");
	cc_jw_object(out);
	cc_jw_key(out, "forbid_count");
	cc_jw_num(out, jv_array_length(jv_copy(forbid)));
	cc_jw_key(out, "refused");
	cc_jw_array(out);
	for (int i = 0; i < nc && !used; i++) {
		if (compose(t, candidates[i], lang, &text, &emotion) < 0)
			continue;
		if ((leak = leaks(forbid, text.data, &keep))) {
			cc_jw_cstr(out, candidates[i]);
			continue;
		}
		used = candidates[i];
	}
	cc_jw_end(out);
	cc_jw_end(out);
	if (!used) {	/* no text at all: the domain's data is incomplete */
		cc_buf_release(&text);
		text = (struct cc_buf){0};
		cc_buf_add(&text, "", 0);
		emotion = NULL;
	}
	cc_jw_key(out, "llm");
	cc_jw_object(out);
	cc_jw_key(out, "status");
	if (!t->use_llm || !used) {
		cc_jw_cstr(out, "off");
	} else if (reword(t, text.data, lang, forbid, &worded, why, sizeof why) < 0) {
		cc_jw_cstr(out, "refused");
		cc_jw_key(out, "why");
		cc_jw_cstr(out, why);
	} else {
		cc_jw_cstr(out, "used");
		/* keep the composed emotion tag when the model dropped it */
		if (text.data && text.data[0] == '[' && strchr(text.data, ']') &&
		    worded.data[0] != '[') {
			struct cc_buf b = {0};

			cc_buf_add(&b, text.data, (size_t)(strchr(text.data, ']') - text.data + 1));
			cc_buf_add(&b, worded.data, worded.len);
			cc_buf_release(&worded);
			worded = b;
		}
		cc_buf_release(&text);
		text = worded;
		worded = (struct cc_buf){0};
	}
	cc_jw_end(out);
	cc_jw_key(out, "reply");
	cc_jw_object(out);
	cc_jw_key(out, "key");
	cc_jw_cstr(out, used);
	cc_jw_key(out, "text");
	cc_jw_cstr(out, text.data ? text.data : "");
	cc_jw_key(out, "emotion");
	cc_jw_cstr(out, emotion ? emotion : "helpful");
	cc_jw_key(out, "confidence");
	cc_jw_num(out, used ? 0.9 : 0.3);
	cc_jw_end(out);
	cc_jw_key(out, "debug_info");
	cc_jw_object(out);
	cc_rules_write_trace(t->rules, out, NULL);
	cc_jw_end(out);
	cc_jw_end(out);
	cc_buf_release(&text);
	cc_buf_release(&worded);
	jv_free(forbid);
	jv_free(keep);
	jv_free(lang_jv);
	return CC_RECORD_SET;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		CC_COMMON_LONGOPTS,
		{"rules", required_argument, NULL, 'r'},
		{"no-llm", no_argument, NULL, 'L'},
		{NULL, 0, NULL, 0},
	};
	struct tutor t = {0};
	struct cc_stage stage = { .name = "cc-tutor", .key = "tutor",
		.process = tutor_record, .ctx = &t };
	struct cc_config cfg;
	struct cc_domain *dom;
	const char *rules = NULL, *env_domain = getenv("CC_DOMAIN");
	char *rpath = NULL, *tpath = NULL, err[768];
	int c, status, no_llm = 0;

	cc_set_progname(argv[0]);
	opterr = 0;
	/* the coach's own stage serves its domain unless told otherwise */
	if (!env_domain || !*env_domain)
		setenv("CC_DOMAIN", "homework-coach", 1);
	while ((c = getopt_long(argc, argv, CC_COMMON_SHORTOPTS "r:", opts, NULL)) != -1) {
		if (cc_option_common(c, argv, usage_text, &stage.unbuffered))
			continue;
		if (c == 'r')
			rules = optarg;
		else if (c == 'L')
			no_llm = 1;
	}
	if (optind < argc) {
		cc_warn("unexpected argument '%s'", argv[optind]);
		fputs(usage_text, stderr);
		return CC_EXIT_USAGE;
	}
	cc_config_load(&cfg);
	dom = cc_domain_for_stage(&cfg, &stage);
	if (stage.process) {
		if (!rules)
			rules = rpath = cc_config_domain_path(&cfg, "replies.rules");
		char *cache = cc_config_cache_dir();

		t.rules = cc_rules_load_cached(rules, cache, err, sizeof err);
		free(cache);
		if (!t.rules)
			cc_die(CC_EXIT_USAGE, "%s", err);
		if ((t.reply = cc_rules_slot(t.rules, "reply")) < 0)
			cc_die(CC_EXIT_USAGE, "%s: no 'reply' slot (the text to say)", rules);
		t.fallback = cc_rules_slot(t.rules, "fallback");
		t.lead = cc_rules_slot(t.rules, "lead");
		tpath = cc_config_domain_path(&cfg, "responses");
		if (!(t.texts = cc_texts_load(tpath, err, sizeof err)))
			cc_die(CC_EXIT_USAGE, "%s", err);
		t.use_llm = !no_llm && cc_llm_from_env(&t.llm);
	}
	status = cc_record_run(&stage, stdin, stdout);
	if (status == CC_EXIT_OK && t.llm_failed)
		status = CC_EXIT_UPSTREAM;
	if (t.use_llm)
		cc_llm_release(&t.llm);
	cc_http_cleanup();
	cc_rules_free(t.rules);
	cc_texts_free(t.texts);
	cc_domain_free(dom);
	cc_config_release(&cfg);
	free(rpath);
	free(tpath);
	return status;
}
