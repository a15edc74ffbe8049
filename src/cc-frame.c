/*
 * cc-frame: seed 003's QueryFrame of each request (domain code-intel):
 * four slots quoted from the request, each checked against it, then what
 * is missing, the risk, what to explore and how much.
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
#include "cc_domain.h"
#include "cc_llm.h"
#include "codeintel/cc_qframe.h"
#include "codeintel/cc_slotx.h"
#include "codeintel/cc_synonyms.h"
#include "codeintel/cc_explore.h"

static const char usage_text[] =
	"usage: cc-frame [-u] [--patterns FILE] [--no-llm] < records.ndjson\n"
	"Adds frame {the four slots, slot_quotes, missing_slots, risk_level,\n"
	"investigation_guidance, exploration_requirements, ...} to each NDJSON\n"
	"record from its \"query\" and intent (route.intent, else \"intent\").\n"
	"Slots come from the record's \"extracted\" when it has one, else from\n"
	"the LLM at CC_FRAME_LLM_BASE_URL when set, else from the patterns;\n"
	"every one must quote the request.\n"
	"  -p, --patterns FILE  extraction patterns (default: the domain's frame.patterns)\n"
	"  -n, --no-llm         use the patterns even when an LLM is configured\n"
	"  -D, --domain D       the domain (default $CC_DOMAIN)\n"
	"  -u, --unbuffered     flush after every record\n"
	"  -h, --help           show this help\n"
	"  -V, --version        show the version\n";

static const char prompt_system[] =
	"You extract slots from a developer's request. Answer with the JSON object only.";

struct framer {
	struct cc_config cfg;
	struct cc_domain *domain;
	struct cc_slotx *slotx;
	struct cc_synonyms *syn;
	struct cc_explore *explore;
	struct cc_llm llm;
	int use_llm;
	int llm_failed;		/* some call failed: exit 4 at the end */
};

/* One slot as a source gave it, and what the check said. */
struct slot {
	int given;		/* the source gave the slot (not null) */
	const char *value, *quote;	/* borrowed; NULL when not text */
	size_t vlen, qlen;
	enum cc_qf_verdict verdict;
	int rule;		/* the patterns' line, for the trace */
};

/* The request's intent: route.intent, else the record's, else INVESTIGATE. */
static const char *
intent_of(struct cc_record *rec, const char **from)
{
	jv v = cc_record_at(rec, "route.intent");
	const char *intent;
	size_t n;
	const char *s;

	if (jv_get_kind(v) == JV_KIND_STRING) {
		intent = cc_qframe_intent(jv_string_value(v),
		    (size_t)jv_string_length_bytes(jv_copy(v)));
		*from = "route";
	} else if ((s = cc_record_str(rec, "intent", &n)) && n) {
		intent = cc_qframe_intent(s, n);
		*from = "record";
	} else {
		intent = cc_qframe_intent(NULL, 0);
		*from = "default";
	}
	jv_free(v);
	return intent;
}

/* The LLM's slots: the extraction object in its answer, or jv_invalid(). */
static jv
ask_llm(struct framer *fr, const char *q, size_t qlen, char *err, size_t errlen)
{
	struct cc_buf user = {0}, out = {0};
	jv v = jv_invalid();

	cc_buf_add(&user, cc_qframe_prompt, strlen(cc_qframe_prompt));
	cc_buf_add(&user, q, qlen);
	if (cc_llm_chat(&fr->llm, prompt_system, user.data, &out, err, errlen) == 0) {
		v = cc_qframe_parse_answer(out.data ? out.data : "", out.len);
		if (!jv_is_valid(v))
			snprintf(err, errlen, "the answer holds no JSON object");
	}
	cc_buf_release(&user);
	cc_buf_release(&out);
	return v;
}

static void
write_string_or_null(struct cc_jw *w, const char *s, size_t n)
{
	if (s)
		cc_jw_str(w, s, n);
	else
		cc_jw_null(w);
}

/* NL -> symbol: the record's symbols_identified against target_feature. */
static void
write_mapping(struct framer *fr, struct cc_record *rec, const struct cc_qframe *f,
    struct cc_jw *out)
{
	jv syms = cc_record_get(rec, "symbols_identified");
	int n, any = 0;

