/*
 * Unit tests of the coach's arithmetic (lib/coach/cc_calc.h): the
 * original's test vectors and observed behaviour, the labelled development
 * set, and each rule of the evaluator, the answer reader, the mistake
 * finder, the utterance reader and the answer-leak guard.
 *
 * The vectors are read at run time from tests/data/homework-coach/
 * (copies of ../shared/eval/homework-coach/calc.dev.ndjson and of peer/
 * calculate*.ndjson); the hints from share/concierge/homework-coach/.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_texts.h"
#include "coach/cc_calc.h"
#include "tap.h"

static struct cc_texts *hints;

/* ---- helpers ---- */

static jv
get(jv obj, const char *key)
{
	if (jv_get_kind(obj) != JV_KIND_OBJECT)
		return jv_invalid();
	return jv_object_get(jv_copy(obj), jv_string(key));
}

/* The value at key of obj as text ("null", "true", a string's contents). */
static const char *
text_of(jv obj, const char *key, char *buf, size_t buflen)
{
	jv v = get(obj, key);

	switch (jv_get_kind(v)) {
	case JV_KIND_STRING:
		snprintf(buf, buflen, "%s", jv_string_value(v));
		break;
	case JV_KIND_NULL:
		snprintf(buf, buflen, "null");
		break;
	case JV_KIND_TRUE:
		snprintf(buf, buflen, "true");
		break;
	case JV_KIND_FALSE:
		snprintf(buf, buflen, "false");
		break;
	case JV_KIND_INVALID:
		snprintf(buf, buflen, "(absent)");
		break;
	default: {
		jv d = jv_dump_string(jv_copy(v), 0);

		snprintf(buf, buflen, "%s", jv_string_value(d));
		jv_free(d);
	}
	}
	jv_free(v);
	return buf;
}

static jv
verify3(const char *expr, const char *answer, int grade)
{
	jv args = jv_object(), r;

	args = jv_object_set(args, jv_string("expression"), jv_string(expr));
	args = jv_object_set(args, jv_string("child_answer"), jv_string(answer));
	args = jv_object_set(args, jv_string("grade_level"), jv_number(grade));
	r = cc_calc_verify(hints, args);
	jv_free(args);
	return r;
}

/* One NDJSON file of tests/data/homework-coach/ as an array. */
static jv
load_rows(const char *name)
{
	const char *top = getenv("top_srcdir");
	char path[4096], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	jv rows = jv_array();
	FILE *f;

	snprintf(path, sizeof path, "%s/tests/data/homework-coach/%s", top ? top : ".", name);
	if (!(f = fopen(path, "r"))) {
		ok(0, "cannot open '%s'", path);
		return rows;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		jv row = cc_json_parse(line, (size_t)n);

		if (jv_is_valid(row))
			rows = jv_array_append(rows, row);
		else
			ok(0, "%s: a line that is no JSON", name), jv_free(row);
	}
	free(line);
	fclose(f);
	return rows;
}

/* The result's key equals the JSON value want (strings, booleans, null). */
static int
key_is(jv result, const char *key, jv want, const char *id)
{
	char got[512], exp[512];
	jv tmp = jv_object_set(jv_object(), jv_string(key), want);

	text_of(tmp, key, exp, sizeof exp);
	jv_free(tmp);
	return is_str(text_of(result, key, got, sizeof got), exp, "%s: %s", id, key);
}

/* A peer `checks` entry against our result. */
static void
run_check(jv result, jv check, const char *id)
{
	char path[64], op[32], buf[512];
	jv v;

	text_of(check, "path", path, sizeof path);
	text_of(check, "op", op, sizeof op);
	v = get(result, path);
	if (strcmp(op, "present") == 0)
		ok(jv_is_valid(v), "%s: %s is present", id, path);
	else if (strcmp(op, "string") == 0)
		ok(jv_get_kind(v) == JV_KIND_STRING, "%s: %s is a string", id, path);
	else if (strcmp(op, "nonempty_string") == 0)
		ok(jv_get_kind(v) == JV_KIND_STRING && jv_string_length_bytes(jv_copy(v)) > 0,
		    "%s: %s is a non-empty string", id, path);
	else if (strcmp(op, "not_contains") == 0)
		ok(jv_get_kind(v) == JV_KIND_STRING &&
		    !strstr(jv_string_value(v), text_of(check, "value", buf, sizeof buf)),
		    "%s: %s does not contain '%s'", id, path, buf);
	else
		ok(0, "%s: unknown check '%s'", id, op);
	jv_free(v);
}

/* ---- the original's vectors ---- */

static void
test_peer_vectors(void)
{
	jv rows = load_rows("calculate.ndjson");
	int n = jv_array_length(jv_copy(rows));

	ok(n == 14, "the original's 14 test vectors are there (%d)", n);
	for (int i = 0; i < n; i++) {
		jv row = jv_array_get(jv_copy(rows), i), input = get(row, "input");
		jv expect = get(row, "expect"), checks = get(row, "checks"), r;
		char id[64];

		text_of(row, "id", id, sizeof id);
		r = cc_calc_verify(hints, input);
		jv_object_foreach(expect, k, want) {
			key_is(r, jv_string_value(k), want, id);
			jv_free(k);
		}
		if (jv_get_kind(checks) == JV_KIND_ARRAY)
			jv_array_foreach(checks, c, check)
				run_check(r, check, id), jv_free(check);
		jv_free(checks);
		jv_free(expect);
		jv_free(input);
		jv_free(row);
		jv_free(r);
	}
	jv_free(rows);
}

/*
 * Where the original is wrong (peer_quirk rows), what we answer instead:
 * correct_answer, is_correct, error_type.
 */
