/* The cc-route stage: decide which agent answers each query, and why (seed 000). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_lang.h"
#include "cc_session.h"
#include "cc_rules.h"
#include "cc_domain.h"
#include "cc_examples.h"
#include "cc_stages.h"

#define MAX_TURNS 32		/* turns of context read per query */
#define LEARNT_CONFIDENCE 0.6	/* at most, for a route the classifier gave */

#define SLOTS_MEMO 512	/* slot texts kept parsed: a power of two */
struct slots_memo {
	char *text;
	const char **vals;	/* the rules' slots of it, in memo_vals */
	unsigned long version;	/* changes with text: a turn's note names both */
};

struct router {
	struct cc_config cfg;
	struct cc_domain *domain;
	struct cc_rules *rules;
	struct cc_session *store;
	struct cc_session **shared;	/* the chain's (cc_route_options) */
	int borrowed;		/* store is *shared: the chain closes it */
	int store_failed;	/* warned once; route without memory */
	int store_transient;	/* ... for a lost server: exit status 4 */
	int no_memory;
	long window;
	int agent, category, request_type, confidence, reason;	/* slots */
	int search_from;	/* optional slot: "previous" searches the turn before alone */
	struct cc_json_doc slots_doc;	/* an earlier turn's slots, reused */
	struct cc_buf slots;		/* this turn's slots text (write_slots) */
	char **slot_keys;		/* each slot's "name": (NULL: not plain) */
	struct slots_memo *memo;	/* SLOTS_MEMO of them, parsed (load_slots) */
	const char **memo_vals;
	unsigned long memo_versions;	/* versions given out so far */
	/* the classifier of what no rule routes, loaded at its first use */
	struct cc_classify *model;
	int model_state;	/* 0 not tried, 1 loaded, -1 none or off */
	char *(*model_route)[CC_EXAMPLES_NSLOTS];	/* each label's values */
	int model_fallback;	/* the label of the fallback agent, or -1 */
	int learnt_slot[CC_EXAMPLES_NSLOTS];	/* the rules' slot, if labelled */
	double margin;
	char *rules_path;	/* the domain's, when no --rules was given */
};

/* A classifier's verdict on one record, for the route and its trace. */
struct verdict {
	int consulted, taken;
	struct cc_classify_result r;
};

/* The members of route that cc-route writes; output lines add others. */
static const char *const route_members[] = {
	"agent", "category", "request_type", "language", "search_query",
	"confidence", "debug_info", NULL,
};

/* The output slots; the rest of the slots are shown in the trace. */
static const char *const output_slots[] = {
	"agent", "category", "request_type", "confidence", "reason", NULL,
};

static struct cc_session *
store(struct router *rt)
{
	char err[512];

	if (rt->store || rt->store_failed || rt->no_memory)
		return rt->store;
	/*
	 * In a chain, one connection for the turns and their answers,
	 * written as the chain's batches end; if it cannot be had, the
	 * stage's own, which says why as the stage process would.
	 */
	if (rt->shared && (*rt->shared || (*rt->shared = cc_session_open(&rt->cfg,
	    CC_SESSION_CACHE | CC_SESSION_ANSWERS | CC_SESSION_BATCH, err, sizeof err)))) {
		rt->borrowed = 1;
		return rt->store = *rt->shared;
	}
	rt->store = cc_session_open(&rt->cfg, CC_SESSION_CACHE, err, sizeof err);
	if (!rt->store) {
		/* spec: memory failure keeps routing, without context */
		cc_warn("session memory unavailable, routing without context: %s", err);
		rt->store_failed = 1;
	}
	return rt->store;
}

/*
 * A store that fails in the middle of a run (locked past the lock
 * timeout, corrupt, a full disk) is given up like one that cannot be
 * opened: one warning, then routing without context.  Trying again cost
 * every record the whole lock timeout, and a corrupt store printed two
 * warnings a record.
 */
static void
store_lost(struct router *rt, unsigned long line, const char *what)
{
	if (line)
		cc_warn_kind("route-memory", "line %lu: %s: %s; routing "
		    "without context from here on", line, what,
		    cc_session_error(rt->store));
	else
		cc_warn_kind("route-memory", "%s: %s; routing without "
		    "context from here on", what, cc_session_error(rt->store));
	if (cc_session_transient(rt->store))
		rt->store_transient = 1;
	if (!rt->borrowed)
		cc_session_close(rt->store);
	rt->store = NULL;
	rt->store_failed = 1;
}

