/*
 * Worksheet lines to problems (the contract is in cc_sheet.h).  The OCR
 * of a printed sheet gets digits right far more often than the symbols
 * between them: Tesseract's Japanese and English models have no × or ÷
 * at all, and read − as 一 or ー beside kana.  So an arithmetic line is
 * read by a small grammar that expects number, operator, number, and
 * takes a look-alike in the place where the grammar needs it; a line
 * that does not fit the grammar is never forced into an expression.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_sheet.h"

struct kanji_grade {
	int32_t cp;
	int grade;
};

struct cues {
	char **v;
	size_t n;
};

struct cc_sheet {
	struct kanji_grade *kanji;	/* sorted by code point */
	size_t nkanji;
	struct cues skip, kanji_cue, reading, word_problem, counter;
};

/* ---- loading ---- */

static int
cmp_kanji(const void *a, const void *b)
{
	const struct kanji_grade *x = a, *y = b;

	return (x->cp > y->cp) - (x->cp < y->cp);
}

static void
cues_add(struct cues *c, const char *s, size_t n)
{
	size_t len;
	char *f = cc_text_fold(s, n, &len, 0);

	if (!len) {
		free(f);
		return;
	}
	c->v = cc_xrealloc(c->v, (c->n + 1) * sizeof *c->v);
	c->v[c->n++] = f;
}

static void
cues_free(struct cues *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
}

struct cc_sheet *
cc_sheet_load(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct cc_sheet *sh;
	struct cues *section = NULL;
	int grade = 0, lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;

	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	sh = cc_xmalloc(sizeof *sh);
	memset(sh, 0, sizeof *sh);
	while ((got = getline(&line, &cap, f)) > 0) {
		size_t n = (size_t)got;

		lineno++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' ||
		    line[n - 1] == ' ' || line[n - 1] == '\t'))
			n--;
		line[n] = '\0';
		if (!n || line[0] == '#')
			continue;
		if (!cc_utf8_valid(line, n)) {
			snprintf(err, errlen, "%s:%d: not UTF-8", path, lineno);
			goto fail;
		}
		if (line[0] == '[') {
			section = NULL;
			grade = 0;
			if (sscanf(line, "[kanji %d]", &grade) == 1 && grade >= 1 && grade <= 3)
				continue;
			grade = 0;
			if (!strcmp(line, "[skip]"))
				section = &sh->skip;
			else if (!strcmp(line, "[kanji]"))
				section = &sh->kanji_cue;
			else if (!strcmp(line, "[reading]"))
				section = &sh->reading;
			else if (!strcmp(line, "[word_problem]"))
				section = &sh->word_problem;
			else if (!strcmp(line, "[counter]"))
				section = &sh->counter;
			else {
				snprintf(err, errlen, "%s:%d: unknown section '%s'", path,
				    lineno, line);
				goto fail;
			}
			continue;
		}
		if (grade) {
			size_t i = 0;

			while (i < n) {
				int32_t cp = cc_utf8_next(line, n, &i);

				if (cp == ' ' || cp == '\t')
					continue;
				sh->kanji = cc_xrealloc(sh->kanji,
				    (sh->nkanji + 1) * sizeof *sh->kanji);
				sh->kanji[sh->nkanji++] = (struct kanji_grade){ cp, grade };
			}
		} else if (section) {
			cues_add(section, line, n);
		} else {
			snprintf(err, errlen, "%s:%d: an entry outside any section", path,
			    lineno);
			goto fail;
		}
	}
	free(line);
	fclose(f);
	if (sh->nkanji)
		qsort(sh->kanji, sh->nkanji, sizeof *sh->kanji, cmp_kanji);
	return sh;
fail:
	free(line);
	fclose(f);
	cc_sheet_free(sh);
	return NULL;
}

void
cc_sheet_free(struct cc_sheet *sh)
{
	if (!sh)
		return;
	free(sh->kanji);
	cues_free(&sh->skip);
	cues_free(&sh->kanji_cue);
	cues_free(&sh->reading);
	cues_free(&sh->word_problem);
	cues_free(&sh->counter);
	free(sh);
}

