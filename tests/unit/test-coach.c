/*
 * Unit tests of the homework coach's tools and state (lib/coach): hint
 * levels per problem, points, streak and achievements, the curriculum
 * table (every key of the original's vectors), the parent report, the
 * domain's data files, and arguments and states of every wrong shape.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_session.h"
#include "cc_texts.h"
#include "cc_time.h"
#include "cc_coach.h"
#include "tap.h"

static struct cc_coach_data data;
static char *datadir;
static time_t t0;	/* 2025-01-15T10:00:00+09:00 */

/* ---- helpers ---- */

static jv
parse(const char *s)
{
	jv v = cc_json_parse(s, strlen(s));

	if (!jv_is_valid(v)) {
		fprintf(stderr, "bad JSON in a test: %s\n", s);
		exit(99);
	}
	return v;
}

/* Call a tool with JSON text arguments at time now. */
static jv
call_at(cc_coach_tool_fn *fn, const char *args, jv *state, time_t now)
{
	jv a = parse(args), r = fn(&data, a, state, now);

	jv_free(a);
	return r;
}

static jv
call(cc_coach_tool_fn *fn, const char *args, jv *state)
{
	return call_at(fn, args, state, t0);
}

/*
 * The compact JSON of a dotted path into v (borrows), or "(absent)"; the
 * text lives until the eighth call after.
 */
static const char *
at(jv v, const char *path)
{
	static struct cc_buf ring[8];
	static int next;
	struct cc_buf *b = &ring[next++ % 8];
	char seg[128];
	jv cur = jv_copy(v);

	b->len = 0;
	while (*path) {
		size_t n = strcspn(path, ".");

		snprintf(seg, sizeof seg, "%.*s", (int)n, path);
		path += n + (path[n] == '.');
		if (jv_get_kind(cur) == JV_KIND_ARRAY && seg[0] >= '0' && seg[0] <= '9') {
			cur = jv_array_get(cur, atoi(seg));
		} else if (jv_get_kind(cur) == JV_KIND_OBJECT) {
			jv k = jv_string(seg);

			if (!jv_object_has(jv_copy(cur), jv_copy(k))) {
				jv_free(k);
				jv_free(cur);
				cur = jv_invalid();
				break;
			}
			cur = jv_object_get(cur, k);
		} else {
			jv_free(cur);
			cur = jv_invalid();
			break;
		}
	}
	if (!jv_is_valid(cur))
		cc_buf_add(b, "(absent)", 8);
	else
		cc_json_put(b, cur);
	jv_free(cur);
	return b->data;
}

/* The string at a path, without its quotes (only for plain texts). */
static const char *
str(jv v, const char *path)
{
	static char buf[4][4096];
	static int next;
	char *out = buf[next++ % 4];
	const char *s = at(v, path);
	jv p = cc_json_parse(s, strlen(s));

	snprintf(out, 4096, "%s", jv_get_kind(p) == JV_KIND_STRING ? jv_string_value(p) : s);
	jv_free(p);
	return out;
}

static int
contains(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

/* ---- the data files ---- */

static void
check_topic_hints(int grade, const char *subject, const char *topic,
    const char *const *related, void *arg)
{
	int *missing = arg;
	char key[160];

	(void)grade;
	(void)related;
	for (int level = 1; level <= 3; level++) {
		const char *ja, *en;

		snprintf(key, sizeof key, "%s.%s.%d", subject, topic, level);
		ja = cc_texts_get(data.hints, key, "ja", NULL);
		en = cc_texts_get(data.hints, key, "en", NULL);
		/* cc_texts_get falls back to another language: both must differ */
		if (!ja || !en || ja == en) {
			printf("# no ja and en hint %s\n", key);
			(*missing)++;
		}
	}
}

static void
check_related(int grade, const char *subject, const char *topic,
    const char *const *related, void *arg)
{
	int *bad = arg;

	for (int i = 0; related[i]; i++)
		if (!cc_curriculum_canonical(data.curriculum, subject, related[i])) {
			printf("# %d %s %s: related %s not in the table\n", grade, subject,
			    topic, related[i]);
			(*bad)++;
		}
}

static void
test_data(void)
{
	static const char *const general[] = { "general", "math", "japanese" };
	int missing = 0, bad = 0;
	char key[96];

	cc_curriculum_each(data.curriculum, check_topic_hints, &missing);
	for (int g = 0; g < 3; g++)
		for (int level = 1; level <= 3; level++) {
			const char *ja, *en;

			snprintf(key, sizeof key, "%s.%d", general[g], level);
			ja = cc_texts_get(data.hints, key, "ja", NULL);
			en = cc_texts_get(data.hints, key, "en", NULL);
			if (!ja || !en || ja == en) {
				printf("# no ja and en hint %s\n", key);
				missing++;
			}
		}
	is_int(missing, 0, "data: every topic of the table has three hint levels in ja and en");
	cc_curriculum_each(data.curriculum, check_related, &bad);
	is_int(bad, 0, "data: every related topic is a topic of the table");
	ok(data.nachievements >= 10, "data: %zu achievements", data.nachievements);
	missing = 0;
	for (size_t i = 0; i < data.nachievements; i++) {
		const char *ja, *en;

		snprintf(key, sizeof key, "achievement.%s", data.achievements[i].id);
		ja = cc_texts_get(data.texts, key, "ja", NULL);
		en = cc_texts_get(data.texts, key, "en", NULL);
		if (!ja || !en || ja == en) {
			printf("# no ja and en title %s\n", key);
			missing++;
		}
	}
	is_int(missing, 0, "data: every achievement has a title in ja and en");
	ok(contains(cc_texts_get(data.hints, "general.1", "ja", NULL), "問題"),
	    "data: the general level-1 hint asks to read the problem (問題)");
	ok(contains(cc_texts_get(data.hints, "general.3", "ja", NULL), "ステップ"),
	    "data: the general level-3 hint goes step by step (ステップ)");
}

/* A data file with text, then loading it: the error, or "" when it loads. */
static const char *
load_error(const char *which, const char *text)
{
	static char err[512];
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "test-coach-%ld.tmp", (long)getpid());
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	err[0] = '\0';
	if (strcmp(which, "curriculum") == 0) {
		struct cc_curriculum *c = cc_curriculum_load(path, err, sizeof err);

		cc_curriculum_free(c);
	} else {
		struct cc_coach_achievement *a;
		size_t n;

		if (cc_coach_achievements_load(path, &a, &n, err, sizeof err) == 0) {
			for (size_t i = 0; i < n; i++)
				free(a[i].id);
			free(a);
		}
	}
	unlink(path);
	/* the messages name the temporary file: keep what follows it */
	return strstr(err, ": ") ? strstr(err, ": ") + 2 : err;
}