/*
 * The router model, at its first use: a record that no rule routes is
 * rare, and most runs never pay for loading it.  A domain without
 * examples has none, silently; one whose examples cannot be read warns
 * once and routes by the rules alone.
 */
static struct cc_classify *
model(struct router *rt)
{
	char err[512];
	size_t n;

	if (rt->model_state)
		return rt->model;
	rt->model_state = -1;
	if (!rt->domain->examples)
		return NULL;
	if (!(rt->model = cc_examples_model(&rt->cfg, rt->domain, 0, err, sizeof err))) {
		cc_warn("no router model, routing by the rules alone: %s", err);
		return NULL;
	}
	n = cc_classify_nlabels(rt->model);
	rt->model_route = cc_xmalloc(n * sizeof *rt->model_route);
	rt->model_fallback = -1;
	for (size_t i = 0; i < n; i++) {
		cc_examples_split(cc_xstrdup(cc_classify_label(rt->model, i)),
		    rt->model_route[i]);
		if (rt->model_fallback < 0 &&
		    strcmp(rt->model_route[i][0], rt->domain->fallback->name) == 0)
			rt->model_fallback = (int)i;
	}
	/* the route members the examples label (eval-label route.X) */
	for (size_t k = 0; k < CC_EXAMPLES_NSLOTS; k++) {
		char path[64];

		snprintf(path, sizeof path, "route.%s", cc_examples_slots[k]);
		rt->learnt_slot[k] = k == 0 ? rt->agent : -1;
		for (size_t i = 0; i < rt->domain->nlabels; i++)
			if (strcmp(rt->domain->labels[i].path, path) == 0)
				rt->learnt_slot[k] = cc_rules_slot(rt->rules, cc_examples_slots[k]);
	}
	rt->model_state = 1;
	return rt->model;
}

static void
model_free(struct router *rt)
{
	if (rt->model_route)
		for (size_t i = 0; i < cc_classify_nlabels(rt->model); i++)
			free(rt->model_route[i][0]);	/* the split string */
	free(rt->model_route);
	cc_classify_free(rt->model);
}

/* debug_info.classifier: what the model said and whether it was taken. */
static void
write_verdict(struct router *rt, struct cc_jw *out, const struct verdict *v)
{
	cc_jw_key(out, "classifier");
	cc_jw_object(out);
	cc_jw_key(out, "label");
	if (v->r.label >= 0) {
		char *const *route = rt->model_route[v->r.label];

		cc_jw_object(out);
		for (size_t i = 0; i < CC_EXAMPLES_NSLOTS; i++) {
			cc_jw_key(out, cc_examples_slots[i]);
			cc_jw_cstr(out, *route[i] ? route[i] : NULL);
		}
		cc_jw_end(out);
	} else {
		cc_jw_null(out);
	}
	cc_jw_key(out, "score");
	cc_jw_num(out, v->r.label >= 0 ? v->r.score : 0);
	cc_jw_key(out, "margin");
	cc_jw_num(out, v->r.second >= 0 ? v->r.margin : 0);
	cc_jw_key(out, "min_margin");
	cc_jw_num(out, rt->margin);
	cc_jw_key(out, "known_ngrams");
	cc_jw_num(out, (double)v->r.known);
	cc_jw_key(out, "ngrams");	/* [n-gram, log-odds for the label] */
	cc_jw_array(out);
	for (size_t i = 0; i < v->r.nwhy; i++) {
		cc_jw_array(out);
		cc_jw_cstr(out, v->r.why[i]);
		cc_jw_num(out, (double)(long)(v->r.why_weight[i] * 1000 + 0.5) / 1000);
		cc_jw_end(out);
	}
	cc_jw_end(out);
	cc_jw_key(out, "taken");
	cc_jw_bool(out, v->taken);
	cc_jw_end(out);
}

