/*
 * The coach's calculator: a recursive-descent evaluator over the bytes of
 * the expression (no token list, no allocation), the number format the
 * original prints, and calculate_and_verify with its hint.
 *
 * The original evaluates strictly left to right and drops parentheses, so
 * "2 + 3 * 4" is 20 there; the conventions of the coach's labelled data
 * (../shared/eval/homework-coach/README.md, "Calc record") are the usual
 * arithmetic, which is what this file does.
 */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_texts.h"
#include "coach/cc_calc.h"

/* ---- the number format ---- */

/*
 * Numbers are read and written in the C locale whatever the program's
 * locale is (cc-chat sets LC_ALL from the environment, and a comma locale
 * would write "3,5").
 */
static locale_t
c_locale(void)
{
	static locale_t c;

	if (!c && !(c = newlocale(LC_ALL_MASK, "C", (locale_t)0)))
		cc_die(CC_EXIT_INTERNAL, "cannot make the C locale");
	return c;
}

char *
cc_calc_format(double v, char buf[CC_CALC_NUMLEN])
{
	locale_t old;

	if (isnan(v)) {
		strcpy(buf, "nan");
		return buf;
	}
	if (isinf(v)) {
		strcpy(buf, v < 0 ? "-inf" : "inf");
		return buf;
	}
	if (v == 0) {		/* also -0.0, which Python's int() prints as 0 */
		strcpy(buf, "0");
		return buf;
	}
	if (v == trunc(v) && fabs(v) < 1e15) {
		/* what "%.0f" writes, without printf: every answer is one */
		char tmp[24], *p = tmp + sizeof tmp;
		unsigned long long u = (unsigned long long)fabs(v);

		*--p = '\0';
		do
			*--p = (char)('0' + u % 10);
		while (u /= 10);
		if (v < 0)
			*--p = '-';
		memcpy(buf, p, (size_t)(tmp + sizeof tmp - p));
		return buf;
	}
	old = uselocale(c_locale());
	if (v == trunc(v)) {
		snprintf(buf, CC_CALC_NUMLEN, "%.0f", v);
	} else {
		/*
		 * The shortest precision that reads back as v.  %g switches to
		 * an exponent exactly where repr() does (below 1e-4; a value
		 * that is not an integer never reaches the upper switch), and
		 * both write at least two exponent digits: "1e-05".
		 */
		for (int p = 1; p <= 17; p++) {
			snprintf(buf, CC_CALC_NUMLEN, "%.*g", p, v);
			if (strtod_l(buf, NULL, c_locale()) == v)
				break;
		}
	}
	uselocale(old);
	return buf;
}

/* ---- the evaluator ---- */

enum tok {
	T_END, T_NUM, T_PLUS, T_MINUS, T_TIMES, T_X, T_DIV, T_LP, T_RP, T_BAD
};

/* How deep parentheses may nest: far beyond any homework, and it bounds
   the recursion on hostile input. */
#define MAX_DEPTH 64
/* The longest number literal: more digits than a double can tell apart
   (a longer one is refused rather than copied somewhere larger). */
#define MAX_LITERAL 340

struct parser {
	const char *s;
	size_t len, i;
	enum tok tok;
	double num;		/* T_NUM */
	int32_t bad;		/* T_BAD: the character */
	int depth, nops;
	int status;
	char *err;
	size_t errlen;
};

struct val {
	double v;
	char op;
	double l, r;
};

static int
fail(struct parser *p, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct parser *p, int status, const char *fmt, ...)
{
	va_list ap;

	if (p->status == CC_CALC_OK) {
		p->status = status;
		if (p->err && p->errlen) {
			va_start(ap, fmt);
			vsnprintf(p->err, p->errlen, fmt, ap);
			va_end(ap);
		}
	}
	return -1;
}

static int
is_space(int32_t cp)
{
	return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\v' ||
	    cp == '\f' || cp == 0x3000;
}

/* The digit value of an ASCII or full-width digit, else -1. */
static int
digit_value(int32_t cp)
{
	if (cp >= '0' && cp <= '9')
		return cp - '0';
	if (cp >= 0xFF10 && cp <= 0xFF19)
		return cp - 0xFF10;
	return -1;
}