static void
test_loaders(void)
{
	static const char ok_cur[] =
	    "topic 1 math a,b A\npre p\ngoal g\nmistake m\nstrategy s\nrelated a\n"
	    "fallback\npre p\ngoal g\nmistake m\nstrategy s\n";

	is_str(load_error("curriculum", ok_cur), "", "curriculum: a small table loads");
	is_str(load_error("curriculum", "pre p\n"), "an item before the first topic",
	    "curriculum: an item before a topic");
	is_str(load_error("curriculum", "topic x math a A\n"),
	    "the grade must be a number from 1 to 9", "curriculum: a bad grade");
	is_str(load_error("curriculum", "topic 1 Math a A\n"),
	    "the subject must be lower-case letters, digits and _",
	    "curriculum: a bad subject");
	is_str(load_error("curriculum", "topic 1 math a\n"),
	    "expected 'topic GRADE SUBJECT ID[,ALIAS...] TITLE'",
	    "curriculum: a topic without a title");
	is_str(load_error("curriculum", "topic 1 math a A\ntopic 1 math b,a B\n"),
	    "this topic is already in the table", "curriculum: a topic twice");
	is_str(load_error("curriculum", "topic 1 math a A\nhint x\n"),
	    "expected topic, fallback, pre, goal, mistake, strategy or related",
	    "curriculum: an unknown item");
	is_str(load_error("curriculum", "topic 1 math a A\npre p\ngoal g\nmistake m\n"
	    "strategy s\nrelated zzz\nfallback\npre p\ngoal g\nmistake m\nstrategy s\n"),
	    "related topic 'zzz' is not a math topic of the table",
	    "curriculum: a related topic that is not in the table");
	is_str(load_error("curriculum", "topic 1 math a A\npre p\ngoal g\nmistake m\n"
	    "strategy s\n"), "no fallback block", "curriculum: no fallback");
	is_str(load_error("curriculum", "topic 1 math a A\npre p\nmistake m\nstrategy s\n"
	    "fallback\npre p\ngoal g\nmistake m\nstrategy s\n"), "no 'goal' item",
	    "curriculum: an empty list");
	is_str(load_error("curriculum", "fallback\nrelated a\n"),
	    "the fallback has no related topics", "curriculum: related in the fallback");
	is_str(load_error("curriculum", "fallback\nfallback\n"),
	    "a second fallback block", "curriculum: two fallbacks");

	is_str(load_error("achievements", "# c\nfirst solved 1\n"), "",
	    "achievements: a file loads");
	is_str(load_error("achievements", "first solved\n"),
	    "expected 'ID METRIC THRESHOLD'", "achievements: no threshold");
	is_str(load_error("achievements", "first solved 1 x\n"),
	    "expected 'ID METRIC THRESHOLD'", "achievements: a word too many");
	ok(contains(load_error("achievements", "first happiness 1\n"), "unknown metric"),
	    "achievements: an unknown metric");
	is_str(load_error("achievements", "first solved 0\n"),
	    "the threshold must be a whole number from 1 to 1000000000",
	    "achievements: a zero threshold");
	is_str(load_error("achievements", "first solved 99999999999999999999\n"),
	    "the threshold must be a whole number from 1 to 1000000000",
	    "achievements: a threshold beyond long long");
	is_str(load_error("achievements", "a solved 1\na streak 2\n"),
	    "this id is already defined", "achievements: an id twice");
	is_str(load_error("achievements", "A solved 1\n"),
	    "the id must be lower-case letters, digits and _", "achievements: a bad id");
}

/* ---- check_curriculum ---- */

static void
curriculum_is(int grade, const char *subject, const char *topic, const char *matched,
    const char *related)
{
	char args[256];
	jv st = jv_object(), r;

	snprintf(args, sizeof args, "{\"grade_level\":%d,\"subject\":\"%s\",\"topic\":\"%s\"}",
	    grade, subject, topic);
	r = call(cc_coach_check_curriculum, args, &st);
	is_str(str(r, "matched"), matched, "curriculum: %d %s %s: %s", grade, subject,
	    topic, matched);
	if (related)
		is_str(at(r, "related_topics"), related, "curriculum: %d %s %s: related %s",
		    grade, subject, topic, related);
	jv_free(r);
	jv_free(st);
}

/* The original's lengths are a floor for its own seven entries. */
static void
lengths_at_least(const char *args, int pre, int goal, int mist, int strat)
{
	jv st = jv_object(), r = call(cc_coach_check_curriculum, args, &st);
	int n[4] = {
		jv_array_length(jv_object_get(jv_copy(r), jv_string("prerequisites"))),
		jv_array_length(jv_object_get(jv_copy(r), jv_string("learning_objectives"))),
		jv_array_length(jv_object_get(jv_copy(r), jv_string("common_mistakes"))),
		jv_array_length(jv_object_get(jv_copy(r), jv_string("teaching_strategies"))),
	};

	ok(n[0] >= pre && n[1] >= goal && n[2] >= mist && n[3] >= strat,
	    "curriculum: %s has at least the original's %d/%d/%d/%d items (%d/%d/%d/%d)",
	    args, pre, goal, mist, strat, n[0], n[1], n[2], n[3]);
	jv_free(r);
	jv_free(st);
}

static void
test_curriculum(void)
{
	jv st = jv_object(), r;

	/* every key of the original's vectors (curriculum*.ndjson) */
	curriculum_is(1, "math", "addition", "table", "[\"subtraction\",\"number_sense\"]");
	curriculum_is(1, "math", "subtraction", "table", "[\"addition\",\"number_sense\"]");
	curriculum_is(2, "math", "multiplication", "table", "[\"addition\",\"division\"]");
	curriculum_is(2, "math", "addition", "table", "[\"subtraction\",\"number_sense\"]");
	curriculum_is(3, "math", "division", "table", "[\"multiplication\",\"fractions\"]");
	curriculum_is(1, "japanese", "hiragana", "table", "[\"katakana\",\"reading\"]");
	curriculum_is(2, "japanese", "kanji", "table", "[\"reading\",\"writing\"]");
	curriculum_is(1, "math", "addition_carry", "table", NULL);
	curriculum_is(2, "japanese", "kanji_grade2", "table", "[\"reading\",\"writing\"]");
	curriculum_is(2, "math", "subtraction", "table", NULL);
	curriculum_is(3, "japanese", "kanji", "table", NULL);
	curriculum_is(1, "math", "unknown_topic", "fallback", "[]");
	curriculum_is(1, "science", "weather", "fallback", "[]");
	curriculum_is(5, "math", "addition", "fallback", "[]");
	curriculum_is(1, "Math", "addition", "fallback", "[]");
	/* the course of study, in outline */
	curriculum_is(1, "math", "subtraction_borrow", "table", NULL);
	curriculum_is(1, "math", "clock", "table", NULL);
	curriculum_is(2, "math", "length", "table", NULL);
	curriculum_is(2, "math", "volume", "table", NULL);
	curriculum_is(2, "math", "time", "table", NULL);
	curriculum_is(3, "math", "division_remainder", "table", NULL);
	curriculum_is(3, "math", "large_numbers", "table", NULL);
	curriculum_is(1, "japanese", "katakana", "table", NULL);
	curriculum_is(1, "japanese", "kanji_grade1", "table", NULL);
	curriculum_is(3, "japanese", "kanji_grade3", "table", NULL);
	curriculum_is(2, "japanese", "word_meaning", "table", NULL);
	curriculum_is(2, "math", "division", "fallback", NULL);
	lengths_at_least("{\"grade_level\":1,\"subject\":\"math\",\"topic\":\"addition\"}", 2, 3, 3, 3);
	lengths_at_least("{\"grade_level\":1,\"subject\":\"math\",\"topic\":\"subtraction\"}", 2, 3, 3, 3);
	lengths_at_least("{\"grade_level\":2,\"subject\":\"math\",\"topic\":\"multiplication\"}", 2, 3, 3, 3);
	lengths_at_least("{\"grade_level\":2,\"subject\":\"math\",\"topic\":\"addition\"}", 2, 2, 2, 2);
	lengths_at_least("{\"grade_level\":3,\"subject\":\"math\",\"topic\":\"division\"}", 2, 3, 3, 3);
	lengths_at_least("{\"grade_level\":1,\"subject\":\"japanese\",\"topic\":\"hiragana\"}", 2, 3, 3, 3);
	lengths_at_least("{\"grade_level\":2,\"subject\":\"japanese\",\"topic\":\"kanji\"}", 1, 3, 3, 3);

	r = call(cc_coach_check_curriculum, "{\"grade_level\":1,\"subject\":\"x\",\"topic\":\"y\"}", &st);
	ok(jv_array_length(jv_object_get(jv_copy(r), jv_string("prerequisites"))) == 1 &&
	    jv_array_length(jv_object_get(jv_copy(r), jv_string("learning_objectives"))) == 1 &&
	    jv_array_length(jv_object_get(jv_copy(r), jv_string("common_mistakes"))) == 2 &&
	    jv_array_length(jv_object_get(jv_copy(r), jv_string("teaching_strategies"))) == 3 &&
	    jv_array_length(jv_object_get(jv_copy(r), jv_string("related_topics"))) == 0,
	    "curriculum: the fallback has the original's shape 1/1/2/3/0");
	jv_free(r);
	r = call(cc_coach_check_curriculum, "{\"grade_level\":2.5,\"subject\":\"math\",\"topic\":\"addition\"}", &st);
	is_str(str(r, "matched"), "fallback", "curriculum: grade 2.5 misses");
	jv_free(r);
	r = call(cc_coach_check_curriculum, "{\"grade_level\":\"2\",\"subject\":\"math\",\"topic\":\"addition\"}", &st);
	ok(contains(at(r, "error"), "grade_level must be a number"), "curriculum: a grade as text is an error");
	jv_free(r);
	r = call(cc_coach_check_curriculum, "{\"grade_level\":1e300,\"subject\":\"math\",\"topic\":\"addition\"}", &st);
	ok(contains(at(r, "error"), "grade_level"), "curriculum: a huge grade is an error");
	jv_free(r);
	r = call(cc_coach_check_curriculum, "{\"grade_level\":1,\"subject\":\"math\"}", &st);
	is_str(at(r, "error"), "\"missing argument: topic\"", "curriculum: no topic");
	jv_free(r);
	r = call(cc_coach_check_curriculum, "{\"grade_level\":1,\"subject\":[],\"topic\":\"a\"}", &st);
	is_str(at(r, "error"), "\"subject must be a string\"", "curriculum: a subject that is a list");
	jv_free(r);
	is_str(at(st, ""), "{}", "curriculum: the state is never touched");
	jv_free(st);
}

