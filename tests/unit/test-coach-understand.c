/*
 * Unit tests of understanding the child: the cue lexicon, the emotion
 * scores and the seed's thresholds, update_emotion, the answer-request
 * detector, and the original's (peer's) vectors replayed through them
 * (tests/data/homework-coach/peer, format in its README).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_json.h"
#include "cc_rules.h"
#include "coach/cc_lexicon.h"
#include "coach/cc_emotion.h"
#include "coach/cc_answer_request.h"
#include "tap.h"

#define NOW 1736902800		/* 2025-01-15T01:00:00Z */

static char datadir[4096], testdata[4096];

static char *
write_file(const char *text)
{
	char *path = strdup("/tmp/cc-coach-test.XXXXXX");
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	return path;
}

static struct cc_lexicon *
lexicon(const char *text, const char *const *extra, char *err, size_t errlen)
{
	char *path = write_file(text);
	struct cc_lexicon *x = cc_lexicon_load(path, extra, err, errlen);

	unlink(path);
	free(path);
	return x;
}

static jv
parse(const char *s)
{
	return cc_json_parse(s, strlen(s));
}

/* The value at a dotted path (list indexes allowed); owned, or invalid. */
static jv
at(jv v, const char *path)
{
	jv cur = jv_copy(v);

	while (*path && jv_is_valid(cur)) {
		size_t k = strcspn(path, ".");
		char seg[128];

		snprintf(seg, sizeof seg, "%.*s", (int)k, path);
		path += k + (path[k] == '.');
		if (jv_get_kind(cur) == JV_KIND_OBJECT) {
			if (!jv_object_has(jv_copy(cur), jv_string(seg))) {
				jv_free(cur);
				return jv_invalid();
			}
			cur = jv_object_get(cur, jv_string(seg));
		} else if (jv_get_kind(cur) == JV_KIND_ARRAY) {
			cur = jv_array_get(cur, atoi(seg));
		} else {
			jv_free(cur);
			return jv_invalid();
		}
	}
	return cur;
}

/* The string at a path into buf ("?" when it is not a string). */
static const char *
str_at(jv v, const char *path, char *buf, size_t n)
{
	jv x = at(v, path);

	snprintf(buf, n, "%s", jv_get_kind(x) == JV_KIND_STRING ? jv_string_value(x) : "?");
	jv_free(x);
	return buf;
}

static double
num_at(jv v, const char *path)
{
	jv x = at(v, path);
	double d = jv_get_kind(x) == JV_KIND_NUMBER ? jv_number_value(x) : NAN;

	jv_free(x);
	return d;
}

/* An error result: {"error": "..."} and nothing else; consumes r. */
static int
is_error(jv r)
{
	char buf[8];
	int e = strcmp(str_at(r, "error", buf, sizeof buf), "?") != 0 &&
	    jv_object_length(jv_copy(r)) == 1;

	jv_free(r);
	return e;
}

/* Deep equality, numbers within 1e-9 (the peer README's rule). */
static int
same(jv a, jv b)
{
	if (jv_get_kind(a) == JV_KIND_NUMBER && jv_get_kind(b) == JV_KIND_NUMBER)
		return fabs(jv_number_value(a) - jv_number_value(b)) < 1e-9;
	return jv_equal(jv_copy(a), jv_copy(b));
}

static char *
dump(jv v)
{
	jv s = jv_is_valid(v) ? jv_dump_string(jv_copy(v), 0) : jv_string("(absent)");
	char *r = strdup(jv_string_value(s));

	jv_free(s);
	return r;
}

/* Every member of `expect` (dotted path -> value; consumed) holds in `got`. */
static int
expect_all(jv expect, jv got, const char *id, const char *what)
{
	int good = 1;

	if (jv_get_kind(expect) != JV_KIND_OBJECT) {
		jv_free(expect);
		return 1;
	}
	jv_object_foreach(expect, k, want) {
		jv have = at(got, jv_string_value(k));

		if (!same(have, want)) {
			char *h = dump(have), *w = dump(want);

			printf("#   %s: %s %s is %s, want %s\n", id, what, jv_string_value(k), h, w);
			free(h);
			free(w);
			good = 0;
		}
		jv_free(have);
		jv_free(k);
		jv_free(want);
	}
	jv_free(expect);
	return good;
}

