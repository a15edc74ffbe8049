/*
 * Decision rules as data: cues (named PCRE2 patterns over folded text) and
 * slots (ordered decision lists over cues, other slots and the slots of
 * earlier turns); input slots take a value the caller read from the record.  The engine knows nothing of any venue; a domain's
 * routing.rules file says everything.  The format is in cc-rules(5).
 *
 * Loading compiles every pattern once (UTF, caseless); a broken file is
 * refused with its path, line and the pattern's error.  The JIT compiler
 * runs only once a stream has proved long (JIT_AFTER evaluations): it
 * costs about 5 ms for the bundled rules, two thirds of a cold start,
 * and saves about 2 us per query, so it pays for itself after a few
 * thousand queries and a single question never waits for it.  Evaluation
 * folds the text once, applies the fixes, corrects typos against the
 * vocabulary, runs every cue once, then walks the slots in file order.
 */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <errno.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <utf8proc.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_text.h"
#include "cc_casual.h"
#include "cc_lang.h"
#include "cc_litindex.h"
#include "cc_rules.h"

#define MAX_SLOTS CC_RULES_MAX_SLOTS
#define MAX_CUES 256
#define JIT_AFTER 1000		/* evaluations before the patterns are JIT-compiled */

enum op { OP_CUE, OP_EQ, OP_SET, OP_CMP, OP_NOT, OP_AND, OP_OR };
enum cmp { CMP_LT, CMP_LE, CMP_GT, CMP_GE };

/* An expression node; expressions live in one array, children by index. */
struct node {
	enum op op;
	int a, b;		/* children, or the cue index for OP_CUE */
	int scope, slot;	/* OP_EQ/OP_SET/OP_CMP: which turn, which slot */
	const char *value;	/* OP_EQ: interned, or NULL for null */
	enum cmp cmp;		/* OP_CMP: slot <, <=, >, >= num */
	double num;
};

struct rule {
	char *id;		/* "slot:line", shown in traces */
	const char *value;	/* literal value, interned; NULL for "null" */
	char *copy;		/* the slot name of a copy rule, until resolved */
	int copy_scope, copy_slot;	/* copy_slot >= 0: "=prev.type" */
	int expr;		/* -1: otherwise */
	int entry;		/* its first test in the jump list (jumps_make) */
	int line;
	char *expr_src;		/* kept until compiled */
};

/* What a count slot adds up: a cue's matching lines, or a slot that is set. */
struct count_item {
	int cue;		/* >= 0: a cue */
	int slot;		/* >= 0: a slot */
	char *name;		/* until resolved */
};

enum slot_kind { SLOT_RULES, SLOT_COUNT };

struct slot {
	char *name;
	enum slot_kind kind;
	struct rule *rules;
	size_t nrules;
	int input;		/* set from the record (input SLOT PATH), no rules */
	struct count_item *items;	/* SLOT_COUNT */
	size_t nitems;
	int line;
	const char *value;	/* this evaluation */
	int fired;		/* index of the rule that set it, or -1 */
};

/*
 * A condition as a list of leaf tests, each saying where to go next when
 * it holds and when it does not (another test, or the verdict): the
 * tests a condition's tree would evaluate, in the same order, without
 * walking its AND and OR nodes.  "context & a & !b & ... & !n" is one
 * test when context is false, where the tree, which leans left, went
 * down and up fourteen nodes.
 */
enum { JUMP_TRUE = -1, JUMP_FALSE = -2 };
struct test {
	unsigned char op;	/* OP_CUE, OP_SET, OP_EQ or OP_CMP */
	unsigned char scope;
	unsigned char cmp;
	int arg;		/* the cue, or the slot */
	int t, f;		/* the next test, or JUMP_TRUE / JUMP_FALSE */
	union {
		const char *value;	/* OP_EQ */
		double num;		/* OP_CMP */
	} u;
};

/* A member cc-route adds to its route: output NAME [KIND] SLOT... */
enum output_kind { OUT_STRING, OUT_LIST, OUT_NUMBER, OUT_FLAG };
struct output {
	char *name;
	enum output_kind kind;
	char **slot_names;	/* until resolved */
	int *slots;
	size_t nslots;
	int line;
};

struct cue {
	char *name;
	struct cc_buf src;
	int line;
	pcre2_code *re;
	pcre2_code *re_anchored;	/* the same, anchored, once JIT-compiled */
	int always;		/* no literal prefilter: always run the pattern */
	size_t start, end;	/* the match in the folded text */
	char **lines;		/* each line's pattern, for counts */
	size_t nlines;
	pcre2_code **line_re;	/* compiled when a count needs them */
};

struct fix {
	pcre2_code *re;
	char *replacement;
	int always;
};

/* What a rules cache file holds (the end of this file). */
struct cache {
	pcre2_code **codes;	/* taken over by the loader */
	size_t ncodes;
	const unsigned char *flags;	/* into the file's bytes */
	size_t nflags;
	const unsigned char *lits;	/* the literals, checked */
	size_t nlits;
	const unsigned char *snap;	/* the parsed rules (snapshot_read) */
	size_t nsnap;
};

struct cc_rules {
	char *path;
	struct cue cues[MAX_CUES];
	size_t ncues;
	struct slot slots[MAX_SLOTS];
	size_t nslots;
	struct fix *fixes;
	size_t nfixes;
	char **vocab;
	size_t *vocab_len;
	size_t nvocab;
	char **skip_agents;	/* turns of these agents give no context */
	size_t nskip;
	char **neutral_cues;	/* language cues that take the session's */
	size_t nneutral;
	struct input {
		int slot;
		char *path;	/* dotted path of the record member */
		int upper;	/* upper-cased, as Python's str.upper() */
	} *inputs;
	size_t ninputs;
	char *input_copy[MAX_SLOTS];	/* input values the rules never name */
	int pinned[MAX_SLOTS];		/* cc_rules_pin(): decided by the caller */
	const char *pin_value[MAX_SLOTS];
	char *pin_copy[MAX_SLOTS];	/* pinned values the rules never name */
	struct node *nodes;
	size_t nnodes, capnodes;
	struct test *jumps;	/* the conditions as tests and jumps (jumps_make) */
	size_t njumps;
	struct output *outputs;
	size_t noutputs;
	char **interned;	/* every value the file names, once */
	size_t ninterned;
	char **itab;		/* the same, hashed: cc_rules_intern is per turn */
	size_t nitab;		/* a power of two, at least twice ninterned */
	pcre2_match_data *md;
	unsigned long evals;	/* evaluations so far, up to JIT_AFTER */
	int jit;		/* the patterns are JIT-compiled */
	struct cc_litindex *lits;	/* targets: cues, then MAX_CUES + fix */
	int no_prefilter;	/* CC_RULES_NO_PREFILTER: check the prefilter */
	int casual;		/* "normalise casual": cc_casual() after folding */
	struct cc_lithit *hits;	/* zero but for the targets in touched */
	int *touched;		/* the targets the last scan found */
	size_t ntouched;
	/* the current evaluation */
	uint32_t gen;		/* counts evaluations, from 1, up to 2^31 - 1 */
	/*
	 * Each cue's verdict, gen << 1 | matched: a cue of another evaluation
	 * is untried.  Apart from the cues, so that asking about one reads
	 * four bytes of one array, not a line of the cue's own.
	 */
	uint32_t tried[MAX_CUES];
	int has_last;		/* the engine's own cue, context */
	uint64_t matched_set[MAX_CUES / 64];	/* the cues with a pattern that matched */
	char *text;
	size_t text_len;
	const char *scope_values[3][MAX_SLOTS];	/* this, last, prev turn */
	int inherited;		/* a value was copied from this scope */
	char err[512];		/* the first problem */
	struct cc_problems *problems;	/* cc_rules_check(): every problem */
	/*
	 * Loading from the cache: the prefilter's flags and index it holds;
	 * or loading to write one: the patterns compiled, in that order.
	 */
	const struct cache *cache;
	pcre2_code **made;
	size_t nmade;
	int record;
	/*
	 * The cues' and the slots' names hashed (index + 1, 0 empty), filed
	 * as they are looked up: a condition names them by the hundred, and
	 * a walk of the list for each was a tenth of loading the rules.
	 */
	unsigned short cue_tab[2 * MAX_CUES], slot_tab[2 * MAX_SLOTS];
	size_t cues_filed, slots_filed;
	/*
	 * Loaded from the cache: its bytes, which the names, patterns'
	 * sources and values point into (never freed one by one).
	 */
	char *blob;
	size_t blob_len;
	int blob_mapped;	/* mmap'd, not malloc'd */
};

enum { SCOPE_THIS, SCOPE_LAST, SCOPE_PREV };

/* Free a string unless it lies in the cache's bytes. */
static void
sfree(const struct cc_rules *r, void *p)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)r->blob;

	if (!r->blob || a < b || a >= b + r->blob_len)
		free(p);
}

static int __attribute__((format(printf, 3, 4)))
load_error(struct cc_rules *r, int line, const char *fmt, ...)
{
	va_list ap;
	char msg[512];
	int n = snprintf(msg, sizeof msg, "%s:%d: ", r->path, line);

	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
	va_end(ap);
	if (!r->err[0])
		snprintf(r->err, sizeof r->err, "%s", msg);
	if (r->problems)
		cc_problem(r->problems, "%s", msg);
	return -1;
}

/*
 * Values are interned: a slot holds a pointer into this table, so testing
 * slot=value compares pointers.  Session values are mapped here too
 * (cc_rules_intern) before they are compared.
 */
static size_t
intern_hash(const char *v)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

/* The slot of v in itab: where it is, or the empty one it would go in. */
static char **
intern_slot(char **itab, size_t nitab, const char *v)
{
	size_t i = intern_hash(v) & (nitab - 1);

	while (itab[i] && strcmp(itab[i], v) != 0)
		i = (i + 1) & (nitab - 1);
	return &itab[i];
}

static char *
intern(struct cc_rules *r, const char *v)
{
	char **slot;

	if (2 * (r->ninterned + 1) > r->nitab) {
		size_t n = r->nitab ? 2 * r->nitab : 64;

		free(r->itab);
		r->itab = calloc(n, sizeof *r->itab);
		if (!r->itab)
			cc_die(CC_EXIT_INTERNAL, "out of memory");
		r->nitab = n;
		for (size_t i = 0; i < r->ninterned; i++)
			*intern_slot(r->itab, n, r->interned[i]) = r->interned[i];
	}
	slot = intern_slot(r->itab, r->nitab, v);
	if (*slot)
		return *slot;
	r->interned = cc_xrealloc(r->interned, (r->ninterned + 1) * sizeof *r->interned);
	return *slot = r->interned[r->ninterned++] = cc_xstrdup(v);
}

const char *
cc_rules_intern(const struct cc_rules *r, const char *v)
{
	return v && r->nitab ? *intern_slot(r->itab, r->nitab, v) : NULL;
}

/*
 * Look name up in a table of 2 * max entries over names[0..n), filing
 * the names from *filed on first (names are only ever added, at the end,
 * and never change): the first of equal names is found, as by a walk.
 */
#define NAME_AT(base, size, i) (*(char *const *)((const char *)(base) + (size_t)(i) * (size)))
static int
find_name(unsigned short *tab, size_t max, const void *names, size_t size,
    size_t n, size_t *filed, const char *name)
{
	size_t mask = 2 * max - 1, h;

	for (; *filed < n; ++*filed) {
		const char *s = NAME_AT(names, size, *filed);

		if (!s)
			continue;
		for (h = intern_hash(s) & mask; tab[h]; h = (h + 1) & mask)
			;
		tab[h] = (unsigned short)(*filed + 1);
	}
	for (h = intern_hash(name) & mask; tab[h]; h = (h + 1) & mask)
		if (strcmp(NAME_AT(names, size, tab[h] - 1), name) == 0)
			return tab[h] - 1;
	return -1;
}