/* ---- manage_hint ---- */

static void
test_hints(void)
{
	jv st = jv_object(), r, before;

	r = call(cc_coach_manage_hint, "{\"action\":\"get_current\"}", &st);
	is_str(at(r, ""), "{\"current_level\":0,\"max_level\":3,\"hint_template\":\"\","
	    "\"can_advance\":true,\"hints_used_total\":0,\"problem_id\":null}",
	    "hint: a fresh session is at level 0 with no template");
	is_str(at(st, ""), "{}", "hint: get_current writes nothing");
	jv_free(r);

	r = call(cc_coach_manage_hint, "{\"action\":\"advance\",\"problem_id\":\"p1\","
	    "\"subject\":\"math\",\"topic\":\"addition_carry\",\"expression\":\"8 + 5\"}", &st);
	is_str(at(r, "current_level"), "1", "hint: advance on a new problem gives level 1");
	is_str(str(r, "hint_template"), cc_texts_get(data.hints, "math.addition_carry.1",
	    "ja", NULL), "hint: the topic's own level-1 text");
	is_str(at(st, "problem.id"), "\"p1\"", "hint: the problem is kept");
	is_str(at(st, "problem.expression"), "\"8 + 5\"", "hint: with its expression");
	jv_free(r);
	r = call(cc_coach_manage_hint, "{\"action\":\"advance\"}", &st);
	is_str(at(r, "current_level"), "2", "hint: no problem_id means the current problem");
	jv_free(r);
	r = call(cc_coach_manage_hint, "{\"action\":\"advance\",\"problem_id\":\"p1\"}", &st);
	is_str(at(r, "current_level"), "3", "hint: the same problem_id keeps its level");
	is_str(at(r, "can_advance"), "false", "hint: level 3 cannot advance");
	is_str(at(st, "problem.hints_used"), "3", "hint: three hints on this problem");
	jv_free(r);
	r = call(cc_coach_manage_hint, "{\"action\":\"advance\",\"problem_id\":\"p1\"}", &st);
	is_str(at(r, "hints_used_total"), "3", "hint: advancing at level 3 counts no hint");
	jv_free(r);

	/* per problem, not per session */
	r = call(cc_coach_manage_hint, "{\"action\":\"get_current\",\"problem_id\":\"p2\","
	    "\"subject\":\"japanese\",\"topic\":\"kanji_grade2\"}", &st);
	is_str(at(r, "current_level"), "0", "hint: a new problem starts at level 0");
	is_str(at(r, "hints_used_total"), "3", "hint: the session's total is kept");
	is_str(at(st, "problem.id"), "\"p2\"", "hint: the new problem is current");
	is_str(at(st, "problem.hints_used"), "0", "hint: with no hints of its own");
	jv_free(r);
	r = call(cc_coach_manage_hint, "{\"action\":\"advance\",\"lang\":\"en\"}", &st);
	is_str(str(r, "hint_template"), cc_texts_get(data.hints, "japanese.kanji.1", "en", NULL),
	    "hint: an alias (kanji_grade2) uses its topic's hints, in English when asked");
	jv_free(r);
	r = call(cc_coach_record_progress, "{\"outcome\":\"hint_solved\"}", &st);
	is_str(at(st, "hint_level"), "0", "hint: solving a problem resets the level");
	is_str(at(st, "problem"), "(absent)", "hint: and ends the problem");
	jv_free(r);
	r = call(cc_coach_manage_hint, "{\"action\":\"advance\",\"problem_id\":\"p3\",\"subject\":\"math\",\"topic\":\"origami\"}", &st);
	is_str(str(r, "hint_template"), cc_texts_get(data.hints, "math.1", "ja", NULL),
	    "hint: a topic without hints gets the subject's");
	jv_free(r);
	r = call(cc_coach_manage_hint, "{\"action\":\"reset\"}", &st);
	is_str(at(r, "current_level"), "0", "hint: reset");
	is_str(at(r, "hint_template"), "\"\"", "hint: level 0 has no template");
	is_str(at(r, "hints_used_total"), "5", "hint: reset keeps the total");
	jv_free(r);

	/* errors leave the state as it was */
	before = jv_copy(st);
	r = call(cc_coach_manage_hint, "{\"action\":\"bogus\",\"problem_id\":\"p9\"}", &st);
	is_str(at(r, ""), "{\"error\":\"Unknown action: bogus\"}", "hint: an unknown action");
	ok(jv_equal(jv_copy(before), jv_copy(st)), "hint: an error changes nothing");
	jv_free(r);
	r = call(cc_coach_manage_hint, "{\"problem_id\":\"p9\"}", &st);
	is_str(at(r, "error"), "\"missing argument: action\"", "hint: no action");
	jv_free(r);
	r = call(cc_coach_manage_hint, "{\"action\":7}", &st);
	is_str(at(r, "error"), "\"action must be a string\"", "hint: an action that is a number");
	jv_free(r);
	r = call(cc_coach_manage_hint, "{\"action\":\"advance\",\"problem_id\":{}}", &st);
	ok(contains(at(r, "error"), "problem_id must be"), "hint: a problem_id that is an object");
	jv_free(r);
	r = call(cc_coach_manage_hint, "{\"action\":\"advance\",\"problem_id\":1.5}", &st);
	ok(contains(at(r, "error"), "problem_id must be"), "hint: a problem_id of 1.5");
	jv_free(r);
	r = call(cc_coach_manage_hint, "{\"action\":\"advance\",\"lang\":\"fr\"}", &st);
	ok(contains(at(r, "error"), "lang must be"), "hint: an unknown language");
	jv_free(r);
	ok(jv_equal(jv_copy(before), jv_copy(st)), "hint: none of the errors changed anything");
	jv_free(before);
	r = call(cc_coach_manage_hint, "{\"action\":\"advance\",\"problem_id\":42}", &st);
	is_str(at(st, "problem.id"), "\"42\"", "hint: a numeric problem_id is kept as text");
	jv_free(r);
	jv_free(st);

	/* levels stored by hand out of range are read as the nearest level */
	st = parse("{\"hint_level\":5}");
	r = call(cc_coach_manage_hint, "{\"action\":\"advance\"}", &st);
	is_str(at(r, "current_level"), "3", "hint: a stored 5 is read as 3");
	is_str(at(r, "can_advance"), "false", "hint: which cannot advance");
	jv_free(r);
	jv_free(st);
	st = parse("{\"hint_level\":-1,\"hints_used_total\":\"many\"}");
	r = call(cc_coach_manage_hint, "{\"action\":\"advance\"}", &st);
	is_str(at(r, "current_level"), "1", "hint: a stored -1 is read as 0");
	is_str(at(r, "hints_used_total"), "1", "hint: a total that is no number is read as 0");
	jv_free(r);
	jv_free(st);
}