static int
is_point(int32_t cp)
{
	return cp == '.' || cp == 0xFF0E;
}

/* A character for a message: itself when printable, else U+XXXX. */
static const char *
show_char(int32_t cp, char out[16])
{
	if (cp >= 0x20 && cp < 0x7F)
		snprintf(out, 16, "%c", (char)cp);
	else if (cp >= 0xA0 && cp != 0xFFFD && cp < 0x10000 && !(cp >= 0xD800 && cp <= 0xDFFF)) {
		if (cp < 0x800)
			snprintf(out, 16, "%c%c", (char)(0xC0 | cp >> 6), (char)(0x80 | (cp & 0x3F)));
		else
			snprintf(out, 16, "%c%c%c", (char)(0xE0 | cp >> 12),
			    (char)(0x80 | (cp >> 6 & 0x3F)), (char)(0x80 | (cp & 0x3F)));
	} else
		snprintf(out, 16, "U+%04X", (unsigned)cp);
	return out;
}

/* Read a number literal at p->i (its first character is a digit or a
   point): the longest run of digits and points, then check it. */
static void
lex_number(struct parser *p)
{
	char buf[MAX_LITERAL + 1];
	size_t n = 0, i = p->i;
	int digits = 0, points = 0, too_long = 0;

	while (i < p->len) {
		size_t at = i;
		int32_t cp = cc_utf8_next(p->s, p->len, &i);
		int d = digit_value(cp);

		if (d < 0 && !is_point(cp)) {
			i = at;
			break;
		}
		if (n < MAX_LITERAL)
			buf[n++] = d >= 0 ? (char)('0' + d) : '.';
		else
			too_long = 1;
		if (d >= 0)
			digits++;
		else
			points++;
	}
	buf[n] = '\0';
	p->i = i;
	if (!digits) {
		p->tok = T_BAD;
		p->bad = '.';
		return;
	}
	if (points > 1) {
		fail(p, CC_CALC_SYNTAX, "malformed number '%s'", buf);
		p->tok = T_BAD;
		p->bad = 0;
		return;
	}
	if (too_long) {
		fail(p, CC_CALC_RANGE, "a number of more than %d characters", MAX_LITERAL);
		p->tok = T_BAD;
		p->bad = 0;
		return;
	}
	p->num = strtod_l(buf, NULL, c_locale());
	if (!isfinite(p->num)) {
		fail(p, CC_CALC_RANGE, "the number '%.40s' is too large", buf);
		p->tok = T_BAD;
		p->bad = 0;
		return;
	}
	p->tok = T_NUM;
}

static void
next(struct parser *p)
{
	int32_t cp;
	size_t at;

	for (;;) {
		if (p->i >= p->len) {
			p->tok = T_END;
			return;
		}
		at = p->i;
		cp = cc_utf8_next(p->s, p->len, &p->i);
		if (!is_space(cp))
			break;
	}
	if (digit_value(cp) >= 0 || is_point(cp)) {
		p->i = at;
		lex_number(p);
		return;
	}
	switch (cp) {
	case '+': case 0xFF0B:
		p->tok = T_PLUS;
		break;
	case '-': case 0xFF0D: case 0x2212:
		p->tok = T_MINUS;
		break;
	case '*': case 0xFF0A: case 0x00D7:
		p->tok = T_TIMES;
		break;
	case 'x': case 'X': case 0xFF58: case 0xFF38:
		p->tok = T_X;	/* a times sign only between operands */
		break;
	case '/': case 0xFF0F: case 0x00F7:
		p->tok = T_DIV;
		break;
	case '(': case 0xFF08:
		p->tok = T_LP;
		break;
	case ')': case 0xFF09:
		p->tok = T_RP;
		break;
	default:
		p->tok = T_BAD;
		p->bad = cp;
		break;
	}
}