/* Slot values of a stored turn's slots text into vals[], as the rules' own strings. */
static void
parse_slots(struct router *rt, const char *slots, const char **vals)
{
	struct cc_json_doc *d = &rt->slots_doc;

	/* the text is ours, but the store is a file: check it all the same */
	if (cc_json_scan(d, slots, strlen(slots)) < 0 || d->text.data[0] != '{')
		return;
	for (size_t i = 0; i < cc_rules_nslots(rt->rules); i++) {
		const struct cc_json_field *f = cc_json_field(d, cc_rules_slot_name(rt->rules, i));
		char v[128];

		/* values are the rules' own names: plain strings, no escapes */
		if (f && f->val_len >= 2 && f->val_len < sizeof v + 2 &&
		    d->text.data[f->val_at] == '"' &&
		    !memchr(d->text.data + f->val_at, '\\', f->val_len)) {
			memcpy(v, d->text.data + f->val_at + 1, f->val_len - 2);
			v[f->val_len - 2] = '\0';
			vals[i] = cc_rules_intern(rt->rules, v);
		}
	}
}

/* A hash of a slots text, eight bytes at a time. */
static uint64_t
slots_hash(const char *s, size_t n)
{
	uint64_t h = n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0x100000001b3ull;
	return h ^ h >> 32;
}

/*
 * The same, remembered by text: a session's turns leave a few dozen slot
 * combinations (134 in 40,000 bench records), and parsing them again for
 * the last and the previous turn of every record was 9% of routing's
 * instructions with memory (15,600 a record).  Returns the memo entry.
 */
static struct slots_memo *
memo_slots(struct router *rt, const char *text, size_t len)
{
	struct slots_memo *m;
	size_t nslots = cc_rules_nslots(rt->rules);

	if (!rt->memo) {
		rt->memo = cc_xmalloc(SLOTS_MEMO * sizeof *rt->memo);
		rt->memo_vals = cc_xmalloc(SLOTS_MEMO * nslots * sizeof *rt->memo_vals);
		for (size_t i = 0; i < SLOTS_MEMO; i++)
			rt->memo[i] = (struct slots_memo){ NULL, rt->memo_vals + i * nslots, 0 };
	}
	m = &rt->memo[slots_hash(text, len) & (SLOTS_MEMO - 1)];
	if (!m->text || strcmp(m->text, text) != 0) {
		free(m->text);
		m->text = cc_xstrdup(text);
		m->version = ++rt->memo_versions;
		memset(m->vals, 0, nslots * sizeof *m->vals);
		parse_slots(rt, text, m->vals);
	}
	return m;
}

/* A turn's note: the memo entry of its slots text, and that text's version. */
static unsigned long
memo_note(const struct router *rt, const struct slots_memo *m)
{
	return m->version * SLOTS_MEMO + (unsigned long)(m - rt->memo);
}

/*
 * A stored turn's slots into vals.  A turn this router added carries the
 * note of its slots' memo entry, so its text (cold by now, in the
 * session's kept turn) is not read again while the entry holds it: a
 * fifth of memory's time went to reading two turns' slots texts.
 */
static void
load_slots(struct router *rt, const struct cc_turn *t, const char **vals)
{
	const struct slots_memo *m = NULL;
	size_t nslots = cc_rules_nslots(rt->rules);

	if (!t || !t->slots)
		return;
	if (t->note && rt->memo) {
		m = &rt->memo[t->note % SLOTS_MEMO];
		if (m->version != t->note / SLOTS_MEMO || !m->text)
			m = NULL;	/* the entry has another text since */
	}
	if (!m)
		m = memo_slots(rt, t->slots, strlen(t->slots));
	for (size_t i = 0; i < nslots; i++)
		if (m->vals[i])
			vals[i] = m->vals[i];
}

/* Whether s is printable ASCII that JSON writes as it is (no " or \). */
static int
plain_json(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\')
			return 0;
	}
	return 1;
}

/*
 * The slots a turn leaves its session, so that a follow-up continues it,
 * into b (emptied first).  Each slot's name is quoted once, and a value
 * of printable ASCII (the rules' own, mostly) is quoted as it is: byte
 * for byte what cc_jw writes, which the rest still goes through.  The
 * writer's checks of seven names and values and a buffer grown anew
 * were a twentieth of cc-route's time with memory.
 */
