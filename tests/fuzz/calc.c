/*
 * Fuzz target "calc": the coach's arithmetic (lib/coach/cc_calc.h) on any
 * bytes.  The input is split at its first newline: the part before is an
 * expression, an utterance and a reply; the part after, an answer.
 *
 * Checked: a value the evaluator returns is finite, and its formatted text
 * reads back as the same value (and evaluates to it when written without
 * an exponent); an answer that is read is finite; a problem read from an
 * utterance is a valid expression and its answer reads as an answer;
 * calculate_and_verify returns an object with the seed's keys, a hint
 * exactly when the answer is wrong; number scans stay inside the text.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "coach/cc_calc.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *nl = memchr(s, '\n', size);
	size_t elen = nl ? (size_t)(nl - s) : size, alen = nl ? size - elen - 1 : 0;
	const char *ans = nl ? nl + 1 : "";
	char buf[CC_CALC_NUMLEN], *cstr;
	struct cc_calc_expr e;
	struct cc_calc_answer a;
	struct cc_calc_utterance u;
	struct cc_calc_check c;
	double v, w;
	size_t n;
	int flags;
	jv args, r;

	if (cc_calc_parse(s, elen, &e, buf, sizeof buf) == CC_CALC_OK) {
		fuzz_assert(isfinite(e.value));
		cc_calc_format(e.value, buf);
		fuzz_assert(strtod(buf, NULL) == e.value);
		if (!strchr(buf, 'e')) {
			fuzz_assert(cc_calc_eval(buf, strlen(buf), &w, NULL, 0) == CC_CALC_OK);
			fuzz_assert(w == e.value);
		}
		cc_calc_remainder_form(&e, buf, sizeof buf);
	}

	cc_calc_parse_answer(ans, alen, &a);
	fuzz_assert(a.kind == CC_CALC_ANSWER_NONE || (isfinite(a.value) && isfinite(a.remainder)));
	n = cc_calc_scan_number(s, size, &v);
	fuzz_assert(n <= size);
	cc_calc_read_number(s, size, &v);

	flags = cc_calc_from_words(s, elen, &u);
	fuzz_assert(memchr(u.expr, '\0', sizeof u.expr) && memchr(u.answer, '\0', sizeof u.answer));
	if (flags & CC_CALC_HAS_EXPR)
		fuzz_assert(cc_calc_eval(u.expr, strlen(u.expr), &v, NULL, 0) == CC_CALC_OK);
	if (flags & CC_CALC_HAS_ANSWER) {
		cc_calc_parse_answer(u.answer, strlen(u.answer), &a);
		fuzz_assert(a.kind != CC_CALC_ANSWER_NONE);
	}

	cc_calc_check(s, elen, ans, alen, &c);
	fuzz_assert(c.status != CC_CALC_OK || c.correct_answer[0]);
	fuzz_assert(!c.is_correct || c.mistake == CC_CALC_MISTAKE_NONE);

	/* the guard, with the bytes as a reply and as an answer */
	cstr = cc_xmalloc(alen + 1);
	memcpy(cstr, ans, alen);
	cstr[alen] = '\0';
	cc_calc_states_value(s, elen, cstr);
	cc_calc_states_value(ans, alen, c.correct_answer);
	if (c.remainder_form[0])
		cc_calc_states_value(s, size, c.remainder_form);

	args = jv_object();
	args = jv_object_set(args, jv_string("expression"), jv_string_sized(s, (int)elen));
	args = jv_object_set(args, jv_string("child_answer"), jv_string_sized(ans, (int)alen));
	args = jv_object_set(args, jv_string("grade_level"), jv_number((double)(size % 5)));
	r = cc_calc_verify(NULL, args);
	fuzz_assert(jv_get_kind(r) == JV_KIND_OBJECT);
	{
		jv h = jv_object_get(jv_copy(r), jv_string("hint"));
		jv ok = jv_object_get(jv_copy(r), jv_string("is_correct"));

		fuzz_assert(jv_get_kind(h) == JV_KIND_STRING);
		fuzz_assert((jv_get_kind(ok) == JV_KIND_TRUE) ==
		    (jv_string_length_bytes(jv_copy(h)) == 0));
		jv_free(h);
		jv_free(ok);
	}
	jv_free(r);
	jv_free(args);
	free(cstr);
	return 0;
}