/* ---- record_progress ---- */

static const char *
outcome_args(const char *outcome)
{
	static char buf[128];

	snprintf(buf, sizeof buf, "{\"outcome\":\"%s\",\"hints_used\":0}", outcome);
	return buf;
}

static void
test_progress(void)
{
	jv st = jv_object(), r, before;
	const char *outcomes[] = { "self_solved", "hint_solved", "guided_solved", "abandoned" };
	const char *points[] = { "3", "2", "1", "0" };

	for (int i = 0; i < 4; i++) {
		jv s = jv_object();

		r = call(cc_coach_record_progress, outcome_args(outcomes[i]), &s);
		is_str(at(r, "points_earned"), points[i], "progress: %s earns %s", outcomes[i],
		    points[i]);
		ok(*str(r, "encouragement_message"), "progress: %s has encouragement",
		    outcomes[i]);
		jv_free(r);
		jv_free(s);
	}

	/* the streak: solved by the child; guided or abandoned break it */
	r = call(cc_coach_record_progress, "{\"outcome\":\"self_solved\",\"hints_used\":0}", &st);
	is_str(at(r, "streak"), "1", "streak: 1 after the first");
	is_str(str(r, "achievement_unlocked"), cc_texts_get(data.texts,
	    "achievement.first_problem", "ja", NULL), "achievement: the first problem");
	is_str(at(r, "achievements_new.1.id"), "\"self_first\"",
	    "achievement: and solved alone, in the same record");
	jv_free(r);
	r = call(cc_coach_record_progress, "{\"outcome\":\"hint_solved\",\"hints_used\":2}", &st);
	is_str(at(r, "streak"), "2", "streak: hints keep it");
	is_str(at(r, "achievement_unlocked"), "null", "achievement: none this time");
	is_str(at(r, "achievements_new"), "[]", "achievement: no new ones");
	jv_free(r);
	r = call(cc_coach_record_progress, "{\"outcome\":\"guided_solved\",\"hints_used\":3}", &st);
	is_str(at(r, "streak"), "0", "streak: guided breaks it");
	is_str(at(r, "total_points"), "6", "points: 3 + 2 + 1");
	jv_free(r);
	r = call(cc_coach_record_progress, "{\"outcome\":\"self_solved\",\"hints_used\":0}", &st);
	is_str(at(r, "streak"), "1", "streak: starts again");
	jv_free(r);
	r = call(cc_coach_record_progress, "{\"outcome\":\"abandoned\"}", &st);
	is_str(at(r, "streak"), "0", "streak: abandoned breaks it");
	is_str(at(r, "points_earned"), "0", "points: abandoned earns none");
	is_str(at(st, "best_streak"), "2", "streak: the best is kept");
	jv_free(r);
	for (int i = 0; i < 5; i++) {
		r = call(cc_coach_record_progress, "{\"outcome\":\"self_solved\",\"hints_used\":0}", &st);
		if (i == 0)
			ok(contains(at(r, "achievements_new"), "no_hint_3") &&
			    contains(at(r, "achievements_new"), "points_10"),
			    "achievement: three solved without hints, and 10 points (12)");
		if (i == 2)
			ok(contains(at(r, "achievements_new"), "streak_3") &&
			    contains(str(r, "encouragement_message"), "3"),
			    "achievement: three in a row, and the praise says so");
		if (i == 4)
			ok(contains(at(r, "achievements_new"), "streak_5"),
			    "achievement: five in a row");
		jv_free(r);
	}
	r = call(cc_coach_record_progress, "{\"outcome\":\"self_solved\",\"hints_used\":0}", &st);
	ok(!contains(at(r, "achievements_new"), "no_hint_3") &&
	    !contains(at(r, "achievements_new"), "first_problem"),
	    "achievement: each is unlocked once");
	jv_free(r);
	ok(strcmp(at(st, "counts.self_solved"), "8") == 0 &&
	    strcmp(at(st, "counts.hint_solved"), "1") == 0 &&
	    strcmp(at(st, "counts.guided_solved"), "1") == 0 &&
	    strcmp(at(st, "counts.abandoned"), "1") == 0 &&
	    strcmp(at(st, "counts.no_hint"), "8") == 0, "progress: the counts %s",
	    at(st, "counts"));
	is_int(jv_array_length(jv_object_get(jv_copy(st), jv_string("solved"))), 11,
	    "progress: eleven finished problems kept for the recap");

	/* errors change nothing */
	before = jv_copy(st);
	r = call(cc_coach_record_progress, "{\"outcome\":\"bogus\"}", &st);
	is_str(at(r, ""), "{\"error\":\"Unknown outcome: bogus\"}", "progress: an unknown outcome");
	jv_free(r);
	r = call(cc_coach_record_progress, "{\"outcome\":5}", &st);
	is_str(at(r, ""), "{\"error\":\"Unknown outcome: 5\"}", "progress: an outcome that is a number");
	jv_free(r);
	r = call(cc_coach_record_progress, "{}", &st);
	is_str(at(r, "error"), "\"missing argument: outcome\"", "progress: no outcome");
	jv_free(r);
	r = call(cc_coach_record_progress, "{\"outcome\":\"self_solved\",\"hints_used\":\"two\"}", &st);
	ok(contains(at(r, "error"), "hints_used must be a number"), "progress: hints_used as text");
	jv_free(r);
	r = call(cc_coach_record_progress, "{\"outcome\":\"self_solved\",\"hints_used\":-1}", &st);
	ok(contains(at(r, "error"), "hints_used"), "progress: negative hints_used");
	jv_free(r);
	r = call(cc_coach_record_progress, "{\"outcome\":\"self_solved\",\"hints_used\":1e300}", &st);
	ok(contains(at(r, "error"), "hints_used"), "progress: huge hints_used");
	jv_free(r);
	r = call(cc_coach_record_progress, "{\"outcome\":\"self_solved\",\"time_spent_seconds\":[]}", &st);
	ok(contains(at(r, "error"), "time_spent_seconds"), "progress: time as a list");
	jv_free(r);
	r = call(cc_coach_record_progress, "{\"outcome\":\"self_solved\",\"user_id\":{\"a\":1}}", &st);
	ok(contains(at(r, "error"), "user_id"), "progress: a user_id that is an object");
	jv_free(r);
	ok(jv_equal(jv_copy(before), jv_copy(st)), "progress: no error changed the state");
	jv_free(before);
	jv_free(st);

	/* hints and time from the problem when the arguments leave them out */
	st = jv_object();
	r = call_at(cc_coach_manage_hint, "{\"action\":\"advance\",\"problem_id\":\"q\",\"subject\":\"math\"}", &st, t0);
	jv_free(r);
	cc_coach_state_stumble(&st, t0 + 30);
	cc_coach_state_stumble(&st, t0 + 60);
	is_int(cc_coach_state_stumble(&st, t0 + 90), 3, "state: three stumbles");
	r = call_at(cc_coach_record_progress, "{\"outcome\":\"hint_solved\",\"problem_id\":\"q\"}", &st, t0 + 125);
	is_str(at(st, "solved.0.hints_used"), "1", "progress: hints_used from the problem");
	is_str(at(st, "solved.0.time_spent_seconds"), "125", "progress: the time from its start");
	is_str(at(st, "solved.0.stumbles"), "3", "progress: its stumbles");
	is_str(at(st, "counts.persevered"), "1", "progress: solved after 3 stumbles counts as persevered");
	is_str(at(st, "counts.math"), "1", "progress: a math problem");
	ok(contains(at(r, "achievements_new"), "persevered_1"), "achievement: never give up");
	jv_free(r);
	jv_free(st);

	/* the recap is bounded */
	st = jv_object();
	for (int i = 0; i < CC_COACH_MAX_SOLVED + 3; i++) {
		r = call(cc_coach_record_progress, "{\"outcome\":\"self_solved\"}", &st);
		jv_free(r);
	}
	is_int(jv_array_length(jv_object_get(jv_copy(st), jv_string("solved"))),
	    CC_COACH_MAX_SOLVED, "progress: the recap keeps the last %d", CC_COACH_MAX_SOLVED);
	is_str(at(st, "streak"), "503", "progress: the streak counts on");
	jv_free(st);

	/* English */
	st = jv_object();
	r = call(cc_coach_record_progress, "{\"outcome\":\"self_solved\",\"lang\":\"en\"}", &st);
	is_str(str(r, "achievement_unlocked"), "First Step", "progress: titles in English");
	ok(contains(str(r, "encouragement_message"), "You earned the title \"First Step\""),
	    "progress: the praise in English");
	jv_free(r);
	jv_free(st);
}

