/*
 * Fuzz target "coach": any bytes through the homework coach's
 * understanding of the child, with the bundled cues of the domain
 * ($CC_DATADIR/homework-coach): cc_emotion_turn on the bytes as the
 * child's words, alone and with the state of the turn before (which the
 * turn replaces), and, when the bytes are a JSON object, as the caller's
 * scores and as update_emotion's arguments; cc_answer_request_detect on
 * the bytes.
 *
 * Checked: the emotion object and the state are valid JSON; the support
 * level and action are the seed's for the scores written; from words, a
 * negative primary emotion comes exactly with more than minimal support;
 * an answer request is one of the three types, with string phrases.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "coach/cc_emotion.h"
#include "coach/cc_answer_request.h"
#include "fuzz.h"

static struct cc_emotion *emotion;
static struct cc_lexicon *answers;
static jv state;

static void
release(void)
{
	cc_emotion_free(emotion);
	cc_lexicon_free(answers);
	jv_free(state);
}

/* $CC_DATADIR (make check), the source tree ($srcdir, make fuzz), or installed */
static void
load(void)
{
	const char *dir = getenv("CC_DATADIR"), *src = getenv("srcdir");
	char path[4096], err[768], tree[4096];

	if ((!dir || !*dir) && src && *src) {
		snprintf(tree, sizeof tree, "%s/share/concierge", src);
		dir = tree;
	}
	if (!dir || !*dir)
		dir = CC_PKGDATADIR;
	snprintf(path, sizeof path, "%s/homework-coach/emotion.cues", dir);
	if (!(emotion = cc_emotion_load(path, err, sizeof err)))
		cc_die(CC_EXIT_USAGE, "%s", err);
	snprintf(path, sizeof path, "%s/homework-coach/answer_request.cues", dir);
	if (!(answers = cc_answer_request_load(path, err, sizeof err)))
		cc_die(CC_EXIT_USAGE, "%s", err);
	state = jv_null();
	atexit(release);
}

static double
number(jv v, const char *key)
{
	jv x = jv_object_get(jv_copy(v), jv_string(key));
	double d;

	fuzz_assert(jv_get_kind(x) == JV_KIND_NUMBER);
	d = jv_number_value(x);
	jv_free(x);
	return d;
}

static int
is(jv v, const char *key, const char *want)
{
	jv x = jv_object_get(jv_copy(v), jv_string(key));
	int r = jv_get_kind(x) == JV_KIND_STRING && strcmp(jv_string_value(x), want) == 0;

	jv_free(x);
	return r;
}

/* One turn; checks what it wrote. */
static void
turn(const char *s, size_t n, jv given, jv *st)
{
	double in[8] = { (double)(n % 5), (double)n };
	struct cc_emotion_turn t = { .text = s, .len = n, .given = given,
		.inputs = in, .state = st, .now = 1736902800 + (time_t)n };
	struct cc_buf b = {0};
	struct cc_jw w;
	char err[600];
	jv v;

	cc_jw_init(&w, &b);
	if (cc_emotion_turn(emotion, &t, &w, err, sizeof err) < 0) {
		fuzz_assert(jv_is_valid(given) && b.len == 0 && *err);
		return;
	}
	v = cc_json_parse(b.data, b.len);
	fuzz_assert(jv_get_kind(v) == JV_KIND_OBJECT);
	double fr = number(v, "frustration"), fa = number(v, "fatigue");

	fuzz_assert(fr >= 0 && fr <= 1 && fa >= 0 && fa <= 1);
	fuzz_assert(is(v, "support_level", cc_emotion_support_level(fr, fa)));
	fuzz_assert(is(v, "action_recommended", cc_emotion_action(fr, fa)));
	if (!jv_is_valid(given)) {
		int negative = is(v, "primary_emotion", "frustrated") ||
		    is(v, "primary_emotion", "tired") || is(v, "primary_emotion", "confused");

		fuzz_assert(negative == !is(v, "support_level", "minimal"));
	}
	if (st)
		fuzz_assert(jv_get_kind(*st) == JV_KIND_OBJECT);
	jv_free(v);
	cc_buf_release(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	jv parsed, r, type;

	if (!emotion)
		load();
	turn(s, size, jv_invalid(), NULL);
	turn(s, size, jv_invalid(), &state);
	parsed = cc_json_parse(s, size);
	if (jv_get_kind(parsed) == JV_KIND_OBJECT) {
		jv st = jv_null();

		turn(s, size, parsed, &state);
		r = cc_emotion_update(parsed, &st, 1736902800);
		fuzz_assert(jv_get_kind(r) == JV_KIND_OBJECT);
		fuzz_assert(jv_object_has(jv_copy(r), jv_string("error")) ==
		    (jv_get_kind(st) == JV_KIND_NULL));
		jv_free(r);
		jv_free(st);
	}
	jv_free(parsed);

	r = cc_answer_request_detect(answers, s, size);
	type = jv_object_get(jv_copy(r), jv_string("request_type"));
	fuzz_assert(jv_get_kind(type) == JV_KIND_STRING);
	fuzz_assert(!strcmp(jv_string_value(type), "explicit") ||
	    !strcmp(jv_string_value(type), "implicit") || !strcmp(jv_string_value(type), "none"));
	jv list = jv_object_get(jv_copy(r), jv_string("detected_phrases"));

	fuzz_assert(jv_get_kind(list) == JV_KIND_ARRAY);
	jv_array_foreach(list, i, p) {
		fuzz_assert(jv_get_kind(p) == JV_KIND_STRING);
		jv_free(p);
	}
	fuzz_assert(jv_array_length(jv_copy(list)) > 0 ||
	    !strcmp(jv_string_value(type), "none"));
	jv_free(list);
	jv_free(type);
	jv_free(r);
	return 0;
}