/* The tables are filed as a side effect, hence the casts: r is never const. */
static int
find_slot(const struct cc_rules *r, const char *name)
{
	struct cc_rules *w = (struct cc_rules *)r;

	return find_name(w->slot_tab, MAX_SLOTS, &r->slots[0].name, sizeof r->slots[0],
	    r->nslots, &w->slots_filed, name);
}

static int
find_cue(const struct cc_rules *r, const char *name)
{
	struct cc_rules *w = (struct cc_rules *)r;

	return find_name(w->cue_tab, MAX_CUES, &r->cues[0].name, sizeof r->cues[0],
	    r->ncues, &w->cues_filed, name);
}

static pcre2_code *
compile_with(struct cc_rules *r, int line, const char *what, const char *src,
    uint32_t extra)
{
	size_t flen;
	char *folded;
	int errcode;
	PCRE2_SIZE erroff;
	pcre2_code *re;

	folded = cc_text_fold(src, strlen(src), &flen, CC_FOLD_KEEP_CASE);
	/*
	 * No PCRE2_UCP, on purpose: with it \b and \w count kana and kanji as
	 * word characters, so "wifi" in "Wifiの料金" has no word boundary.
	 * Without it they mean Latin words and digits, which is what a rule
	 * means by \b.  UTF mode still matches case and classes in Unicode.
	 */
	re = pcre2_compile((PCRE2_SPTR)folded, flen,
	    PCRE2_UTF | PCRE2_CASELESS | PCRE2_MATCH_INVALID_UTF | extra,
	    &errcode, &erroff, NULL);

	if (!re) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(errcode, msg, sizeof msg);
		load_error(r, line, "%s: bad pattern '%s': %s at byte %zu",
		    what, src, (char *)msg, (size_t)erroff);
	}
	free(folded);
	if (re && r->record) {
		r->made = cc_xrealloc(r->made, (r->nmade + 1) * sizeof *r->made);
		r->made[r->nmade++] = re;
	}
	return re;
}

static pcre2_code *
compile(struct cc_rules *r, int line, const char *what, const char *src)
{
	return compile_with(r, line, what, src, 0);
}

static int
add_literals(struct cc_rules *r, const char *src, int target)
{
	size_t n;
	char *folded;
	int rc;

	folded = cc_text_fold(src, strlen(src), &n, CC_FOLD_KEEP_CASE);
	rc = cc_litindex_add_pattern(r->lits, folded, target);

	free(folded);
	return rc;
}

/* ---- expressions ---- */

struct parser {
	struct cc_rules *r;
	const char *s;
	int line;
	int failed;
};

static int
new_node(struct cc_rules *r, struct node n)
{
	if (r->nnodes == r->capnodes) {
		r->capnodes = r->capnodes ? r->capnodes * 2 : 64;
		r->nodes = cc_xrealloc(r->nodes, r->capnodes * sizeof *r->nodes);
	}
	r->nodes[r->nnodes] = n;
	return (int)r->nnodes++;
}

static void
skip_space(struct parser *p)
{
	while (*p->s == ' ' || *p->s == '\t')
		p->s++;
}

static int
name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

static int parse_or(struct parser *p);

static int
parse_fail(struct parser *p, const char *fmt, const char *arg)
{
	if (!p->failed) {
		char msg[200];

		snprintf(msg, sizeof msg, fmt, arg);
		load_error(p->r, p->line, "%s", msg);
	}
	p->failed = 1;
	return -1;
}

static int
parse_atom(struct parser *p)
{
	char name[96], value[160];
	size_t n = 0;
	int scope = SCOPE_THIS, slot, node;
	const char *dot;

	skip_space(p);
	if (*p->s == '(') {
		p->s++;
		node = parse_or(p);
		skip_space(p);
		if (*p->s != ')')
			return parse_fail(p, "missing ')' in condition%s", "");
		p->s++;
		return node;
	}
	while (name_char(*p->s) && n < sizeof name - 1)
		name[n++] = *p->s++;
	name[n] = '\0';
	if (n == 0)
		return parse_fail(p, "condition expected at '%s'", p->s);
	if (!strchr("=?<>", *p->s) || !*p->s) {	/* a cue */
		int cue = find_cue(p->r, name);

		if (cue < 0)
			return parse_fail(p, "unknown cue '%s'", name);
		return new_node(p->r, (struct node){ .op = OP_CUE, .a = cue });
	}
	dot = strchr(name, '.');
	if (dot) {
		if (strncmp(name, "last.", 5) == 0)
			scope = SCOPE_LAST;
		else if (strncmp(name, "prev.", 5) == 0)
			scope = SCOPE_PREV;
		else
			return parse_fail(p, "unknown turn in '%s' (last or prev)", name);
	}
	slot = find_slot(p->r, dot ? dot + 1 : name);
	if (slot < 0)
		return parse_fail(p, "unknown slot '%s'", name);
	if (*p->s == '<' || *p->s == '>') {	/* slot<N, slot>=N: a number */
		struct node nd = { .op = OP_CMP, .scope = scope, .slot = slot };
		char *end;

		nd.cmp = *p->s == '<' ? CMP_LT : CMP_GT;
		if (*++p->s == '=') {
			nd.cmp = nd.cmp == CMP_LT ? CMP_LE : CMP_GE;
			p->s++;
		}
		nd.num = strtod(p->s, &end);
		if (end == p->s)
			return parse_fail(p, "number expected after '%s' and its comparison", name);
		p->s = end;
		return new_node(p->r, nd);
	}
	if (*p->s++ == '?')
		return new_node(p->r, (struct node){ .op = OP_SET, .scope = scope, .slot = slot });
	n = 0;
	while (*p->s && !strchr(" \t&|()!", *p->s) && n < sizeof value - 1)
		value[n++] = *p->s++;
	value[n] = '\0';
	if (n == 0)
		return parse_fail(p, "value expected after '%s='", name);
	return new_node(p->r, (struct node){ .op = OP_EQ, .scope = scope,
	    .slot = slot, .value = strcmp(value, "null") ? intern(p->r, value) : NULL });
}

static int
parse_unary(struct parser *p)
{
	int a;

	skip_space(p);
	if (*p->s == '!') {
		p->s++;
		if ((a = parse_unary(p)) < 0)
			return -1;
		return new_node(p->r, (struct node){ .op = OP_NOT, .a = a });
	}
	return parse_atom(p);
}

static int
parse_and(struct parser *p)
{
	int a = parse_unary(p), b;

	for (;;) {
		skip_space(p);
		if (a < 0 || *p->s != '&')
			return a;
		p->s++;
		if ((b = parse_unary(p)) < 0)
			return -1;
		a = new_node(p->r, (struct node){ .op = OP_AND, .a = a, .b = b });
	}
}

static int
parse_or(struct parser *p)
{
	int a = parse_and(p), b;

	for (;;) {
		skip_space(p);
		if (a < 0 || *p->s != '|')
			return a;
		p->s++;
		if ((b = parse_and(p)) < 0)
			return -1;
		a = new_node(p->r, (struct node){ .op = OP_OR, .a = a, .b = b });
	}
}

static int
compile_expr(struct cc_rules *r, int line, const char *src)
{
	struct parser p = { .r = r, .s = src, .line = line };
	int node = parse_or(&p);

	skip_space(&p);
	if (node >= 0 && *p.s)
		return parse_fail(&p, "unexpected '%s' in condition", p.s);
	return node;
}

/* ---- loading ---- */

static void
add_word(char ***list, size_t *n, const char *w)
{
	*list = cc_xrealloc(*list, (*n + 1) * sizeof **list);
	(*list)[(*n)++] = cc_xstrdup(w);
}

static int
parse_rule_line(struct cc_rules *r, struct slot *s, char *line, int lineno)
{
	struct rule rule = { .expr = -1, .copy_slot = -1, .line = lineno };
	char *value = line, *cond;

	if (*value == '"') {	/* a quoted value may hold spaces */
		char *end = strchr(value + 1, '"');

		if (!end)
			return load_error(r, lineno, "unterminated quoted value");
		*end = '\0';
		value++;
		cond = end + 1;
	} else {
		char *rest = line;

		value = cc_word(&rest);
		cond = rest;
	}
	cond = cc_trim(cond);
	if (strncmp(cond, "when ", 5) == 0)
		rule.expr_src = cc_xstrdup(cc_trim(cond + 5));
	else if (strcmp(cond, "otherwise") != 0)
		return load_error(r, lineno, "expected 'VALUE when CONDITION' or "
		    "'VALUE otherwise' in slot '%s'", s->name);
	if (value[0] == '=') {	/* copy another slot: =prev.type, =entity */
		rule.copy_scope = strncmp(value + 1, "last.", 5) == 0 ? SCOPE_LAST :
		    strncmp(value + 1, "prev.", 5) == 0 ? SCOPE_PREV : SCOPE_THIS;
		rule.copy = cc_xstrdup(value + 1 + (rule.copy_scope ? 5 : 0));
		rule.copy_slot = -2;	/* resolved once every slot is known */
	} else {
		rule.value = strcmp(value, "null") ? intern(r, value) : NULL;
	}
	{
		/* "slot:line", without snprintf: a cold start loads every rule */
		char digits[12];
		size_t nl = strlen(s->name), nd = 0;
		unsigned v = (unsigned)lineno;

		do
			digits[nd++] = (char)('0' + v % 10);
		while ((v /= 10) && nd < sizeof digits);
		rule.id = cc_xmalloc(nl + nd + 2);
		memcpy(rule.id, s->name, nl);
		rule.id[nl] = ':';
		for (size_t i = 0; i < nd; i++)
			rule.id[nl + 1 + i] = digits[nd - 1 - i];
		rule.id[nl + 1 + nd] = '\0';
	}
	/* room for 4, 8, 16...: one realloc a rule was its own cost */
	if (s->nrules >= 4 ? !(s->nrules & (s->nrules - 1)) : !s->nrules)
		s->rules = cc_xrealloc(s->rules, (s->nrules < 4 ? 4 : 2 * s->nrules) *
		    sizeof *s->rules);
	s->rules[s->nrules++] = rule;
	return 0;
}