enum cc_sheet_subject
cc_sheet_subject(const char *s)
{
	static const char *const math[] = { "math", "maths", "mathematics",
		"arithmetic", "さんすう", "算数", "すうがく", "数学", "けいさん", "計算" };
	static const char *const ja[] = { "japanese", "kokugo", "kanji", "reading",
		"こくご", "国語", "かんじ", "漢字", "にほんご", "日本語" };
	enum cc_sheet_subject r = CC_SHEET_ANY;
	size_t n;
	char *f;

	if (!s)
		return CC_SHEET_ANY;
	f = cc_text_fold(s, strlen(s), &n, 0);
	for (size_t i = 0; i < sizeof math / sizeof *math; i++)
		if (!strcmp(f, math[i]))
			r = CC_SHEET_MATH;
	for (size_t i = 0; i < sizeof ja / sizeof *ja; i++)
		if (!strcmp(f, ja[i]))
			r = CC_SHEET_JAPANESE;
	free(f);
	return r;
}

/* ---- arithmetic ---- */

enum tok_kind { T_NUM, T_OP, T_EQ, T_BLANK, T_OPEN, T_CLOSE };

struct tok {
	enum tok_kind kind;
	char op;		/* + - * / for T_OP */
	char num[32];		/* the digits of T_NUM, ASCII */
	int soft;		/* a look-alike that only the grammar can place */
};

#define MAX_TOKS 64

static int
is_space(int32_t c)
{
	return c == ' ' || c == '\t' || c == 0x3000 || c == 0xA0;
}

/* Look-alikes of 1 and 0 that OCR gives for a digit standing alone. */
static int
strict_confusable(int32_t c)
{
	switch (c) {
	case 'l': case 'I': case '|': case 0x01C0: return '1';
	case 'O': case 'o': case 0x3007: case 0x25CB: case 0x039F: case 0x041E:
		return '0';
	default: return 0;
	}
}

/* More look-alikes, taken only inside a number that has a real digit. */
static int
confusable(int32_t c)
{
	int d = strict_confusable(c);

	if (d)
		return d;
	switch (c) {
	case '!': case 0x0131: return '1';
	case 0x25EF: case 0x03BF: case 0x043E: return '0';
	case 'S': case 's': return '5';
	case 'Z': case 'z': return '2';
	case 'B': return '8';
	case 'g': case 'q': return '9';
	case 'b': return '6';
	default: return 0;
	}
}

/* Operators: the character, and whether it is only a look-alike. */
static int
operator_of(int32_t c, int *soft)
{
	*soft = 0;
	switch (c) {
	case '+': return '+';
	case '-': case 0x2212: case 0x2010: case 0x2011: case 0x2013: case 0xFE63:
		return '-';
	case 0x2014: case 0x2015: case 0x2500: case 0x4E00: case 0x30FC:
		*soft = 1;		/* — ― ─ 一 ー: dashes and letters */
		return '-';
	case 0x5341:			/* 十 */
		*soft = 1;
		return '+';
	case 0x00D7: case '*': case 0x2715: case 0x2716: case 0x2A2F: case 0x2217:
	case 'x': case 'X':		/* the OCR models have no ×: x is how they read it */
		return '*';
	case 0x00F7: case '/': case 0x2215: case 0x2797:
		return '/';
	default:
		return 0;
	}
}

static int
is_blank_char(int32_t c)
{
	return c == 0x25A1 || c == 0x25FB || c == 0x2610 || c == 0x25A2 ||
	    c == '?' || c == '_' || c == 0x2026;
}

/* Circled numbers: ① (U+2460-2473), ⓪, ❶-❿, ➀-➓, ㉑-㉟, ㊱-㊿. */
static int
circled(int32_t c)
{
	return (c >= 0x2460 && c <= 0x2473) || c == 0x24EA || c == 0x24FF ||
	    (c >= 0x2776 && c <= 0x2793) || (c >= 0x3251 && c <= 0x325F) ||
	    (c >= 0x32B1 && c <= 0x32BF) || (c >= 0x24F5 && c <= 0x24FE);
}