/* The message for a token where an operand should stand. */
static int
want_operand(struct parser *p)
{
	char c[16];

	switch (p->tok) {
	case T_END:
		return fail(p, CC_CALC_SYNTAX, p->nops || p->depth ?
		    "the expression ends where a number should follow" : "empty expression");
	case T_RP:
		return fail(p, CC_CALC_SYNTAX, "')' where a number should stand");
	case T_BAD:
		return fail(p, CC_CALC_SYNTAX, "unexpected '%s'", show_char(p->bad, c));
	case T_X:
		return fail(p, CC_CALC_SYNTAX, "unexpected 'x'");
	default:
		return fail(p, CC_CALC_SYNTAX, "two operators in a row");
	}
}

static int parse_expr(struct parser *p, struct val *out);

static int
parse_atom(struct parser *p, struct val *out)
{
	if (p->tok == T_NUM) {
		*out = (struct val){ .v = p->num };
		next(p);
		return 0;
	}
	if (p->tok != T_LP)
		return want_operand(p);
	if (++p->depth > MAX_DEPTH)
		return fail(p, CC_CALC_SYNTAX, "parentheses nested more than %d deep", MAX_DEPTH);
	next(p);
	if (parse_expr(p, out) < 0)
		return -1;
	if (p->tok != T_RP)
		return p->tok == T_END ? fail(p, CC_CALC_SYNTAX, "unbalanced parentheses: a '(' is not closed") :
		    fail(p, CC_CALC_SYNTAX, "two numbers with no operator");
	p->depth--;
	next(p);
	return 0;
}

static int
apply(struct parser *p, struct val *acc, char op, const struct val *r)
{
	double v;

	switch (op) {
	case '+': v = acc->v + r->v; break;
	case '-': v = acc->v - r->v; break;
	case '*': v = acc->v * r->v; break;
	default:
		if (r->v == 0)
			return fail(p, CC_CALC_DIVZERO, "division by zero");
		v = acc->v / r->v;
		break;
	}
	if (!isfinite(v))
		return fail(p, CC_CALC_RANGE, "the result is too large");
	*acc = (struct val){ .v = v, .op = op, .l = acc->v, .r = r->v };
	p->nops++;
	return 0;
}

static int
parse_term(struct parser *p, struct val *out)
{
	struct val r;

	if (parse_atom(p, out) < 0)
		return -1;
	while (p->tok == T_TIMES || p->tok == T_X || p->tok == T_DIV) {
		char op = p->tok == T_DIV ? '/' : '*';

		next(p);
		if (parse_atom(p, &r) < 0 || apply(p, out, op, &r) < 0)
			return -1;
	}
	return 0;
}

/* [sign] term {(+|-) term}: a sign only here, at the start of the whole
   expression or of a group. */
static int
parse_expr(struct parser *p, struct val *out)
{
	enum tok sign = T_END;
	struct val r;

	if (p->tok == T_PLUS || p->tok == T_MINUS) {
		sign = p->tok;
		next(p);
	}
	if (parse_term(p, out) < 0)
		return -1;
	if (sign == T_MINUS)
		*out = (struct val){ .v = -out->v, .op = 'n', .r = out->v };
	while (p->tok == T_PLUS || p->tok == T_MINUS) {
		char op = p->tok == T_PLUS ? '+' : '-';

		next(p);
		if (parse_term(p, &r) < 0 || apply(p, out, op, &r) < 0)
			return -1;
	}
	return 0;
}

int
cc_calc_parse(const char *expr, size_t len, struct cc_calc_expr *e, char *err,
    size_t errlen)
{
	struct parser p = { .s = expr ? expr : "", .len = expr ? len : 0,
	    .err = err, .errlen = errlen };
	struct val v;

	memset(e, 0, sizeof *e);
	if (err && errlen)
		err[0] = '\0';
	next(&p);
	if (parse_expr(&p, &v) == 0 && p.tok != T_END) {
		if (p.tok == T_RP)
			fail(&p, CC_CALC_SYNTAX, "unbalanced parentheses: a ')' without '('");
		else if (p.tok == T_NUM || p.tok == T_LP)
			fail(&p, CC_CALC_SYNTAX, "two numbers with no operator");
		else
			want_operand(&p);
	}
	if (p.status != CC_CALC_OK)
		return p.status;
	e->value = v.v;
	e->op = v.op;
	e->lhs = v.l;
	e->rhs = v.r;
	e->nops = p.nops;
	return CC_CALC_OK;
}