/* ---- the stage's sessions kept between turns ---- */

/* One turn of the stage's own: load, a change (JSON, or NULL), save. */
static const char *
turn(struct cc_coach_states *c, struct cc_session *s, const char *session,
    const char *set, time_t now)
{
	static char out[4][256];
	static int k;
	char err[256], *o = out[k++ % 4];
	struct cc_coach_recap *recap;
	jv st, before;

	if (cc_coach_states_load(c, s, session, now, &st, &recap, err, sizeof err) < 0) {
		jv_free(st);
		snprintf(o, 256, "error: %s", err);
		return o;
	}
	before = jv_copy(st);
	if (set) {
		jv_free(st);
		st = parse(set);
	}
	snprintf(o, 256, "%s", at(st, ""));
	if (cc_coach_states_save(c, s, session, before, st, now, err, sizeof err) < 0)
		snprintf(o, 256, "error: %s", err);
	jv_free(before);
	return o;
}

static void
test_states(void)
{
	char dir[] = "/tmp/cc-test-states.XXXXXX", err[256], cmd[300], *json;
	struct cc_config cfg;
	struct cc_session *a, *b;
	struct cc_coach_states *c = cc_coach_states_new(2, 1 << 20);
	time_t when = 0;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	setenv("CC_STATE_DIR", dir, 1);
	cc_config_load(&cfg);
	a = cc_session_open(&cfg, 0, err, sizeof err);
	b = cc_session_open(&cfg, 0, err, sizeof err);
	ok(a && b, "kept: two connections to one store");
	if (!a || !b)
		return;
	is_str(turn(c, a, "s1", "{\"n\":1}", t0), "{\"n\":1}", "kept: a new session starts from {}");
	is_str(turn(c, a, "s1", NULL, t0), "{\"n\":1}", "kept: the next turn sees it");
	is_int(cc_session_flush(a), 0, "kept: committed");
	is_int(cc_session_state_get(b, "s1", "coach", &json, NULL), 1, "kept: stored");
	is_str(json, "{\"n\":1}", "kept: as it was");
	free(json);
	is_int(cc_session_state_put(b, "s1", "coach", "{\"n\":5,\"emotion\":{}}", t0), 0,
	    "kept: another process writes it");
	is_int(cc_session_flush(b), 0, "kept: and commits");
	is_str(turn(c, a, "s1", NULL, t0 + 60), "{\"n\":5}",
	    "kept: its write is read, without a hand-kept emotion");
	is_int(cc_session_state_get(b, "s1", "coach", &json, &when), 1, "kept: still there");
	ok(when == t0, "kept: a turn that changes nothing writes nothing");
	free(json);
	is_str(turn(c, a, "s2", "{\"n\":2}", t0), "{\"n\":2}", "kept: a second session");
	is_str(turn(c, a, "s3", "{\"n\":3}", t0), "{\"n\":3}", "kept: a third, the first given up");
	is_str(turn(c, a, "s1", NULL, t0), "{\"n\":5}", "kept: and read again from the store");
	is_int(cc_session_flush(a), 0, "kept: committed");
	{
		/* kept as fields: read from the store again when another writes it */
		struct cc_coach_states *cf = cc_coach_states_new(4, 1 << 20);
		struct cc_coach_fields *f = NULL;
		struct cc_coach_recap *recap;
		struct cc_coach_done done = {0};
		struct cc_buf o = {0};
		struct cc_jw w;
		jv st;

		cc_coach_states_use_fields(cf, 1);
		is_int(cc_coach_states_load_fields(cf, a, "s5", t0, &st, &f, &recap, err,
		    sizeof err), 0, "kept fields: a new session");
		ok(f && recap, "kept fields: as fields");
		cc_jw_init(&w, &o);
		cc_coach_turn_fields(&data, "2+3は？", strlen("2+3は？"), "ja", f, t0, recap,
		    &done, &w);
		is_int(cc_coach_states_save_fields(cf, a, "s5", 1, &done, t0, err, sizeof err),
		    0, "kept fields: saved");
		is_int(cc_session_flush(a), 0, "kept fields: committed");
		is_int(cc_session_state_put(b, "s5", "coach", "{\"total_points\":7}", t0), 0,
		    "kept fields: another process writes it");
		is_int(cc_session_flush(b), 0, "kept fields: and commits");
		f = NULL;
		done.n = 0;
		is_int(cc_coach_states_load_fields(cf, a, "s5", t0, &st, &f, &recap, err,
		    sizeof err), 0, "kept fields: loaded again");
		ok(f && f->n == 1 && f->num[F_TOTAL_POINTS] == 7 &&
		    !cc_coach_fields_has(f, F_PROBLEM), "kept fields: the other's write is read");
		is_int(cc_coach_states_save_fields(cf, a, "s5", 0, &done, t0, err, sizeof err),
		    0, "kept fields: saved");
		is_int(cc_session_flush(a), 0, "kept fields: committed");
		jv_free(st);
		cc_buf_release(&o);
		cc_buf_release(&done.text);
		cc_coach_states_free(cf);
	}
	is_int(cc_session_state_put(b, "s4", "coach", "[1]", t0), 0, "kept: a state that is no object");
	is_int(cc_session_flush(b), 0, "kept: committed by the other");
	is_str(turn(c, a, "s4", NULL, t0), "error: the session's stored coach state is not a JSON object",
	    "kept: is an error");
	is_int(cc_session_flush(a), 0, "kept: released");
	cc_coach_states_free(c);
	cc_session_close(a);
	cc_session_close(b);
	cc_config_release(&cfg);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ok(system(cmd) == 0, "kept: cleaned up");
	unsetenv("CC_STATE_DIR");
}


/* ---- the turn on fields against the turn on jv ---- */

/*
 * A tutoring script that reaches every branch of a turn: new problems,
 * wrong and right answers, being stuck, asking for the answer, a problem
 * left after trying, recitation, English, and points, streaks and
 * achievements enough to unlock several.
 */
static const char *const script[] = {
	"23+45は？", "67", "わからない", "68", "9*7は？", "63", "15-9は？",
	"こたえおしえて", "5", "6", "56/8は？", "わからない", "71-38は？", "33",
	"17/5は？", "3あまり2", "くしち ろくじゅうさん", "what is 4 + 4?",
	"I don't know", "8", "100-37は？", "63", "80-45は？", "35", "2+3は？",
	"5", "4+8は？", "12", "6+7は？", "13", "もういいや", "8+9は？", "17",
	"ギブアップ", "こんにちは", "30-1は？", "29", "30-1は？", "28", "29",
};
#define NSCRIPT (sizeof script / sizeof script[0])
#define NFS 3

/* A jv turn as the stage's kept path does it: its "solved" to the recap. */
static void
jv_turn(jv *st, struct cc_coach_recap *r, const char *said, time_t now,
    struct cc_buf *out, struct cc_buf *entries)
{
	struct cc_jw w;
	jv solved;

	cc_jw_init(&w, out);
	cc_coach_turn(&data, said, strlen(said), "ja", st, now, r, &w);
	solved = jv_object_get(jv_copy(*st), jv_string("solved"));
	if (jv_get_kind(solved) == JV_KIND_ARRAY)
		jv_array_foreach(solved, i, e) {
			cc_json_put(entries, e);
			cc_buf_add(entries, "\n", 1);
			cc_coach_recap_add(r, e);
			jv_free(e);
		}
	jv_free(solved);
	*st = jv_object_delete(*st, jv_string("solved"));
}

