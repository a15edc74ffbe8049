/*
 * cc_calc.h: the homework coach's arithmetic.  An evaluator for the
 * expressions children are set (real precedence, parentheses, unary minus,
 * full-width digits and operators), the tool calculate_and_verify of seed
 * 001 with a finer diagnosis of the mistake behind a wrong answer, numbers
 * read from words (digits, kanji, hiragana, katakana, English), the
 * problem and the answer a child's utterance states, and the matcher of
 * the answer-leak guard.
 *
 * Nothing here allocates except cc_calc_verify()'s result: every function
 * works on the caller's text and fixed-size buffers, so a pipeline stage
 * can call them per record.  Text is UTF-8; bad bytes are never an error
 * for these functions, only text that does not say what they look for.
 *
 * Owns: nothing.  Borrows: the caller's texts (struct cc_texts for hints).
 * jv: cc_calc_verify() borrows its arguments and returns an owned object.
 */
#ifndef CC_CALC_H
#define CC_CALC_H

#include <stddef.h>

#include "cc_json.h"
#include "cc_texts.h"

/* ---- evaluating an expression ---- */

enum cc_calc_status {
	CC_CALC_OK = 0,
	CC_CALC_SYNTAX,		/* not an expression of the accepted syntax */
	CC_CALC_DIVZERO,	/* a division by zero (also by a zero-valued group) */
	CC_CALC_RANGE,		/* a number or a result too large for a double */
};

/*
 * What an expression computes, and the operation applied last, so that a
 * wrong answer can be explained by recomputing the child's procedure:
 * "23 + 45" is op '+' with lhs 23 and rhs 45; "(10+4)÷4" is op '/' with
 * lhs 14; "-(3)" is op 'n'; "7" is op 0.
 */
struct cc_calc_expr {
	double value;
	char op;		/* '+', '-', '*', '/', 'n' (negation) or 0 (a number) */
	double lhs, rhs;	/* the operands of op ('n': rhs only) */
	int nops;		/* binary operations in the whole expression */
};

/*
 * Evaluate expr[0..len).  The syntax (the labelled conventions of the coach
 * data set): numbers of ASCII or full-width digits with at most one '.'
 * (or '．'), which may lead (".5") or end ("5."); + - * / and their full-width forms
 * ＋ － ＊ ／, × ÷ and U+2212 −; ASCII or full-width x/X as a times sign
 * between operands (the original's tests use "6 x 7"); parentheses (also
 * full-width); spaces, tabs and U+3000.  Precedence is the usual one, left
 * to right within a level.  A sign may begin the expression or a
 * parenthesised group, nowhere else ("5 -- 3" and "2*-3" are refused, as
 * the original refuses "5 -- 3"; write "2*(-3)").  Anything else (kana,
 * counters, letters, "=", a dangling operator, unbalanced parentheses, two
 * numbers in a row, "1.2.3", the empty string) is CC_CALC_SYNTAX.
 * Computed in doubles.  Returns the status; err (if errlen) gets why.
 */
int cc_calc_parse(const char *expr, size_t len, struct cc_calc_expr *e,
	char *err, size_t errlen);
/* The same, only the value. */
int cc_calc_eval(const char *expr, size_t len, double *value, char *err,
	size_t errlen);

/* Room for any formatted double ("%.0f" of DBL_MAX is 309 digits). */
#define CC_CALC_NUMLEN 330
/*
 * v as the coach prints numbers: an integer without ".0" (all its digits,
 * "-0" as "0"); any other value as the shortest text that reads back as
 * the same double, written as Python's repr() writes it ("3.5",
 * "0.30000000000000004", "1e-05").  Returns buf.
 */
char *cc_calc_format(double v, char buf[CC_CALC_NUMLEN]);

/* ---- reading numbers ---- */

/*
 * The number at the start of s[0..len): ASCII or full-width digits (with
 * thousands separators "1,000" and a decimal point), kanji numerals
 * (三十八, 二千五, 三点五, 一〇〇), hiragana or katakana numerals
 * (さんじゅうはち, ロクジュウハチ, さんてんご), the native counts (ひとつ ...
 * とお), English number words ("sixty-eight", "a hundred and five",
 * "three point five") and digits with a kanji multiplier (3万).  No sign.
 * Returns the bytes read (0: no number there) and sets *value.
 */
size_t cc_calc_scan_number(const char *s, size_t len, double *value);
/* 0 if all of s[0..len), blanks aside, is one number (with an optional
   sign: - － − マイナス minus), else -1. */
int cc_calc_read_number(const char *s, size_t len, double *value);

/*
 * A child's answer: a number, or a quotient and a remainder ("3あまり2",
 * "３あまり２", "3余り2", "3…2", "3 r 2", "3 remainder 2", "2あまりなし").  The number is
 * read as cc_calc_read_number() reads it; around it may stand what a child
 * types: a leading answer phrase (こたえは, 答えは, the answer is), one
 * counter or unit after it (68こ, 8本, 12cm, 5えん, 3つ, ...), and endings
 * and punctuation (です, だよ, かな, だとおもう, であってる, じゃない, ！,
 * ？, 。, ...).  A number followed by anything else ("68ばん", "6_8",
 * "inf") is no answer.
 */
enum cc_calc_answer_kind {
	CC_CALC_ANSWER_NONE = 0,	/* empty or unparseable */
	CC_CALC_ANSWER_NUMBER,
	CC_CALC_ANSWER_REMAINDER,
};
struct cc_calc_answer {
	enum cc_calc_answer_kind kind;
	double value;			/* NUMBER: the number; REMAINDER: the quotient */
	double remainder;		/* REMAINDER only */
};
void cc_calc_parse_answer(const char *s, size_t len, struct cc_calc_answer *a);