/* Decode s to code points (NFKC, a leading circled number dropped). */
static int32_t *
code_points(const char *s, size_t n, size_t *count)
{
	size_t i = 0, len, k = 0;
	char *norm;
	int32_t *cp;

	/* NFKC turns ① into 1, which would run into the first number */
	while (i < n) {
		size_t at = i;
		int32_t c = cc_utf8_next(s, n, &i);

		if (is_space(c))
			continue;
		if (!circled(c))
			i = at;
		break;
	}
	norm = cc_text_nfkc(s + i, n - i, &len);
	if (!norm)
		return NULL;
	cp = cc_xmalloc((len + 1) * sizeof *cp);
	for (i = 0; i < len;)
		cp[k++] = cc_utf8_next(norm, len, &i);
	free(norm);
	*count = k;
	return cp;
}

static int
is_digit(int32_t c)
{
	return c >= '0' && c <= '9';
}

/*
 * Skip a problem number at the start: (1) [1] 1) 1. 1、 問1 もんだい1.
 * Returns the index after it (and the space that follows).
 */
static size_t
skip_number_prefix(const int32_t *c, size_t n)
{
	size_t i = 0, j;

	while (i < n && is_space(c[i]))
		i++;
	j = i;
	if (j < n && (c[j] == 0x554F))			/* 問 */
		j++;
	else if (j + 4 <= n && c[j] == 0x3082 && c[j + 1] == 0x3093 &&
	    c[j + 2] == 0x3060 && c[j + 3] == 0x3044)	/* もんだい */
		j += 4;
	if (j > i) {
		size_t d = j;

		while (d < n && is_digit(c[d]))
			d++;
		if (d == j)
			return i;
		j = d;
		if (j < n && (c[j] == '.' || c[j] == 0x3001 || c[j] == ':'))
			j++;
	} else if (j < n && (c[j] == '(' || c[j] == '[')) {
		int32_t close = c[j] == '(' ? ')' : ']';
		size_t d = j + 1;

		while (d < n && is_digit(c[d]))
			d++;
		if (d == j + 1 || d - j > 3 || d >= n || c[d] != close)
			return i;
		j = d + 1;
	} else {
		size_t d = j;

		while (d < n && is_digit(c[d]))
			d++;
		if (d == j || d - j > 2 || d >= n)
			return i;
		/* "1." but not "1.5"; "1)" ; "1、" */
		if (c[d] == ')' || c[d] == 0x3001 ||
		    (c[d] == '.' && (d + 1 >= n || !is_digit(c[d + 1]))))
			j = d + 1;
		else
			return i;
	}
	while (j < n && is_space(c[j]))
		j++;
	return j;
}

/* Tokenize an arithmetic line; -1 when something cannot be part of one. */
static int
tokenize(const int32_t *c, size_t n, struct tok *t, int *repaired)
{
	int k = 0;

	for (size_t i = 0; i < n;) {
		int soft, op;

		if (k >= MAX_TOKS)
			return -1;
		if (is_space(c[i])) {
			i++;
			continue;
		}
		if (is_digit(c[i]) || strict_confusable(c[i]) ||
		    (confusable(c[i]) && i + 1 < n && is_digit(c[i + 1]))) {
			/* a number: digits and look-alikes, with . and , inside */
			size_t start = i, len = 0, real = 0, dots = 0;
			int rep = 0;
			char *d = t[k].num;

			for (; i < n; i++) {
				if (is_digit(c[i])) {
					real++;
				} else if (confusable(c[i])) {
					rep = 1;
				} else if ((c[i] == '.' || c[i] == ',') && i > start &&
				    i + 1 < n && (is_digit(c[i + 1]) || confusable(c[i + 1]))) {
					if (c[i] == ',') {
						/* a thousands separator: three digits follow */
						size_t e = i + 1;

						while (e < n && is_digit(c[e]))
							e++;
						if (e - i - 1 != 3 || dots)
							return -1;
						continue;
					}
					if (++dots > 1)
						return -1;
				} else {
					break;
				}
				if (len + 2 >= sizeof t[k].num)
					return -1;
				d[len++] = c[i] == '.' ? '.' : is_digit(c[i]) ? (char)c[i] :
				    (char)confusable(c[i]);
			}
			d[len] = '\0';
			/* look-alikes alone only when they are the strict ones */
			if (!real) {
				for (size_t j = start; j < i; j++)
					if (!strict_confusable(c[j]))
						return -1;
				if (len > 3)
					return -1;
			}
			/* 05 or 007 is a code or a date, not a number on a sheet */
			if (len > 1 && d[0] == '0' && d[1] != '.')
				return -1;
			if (rep)
				*repaired = 1;
			t[k].kind = T_NUM;
			t[k].soft = !real;
			k++;
			continue;
		}
		if ((op = operator_of(c[i], &soft))) {
			t[k] = (struct tok){ .kind = T_OP, .op = (char)op, .soft = soft };
			k++;
			i++;
			continue;
		}
		switch (c[i]) {
		case '=':
			t[k++] = (struct tok){ .kind = T_EQ };
			break;
		case 0x4E8C: case 0x30CB:	/* 二 ニ: an = read as a letter */
			t[k++] = (struct tok){ .kind = T_EQ, .soft = 1 };
			break;
		case '(':
			/* "( )" with only spaces inside is a box to fill */
			{
				size_t j = i + 1;

				while (j < n && is_space(c[j]))
					j++;
				if (j < n && c[j] == ')') {
					t[k++] = (struct tok){ .kind = T_BLANK };
					i = j;
					break;
				}
			}
			t[k++] = (struct tok){ .kind = T_OPEN };
			break;
		case ')':
			t[k++] = (struct tok){ .kind = T_CLOSE };
			break;
		default:
			if (!is_blank_char(c[i]))
				return -1;
			/* a run of them (___, ...) is one box */
			if (!(k > 0 && t[k - 1].kind == T_BLANK && i > 0 &&
			    is_blank_char(c[i - 1])))
				t[k++] = (struct tok){ .kind = T_BLANK };
			break;
		}
		i++;
	}
	return k;
}