int
cc_calc_eval(const char *expr, size_t len, double *value, char *err, size_t errlen)
{
	struct cc_calc_expr e;
	int st = cc_calc_parse(expr, len, &e, err, errlen);

	*value = st == CC_CALC_OK ? e.value : 0;
	return st;
}

/* ---- checking an answer ---- */

/* 1 if v is a whole number a uint64_t holds exactly (below 2^53). */
static int
whole(double v)
{
	return v >= 0 && v < 9007199254740992.0 && v == trunc(v);
}

/* The whole-number division e stands for: 1 and a, b when e is a / b of
   whole numbers with b > 0. */
static int
whole_division(const struct cc_calc_expr *e, uint64_t *a, uint64_t *b)
{
	if (e->op != '/' || !whole(e->lhs) || !whole(e->rhs) || e->rhs == 0)
		return 0;
	*a = (uint64_t)e->lhs;
	*b = (uint64_t)e->rhs;
	return 1;
}

int
cc_calc_remainder_form(const struct cc_calc_expr *e, char *buf, size_t buflen)
{
	uint64_t a, b;

	if (buflen)
		buf[0] = '\0';
	if (!whole_division(e, &a, &b) || a % b == 0)
		return 0;
	snprintf(buf, buflen, "%llu" "あまり" "%llu", (unsigned long long)(a / b),
	    (unsigned long long)(a % b));
	return 1;
}

int
cc_calc_is_right(const struct cc_calc_expr *e, const struct cc_calc_answer *a)
{
	uint64_t x, y;

	switch (a->kind) {
	case CC_CALC_ANSWER_NUMBER:
		return fabs(a->value - e->value) < 1e-9;
	case CC_CALC_ANSWER_REMAINDER:
		return whole_division(e, &x, &y) && whole(a->value) && whole(a->remainder) &&
		    (uint64_t)a->value == x / y && (uint64_t)a->remainder == x % y;
	default:
		return 0;
	}
}

void
cc_calc_check(const char *expr, size_t elen, const char *answer, size_t alen,
    struct cc_calc_check *c)
{
	memset(c, 0, sizeof *c);
	c->status = cc_calc_parse(expr, elen, &c->expr, NULL, 0);
	if (c->status != CC_CALC_OK)
		return;
	cc_calc_format(c->expr.value, c->correct_answer);
	cc_calc_remainder_form(&c->expr, c->remainder_form, sizeof c->remainder_form);
	cc_calc_parse_answer(answer ? answer : "", answer ? alen : 0, &c->answer);
	c->is_correct = cc_calc_is_right(&c->expr, &c->answer);
	c->mistake = c->is_correct ? CC_CALC_MISTAKE_NONE : cc_calc_diagnose(&c->expr, &c->answer);
}

/* ---- calculate_and_verify ---- */

/* Skip one digit, ASCII or full-width, at s[*i]; 1 if there was one. */
static int
skip_digit(const char *s, size_t n, size_t *i)
{
	if (*i < n && s[*i] >= '0' && s[*i] <= '9') {
		(*i)++;
		return 1;
	}
	/* ０-９ are EF BC 90 - EF BC 99 */
	if (*i + 2 < n && (unsigned char)s[*i] == 0xEF && (unsigned char)s[*i + 1] == 0xBC &&
	    (unsigned char)s[*i + 2] >= 0x90 && (unsigned char)s[*i + 2] <= 0x99) {
		*i += 3;
		return 1;
	}
	return 0;
}

static int
skip_lit(const char *s, size_t n, size_t *i, const char *lit)
{
	size_t k = strlen(lit);

	if (*i + k <= n && memcmp(s + *i, lit, k) == 0) {
		*i += k;
		return 1;
	}
	return 0;
}

static void
skip_space(const char *s, size_t n, size_t *i)
{
	while (skip_lit(s, n, i, " ") || skip_lit(s, n, i, "\t") || skip_lit(s, n, i, "\u3000"))
		;
}

/* Digits with an optional decimal part; 1 if there were digits. */
static int
skip_number(const char *s, size_t n, size_t *i)
{
	int d = 0;

	while (skip_digit(s, n, i))
		d++;
	if (skip_lit(s, n, i, ".") || skip_lit(s, n, i, "．"))
		while (skip_digit(s, n, i))
			d++;
	return d > 0;
}

