/*
 * cc_sheet.h: one line of a worksheet, as OCR or a vision model read it,
 * turned into the seed's problem: {text, type, difficulty, expression}
 * (seed 001 section 3.2.5, analyze_homework_image).
 *
 * Owns: the worksheet data it loads (share/concierge/homework-coach/
 * worksheet: kanji by school year, cue words) and the strings of the
 * problems it returns.  Borrows: nothing.
 *
 * Contract:
 *   - An arithmetic line ("23 + 45 =", "８×７＝", "(3) 12 ÷ 4 = □") gives
 *     type "arithmetic" and an expression in ASCII syntax ("23+45", "8*7",
 *     "12/4"), the syntax calculate_and_verify reads.  Full-width forms,
 *     U+2212, and the OCR confusions of a printed sheet are read: x, X
 *     and * for ×, / for ÷, dashes, 一 and ー for − between numbers, 十 for +,
 *     二/ニ or a dash at the end for =, and l I | for 1, O o for 0 inside a
 *     number or alone where a number must stand (with a digit beside them
 *     also S→5 Z→2 B→8 g q→9 b→6).  A line that needed a letter read as a
 *     digit, or a letter as an operator, is marked repaired.  A line with
 *     a box to fill ("□ + 5 = 12") is arithmetic with a null expression.
 *   - Other lines are "word_problem" (a number and a question cue or a
 *     counter), "kanji" or "reading" by the cue words of the data file,
 *     else "other"; headings and name fields ([skip]) and noise (fewer
 *     than two letters or digits) are not problems.
 *   - difficulty is the school year, 1-3, that teaches such a problem
 *     (3 also stands for anything later): see cc_sheet_difficulty() for
 *     arithmetic; for kanji and reading, the latest year among the line's
 *     kanji; for word problems, the size of their numbers and their cues.
 */
#ifndef CC_SHEET_H
#define CC_SHEET_H

#include <stddef.h>

struct cc_sheet;

/* Load the worksheet data; NULL with "path:line: why" in err. */
struct cc_sheet *cc_sheet_load(const char *path, char *err, size_t errlen);
void cc_sheet_free(struct cc_sheet *sh);

/* What the caller expects on the sheet (expected_subject). */
enum cc_sheet_subject {
	CC_SHEET_ANY,
	CC_SHEET_MATH,
	CC_SHEET_JAPANESE,
};
/* "math", "さんすう", "算数", "arithmetic" ... or "japanese", "こくご",
 * "国語", "kanji" ...; anything else (or NULL) is CC_SHEET_ANY. */
enum cc_sheet_subject cc_sheet_subject(const char *s);

struct cc_sheet_problem {
	char *text;		/* the line as a child would read it */
	const char *type;	/* arithmetic, word_problem, kanji, reading, other */
	int difficulty;		/* 1-3 */
	char *expression;	/* ASCII syntax, or NULL */
	int repaired;		/* an OCR confusion was corrected */
};

/*
 * Classify the UTF-8 line s[0..n): 1 with *p filled (release it with
 * cc_sheet_problem_release), 0 when the line is not a problem.  sh may be
 * NULL (no cue words, no kanji table: arithmetic only, the rest "other").
 */
int cc_sheet_line(const struct cc_sheet *sh, const char *s, size_t n,
	enum cc_sheet_subject subject, struct cc_sheet_problem *p);
void cc_sheet_problem_release(struct cc_sheet_problem *p);

/*
 * The arithmetic of s[0..n) alone: 1 when the line is an arithmetic
 * problem, with *expression (fresh ASCII syntax, NULL for a box to fill),
 * *display (fresh, "23 + 45 =") and *repaired set; else 0.  Either
 * pointer may be NULL.
 */
int cc_sheet_arith(const char *s, size_t n, char **expression, char **display,
	int *repaired);

/*
 * The school year (1-3) that teaches an expression in ASCII syntax, by
 * the Japanese course of study: grade 1 adds and subtracts within 20,
 * tens, and a two-digit and a one-digit number without carrying; grade 2
 * adds and subtracts two-digit numbers (and hundreds) and learns the
 * multiplication table; grade 3 divides, multiplies beyond the table,
 * works with larger numbers and decimals.  The hardest operation counts;
 * parentheses make it at least 2, mixing × or ÷ with + or − makes it 3.  0 when
 * the expression cannot be read.
 */
int cc_sheet_difficulty(const char *expression);

#endif