static const struct {
	const char *id, *correct, *is_correct, *error_type;
} quirk_answers[] = {
	/* precedence: the original goes left to right and gets 20 */
	{ "calc-obs-001", "14", "true", "null" },
	/* 1 + 2 × 3 is 7, so the original's 9 is wrong here */
	{ "calc-obs-002", "7", "false", "calculation" },
	/* parentheses count: 2*(3+4) is 14, not 10 */
	{ "calc-obs-003", "14", "false", "calculation" },
	/* a leading unary minus is fine */
	{ "calc-obs-005", "-2", "true", "null" },
	/* two numbers with no operator: the original ignores the 4 */
	{ "calc-obs-008", "", "false", "invalid_expression" },
	/* a dangling operator: the original ignores it */
	{ "calc-obs-009", "", "false", "invalid_expression" },
	/* .5 is a half, not 5 */
	{ "calc-obs-010", "1.5", "true", "null" },
	/*
	 * Same as the original: "=" is not in the accepted syntax of the
	 * labelled conventions.  A child's "3 + 4 =" reaches the calculator
	 * through cc_calc_from_words(), which reads it as "3+4".
	 */
	{ "calc-obs-014", "", "false", "invalid_expression" },
	/* full-width plus and U+2212 minus are operators */
	{ "calc-obs-015", "7", "true", "null" },
	{ "calc-obs-016", "-1", "true", "null" },
	/* a counter after the answer is understood */
	{ "calc-obs-021", "68", "true", "null" },
	/* same as the original: no answer is a wrong answer */
	{ "calc-obs-022", "68", "false", "calculation" },
	/* Python's float() reads 6_8 as 68; a child did not mean that */
	{ "calc-obs-023", "68", "false", "calculation" },
	/* a malformed number is refused, not cut to 1.2 */
	{ "calc-obs-032", "", "false", "invalid_expression" },
};

static void
test_peer_observed(void)
{
	jv rows = load_rows("calculate_observed.ndjson");
	int n = jv_array_length(jv_copy(rows)), quirks = 0;

	ok(n == 34, "the original's 34 observed vectors are there (%d)", n);
	for (int i = 0; i < n; i++) {
		jv row = jv_array_get(jv_copy(rows), i), input = get(row, "input");
		jv observed = get(row, "observed"), quirk = get(row, "peer_quirk"), r;
		char id[64], kind[32], hint[1024], et[64];

		text_of(row, "id", id, sizeof id);
		text_of(row, "observed_hint_kind", kind, sizeof kind);
		r = cc_calc_verify(hints, input);
		if (jv_get_kind(quirk) == JV_KIND_TRUE) {
			size_t k = 0;

			quirks++;
			while (k < sizeof quirk_answers / sizeof *quirk_answers &&
			    strcmp(quirk_answers[k].id, id))
				k++;
			if (ok(k < sizeof quirk_answers / sizeof *quirk_answers,
			    "%s: the quirk row has our answer in the table", id)) {
				char got[256];

				is_str(text_of(r, "correct_answer", got, sizeof got),
				    quirk_answers[k].correct, "%s (quirk): correct_answer", id);
				is_str(text_of(r, "is_correct", got, sizeof got),
				    quirk_answers[k].is_correct, "%s (quirk): is_correct", id);
				is_str(text_of(r, "error_type", got, sizeof got),
				    quirk_answers[k].error_type, "%s (quirk): error_type", id);
			}
		} else {
			jv_object_foreach(observed, k, want) {
				key_is(r, jv_string_value(k), want, id);
				jv_free(k);
			}
			/* the hint's kind: empty exactly when right */
			text_of(r, "hint", hint, sizeof hint);
			text_of(r, "error_type", et, sizeof et);
			if (strcmp(kind, "empty") == 0)
				is_str(hint, "", "%s: no hint for a right answer", id);
			else
				ok(hint[0] && (strcmp(kind, "invalid_expression") != 0 ||
				    strcmp(et, "invalid_expression") == 0),
				    "%s: a %s hint", id, kind);
		}
		jv_free(quirk);
		jv_free(observed);
		jv_free(input);
		jv_free(row);
		jv_free(r);
	}
	is_int(quirks, sizeof quirk_answers / sizeof *quirk_answers,
	    "every quirk row is accounted for");
	jv_free(rows);
}

static void
test_dev_set(void)
{
	jv rows = load_rows("calc.dev.ndjson");
	int n = jv_array_length(jv_copy(rows));

	ok(n >= 17, "the development set is there (%d rows)", n);
	for (int i = 0; i < n; i++) {
		jv row = jv_array_get(jv_copy(rows), i), expect = get(row, "expect");
		jv args = jv_object(), rf = get(row, "remainder_form"), r;
		char id[64], got[256];

		text_of(row, "id", id, sizeof id);
		args = jv_object_set(args, jv_string("expression"), get(row, "expression"));
		args = jv_object_set(args, jv_string("child_answer"), get(row, "child_answer"));
		args = jv_object_set(args, jv_string("grade_level"), get(row, "grade_level"));
		r = cc_calc_verify(hints, args);
		jv_object_foreach(expect, k, want) {
			key_is(r, jv_string_value(k), want, id);
			jv_free(k);
		}
		if (jv_get_kind(rf) == JV_KIND_STRING)
			is_str(text_of(r, "remainder_form", got, sizeof got), jv_string_value(rf),
			    "%s: remainder_form", id);
		jv_free(rf);
		jv_free(args);
		jv_free(expect);
		jv_free(row);
		jv_free(r);
	}
	jv_free(rows);
}

/* ---- the evaluator ---- */

static void
eval_is(const char *expr, const char *want)
{
	char buf[CC_CALC_NUMLEN], err[128];
	double v;
	int st = cc_calc_eval(expr, strlen(expr), &v, err, sizeof err);

	is_str(st == CC_CALC_OK ? cc_calc_format(v, buf) : "invalid", want, "eval '%s'%s%s",
	    expr, st ? ": " : "", st ? err : "");
}

