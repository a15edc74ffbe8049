/*
 * coach-calc: a test driver for the coach's arithmetic (lib/coach/cc_calc.h),
 * one input line at a time, so shell tests can compare it with other
 * evaluators and measure it.
 *
 *   coach-calc eval       an expression a line: "REPR<TAB>%.17g" of its
 *                         value, or "invalid<TAB>syntax|divzero|range"
 *   coach-calc number     a number in words a line: its value, or "none"
 *   coach-calc words      an utterance a line: "EXPR<TAB>ANSWER<TAB>R"
 *                         (empty fields when none; R 1 for a 九九 line)
 *   coach-calc states     "ANSWER<TAB>TEXT" a line: 1 if TEXT states ANSWER
 *   coach-calc verify [HINTS]  calculate_and_verify's JSON arguments a line:
 *                         its result, compact
 *   coach-calc bench N    the microseconds per call of each function on a
 *                         fixed set of inputs, N rounds
 *
 * Exits 0, or 2 on a usage error.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_texts.h"
#include "coach/cc_calc.h"

static const char *const status_name[] = { "ok", "syntax", "divzero", "range" };

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Microseconds per call of each function, on inputs like a session's. */
static int
bench(long rounds, const struct cc_texts *hints)
{
	static const char *const exprs[] = {
		"23 + 45", "2+3*4", "１０÷４", "(12-4)*3/2", "0.1+0.2", "7×8", "52-28", "1.2.3",
	};
	static const char *const utterances[] = {
		"さんじゅうはちたすにじゅうよん", "37ひく19はいくつ？", "what's 6 times 8",
		"くしちろくじゅうさん", "こたえは15だとおもう", "3ばんのもんだいがわからない",
	};
	static const char *const replies[] = {
		"一のくらいを たすと 10を こえるね。10の まとまりが できたら、となりの くらいに 1 ふやすんだったね。",
		"ひっさんで 一のくらいから たしてみよう。3 と 5 を たすと 10を こえるかな？",
	};
	enum { NE = sizeof exprs / sizeof *exprs, NU = sizeof utterances / sizeof *utterances,
	    NR = sizeof replies / sizeof *replies };
	struct cc_calc_utterance u;
	struct cc_calc_check c;
	double t0, v, sink = 0;
	char num[CC_CALC_NUMLEN];
	jv args[NE];

	for (size_t k = 0; k < NE; k++) {
		args[k] = jv_object();
		args[k] = jv_object_set(args[k], jv_string("expression"), jv_string(exprs[k]));
		args[k] = jv_object_set(args[k], jv_string("child_answer"), jv_string("67"));
		args[k] = jv_object_set(args[k], jv_string("grade_level"), jv_number(2));
	}
	t0 = now();
	for (long r = 0; r < rounds; r++)
		for (size_t k = 0; k < NE; k++) {
			cc_calc_eval(exprs[k], strlen(exprs[k]), &v, NULL, 0);
			sink += v;
		}
	printf("cc_calc_eval         %8.3f us\n", (now() - t0) * 1e6 / (rounds * NE));
	t0 = now();
	for (long r = 0; r < rounds; r++)
		for (size_t k = 0; k < NE; k++)
			sink += strlen(cc_calc_format(k * 0.1 + r, num));
	printf("cc_calc_format       %8.3f us\n", (now() - t0) * 1e6 / (rounds * NE));
	t0 = now();
	for (long r = 0; r < rounds; r++)
		for (size_t k = 0; k < NE; k++) {
			cc_calc_check(exprs[k], strlen(exprs[k]), "67", 2, &c);
			sink += c.mistake;
		}
	printf("cc_calc_check        %8.3f us\n", (now() - t0) * 1e6 / (rounds * NE));
	t0 = now();
	for (long r = 0; r < rounds; r++)
		for (size_t k = 0; k < NE; k++) {
			jv out = cc_calc_verify(hints, args[k]);

			sink += jv_get_kind(out);
			jv_free(out);
		}
	printf("cc_calc_verify       %8.3f us (a wrong answer, with its hint)\n",
	    (now() - t0) * 1e6 / (rounds * NE));
	t0 = now();
	for (long r = 0; r < rounds; r++)
		for (size_t k = 0; k < NU; k++)
			sink += cc_calc_from_words(utterances[k], strlen(utterances[k]), &u);
	printf("cc_calc_from_words   %8.3f us\n", (now() - t0) * 1e6 / (rounds * NU));
	t0 = now();
	for (long r = 0; r < rounds; r++)
		for (size_t k = 0; k < NR; k++)
			sink += cc_calc_states_value(replies[k], strlen(replies[k]), "68");
	printf("cc_calc_states_value %8.3f us (a %zu-byte reply)\n",
	    (now() - t0) * 1e6 / (rounds * NR), strlen(replies[0]));
	for (size_t k = 0; k < NE; k++)
		jv_free(args[k]);
	return sink == -1;	/* keeps the loops from being optimised away */
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	struct cc_texts *hints = NULL;
	char *line = NULL, err[256];
	size_t cap = 0;
	ssize_t n;

	cc_set_progname(argv[0]);
	if (strcmp(mode, "verify") == 0 && argc > 2 &&
	    !(hints = cc_texts_load(argv[2], err, sizeof err)))
		cc_die(CC_EXIT_USAGE, "%s", err);
	if (strcmp(mode, "bench") == 0) {
		long rounds = argc > 2 ? atol(argv[2]) : 10000;

		if (argc > 3 && !(hints = cc_texts_load(argv[3], err, sizeof err)))
			cc_die(CC_EXIT_USAGE, "%s", err);
		n = bench(rounds > 0 ? rounds : 1, hints);
		cc_texts_free(hints);
		return (int)n;
	}
	if (strcmp(mode, "eval") && strcmp(mode, "words") && strcmp(mode, "states") &&
	    strcmp(mode, "verify") && strcmp(mode, "number")) {
		fprintf(stderr, "usage: coach-calc eval|number|words|states|verify [HINTS]|bench N [HINTS]\n");
		return CC_EXIT_USAGE;
	}
	while ((n = getline(&line, &cap, stdin)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (strcmp(mode, "eval") == 0) {
			char buf[CC_CALC_NUMLEN];
			double v;
			int st = cc_calc_eval(line, (size_t)n, &v, NULL, 0);

			if (st == CC_CALC_OK)
				printf("%s\t%.17g\n", cc_calc_format(v, buf), v);
			else
				printf("invalid\t%s\n", status_name[st]);
		} else if (strcmp(mode, "number") == 0) {
			char buf[CC_CALC_NUMLEN];
			double v;

			if (cc_calc_read_number(line, (size_t)n, &v) == 0)
				printf("%s\n", cc_calc_format(v, buf));
			else
				printf("none\n");
		} else if (strcmp(mode, "words") == 0) {
			struct cc_calc_utterance u;

			cc_calc_from_words(line, (size_t)n, &u);
			printf("%s\t%s\t%d\n", u.expr, u.answer, u.recitation);
		} else if (strcmp(mode, "states") == 0) {
			char *tab = strchr(line, '\t');

			if (!tab) {
				printf("?\n");
				continue;
			}
			*tab = '\0';
			printf("%d\n", cc_calc_states_value(tab + 1, strlen(tab + 1), line));
		} else {
			jv args = cc_json_parse(line, (size_t)n), out;
			struct cc_buf b = {0};

			out = cc_calc_verify(hints, args);
			cc_json_put(&b, out);
			printf("%s\n", b.data);
			cc_buf_release(&b);
			jv_free(out);
			jv_free(args);
		}
		fflush(stdout);
	}
	free(line);
	cc_texts_free(hints);
	return 0;
}