/*
 * The answer forms the tool takes (../shared/eval/homework-coach README,
 * "Child answer"): a number in ASCII or full-width digits, trimmed, with
 * an optional trailing こ or です, or Q あまり R.  Anything else is no
 * answer (a calculation error): a child's spoken forms (じゅうご, 68だよ)
 * are the stage's to read (cc_calc_from_words), which hands this digits.
 */
static int
tool_answer_form(const char *s, size_t n)
{
	size_t i = 0;

	skip_space(s, n, &i);
	skip_lit(s, n, &i, "-");
	if (!skip_number(s, n, &i))
		return 0;
	skip_space(s, n, &i);
	if (skip_lit(s, n, &i, "あまり")) {
		skip_space(s, n, &i);
		if (!skip_number(s, n, &i))
			return 0;
	} else if (!skip_lit(s, n, &i, "こ")) {
		skip_lit(s, n, &i, "です");
	}
	skip_space(s, n, &i);
	return i == n;
}

/*
 * Said when the hints file is missing or has none of the keys: a wrong
 * answer must still come with a hint (callers test it for emptiness).
 */
#define HINT_LAST_RESORT_JA "もう一度、ゆっくり たしかめてみよう。"
#define HINT_LAST_RESORT_EN "Let's check it once more, slowly."

/* The grade whose hints apply: the original gives any grade other than 1
   or 2 the grade-3 hint. */
static int
hint_grade(double g)
{
	return g == 1 || g == 2 ? (int)g : 3;
}

/* The ones digit of a whole operand, for the hints' {a1} {b1}. */
static void
ones(double v, char out[4])
{
	if (whole(v))
		snprintf(out, 4, "%d", (int)((uint64_t)v % 10));
	else
		out[0] = '\0';
}

/*
 * Whether a filled hint states the answer (or its remainder form), as
 * cc_calc_states_value says, remembered: reading a reply for every form a
 * number can take costs about 36,000 instructions, and a session asks it
 * of the same hint for the same problem at each wrong answer.  A table of
 * the last verdicts by the hint's text and the two answers (kept whole and
 * compared byte for byte, so a verdict is never another text's), one
 * place per hash; a text too long for a place is read each time.
 */
#define STATES_MEMO 2048
#define STATES_KEY 368
static struct {
	unsigned short len;	/* of key; 0: empty */
	unsigned char verdict;
	char key[STATES_KEY];	/* text NUL answer NUL remainder */
} states_memo[STATES_MEMO];
static pthread_mutex_t states_lock = PTHREAD_MUTEX_INITIALIZER;

static int
states_answer(const char *text, size_t len, const struct cc_calc_check *c)
{
	size_t na = strlen(c->correct_answer), nr = strlen(c->remainder_form);
	size_t n = len + na + nr + 2;
	char key[STATES_KEY];
	uint64_t h = 14695981039346656037u;	/* FNV-1a */
	int verdict;

	if (!c->correct_answer[0] && !c->remainder_form[0])
		return 0;
	if (n > STATES_KEY || memchr(text, '\0', len))
		return cc_calc_states_value(text, len, c->correct_answer) ||
		    cc_calc_states_value(text, len, c->remainder_form);
	memcpy(key, text, len);
	key[len] = '\0';
	memcpy(key + len + 1, c->correct_answer, na + 1);
	memcpy(key + len + 2 + na, c->remainder_form, nr);
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)key[i]) * 1099511628211u;
	h %= STATES_MEMO;
	pthread_mutex_lock(&states_lock);
	if (states_memo[h].len == n && memcmp(states_memo[h].key, key, n) == 0) {
		verdict = states_memo[h].verdict;
		pthread_mutex_unlock(&states_lock);
		return verdict;
	}
	pthread_mutex_unlock(&states_lock);
	verdict = (c->correct_answer[0] &&
	    cc_calc_states_value(text, len, c->correct_answer)) ||
	    (c->remainder_form[0] && cc_calc_states_value(text, len, c->remainder_form));
	pthread_mutex_lock(&states_lock);
	memcpy(states_memo[h].key, key, n);
	states_memo[h].len = (unsigned short)n;
	states_memo[h].verdict = (unsigned char)verdict;
	pthread_mutex_unlock(&states_lock);
	return verdict;
}