struct parse {
	const struct tok *t;
	int n, i;
	int ops, blanks;
	struct cc_buf expr, disp;
	int repaired;
};

static void
emit(struct parse *p, const char *e, const char *d)
{
	if (e)
		cc_buf_add(&p->expr, e, strlen(e));
	if (d) {
		/* one space between items, none inside parentheses */
		if (p->disp.len && p->disp.data[p->disp.len - 1] != '(' && strcmp(d, ")"))
			cc_buf_add(&p->disp, " ", 1);
		cc_buf_add(&p->disp, d, strlen(d));
	}
}

static int parse_expr(struct parse *p, int depth);

static int
parse_term(struct parse *p, int depth)
{
	const struct tok *t;

	if (p->i >= p->n)
		return -1;
	t = &p->t[p->i];
	switch (t->kind) {
	case T_NUM:
		p->i++;
		emit(p, t->num, t->num);
		return 0;
	case T_BLANK:
		p->i++;
		p->blanks++;
		emit(p, NULL, "□");	/* □ */
		return 0;
	case T_OPEN:
		if (depth > 8)
			return -1;
		p->i++;
		emit(p, "(", "(");
		if (parse_expr(p, depth + 1) < 0 || p->i >= p->n ||
		    p->t[p->i].kind != T_CLOSE)
			return -1;
		p->i++;
		emit(p, ")", ")");
		return 0;
	default:
		return -1;
	}
}

static int
parse_expr(struct parse *p, int depth)
{
	static const char *const shown[] = { "+", "−", "×", "÷" };

	if (parse_term(p, depth) < 0)
		return -1;
	while (p->i < p->n && p->t[p->i].kind == T_OP) {
		const struct tok *t = &p->t[p->i];
		char e[2] = { t->op, '\0' };
		int which = t->op == '+' ? 0 : t->op == '-' ? 1 : t->op == '*' ? 2 : 3;

		/* a dash at the very end, after a number: an = read as a dash */
		if (t->op == '-' && p->i + 1 == p->n && depth == 0 && p->ops > 0)
			return 0;
		p->i++;
		if (t->soft)
			p->repaired = 1;
		p->ops++;
		emit(p, e, shown[which]);
		if (parse_term(p, depth) < 0)
			return -1;
	}
	return 0;
}

