/*
 * Why an answer is wrong: each rule recomputes one wrong procedure a child
 * of grades 1-3 is known to follow and asks whether it gives the child's
 * answer.  Nothing is guessed from how far off the answer is, except
 * off_by_one, which is the procedure "counted one too far or too few".
 *
 * The rules, tried in this order (the first that reproduces the answer
 * names the mistake).  a and b are the operands of the operation applied
 * last (23 and 45 in "23 + 45"), c the right value, x the answer.
 *
 *  remainder (a ÷ b of whole numbers, quotient q, remainder r):
 *    - "Q あまり R" with Q = q but R wrong (also R >= b);
 *    - "Q あまり R" with Q*b + R = a but R >= b (stopped too early);
 *    - a plain number x = q when r != 0 (the remainder left out), or
 *      x = q + r/10^k (the remainder written as decimals: 3.2 for 3 r 2).
 *  swapped_operands (- and ÷): x = b - a, x = b / a, or the quotient and
 *    remainder of b ÷ a.
 *  carry (+, and a many-digit number times a one-digit one), whole numbers:
 *    - one or more of the carries dropped (38+24 = 52; 8+5 = 3);
 *    - each column's sum written whole (38+24 = 512);
 *    - a carry added to a column that received none (23+45 = 78);
 *    - times: the carry added before multiplying ((2+1)*4 for 23*4).
 *  borrow (-, a >= b, whole numbers):
 *    - the smaller digit taken from the larger in each column
 *      (52-28 = 36);
 *    - one or more borrows taken but not paid back in the next column
 *      (52-28 = 34; 302-178 = 234).
 *  times_table (九九, one-digit operands): x = p*q for a neighbouring fact,
 *    the next or previous line of the same row (7*8 = 63 or 49, or 64 or
 *    48 from the other factor's row), or both factors one off (7*8 = 54
 *    is 6*9); for a ÷ b in the table, a quotient one off (the wrong line
 *    of b's row).
 *  off_by_one: |x - c| = 1.
 *  place_value: x = c * 10^k or c / 10^k (k = 1..3); the digits of c in
 *    another order (68 for 86); the operands written side by side
 *    (3+5 = 35); the shorter number put under the wrong column
 *    (23+5 = 73, 45-3 = 15); many-digit times many-digit with the
 *    partial products not shifted (23*14 = 115).
 *  other: none of these (and an empty or unparseable answer).
 *
 * Column rules work on whole numbers below 10^15, where uint64_t holds
 * every intermediate exactly.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "coach/cc_calc.h"

#define COLUMN_LIMIT 1e15	/* below this, column arithmetic is exact */
#define MAX_DIGITS 17
#define MAX_SUBSETS 10		/* carries or borrows whose subsets are tried */

const char *
cc_calc_mistake_name(enum cc_calc_mistake m)
{
	switch (m) {
	case CC_CALC_MISTAKE_CARRY: return "carry";
	case CC_CALC_MISTAKE_BORROW: return "borrow";
	case CC_CALC_MISTAKE_OFF_BY_ONE: return "off_by_one";
	case CC_CALC_MISTAKE_SWAPPED: return "swapped_operands";
	case CC_CALC_MISTAKE_PLACE_VALUE: return "place_value";
	case CC_CALC_MISTAKE_REMAINDER: return "remainder";
	case CC_CALC_MISTAKE_TIMES_TABLE: return "times_table";
	case CC_CALC_MISTAKE_OTHER: return "other";
	default: return NULL;
	}
}

/* 1 if v is a whole number >= 0 that column arithmetic handles. */
static int
column_whole(double v)
{
	return v >= 0 && v < COLUMN_LIMIT && v == trunc(v);
}

static int
same(double x, double y)
{
	return fabs(x - y) <= 1e-9 * fmax(1, fabs(y));
}

/* The digits of n, ones first; returns how many (at least 1). */
static int
digits(uint64_t n, int d[MAX_DIGITS])
{
	int k = 0;

	do {
		d[k++] = (int)(n % 10);
		n /= 10;
	} while (n && k < MAX_DIGITS);
	return k;
}

static uint64_t
pow10u(int k)
{
	uint64_t p = 1;

	while (k-- > 0)
		p *= 10;
	return p;
}