	if (jv_get_kind(syms) != JV_KIND_ARRAY || !f->len[CC_QF_TARGET]) {
		jv_free(syms);
		return;
	}
	n = jv_array_length(jv_copy(syms));
	cc_jw_key(out, "nl_symbol_mapping");
	cc_jw_object(out);
	cc_jw_key(out, "term");
	cc_jw_str(out, f->value[CC_QF_TARGET], f->len[CC_QF_TARGET]);
	cc_jw_key(out, "matched");
	cc_jw_array(out);
	for (int i = 0; i < n; i++) {
		jv s = jv_array_get(jv_copy(syms), i);

		if (jv_get_kind(s) == JV_KIND_STRING &&
		    cc_synonyms_related(fr->syn, f->value[CC_QF_TARGET], f->len[CC_QF_TARGET],
		    jv_string_value(s), (size_t)jv_string_length_bytes(jv_copy(s)))) {
			cc_jw_jv(out, s);
			any = 1;
		}
		jv_free(s);
	}
	cc_jw_end(out);
	cc_jw_key(out, "valid");
	cc_jw_bool(out, any);
	cc_jw_end(out);
	jv_free(syms);
}

/* What cc-respond says: the text key by intent and risk, and its values. */
static void
write_reply(struct framer *fr, const struct cc_qframe *f, const char *intent,
    const char *risk, const int missing[CC_QF_NSLOTS], struct cc_jw *out)
{
	struct cc_buf tools = {0}, miss = {0};
	char key[64];

	for (int i = 0; i < CC_QF_NSLOTS; i++) {
		if (!missing[i])
			continue;
		if (miss.len)
			cc_buf_add(&miss, ", ", 2);
		cc_buf_add(&miss, cc_qframe_slot_names[i], strlen(cc_qframe_slot_names[i]));
	}
	cc_explore_tools_text(fr->explore, missing, &tools);
	snprintf(key, sizeof key, "frame.%s", strcmp(intent, "QUESTION") == 0 ? "question" :
	    risk);
	cc_jw_key(out, "reply");
	cc_jw_object(out);
	cc_jw_key(out, "key");
	cc_jw_cstr(out, key);
	cc_jw_key(out, "vars");
	cc_jw_object(out);
	cc_jw_key(out, "intent");
	cc_jw_cstr(out, intent);
	cc_jw_key(out, "risk");
	cc_jw_cstr(out, risk);
	cc_jw_key(out, "target");
	if (f->len[CC_QF_TARGET])
		cc_jw_str(out, f->value[CC_QF_TARGET], f->len[CC_QF_TARGET]);
	else
		cc_jw_cstr(out, "-");
	cc_jw_key(out, "missing");
	cc_jw_cstr(out, miss.len ? miss.data : "-");
	cc_jw_key(out, "tools");
	cc_jw_cstr(out, tools.len ? tools.data : "-");
	cc_jw_end(out);
	cc_jw_key(out, "confidence");
	cc_jw_num(out, 0.9);
	cc_jw_end(out);
	cc_buf_release(&tools);
	cc_buf_release(&miss);
}