static void
status_is(const char *expr, int want)
{
	double v;

	is_int(cc_calc_eval(expr, strlen(expr), &v, NULL, 0), want, "status of '%s'", expr);
}

static void
test_eval(void)
{
	struct cc_calc_expr e;
	char err[128];

	/* precedence, associativity, parentheses, signs */
	eval_is("2 + 3 * 4", "14");
	eval_is("(2 + 3) * 4", "20");
	eval_is("2*(3+4)", "14");
	eval_is("12-4÷2", "10");
	eval_is("8-3-2", "3");
	eval_is("64/4/2", "8");
	eval_is("2*3-4/2", "4");
	eval_is("-5 + 3", "-2");
	eval_is("-(2+3)*2", "-10");
	eval_is("+7", "7");
	eval_is("2*(-3)", "-6");
	eval_is("((((1+1))))", "2");
	eval_is("10 - 20", "-10");
	eval_is("0-0", "0");
	eval_is("-0", "0");
	/* full-width, U+2212, ASCII x, U+3000 */
	eval_is("２３＋４５", "68");
	eval_is("１０　−　３", "7");
	eval_is("６×７", "42");
	eval_is("６＊７", "42");
	eval_is("５６÷８", "7");
	eval_is("５６／８", "7");
	eval_is("９－５", "4");
	eval_is("２×（３＋４）", "14");
	eval_is("６ｘ７", "42");
	eval_is("6 X 7", "42");
	eval_is("１．５＋１", "2.5");
	/* decimals, the shortest repr */
	eval_is(".5 + 1", "1.5");
	eval_is("5. + 1", "6");
	eval_is("0.1 + 0.2", "0.30000000000000004");
	eval_is("10 / 3", "3.3333333333333335");
	eval_is("7 / 2", "3.5");
	eval_is("1 / 100000", "1e-05");
	eval_is("1 / 10000", "0.0001");
	eval_is("2 / 3", "0.6666666666666666");
	eval_is("0.5 × 4", "2");
	eval_is("99999999999999999999 * 9", "900000000000000000000");
	/* what is refused */
	eval_is("5 -- 3", "invalid");
	eval_is("2*-3", "invalid");
	eval_is("--5", "invalid");
	eval_is("3 4", "invalid");
	eval_is("3 +", "invalid");
	eval_is("(2+3", "invalid");
	eval_is("2+3)", "invalid");
	eval_is("()", "invalid");
	eval_is("2(3)", "invalid");
	eval_is("", "invalid");
	eval_is("   ", "invalid");
	eval_is(".", "invalid");
	eval_is("1.2.3", "invalid");
	eval_is("1e3 + 1", "invalid");
	eval_is("3 + 4 =", "invalid");
	eval_is("3こ+4こ", "invalid");
	eval_is("abc + xyz", "invalid");
	eval_is("x 3", "invalid");
	eval_is("3 x", "invalid");
	eval_is("3 xx 4", "invalid");
	eval_is("6 × 7 cm", "invalid");
	eval_is("10ー3", "invalid");	/* the long-vowel mark is no minus here */
	eval_is("3\0+4", "3");	/* C string: stops at the NUL */
	ok(cc_calc_eval("3\0" "4", 3, &e.value, NULL, 0) == CC_CALC_SYNTAX, "a NUL byte is refused");
	ok(cc_calc_eval("3+\xff", 3, &e.value, NULL, 0) == CC_CALC_SYNTAX, "a bad byte is refused");
	status_is("10 ÷ 0", CC_CALC_DIVZERO);
	status_is("10/(2-2)", CC_CALC_DIVZERO);
	status_is("0/0", CC_CALC_DIVZERO);
	status_is("1/(0.1+0.2-0.3)", CC_CALC_OK);	/* not exactly zero */
	status_is("1e308", CC_CALC_SYNTAX);
	{
		char big[500];

		memset(big, '9', 330);
		strcpy(big + 330, "*1");
		status_is(big, CC_CALC_RANGE);	/* more digits than a double holds */
		memset(big, '9', 300);
		strcpy(big + 300, "*1e1");
		status_is(big, CC_CALC_SYNTAX);
		memset(big, '9', 200);
		big[200] = '*';
		memset(big + 201, '9', 200);
		big[401] = '\0';
		status_is(big, CC_CALC_RANGE);	/* overflows to infinity */
		memset(big, '(', 70);
		strcpy(big + 70, "1");
		memset(big + 71, ')', 70);
		big[141] = '\0';
		status_is(big, CC_CALC_SYNTAX);	/* deeper than 64 */
		memset(big, '(', 60);
		strcpy(big + 60, "1");
		memset(big + 61, ')', 60);
		big[121] = '\0';
		status_is(big, CC_CALC_OK);
	}
	/* the operation applied last, for the mistake finder */
	ok(cc_calc_parse("23 + 45", 7, &e, NULL, 0) == 0 && e.op == '+' && e.lhs == 23 &&
	    e.rhs == 45 && e.nops == 1, "23 + 45 is + on 23 and 45");
	ok(cc_calc_parse("(10+4)÷4", strlen("(10+4)÷4"), &e, NULL, 0) == 0 && e.op == '/' &&
	    e.lhs == 14 && e.rhs == 4 && e.nops == 2, "(10+4)÷4 is / on 14 and 4");
	ok(cc_calc_parse("(14÷4)", strlen("(14÷4)"), &e, NULL, 0) == 0 && e.op == '/',
	    "a group is its inside");
	ok(cc_calc_parse("-(3)", 4, &e, NULL, 0) == 0 && e.op == 'n' && e.rhs == 3, "-(3) is a negation");
	ok(cc_calc_parse("7", 1, &e, NULL, 0) == 0 && e.op == 0 && e.nops == 0, "7 is a number");
	/* messages */
	cc_calc_parse("3こ", strlen("3こ"), &e, err, sizeof err);
	is_str(err, "unexpected 'こ'", "the message quotes the character");
	cc_calc_parse("1.2.3", 5, &e, err, sizeof err);
	is_str(err, "malformed number '1.2.3'", "a malformed number is named");
	cc_calc_parse("10/0", 4, &e, err, sizeof err);
	is_str(err, "division by zero", "division by zero is named");
}