/*
 * Digit groups written side by side, most significant first: each column's
 * full result (12 for 8+4) as the child writes it when no carry is made.
 * 0 when the number would not fit.
 */
static uint64_t
side_by_side(const int *col, int n)
{
	uint64_t r = 0;

	for (int i = n - 1; i >= 0; i--) {
		uint64_t scale = col[i] >= 100 ? 1000 : col[i] >= 10 ? 100 : 10;

		if (r > UINT64_MAX / 1000 / 10)
			return 0;
		r = r * scale + (uint64_t)col[i];
	}
	return r;
}

static int
addition_slip(uint64_t a, uint64_t b, uint64_t x)
{
	int da[MAX_DIGITS] = {0}, db[MAX_DIGITS] = {0}, col[MAX_DIGITS];
	int na = digits(a, da), nb = digits(b, db), n = na > nb ? na : nb;
	int carried[MAX_DIGITS] = {0}, cols[MAX_DIGITS], k = 0, cin = 0;
	uint64_t c = a + b;

	for (int i = 0; i < n; i++) {
		int s = da[i] + db[i] + cin;

		cin = s / 10;
		carried[i] = cin;
		if (cin && k < MAX_SUBSETS)
			cols[k++] = i;
		col[i] = da[i] + db[i];
	}
	/* some carries dropped: every non-empty subset of the carrying columns */
	for (unsigned mask = 1; mask < (1u << k); mask++) {
		uint64_t r = 0, p = 1;

		cin = 0;
		for (int i = 0; i < n; i++) {
			int s = da[i] + db[i] + cin, drop = 0;

			for (int j = 0; j < k; j++)
				drop |= (mask >> j & 1) && cols[j] == i;
			r += (uint64_t)(s % 10) * p;
			p *= 10;
			cin = drop ? 0 : s / 10;
		}
		r += (uint64_t)cin * p;
		if (r == x)
			return 1;
	}
	/* every column's sum written whole */
	if (k && side_by_side(col, n) == x)
		return 1;
	/* a carry put into a column that received none (or past the top) */
	for (int i = 1; i <= n; i++)
		if (!carried[i - 1] && x == c + pow10u(i))
			return 1;
	return 0;
}

static int
subtraction_slip(uint64_t a, uint64_t b, uint64_t x)
{
	int da[MAX_DIGITS] = {0}, db[MAX_DIGITS] = {0};
	int n = digits(a, da), cols[MAX_DIGITS], k = 0, bin = 0;
	uint64_t c = a - b, r = 0;

	digits(b, db);
	for (int i = 0; i < n; i++) {
		int d = da[i] - db[i] - bin;

		bin = d < 0;
		if (bin && k < MAX_SUBSETS)
			cols[k++] = i;
	}
	if (!k)
		return 0;	/* no borrowing: no borrow slip to make */
	/* the smaller digit from the larger, column by column */
	for (int i = n - 1; i >= 0; i--)
		r = r * 10 + (uint64_t)abs(da[i] - db[i]);
	if (r == x)
		return 1;
	/* borrowed (ten added) without taking one from the next column */
	for (unsigned mask = 1; mask < (1u << k); mask++) {
		r = c;
		for (int j = 0; j < k; j++)
			if (mask >> j & 1)
				r += pow10u(cols[j] + 1);
		if (r == x)
			return 1;
	}
	return 0;
}