static enum cc_outcome
frame(void *ctx, struct cc_record *rec, struct cc_jw *out)
{
	struct framer *fr = ctx;
	struct slot slots[CC_QF_NSLOTS];
	struct cc_qframe f;
	const char *q, *intent, *intent_from, *extractor, *risk;
	int missing[CC_QF_NSLOTS], any_rejected = 0;
	char llm_err[256] = "";
	const char *llm_status = NULL;
	jv src = jv_invalid();
	size_t qlen;

	if (!(q = cc_record_query(rec, &qlen)))
		return cc_record_fail(rec, "no_query", "the record has no string \"query\"");
	memset(&f, 0, sizeof f);
	intent = intent_of(rec, &intent_from);

	/* the slots: the caller's, the LLM's, or the patterns' */
	src = cc_record_get(rec, "extracted");
	if (jv_get_kind(src) == JV_KIND_OBJECT) {
		extractor = "caller";
	} else if (jv_is_valid(src) && jv_get_kind(src) != JV_KIND_NULL) {
		jv_free(src);
		return cc_record_fail(rec, "bad_extracted",
		    "\"extracted\" is not an object of slots");
	} else {
		jv_free(src);
		src = jv_invalid();
		extractor = "rules";
		if (fr->use_llm) {
			src = ask_llm(fr, q, qlen, llm_err, sizeof llm_err);
			if (jv_is_valid(src)) {
				extractor = "llm";
				llm_status = "ok";
			} else {
				llm_status = "failed";
				fr->llm_failed = 1;
			}
		}
	}
	if (jv_is_valid(src)) {
		struct cc_qf_given g[CC_QF_NSLOTS];

		cc_qframe_given(src, g);
		for (int i = 0; i < CC_QF_NSLOTS; i++)
			slots[i] = (struct slot){ .given = g[i].given, .value = g[i].value,
			    .quote = g[i].quote, .vlen = g[i].vlen, .qlen = g[i].qlen, .rule = -1 };
	} else {
		struct cc_slotx_span spans[CC_QF_NSLOTS];

		cc_slotx_extract(fr->slotx, q, qlen, intent, spans);
		for (int i = 0; i < CC_QF_NSLOTS; i++) {
			struct slot *sl = &slots[i];

			memset(sl, 0, sizeof *sl);
			sl->rule = -1;
			if (spans[i].end > spans[i].start) {
				sl->given = 1;
				sl->value = sl->quote = q + spans[i].start;
				sl->vlen = sl->qlen = spans[i].end - spans[i].start;
				sl->rule = spans[i].line;
			}
		}
	}
	/* every slot from every source: the seed's validate_slot */
	for (int i = 0; i < CC_QF_NSLOTS; i++) {
		struct slot *sl = &slots[i];

		if (!sl->given)
			continue;
		sl->verdict = cc_qframe_validate(sl->value, sl->vlen, sl->quote, sl->qlen, q, qlen);
		if (sl->verdict == CC_QF_VALID) {
			f.value[i] = sl->value;
			f.len[i] = sl->vlen;
		} else {
			any_rejected = 1;
		}
	}
	for (int i = 0; i < CC_QF_NSLOTS; i++)
		missing[i] = f.len[i] == 0;
	risk = cc_qframe_risk(&f, intent);

	cc_jw_object(out);
	cc_jw_key(out, "intent");
	cc_jw_cstr(out, intent);
	cc_jw_key(out, "intent_from");
	cc_jw_cstr(out, intent_from);
	cc_jw_key(out, "extractor");
	cc_jw_cstr(out, extractor);
	for (int i = 0; i < CC_QF_NSLOTS; i++) {
		cc_jw_key(out, cc_qframe_slot_names[i]);
		write_string_or_null(out, f.len[i] ? f.value[i] : NULL, f.len[i]);
	}
	cc_jw_key(out, "slot_quotes");
	cc_jw_object(out);
	for (int i = 0; i < CC_QF_NSLOTS; i++) {
		if (!f.len[i])
			continue;
		cc_jw_key(out, cc_qframe_slot_names[i]);
		cc_jw_str(out, slots[i].quote, slots[i].qlen);
	}
	cc_jw_end(out);
	/* an accepted slot stands in the request: a fact (seed 003, SlotSource) */
	cc_jw_key(out, "slot_source");
	cc_jw_object(out);
	for (int i = 0; i < CC_QF_NSLOTS; i++) {
		if (!f.len[i])
			continue;
		cc_jw_key(out, cc_qframe_slot_names[i]);
		cc_jw_cstr(out, "FACT");
	}
	cc_jw_end(out);
	cc_jw_key(out, "rejected_slots");
	cc_jw_array(out);
	for (int i = 0; i < CC_QF_NSLOTS; i++) {
		if (!slots[i].given || slots[i].verdict == CC_QF_VALID)
			continue;
		cc_jw_object(out);
		cc_jw_key(out, "slot");
		cc_jw_cstr(out, cc_qframe_slot_names[i]);
		cc_jw_key(out, "reason");
		cc_jw_cstr(out, cc_qframe_verdict_name(slots[i].verdict));
		cc_jw_key(out, "value");
		write_string_or_null(out, slots[i].value, slots[i].vlen);
		cc_jw_key(out, "quote");
		write_string_or_null(out, slots[i].quote, slots[i].qlen);
		cc_jw_end(out);
	}
	cc_jw_end(out);
	/* set_query_frame's verdict: it stores nothing when any slot fails */
	cc_jw_key(out, "valid");
	cc_jw_bool(out, !any_rejected);
	cc_jw_key(out, "missing_slots");
	cc_jw_array(out);
	for (int i = 0; i < CC_QF_NSLOTS; i++)
		if (missing[i])
			cc_jw_cstr(out, cc_qframe_slot_names[i]);
	cc_jw_end(out);
	cc_jw_key(out, "risk_level");
	cc_jw_cstr(out, risk);
	cc_jw_key(out, "investigation_guidance");
	cc_explore_write_guidance(fr->explore, missing, out);
	cc_jw_key(out, "exploration_requirements");
	cc_explore_write_requirements(fr->explore, intent, risk, out);
	write_mapping(fr, rec, &f, out);
	if (llm_status) {
		cc_jw_key(out, "llm");
		cc_jw_object(out);
		cc_jw_key(out, "status");
		cc_jw_cstr(out, llm_status);
		if (*llm_err) {
			cc_jw_key(out, "error");
			cc_jw_cstr(out, llm_err);
		}
		cc_jw_end(out);
	}
	write_reply(fr, &f, intent, risk, missing, out);
	if (!strcmp(extractor, "rules")) {
		cc_jw_key(out, "rules");	/* the patterns' line that quoted each slot */
		cc_jw_object(out);
		for (int i = 0; i < CC_QF_NSLOTS; i++) {
			if (slots[i].rule < 0)
				continue;
			cc_jw_key(out, cc_qframe_slot_names[i]);
			cc_jw_num(out, slots[i].rule);
		}
		cc_jw_end(out);
	}
	cc_jw_end(out);
	jv_free(src);
	return CC_RECORD_SET;
}