static int
parse_line(struct cc_rules *r, char *line, int lineno, struct slot **cur)
{
	char *rest = line, *kw;
	int indented = *line == ' ' || *line == '\t';

	line = cc_trim(line);
	if (!*line || *line == '#')
		return 0;
	if (indented) {
		if (!*cur)
			return load_error(r, lineno, "indented rule outside a slot");
		return parse_rule_line(r, *cur, line, lineno);
	}
	rest = line;
	kw = cc_word(&rest);
	rest = cc_trim(rest);
	*cur = NULL;
	if (strcmp(kw, "cue") == 0) {
		char *name = cc_word(&rest);
		int i;

		rest = cc_trim(rest);
		if (!*name || !*rest)
			return load_error(r, lineno, "expected 'cue NAME PATTERN'");
		if ((i = find_cue(r, name)) < 0) {
			/* the last place is the engine's own cue, context (finish) */
			if (r->ncues == MAX_CUES - 1)
				return load_error(r, lineno, "more than %d cues", MAX_CUES - 1);
			i = (int)r->ncues++;
			r->cues[i].name = cc_xstrdup(name);
			r->cues[i].line = lineno;
		} else {
			cc_buf_add(&r->cues[i].src, "|", 1);
		}
		/*
		 * check each line alone, so an error names the right line (the
		 * cache holds only rules that passed)
		 */
		{
			int record = r->record;
			pcre2_code *re;

			r->record = 0;
			re = compile(r, lineno, name, rest);
			r->record = record;
			if (!re)
				return -1;
			pcre2_code_free(re);
		}
		if (add_literals(r, rest, i) < 0)
			r->cues[i].always = 1;
		cc_buf_add(&r->cues[i].src, "(?:", 3);
		cc_buf_add(&r->cues[i].src, rest, strlen(rest));
		cc_buf_add(&r->cues[i].src, ")", 1);
		add_word(&r->cues[i].lines, &r->cues[i].nlines, rest);
	} else if (strcmp(kw, "fix") == 0) {
		char *arrow = strstr(rest, " => ");
		struct fix f;

		if (!arrow)
			return load_error(r, lineno, "expected 'fix PATTERN => REPLACEMENT'");
		*arrow = '\0';
		if (!(f.re = compile(r, lineno, "fix", cc_trim(rest))))
			return -1;
		f.replacement = cc_text_fold(arrow + 4, strlen(arrow + 4), NULL, 0);
		f.always = add_literals(r, cc_trim(rest), MAX_CUES + (int)r->nfixes) < 0;
		r->fixes = cc_xrealloc(r->fixes, (r->nfixes + 1) * sizeof *r->fixes);
		r->fixes[r->nfixes++] = f;
	} else if (strcmp(kw, "vocab") == 0) {
		while (*rest) {
			add_word(&r->vocab, &r->nvocab, cc_word(&rest));
			r->vocab_len = cc_xrealloc(r->vocab_len, r->nvocab * sizeof *r->vocab_len);
			r->vocab_len[r->nvocab - 1] = strlen(r->vocab[r->nvocab - 1]);
		}
	} else if (strcmp(kw, "normalise") == 0) {
		if (strcmp(cc_trim(rest), "casual") != 0)
			return load_error(r, lineno, "expected 'normalise casual'");
		r->casual = 1;
	} else if (strcmp(kw, "context-skip") == 0) {
		while (*rest)
			add_word(&r->skip_agents, &r->nskip, cc_word(&rest));
	} else if (strcmp(kw, "language-neutral") == 0) {
		while (*rest)
			add_word(&r->neutral_cues, &r->nneutral, cc_word(&rest));
	} else if (strcmp(kw, "slot") == 0 || strcmp(kw, "count") == 0) {
		char *name = cc_word(&rest);
		struct slot *sl;

		if (!*name || find_slot(r, name) >= 0)
			return load_error(r, lineno, "%s needs a new name", kw);
		if (r->nslots == MAX_SLOTS)
			return load_error(r, lineno, "more than %d slots", MAX_SLOTS);
		sl = &r->slots[r->nslots++];
		sl->name = cc_xstrdup(name);
		sl->line = lineno;
		if (kw[0] == 's') {
			sl->kind = SLOT_RULES;
			*cur = sl;
		} else if (kw[0] == 'c') {	/* count NAME ITEM...: cues and slots */
			sl->kind = SLOT_COUNT;
			while (*rest) {
				sl->items = cc_xrealloc(sl->items, (sl->nitems + 1) * sizeof *sl->items);
				sl->items[sl->nitems++] = (struct count_item){ .cue = -1, .slot = -1,
				    .name = cc_xstrdup(cc_word(&rest)) };
			}
			if (!sl->nitems)
				return load_error(r, lineno, "expected 'count NAME CUE-OR-SLOT...'");
		}
	} else if (strcmp(kw, "input") == 0) {
		/* a slot the caller sets from the record: input SLOT PATH [upper] */
		char *name = cc_word(&rest), *path = cc_word(&rest), *opt = cc_word(&rest);

		if (!*name || !*path || *cc_trim(rest) || (*opt && strcmp(opt, "upper") != 0))
			return load_error(r, lineno, "expected 'input SLOT PATH [upper]'");
		if (find_slot(r, name) >= 0)
			return load_error(r, lineno, "slot needs a new name");
		if (*path == '.' || path[strlen(path) - 1] == '.' || strstr(path, ".."))
			return load_error(r, lineno, "bad path '%s': names joined by '.'", path);
		if (r->nslots == MAX_SLOTS)
			return load_error(r, lineno, "more than %d slots", MAX_SLOTS);
		r->slots[r->nslots].name = cc_xstrdup(name);
		r->slots[r->nslots].input = 1;
		r->inputs = cc_xrealloc(r->inputs, (r->ninputs + 1) * sizeof *r->inputs);
		r->inputs[r->ninputs].slot = (int)r->nslots++;
		r->inputs[r->ninputs].upper = *opt != '\0';
		r->inputs[r->ninputs++].path = cc_xstrdup(path);
	} else if (strcmp(kw, "output") == 0) {	/* output NAME [KIND] SLOT... */
		struct output o = { .line = lineno, .kind = OUT_STRING };
		char *name = cc_word(&rest), *w;

		w = cc_word(&rest);
		if (strcmp(w, "list") == 0 || strcmp(w, "number") == 0 || strcmp(w, "flag") == 0) {
			o.kind = w[0] == 'l' ? OUT_LIST : w[0] == 'n' ? OUT_NUMBER : OUT_FLAG;
			w = cc_word(&rest);
		}
		while (*w) {
			add_word(&o.slot_names, &o.nslots, w);
			w = cc_word(&rest);
		}
		o.name = cc_xstrdup(name);
		r->outputs = cc_xrealloc(r->outputs, (r->noutputs + 1) * sizeof *r->outputs);
		r->outputs[r->noutputs++] = o;
		if (!*name || !o.nslots || (o.kind != OUT_LIST && o.nslots != 1))
			return load_error(r, lineno, "expected 'output NAME [list|number|flag] "
			    "SLOT' (several slots for a list only)");
		for (size_t k = 0; k + 1 < r->noutputs; k++)
			if (strcmp(r->outputs[k].name, name) == 0)
				return load_error(r, lineno, "output '%s' twice", name);
	} else {
		return load_error(r, lineno, "unknown directive '%s'", kw);
	}
	return 0;
}

/*
 * Second pass: patterns joined per cue, conditions and copies resolved.
 * It goes on past a problem, so that cc_rules_check() reports them all.
 */
static int
finish(struct cc_rules *r)
{
	int rc = 0;

	for (size_t i = 0; i < r->ncues; i++) {
		if (!r->cues[i].src.data) {	/* its one line was refused */
			rc = -1;
			continue;
		}
		r->cues[i].re = compile(r, r->cues[i].line, r->cues[i].name,
		    r->cues[i].src.data);
		if (!r->cues[i].re)
			rc = -1;
	}
	if (find_cue(r, "context") >= 0)
		return load_error(r, r->cues[find_cue(r, "context")].line,
		    "'context' is reserved");
	/* 'context' is a cue the engine sets: the session has an earlier turn */
	r->cues[r->ncues++].name = cc_xstrdup("context");
	for (size_t i = 0; i < r->nslots; i++) {
		struct slot *s = &r->slots[i];
		size_t most = 0;	/* the largest count */

		for (size_t k = 0; k < s->nitems; k++) {
			struct count_item *it = &s->items[k];
			int cue = find_cue(r, it->name), sl = find_slot(r, it->name);

			if (cue >= 0 && sl >= 0) {
				rc = load_error(r, s->line, "count %s: '%s' is both a cue "
				    "and a slot", s->name, it->name);
				continue;
			}
			if (sl >= 0 && (size_t)sl >= i) {
				rc = load_error(r, s->line, "count %s: slot '%s' is decided "
				    "later (slots are decided in file order)", s->name, it->name);
				continue;
			}
			if (cue < 0 && sl < 0) {
				rc = load_error(r, s->line, "count %s: no cue or slot '%s'",
				    s->name, it->name);
				continue;
			}
			it->cue = cue;
			it->slot = sl;
			if (cue >= 0 && !r->cues[cue].line_re) {
				struct cue *c = &r->cues[cue];

				c->line_re = calloc(c->nlines + 1, sizeof *c->line_re);
				if (!c->line_re)
					cc_die(CC_EXIT_INTERNAL, "out of memory");
				for (size_t l = 0; l < c->nlines; l++)
					if (!(c->line_re[l] = compile(r, c->line, c->name, c->lines[l])))
						rc = -1;
			}
			most += cue >= 0 && r->cues[cue].nlines ? r->cues[cue].nlines : 1;
		}
		/* counts are interned like every value, so slot=2 compares pointers */
		for (size_t n = 0; s->kind == SLOT_COUNT && n <= most; n++) {
			char num[24];

			snprintf(num, sizeof num, "%zu", n);
			intern(r, num);
		}
		for (size_t k = 0; k < s->nrules; k++) {
			struct rule *ru = &s->rules[k];

			if (ru->copy_slot == -2 &&
			    (ru->copy_slot = find_slot(r, ru->copy)) < 0)
				rc = load_error(r, ru->line, "unknown slot '%s' to copy",
				    ru->copy);
			if (ru->expr_src) {
				ru->expr = compile_expr(r, ru->line, ru->expr_src);
				free(ru->expr_src);
				ru->expr_src = NULL;
				if (ru->expr < 0)
					rc = -1;
			}
		}
	}
	for (size_t i = 0; i < r->noutputs; i++) {
		struct output *o = &r->outputs[i];

		o->slots = cc_xmalloc(o->nslots * sizeof *o->slots);
		for (size_t k = 0; k < o->nslots; k++)
			if ((o->slots[k] = find_slot(r, o->slot_names[k])) < 0)
				rc = load_error(r, o->line, "output %s: unknown slot '%s'",
				    o->name, o->slot_names[k]);
	}
	return rc;
}

/*
 * What an evaluation works in, for rules loaded either way (from the text
 * or from the cache's snapshot): the match data, the prefilter's hits
 * (zero but for the targets the last scan touched, so they must start
 * zeroed) and the list of those targets.
 */
static void
eval_buffers(struct cc_rules *r)
{
	r->md = pcre2_match_data_create(4, NULL);
	r->hits = calloc(MAX_CUES + r->nfixes, sizeof *r->hits);
	r->touched = cc_xmalloc((r->ncues + r->nfixes) * sizeof *r->touched);
	if (!r->md || !r->hits)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
}

/* record: keep the compiled patterns in r->made for the cache. */
static struct cc_rules *
load(const char *path, char *err, size_t errlen, struct cc_problems *problems,
    int record)
{
	struct cc_rules *r = calloc(1, sizeof *r);
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;
	struct slot *cur = NULL;

	if (!r)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	r->path = cc_xstrdup(path);
	r->problems = problems;
	r->record = record;
	r->lits = cc_litindex_new();
	r->no_prefilter = getenv("CC_RULES_NO_PREFILTER") != NULL;
	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		if (problems)
			cc_problem(problems, "%s", err);
		cc_rules_free(r);
		return NULL;
	}
	/* a program stops at the first problem; a check reads on */
	while ((rc == 0 || problems) && getline(&line, &cap, f) >= 0)
		if (parse_line(r, line, ++lineno, &cur) < 0)
			rc = -1;
	free(line);
	fclose(f);
	if ((rc == 0 || problems) && finish(r) < 0)
		rc = -1;
	if (find_slot(r, "agent") < 0)
		rc = load_error(r, lineno, "no 'agent' slot");
	r->record = 0;
	if (rc < 0) {
		snprintf(err, errlen, "%s", r->err);
		cc_rules_free(r);
		return NULL;
	}
	eval_buffers(r);
	return r;
}

struct cc_rules *
cc_rules_load(const char *path, char *err, size_t errlen)
{
	return load(path, err, errlen, NULL, 0);
}

struct cc_rules *
cc_rules_check(const char *path, struct cc_problems *p)
{
	char err[512];

	return load(path, err, sizeof err, p, 0);
}