/* The checks of the peer's vectors (consumed): present, absent, ge, min_len, equals. */
static int
checks_all(jv checks, jv got, const char *id)
{
	int good = 1, n = jv_get_kind(checks) == JV_KIND_ARRAY ?
	    jv_array_length(jv_copy(checks)) : 0;

	for (int i = 0; i < n; i++) {
		jv c = jv_array_get(jv_copy(checks), i);
		jv path = jv_object_get(jv_copy(c), jv_string("path"));
		jv op = jv_object_get(jv_copy(c), jv_string("op"));
		jv value = jv_object_get(jv_copy(c), jv_string("value"));
		jv have = at(got, jv_string_value(path));
		const char *o = jv_string_value(op);
		int pass;

		if (strcmp(o, "present") == 0)
			pass = jv_is_valid(have);
		else if (strcmp(o, "absent") == 0)
			pass = !jv_is_valid(have);
		else if (strcmp(o, "ge") == 0)
			pass = jv_get_kind(have) == JV_KIND_NUMBER &&
			    jv_number_value(have) >= jv_number_value(value) - 1e-9;
		else if (strcmp(o, "min_len") == 0)
			pass = jv_get_kind(have) == JV_KIND_ARRAY &&
			    jv_array_length(jv_copy(have)) >= (int)jv_number_value(value);
		else if (strcmp(o, "equals") == 0)
			pass = jv_is_valid(have) && same(have, value);
		else
			pass = 0;	/* an op this replay does not know */
		if (!pass) {
			printf("#   %s: check %s %s failed\n", id, jv_string_value(path), o);
			good = 0;
		}
		jv_free(c);
		jv_free(path);
		jv_free(op);
		jv_free(value);
		jv_free(have);
	}
	jv_free(checks);
	return good;
}

/* Each line of a file as a parsed jv, through fn. */
static void
each_vector(const char *name, void (*fn)(jv v, void *ctx), void *ctx)
{
	char path[4200], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof path, "%s/peer/%s", testdata, name);
	if (!ok((f = fopen(path, "r")) != NULL, "%s opens", name))
		return;
	while ((n = getline(&line, &cap, f)) > 0) {
		jv v = cc_json_parse(line, (size_t)n);

		if (jv_get_kind(v) == JV_KIND_OBJECT)
			fn(v, ctx);
		else
			ok(0, "%s: a vector that is not an object", name);
		jv_free(v);
	}
	free(line);
	fclose(f);
}

/* ---- the peer's update_emotion vectors ---- */

static void
emotion_vector(jv v, void *ctx)
{
	jv id = jv_object_get(jv_copy(v), jv_string("id"));
	jv session = jv_object_get(jv_copy(v), jv_string("state"));
	jv steps = jv_object_get(jv_copy(v), jv_string("steps"));
	jv emo = jv_object_get(jv_copy(session), jv_string("emotion"));
	int good = 1, n = jv_array_length(jv_copy(steps));

	(void)ctx;
	if (!jv_is_valid(emo)) {
		jv_free(emo);
		emo = jv_null();
	}
	for (int i = 0; i < n; i++) {
		jv step = jv_array_get(jv_copy(steps), i);
		jv input = jv_object_get(jv_copy(step), jv_string("input"));
		jv result = cc_emotion_update(input, &emo, NOW);
		jv whole;

		/* the session state as the peer sees it: {"emotion": ...} */
		session = jv_object_set(session, jv_string("emotion"), jv_copy(emo));
		whole = jv_copy(session);
		if (jv_get_kind(whole) == JV_KIND_OBJECT && jv_get_kind(emo) == JV_KIND_NULL)
			whole = jv_object_delete(whole, jv_string("emotion"));
		good &= expect_all(jv_object_get(jv_copy(step), jv_string("expect")), result,
		    jv_string_value(id), "result");
		good &= checks_all(jv_object_get(jv_copy(step), jv_string("checks")), result,
		    jv_string_value(id));
		good &= expect_all(jv_object_get(jv_copy(step), jv_string("expect_state")), whole,
		    jv_string_value(id), "state");
		good &= checks_all(jv_object_get(jv_copy(step), jv_string("state_checks")), whole,
		    jv_string_value(id));
		jv_free(whole);
		jv_free(result);
		jv_free(input);
		jv_free(step);
	}
	ok(good, "peer %s", jv_string_value(id));
	jv_free(emo);
	jv_free(steps);
	jv_free(session);
	jv_free(id);
}