static void
format_is(double v, const char *want)
{
	char buf[CC_CALC_NUMLEN];

	is_str(cc_calc_format(v, buf), want, "format %.17g", v);
}

static void
test_format(void)
{
	char buf[CC_CALC_NUMLEN];
	int round_trips = 1;

	format_is(68, "68");
	format_is(-10, "-10");
	format_is(-0.0, "0");
	format_is(3.5, "3.5");
	format_is(0.1 + 0.2, "0.30000000000000004");
	format_is(10.0 / 3, "3.3333333333333335");
	format_is(1e-05, "1e-05");
	format_is(1.5e-7, "1.5e-07");
	format_is(0.0001, "0.0001");
	format_is(1e22, "10000000000000000000000");
	format_is(123456789.125, "123456789.125");
	format_is(2251799813685248.5, "2251799813685248.5");
	format_is(1.7976931348623157e308, "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368");
	format_is(5e-324, "5e-324");
	/* every value reads back as itself */
	for (int i = 1; i < 2000; i++) {
		double v = (double)i / 7.0 - 100;

		if (strtod(cc_calc_format(v, buf), NULL) != v)
			round_trips = 0;
	}
	ok(round_trips, "formatted values read back exactly");
}

/* ---- answers ---- */

static void
answer_is(const char *s, int kind, double value, double rem)
{
	struct cc_calc_answer a;

	cc_calc_parse_answer(s, strlen(s), &a);
	ok((int)a.kind == kind && (kind == CC_CALC_ANSWER_NONE ||
	    (a.value == value && (kind != CC_CALC_ANSWER_REMAINDER || a.remainder == rem))),
	    "answer '%s': kind %d value %g rem %g (got %d %g %g)", s, kind, value, rem,
	    (int)a.kind, a.value, a.remainder);
}

static void
test_answers(void)
{
	const int N = CC_CALC_ANSWER_NUMBER, R = CC_CALC_ANSWER_REMAINDER, X = CC_CALC_ANSWER_NONE;

	answer_is("68", N, 68, 0);
	answer_is(" 68 ", N, 68, 0);
	answer_is("６８", N, 68, 0);
	answer_is("68こ", N, 68, 0);
	answer_is("68です", N, 68, 0);
	answer_is("68だよ", N, 68, 0);
	answer_is("68！", N, 68, 0);
	answer_is("68？", N, 68, 0);
	answer_is("68ですか？", N, 68, 0);
	answer_is("68かな", N, 68, 0);
	answer_is("68だとおもう", N, 68, 0);
	answer_is("68であってる？", N, 68, 0);
	answer_is("68じゃない？", N, 68, 0);
	answer_is("68こです！", N, 68, 0);
	answer_is("8本", N, 8, 0);
	answer_is("12cm", N, 12, 0);
	answer_is("１２ｃｍ", N, 12, 0);
	answer_is("こたえは68", N, 68, 0);
	answer_is("答えは68です", N, 68, 0);
	answer_is("えっと、68", N, 68, 0);
	answer_is("68.0", N, 68, 0);
	answer_is("2.5です", N, 2.5, 0);
	answer_is("68.", N, 68, 0);
	answer_is("-10", N, -10, 0);
	answer_is("－１０", N, -10, 0);
	answer_is("−10", N, -10, 0);
	answer_is("マイナス10", N, -10, 0);
	answer_is("1,000", N, 1000, 0);
	answer_is("ろくじゅうはち", N, 68, 0);
	answer_is("ロクジュウハチ", N, 68, 0);
	answer_is("六十八", N, 68, 0);
	answer_is("はちです", N, 8, 0);
	answer_is("やっつ", N, 8, 0);
	answer_is("sixty-eight", N, 68, 0);
	answer_is("it's 42", N, 42, 0);
	answer_is("3あまり2", R, 3, 2);
	answer_is("３あまり２", R, 3, 2);
	answer_is("3 あまり 2", R, 3, 2);
	answer_is("3余り2", R, 3, 2);
	answer_is("3…2", R, 3, 2);
	answer_is("3 r 2", R, 3, 2);
	answer_is("3 remainder 2", R, 3, 2);
	answer_is("3こあまり2こ", R, 3, 2);
	answer_is("さんあまりに", R, 3, 2);
	answer_is("3あまり2です", R, 3, 2);
	answer_is("2あまりなし", R, 2, 0);
	answer_is("", X, 0, 0);
	answer_is("   ", X, 0, 0);
	answer_is("68ばん", X, 0, 0);
	answer_is("6_8", X, 0, 0);
	answer_is("inf", X, 0, 0);
	answer_is("nan", X, 0, 0);
	answer_is("1e3", X, 0, 0);
	answer_is("わからない", X, 0, 0);
	answer_is("68と69", X, 0, 0);
	answer_is("3あまり", X, 0, 0);
	answer_is("68ごはん", X, 0, 0);
	answer_is("1,00", X, 0, 0);
}

/* ---- mistakes ---- */

static void
mistake_is(const char *expr, const char *answer, const char *want)
{
	struct cc_calc_check c;
	const char *got;

	cc_calc_check(expr, strlen(expr), answer, strlen(answer), &c);
	got = cc_calc_mistake_name(c.mistake);
	is_str(got ? got : "null", want, "%s = %s: %s", expr, answer, want);
}