/*
 * Fill the first hint of keys that exists, uses only the variables set,
 * and does not state the answer; into b.  0, or -1 when none qualifies.
 */
static int
pick_hint(const struct cc_texts *hints, const char *const *keys, size_t nkeys,
    const char *lang, const struct cc_var *vars, const struct cc_calc_check *c,
    struct cc_buf *b)
{
	static const char *const names[] = { "{a}", "{b}", "{a1}", "{b1}", "{op}", "{dan}" };

	for (size_t k = 0; k < nkeys; k++) {
		const char *t = hints ? cc_texts_get(hints, keys[k], lang, NULL) : NULL;
		int unfilled = 0;

		if (!t)
			continue;
		b->len = 0;
		cc_texts_fill(b, t, vars);
		if (!b->data)
			continue;
		for (size_t n = 0; n < sizeof names / sizeof names[0]; n++)
			unfilled |= strstr(b->data, names[n]) != NULL;
		if (unfilled || states_answer(b->data, b->len, c))
			continue;
		return 0;
	}
	return -1;
}

static jv
hint_text(const struct cc_texts *hints, const struct cc_calc_check *c, int grade,
    const char *lang)
{
	char keys[6][64], a[CC_CALC_NUMLEN], bnum[CC_CALC_NUMLEN], a1[4], b1[4], dan[4];
	const char *kp[6], *mname, *op = NULL;
	struct cc_var vars[8];
	struct cc_buf b = {0};
	size_t nk = 0, nv = 0;
	jv out;

	if (c->status != CC_CALC_OK) {
		snprintf(keys[nk++], 64, "calc.invalid");
	} else if (c->answer.kind == CC_CALC_ANSWER_NONE) {
		snprintf(keys[nk++], 64, "calc.noanswer.g%d", grade);
		snprintf(keys[nk++], 64, "calc.noanswer");
	} else {
		if (!(mname = cc_calc_mistake_name(c->mistake)))
			mname = "other";
		snprintf(keys[nk++], 64, "calc.%s.g%d", mname, grade);
		snprintf(keys[nk++], 64, "calc.%s", mname);
	}
	snprintf(keys[nk++], 64, "calc.wrong.g%d", grade);
	snprintf(keys[nk++], 64, "calc.wrong");
	for (size_t k = 0; k < nk; k++)
		kp[k] = keys[k];

	/* the problem's operands, when it is one operation on two numbers */
	switch (c->status == CC_CALC_OK ? c->expr.op : 0) {
	case '+': op = "op.add"; break;
	case '-': op = "op.sub"; break;
	case '*': op = "op.mul"; break;
	case '/': op = "op.div"; break;
	}
	if (op) {
		const char *w = hints ? cc_texts_get(hints, op, lang, NULL) : NULL;
		/* the 九九 row: a's for a*b, the divisor's for a/b */
		double d = c->expr.op == '*' ? c->expr.lhs : c->expr.op == '/' ? c->expr.rhs : 0;

		vars[nv++] = (struct cc_var){ "a", cc_calc_format(c->expr.lhs, a), 0 };
		vars[nv++] = (struct cc_var){ "b", cc_calc_format(c->expr.rhs, bnum), 0 };
		ones(c->expr.lhs, a1);
		ones(c->expr.rhs, b1);
		if (a1[0] && b1[0]) {
			vars[nv++] = (struct cc_var){ "a1", a1, 0 };
			vars[nv++] = (struct cc_var){ "b1", b1, 0 };
		}
		if (w)
			vars[nv++] = (struct cc_var){ "op", w, 0 };
		if (d >= 1 && d <= 9 && d == trunc(d)) {
			snprintf(dan, sizeof dan, "%d", (int)d);
			vars[nv++] = (struct cc_var){ "dan", dan, 0 };
		}
	}
	vars[nv] = (struct cc_var){ NULL, NULL, 0 };

	if (pick_hint(hints, kp, nk, lang, vars, c, &b) == 0)
		out = jv_string_sized(b.data, (int)b.len);
	else
		out = jv_string(strcmp(lang, "en") == 0 ? HINT_LAST_RESORT_EN : HINT_LAST_RESORT_JA);
	cc_buf_release(&b);
	return out;
}