/* ---- the peer's answer-request vectors ---- */

/*
 * Where we differ from the original on purpose: its keyword list has no
 * もういいや (the notes call colloquial forms unmatched), and issue 12 asks
 * that もういいや be an implicit request.
 */
static const char *const ar_differs[][2] = {
	{ "ar-017", "implicit" },
};

static void
answer_vector(jv v, void *ctx)
{
	struct cc_lexicon *lex = ctx;
	jv id = jv_object_get(jv_copy(v), jv_string("id"));
	jv u = at(v, "input.utterance"), want = at(v, "expect.request_type");
	jv got = cc_answer_request_detect(lex, jv_string_value(u),
	    (size_t)jv_string_length_bytes(jv_copy(u)));
	jv type = jv_object_get(jv_copy(got), jv_string("request_type"));
	const char *w = jv_string_value(want);
	int good = 1;

	for (size_t i = 0; i < sizeof ar_differs / sizeof ar_differs[0]; i++)
		if (strcmp(ar_differs[i][0], jv_string_value(id)) == 0)
			w = ar_differs[i][1];
	if (strcmp(jv_string_value(type), w) != 0) {
		printf("#   %s: '%s' is %s, want %s\n", jv_string_value(id),
		    jv_string_value(u), jv_string_value(type), w);
		good = 0;
	}
	if (w == jv_string_value(want)) {	/* the checks, where we agree */
		good &= checks_all(jv_object_get(jv_copy(v), jv_string("checks")), got,
		    jv_string_value(id));
		/* and the original's exact confidence (0.9 / 0.7 / 1.0) */
		good &= expect_all(jv_object_set(jv_object(), jv_string("confidence"),
		    at(v, "observed.confidence")), got, jv_string_value(id), "result");
	}
	{
		/* the stage writes what the tool gives, text for text */
		struct cc_answer_request r = {0};
		struct cc_buf b1 = {0}, b2 = {0};
		struct cc_jw jw;

		cc_json_put(&b1, got);
		cc_answer_request_scan(lex, jv_string_value(u),
		    (size_t)jv_string_length_bytes(jv_copy(u)), &r);
		cc_jw_init(&jw, &b2);
		cc_answer_request_write(&r, &jw);
		if (!b1.data || !b2.data || strcmp(b1.data, b2.data) != 0) {
			printf("#   %s: written %s, not %s\n", jv_string_value(id),
			    b2.data ? b2.data : "", b1.data ? b1.data : "");
			good = 0;
		}
		cc_answer_request_release(&r);
		cc_buf_release(&b1);
		cc_buf_release(&b2);
	}
	ok(good, "peer %s '%s': %s%s", jv_string_value(id), jv_string_value(u), w,
	    w == jv_string_value(want) ? "" : " (differs on purpose)");
	jv_free(type);
	jv_free(got);
	jv_free(want);
	jv_free(u);
	jv_free(id);
}

/* ---- the peer's routing vectors: utterance (+ scores) -> agent ---- */

struct router {
	struct cc_emotion *emotion;
	struct cc_rules *rules;
};