int
cc_sheet_arith(const char *s, size_t n, char **expression, char **display,
    int *repaired)
{
	struct tok t[MAX_TOKS];
	struct parse p = {0};
	size_t count, start;
	int32_t *c = code_points(s, n, &count);
	int k, ok = 0, rep = 0;

	if (expression)
		*expression = NULL;
	if (display)
		*display = NULL;
	if (repaired)
		*repaired = 0;
	if (!c)
		return 0;
	start = skip_number_prefix(c, count);
	k = tokenize(c + start, count - start, t, &rep);
	free(c);
	if (k <= 0)
		return 0;
	p.t = t;
	p.n = k;
	p.repaired = rep;
	if (parse_expr(&p, 0) < 0 || p.ops == 0)
		goto done;
	if (p.i < p.n) {
		const struct tok *e = &t[p.i];

		/* "=" or its look-alikes, then at most an answer or a box */
		if (e->kind == T_EQ || (e->kind == T_OP && e->op == '-')) {
			p.i++;
			if (e->soft || e->kind == T_OP)
				p.repaired = 1;
			emit(&p, NULL, "=");
			if (p.i < p.n && (t[p.i].kind == T_NUM || t[p.i].kind == T_BLANK)) {
				if (t[p.i].kind == T_NUM) {
					/* a printed result: the box is on the left */
					emit(&p, NULL, t[p.i].num);
				} else {
					emit(&p, NULL, "□");
				}
				p.i++;
			}
		}
		if (p.i < p.n)
			goto done;
	}
	ok = 1;
	if (repaired)
		*repaired = p.repaired;
	if (expression && !p.blanks)
		*expression = cc_xstrdup(p.expr.data);
	if (display)
		*display = cc_xstrdup(p.disp.data);
done:
	cc_buf_release(&p.expr);
	cc_buf_release(&p.disp);
	return ok;
}

/* ---- difficulty ---- */

static int
grade_add(double a, double b)
{
	double s = a + b;
	long x = (long)a, y = (long)b;

	if (s <= 20)
		return 1;
	if ((x < 100 && y < 10 && x % 10 + y < 10) || (y < 100 && x < 10 && y % 10 + x < 10))
		return 1;		/* 23 + 4, no carrying */
	if (x % 10 == 0 && y % 10 == 0 && s <= 100)
		return 1;		/* 30 + 40 */
	if (x < 100 && y < 100)
		return 2;		/* 23 + 45, 67 + 58 */
	if (x % 100 == 0 && y % 100 == 0 && s <= 1000)
		return 2;		/* 300 + 500 */
	return 3;
}

static int
grade_sub(double a, double b)
{
	long x = (long)a, y = (long)b;

	if (a < b)
		return 3;		/* below zero: not taught in these years */
	if (x <= 20)
		return 1;		/* 13 - 8 */
	if (x < 100 && y < 10 && x % 10 >= y)
		return 1;		/* 27 - 5 */
	if (x % 10 == 0 && y % 10 == 0 && x <= 100)
		return 1;		/* 70 - 30 */
	if (x < 100 || (x < 200 && y < 100))
		return 2;		/* 71 - 38, 145 - 68 */
	if (x % 100 == 0 && y % 100 == 0 && x <= 1000)
		return 2;
	return 3;
}

int
cc_sheet_difficulty(const char *e)
{
	double nums[MAX_TOKS];
	char ops[MAX_TOKS];
	int nn = 0, no = 0, grade = 1, parens = 0, additive = 0, multiplicative = 0;
	const char *p = e;

	if (!e || !*e)
		return 0;
	while (*p) {
		if (*p == '(' || *p == ')') {
			parens = 1;
			p++;
		} else if ((*p >= '0' && *p <= '9') || *p == '.') {
			char *end;
			double v;

			if (nn >= MAX_TOKS)
				return 0;
			v = strtod(p, &end);
			if (end == p)
				return 0;
			for (const char *q = p; q < end; q++)
				if (*q == '.')
					grade = 3;	/* decimals: grade 3 */
			nums[nn++] = v;
			p = end;
		} else if (strchr("+-*/", *p)) {
			if (no >= MAX_TOKS)
				return 0;
			/* the operator between nums[nn-1] and the next number */
			ops[no++] = *p;
			if (*p == '+' || *p == '-')
				additive = 1;
			else
				multiplicative = 1;
			p++;
		} else if (*p == ' ') {
			p++;
		} else {
			return 0;
		}
	}
	if (nn == 0)
		return 0;
	if (parens)
		grade = grade < 2 ? 2 : grade;
	if (additive && multiplicative)
		grade = 3;
	/* each operator with the numbers written beside it */
	for (int i = 0; i < no && i + 1 < nn; i++) {
		double a = nums[i], b = nums[i + 1];
		int g;

		if (a >= 10000 || b >= 10000)
			g = 3;
		else if (ops[i] == '+')
			g = grade_add(a, b);
		else if (ops[i] == '-')
			g = grade_sub(a, b);
		else if (ops[i] == '*')
			/* the table (九九) is grade 2; x0, x10 and beyond are grade 3 */
			g = a >= 1 && a <= 9 && b >= 1 && b <= 9 &&
			    a == floor(a) && b == floor(b) ? 2 : 3;
		else
			g = 3;		/* division starts in grade 3 */
		if (g > grade)
			grade = g;
	}
	return grade;
}