static void
test_fields(void)
{
	jv js[NFS], stored;
	struct cc_coach_fields fs[NFS];
	struct cc_coach_recap rj[NFS], rf[NFS];
	struct cc_coach_done done = {0};
	struct cc_buf a = {0}, b = {0}, ea = {0}, eb = {0};
	struct cc_jw w;
	time_t now = t0;
	int turns = 0, same_out = 1, same_state = 1, same_entries = 1, first = -1;

	memset(rj, 0, sizeof rj);
	memset(rf, 0, sizeof rf);
	for (int k = 0; k < NFS; k++) {
		js[k] = jv_object();
		cc_coach_fields_from_jv(&fs[k], js[k]);
		rj[k].kept = rf[k].kept = 1;
	}
	for (int round = 0; round < 4; round++)
		for (size_t i = 0; i < NSCRIPT; i++)
			for (int k = 0; k < NFS; k++) {
				const char *said = script[(i + (size_t)k * 7) % NSCRIPT];

				/* now and then a pause long enough to start work again */
				now += (i + (size_t)k) % 13 == 12 ? 700 : 31;
				a.len = b.len = ea.len = eb.len = 0;
				jv_turn(&js[k], &rj[k], said, now, &a, &ea);
				cc_jw_init(&w, &b);
				cc_coach_turn_fields(&data, said, strlen(said), "ja", &fs[k], now,
				    &rf[k], &done, &w);
				for (int d = 0; d < done.n; d++) {
					jv e = parse(done.text.data + done.off[d]);

					cc_buf_add(&eb, done.text.data + done.off[d],
					    strlen(done.text.data + done.off[d]));
					cc_buf_add(&eb, "\n", 1);
					cc_coach_recap_add(&rf[k], e);
					jv_free(e);
				}
				if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
					same_out = 0;
				if (ea.len != eb.len || (ea.len && memcmp(ea.data, eb.data, ea.len) != 0))
					same_entries = 0;
				a.len = b.len = 0;
				cc_json_put(&a, js[k]);
				cc_jw_init(&w, &b);
				cc_coach_fields_write(&fs[k], &w);
				if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
					same_state = 0;
				if (!(same_out && same_state && same_entries) && first < 0)
					first = turns;
				turns++;
			}
	ok(same_out, "fields: %d turns in %d sessions, the same record member as on jv "
	    "(first difference at turn %d)", turns, NFS, first);
	ok(same_state, "fields: the same state text after every turn");
	ok(same_entries, "fields: the same finished problems for the history");
	a.len = 0;
	cc_json_put(&a, js[0]);
	is_str(a.data[0] ? strstr(a.data, "\"achievements\"") ? "has" : "none" : "", "has",
	    "fields: the script unlocks achievements");

	/* a stored state's own member order is kept, and a turn on it is the same */
	jv_free(js[0]);
	cc_coach_fields_release(&fs[0]);
	js[0] = parse("{\"problem\":{\"expression\":\"2+3\",\"id\":\"math:2+3\","
	    "\"subject\":\"math\",\"stumbles\":1,\"started_at\":\"2025-01-15T00:58:00Z\"},"
	    "\"streak\":2,\"counts\":{\"math\":1},\"hint_level\":1,"
	    "\"last_activity_at\":\"2025-01-15T00:59:00Z\"}");
	is_int(cc_coach_fields_from_jv(&fs[0], js[0]), 0, "fields: a state in another order");
	a.len = b.len = ea.len = eb.len = 0;
	jv_turn(&js[0], &rj[0], "5", t0, &a, &ea);
	cc_jw_init(&w, &b);
	cc_coach_turn_fields(&data, "5", 1, "ja", &fs[0], t0, &rf[0], &done, &w);
	ok(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "fields: its turn's member");
	a.len = b.len = 0;
	cc_json_put(&a, js[0]);
	cc_jw_init(&w, &b);
	cc_coach_fields_write(&fs[0], &w);
	is_str(b.data, a.data, "fields: its state, in its order, the new members last");
	cc_coach_fields_release(&fs[1]);
	stored = parse("{\"total_points\":3,\"grade_level\":3}");
	is_int(cc_coach_fields_from_jv(&fs[1], stored), -1,
	    "fields: a member the coach does not write stays a jv");
	jv_free(stored);
	stored = parse("{\"total_points\":2.5}");
	is_int(cc_coach_fields_from_jv(&fs[1], stored), -1, "fields: so does a fraction");
	jv_free(stored);
	stored = parse("{\"hint_level\":1,\"hint_level\":2}");
	cc_coach_fields_from_jv(&fs[1], stored);
	a.len = b.len = 0;
	cc_json_put(&a, stored);
	cc_jw_init(&w, &b);
	cc_coach_fields_write(&fs[1], &w);
	is_str(b.data, a.data, "fields: a member given twice is written once");
	jv_free(stored);
	for (int k = 0; k < NFS; k++) {
		jv_free(js[k]);
		cc_coach_fields_release(&fs[k]);
		cc_coach_recap_release(&rj[k]);
		cc_coach_recap_release(&rf[k]);
	}
	cc_buf_release(&a);
	cc_buf_release(&b);
	cc_buf_release(&ea);
	cc_buf_release(&eb);
	cc_buf_release(&done.text);
}

/* ---- the state helpers ---- */

static void
test_state(void)
{
	jv st = jv_object(), p;

	cc_coach_state_touch(&st, t0);
	is_int(cc_coach_state_work_minutes(st, t0 + 5 * 60), 5, "work: five minutes in");
	cc_coach_state_touch(&st, t0 + 9 * 60);
	cc_coach_state_touch(&st, t0 + 16 * 60);
	is_int(cc_coach_state_work_minutes(st, t0 + 16 * 60), 16,
	    "work: sixteen minutes with no long pause");
	is_int(cc_coach_state_work_minutes(st, t0 + 27 * 60), 0,
	    "work: none after a pause of ten minutes or more");
	cc_coach_state_touch(&st, t0 + 27 * 60);
	is_int(cc_coach_state_work_minutes(st, t0 + 30 * 60), 3,
	    "work: a new stretch after the pause");

	p = parse("{\"id\":\"a\",\"subject\":\"math\"}");
	is_int(cc_coach_state_set_problem(&st, p, t0), 1, "problem: a new one");
	is_int(cc_coach_state_set_problem(&st, p, t0), 0, "problem: the same one");
	jv_free(p);
	p = parse("{\"id\":\"a\",\"topic\":\"addition\"}");
	is_int(cc_coach_state_set_problem(&st, p, t0), 0, "problem: the same one, more said");
	is_str(at(st, "problem.subject"), "\"math\"", "problem: keeps what it knew");
	is_str(at(st, "problem.topic"), "\"addition\"", "problem: and learns the topic");
	jv_free(p);
	p = parse("{\"subject\":\"math\"}");
	is_int(cc_coach_state_set_problem(&st, p, t0), -1, "problem: no id");
	jv_free(p);
	is_int(cc_coach_state_stumble(&st, t0), 1, "problem: a stumble");
	jv_free(st);
	st = jv_string("not a state");
	is_int(cc_coach_state_stumble(&st, t0), 0, "problem: no stumble without a problem");
	is_str(at(st, ""), "{}", "state: what is not an object becomes {}");
	jv_free(st);
}

/* ---- the report ---- */