/* A many-digit number times a one-digit one, column by column. */
static int
multiplication_slip(uint64_t big, uint64_t m, uint64_t x)
{
	int d[MAX_DIGITS], n = digits(big, d), col[MAX_DIGITS], cols[MAX_DIGITS], k = 0;
	int cin = 0;
	uint64_t r = 0, p = 1;

	for (int i = 0; i < n; i++) {
		int s = d[i] * (int)m + cin;

		cin = s / 10;
		if (cin && k < MAX_SUBSETS)
			cols[k++] = i;
		col[i] = d[i] * (int)m;
	}
	if (!k)
		return 0;
	for (unsigned mask = 1; mask < (1u << k); mask++) {
		r = 0;
		p = 1;
		cin = 0;
		for (int i = 0; i < n; i++) {
			int s = d[i] * (int)m + cin, drop = 0;

			for (int j = 0; j < k; j++)
				drop |= (mask >> j & 1) && cols[j] == i;
			r += (uint64_t)(s % 10) * p;
			p *= 10;
			cin = drop ? 0 : s / 10;
		}
		r += (uint64_t)cin * p;
		if (r == x)
			return 1;
	}
	if (side_by_side(col, n) == x)
		return 1;
	/* the carry added to the digit before multiplying */
	r = 0;
	p = 1;
	cin = 0;
	for (int i = 0; i < n; i++) {
		int s = (d[i] + cin) * (int)m;

		r += (uint64_t)(s % 10) * p;
		p *= 10;
		cin = s / 10;
	}
	r += (uint64_t)cin * p;
	return r == x;
}

/* x = p*q for a 九九 fact next to a*b (one-digit a, b). */
static int
times_table_slip(int a, int b, double x)
{
	for (int turn = 0; turn < 2; turn++) {
		int A = turn ? b : a, B = turn ? a : b;

		for (int q = B - 1; q <= B + 1; q += 2)
			if (q >= 1 && q <= 9 && same(x, A * q))
				return 1;
		for (int dp = -1; dp <= 1; dp += 2)
			for (int dq = -1; dq <= 1; dq += 2) {
				int p = A + dp, q = B + dq;

				if (p >= 1 && p <= 9 && q >= 1 && q <= 9 && same(x, p * q))
					return 1;
			}
	}
	return 0;
}

static int
ndigits(uint64_t n)
{
	int d[MAX_DIGITS];

	return digits(n, d);
}

/* 1 if x and c are different arrangements of the same digits. */
static int
permuted(uint64_t c, uint64_t x)
{
	int dc[MAX_DIGITS], dx[MAX_DIGITS], n = digits(c, dc), count[10] = {0};

	if (c == x || c < 10 || digits(x, dx) != n)
		return 0;
	for (int i = 0; i < n; i++) {
		count[dc[i]]++;
		count[dx[i]]--;
	}
	for (int i = 0; i < 10; i++)
		if (count[i])
			return 0;
	return 1;
}

static int
place_value_slip(const struct cc_calc_expr *e, double x)
{
	double c = e->value;
	int wa = column_whole(e->lhs), wb = column_whole(e->rhs);
	uint64_t a = wa ? (uint64_t)e->lhs : 0, b = wb ? (uint64_t)e->rhs : 0;

	if (c != 0)
		for (int k = 1; k <= 3; k++) {
			double p = (double)pow10u(k);

			if (same(x, c * p) || same(x, c / p))
				return 1;
		}
	if (column_whole(c) && column_whole(x) && permuted((uint64_t)c, (uint64_t)x))
		return 1;
	if (!wa || !wb || !column_whole(x) || a >= 1e7 || b >= 1e7)
		return 0;
	if (e->op == '+' || e->op == '*') {
		uint64_t pa = pow10u(ndigits(a)), pb = pow10u(ndigits(b));

		if ((uint64_t)x == a * pb + b || (uint64_t)x == b * pa + a)
			return 1;
	}
	if (e->op == '+' || e->op == '-') {
		int na = ndigits(a), nb = ndigits(b);

		for (int k = 1; k <= 2; k++) {
			if (nb + k <= na) {	/* b put k columns too far left */
				uint64_t s = b * pow10u(k);

				if (e->op == '+' ? (uint64_t)x == a + s : (a >= s && (uint64_t)x == a - s))
					return 1;
			}
			if (e->op == '+' && na + k <= nb && (uint64_t)x == b + a * pow10u(k))
				return 1;
		}
	}
	if (e->op == '*' && a >= 10 && b >= 10) {
		/* partial products added without shifting them */
		for (int turn = 0; turn < 2; turn++) {
			uint64_t top = turn ? b : a, bottom = turn ? a : b, sum = 0;
			int d[MAX_DIGITS], n = digits(bottom, d);

			for (int i = 0; i < n; i++)
				sum += top * (uint64_t)d[i];
			if ((uint64_t)x == sum)
				return 1;
		}
	}
	return 0;
}