void
cc_rules_free(struct cc_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ncues; i++) {
		for (size_t l = 0; l < r->cues[i].nlines; l++) {
			sfree(r, r->cues[i].lines[l]);
			if (r->cues[i].line_re)
				pcre2_code_free(r->cues[i].line_re[l]);
		}
		free(r->cues[i].lines);
		free(r->cues[i].line_re);
		sfree(r, r->cues[i].name);
		sfree(r, r->cues[i].src.data);
		pcre2_code_free(r->cues[i].re);
		pcre2_code_free(r->cues[i].re_anchored);
	}
	for (size_t i = 0; i < r->nslots; i++) {
		for (size_t k = 0; k < r->slots[i].nrules; k++) {
			sfree(r, r->slots[i].rules[k].id);
			sfree(r, r->slots[i].rules[k].copy);
			free(r->slots[i].rules[k].expr_src);
		}
		free(r->slots[i].rules);
		sfree(r, r->slots[i].name);
		for (size_t k = 0; k < r->slots[i].nitems; k++)
			sfree(r, r->slots[i].items[k].name);
		free(r->slots[i].items);
	}
	for (size_t i = 0; i < r->noutputs; i++) {
		for (size_t k = 0; k < r->outputs[i].nslots; k++)
			sfree(r, r->outputs[i].slot_names[k]);
		free(r->outputs[i].slot_names);
		free(r->outputs[i].slots);
		sfree(r, r->outputs[i].name);
	}
	free(r->outputs);
	for (size_t i = 0; i < r->nfixes; i++) {
		pcre2_code_free(r->fixes[i].re);
		sfree(r, r->fixes[i].replacement);
	}
	for (size_t i = 0; i < r->ninterned; i++)
		sfree(r, r->interned[i]);
	free(r->interned);
	free(r->itab);
	for (size_t i = 0; i < r->nvocab; i++)
		sfree(r, r->vocab[i]);
	for (size_t i = 0; i < r->nskip; i++)
		sfree(r, r->skip_agents[i]);
	for (size_t i = 0; i < r->nneutral; i++)
		sfree(r, r->neutral_cues[i]);
	for (size_t i = 0; i < r->ninputs; i++)
		sfree(r, r->inputs[i].path);
	free(r->inputs);
	for (size_t i = 0; i < MAX_SLOTS; i++) {
		free(r->input_copy[i]);
		free(r->pin_copy[i]);
	}
	free(r->fixes);
	free(r->vocab);
	free(r->vocab_len);
	free(r->skip_agents);
	free(r->neutral_cues);
	free(r->nodes);
	free(r->jumps);
	free(r->text);
	free(r->hits);
	free(r->touched);
	cc_litindex_free(r->lits);
	free(r->path);
	pcre2_match_data_free(r->md);
	free(r->made);
	if (r->blob_mapped)
		munmap(r->blob, r->blob_len);
	else
		free(r->blob);
	free(r);
}

/* ---- evaluation ---- */

/*
 * Where the literals are in r->text.  Targets: cues from 0, fixes from
 * MAX_CUES.  Only the targets the last scan found are cleared: a question
 * touches a handful of the hundreds, and clearing them all (40 bytes
 * each, once or twice a question) was a twentieth of routing's
 * instructions.
 */
static void
scan_literals(struct cc_rules *r)
{
	for (size_t i = 0; i < r->ntouched; i++)
		r->hits[r->touched[i]].n = 0;
	r->ntouched = 0;
	cc_litindex_scan_touched(r->lits, r->text, r->text_len, r->hits,
	    r->touched, &r->ntouched);
}

/* Apply every fix to r->text (global substitution). */
static void
apply_fixes(struct cc_rules *r)
{
	scan_literals(r);
	for (size_t i = 0; i < r->nfixes; i++) {
		if (!r->fixes[i].always && !r->hits[MAX_CUES + i].n && !r->no_prefilter)
			continue;
		PCRE2_SIZE outlen = r->text_len * 2 + 64;
		char *out = cc_xmalloc(outlen + 1);
		int rc = pcre2_substitute(r->fixes[i].re, (PCRE2_SPTR)r->text,
		    r->text_len, 0, PCRE2_SUBSTITUTE_GLOBAL |
		    PCRE2_SUBSTITUTE_OVERFLOW_LENGTH, NULL, NULL,
		    (PCRE2_SPTR)r->fixes[i].replacement, PCRE2_ZERO_TERMINATED,
		    (PCRE2_UCHAR *)out, &outlen);

		if (rc == PCRE2_ERROR_NOMEMORY) {	/* outlen is now the need */
			out = cc_xrealloc(out, outlen + 1);
			rc = pcre2_substitute(r->fixes[i].re, (PCRE2_SPTR)r->text,
			    r->text_len, 0, PCRE2_SUBSTITUTE_GLOBAL, NULL, NULL,
			    (PCRE2_SPTR)r->fixes[i].replacement, PCRE2_ZERO_TERMINATED,
			    (PCRE2_UCHAR *)out, &outlen);
		}
		if (rc > 0) {	/* the number of substitutions */
			free(r->text);
			r->text = out;
			r->text_len = outlen;
			scan_literals(r);	/* later fixes look at the new text */
		} else {
			free(out);	/* no match, or an error: keep the text */
		}
	}
}

/* Damerau-Levenshtein distance at most 1 (one edit or one swap). */
static int
one_edit(const char *a, size_t la, const char *b, size_t lb)
{
	size_t i = 0;

	if (la > lb + 1 || lb > la + 1)
		return 0;
	while (i < la && i < lb && a[i] == b[i])
		i++;
	if (la == lb) {
		if (i == la)
			return 1;
		if (strncmp(a + i + 1, b + i + 1, la - i - 1) == 0)
			return 1;	/* substitution */
		return i + 1 < la && a[i] == b[i + 1] && a[i + 1] == b[i] &&
		    strncmp(a + i + 2, b + i + 2, la - i - 2) == 0;
	}
	if (la > lb)
		return strncmp(a + i + 1, b + i, lb - i) == 0;	/* deletion */
	return strncmp(a + i, b + i + 1, la - i) == 0;	/* insertion */
}

/*
 * Correct Latin words of five letters or more that are one edit away from
 * exactly one vocabulary word (opning -> opening).  Shorter typos are too
 * ambiguous to guess; the rules' fix lines handle them.
 */
/* Returns whether the text changed. */
static int
correct_typos(struct cc_rules *r)
{
	struct cc_buf out = {0};
	size_t i = 0, changed = 0;

	if (!r->nvocab)
		return 0;
	while (i < r->text_len) {
		size_t start = i;
		const char *best = NULL;
		int candidates = 0, exact = 0;

		while (i < r->text_len && r->text[i] >= 'a' && r->text[i] <= 'z')
			i++;
		if (i == start) {
			cc_buf_add(&out, r->text + i, 1);
			i++;
			continue;
		}
		char w[64];

		snprintf(w, sizeof w, "%.*s", (int)(i - start), r->text + start);
		/* a real word is not a typo: "there" is not "where" */
		if (i - start >= 5 && i - start < sizeof w && !cc_lang_known_word(w)) {
			for (size_t v = 0; v < r->nvocab && !exact; v++) {
				size_t lv = r->vocab_len[v];

				if (lv == i - start && memcmp(r->vocab[v], r->text + start, lv) == 0)
					exact = 1;
				else if (one_edit(r->text + start, i - start, r->vocab[v], lv))
					best = r->vocab[v], candidates++;
			}
		}
		if (!exact && candidates == 1) {
			cc_buf_add(&out, best, strlen(best));
			changed++;
		} else {
			cc_buf_add(&out, r->text + start, i - start);
		}
	}
	if (changed) {
		free(r->text);
		r->text = out.data;
		r->text_len = out.len;
	} else {
		cc_buf_release(&out);
	}
	return changed > 0;
}

/* 1 if the cue's pattern matches at `at` (anchored) or after it. */
static int
match_at(struct cc_rules *r, struct cue *c, size_t at, int anchored)
{
	int rc = anchored && c->re_anchored ?
	    pcre2_match(c->re_anchored, (PCRE2_SPTR)r->text, r->text_len, at, 0, r->md, NULL) :
	    pcre2_match(c->re, (PCRE2_SPTR)r->text, r->text_len, at,
		anchored ? PCRE2_ANCHORED : 0, r->md, NULL);

	/* 0: matched, with more groups than the match data holds */
	if (rc < 0)
		return 0;
	c->start = pcre2_get_ovector_pointer(r->md)[0];
	c->end = pcre2_get_ovector_pointer(r->md)[1];
	return 1;
}

/*
 * Run a cue's pattern the first time a condition needs it.  Every match
 * begins with one of the literals found by the prefilter, so the pattern
 * is tried only where they are (lookbehinds still see the text before);
 * where none is, it is not run at all.  A cue is untried until this
 * evaluation asks (its gen is another's): the hundreds a question never
 * asks about are not touched.
 */
static int
cue_try(struct cc_rules *r, size_t i)
{
	struct cue *c = &r->cues[i];
	const struct cc_lithit *hit = c->always || r->no_prefilter ? NULL : &r->hits[i];
	int m;

	if (!c->re)	/* the engine's own cue */
		m = r->has_last;
	else if (!hit)
		m = match_at(r, c, 0, 0);
	else if (hit->n > CC_LIT_POS)	/* many places: search from the first */
		m = match_at(r, c, hit->pos[0], 0);
	else {
		m = 0;
		for (unsigned k = 0; k < hit->n && !m; k++)
			m = match_at(r, c, hit->pos[k], 1);
	}
	if (m && c->re)
		r->matched_set[i / 64] |= 1ull << (i % 64);
	r->tried[i] = r->gen << 1 | (uint32_t)m;
	return m;
}

static inline int
cue_matches(struct cc_rules *r, size_t i)
{
	uint32_t t = r->tried[i];

	return t >> 1 == r->gen ? (int)(t & 1) : cue_try(r, i);
}

/*
 * The tests of node n, jumping to t when it holds and to f when not;
 * returns the first.  The right operand is made first, so that the left
 * one knows where to go on.
 */
static int
jumps_add(struct cc_rules *r, int n, int t, int f)
{
	const struct node *nd = &r->nodes[n];
	struct test *x;

	switch (nd->op) {
	case OP_NOT:
		return jumps_add(r, nd->a, f, t);
	case OP_AND:
		return jumps_add(r, nd->a, jumps_add(r, nd->b, t, f), f);
	case OP_OR:
		return jumps_add(r, nd->a, t, jumps_add(r, nd->b, t, f));
	default:
		break;
	}
	x = &r->jumps[r->njumps];
	*x = (struct test){ .op = (unsigned char)nd->op, .scope = (unsigned char)nd->scope,
	    .cmp = (unsigned char)nd->cmp, .t = t, .f = f };
	if (nd->op == OP_CUE)
		x->arg = nd->a;
	else
		x->arg = nd->slot;
	if (nd->op == OP_EQ)
		x->u.value = nd->value;
	else if (nd->op == OP_CMP)
		x->u.num = nd->num;
	return (int)r->njumps++;
}

/* Every rule's condition as tests, at the first evaluation. */
static void
jumps_make(struct cc_rules *r)
{
	/* at most one test a node */
	r->jumps = cc_xmalloc((r->nnodes ? r->nnodes : 1) * sizeof *r->jumps);
	for (size_t s = 0; s < r->nslots; s++)
		for (size_t k = 0; k < r->slots[s].nrules; k++) {
			struct rule *ru = &r->slots[s].rules[k];

			if (ru->expr >= 0)
				ru->entry = jumps_add(r, ru->expr, JUMP_TRUE, JUMP_FALSE);
		}
}