static void
test_mistakes(void)
{
	/* right, and invalid: no mistake */
	mistake_is("23+45", "68", "null");
	mistake_is("3こ+4こ", "7", "null");
	mistake_is("14÷4", "3あまり2", "null");
	mistake_is("8÷4", "2あまりなし", "null");
	/* carry */
	mistake_is("38+24", "52", "carry");	/* the carry dropped */
	mistake_is("8+5", "3", "carry");	/* the carry out of the top */
	mistake_is("75+48", "113", "carry");	/* one of two carries dropped */
	mistake_is("75+48", "13", "carry");	/* both */
	mistake_is("38+24", "512", "carry");	/* column sums written whole */
	mistake_is("23+45", "78", "carry");	/* a carry where there was none */
	mistake_is("23×4", "82", "carry");	/* times: the carry dropped */
	mistake_is("23×4", "122", "carry");	/* added before multiplying */
	mistake_is("4×23", "812", "carry");	/* partial products side by side */
	/* borrow */
	mistake_is("52-28", "36", "borrow");	/* smaller from larger */
	mistake_is("52-28", "34", "borrow");	/* not paid back */
	mistake_is("302-178", "234", "borrow");	/* across a zero */
	mistake_is("302-178", "276", "borrow");	/* smaller from larger, twice */
	mistake_is("9-5", "3", "off_by_one");	/* no borrowing: no borrow slip */
	/* swapped operands */
	mistake_is("3-5", "2", "swapped_operands");
	mistake_is("5-8", "3", "swapped_operands");
	mistake_is("4÷8", "2", "swapped_operands");
	mistake_is("4÷14", "3あまり2", "swapped_operands");
	/* off by one */
	mistake_is("23+45", "67", "off_by_one");
	mistake_is("23+45", "69", "off_by_one");
	mistake_is("7×8", "57", "off_by_one");
	/* times table */
	mistake_is("7×8", "63", "times_table");	/* 7×9 */
	mistake_is("7×8", "49", "times_table");	/* 7×7 */
	mistake_is("7×8", "48", "times_table");	/* 6×8 */
	mistake_is("7×8", "54", "times_table");	/* 6×9 */
	mistake_is("56÷8", "6", "times_table");
	mistake_is("14÷4", "4あまり2", "times_table");
	mistake_is("2*(3+4)", "10", "other");	/* parentheses ignored: no 九九 slip */
	/* place value */
	mistake_is("23+45", "86", "place_value");	/* digits swapped */
	mistake_is("3+5", "35", "place_value");	/* side by side */
	mistake_is("23+5", "73", "place_value");	/* 5 under the tens */
	mistake_is("45-3", "15", "place_value");
	mistake_is("20×3", "6", "place_value");	/* a zero lost */
	mistake_is("0.5×4", "20", "place_value");
	mistake_is("23×14", "115", "place_value");	/* partial products not shifted */
	/* remainder */
	mistake_is("14÷4", "3あまり1", "remainder");
	mistake_is("14÷4", "3あまり6", "remainder");
	mistake_is("14÷4", "2あまり6", "remainder");	/* remainder not below the divisor */
	mistake_is("14÷4", "3", "remainder");	/* the remainder left out */
	mistake_is("14÷4", "3.2", "remainder");	/* written as a decimal */
	mistake_is("3+4", "7あまり0", "other");	/* a remainder where none belongs */
	/* other */
	mistake_is("23+45", "12", "other");
	mistake_is("1 + 2 × 3", "9", "other");	/* left to right */
	mistake_is("7×8", "", "other");
	mistake_is("7×8", "わからない", "other");
}

/* ---- hints ---- */

static void
test_hints(void)
{
	static const char *const problems[][2] = {
		{ "23+45", "67" }, { "38+24", "52" }, { "52-28", "36" }, { "7×8", "63" },
		{ "14÷4", "3あまり1" }, { "0+5", "4" }, { "5-0", "6" }, { "10÷1", "1" },
		{ "6+4", "0" }, { "1×1", "2" }, { "2-1", "2" }, { "12÷3", "3" }, { "10÷4", "2" },
		{ "3+5", "35" }, { "7×8", "" }, { "100-1", "19" }, { "9÷3", "1" }, { "4-3", "7" },
	};
	int leaks = 0, empty = 0, english = 1;
	jv r;
	char h[1024], ca[256], rf[256];

	for (size_t k = 0; k < sizeof problems / sizeof *problems; k++)
		for (int grade = 0; grade <= 4; grade++) {
			r = verify3(problems[k][0], problems[k][1], grade);
			text_of(r, "hint", h, sizeof h);
			text_of(r, "correct_answer", ca, sizeof ca);
			text_of(r, "remainder_form", rf, sizeof rf);
			if (!h[0])
				empty++;
			if (cc_calc_states_value(h, strlen(h), ca) ||
			    (strcmp(rf, "null") && cc_calc_states_value(h, strlen(h), rf))) {
				leaks++;
				printf("#   the hint for %s = %s states %s: %s\n", problems[k][0],
				    problems[k][1], ca, h);
			}
			jv_free(r);
		}
	is_int(empty, 0, "every wrong answer has a hint");
	is_int(leaks, 0, "no hint states the answer");

	/* the graded hint of a mistake, and the original's graded fallback */
	r = verify3("38+24", "52", 2);
	ok(strstr(text_of(r, "hint", h, sizeof h), "8 と 4") != NULL,
	    "the grade-2 carry hint names the ones digits: %s", h);
	jv_free(r);
	r = verify3("0+5", "4", 1);	/* {b} would be the answer: another text */
	ok(!cc_calc_states_value(text_of(r, "hint", h, sizeof h), strlen(h), "5"),
	    "a hint that would state the answer is replaced: %s", h);
	jv_free(r);
	r = verify3("23+45", "12", 1);
	ok(strstr(text_of(r, "hint", h, sizeof h), "ゆび") != NULL, "grade 1: count with fingers");
	jv_free(r);
	r = verify3("23+45", "12", 2);
	ok(strstr(text_of(r, "hint", h, sizeof h), "ひっさん") != NULL, "grade 2: columns");
	jv_free(r);
	r = verify3("23+45", "12", 7);
	ok(strstr(text_of(r, "hint", h, sizeof h), "とちゅう") != NULL,
	    "another grade: the grade-3 text");
	jv_free(r);

	/* English texts in English */
	for (size_t k = 0; k < sizeof problems / sizeof *problems; k++) {
		jv args = jv_object();

		args = jv_object_set(args, jv_string("expression"), jv_string(problems[k][0]));
		args = jv_object_set(args, jv_string("child_answer"), jv_string(problems[k][1]));
		args = jv_object_set(args, jv_string("grade_level"), jv_number(2));
		args = jv_object_set(args, jv_string("lang"), jv_string("en"));
		r = cc_calc_verify(hints, args);
		text_of(r, "hint", h, sizeof h);
		for (const unsigned char *p = (const unsigned char *)h; *p; p++)
			if (*p >= 0xE3 && *p <= 0xE9)	/* kana and kanji */
				english = 0;
		jv_free(r);
		jv_free(args);
	}
	ok(english, "lang en gives English hints");

	/* no hints file: a built-in sentence still */
	{
		jv args = jv_object();

		args = jv_object_set(args, jv_string("expression"), jv_string("2+2"));
		args = jv_object_set(args, jv_string("child_answer"), jv_string("5"));
		r = cc_calc_verify(NULL, args);
		ok(text_of(r, "hint", h, sizeof h)[0] != '\0', "without hints: a hint still");
		jv_free(r);
		jv_free(args);
	}
}