/* ---- other lines ---- */

static int
kanji_grade(const struct cc_sheet *sh, int32_t cp)
{
	struct kanji_grade key = { cp, 0 }, *hit;

	if (!sh || !sh->nkanji)
		return 3;
	hit = bsearch(&key, sh->kanji, sh->nkanji, sizeof *sh->kanji, cmp_kanji);
	return hit ? hit->grade : 3;
}

static int
has_cue(const struct cues *c, const char *folded)
{
	for (size_t i = 0; i < c->n; i++)
		if (strstr(folded, c->v[i]))
			return 1;
	return 0;
}

/* A number directly followed by a counter ("3こ", "12 cm"). */
static int
counted_number(const struct cues *c, const char *f)
{
	for (const char *p = f; *p; p++) {
		const char *q;

		if (!is_digit((unsigned char)*p) || is_digit((unsigned char)p[1]))
			continue;
		q = p + 1;
		if (*q == ' ')
			q++;
		for (size_t i = 0; i < c->n; i++) {
			size_t k = strlen(c->v[i]);

			/* a Latin unit must end there: "3 m" but not "3 more" */
			if (strncmp(q, c->v[i], k) == 0 &&
			    !((unsigned char)c->v[i][0] < 0x80 &&
			    ((q[k] >= 'a' && q[k] <= 'z'))))
				return 1;
		}
	}
	return 0;
}

/*
 * The line as shown: NFKC, spaces that OCR put between Japanese
 * characters removed, other runs of space made one, ends trimmed.
 */
static char *
clean_text(const int32_t *c, size_t n)
{
	struct cc_buf b = {0};
	int32_t prev = 0;
	int pending = 0;

	for (size_t i = 0; i < n; i++) {
		char enc[4];
		size_t k = 0;
		int32_t cp = c[i];

		if (is_space(cp) || cp == '\n' || cp == '\r') {
			pending = b.len > 0;
			continue;
		}
		if (cp < 0x20 || cp == 0x7F)
			continue;
		if (pending && !(prev >= 0x3000 && cp >= 0x3000))
			cc_buf_add(&b, " ", 1);
		pending = 0;
		if (cp < 0x80) {
			enc[k++] = (char)cp;
		} else if (cp < 0x800) {
			enc[k++] = (char)(0xC0 | (cp >> 6));
			enc[k++] = (char)(0x80 | (cp & 0x3F));
		} else if (cp < 0x10000) {
			enc[k++] = (char)(0xE0 | (cp >> 12));
			enc[k++] = (char)(0x80 | ((cp >> 6) & 0x3F));
			enc[k++] = (char)(0x80 | (cp & 0x3F));
		} else {
			enc[k++] = (char)(0xF0 | (cp >> 18));
			enc[k++] = (char)(0x80 | ((cp >> 12) & 0x3F));
			enc[k++] = (char)(0x80 | ((cp >> 6) & 0x3F));
			enc[k++] = (char)(0x80 | (cp & 0x3F));
		}
		cc_buf_add(&b, enc, k);
		prev = cp;
	}
	if (!b.data)
		cc_buf_add(&b, "", 0);
	return b.data;
}