static int
test_holds(struct cc_rules *r, const struct test *x)
{
	const char *v;

	switch (x->op) {
	case OP_CUE:
		return cue_matches(r, (size_t)x->arg);
	case OP_SET:
		return r->scope_values[x->scope][x->arg] != NULL;
	case OP_EQ:	/* values are interned: compare pointers */
		return r->scope_values[x->scope][x->arg] == x->u.value;
	case OP_CMP: {	/* a value that is not a number compares false */
		char *end;
		double n;

		v = r->scope_values[x->scope][x->arg];
		if (!v)
			return 0;
		n = strtod(v, &end);
		if (end == v || *end)
			return 0;
		return x->cmp == CMP_LT ? n < x->u.num : x->cmp == CMP_LE ? n <= x->u.num :
		    x->cmp == CMP_GT ? n > x->u.num : n >= x->u.num;
	}
	}
	return 0;
}

/* Whether the condition that begins at test i holds. */
static int
eval(struct cc_rules *r, int i)
{
	while (i >= 0) {
		const struct test *x = &r->jumps[i];

		i = test_holds(r, x) ? x->t : x->f;
	}
	return i == JUMP_TRUE;
}

int
cc_rules_slot(const struct cc_rules *r, const char *name)
{
	return find_slot(r, name);
}

size_t
cc_rules_nslots(const struct cc_rules *r)
{
	return r->nslots;
}

const char *
cc_rules_slot_name(const struct cc_rules *r, size_t i)
{
	return r->slots[i].name;
}

const char *
cc_rules_get(const struct cc_rules *r, const char *name)
{
	int i = find_slot(r, name);

	return i < 0 ? NULL : r->slots[i].value;
}

const char *
cc_rules_value(const struct cc_rules *r, int slot)
{
	return slot < 0 || (size_t)slot >= r->nslots ? NULL : r->slots[slot].value;
}

int
cc_rules_skips_agent(const struct cc_rules *r, const char *agent)
{
	for (size_t i = 0; agent && i < r->nskip; i++)
		if (strcmp(r->skip_agents[i], agent) == 0)
			return 1;
	return 0;
}

size_t
cc_rules_unfiltered(const struct cc_rules *r, const char **names, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->ncues; i++)
		if (r->cues[i].always && n++ < max)
			names[n - 1] = r->cues[i].name;
	return n;
}

int
cc_rules_language_neutral(const struct cc_rules *r, const char *cue)
{
	for (size_t i = 0; cue && i < r->nneutral; i++)
		if (strcmp(r->neutral_cues[i], cue) == 0)
			return 1;
	return 0;
}

/*
 * JIT-compile every pattern, once the stream has proved long.  JIT code
 * cannot take PCRE2_ANCHORED at match time (the interpreter would run),
 * so each cue gets an anchored twin.  A pattern the JIT cannot take stays
 * interpreted: same matches, slower.  JIT code is invisible to valgrind,
 * which reports its reads as uninitialised: make check-valgrind sets
 * CC_NO_JIT.
 */
static void
jit_all(struct cc_rules *r)
{
	r->jit = 1;
	if (getenv("CC_NO_JIT"))
		return;
	for (size_t i = 0; i < r->ncues; i++) {
		struct cue *c = &r->cues[i];

		if (!c->re)
			continue;
		pcre2_jit_compile(c->re, PCRE2_JIT_COMPLETE);
		c->re_anchored = compile_with(r, c->line, c->name, c->src.data,
		    PCRE2_ANCHORED);
		if (c->re_anchored)	/* it compiled once: it compiles again */
			pcre2_jit_compile(c->re_anchored, PCRE2_JIT_COMPLETE);
	}
	for (size_t i = 0; i < r->nfixes; i++)
		pcre2_jit_compile(r->fixes[i].re, PCRE2_JIT_COMPLETE);
	for (size_t i = 0; i < r->ncues; i++)
		for (size_t l = 0; r->cues[i].line_re && l < r->cues[i].nlines; l++)
			pcre2_jit_compile(r->cues[i].line_re[l], PCRE2_JIT_COMPLETE);
}

/* How many lines of a cue match: each line of a cue is one pattern. */
static size_t
count_lines(struct cc_rules *r, size_t i)
{
	struct cue *c = &r->cues[i];
	size_t n = 0;

	if (!cue_matches(r, i))
		return 0;
	if (c->nlines <= 1)
		return 1;
	for (size_t l = 0; l < c->nlines; l++)
		n += pcre2_match(c->line_re[l], (PCRE2_SPTR)r->text, r->text_len, 0, 0,
		    r->md, NULL) >= 0;
	return n;
}

/* The value of a count slot, as the rules' own string for that number. */
static const char *
count_value(struct cc_rules *r, const struct slot *sl)
{
	char num[24];
	size_t n = 0;

	for (size_t k = 0; k < sl->nitems; k++)
		n += sl->items[k].cue >= 0 ? count_lines(r, (size_t)sl->items[k].cue) :
		    r->scope_values[SCOPE_THIS][sl->items[k].slot] != NULL;
	snprintf(num, sizeof num, "%zu", n);
	return cc_rules_intern(r, num);
}

void
cc_rules_eval(struct cc_rules *r, const char *query, size_t len,
    const struct cc_rules_context *ctx)
{
	if (!r->jit && ++r->evals >= JIT_AFTER)
		jit_all(r);
	if (!r->jumps)
		jumps_make(r);
	free(r->text);
	r->text = cc_text_fold(query, len, &r->text_len, 0);
	if (r->casual) {	/* 開いとる as 開いてる, before any fix or cue */
		size_t n;
		char *c = cc_casual(r->text, r->text_len, &n);

		if (c) {
			free(r->text);
			r->text = c;
			r->text_len = n;
		}
	}
	apply_fixes(r);	/* leaves the literals scanned in the text it leaves */
	if (correct_typos(r))
		scan_literals(r);
	if (++r->gen >= 1u << 31) {	/* every cue untried */
		memset(r->tried, 0, sizeof r->tried);
		r->gen = 1;
	}
	r->has_last = ctx && ctx->has_last;
	memset(r->matched_set, 0, sizeof r->matched_set);
	r->inherited = 0;
	for (size_t s = 0; s < r->nslots; s++) {
		r->scope_values[SCOPE_THIS][s] = NULL;
		r->scope_values[SCOPE_LAST][s] = ctx ? ctx->last[s] : NULL;
		r->scope_values[SCOPE_PREV][s] = ctx ? ctx->prev[s] : NULL;
	}
	/* inputs first, so a condition may test one declared further down */
	for (size_t i = 0; i < r->ninputs; i++) {
		int s = r->inputs[i].slot;
		const char *v = ctx ? ctx->input[s] : NULL;
		const char *iv = cc_rules_intern(r, v);

		if (v && !iv) {	/* a value no rule names: equal to none, but set */
			free(r->input_copy[s]);
			iv = r->input_copy[s] = cc_xstrdup(v);
		}
		r->slots[s].value = iv;
		r->slots[s].fired = -1;
		r->scope_values[SCOPE_THIS][s] = iv;
	}
	for (size_t s = 0; s < r->nslots; s++) {
		struct slot *sl = &r->slots[s];

		if (sl->input)
			continue;
		if (r->pinned[s]) {
			sl->value = r->pin_value[s];
			sl->fired = -2;
			r->scope_values[SCOPE_THIS][s] = sl->value;
			continue;
		}
		sl->value = NULL;
		sl->fired = -1;
		if (sl->kind == SLOT_COUNT)
			sl->value = count_value(r, sl);
		for (size_t k = 0; k < sl->nrules; k++) {
			struct rule *ru = &sl->rules[k];

			const char *v = ru->value;

			if (ru->expr >= 0 && !eval(r, ru->entry))
				continue;
			if (ru->copy_slot >= 0) {
				/* copying nothing does not decide: try the next rule */
				v = r->scope_values[ru->copy_scope][ru->copy_slot];
				if (!v)
					continue;
				if (ru->copy_scope != SCOPE_THIS && !r->inherited)
					r->inherited = ru->copy_scope;
			}
			sl->fired = (int)k;
			sl->value = v;
			break;
		}
		r->scope_values[SCOPE_THIS][s] = sl->value;
	}
}

size_t
cc_rules_ninputs(const struct cc_rules *r)
{
	return r->ninputs;
}

int
cc_rules_input_slot(const struct cc_rules *r, size_t i)
{
	return i < r->ninputs ? r->inputs[i].slot : -1;
}

const char *
cc_rules_input_path(const struct cc_rules *r, size_t i)
{
	return i < r->ninputs ? r->inputs[i].path : NULL;
}

int
cc_rules_by_default(const struct cc_rules *r, int slot)
{
	const struct slot *sl;

	if (slot < 0 || (size_t)slot >= r->nslots)
		return 1;
	sl = &r->slots[slot];
	return sl->fired == -1 || (sl->fired >= 0 && sl->rules[sl->fired].expr < 0);
}

void
cc_rules_pin(struct cc_rules *r, int slot, const char *value)
{
	const char *iv = cc_rules_intern(r, value);

	if (slot < 0 || (size_t)slot >= r->nslots)
		return;
	free(r->pin_copy[slot]);
	r->pin_copy[slot] = NULL;
	if (value && !iv)	/* a value no rule names: equal to none, but set */
		iv = r->pin_copy[slot] = cc_xstrdup(value);
	r->pinned[slot] = 1;
	r->pin_value[slot] = iv;
}

void
cc_rules_unpin(struct cc_rules *r)
{
	for (size_t s = 0; s < r->nslots; s++)
		r->pinned[s] = 0;
}

int
cc_rules_inherited(const struct cc_rules *r)
{
	return r->inherited;
}

const char *
cc_rules_text(const struct cc_rules *r)
{
	return r->text;
}

void
cc_rules_write_trace(struct cc_rules *r, struct cc_jw *w, const char *const *omit)
{
	cc_jw_key(w, "rules");
	cc_jw_array(w);
	for (size_t s = 0; s < r->nslots; s++) {
		const struct slot *sl = &r->slots[s];

		if (sl->fired >= 0) {
			cc_jw_cstr(w, sl->rules[sl->fired].id);
		} else if (sl->fired == -2) {
			char id[160];

			snprintf(id, sizeof id, "%s:pinned", sl->name);
			cc_jw_cstr(w, id);
		}
	}
	cc_jw_end(w);
	cc_jw_key(w, "matched");
	cc_jw_object(w);
	/* the cues that matched, in order (not those never needed) */
	for (size_t k = 0; k < MAX_CUES / 64; k++)
		for (uint64_t m = r->matched_set[k]; m; m &= m - 1) {
			const struct cue *c = &r->cues[k * 64 + (size_t)__builtin_ctzll(m)];

			cc_jw_key(w, c->name);
			cc_jw_str(w, r->text + c->start, c->end - c->start);
		}
	cc_jw_end(w);
	cc_jw_key(w, "slots");	/* the ones that were set */
	cc_jw_object(w);
	for (size_t s = 0; s < r->nslots; s++) {
		int skip = !r->slots[s].value;

		for (size_t k = 0; omit && omit[k] && !skip; k++)
			skip = strcmp(omit[k], r->slots[s].name) == 0;
		if (skip)
			continue;
		cc_jw_key(w, r->slots[s].name);
		cc_jw_cstr(w, r->slots[s].value);
	}
	cc_jw_end(w);
	cc_jw_key(w, "text");
	cc_jw_str(w, r->text, r->text_len);
}

void
cc_rules_each_value(const struct cc_rules *r, const char *slot,
    void (*fn)(void *ctx, const char *value, int line), void *ctx)
{
	int i = find_slot(r, slot);

	for (size_t k = 0; i >= 0 && k < r->slots[i].nrules; k++) {
		const struct rule *ru = &r->slots[i].rules[k];

		if (ru->value && ru->copy_slot < 0)
			fn(ctx, ru->value, ru->line);
	}
	if (strcmp(slot, "agent") == 0)
		for (size_t k = 0; k < r->nskip; k++)
			fn(ctx, r->skip_agents[k], 0);
}