static void
routing_vector(jv v, void *ctx)
{
	struct router *r = ctx;
	jv id = jv_object_get(jv_copy(v), jv_string("id"));
	jv u = at(v, "input.utterance"), want = at(v, "expect.agent");
	jv given = at(v, "input.emotion"), emo, record;
	struct cc_emotion_turn t = {
		.text = jv_string_value(u), .len = strlen(jv_string_value(u)),
		.given = given,
	};
	struct cc_rules_context rc = {0};
	struct cc_buf b = {0};
	struct cc_jw w;
	char err[300], *vals[CC_RULES_MAX_SLOTS] = {0};
	const char *agent;

	cc_jw_init(&w, &b);
	if (!ok(cc_emotion_turn(r->emotion, &t, &w, err, sizeof err) == 0,
	    "peer %s: emotion decided", jv_string_value(id)))
		printf("#   %s\n", err);
	emo = cc_json_parse(b.data ? b.data : "", b.len);
	record = jv_object_set(jv_object(), jv_string("emotion"), emo);
	/* what cc-route does with the rules' input lines */
	for (size_t i = 0; i < cc_rules_ninputs(r->rules); i++) {
		jv x = at(record, cc_rules_input_path(r->rules, i));

		if (jv_get_kind(x) == JV_KIND_STRING) {
			vals[i] = strdup(jv_string_value(x));
			rc.input[cc_rules_input_slot(r->rules, i)] = vals[i];
		}
		jv_free(x);
	}
	cc_rules_eval(r->rules, t.text, t.len, &rc);
	agent = cc_rules_get(r->rules, "agent");
	is_str(agent, jv_string_value(want), "peer %s '%s'%s", jv_string_value(id),
	    jv_string_value(u), jv_is_valid(given) ? " with the caller's scores" : "");
	for (size_t i = 0; i < CC_RULES_MAX_SLOTS; i++)
		free(vals[i]);
	cc_buf_release(&b);
	jv_free(record);
	jv_free(given);
	jv_free(want);
	jv_free(u);
	jv_free(id);
}

static void
test_peer(void)
{
	char path[4200], err[768];
	struct router r;
	struct cc_lexicon *ar;

	each_vector("emotion.ndjson", emotion_vector, NULL);
	each_vector("emotion_observed.ndjson", emotion_vector, NULL);

	snprintf(path, sizeof path, "%s/homework-coach/answer_request.cues", datadir);
	ar = cc_answer_request_load(path, err, sizeof err);
	if (ok(ar != NULL, "answer_request.cues loads (%s)", ar ? "ok" : err))
		each_vector("answer_request.ndjson", answer_vector, ar);
	if (ar) {
		/* the written detection is the dumped one, odd bytes included */
		static const char *const texts[] = {
			"", "こたえおしえて わかんない", "わかんな\xffい", "\xe3\x81",
			"37ひく19はいくつ？ こたえは？", "I give up\x01 just tell me",
		};
		int same = 1;

		for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
			struct cc_answer_request w = {0};
			struct cc_buf b1 = {0}, b2 = {0};
			struct cc_jw jw;
			jv got = cc_answer_request_detect(ar, texts[i], strlen(texts[i]));

			cc_json_put(&b1, got);
			cc_answer_request_scan(ar, texts[i], strlen(texts[i]), &w);
			cc_jw_init(&jw, &b2);
			cc_answer_request_write(&w, &jw);
			same &= b1.data && b2.data && strcmp(b1.data, b2.data) == 0;
			cc_answer_request_release(&w);
			cc_buf_release(&b1);
			cc_buf_release(&b2);
			jv_free(got);
		}
		ok(same, "answer request: written as the tool's object, odd bytes too");
	}
	cc_lexicon_free(ar);

	snprintf(path, sizeof path, "%s/homework-coach/emotion.cues", datadir);
	r.emotion = cc_emotion_load(path, err, sizeof err);
	ok(r.emotion != NULL, "emotion.cues loads (%s)", r.emotion ? "ok" : err);
	snprintf(path, sizeof path, "%s/homework-coach/routing.rules", datadir);
	r.rules = cc_rules_load(path, err, sizeof err);
	ok(r.rules != NULL, "routing.rules loads (%s)", r.rules ? "ok" : err);
	if (r.emotion && r.rules)
		each_vector("routing.ndjson", routing_vector, &r);
	cc_emotion_free(r.emotion);
	cc_rules_free(r.rules);
}

/* ---- the seed's thresholds and update_emotion's contract ---- */