static void
test_report(void)
{
	jv st = jv_object(), r, rep;
	struct cc_buf b = {0};
	time_t yesterday = t0 - 86400;

	rep = cc_coach_report(&data, st, "s1", t0, "ja");
	is_str(at(rep, "problems_total"), "0", "report: an empty session");
	is_str(str(rep, "message"), cc_texts_get(data.texts, "report.message.none", "ja", NULL),
	    "report: the sentence for no problems");
	cc_coach_report_write(&data, rep, CC_COACH_TEXT, &b);
	ok(contains(b.data, cc_texts_get(data.texts, "report.none", "ja", NULL)),
	    "report: text says there is nothing yet");
	jv_free(rep);

	r = call_at(cc_coach_record_progress, "{\"outcome\":\"self_solved\",\"subject\":\"math\",\"expression\":\"1 + 1\"}", &st, yesterday);
	jv_free(r);
	r = call(cc_coach_record_progress, "{\"outcome\":\"hint_solved\",\"hints_used\":2,\"subject\":\"japanese\",\"text\":\"「森」を書こう\"}", &st);
	jv_free(r);
	r = call(cc_coach_record_progress, "{\"outcome\":\"self_solved\",\"hints_used\":0,\"subject\":\"math\",\"expression\":\"23 + 45\",\"time_spent_seconds\":90}", &st);
	jv_free(r);
	r = call(cc_coach_record_progress, "{\"outcome\":\"guided_solved\",\"hints_used\":3,\"subject\":\"science\",\"text\":\"\\u001b[31mred*\"}", &st);
	jv_free(r);
	rep = cc_coach_report(&data, st, "s1", t0, "ja");
	is_str(at(rep, "date"), "\"2025-01-15\"", "report: today in CC_TZ");
	is_str(at(rep, "problems_total"), "3", "report: only today's problems");
	is_str(at(rep, "subjects.0.subject"), "\"math\"", "report: math first");
	is_str(at(rep, "subjects.1.subject"), "\"japanese\"", "report: then Japanese");
	is_str(at(rep, "subjects.2.name"), "\"その他\"", "report: then the others");
	is_str(at(rep, "points_today"), "6", "report: today's points");
	is_str(at(rep, "total_points"), "9", "report: all points");
	is_str(at(rep, "hints_used_today"), "5", "report: today's hints");
	is_str(at(rep, "minutes_today"), "2", "report: today's minutes (90 s)");
	is_str(at(rep, "subjects.0.self_solved"), "1", "report: by outcome");
	is_str(str(rep, "message"), cc_texts_get(data.texts, "report.message.guided", "ja", NULL),
	    "report: the sentence for a problem done together");
	ok(contains(at(rep, "achievements"), "first_problem") == 0,
	    "report: yesterday's title is not today's");
	b.len = 0;
	cc_coach_report_write(&data, rep, CC_COACH_TEXT, &b);
	ok(contains(b.data, "今日の学習レポート（2025年1月15日）"), "report text: the title");
	ok(contains(b.data, "算数：1問（自分で1問）、ヒント0回、3ポイント"), "report text: the math line");
	ok(contains(b.data, "  - 23 + 45：自分で解けました（ヒント0回、3ポイント）"),
	    "report text: a problem");
	ok(contains(b.data, "^[[31mred*") && !contains(b.data, "\033"),
	    "report text: control characters are escaped");
	ok(!contains(b.data, "1 + 1"), "report text: yesterday is left out");
	b.len = 0;
	cc_coach_report_write(&data, rep, CC_COACH_MARKDOWN, &b);
	ok(contains(b.data, "# 今日の学習レポート"), "report markdown: a heading");
	ok(contains(b.data, "## 算数"), "report markdown: a heading per subject");
	ok(contains(b.data, "- 23 + 45："), "report markdown: a list item");
	ok(contains(b.data, "red\\*"), "report markdown: emphasis characters escaped");
	ok(contains(b.data, "> ひとこと："), "report markdown: the closing as a quote");
	b.len = 0;
	cc_coach_report_write(&data, rep, CC_COACH_JSON, &b);
	{
		jv back = cc_json_parse(b.data, b.len);

		ok(jv_equal(jv_copy(back), jv_copy(rep)), "report json: the report object itself");
		jv_free(back);
	}
	jv_free(rep);
	rep = cc_coach_report(&data, st, "s1", t0, "en");
	b.len = 0;
	cc_coach_report_write(&data, rep, CC_COACH_TEXT, &b);
	ok(contains(b.data, "Today's study report (2025-01-15)") &&
	    contains(b.data, "Math: 1 problem(s) (1 on their own)"), "report text: in English");
	jv_free(rep);
	jv_free(st);

	/* the sentence chosen */
	{
		static const struct { const char *outcomes[3]; const char *key; } cases[] = {
			{ { "self_solved", "self_solved", NULL }, "report.message.self" },
			{ { "self_solved", "hint_solved", NULL }, "report.message.hints" },
			{ { "hint_solved", "abandoned", "guided_solved" }, "report.message.abandoned" },
		};

		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			st = jv_object();
			for (int k = 0; k < 3 && cases[i].outcomes[k]; k++) {
				r = call(cc_coach_record_progress, outcome_args(cases[i].outcomes[k]), &st);
				jv_free(r);
			}
			rep = cc_coach_report(&data, st, NULL, t0, "ja");
			is_str(str(rep, "message"), cc_texts_get(data.texts, cases[i].key, "ja", NULL),
			    "report: %s", cases[i].key);
			jv_free(rep);
			jv_free(st);
		}
	}
	st = jv_object();
	for (int k = 0; k < 3; k++) {
		r = call(cc_coach_record_progress, outcome_args("self_solved"), &st);
		jv_free(r);
	}
	rep = cc_coach_report(&data, st, NULL, t0, "ja");
	ok(contains(str(rep, "message"), "3問続けて正解"), "report: three in a row is said");
	jv_free(rep);
	jv_free(st);
	cc_buf_release(&b);
}

/* ---- a session's recap counts as the history does ---- */

/*
 * A kept session's turn: its state has no "solved" but what the turn
 * added, which the stage then appends to the history (cc_coach_states_save).
 */
static void
recap_absorb(struct cc_coach_recap *r, jv *st)
{
	jv added = jv_object_get(jv_copy(*st), jv_string("solved"));

	if (jv_get_kind(added) == JV_KIND_ARRAY)
		jv_array_foreach(added, i, e) {
			cc_coach_recap_add(r, e);
			jv_free(e);
		}
	jv_free(added);
	*st = jv_object_delete(*st, jv_string("solved"));
}

static void
test_recap(void)
{
	struct cc_coach_recap recap = {0};
	struct cc_buf b1 = {0}, b2 = {0};
	jv st1 = jv_object(), st2, solved = jv_array();
	int same = 1, turns = 0;
	char q[32];

	/* 498 finished: yesterday's and today's, some abandoned */
	for (int i = 0; i < 498; i++) {
		jv e = jv_object();

		e = jv_object_set(e, jv_string("outcome"), jv_string(i % 3 ? "self_solved" :
		    "abandoned"));
		e = jv_object_set(e, jv_string("at"), cc_coach_time_jv(i % 2 ? t0 : t0 - 86400));
		cc_coach_recap_add(&recap, e);
		solved = jv_array_append(solved, e);
	}
	recap.kept = 1;
	/* the kept turn's state holds none of them: the recap does */
	st2 = jv_object_set(jv_copy(st1), jv_string("solved"), solved);
	for (int i = 0; i < 12; i++)
		for (int k = 0; k < 3; k++) {
			struct cc_jw w1, w2;

			/* a problem, a wrong answer (no change), the right one */
			snprintf(q, sizeof q, k == 0 ? "%d+1" : k == 1 ? "%d" : "%d",
			    k == 1 ? i + 7 : i + (k == 2));
			b1.len = b2.len = 0;
			cc_jw_init(&w1, &b1);
			cc_jw_init(&w2, &b2);
			cc_coach_turn(&data, q, strlen(q), "ja", &st1, t0 + i * 60, &recap, &w1);
			recap_absorb(&recap, &st1);
			cc_coach_turn(&data, q, strlen(q), "ja", &st2, t0 + i * 60, NULL, &w2);
			same &= b1.len == b2.len && memcmp(b1.data, b2.data, b1.len) == 0;
			turns++;
		}
	is_int(same, 1, "recap: %d turns over the 500 kept, the count of a full reading", turns);
	is_int(recap.n, CC_COACH_MAX_SOLVED, "recap: the history keeps the newest %d",
	    CC_COACH_MAX_SOLVED);
	is_int((int)cc_coach_get_int(st1, "total_points", 0, 1000, 0), 24,
	    "recap: every problem solved, after a hint (2 points each)");
	ok(strstr(b1.data, "\"solved_today\":175,") != NULL,
	    "recap: today's count with the oldest dropped");
	cc_coach_recap_release(&recap);
	cc_buf_release(&b1);
	cc_buf_release(&b2);
	jv_free(st1);
	jv_free(st2);
}