void
cc_rules_read_inputs(const struct cc_rules *r, struct cc_record *rec,
    struct cc_rules_context *rc, char **vals)
{
	for (size_t i = 0; i < cc_rules_ninputs(r); i++) {
		jv v = cc_record_at(rec, cc_rules_input_path(r, i));
		int slot = cc_rules_input_slot(r, i);

		vals[i] = NULL;
		switch (jv_get_kind(v)) {
		case JV_KIND_STRING:
			if ((size_t)jv_string_length_bytes(jv_copy(v)) == strlen(jv_string_value(v)))
				vals[i] = cc_xstrdup(jv_string_value(v));
			break;
		case JV_KIND_TRUE:
		case JV_KIND_FALSE:
		case JV_KIND_NUMBER: {
			jv text = jv_dump_string(jv_copy(v), 0);

			vals[i] = cc_xstrdup(jv_string_value(text));
			jv_free(text);
			break;
		}
		default:
			break;
		}
		jv_free(v);
		if (vals[i] && r->inputs[i].upper) {
			char *u = cc_text_upper(vals[i], strlen(vals[i]), NULL);

			free(vals[i]);
			vals[i] = u;
		}
		rc->input[slot] = vals[i];
	}
}

void
cc_rules_inputs_release(const struct cc_rules *r, char **vals)
{
	for (size_t i = 0; i < cc_rules_ninputs(r); i++)
		free(vals[i]);	/* the rules keep their own copy */
}

size_t
cc_rules_noutputs(const struct cc_rules *r)
{
	return r->noutputs;
}

const char *
cc_rules_output_name(const struct cc_rules *r, size_t i, int *line)
{
	if (i >= r->noutputs)
		return NULL;
	if (line)
		*line = r->outputs[i].line;
	return r->outputs[i].name;
}

void
cc_rules_write_outputs(const struct cc_rules *r, struct cc_jw *w)
{
	for (size_t i = 0; i < r->noutputs; i++) {
		const struct output *o = &r->outputs[i];
		const char *v = r->slots[o->slots[0]].value;
		char *end;
		double x;

		cc_jw_key(w, o->name);
		switch (o->kind) {
		case OUT_STRING:
			cc_jw_cstr(w, v);
			break;
		case OUT_FLAG:
			cc_jw_bool(w, v != NULL);
			break;
		case OUT_NUMBER:	/* a value that is no number: null */
			x = v ? strtod(v, &end) : 0;
			if (v && end != v && !*end)
				cc_jw_num(w, x);
			else
				cc_jw_null(w);
			break;
		case OUT_LIST:	/* the slots that are set, in order */
			cc_jw_array(w);
			for (size_t k = 0; k < o->nslots; k++)
				if (r->slots[o->slots[k]].value)
					cc_jw_cstr(w, r->slots[o->slots[k]].value);
			cc_jw_end(w);
			break;
		}
	}
}

/* ---- the compiled patterns, cached ---- */

/*
 * The file: the magic, then five little-endian 64-bit words (the key,
 * the number of patterns, the payload's length, its FNV-1a checksum, and
 * the checksum of the header words before it), then the payload:
 *
 *   u64 n, then PCRE2's serialisation of the patterns (n bytes,
 *       pcre2_serialize_encode), in the order the loader compiles them;
 *   u64 n, then n bytes: each cue's and then each fix's prefilter flag
 *       (1: no literals, always run);
 *   u64 n, then the prefilter's index as built (n bytes,
 *       cc_litindex_save);
 *   u64 n, then the parsed rules (n bytes, snapshot_write): a cold
 *       start reads them instead of the rules text.
 *
 * The key is a hash of the rules text, this program's version, PCRE2's
 * and utf8proc's (the patterns and literals are folded text), and
 * CACHE_FORMAT: any of them changing makes the file another key's, and
 * it is compiled and written again.  PCRE2 trusts what it decodes (it
 * reads each pattern's length from the data), so nothing reaches it
 * before the lengths and the checksum have been checked: a truncated or
 * damaged file is ignored.
 */
#define CACHE_MAGIC "concierge rules cache\n\0\0"	/* 24 bytes */
#define CACHE_FORMAT 5
#define CACHE_HEAD (24 + 5 * 8)
#define CACHE_MAX (64u << 20)

static uint64_t
fnv64(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/*
 * The key's and the checksums' hash: FNV-1a over 64-bit words (in the
 * machine's order: a cache file is read where it was written) in four
 * lanes, then word by word, the tail byte by byte.  A check against
 * damage, not against an adversary (the cache directory is the user's):
 * each step is a bijection of the lane it feeds, so one damaged word
 * always changes the result.  Byte by byte, hashing the rules text and
 * the 90 kB file took a tenth of a cold question's instructions; word by
 * word the 280 kB file still took a twentieth.
 */
#define FNV_PRIME 0x100000001b3ULL
static uint64_t
hash64(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t i = 0;

	if (n >= 64) {
		uint64_t l[4] = { h, h ^ 0x9e3779b97f4a7c15ULL, h ^ 0xc2b2ae3d27d4eb4fULL,
			h ^ 0x165667b19e3779f9ULL };

		for (; i + 32 <= n; i += 32) {
			uint64_t w[4];

			memcpy(w, p + i, sizeof w);
			l[0] = (l[0] ^ w[0]) * FNV_PRIME;
			l[1] = (l[1] ^ w[1]) * FNV_PRIME;
			l[2] = (l[2] ^ w[2]) * FNV_PRIME;
			l[3] = (l[3] ^ w[3]) * FNV_PRIME;
		}
		h = l[0];
		for (int k = 1; k < 4; k++) {
			h ^= h >> 29;
			h = (h ^ l[k]) * FNV_PRIME;
		}
		h ^= h >> 29;
	}
	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		h ^= h >> 29;	/* the high bits into the low ones */
	}
	return fnv64(h, p + i, n - i);
}

static uint64_t
get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t
get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static void
put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

static void
add64(struct cc_buf *b, uint64_t v)
{
	unsigned char p[8];

	put64(p, v);
	cc_buf_add(b, (const char *)p, 8);
}

static void
add32(struct cc_buf *b, uint32_t v)
{
	unsigned char p[4] = { (unsigned char)v, (unsigned char)(v >> 8),
		(unsigned char)(v >> 16), (unsigned char)(v >> 24) };

	cc_buf_add(b, (const char *)p, 4);
}

static int
rules_key(const char *path, uint64_t *key)
{
	char v[64];
	size_t n;
	unsigned char *text = (unsigned char *)cc_read_file(path, CACHE_MAX, &n);
	uint64_t h = 0xcbf29ce484222325ULL, f = CACHE_FORMAT;

	if (!text)
		return -1;
	h = hash64(h, &f, sizeof f);
	h = hash64(h, PACKAGE_VERSION, sizeof PACKAGE_VERSION);
	pcre2_config(PCRE2_CONFIG_VERSION, v);
	h = hash64(h, v, strlen(v) + 1);
	h = hash64(h, utf8proc_version(), strlen(utf8proc_version()) + 1);
	*key = hash64(h, text, n);
	free(text);
	return 0;
}

/* A section "u64 n, then n units": 0 and *at past it, or -1. */
static int
section(const unsigned char *p, size_t len, size_t *at, uint64_t unit, uint64_t *n)
{
	if (len - *at < 8)
		return -1;
	*n = get64(p + *at);
	*at += 8;
	if (*n > (len - *at) / unit)
		return -1;
	return 0;
}

/* A section of bytes: *b its start, *n its length, *at past it; or -1. */
static int
bytes(const unsigned char *p, size_t len, size_t *at, const unsigned char **b,
    uint64_t *n)
{
	if (section(p, len, at, 1, n) < 0)
		return -1;
	*b = p + *at;
	*at += *n;
	return 0;
}

/*
 * What a cache file's bytes hold for key, into c (the patterns decoded,
 * the rest pointing into data); 0, or -1 when they are not such a file.
 */
static int
cache_decode(const unsigned char *data, size_t len, uint64_t key, struct cache *c)
{
	const unsigned char *p = data + CACHE_HEAD;
	uint64_t n, plen, sum, s1, nflags, nlits, n4;
	size_t at = 0;
	pcre2_code **v;
	int32_t got;

	memset(c, 0, sizeof *c);
	if (len < CACHE_HEAD || memcmp(data, CACHE_MAGIC, 24) != 0)
		return -1;
	if (get64(data + CACHE_HEAD - 8) != hash64(0xcbf29ce484222325ULL, data, CACHE_HEAD - 8) ||
	    get64(data + 24) != key)
		return -1;
	n = get64(data + 32);
	plen = get64(data + 40);
	sum = get64(data + 48);
	if (plen != len - CACHE_HEAD || n == 0 || n > 4 * MAX_CUES * 64 ||
	    hash64(0xcbf29ce484222325ULL, p, plen) != sum)
		return -1;
	/* the three sections, each within the payload */
	if (section(p, plen, &at, 1, &s1) < 0 || s1 < 16)
		return -1;
	{
		const unsigned char *codes = p + at;

		at += s1;
		if (bytes(p, plen, &at, &c->flags, &nflags) < 0 ||
		    bytes(p, plen, &at, &c->lits, &nlits) < 0 ||
		    bytes(p, plen, &at, &c->snap, &n4) < 0)
			return -1;
		c->nflags = nflags;
		c->nlits = nlits;
		c->nsnap = n4;
		if (at != plen || pcre2_serialize_get_number_of_codes(codes) != (int32_t)n)
			return -1;
		v = calloc(n, sizeof *v);
		if (!v)
			return -1;
		if ((got = pcre2_serialize_decode(v, (int32_t)n, codes, NULL)) != (int32_t)n) {
			for (int32_t i = 0; got > 0 && i < got; i++)
				pcre2_code_free(v[i]);
			free(v);
			return -1;
		}
	}
	c->codes = v;
	c->ncodes = n;
	return 0;
}

static void
cache_release(struct cache *c)
{
	for (size_t i = 0; c->codes && i < c->ncodes; i++)
		pcre2_code_free(c->codes[i]);
	free(c->codes);
	c->codes = NULL;
}

/*
 * After a load from the cache: the prefilter's flags and literals, as the
 * compile would have set them.  -1 when they do not fit these rules.
 */
static int
cache_apply(struct cc_rules *r)
{
	const struct cache *c = r->cache;

	if (c->nflags != r->ncues + r->nfixes)
		return -1;
	for (size_t i = 0; i < r->ncues; i++)
		r->cues[i].always = c->flags[i] != 0;
	for (size_t i = 0; i < r->nfixes; i++)
		r->fixes[i].always = c->flags[r->ncues + i] != 0;
	cc_litindex_free(r->lits);
	if (!(r->lits = cc_litindex_load(c->lits, c->nlits)))
		return -1;
	for (size_t i = 0; i < cc_litindex_size(r->lits); i++) {
		size_t n;
		int target;

		cc_litindex_get(r->lits, i, &n, &target);
		/* a target the scan's hits have no room for */
		if (target >= MAX_CUES + (int)r->nfixes ||
		    (target >= (int)r->ncues && target < MAX_CUES))
			return -1;
	}
	return 0;
}

/*
 * The parsed rules, after the patterns: everything load() derives from
 * the text besides them, so that a cold start neither reads the text
 * nor parses its conditions (a fifth of a cold question's instructions,
 * issue 16).  u32 words, little-endian: first the strings' table (its
 * length, then the strings, each NUL-terminated), then the rules, each
 * string as its offset in that table (NONE for NULL), each value as its
 * index among the interned values plus one (0 for null), each pattern
 * as its index among the serialised patterns (NONE for none).  The
 * reader checks every count, index and offset before it uses it: a file
 * that passed the checksum but holds nonsense is refused, never trusted.
 */