/* A string or number argument as text into buf (numbers formatted). */
static const char *
arg_text(jv v, char buf[CC_CALC_NUMLEN], size_t *len)
{
	switch (jv_get_kind(v)) {
	case JV_KIND_STRING:
		*len = (size_t)jv_string_length_bytes(jv_copy(v));
		return jv_string_value(v);
	case JV_KIND_NUMBER:
		cc_calc_format(jv_number_value(v), buf);
		*len = strlen(buf);
		return buf;
	default:
		*len = 0;
		return NULL;
	}
}

jv
cc_calc_verify(const struct cc_texts *hints, jv args)
{
	jv expr = jv_null(), answer = jv_null(), grade = jv_null(), lang = jv_null();
	char ebuf[CC_CALC_NUMLEN], abuf[CC_CALC_NUMLEN], lbuf[8] = "ja";
	const char *es, *as, *mname;
	size_t elen, alen;
	struct cc_calc_check c;
	double g = 3;
	jv r;

	if (jv_get_kind(args) == JV_KIND_OBJECT) {
		/* iterate, not jv_object_get: no key strings to allocate */
		for (int it = jv_object_iter(args); jv_object_iter_valid(args, it);
		    it = jv_object_iter_next(args, it)) {
			jv k = jv_object_iter_key(args, it);
			const char *ks = jv_string_value(k);

			if (strcmp(ks, "expression") == 0) {
				jv_free(expr);
				expr = jv_object_iter_value(args, it);
			} else if (strcmp(ks, "child_answer") == 0) {
				jv_free(answer);
				answer = jv_object_iter_value(args, it);
			} else if (strcmp(ks, "grade_level") == 0) {
				jv_free(grade);
				grade = jv_object_iter_value(args, it);
			} else if (strcmp(ks, "lang") == 0) {
				jv_free(lang);
				lang = jv_object_iter_value(args, it);
			}
			jv_free(k);
		}
	}
	es = arg_text(expr, ebuf, &elen);
	as = arg_text(answer, abuf, &alen);
	if (jv_get_kind(grade) == JV_KIND_NUMBER)
		g = jv_number_value(grade);
	else if (jv_get_kind(grade) == JV_KIND_STRING)
		cc_calc_read_number(jv_string_value(grade),
		    (size_t)jv_string_length_bytes(jv_copy(grade)), &g);
	if (jv_get_kind(lang) == JV_KIND_STRING && strcmp(jv_string_value(lang), "en") == 0)
		strcpy(lbuf, "en");

	if (as && !tool_answer_form(as, alen))
		as = "", alen = 0;
	if (es)
		cc_calc_check(es, elen, as, alen, &c);
	else
		cc_calc_check("", 0, as, alen, &c);	/* no expression: invalid */

	mname = c.status == CC_CALC_OK ? cc_calc_mistake_name(c.mistake) : NULL;
	r = jv_object();
	r = jv_object_set(r, cc_jv_name("correct_answer"), jv_string(c.correct_answer));
	r = jv_object_set(r, cc_jv_name("is_correct"), jv_bool(c.is_correct));
	r = jv_object_set(r, cc_jv_name("error_type"),
	    c.status != CC_CALC_OK ? cc_jv_name("invalid_expression") :
	    c.is_correct ? jv_null() : cc_jv_name("calculation"));
	r = jv_object_set(r, cc_jv_name("hint"), c.is_correct ? cc_jv_name("") :
	    hint_text(hints, &c, hint_grade(g), lbuf));
	r = jv_object_set(r, cc_jv_name("mistake"), mname ? jv_string(mname) : jv_null());
	r = jv_object_set(r, cc_jv_name("remainder_form"),
	    c.remainder_form[0] ? jv_string(c.remainder_form) : jv_null());
	jv_free(expr);
	jv_free(answer);
	jv_free(grade);
	jv_free(lang);
	return r;
}