/* ---- the turn's direct calls are the tools' ---- */

static void
test_steps(void)
{
	static const char *const states[] = {
		"{}", "[]", "{\"problem\":5,\"achievements\":\"x\",\"solved\":{}}",
		"{\"problem\":{\"id\":\"p1\",\"subject\":\"math\",\"topic\":\"addition\"},"
		"\"hint_level\":2,\"achievements\":[\"first_problem\",{\"id\":5},null]}",
		"{\"problem\":{\"id\":\"p1\",\"stumbles\":\"x\"},\"hint_level\":9}",
		"{\"problem\":{\"id\":7},\"counts\":{\"self_solved\":9},\"streak\":2}",
	};
	static const char *const pids[] = {
		"p1", "p2", "",
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", NULL,
	};
	static const char *const outcomes[] = { "self_solved", "guided_solved", "abandoned" };
	int same = 0, n = 0;

	for (size_t s = 0; s < sizeof states / sizeof states[0]; s++)
		for (size_t p = 0; p < sizeof pids / sizeof pids[0]; p++)
			for (int k = 0; k < 5; k++) {
				jv a = jv_object(), st1 = parse(states[s]), st2 = jv_copy(st1), r1, r2;
				jv st3 = jv_copy(st1);
				const char *lang = k % 2 ? "en" : "ja";
				struct cc_buf wb = {0};
				struct cc_jw w;
				int rc;

				if (pids[p])
					a = jv_object_set(a, jv_string("problem_id"), jv_string(pids[p]));
				a = jv_object_set(a, jv_string("lang"), jv_string(lang));
				if (k < 2) {
					a = jv_object_set(a, jv_string("action"),
					    jv_string(k ? "advance" : "get_current"));
					struct cc_coach_hint h;

					r1 = cc_coach_manage_hint(&data, a, &st1, t0);
					r2 = cc_coach_hint_step_jv(&data, k, pids[p], lang, &st2, t0);
					cc_jw_init(&w, &wb);
					if ((rc = cc_coach_hint_step(&data, k, pids[p], lang, &st3, t0,
					    &h)) == 0) {
						cc_coach_hint_write(&h, &w);
						cc_coach_hint_release(&h);
					}
				} else {
					a = jv_object_set(a, jv_string("outcome"),
					    jv_string(outcomes[k - 2]));
					r1 = cc_coach_record_progress(&data, a, &st1, t0);
					struct cc_coach_progress pr;

					r2 = cc_coach_progress_step_jv(&data, outcomes[k - 2],
					    pids[p], lang, &st2, t0);
					cc_jw_init(&w, &wb);
					if ((rc = cc_coach_progress_step(&data, outcomes[k - 2], pids[p],
					    lang, &st3, t0, &pr)) == 0) {
						cc_coach_progress_write(&pr, &w);
						cc_coach_progress_release(&pr);
					}
				}
				/* the same text: the members in the same order too */
				same += strcmp(at(r1, ""), at(r2, "")) == 0 &&
				    strcmp(at(st1, ""), at(st2, "")) == 0 &&
				    strcmp(at(st1, ""), at(st3, "")) == 0 &&
				    (rc < 0 ? cc_coach_is_error(r1) :
				    strcmp(at(r1, ""), wb.data ? wb.data : "") == 0);
				n++;
				cc_buf_release(&wb);
				jv_free(r1);
				jv_free(r2);
				jv_free(st1);
				jv_free(st2);
				jv_free(st3);
				jv_free(a);
			}
	is_int(same, n, "steps: the turn's direct calls give the tools' results and states, "
	    "written or built");
}

/* ---- nothing crashes ---- */

static void
test_hostile(void)
{
	static const char *const args[] = {
		"[]", "\"advance\"", "null", "42", "{}", "{\"action\":null}",
		"{\"action\":\"advance\",\"problem_id\":\"\"}",
		"{\"action\":\"advance\",\"problem_id\":1e300}",
		"{\"action\":\"advance\",\"problem_id\":-0}",
		"{\"action\":\"advance\",\"subject\":{},\"problem_id\":\"x\"}",
		"{\"outcome\":\"self_solved\",\"time_spent_seconds\":1e400}",
		"{\"outcome\":\"self_solved\",\"hints_used\":1e-300,\"problem_id\":\"x\"}",
		"{\"outcome\":\"self_solved\",\"problem_id\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}",
		"{\"grade_level\":-1e9,\"subject\":\"math\",\"topic\":\"addition\"}",
		"{\"grade_level\":3,\"subject\":\"math\",\"topic\":\"\\u0000\"}",
		"{\"action\":\"get_current\",\"lang\":5}",
	};
	static const char *const states[] = {
		"{}", "[]", "\"x\"", "null",
		"{\"hint_level\":\"x\",\"problem\":5,\"solved\":{},\"counts\":[],"
		"\"achievements\":\"x\",\"total_points\":1e308,\"streak\":-5}",
		"{\"problem\":{\"id\":7,\"hints_used\":1e300,\"started_at\":\"never\","
		"\"stumbles\":\"x\"},\"achievements\":[1,null,{\"id\":5}],"
		"\"solved\":[1,{\"outcome\":5},{\"outcome\":\"self_solved\",\"at\":\"x\"}]}",
		"{\"total_points\":-1e308,\"best_streak\":1e99,\"last_activity_at\":5,"
		"\"work_started_at\":\"2099-01-01T00:00:00Z\"}",
	};
	cc_coach_tool_fn *const fns[] = {
		cc_coach_manage_hint, cc_coach_check_curriculum, cc_coach_record_progress,
	};
	int n = 0;

	for (size_t s = 0; s < sizeof states / sizeof states[0]; s++)
		for (size_t a = 0; a < sizeof args / sizeof args[0]; a++)
			for (size_t f = 0; f < 3; f++) {
				jv st = parse(states[s]), r = call(fns[f], args[a], &st), rep;
				struct cc_buf b = {0};

				n += jv_get_kind(r) == JV_KIND_OBJECT;
				rep = cc_coach_report(&data, st, "x", t0, "ja");
				cc_coach_report_write(&data, rep, CC_COACH_MARKDOWN, &b);
				cc_buf_release(&b);
				jv_free(rep);
				jv_free(r);
				jv_free(st);
			}
	is_int(n, (int)(sizeof states / sizeof states[0] * sizeof args / sizeof args[0] * 3),
	    "hostile: every call on every state gives an object, and the report survives");
}

int
main(void)
{
	char err[512];
	const char *dd = getenv("CC_DATADIR");
	size_t n;

	if (!dd) {
		fprintf(stderr, "CC_DATADIR is not set: run through make check\n");
		return 99;
	}
	n = strlen(dd) + sizeof "/homework-coach";
	datadir = cc_xmalloc(n);
	snprintf(datadir, n, "%s/homework-coach", dd);
	if (cc_tz_use("Asia/Tokyo") < 0 ||
	    cc_time_parse_iso8601("2025-01-15T10:00:00+09:00", &t0) < 0)
		return 99;
	if (cc_coach_data_load(&data, datadir, err, sizeof err) < 0) {
		fprintf(stderr, "%s\n", err);
		return 99;
	}
	test_data();
	test_loaders();
	test_curriculum();
	test_hints();
	test_progress();
	test_state();
	test_states();
	test_fields();
	test_steps();
	test_recap();
	test_report();
	test_hostile();
	cc_coach_data_release(&data);
	free(datadir);
	return tap_done();
}
