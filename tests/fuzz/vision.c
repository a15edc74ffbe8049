/*
 * Fuzz target "vision": the reader of a vision model's answer,
 * cc_vision_parse_content() on the model's text and
 * cc_vision_parse_reply() on a whole chat-completion body.
 *
 * Checked: a success is exactly the seed's shape, whatever came in: an
 * object with problems (a list of at most CC_VISION_MAX_PROBLEMS objects,
 * each with a non-empty text string of at most CC_VISION_MAX_TEXT bytes,
 * a known type, a difficulty of 1-3 and an expression that is null or a
 * string of ASCII arithmetic), a confidence in 0-1 and a boolean
 * needs_confirmation, true whenever there is no problem; a failure says
 * why.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "cc_json.h"
#include "cc_vision.h"
#include "fuzz.h"

static int
known_type(const char *t)
{
	return !strcmp(t, "arithmetic") || !strcmp(t, "word_problem") ||
	    !strcmp(t, "kanji") || !strcmp(t, "reading") || !strcmp(t, "other");
}

static void
check(jv v, const char *err)
{
	jv problems, conf, need;
	int n;

	if (!jv_is_valid(v)) {
		fuzz_assert(err[0]);
		jv_free(v);
		return;
	}
	fuzz_assert(jv_get_kind(v) == JV_KIND_OBJECT);
	fuzz_assert(jv_object_length(jv_copy(v)) == 3);
	problems = jv_object_get(jv_copy(v), jv_string("problems"));
	conf = jv_object_get(jv_copy(v), jv_string("confidence"));
	need = jv_object_get(jv_copy(v), jv_string("needs_confirmation"));
	fuzz_assert(jv_get_kind(problems) == JV_KIND_ARRAY);
	fuzz_assert(jv_get_kind(conf) == JV_KIND_NUMBER);
	fuzz_assert(jv_number_value(conf) >= 0 && jv_number_value(conf) <= 1);
	fuzz_assert(jv_get_kind(need) == JV_KIND_TRUE || jv_get_kind(need) == JV_KIND_FALSE);
	n = jv_array_length(jv_copy(problems));
	fuzz_assert(n <= CC_VISION_MAX_PROBLEMS);
	fuzz_assert(n > 0 || jv_get_kind(need) == JV_KIND_TRUE);
	for (int i = 0; i < n; i++) {
		jv p = jv_array_get(jv_copy(problems), i);
		jv text = jv_object_get(jv_copy(p), jv_string("text"));
		jv type = jv_object_get(jv_copy(p), jv_string("type"));
		jv diff = jv_object_get(jv_copy(p), jv_string("difficulty"));
		jv expr = jv_object_get(jv_copy(p), jv_string("expression"));

		fuzz_assert(jv_object_length(jv_copy(p)) == 4);
		fuzz_assert(jv_get_kind(text) == JV_KIND_STRING);
		fuzz_assert(jv_string_length_bytes(jv_copy(text)) > 0 &&
		    jv_string_length_bytes(jv_copy(text)) <= CC_VISION_MAX_TEXT);
		fuzz_assert(jv_get_kind(type) == JV_KIND_STRING);
		fuzz_assert(known_type(jv_string_value(type)));
		fuzz_assert(jv_get_kind(diff) == JV_KIND_NUMBER);
		fuzz_assert(jv_number_value(diff) == 1 || jv_number_value(diff) == 2 ||
		    jv_number_value(diff) == 3);
		if (jv_get_kind(expr) == JV_KIND_STRING) {
			const char *e = jv_string_value(expr);

			fuzz_assert(*e && strspn(e, "0123456789.+-*/()") == strlen(e));
		} else {
			fuzz_assert(jv_get_kind(expr) == JV_KIND_NULL);
		}
		jv_free(text);
		jv_free(type);
		jv_free(diff);
		jv_free(expr);
		jv_free(p);
	}
	jv_free(problems);
	jv_free(conf);
	jv_free(need);
	jv_free(v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];

	err[0] = '\0';
	check(cc_vision_parse_content((const char *)data, size, err, sizeof err), err);
	err[0] = '\0';
	check(cc_vision_parse_reply((const char *)data, size, err, sizeof err), err);
	return 0;
}