/* ---- checking an answer ---- */

enum cc_calc_mistake {
	CC_CALC_MISTAKE_NONE = 0,	/* right, or nothing to check */
	CC_CALC_MISTAKE_CARRY,
	CC_CALC_MISTAKE_BORROW,
	CC_CALC_MISTAKE_OFF_BY_ONE,
	CC_CALC_MISTAKE_SWAPPED,	/* swapped_operands */
	CC_CALC_MISTAKE_PLACE_VALUE,
	CC_CALC_MISTAKE_REMAINDER,
	CC_CALC_MISTAKE_TIMES_TABLE,
	CC_CALC_MISTAKE_OTHER,
};
/* "carry", "swapped_operands", ...; NULL for CC_CALC_MISTAKE_NONE. */
const char *cc_calc_mistake_name(enum cc_calc_mistake m);

/*
 * Which wrong procedure explains answer a to problem e, found by
 * recomputing the plausible wrong procedures (the rules are listed in
 * cc_calc_mistake.c): NONE when a is right, OTHER when none of them gives
 * a (also for an empty answer).
 */
enum cc_calc_mistake cc_calc_diagnose(const struct cc_calc_expr *e,
	const struct cc_calc_answer *a);

/* 1 if a is a right answer to e: within 1e-9 of its value, or for a
   division of whole numbers the exact quotient and remainder. */
int cc_calc_is_right(const struct cc_calc_expr *e, const struct cc_calc_answer *a);

/*
 * The quotient-and-remainder form of e ("3あまり2") into buf when e is a
 * division of whole numbers >= 0 that leaves a remainder; else 0 and "".
 */
int cc_calc_remainder_form(const struct cc_calc_expr *e, char *buf, size_t buflen);

/*
 * The result of checking one answer, with no text allocated: what
 * cc_calc_verify() reports, hint aside.
 */
struct cc_calc_check {
	int status;			/* enum cc_calc_status of the expression */
	struct cc_calc_expr expr;
	struct cc_calc_answer answer;
	int is_correct;
	enum cc_calc_mistake mistake;
	char correct_answer[CC_CALC_NUMLEN];	/* "" when the expression is invalid */
	char remainder_form[2 * CC_CALC_NUMLEN + 16];	/* "" when there is none */
};
void cc_calc_check(const char *expr, size_t elen, const char *answer, size_t alen,
	struct cc_calc_check *c);

/*
 * The tool calculate_and_verify of seed 001: args is the tool's argument
 * object {"expression", "child_answer", "grade_level"} (borrowed; a number
 * is accepted for child_answer, "lang" "ja"|"en" picks the hint's
 * language).  Returns an owned object:
 *
 *   correct_answer  the formatted value, "" when the expression is invalid
 *   is_correct      boolean
 *   error_type      null, "calculation" or "invalid_expression"
 *   hint            "" when right; else a graded hint from hints (keys in
 *                   share/concierge/homework-coach/calc-hints), never one
 *                   that states the correct answer
 *   mistake         null when right or invalid, else one of carry, borrow,
 *                   off_by_one, swapped_operands, place_value, remainder,
 *                   times_table, other
 *   remainder_form  "3あまり2" for a division of whole numbers with a
 *                   remainder, else null
 *
 * hints may be NULL (a built-in sentence is used).
 */
jv cc_calc_verify(const struct cc_texts *hints, jv args);

/* ---- words ---- */

#define CC_CALC_EXPRLEN 256
/* What an utterance states. */
struct cc_calc_utterance {
	char expr[CC_CALC_EXPRLEN];	/* the problem in ASCII syntax ("38+24"), or "" */
	char answer[CC_CALC_EXPRLEN];	/* the child's own answer ("63", "3あまり2"), or "" */
	int recitation;			/* 1: a 九九 line (くしち ろくじゅうさん) */
};
#define CC_CALC_HAS_EXPR 1
#define CC_CALC_HAS_ANSWER 2
/*
 * The arithmetic problem an utterance states, and the answer the child
 * offers, if any: "さんじゅうはちたすにじゅうよん" 38+24, "37ひく19はいくつ？"
 * 37-19, "6かける8", "12わる4は3", "三十八たす二十四", "what's 6 times 8",
 * "seven plus five", "5と3をたすと", "10から3をひく", "くしちろくじゅうさん"
 * (9*7, answer 63), "こたえは15だとおもう" (answer 15), "36であってる？",
 * a bare number.  Conservative: a number in a non-math task ("3ばん",
 * "12ページ", "2ねん", a date "2025-01-15") is neither.  Returns the
 * CC_CALC_HAS_* flags; the expression, when there is one, is valid for
 * cc_calc_eval().
 */
int cc_calc_from_words(const char *text, size_t len, struct cc_calc_utterance *u);

/*
 * 1 if the reply text[0..len) states answer ("68", "3.5", "-10",
 * "3あまり2"), in any form a child would read it: ASCII or full-width
 * digits (also "1,000" and "68.0"; a decimal answer also rounded, "0.3"
 * for 0.30000000000000004), kanji, hiragana or katakana numerals, native
 * counts (みっつ), English words; a remainder answer when both of its
 * numbers are stated or the remainder is ("あまりは2").  Never as part of
 * another number (168, 6.8, ろくじゅうはち for 60), nor in words that only
 * contain a numeral (一緒, もういちど, 九九, 一の位).  Errs on the side of
 * saying yes.  0 also when answer is not a number.
 */
int cc_calc_states_value(const char *text, size_t len, const char *answer);

#endif