static int
ends_as_task(const char *t)
{
	static const char *const ends[] = { "?", "か", "か。",
		"ましょう",
		"ましょう。",
		"なさい",
		"なさい。",
		"ください",
		"ください。" };
	size_t n = strlen(t);

	for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
		size_t k = strlen(ends[i]);

		if (n >= k && !strcmp(t + n - k, ends[i]))
			return 1;
	}
	return 0;
}

int
cc_sheet_line(const struct cc_sheet *sh, const char *s, size_t n,
    enum cc_sheet_subject subject, struct cc_sheet_problem *p)
{
	size_t count, start, flen;
	int32_t *c;
	char *expr, *disp, *text, *f;
	int rep, letters = 0, japanese = 0, digits = 0, maxgrade = 0, ok = 1;
	long biggest = 0;

	memset(p, 0, sizeof *p);
	if (!cc_utf8_valid(s, n))
		return 0;
	if (cc_sheet_arith(s, n, &expr, &disp, &rep)) {
		p->text = disp;
		p->type = "arithmetic";
		p->expression = expr;
		p->repaired = rep;
		p->difficulty = expr ? cc_sheet_difficulty(expr) : 1;
		if (!p->difficulty)
			p->difficulty = 1;
		return 1;
	}
	if (!(c = code_points(s, n, &count)))
		return 0;
	start = skip_number_prefix(c, count);
	for (size_t i = start; i < count; i++) {
		enum cc_script sc = cc_text_script(c[i]);

		if (sc == CC_SCRIPT_DIGIT) {
			digits++;
			if (is_digit(c[i])) {
				/* the biggest number, for a word problem's difficulty */
				long v = 0;
				size_t j = i;

				while (j < count && is_digit(c[j]) && v < 100000000)
					v = v * 10 + (c[j++] - '0');
				if (v > biggest)
					biggest = v;
				digits += (int)(j - i) - 1;
				i = j - 1;
			}
		} else if (sc != CC_SCRIPT_NONE) {
			letters++;
			if (sc == CC_SCRIPT_HIRAGANA || sc == CC_SCRIPT_KATAKANA ||
			    sc == CC_SCRIPT_HAN)
				japanese++;
			if (sc == CC_SCRIPT_HAN) {
				int g = kanji_grade(sh, c[i]);

				if (g > maxgrade)
					maxgrade = g;
			}
		}
	}
	if (letters + digits < 2 || letters == 0) {
		free(c);
		return 0;		/* noise, or numbers alone */
	}
	text = clean_text(c + start, count - start);
	free(c);
	f = cc_text_fold(text, strlen(text), &flen, 0);
	p->text = text;
	p->difficulty = maxgrade ? maxgrade : 1;
	if (sh && has_cue(&sh->skip, f) && !has_cue(&sh->word_problem, f)) {
		ok = 0;
	} else if (digits && japanese >= 2 && sh &&
	    (has_cue(&sh->word_problem, f) || counted_number(&sh->counter, f))) {
		p->type = "word_problem";
	} else if (sh && has_cue(&sh->kanji_cue, f)) {
		p->type = "kanji";
	} else if (sh && has_cue(&sh->reading, f)) {
		p->type = "reading";
	} else if (subject == CC_SHEET_MATH && digits && letters >= 2) {
		p->type = "word_problem";
	} else if (subject == CC_SHEET_JAPANESE && japanese >= 2) {
		p->type = "reading";
	} else if (digits || ends_as_task(text)) {
		p->type = "other";
	} else {
		ok = 0;			/* a decoration or a stray word */
	}
	if (ok && !strcmp(p->type, "word_problem")) {
		/* by the size of its numbers, and division cues */
		static const char *const divide[] = {
			"わけ",
			"分け",
			"あまり",
			"人分" };
		int g = biggest <= 20 ? 1 : biggest < 1000 ? 2 : 3;

		if (strstr(f, "ずつ") && g < 2)
			g = 2;
		for (size_t i = 0; i < sizeof divide / sizeof *divide; i++)
			if (strstr(f, divide[i]))
				g = 3;
		p->difficulty = g;
	}
	free(f);
	if (!ok) {
		cc_sheet_problem_release(p);
		return 0;
	}
	return 1;
}

void
cc_sheet_problem_release(struct cc_sheet_problem *p)
{
	free(p->text);
	free(p->expression);
	memset(p, 0, sizeof *p);
}