static void
test_verify_args(void)
{
	char buf[256];
	jv args, r;

	/* odd arguments: no crash, a record with the seed's keys */
	r = cc_calc_verify(hints, jv_null());
	is_str(text_of(r, "error_type", buf, sizeof buf), "invalid_expression", "args null");
	jv_free(r);
	args = jv_parse("{\"expression\": 42, \"child_answer\": 42}");
	r = cc_calc_verify(hints, args);
	is_str(text_of(r, "is_correct", buf, sizeof buf), "true", "numbers as arguments");
	jv_free(r);
	jv_free(args);
	args = jv_parse("{\"expression\": [1], \"child_answer\": {}, \"grade_level\": \"x\"}");
	r = cc_calc_verify(hints, args);
	is_str(text_of(r, "error_type", buf, sizeof buf), "invalid_expression", "arguments of other kinds");
	jv_free(r);
	jv_free(args);
	args = jv_parse("{\"expression\": \"7÷2\", \"child_answer\": \"3あまり1\", \"grade_level\": 1e300}");
	r = cc_calc_verify(hints, args);
	is_str(text_of(r, "is_correct", buf, sizeof buf), "true", "a huge grade");
	is_str(text_of(r, "mistake", buf, sizeof buf), "null", "no mistake when right");
	is_str(text_of(r, "remainder_form", buf, sizeof buf), "3あまり1", "remainder_form");
	jv_free(r);
	jv_free(args);
	args = jv_parse("{\"expression\": \"7÷2\", \"child_answer\": \"3あまり2\"}");
	r = cc_calc_verify(hints, args);
	is_str(text_of(r, "mistake", buf, sizeof buf), "remainder", "mistake");
	is_str(text_of(r, "error_type", buf, sizeof buf), "calculation", "error_type");
	jv_free(r);
	jv_free(args);
	/* a string with a NUL inside is read to its end, so it is refused */
	args = jv_object_set(jv_object(), jv_string("expression"), jv_string_sized("3\0+4", 4));
	r = cc_calc_verify(hints, args);
	is_str(text_of(r, "error_type", buf, sizeof buf), "invalid_expression", "a NUL in the expression");
	jv_free(r);
	jv_free(args);
}

/* ---- numbers in words ---- */

static void
number_is(const char *s, double want)
{
	double v = 0;

	ok(cc_calc_read_number(s, strlen(s), &v) == 0 && v == want, "number '%s' is %g (got %g)",
	    s, want, v);
}

static void
not_number(const char *s)
{
	double v = 0;

	ok(cc_calc_read_number(s, strlen(s), &v) < 0, "'%s' is no number", s);
}

static void
test_numbers(void)
{
	number_is("68", 68);
	number_is("６８", 68);
	number_is("1,234,567", 1234567);
	number_is("3.25", 3.25);
	number_is("-7", -7);
	number_is("三十八", 38);
	number_is("百二十", 120);
	number_is("二千五", 2005);
	number_is("三千五百", 3500);
	number_is("一万二千", 12000);
	number_is("十", 10);
	number_is("三点五", 3.5);
	number_is("二〇二五", 2025);
	number_is("3万", 30000);
	number_is("2千5百", 2500);
	number_is("さんじゅうはち", 38);
	number_is("サンジュウハチ", 38);
	number_is("にじゅうよん", 24);
	number_is("しじゅうく", 49);
	number_is("ななじゅうなな", 77);
	number_is("きゅうじゅうきゅう", 99);
	number_is("ひゃく", 100);
	number_is("さんびゃく", 300);
	number_is("ろっぴゃくごじゅう", 650);
	number_is("はっぴゃく", 800);
	number_is("せん", 1000);
	number_is("さんぜん", 3000);
	number_is("いっせん", 1000);
	number_is("いちまん", 10000);
	number_is("じゅうまん", 100000);
	number_is("さんてんご", 3.5);
	number_is("れいてんご", 0.5);
	number_is("ぜろ", 0);
	number_is("ゼロ", 0);
	number_is("みっつ", 3);
	number_is("ここのつ", 9);
	number_is("とお", 10);
	number_is("sixty-eight", 68);
	number_is("Sixty Eight", 68);
	number_is("twelve", 12);
	number_is("a hundred and five", 105);
	number_is("two thousand three hundred", 2300);
	number_is("three point five", 3.5);
	number_is("zero", 0);
	number_is("ＳＥＶＥＮ", 7);
	not_number("");
	not_number("さんご");	/* two digits: the 九九 line 3 5 */
	not_number("十百");
	not_number("いっ");
	not_number("れい");
	not_number("まん");
	not_number("びゃく");
	not_number("someone");
	not_number("twenty twenty");
	not_number("1,00");
	not_number("こ");
	ok(cc_calc_scan_number("38たす", strlen("38たす"), &(double){0}) == 2, "the scan stops after the number");
}