static void
write_slots(struct router *rt, struct cc_buf *b)
{
	size_t nslots = cc_rules_nslots(rt->rules);
	struct cc_jw w;
	int any = 0;

	if (!rt->slot_keys) {
		rt->slot_keys = cc_xmalloc((nslots + 1) * sizeof *rt->slot_keys);
		for (size_t i = 0; i < nslots; i++) {
			const char *name = cc_rules_slot_name(rt->rules, i);
			size_t n = strlen(name);

			rt->slot_keys[i] = NULL;
			if (plain_json(name, n)) {
				rt->slot_keys[i] = cc_xmalloc(n + 4);
				snprintf(rt->slot_keys[i], n + 4, "\"%s\":", name);
			}
		}
	}
	b->len = 0;
	cc_buf_add(b, "{", 1);
	for (size_t i = 0; i < nslots; i++) {
		const char *v = cc_rules_value(rt->rules, (int)i);	/* by index: a name lookup each was quadratic */
		size_t n;

		if (!v)
			continue;
		n = strlen(v);
		if (!rt->slot_keys[i] || !plain_json(v, n))
			goto general;
		if (any++)
			cc_buf_add(b, ",", 1);
		cc_buf_add(b, rt->slot_keys[i], strlen(rt->slot_keys[i]));
		cc_buf_grow_to(b, n + 2);
		b->data[b->len++] = '"';
		memcpy(b->data + b->len, v, n);
		b->len += n;
		b->data[b->len++] = '"';
		b->data[b->len] = '\0';
	}
	cc_buf_add(b, "}", 1);
	return;
general:
	b->len = 0;
	cc_jw_init(&w, b);
	cc_jw_object(&w);
	for (size_t i = 0; i < nslots; i++) {
		const char *v = cc_rules_value(rt->rules, (int)i);

		if (v) {
			cc_jw_key(&w, cc_rules_slot_name(rt->rules, i));
			cc_jw_cstr(&w, v);
		}
	}
	cc_jw_end(&w);
}