#define NONE 0xffffffffu

struct snapw {
	struct cc_buf words, strs;
	pcre2_code **made;
	size_t nmade;
};

static void
w32(struct snapw *w, uint32_t v)
{
	add32(&w->words, v);
}

static void
wstr(struct snapw *w, const char *s)
{
	if (!s) {
		w32(w, NONE);
		return;
	}
	w32(w, (uint32_t)w->strs.len);
	cc_buf_add(&w->strs, s, strlen(s) + 1);
}

static void
wcode(struct snapw *w, const pcre2_code *re)
{
	for (size_t i = 0; re && i < w->nmade; i++)
		if (w->made[i] == re) {
			w32(w, (uint32_t)i);
			return;
		}
	w32(w, NONE);
}

static void
wvalue(struct snapw *w, const struct cc_rules *r, const char *v)
{
	for (size_t i = 0; v && i < r->ninterned; i++)
		if (r->interned[i] == v) {
			w32(w, (uint32_t)i + 1);
			return;
		}
	w32(w, 0);
}

static void
wlist(struct snapw *w, char **list, size_t n)
{
	w32(w, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		wstr(w, list[i]);
}

/* The snapshot of r into b: the strings' table, then the words. */
static void
snapshot_write(struct cc_buf *b, const struct cc_rules *r)
{
	struct snapw w = { .made = r->made, .nmade = r->nmade };

	w32(&w, (uint32_t)r->casual);
	w32(&w, (uint32_t)r->ninterned);
	for (size_t i = 0; i < r->ninterned; i++)
		wstr(&w, r->interned[i]);
	w32(&w, (uint32_t)r->ncues);
	w32(&w, (uint32_t)r->nslots);
	w32(&w, (uint32_t)r->nnodes);
	for (size_t i = 0; i < r->nnodes; i++) {
		const struct node *n = &r->nodes[i];
		uint64_t num;

		memcpy(&num, &n->num, sizeof num);
		w32(&w, (uint32_t)n->op);
		w32(&w, (uint32_t)n->a);
		w32(&w, (uint32_t)n->b);
		w32(&w, (uint32_t)n->scope);
		w32(&w, (uint32_t)n->slot);
		wvalue(&w, r, n->value);
		w32(&w, (uint32_t)n->cmp);
		w32(&w, (uint32_t)num);
		w32(&w, (uint32_t)(num >> 32));
	}
	for (size_t i = 0; i < r->ncues; i++) {
		const struct cue *c = &r->cues[i];

		wstr(&w, c->name);
		wstr(&w, c->src.data);
		w32(&w, (uint32_t)c->line);
		wcode(&w, c->re);
		wlist(&w, c->lines, c->nlines);
		w32(&w, c->line_re != NULL);
		for (size_t l = 0; c->line_re && l < c->nlines; l++)
			wcode(&w, c->line_re[l]);
	}
	for (size_t i = 0; i < r->nslots; i++) {
		const struct slot *sl = &r->slots[i];

		wstr(&w, sl->name);
		w32(&w, (uint32_t)sl->kind);
		w32(&w, (uint32_t)sl->input);
		w32(&w, (uint32_t)sl->line);
		w32(&w, (uint32_t)sl->nrules);
		for (size_t k = 0; k < sl->nrules; k++) {
			const struct rule *ru = &sl->rules[k];

			wstr(&w, ru->id);
			wvalue(&w, r, ru->value);
			wstr(&w, ru->copy);
			w32(&w, (uint32_t)ru->copy_scope);
			w32(&w, (uint32_t)ru->copy_slot);
			w32(&w, (uint32_t)ru->expr);
			w32(&w, (uint32_t)ru->line);
		}
		w32(&w, (uint32_t)sl->nitems);
		for (size_t k = 0; k < sl->nitems; k++) {
			w32(&w, (uint32_t)sl->items[k].cue);
			w32(&w, (uint32_t)sl->items[k].slot);
			wstr(&w, sl->items[k].name);
		}
	}
	w32(&w, (uint32_t)r->nfixes);
	for (size_t i = 0; i < r->nfixes; i++) {
		wcode(&w, r->fixes[i].re);
		wstr(&w, r->fixes[i].replacement);
	}
	wlist(&w, r->vocab, r->nvocab);
	wlist(&w, r->skip_agents, r->nskip);
	wlist(&w, r->neutral_cues, r->nneutral);
	w32(&w, (uint32_t)r->ninputs);
	for (size_t i = 0; i < r->ninputs; i++) {
		w32(&w, (uint32_t)r->inputs[i].slot);
		wstr(&w, r->inputs[i].path);
		w32(&w, (uint32_t)r->inputs[i].upper);
	}
	w32(&w, (uint32_t)r->noutputs);
	for (size_t i = 0; i < r->noutputs; i++) {
		const struct output *o = &r->outputs[i];

		wstr(&w, o->name);
		w32(&w, (uint32_t)o->kind);
		w32(&w, (uint32_t)o->line);
		wlist(&w, o->slot_names, o->nslots);
		for (size_t k = 0; k < o->nslots; k++)
			w32(&w, (uint32_t)o->slots[k]);
	}
	add32(b, (uint32_t)w.strs.len);
	cc_buf_add(b, w.strs.data ? w.strs.data : "", w.strs.len);
	cc_buf_add(b, w.words.data ? w.words.data : "", w.words.len);
	cc_buf_release(&w.strs);
	cc_buf_release(&w.words);
}

struct snapr {
	const unsigned char *p;
	size_t n, at;
	const char *strs;
	size_t nstrs;
	pcre2_code **codes;	/* taken from the cache as they are used */
	size_t ncodes;
	int bad;
};

static inline uint32_t
r32(struct snapr *s)
{
	uint32_t v;

	if (s->bad || s->n - s->at < 4) {
		s->bad = 1;
		return 0;
	}
	v = get32(s->p + s->at);
	s->at += 4;
	return v;
}

/* A number below max (or -1 when minus_one), else the snapshot is bad. */
static inline int
rnum(struct snapr *s, uint32_t max, int minus_one)
{
	uint32_t v = r32(s);

	if (minus_one && v == NONE)
		return -1;
	if (v >= max)
		s->bad = 1;
	return s->bad ? 0 : (int)v;
}

/* A count of items of at least unit words each that the rest can hold. */
static size_t
rcount(struct snapr *s, size_t unit, size_t max)
{
	uint32_t v = r32(s);

	if (v > max || v > (s->n - s->at) / (4 * unit))
		s->bad = 1;
	return s->bad ? 0 : v;
}

static char *
rstr(struct snapr *s, int null_ok)
{
	uint32_t v = r32(s);

	if (v == NONE && null_ok && !s->bad)
		return NULL;
	if (v >= s->nstrs)	/* the table ends with a NUL: every string does */
		s->bad = 1;
	return s->bad ? NULL : (char *)s->strs + v;
}

/* A pattern, taken over (each once), or NULL when NONE and none_ok. */
static pcre2_code *
rcode(struct snapr *s, int none_ok)
{
	uint32_t v = r32(s);
	pcre2_code *re;

	if (v == NONE && none_ok && !s->bad)
		return NULL;
	if (s->bad || v >= s->ncodes || !s->codes[v]) {
		s->bad = 1;
		return NULL;
	}
	re = s->codes[v];
	s->codes[v] = NULL;
	return re;
}

static const char *
rvalue(struct snapr *s, const struct cc_rules *r)
{
	int v = rnum(s, (uint32_t)r->ninterned + 1, 0);

	return v ? r->interned[v - 1] : NULL;
}

static void *
zalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	return p;
}

static char **
rlist(struct snapr *s, size_t *n)
{
	char **list;

	*n = rcount(s, 1, 1u << 20);
	if (!*n)
		return NULL;
	list = zalloc(*n, sizeof *list);
	for (size_t i = 0; i < *n; i++)
		list[i] = rstr(s, 0);
	return list;
}

/*
 * The rules the snapshot in the cache c describes, its strings pointing
 * into blob (blob_len bytes, taken over: mapped, else malloc'd); NULL
 * when it is not a sound snapshot.  c's patterns are taken over, used or
 * freed.
 */