static enum cc_calc_mistake
diagnose_remainder(const struct cc_calc_expr *e, const struct cc_calc_answer *ans)
{
	double qa = ans->value, ra = ans->remainder;
	uint64_t a, b, q, r;

	if (e->op != '/' || !column_whole(e->lhs) || !column_whole(e->rhs) || e->rhs == 0)
		return CC_CALC_MISTAKE_OTHER;
	a = (uint64_t)e->lhs;
	b = (uint64_t)e->rhs;
	q = a / b;
	r = a % b;
	if (same(qa, (double)q) || same(qa * (double)b + ra, (double)a))
		return CC_CALC_MISTAKE_REMAINDER;
	if (a != 0 && same(qa, (double)(b / a)) && same(ra, (double)(b % a)))
		return CC_CALC_MISTAKE_SWAPPED;
	if (b <= 9 && q <= 9 && fabs(qa - (double)q) == 1)
		return CC_CALC_MISTAKE_TIMES_TABLE;
	if (fabs(qa - (double)q) == 1 && same(ra, (double)r))
		return CC_CALC_MISTAKE_OFF_BY_ONE;
	return CC_CALC_MISTAKE_OTHER;
}

enum cc_calc_mistake
cc_calc_diagnose(const struct cc_calc_expr *e, const struct cc_calc_answer *ans)
{
	double x = ans->value, c = e->value;
	int wa = column_whole(e->lhs), wb = column_whole(e->rhs), wx = column_whole(x);
	uint64_t a = wa ? (uint64_t)e->lhs : 0, b = wb ? (uint64_t)e->rhs : 0;

	if (cc_calc_is_right(e, ans))
		return CC_CALC_MISTAKE_NONE;
	if (ans->kind == CC_CALC_ANSWER_NONE || !isfinite(x))
		return CC_CALC_MISTAKE_OTHER;
	if (ans->kind == CC_CALC_ANSWER_REMAINDER)
		return diagnose_remainder(e, ans);

	switch (e->op) {
	case '/':
		if (wa && wb && b) {
			uint64_t q = a / b, r = a % b;

			if (r && same(x, (double)q))
				return CC_CALC_MISTAKE_REMAINDER;
			if (r && same(x, (double)q + (double)r / (double)pow10u(ndigits(r))))
				return CC_CALC_MISTAKE_REMAINDER;
		}
		if (e->lhs != 0 && same(x, e->rhs / e->lhs) && !same(c, e->rhs / e->lhs))
			return CC_CALC_MISTAKE_SWAPPED;
		if (wa && wb && b >= 1 && b <= 9 && a / b <= 9 && wx &&
		    fabs(x - (double)(a / b)) <= 1 && x >= 1)
			return CC_CALC_MISTAKE_TIMES_TABLE;
		break;
	case '-':
		if (same(x, e->rhs - e->lhs) && !same(c, e->rhs - e->lhs))
			return CC_CALC_MISTAKE_SWAPPED;
		if (wa && wb && wx && a >= b && subtraction_slip(a, b, (uint64_t)x))
			return CC_CALC_MISTAKE_BORROW;
		break;
	case '+':
		if (wa && wb && wx && addition_slip(a, b, (uint64_t)x))
			return CC_CALC_MISTAKE_CARRY;
		break;
	case '*':
		if (wa && wb && a >= 1 && a <= 9 && b >= 1 && b <= 9 && times_table_slip((int)a, (int)b, x))
			return CC_CALC_MISTAKE_TIMES_TABLE;
		if (wa && wb && wx && a >= 10 && b <= 9 && b >= 2 && multiplication_slip(a, b, (uint64_t)x))
			return CC_CALC_MISTAKE_CARRY;
		if (wa && wb && wx && b >= 10 && a <= 9 && a >= 2 && multiplication_slip(b, a, (uint64_t)x))
			return CC_CALC_MISTAKE_CARRY;
		break;
	}
	if (c == trunc(c) && same(fabs(x - c), 1))
		return CC_CALC_MISTAKE_OFF_BY_ONE;
	if (place_value_slip(e, x))
		return CC_CALC_MISTAKE_PLACE_VALUE;
	return CC_CALC_MISTAKE_OTHER;
}