static enum cc_outcome
route(void *ctx, struct cc_record *rec, struct cc_jw *out)
{
	struct router *rt = ctx;
	struct cc_rules_context rc = {0};
	const struct cc_turn *turns = NULL;
	struct cc_turn now_turn = {0};
	struct cc_lang_result lr;
	struct verdict verdict = {0};
	char *inputs[CC_RULES_MAX_SLOTS];
	const char *q, *lang, *cue = NULL, *agent, *category, *conf, *type, *ld_raw;
	size_t ld_len = 0;
	char *num_end;
	jv ld;
	int n = 0, prev = -1;
	long long turn_id = -1;
	const char *lost = NULL;	/* the store failed: given up at the end */
	size_t qlen;
	char *sid;

	cc_config_tick(&rt->cfg);

	if (!(q = cc_record_query(rec, &qlen)))
		return cc_record_fail(rec, "no_query", "the record has no string \"query\"");

	/* the language: cc-detect-lang's verdict, or detect it here */
	ld_raw = cc_record_raw(rec, "language_detection", &ld_len);
	if (ld_raw && *ld_raw == '{') {
		/* two members, not the whole evidence; ld keeps the cue alive */
		jv l = cc_record_at(rec, "language_detection.detected_language");

		ld = cc_record_at(rec, "language_detection.cue");
		lang = jv_get_kind(l) == JV_KIND_STRING &&
		    strcmp(jv_string_value(l), "en") == 0 ? "en" : "ja";
		cue = jv_get_kind(ld) == JV_KIND_STRING ? jv_string_value(ld) : NULL;
		jv_free(l);
	} else {
		ld_raw = NULL;
		ld = jv_invalid();
		cc_lang_detect(q, qlen, &lr);
		lang = cc_lang_name(lr.lang);
		cue = lr.cue;
	}

	/* the session's earlier turns within the memory window */
	sid = rt->no_memory ? NULL : cc_record_session_id(rec);
	if (sid && store(rt)) {
		n = cc_session_turns(rt->store, sid, rt->cfg.now - rt->window,
		    &turns, MAX_TURNS);
		if (n < 0) {
			lost = "cannot read session memory";
			n = 0;
		}
	}
	if (n > 0) {
		rc.has_last = 1;
		load_slots(rt, &turns[n - 1], rc.last);
		for (prev = n - 1; prev >= 0; prev--)
			if (!cc_rules_skips_agent(rt->rules, turns[prev].agent))
				break;
		if (prev >= 0)
			load_slots(rt, &turns[prev], rc.prev);
		/* a turn with no language of its own answers in the session's */
		if (cc_rules_language_neutral(rt->rules, cue) && turns[n - 1].language)
			lang = turns[n - 1].language;
	}
	cc_rules_read_inputs(rt->rules, rec, &rc, inputs);
	cc_rules_eval(rt->rules, q, qlen, &rc);
	/*
	 * What the rules leave to the fallback agent by default, no rule was
	 * sure of: the examples decide it when they are sure (issue 15).  The
	 * slots they were labelled with are pinned and the rules decide the
	 * rest again, so a learnt route has the domain's own category,
	 * request type and reason for that agent.  A rule that names the
	 * fallback agent on a condition (a greeting, "which one?") is sure.
	 */
	agent = cc_rules_value(rt->rules, rt->agent);
	if (cc_rules_by_default(rt->rules, rt->agent) &&
	    (!agent || strcmp(agent, rt->domain->fallback->name) == 0) && model(rt)) {
		verdict.consulted = 1;
		/* sure against the fallback it would replace, not the runner-up */
		cc_classify_predict(rt->model, q, qlen, rt->model_fallback, &verdict.r);
		if (verdict.r.label >= 0 && verdict.r.label != rt->model_fallback &&
		    verdict.r.margin >= rt->margin) {
			char *const *learnt = rt->model_route[verdict.r.label];

			verdict.taken = 1;
			for (size_t k = 0; k < CC_EXAMPLES_NSLOTS; k++)
				if (rt->learnt_slot[k] >= 0)
					cc_rules_pin(rt->rules, rt->learnt_slot[k],
					    *learnt[k] ? learnt[k] : NULL);
			cc_rules_eval(rt->rules, q, qlen, &rc);
			cc_rules_unpin(rt->rules);
		}
	}
	cc_rules_inputs_release(rt->rules, inputs);

	/* spec: what no rule routes goes to the domain's fallback agent */
	agent = cc_rules_value(rt->rules, rt->agent);
	category = cc_rules_value(rt->rules, rt->category);
	conf = cc_rules_value(rt->rules, rt->confidence);
	type = cc_rules_value(rt->rules, rt->request_type);
	if (!agent) {
		agent = rt->domain->fallback->name;
		category = rt->domain->fallback_category;
	}

	if (sid && rt->store && !lost) {
		char *qz = cc_xmalloc(qlen + 1);	/* q is not NUL-terminated */

		memcpy(qz, q, qlen);
		qz[qlen] = '\0';
		write_slots(rt, &rt->slots);
		now_turn = (struct cc_turn){
			.at = rt->cfg.now, .query = qz, .language = (char *)lang,
			.agent = (char *)agent, .category = (char *)category,
			.request_type = (char *)type,
			.slots = rt->slots.data,
			.note = memo_note(rt, memo_slots(rt, rt->slots.data, rt->slots.len)),
		};
		turn_id = cc_session_add(rt->store, sid, &now_turn);
		if (turn_id < 0)
			lost = "cannot record the turn";
		free(qz);
	}

	cc_jw_object(out);
	cc_jw_key(out, "agent");
	cc_jw_cstr(out, agent);
	cc_jw_key(out, "category");
	cc_jw_cstr(out, category ? category : rt->domain->fallback_category);
	cc_jw_key(out, "request_type");
	cc_jw_cstr(out, type);
	cc_jw_key(out, "language");
	cc_jw_cstr(out, lang);
	const struct cc_turn *from = cc_rules_inherited(rt->rules) && n > 0 ?
	    &turns[cc_rules_inherited(rt->rules) == 1 || prev < 0 ? n - 1 : prev] : NULL;

	/*
	 * A follow-up that asks an aspect of its own ("And how do I get
	 * there from Tenjin?" after the Wi-Fi) keeps the place but not the
	 * words of the question before, which would rank that question's
	 * passages first.
	 */
	if (from && type && from->request_type && strcmp(from->request_type, type) != 0)
		from = NULL;
	/*
	 * A clarification answered by a description ("the one you pay for",
	 * お金払うほう: slot search_from "previous") only says which; its words
	 * are no one's passage, and the question it answers is searched alone.
	 */
	const char *sf = cc_rules_value(rt->rules, rt->search_from);
	int alone = sf && strcmp(sf, "previous") == 0 && n > 0;

	if (alone)
		from = &turns[n - 1];
	if (from) {
		/*
		 * "駅前店の方" (the station shop, then) says little to a search engine: retrieval gets the
		 * question it continues as well.
		 */
		struct cc_buf sq = {0};

		cc_buf_add(&sq, from->query, strlen(from->query));
		if (!alone) {
			cc_buf_add(&sq, " ", 1);
			cc_buf_add(&sq, q, qlen);
		}
		cc_jw_key(out, "search_query");
		cc_jw_str(out, sq.data, sq.len);
		cc_buf_release(&sq);
	}
	cc_jw_key(out, "confidence");
	if (verdict.taken) {	/* a learnt route is less sure than a rule */
		double c = conf ? strtod(conf, &num_end) : 0.5;

		cc_jw_num(out, c >= 0 && c < LEARNT_CONFIDENCE ? c : LEARNT_CONFIDENCE);
	} else if (conf && strtod(conf, &num_end) >= 0 && !*num_end) {
		cc_jw_raw(out, conf, strlen(conf));	/* the rules' own digits */
	} else {
		cc_jw_num(out, 0.5);
	}
	cc_rules_write_outputs(rt->rules, out);
	cc_jw_key(out, "debug_info");
	cc_jw_object(out);
	cc_jw_key(out, "language_detection");
	if (ld_raw) {
		cc_jw_raw_checked(out, ld_raw, ld_len);	/* as the record holds it */
	} else {	/* the spec's LanguageDetectionResult; evidence is cc-detect-lang's */
		cc_jw_object(out);
		cc_jw_key(out, "detected_language");
		cc_jw_cstr(out, lang);
		cc_jw_key(out, "confidence");
		cc_jw_num(out, lr.confidence);
		cc_jw_key(out, "is_mixed");
		cc_jw_bool(out, lr.is_mixed);
		cc_jw_key(out, "cue");
		cc_jw_cstr(out, lr.cue);
		cc_jw_end(out);
	}
	cc_jw_key(out, "classification");
	cc_jw_object(out);
	cc_jw_key(out, "reason");
	cc_jw_cstr(out, cc_rules_value(rt->rules, rt->reason));
	cc_rules_write_trace(rt->rules, out, output_slots);
	if (verdict.consulted)
		write_verdict(rt, out, &verdict);
	cc_jw_key(out, "context");
	cc_jw_object(out);
	cc_jw_key(out, "turns");
	cc_jw_num(out, n);
	cc_jw_key(out, "inherited");
	cc_jw_bool(out, cc_rules_inherited(rt->rules) != 0);
	cc_jw_key(out, "from_turn");
	if (cc_rules_inherited(rt->rules) == 1 && n > 0)
		cc_jw_num(out, (double)turns[n - 1].id);
	else if (cc_rules_inherited(rt->rules) == 2 && prev >= 0)
		cc_jw_num(out, (double)turns[prev].id);
	else
		cc_jw_null(out);
	cc_jw_end(out);
	cc_jw_end(out);
	cc_jw_key(out, "session");
	cc_jw_object(out);
	cc_jw_key(out, "id");
	cc_jw_cstr(out, sid);
	cc_jw_key(out, "turn");
	if (turn_id >= 0)
		cc_jw_num(out, (double)turn_id);
	else
		cc_jw_null(out);
	if (lost) {
		/* the record says why it was routed without its session */
		char why[640];

		snprintf(why, sizeof why, "%s: %s", lost, cc_session_error(rt->store));
		cc_jw_key(out, "error");
		cc_jw_cstr(out, why);
	}
	cc_jw_end(out);
	cc_jw_end(out);
	cc_jw_end(out);

	/* the turns are the store's: given up after their last use */
	if (lost)
		store_lost(rt, rec->line, lost);
	jv_free(ld);
	free(sid);
	return CC_RECORD_SET;
}