/* A data file of the domain; dies naming it when it cannot be read. */
static char *
data_path(struct framer *fr, const char *name)
{
	return cc_config_domain_path(&fr->cfg, name);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		CC_COMMON_LONGOPTS,
		{"patterns", required_argument, NULL, 'p'},
		{"no-llm", no_argument, NULL, 'n'},
		{NULL, 0, NULL, 0},
	};
	struct framer fr = {0};
	struct cc_stage stage = { .name = "cc-frame", .key = "frame",
		.process = frame, .ctx = &fr };
	const char *patterns = NULL;
	char *paths[4] = {0}, err[768];
	int c, status, no_llm = 0;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, CC_COMMON_SHORTOPTS "p:n", opts, NULL)) != -1) {
		if (cc_option_common(c, argv, usage_text, &stage.unbuffered))
			continue;
		if (c == 'p')
			patterns = optarg;
		else if (c == 'n')
			no_llm = 1;
	}
	if (optind < argc) {
		cc_warn("unexpected argument '%s'", argv[optind]);
		fputs(usage_text, stderr);
		return CC_EXIT_USAGE;
	}
	cc_config_load(&fr.cfg);
	fr.domain = cc_domain_for_stage(&fr.cfg, &stage);
	if (stage.process) {
		paths[0] = data_path(&fr, "frame.patterns");
		paths[1] = data_path(&fr, "synonyms");
		paths[2] = data_path(&fr, "guidance");
		paths[3] = data_path(&fr, "requirements");
		if (!(fr.slotx = cc_slotx_load(patterns ? patterns : paths[0], err, sizeof err)) ||
		    !(fr.syn = cc_synonyms_load(paths[1], err, sizeof err)) ||
		    !(fr.explore = cc_explore_load(paths[2], paths[3], err, sizeof err)))
			cc_die(CC_EXIT_USAGE, "%s", err);
		fr.use_llm = !no_llm && cc_llm_from_env_prefix(&fr.llm, "CC_FRAME_LLM");
	}
	status = cc_record_run(&stage, stdin, stdout);
	if (status == CC_EXIT_OK && fr.llm_failed)
		status = CC_EXIT_UPSTREAM;
	cc_slotx_free(fr.slotx);
	cc_synonyms_free(fr.syn);
	cc_explore_free(fr.explore);
	cc_llm_release(&fr.llm);
	cc_domain_free(fr.domain);
	cc_config_release(&fr.cfg);
	for (int i = 0; i < 4; i++)
		free(paths[i]);
	return status;
}