static void
words_is(const char *text, const char *expr, const char *answer)
{
	struct cc_calc_utterance u;
	int f = cc_calc_from_words(text, strlen(text), &u);

	if (is_str(u.expr, expr, "'%s': the problem", text) &&
	    is_str(u.answer, answer, "'%s': the answer", text))
		ok(((f & CC_CALC_HAS_EXPR) != 0) == (expr[0] != 0) &&
		    ((f & CC_CALC_HAS_ANSWER) != 0) == (answer[0] != 0), "'%s': the flags", text);
}

static void
test_words(void)
{
	struct cc_calc_utterance u;

	/* problems */
	words_is("さんじゅうはちたすにじゅうよん", "38+24", "");
	words_is("さんたすご", "3+5", "");
	words_is("37ひく19はいくつ？", "37-19", "");
	words_is("6かける8", "6*8", "");
	words_is("12わる4", "12/4", "");
	words_is("三十八たす二十四", "38+24", "");
	words_is("サンタスゴ", "3+5", "");
	words_is("３７ひく１９は？", "37-19", "");
	words_is("ななかけるはちは？", "7*8", "");
	words_is("what's 6 times 8", "6*8", "");
	words_is("What’s 6 times 8?", "6*8", "");
	words_is("seven plus five", "7+5", "");
	words_is("twelve divided by four", "12/4", "");
	words_is("23+45", "23+45", "");
	words_is("２×（３＋４）は？", "2*(3+4)", "");
	words_is("-3+5", "-3+5", "");
	words_is("6x8", "6*8", "");
	words_is("5と3をたすと", "5+3", "");
	words_is("10から3をひく", "10-3", "");
	words_is("6を3でわる", "6/3", "");
	words_is("ろくにはちをかける", "6*8", "");
	words_is("りんご3こと5こをあわせると", "3+5", "");
	words_is("3こ+4こ", "3+4", "");
	words_is("ひゃくひくにじゅう", "100-20", "");
	words_is("じゅうにわるよん", "12/4", "");
	words_is("3+4=", "3+4", "");
	words_is("６３÷９のこたえおしえて", "63/9", "");	/* ÷ is no date */
	/* problems with the child's answer */
	words_is("3+5=8", "3+5", "8");
	words_is("3たす5は8", "3+5", "8");
	words_is("3たす5は8だとおもう", "3+5", "8");
	words_is("さんたすごははち", "3+5", "8");
	words_is("14÷4=3あまり2", "14/4", "3あまり2");
	words_is("14わる4は3あまり2？", "14/4", "3あまり2");
	words_is("ろくかけるはちはごじゅうはち", "6*8", "58");
	words_is("10-3=-7?", "10-3", "-7");
	/* 九九 lines */
	words_is("くしちろくじゅうさん", "9*7", "63");
	words_is("く しち ろくじゅうさん", "9*7", "63");
	words_is("にさんがろく", "2*3", "6");
	words_is("ににんがし", "2*2", "4");
	words_is("さざんがく", "3*3", "9");
	words_is("はっぱろくじゅうし", "8*8", "64");
	words_is("しちはごじゅうろく", "7*8", "56");
	words_is("ろっくごじゅうし", "6*9", "54");
	words_is("九七六十三", "9*7", "63");
	words_is("くしちろくじゅうに？", "9*7", "62");	/* a wrong line is still a line */
	ok(cc_calc_from_words("はっぱろくじゅうし", strlen("はっぱろくじゅうし"), &u) && u.recitation,
	    "a 九九 line is marked");
	/* answers alone */
	words_is("こたえは15だとおもう", "", "15");
	words_is("36であってる？", "", "36");
	words_is("8", "", "8");
	words_is("はち", "", "8");
	words_is("はちです！", "", "8");
	words_is("えっと、56かな", "", "56");
	words_is("たぶん 8こ", "", "8");
	words_is("3あまり2", "", "3あまり2");
	words_is("it's 48", "", "48");
	words_is("I got 81, is that right?", "", "81");
	/* numbers in other tasks, and no numbers */
	words_is("3ばん", "", "");
	words_is("3ばんのもんだいがわからない", "", "");
	words_is("12ページ", "", "");
	words_is("12ページをよむ", "", "");
	words_is("2ねん", "", "");
	words_is("2ねん3くみ", "", "");
	words_is("さんすうがわからない", "", "");
	words_is("いちごがすき", "", "");
	words_is("ごごにじ", "", "");
	words_is("もんだい3-2", "", "");
	words_is("2025-01-15", "", "");
	words_is("1/15のしゅくだい", "", "");
	words_is("さんにんと ふたり", "", "");
	words_is("じゅうにんいる", "", "");
	words_is("きょうは 3もん やった", "", "");
	words_is("かんじを 5こ かいた", "", "");
	words_is("たすけて", "", "");
	words_is("でかける", "", "");
	words_is("", "", "");
	words_is("こんにちは", "", "");
	words_is("what is this", "", "");
	words_is("this one", "", "");
}