static void
test_thresholds(void)
{
	is_str(cc_emotion_support_level(0.7, 0), "moderate", "frustration 0.7 is not intensive");
	is_str(cc_emotion_support_level(0.7000001, 0), "intensive", "just above 0.7 is");
	is_str(cc_emotion_support_level(0, 0.6), "moderate", "fatigue 0.6 is not intensive");
	is_str(cc_emotion_support_level(0, 0.61), "intensive", "fatigue 0.61 is");
	is_str(cc_emotion_support_level(0.4, 0.3), "minimal", "0.4 and 0.3 are minimal");
	is_str(cc_emotion_support_level(0.41, 0), "moderate", "frustration 0.41 is moderate");
	is_str(cc_emotion_support_level(1.5, -2), "intensive", "clamped first: 1.5 is 1");
	is_str(cc_emotion_support_level(NAN, NAN), "minimal", "NaN counts as 0");
	is_str(cc_emotion_action(0.9, 0.8), "rest", "rest before encourage");
	is_str(cc_emotion_action(0.9, 0.6), "encourage", "encourage above 0.7");
	is_str(cc_emotion_action(0.7, 0.6), "continue", "continue at the thresholds");

	jv state = jv_null(), r, args;
	char buf[64];

	args = jv_null();
	ok(is_error(cc_emotion_update(args, &state, NOW)) && jv_get_kind(state) == JV_KIND_NULL,
	    "arguments that are not an object: an error, nothing stored");
	jv_free(args);
	args = parse("{\"frustration\":0.5,\"confidence\":0.5,"
	    "\"fatigue\":0.5,\"primary_emotion\":\"happy\"}");
	ok(is_error(cc_emotion_update(args, &state, NOW)) && jv_get_kind(state) == JV_KIND_NULL,
	    "a missing score: an error, nothing stored");
	jv_free(args);
	args = parse("{\"frustration\":true,\"confidence\":0.5,"
	    "\"fatigue\":0.5,\"excitement\":0,\"primary_emotion\":\"happy\"}");
	ok(is_error(cc_emotion_update(args, &state, NOW)), "a score that is not a number: an error");
	jv_free(args);
	args = parse("{\"frustration\":0.5,\"confidence\":0.5,"
	    "\"fatigue\":0.5,\"excitement\":0}");
	ok(is_error(cc_emotion_update(args, &state, NOW)), "no primary_emotion: an error");
	jv_free(args);
	args = parse("{\"frustration\":0.9,\"confidence\":0,"
	    "\"fatigue\":0,\"excitement\":0,\"primary_emotion\":\"frustrated\"}");
	for (int i = 0; i < 25; i++) {
		r = cc_emotion_update(args, &state, NOW + i);
		jv_free(r);
	}
	jv_free(args);
	jv h = at(state, "history");
	is_int(jv_array_length(jv_copy(h)), 20, "the history keeps the last 20 turns");
	is_str(str_at(state, "action_recommended", buf, sizeof buf), "encourage",
	    "action_recommended is stored too");
	is_str(str_at(state, "updated_at", buf, sizeof buf), "2025-01-15T01:00:24+00:00",
	    "updated_at is ISO 8601 in UTC, +00:00");
	jv_free(h);
	jv_free(state);
}

/* ---- the lexicon ---- */

static const char lex_text[] =
	"fix (?<=[あ-ん])ー+(?=[あ-ん]) =>\n"
	"fix \\bwat\\b => what\n"
	"class neg soft 0.5 strong 0.9 as angry\n"
	"class angry\n"
	"class pos soft 0.2\n"
	"soften before (ちょっと|すこし)(だけ)?\n"
	"soften after [あ-ん]{0,3}けど.{0,8}やる\n"
	"intensify after [あ-ん]{0,3}(ー|!)\n"
	"negate after (く|じゃ)?な(い|かった)\n"
	"negate before \\bnot $\n"
	"cue neg 0.5 わかんな|むずかし\n"
	"cue pos 0.8 かんたん|ねむく|\\beasy\\b\n"
	"cue pos 0.3 \\bwhat\\b\n"
	"note this line is for the caller\n";

static const struct cc_lexicon_hit *
only_hit(struct cc_lexicon *x, const char *text)
{
	return cc_lexicon_scan(x, text, strlen(text)) == 1 ? cc_lexicon_hit(x, 0) : NULL;
}