static struct cc_rules *
snapshot_read(struct cache *c, const char *path, char *blob, size_t blob_len,
    int mapped)
{
	struct cc_rules *r = calloc(1, sizeof *r);
	struct snapr s = { .p = c->snap, .n = c->nsnap, .codes = c->codes,
		.ncodes = c->ncodes };
	size_t n;

	if (!r)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	r->path = cc_xstrdup(path);
	r->blob = blob;
	r->blob_len = blob_len;
	r->blob_mapped = mapped;
	n = r32(&s);
	if (s.bad || n == 0 || n > s.n - s.at || s.p[s.at + n - 1] != '\0')
		goto bad;
	s.strs = (const char *)s.p + s.at;
	s.nstrs = n;
	s.at += n;
	r->casual = rnum(&s, 2, 0);
	r->ninterned = rcount(&s, 1, 1u << 20);
	r->interned = cc_xmalloc((r->ninterned + 1) * sizeof *r->interned);
	for (size_t i = 0; i < r->ninterned; i++)
		r->interned[i] = rstr(&s, 0);
	if (s.bad)
		goto bad;
	r->nitab = 64;
	while (r->nitab < 2 * r->ninterned)
		r->nitab *= 2;
	r->itab = calloc(r->nitab, sizeof *r->itab);
	if (!r->itab)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	for (size_t i = 0; i < r->ninterned; i++) {
		char **slot = intern_slot(r->itab, r->nitab, r->interned[i]);

		if (*slot)	/* twice: not what intern() wrote */
			goto bad;
		*slot = r->interned[i];
	}
	/* the counts first, so that every index can be checked as it is read */
	r->ncues = rcount(&s, 1, MAX_CUES);
	r->nslots = rcount(&s, 1, MAX_SLOTS);
	r->nnodes = r->capnodes = rcount(&s, 9, 1u << 24);
	if (s.bad || !r->ncues)
		goto bad;
	r->nodes = r->nnodes ? zalloc(r->nnodes, sizeof *r->nodes) : NULL;
	for (size_t i = 0; i < r->nnodes && !s.bad; i++) {
		struct node *nd = &r->nodes[i];
		uint64_t num;

		nd->op = (enum op)rnum(&s, OP_OR + 1, 0);
		/* children come before their parents: no cycle to walk */
		switch (nd->op) {
		case OP_CUE:
			nd->a = rnum(&s, (uint32_t)r->ncues, 0);
			r32(&s);
			break;
		case OP_NOT:
			nd->a = rnum(&s, (uint32_t)i, 0);
			r32(&s);
			break;
		case OP_AND:
		case OP_OR:
			nd->a = rnum(&s, (uint32_t)i, 0);
			nd->b = rnum(&s, (uint32_t)i, 0);
			break;
		default:
			r32(&s);
			r32(&s);
			break;
		}
		nd->scope = rnum(&s, 3, 0);
		nd->slot = rnum(&s, (uint32_t)r->nslots, 0);
		nd->value = rvalue(&s, r);
		nd->cmp = (enum cmp)rnum(&s, CMP_GE + 1, 0);
		num = r32(&s);
		num |= (uint64_t)r32(&s) << 32;
		memcpy(&nd->num, &num, sizeof num);
	}
	for (size_t i = 0; i < r->ncues && !s.bad; i++) {
		struct cue *cu = &r->cues[i];

		cu->name = rstr(&s, 0);
		cu->src.data = rstr(&s, 1);
		cu->src.len = cu->src.data ? strlen(cu->src.data) : 0;
		cu->line = rnum(&s, INT32_MAX, 0);
		/* every cue has its pattern but the engine's own, the last */
		cu->re = rcode(&s, i + 1 == r->ncues);
		cu->lines = rlist(&s, &cu->nlines);
		if (rnum(&s, 2, 0)) {
			cu->line_re = zalloc(cu->nlines + 1, sizeof *cu->line_re);
			for (size_t l = 0; l < cu->nlines; l++)
				cu->line_re[l] = rcode(&s, 0);
		}
	}
	if (s.bad || r->cues[r->ncues - 1].re ||
	    strcmp(r->cues[r->ncues - 1].name, "context") != 0)
		goto bad;
	for (size_t i = 0; i < r->nslots && !s.bad; i++) {
		struct slot *sl = &r->slots[i];
		size_t nrules, nitems;

		sl->name = rstr(&s, 0);
		sl->kind = (enum slot_kind)rnum(&s, SLOT_COUNT + 1, 0);
		sl->input = rnum(&s, 2, 0);
		sl->line = rnum(&s, INT32_MAX, 0);
		nrules = rcount(&s, 7, 1u << 20);
		sl->rules = nrules ? zalloc(nrules, sizeof *sl->rules) : NULL;
		for (; sl->nrules < nrules && !s.bad; sl->nrules++) {
			struct rule *ru = &sl->rules[sl->nrules];

			ru->id = rstr(&s, 0);
			ru->value = rvalue(&s, r);
			ru->copy = rstr(&s, 1);
			ru->copy_scope = rnum(&s, 3, 0);
			ru->copy_slot = rnum(&s, (uint32_t)r->nslots, 1);
			ru->expr = rnum(&s, (uint32_t)r->nnodes, 1);
			ru->line = rnum(&s, INT32_MAX, 0);
		}
		nitems = rcount(&s, 3, 1u << 20);
		sl->items = nitems ? zalloc(nitems, sizeof *sl->items) : NULL;
		for (; sl->nitems < nitems && !s.bad; sl->nitems++) {
			struct count_item *it = &sl->items[sl->nitems];

			it->cue = rnum(&s, (uint32_t)r->ncues, 1);
			it->slot = rnum(&s, (uint32_t)i, 1);	/* decided before */
			it->name = rstr(&s, 0);
			if ((it->cue < 0) == (it->slot < 0))
				s.bad = 1;
		}
	}
	if (s.bad)
		goto bad;
	n = rcount(&s, 2, 1u << 16);
	r->fixes = n ? zalloc(n, sizeof *r->fixes) : NULL;
	for (; r->nfixes < n && !s.bad; r->nfixes++) {
		r->fixes[r->nfixes].re = rcode(&s, 0);
		r->fixes[r->nfixes].replacement = rstr(&s, 0);
	}
	r->vocab = rlist(&s, &r->nvocab);
	r->vocab_len = zalloc(r->nvocab + 1, sizeof *r->vocab_len);
	for (size_t i = 0; i < r->nvocab && !s.bad; i++)
		r->vocab_len[i] = strlen(r->vocab[i]);
	r->skip_agents = rlist(&s, &r->nskip);
	r->neutral_cues = rlist(&s, &r->nneutral);
	if (s.bad)
		goto bad;
	n = rcount(&s, 3, MAX_SLOTS);
	r->inputs = n ? zalloc(n, sizeof *r->inputs) : NULL;
	for (; r->ninputs < n && !s.bad; r->ninputs++) {
		r->inputs[r->ninputs].slot = rnum(&s, (uint32_t)r->nslots, 0);
		r->inputs[r->ninputs].path = rstr(&s, 0);
		r->inputs[r->ninputs].upper = rnum(&s, 2, 0);
	}
	n = rcount(&s, 4, 1u << 16);
	r->outputs = n ? zalloc(n, sizeof *r->outputs) : NULL;
	for (; r->noutputs < n && !s.bad; r->noutputs++) {
		struct output *o = &r->outputs[r->noutputs];

		o->name = rstr(&s, 0);
		o->kind = (enum output_kind)rnum(&s, OUT_FLAG + 1, 0);
		o->line = rnum(&s, INT32_MAX, 0);
		o->slot_names = rlist(&s, &o->nslots);
		o->slots = zalloc(o->nslots + 1, sizeof *o->slots);
		for (size_t k = 0; k < o->nslots; k++)
			o->slots[k] = rnum(&s, (uint32_t)r->nslots, 0);
	}
	if (s.bad || s.at != s.n || find_slot(r, "agent") < 0)
		goto bad;
	r->lits = cc_litindex_new();
	r->no_prefilter = getenv("CC_RULES_NO_PREFILTER") != NULL;
	r->cache = c;
	if (cache_apply(r) < 0)
		goto bad;
	r->cache = NULL;
	for (size_t i = 0; i < s.ncodes; i++)	/* patterns nothing named */
		if (s.codes[i])
			goto bad;
	free(c->codes);
	c->codes = NULL;
	eval_buffers(r);
	return r;
bad:
	r->cache = NULL;
	cc_rules_free(r);
	cache_release(c);
	return NULL;
}

int
cc_rules_cache_check(const unsigned char *data, size_t len, uint64_t key)
{
	struct cache c;
	int n;

	struct cc_rules *r;
	char *blob;

	if (cache_decode(data, len, key, &c) < 0)
		return -1;
	n = (int)c.ncodes;
	/* the parsed rules too, their strings in a copy of the bytes */
	blob = cc_xmalloc(len + 1);
	memcpy(blob, data, len);
	c.snap = (const unsigned char *)blob + (c.snap - data);
	c.lits = (const unsigned char *)blob + (c.lits - data);
	c.flags = (const unsigned char *)blob + (c.flags - data);
	if (!(r = snapshot_read(&c, "cache", blob, len, 0)))
		return -1;
	cc_rules_free(r);
	return n;
}

int
cc_rules_cache_check_parsed(const unsigned char *data, size_t len)
{
	struct cache c;
	struct cc_rules *r;
	char *blob;
	const unsigned char *p;
	size_t at = 4;
	uint64_t n;
	uint32_t ncodes;
	int errcode;
	PCRE2_SIZE erroff;

	memset(&c, 0, sizeof c);
	if (len < 4 || (ncodes = get32(data)) > 4096)
		return -1;
	blob = cc_xmalloc(len + 1);
	memcpy(blob, data, len);
	p = (const unsigned char *)blob;
	if (section(p, len, &at, 1, &n) < 0)
		goto bad;
	c.flags = p + at;
	c.nflags = n;
	at += n;
	if (section(p, len, &at, 1, &n) < 0)
		goto bad;
	c.lits = p + at;
	c.nlits = n;
	at += n;
	if (section(p, len, &at, 1, &n) < 0 || at + n != len)
		goto bad;
	c.snap = p + at;
	c.nsnap = n;
	/* stand-ins for the patterns, which the checksum guards */
	c.codes = zalloc(ncodes + 1, sizeof *c.codes);
	c.ncodes = ncodes;
	for (uint32_t i = 0; i < ncodes; i++)
		c.codes[i] = pcre2_compile((PCRE2_SPTR)"a", 1, 0, &errcode, &erroff, NULL);
	if (!(r = snapshot_read(&c, "cache", blob, len, 0)))
		return -1;
	cc_rules_free(r);
	return (int)ncodes;
bad:
	free(blob);
	return -1;
}

char *
cc_rules_cache_path(const char *cache_dir, const char *rules_path)
{
	char real[4096], *p;
	const char *name = realpath(rules_path, real) ? real : rules_path;
	size_t n = strlen(cache_dir) + 48;

	p = cc_xmalloc(n);
	snprintf(p, n, "%s/rules-%016llx.pcre2", cache_dir,
	    (unsigned long long)fnv64(0xcbf29ce484222325ULL, name, strlen(name)));
	return p;
}

/* Write what r compiled, atomically; a failure only costs time. */
static void
cache_write(const char *cache_dir, const char *file, uint64_t key, struct cc_rules *r)
{
	uint8_t *bytes = NULL;
	PCRE2_SIZE size;
	unsigned char head[CACHE_HEAD];
	struct cc_buf pay = {0};
	char *tmp;
	size_t n = strlen(file) + 8;
	int fd, ok;
	FILE *f;

	if (!r->nmade || cc_mkdirs(cache_dir) < 0 ||
	    pcre2_serialize_encode((const pcre2_code **)r->made, (int32_t)r->nmade,
	    &bytes, &size, NULL) < 0)
		return;
	add64(&pay, size);
	cc_buf_add(&pay, (const char *)bytes, size);
	pcre2_serialize_free(bytes);
	add64(&pay, r->ncues + r->nfixes);
	for (size_t i = 0; i < r->ncues; i++)
		cc_buf_add(&pay, r->cues[i].always ? "\1" : "\0", 1);
	for (size_t i = 0; i < r->nfixes; i++)
		cc_buf_add(&pay, r->fixes[i].always ? "\1" : "\0", 1);
	{
		struct cc_buf b = {0};

		cc_litindex_save(r->lits, &b);
		add64(&pay, b.len);
		cc_buf_add(&pay, b.data, b.len);
		b.len = 0;
		snapshot_write(&b, r);
		add64(&pay, b.len);
		cc_buf_add(&pay, b.data, b.len);
		cc_buf_release(&b);
	}
	memcpy(head, CACHE_MAGIC, 24);
	put64(head + 24, key);
	put64(head + 32, r->nmade);
	put64(head + 40, pay.len);
	put64(head + 48, hash64(0xcbf29ce484222325ULL, pay.data, pay.len));
	put64(head + 56, hash64(0xcbf29ce484222325ULL, head, CACHE_HEAD - 8));
	tmp = cc_xmalloc(n);
	snprintf(tmp, n, "%s.XXXXXX", file);
	if ((fd = mkstemp(tmp)) >= 0) {
		if (!(f = fdopen(fd, "wb"))) {
			close(fd);
			ok = 0;
		} else {
			ok = fwrite(head, 1, sizeof head, f) == sizeof head &&
			    fwrite(pay.data, 1, pay.len, f) == pay.len;
			ok = fclose(f) == 0 && ok;
		}
		if (!ok || rename(tmp, file) < 0)
			unlink(tmp);
	}
	free(tmp);
	cc_buf_release(&pay);
}

/*
 * The cache file mapped, its pages read in at once (MAP_POPULATE): no
 * copy of its 280 kB, and about seventy page faults fewer than a read
 * into fresh memory.  The file is only ever replaced by a rename, never
 * rewritten in place, so the mapping stays what was checked.
 */
static unsigned char *
map_file(const char *file, size_t *len)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p = MAP_FAILED;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uintmax_t)st.st_size <= CACHE_MAX) {
		*len = (size_t)st.st_size;
		p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	}
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

struct cc_rules *
cc_rules_load_cached(const char *path, const char *cache_dir, char *err, size_t errlen)
{
	struct cc_rules *r = NULL;
	unsigned char *data;
	struct cache c;
	char *file;
	uint64_t key;
	size_t len;

	if (!cache_dir || !*cache_dir || rules_key(path, &key) < 0)
		return load(path, err, errlen, NULL, 0);
	file = cc_rules_cache_path(cache_dir, path);
	/* the parsed rules' strings stay in the file's bytes: r owns them */
	if ((data = map_file(file, &len))) {
		if (cache_decode(data, len, key, &c) == 0)
			r = snapshot_read(&c, path, (char *)data, len, 1);
		else
			munmap(data, len);
	}
	if (!r && (r = load(path, err, errlen, NULL, 1)))
		cache_write(cache_dir, file, key, r);
	if (r) {
		free(r->made);
		r->made = NULL;
		r->nmade = 0;
	}
	free(file);
	return r;
}