/* ---- the answer-leak guard ---- */

static void
states(const char *answer, const char *text, int want)
{
	is_int(cc_calc_states_value(text, strlen(text), answer), want, "'%s' %s %s", text,
	    want ? "states" : "does not state", answer);
}

static void
test_states(void)
{
	/* the forms of 68 */
	states("68", "こたえは68だよ", 1);
	states("68", "68", 1);
	states("68", "６８", 1);
	states("68", "68.0です", 1);
	states("68", "六十八", 1);
	states("68", "こたえは六十八こ", 1);
	states("68", "ろくじゅうはち", 1);
	states("68", "ロクジュウハチ", 1);
	states("68", "ろくじゅう はち", 0);	/* two numbers: 60 and 8 */
	states("68", "sixty-eight", 1);
	states("68", "Sixty Eight", 1);
	states("68", "23+45=68", 1);
	states("68", "(68)", 1);
	states("68", "「68」", 1);
	states("68", "68こ", 1);
	states("68", "-68", 1);
	/* not inside another number */
	states("68", "168", 0);
	states("68", "680", 0);
	states("68", "6.8", 0);
	states("68", "0.68", 0);
	states("68", "百六十八", 0);
	states("68", "ひゃくろくじゅうはち", 0);
	states("68", "six hundred eight", 0);
	states("68", "6と8", 0);
	states("68", "23と45", 0);
	/* thousands separators */
	states("1000", "1,000こ", 1);
	states("1000", "１，０００", 1);
	states("1000", "せん", 1);
	states("1000", "千", 1);
	states("2500", "2千5百", 1);
	states("68", "68,000", 0);
	/* small numbers: a numeral, not a syllable of a word */
	states("1", "一緒にやろう", 0);
	states("1", "もう一度", 0);
	states("1", "もういちど", 0);
	states("1", "一のくらいを見よう", 0);
	states("1", "統一", 0);
	states("1", "一つずつ かぞえよう", 0);
	states("1", "いちばん", 0);
	states("1", "いちだよ", 1);
	states("1", "1", 1);
	states("1", "一", 1);
	states("1", "ひとつ", 1);
	states("1", "one", 1);
	states("10", "十のくらいを見よう", 0);
	states("10", "じゅうぶん", 0);
	states("10", "十", 1);
	states("10", "とお", 1);
	states("10", "じゅうにする", 1);
	states("12", "じゅうにする", 0);
	states("12", "じゅうにだよ", 1);
	states("2", "ていねいにかこう", 0);
	states("2", "3に5をたす", 0);
	states("2", "にこ", 1);
	states("2", "に", 1);
	states("2", "ふたつ", 1);
	states("3", "さんすう", 0);
	states("3", "たなかさん", 0);
	states("3", "さん", 1);
	states("3", "みっつ", 1);
	states("3", "３", 1);
	states("4", "し", 1);
	states("4", "しゅくだい", 0);
	states("5", "ごはん", 0);
	states("5", "ご", 1);
	states("6", "きろく", 0);
	states("6", "ろく", 1);
	states("8", "はちみつ", 0);
	states("8", "はち！", 1);
	states("8", "やっつ", 1);
	states("9", "九九をおもいだそう", 0);
	states("99", "九九をおもいだそう", 0);
	states("9", "く", 1);
	states("9", "きゅうけい", 0);
	states("0", "0", 1);
	states("0", "ゼロ", 1);
	states("0", "10", 0);
	/* decimals and signs */
	states("3.5", "3.5", 1);
	states("3.5", "さんてんご", 1);
	states("3.5", "三点五", 1);
	states("3.5", "three point five", 1);
	states("3.5", "3", 0);
	states("3.5", "35", 0);
	states("0.30000000000000004", "0.3だね", 1);
	states("0.30000000000000004", "0.30000000000000004", 1);
	states("3.3333333333333335", "3.33", 1);
	states("3.3333333333333335", "3", 0);
	states("-10", "10", 1);
	states("-10", "マイナス10", 1);
	/* remainders: both parts, or the remainder named as one */
	states("3あまり2", "3あまり2", 1);
	states("3あまり2", "３あまり２", 1);
	states("3あまり2", "さんあまりに", 1);
	states("3あまり2", "しょうは3、あまりは2", 1);
	states("3あまり2", "あまりは2だよ", 1);
	states("3あまり2", "あまり 2", 1);
	states("3あまり2", "3 remainder 2", 1);
	states("3あまり2", "4が3つで12、あと2", 1);
	states("3あまり2", "3のだん", 0);
	states("3あまり2", "あまりを わすれないで", 0);
	states("3あまり2", "わる数の 4 より 小さいかな", 0);
	states("3あまり3", "3のだん", 0);	/* one 3 is not both parts */
	states("3あまり3", "3あまり3", 1);
	/* not an answer, or not text */
	states("", "68", 0);
	states("abc", "abc", 0);
	ok(!cc_calc_states_value(NULL, 0, "68") && !cc_calc_states_value("68", 2, NULL),
	    "NULL is no statement");
	states("68", "\xff\xfe" "68", 1);	/* bad bytes around it */
	states("68", "6\xff" "8", 0);
}

int
main(void)
{
	const char *dir = getenv("CC_DATADIR");
	char path[4096], err[512];

	snprintf(path, sizeof path, "%s/homework-coach/calc-hints", dir ? dir : "share/concierge");
	hints = cc_texts_load(path, err, sizeof err);
	ok(hints != NULL, "the hints load (%s)", hints ? path : err);
	test_peer_vectors();
	test_peer_observed();
	test_dev_set();
	test_eval();
	test_format();
	test_answers();
	test_mistakes();
	test_hints();
	test_verify_args();
	test_numbers();
	test_words();
	test_states();
	cc_texts_free(hints);
	return tap_done();
}