static void
test_lexicon(void)
{
	static const char *const extra[] = { "note", NULL };
	char err[512];
	struct cc_lexicon *x = lexicon(lex_text, extra, err, sizeof err);
	const struct cc_lexicon_hit *h;
	size_t os, oe;
	const char *t;

	if (!ok(x != NULL, "a lexicon loads (%s)", x ? "ok" : err))
		return;
	is_int(cc_lexicon_nextra(x), 1, "a directive the caller named is kept");
	is_str(cc_lexicon_extra(x, 0)->args, "this line is for the caller", "with its words");
	h = only_hit(x, "ワカンナイ");
	ok(h && h->weight == 0.5 && h->mod == CC_LEX_PLAIN, "katakana is folded: a plain cue");
	h = only_hit(x, "ちょっとわかんない");
	ok(h && h->weight == 0.5 && h->mod == CC_LEX_SOFT, "softened before");
	h = only_hit(x, "わかんないーー");
	ok(h && h->weight == 0.9 && h->cls == cc_lexicon_class(x, "angry") &&
	    h->cue_cls == cc_lexicon_class(x, "neg"), "intensified: strong, counted as its 'as' class");
	h = only_hit(x, "わかんないのー！");
	ok(h && h->mod == CC_LEX_STRONG, "a fullwidth ！ after a particle intensifies");
	h = only_hit(x, "むずかしいけどやる!");
	ok(h && h->mod == CC_LEX_SOFT, "softening wins over intensifying");
	h = only_hit(x, "かんたんじゃない");
	ok(h && h->weight == 0 && h->mod == CC_LEX_NEGATED, "negated after: weight 0, kept for traces");
	h = only_hit(x, "ねむくない");
	ok(h && h->mod == CC_LEX_NEGATED, "ねむくない is negated");
	h = only_hit(x, "it is not easy");
	ok(h && h->mod == CC_LEX_NEGATED, "negated before");
	h = only_hit(x, "かんたんじゃない、いやかんたん");
	ok(h && h->weight == 0.8 && h->start > 0, "the place that weighs most is kept");
	h = only_hit(x, "かんたーん");
	ok(h && h->weight == 0.8, "an empty fix removes a long vowel inside a word");
	h = only_hit(x, "ちょっとかんたん");
	ok(h && h->weight == 0.2, "the class's soft weight caps a softened cue");
	h = only_hit(x, "wat?");
	ok(h && h->weight == 0.3, "a fix rewrites the text first");
	t = cc_lexicon_text(x, NULL);
	is_str(t, "what?", "the fixed text is kept");
	ok(cc_lexicon_source(x, "wat?", 4, h->start, h->end, &os, &oe) < 0,
	    "no source span once a fix rewrote the text");
	ok(cc_lexicon_scan(x, "", 0) == 0, "an empty text has no cues");
	ok(cc_lexicon_scan(x, "\xff\xfe\x80", 3) == 0, "invalid UTF-8 is scanned without harm");

	const char *orig = "  ｷﾞﾌﾞ ワカンナイ";

	h = only_hit(x, orig);
	ok(h && cc_lexicon_source(x, orig, strlen(orig), h->start, h->end, &os, &oe) == 0 &&
	    oe - os == strlen("ワカンナ") && memcmp(orig + os, "ワカンナ", oe - os) == 0,
	    "the source span of a folded match");
	cc_lexicon_free(x);

	static const struct { const char *text, *want; } bad[] = {
		{ "cue x 0.5 a\n", ":1: unknown class 'x'" },
		{ "class a\ncue a 2 b\n", ":2: bad weight '2'" },
		{ "class a\ncue a 0.5 (b\n", ":2: bad pattern '(b'" },
		{ "class a\nclass a\n", ":2: class 'a' twice" },
		{ "class a soft x\n", ":1: bad 'soft x'" },
		{ "class a strong 0.9 as b\n", "unknown class 'b' after 'as'" },
		{ "soften around x\n", ":1: expected 'soften before|after PATTERN'" },
		{ "negate after\n", ":1: expected 'negate after PATTERN'" },
		{ "fix abc\n", ":1: expected 'fix PATTERN => TEXT'" },
		{ "note x\n", ":1: unknown directive 'note'" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		x = lexicon(bad[i].text, NULL, err, sizeof err);
		ok(!x && strstr(err, bad[i].want), "refused: %s (%s)", bad[i].want, x ? "loaded" : err);
		cc_lexicon_free(x);
	}
}

/* ---- the emotion stage's turn: cues, floors, memory ---- */

struct turn_out {
	char primary[32], support[32];
	double frustration, fatigue;
};

static int
turn(struct cc_emotion *e, const char *text, const double *inputs, jv *state,
    long now, struct turn_out *o)
{
	struct cc_emotion_turn t = { .text = text, .len = text ? strlen(text) : 0,
		.given = jv_invalid(), .inputs = inputs, .state = state, .now = now };
	struct cc_buf b = {0};
	struct cc_jw w;
	char err[300];
	int rc;
	jv v;

	cc_jw_init(&w, &b);
	rc = cc_emotion_turn(e, &t, &w, err, sizeof err);
	v = cc_json_parse(b.data ? b.data : "", b.len);
	str_at(v, "primary_emotion", o->primary, sizeof o->primary);
	str_at(v, "support_level", o->support, sizeof o->support);
	o->frustration = num_at(v, "frustration");
	o->fatigue = num_at(v, "fatigue");
	jv_free(v);
	cc_buf_release(&b);
	return rc;
}

static void
test_emotion_turns(void)
{
	char path[4200], err[768];
	struct cc_emotion *e;
	struct turn_out o;
	jv state = jv_null();
	double in[8];

	snprintf(path, sizeof path, "%s/homework-coach/emotion.cues", datadir);
	e = cc_emotion_load(path, err, sizeof err);
	if (!ok(e != NULL, "emotion.cues loads (%s)", e ? "ok" : err))
		return;
	is_int(cc_emotion_ninputs(e), 2, "two inputs: stumbles and minutes of work");
	is_str(cc_emotion_input_path(e, 0), "coach.stumbles", "stumbles are read from coach");
	for (size_t i = 0; i < 8; i++)
		in[i] = NAN;

	turn(e, "わかんない", in, NULL, NOW, &o);
	ok(!strcmp(o.primary, "confused") && !strcmp(o.support, "moderate"),
	    "わかんない: confused, moderate (%s, %s)", o.primary, o.support);
	turn(e, "わかんない！", in, NULL, NOW, &o);
	ok(!strcmp(o.primary, "frustrated") && !strcmp(o.support, "intensive"),
	    "わかんない！: angry, frustrated, intensive (%s, %s)", o.primary, o.support);
	turn(e, "ちょっとつかれた", in, NULL, NOW, &o);
	ok(!strcmp(o.primary, "tired") && !strcmp(o.support, "moderate"),
	    "ちょっとつかれた: tired, moderate (%s, %s)", o.primary, o.support);
	turn(e, "つかれてないよ", in, NULL, NOW, &o);
	ok(!strcmp(o.primary, "neutral") && !strcmp(o.support, "minimal"),
	    "つかれてないよ: neutral (%s, %s)", o.primary, o.support);
	turn(e, NULL, in, NULL, NOW, &o);
	is_str(o.primary, "neutral", "no words, no session: neutral");

	in[0] = 2;
	turn(e, "8かな", in, NULL, NOW, &o);
	ok(!strcmp(o.primary, "confused") && !strcmp(o.support, "moderate"),
	    "two stumbles: confused, moderate (%s, %s)", o.primary, o.support);
	in[0] = 3;
	turn(e, "8かな", in, NULL, NOW, &o);
	ok(!strcmp(o.primary, "frustrated") && !strcmp(o.support, "intensive"),
	    "three stumbles on one problem: frustrated, intensive (%s, %s)", o.primary, o.support);
	in[0] = NAN;
	in[1] = 14.9;
	turn(e, "8かな", in, NULL, NOW, &o);
	is_str(o.support, "minimal", "under 15 minutes of work: no floor");
	in[1] = 15;
	turn(e, "8かな", in, NULL, NOW, &o);
	ok(!strcmp(o.primary, "tired") && !strcmp(o.support, "intensive"),
	    "15 minutes of work: tired, intensive (%s, %s)", o.primary, o.support);
	in[1] = NAN;

	/* the memory: a tantrum, then calm turns */
	turn(e, "もうやだ！", in, &state, NOW, &o);
	is_str(o.support, "intensive", "a tantrum: intensive");
	turn(e, "3たす5", in, &state, NOW + 20, &o);
	ok(!strcmp(o.primary, "frustrated") && !strcmp(o.support, "moderate") &&
	    fabs(o.frustration - 0.425) < 1e-9,
	    "one calm turn later: still frustrated, moderate, 0.425 (%s, %s, %g)",
	    o.primary, o.support, o.frustration);
	turn(e, "3たす5", in, &state, NOW + 40, &o);
	ok(!strcmp(o.primary, "neutral") && !strcmp(o.support, "minimal"),
	    "two calm turns later: neutral (%s, %s)", o.primary, o.support);
	turn(e, "もうやだ！", in, &state, NOW + 60, &o);
	turn(e, "できた！", in, &state, NOW + 80, &o);
	ok(!strcmp(o.primary, "confident") && !strcmp(o.support, "minimal"),
	    "a success after a tantrum calms faster (%s, %s)", o.primary, o.support);
	turn(e, "つかれた", in, &state, NOW + 100, &o);
	turn(e, "3たす5", in, &state, NOW + 100 + 601, &o);
	is_str(o.support, "minimal", "nothing is carried after the window");
	jv_free(state);

	state = parse("{\"updated_at\":\"garbage\",\"frustration\":\"x\"}");
	turn(e, "3たす5", in, &state, NOW, &o);
	is_str(o.support, "minimal", "a damaged state is ignored");
	jv_free(state);
	state = jv_string("not an object");
	turn(e, "3たす5", in, &state, NOW, &o);
	ok(jv_get_kind(state) == JV_KIND_OBJECT, "a state that is not an object is replaced");
	jv_free(state);

	/* the caller's scores */
	struct cc_emotion_turn t = { .text = "つかれた", .len = strlen("つかれた"),
		.given = parse("{\"frustration\":0.2,\"confidence\":0.9,"
		"\"fatigue\":0.1,\"excitement\":0.5}"), .inputs = in, .now = NOW };
	struct cc_buf b = {0};
	struct cc_jw w;
	int rc;

	cc_jw_init(&w, &b);
	rc = cc_emotion_turn(e, &t, &w, err, sizeof err);
	ok(rc == 0 && b.data && strstr(b.data, "\"support_level\":\"minimal\"") &&
	    strstr(b.data, "\"primary_emotion\":\"confident\"") &&
	    strstr(b.data, "\"source\":\"caller\""),
	    "the caller's scores win over the words, primary derived (%s)", b.data);
	jv_free(t.given);
	t.given = parse("{\"frustration\":0.2,\"confidence\":0.9,"
	    "\"fatigue\":0.1,\"excitement\":0.5,\"primary_emotion\":\"Happy\"}");
	b.len = 0;
	cc_jw_init(&w, &b);
	rc = cc_emotion_turn(e, &t, &w, err, sizeof err);
	ok(rc < 0 && strstr(err, "Invalid primary_emotion: Happy"),
	    "a bad primary_emotion from the caller is refused (%s)", err);
	jv_free(t.given);
	cc_buf_release(&b);
	cc_emotion_free(e);

	static const struct { const char *text, *want; } bad[] = {
		{ "class frustration\n", "no class 'confusion'" },
		{ "class frustration\nclass confusion\nclass fatigue\nclass confidence\n"
		  "class excitement\nfloor x 1 fatigue 0.5\n", ":6: expected 'floor INPUT MIN" },
		{ "class frustration\nclass confusion\nclass fatigue\nclass confidence\n"
		  "class excitement\nmemory decay 2\n", ":6: expected 'memory decay D" },
		{ "class frustration\nclass confusion\nclass fatigue\nclass confidence\n"
		  "class excitement\ninput a\n", ":6: expected 'input NAME PATH'" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *p = write_file(bad[i].text);

		e = cc_emotion_load(p, err, sizeof err);
		ok(!e && strstr(err, bad[i].want), "refused: %s (%s)", bad[i].want, e ? "loaded" : err);
		cc_emotion_free(e);
		unlink(p);
		free(p);
	}
}

int
main(void)
{
	const char *d = getenv("CC_DATADIR"), *top = getenv("top_srcdir");

	snprintf(datadir, sizeof datadir, "%s", d ? d : "share/concierge");
	snprintf(testdata, sizeof testdata, "%s/tests/data/homework-coach", top ? top : ".");
	test_thresholds();
	test_lexicon();
	test_emotion_turns();
	test_peer();
	return tap_done();
}