static void
flush_store(void *ctx)
{
	struct router *rt = ctx;

	if (rt->store && cc_session_flush(rt->store) < 0)
		store_lost(rt, 0, "cannot save session memory");
}

/* --learn: the model learnt again from the examples, and where it went. */
static int
learn_model(struct router *rt)
{
	char err[512], *where = cc_examples_model_path(&rt->cfg);
	int status = CC_EXIT_OK;

	if (!rt->domain->examples) {
		cc_warn("domain '%s' has no examples to learn from (cc-domain(5))",
		    rt->cfg.domain);
		status = CC_EXIT_DATA;
	} else if (!(rt->model = cc_examples_model(&rt->cfg, rt->domain, 1, err, sizeof err))) {
		cc_warn("%s", err);
		status = CC_EXIT_DATA;
	} else {
		printf("learnt %zu routes from '%s' into '%s'\n",
		    cc_classify_nlabels(rt->model), rt->domain->examples, where);
	}
	free(where);
	cc_classify_free(rt->model);
	cc_domain_free(rt->domain);
	cc_config_release(&rt->cfg);
	return status;
}

int
cc_route_learn(const struct cc_route_options *o, char *err, size_t errlen)
{
	struct router rt = { .window = 180 };
	struct cc_stage stage = { .name = "cc-route", .key = "route", .process = route };
	const char *w = o->window ? o->window : getenv("CC_MEMORY_WINDOW");
	char *end;

	if (w && *w && (strtol(w, &end, 10) < 0 || *end)) {
		snprintf(err, errlen, "invalid memory window '%s': expected seconds", w);
		return -CC_EXIT_USAGE;
	}
	cc_config_load(&rt.cfg);
	rt.domain = cc_domain_for_stage(&rt.cfg, &stage);
	return learn_model(&rt);
}

int
cc_route_open(struct cc_stage *stage, const struct cc_route_options *o,
    char *err, size_t errlen)
{
	struct router *rt = cc_xmalloc(sizeof *rt);
	const char *rules_path = o->rules_path, *w = o->window;
	char *cache, *end;

	memset(rt, 0, sizeof *rt);
	stage->name = "cc-route";
	stage->key = "route";
	stage->process = route;
	stage->flush = flush_store;
	stage->ctx = rt;
	rt->window = 180;
	rt->no_memory = o->no_memory;
	rt->shared = o->shared;
	if (o->no_classifier)
		rt->model_state = -1;
	if (!w)
		w = getenv("CC_MEMORY_WINDOW");
	if (w && *w) {
		rt->window = strtol(w, &end, 10);
		if (*end || rt->window < 0) {
			snprintf(err, errlen, "invalid memory window '%s': expected seconds", w);
			free(rt);
			return CC_EXIT_USAGE;
		}
	}
	cc_config_load(&rt->cfg);
	rt->domain = cc_domain_for_stage(&rt->cfg, stage);
	rt->margin = rt->domain->examples_margin >= 0 ? rt->domain->examples_margin :
	    CC_EXAMPLES_MARGIN;
	if (!stage->process)
		return 0;
	if (!rules_path)
		rules_path = rt->rules_path = cc_config_domain_path(&rt->cfg, "routing.rules");
	cache = cc_config_cache_dir();
	rt->rules = cc_rules_load_cached(rules_path, cache, err, errlen);
	free(cache);
	if (!rt->rules) {
		cc_route_close(stage, 0);
		return CC_EXIT_USAGE;
	}
	for (size_t i = 0; i < cc_rules_noutputs(rt->rules); i++) {
		int line;
		const char *name = cc_rules_output_name(rt->rules, i, &line);

		for (const char *const *own = route_members; *own; own++)
			if (strcmp(name, *own) == 0) {
				snprintf(err, errlen, "%s:%d: output '%s' is a member "
				    "cc-route writes itself", rules_path, line, name);
				cc_route_close(stage, 0);
				return CC_EXIT_USAGE;
			}
	}
	rt->agent = cc_rules_slot(rt->rules, "agent");
	rt->category = cc_rules_slot(rt->rules, "category");
	rt->request_type = cc_rules_slot(rt->rules, "request_type");
	rt->confidence = cc_rules_slot(rt->rules, "confidence");
	rt->reason = cc_rules_slot(rt->rules, "reason");
	rt->search_from = cc_rules_slot(rt->rules, "search_from");
	return 0;
}

int
cc_route_close(struct cc_stage *stage, int status)
{
	struct router *rt = stage->ctx;

	if (status == CC_EXIT_OK && rt->store_transient)
		status = CC_EXIT_UPSTREAM;
	if (!rt->borrowed)
		cc_session_close(rt->store);	/* commits the turns */
	rt->store = NULL;
	if (stage->leave)
		return status;
	cc_json_doc_release(&rt->slots_doc);
	cc_buf_release(&rt->slots);
	for (size_t i = 0; rt->slot_keys && i < cc_rules_nslots(rt->rules); i++)
		free(rt->slot_keys[i]);
	free(rt->slot_keys);
	for (size_t i = 0; rt->memo && i < SLOTS_MEMO; i++)
		free(rt->memo[i].text);
	free(rt->memo);
	free(rt->memo_vals);
	cc_rules_free(rt->rules);
	model_free(rt);
	cc_domain_free(rt->domain);
	cc_config_release(&rt->cfg);
	free(rt->rules_path);
	free(rt);
	return status;
}
