/*
 * cc-eval: run labelled query files through the pipeline and score it,
 * as ../shared/eval/README.md section 5 describes.
 *
 * The kind of a file is read from its records: routing (expect holds the
 * first label of the domain's manifest), sessions (turns), language (text
 * and expect.language), time ranges (expect.time_range).  What a routing
 * or sessions file scores, where the pipeline puts it, and which values
 * count as one are the domain's (cc-domain(5), eval-*).  Queries go to the stages as child processes
 * (cc_pipe.c), one pipeline per shard, each shard with a state directory
 * of its own; a session never spans two shards, and each session runs
 * under a fresh session id.  Only the members that are scored are kept
 * from each output record.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_term.h"
#include "cc_pipe.h"
#include "cc_domain.h"

static const char usage_text[] =
	"usage: cc-eval [-jq] [-P N] [-m [METRIC=]X]... [-o FILE] [-S STAGES]\n"
	"               [--misses N] [FILE...]\n"
	"Runs labelled query files (routing, sessions, language, time ranges;\n"
	"the kind is read from the records) through the pipeline and reports\n"
	"accuracy: per field, strict and lenient, clear-cut rows, per language\n"
	"and per class, a confusion matrix and the misses.  FILE - or none:\n"
	"standard input.\n"
	"  -j, --json               a JSON summary per file instead of the report\n"
	"  -m, --min-accuracy [METRIC=]X\n"
	"                           exit 1 if METRIC (strict, lenient or clear;\n"
	"                           default strict) is below X (0.95 or 95%)\n"
	"  -P, --jobs N             run N pipelines in parallel (default 1)\n"
	"  -o, --output FILE        write the pipeline's output records to FILE\n"
	"  -S, --stages LIST        the stages, colon-separated (default: the\n"
	"                           pipeline of concierge stages, or CC_STAGES)\n"
	"  -D, --domain NAME|DIR    the domain (default $CC_DOMAIN): its pipeline\n"
	"                           runs, and its manifest says what is scored\n"
	"  -n, --misses N           list at most N misses (default all)\n"
	"  -q, --quiet              no progress bar\n"
	"  -h, --help               show this help\n"
	"  -V, --version            show the version\n";

enum kind { ROUTING, SESSIONS, LANGUAGE, TIME };
static const char *const kind_names[] = { "routing", "sessions", "language", "time_range" };

/*
 * The fields scored for each kind; the first one is the class.  Routing and
 * sessions score the domain's labels.
 */
static const struct cc_domain *domain;
static const char *fields_routing[CC_DOMAIN_MAX_LABELS + 1];
static const char *const fields_language[] = { "language", "is_mixed", NULL };
static const char *const fields_time[] = { "time_range", NULL };
#define MAX_FIELDS CC_DOMAIN_MAX_LABELS

static const char *const *
kind_fields(enum kind k)
{
	return k == LANGUAGE ? fields_language : k == TIME ? fields_time : fields_routing;
}

/* The row member that holds the question of a routing or sessions row. */
static const char *
query_key(void)
{
	return domain->eval_query ? domain->eval_query : "query";
}

/* One query sent through the pipeline. */
struct item {
	size_t row;		/* index of its row */
	int turn;		/* 1.. in a session, 0 otherwise */
	jv label;		/* the object with expect, alt, ambiguous */
	const char *query;	/* borrowed from label or row */
	size_t qlen;
	const char *ref_now;	/* borrowed, or NULL */
	jv got;			/* the scored members, or invalid */
	int error;		/* the record came back as an error record */
	char *line;		/* the output record, with --output */
};

struct row {
	jv v;
	unsigned long line;
};

struct file {
	const char *path;
	enum kind kind;
	struct row *rows;
	size_t nrows;
	struct item *items;
	size_t nitems;
	int status;
	double seconds;
};

struct threshold {
	const char *metric;	/* strict, lenient, clear */
	double min;		/* fraction */
};

struct opts {
	int json, quiet, jobs;
	long max_misses;	/* -1: all */
	const char *output;
	char **stages;
	size_t nstages;
	struct threshold th[8];
	size_t nth;
	char *tmp;		/* the state directories */
	int progress;		/* stderr is a terminal */
};

static volatile sig_atomic_t interrupted;

static void
on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static double
now_seconds(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

/* obj[key], owned; null when absent. */
static jv
member(jv obj, const char *key)
{
	jv v;

	if (jv_get_kind(obj) != JV_KIND_OBJECT)
		return jv_null();
	v = jv_object_get(jv_copy(obj), jv_string(key));
	if (!jv_is_valid(v)) {
		jv_free(v);
		return jv_null();
	}
	return v;
}

/* 1 if obj[key] is true; borrows obj. */
static int
is_true(jv obj, const char *key)
{
	jv v = member(obj, key);
	int t = jv_get_kind(v) == JV_KIND_TRUE;

	jv_free(v);
	return t;
}

static int
has_member(jv obj, const char *key)
{
	return jv_get_kind(obj) == JV_KIND_OBJECT &&
	    jv_object_has(jv_copy(obj), jv_string(key));
}

/* ---- reading a labelled file ---- */

static enum kind
detect_kind(jv r, int *ok)
{
	jv expect = member(r, "expect"), turns = member(r, "turns");
	int sessions = jv_get_kind(turns) == JV_KIND_ARRAY;

	jv_free(turns);
	*ok = 1;
	if (sessions) {
		jv_free(expect);
		return SESSIONS;
	}
	if (fields_routing[0] && has_member(expect, fields_routing[0])) {
		jv_free(expect);
		return ROUTING;
	}
	if (has_member(expect, "time_range")) {
		jv_free(expect);
		return TIME;
	}
	if (has_member(expect, "language") && has_member(r, "text")) {
		jv_free(expect);
		return LANGUAGE;
	}
	jv_free(expect);
	*ok = 0;
	return ROUTING;
}

/* Check a label and point the item at its query; 0 or -1. */
static int
item_init(struct item *it, jv label, jv query_holder, const char *qkey)
{
	jv q = member(query_holder, qkey), expect = member(label, "expect");
	int ok = jv_get_kind(q) == JV_KIND_STRING && jv_get_kind(expect) == JV_KIND_OBJECT;

	if (ok) {
		it->query = jv_string_value(q);	/* the holder keeps it alive */
		it->qlen = (size_t)jv_string_length_bytes(jv_copy(q));
		it->label = label;
		it->got = jv_invalid();
	}
	jv_free(q);
	jv_free(expect);
	if (!ok)
		jv_free(label);
	return ok ? 0 : -1;
}

static void
add_item(struct file *f, struct item *it, size_t *cap)
{
	if (f->nitems == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		f->items = cc_xrealloc(f->items, *cap * sizeof *f->items);
	}
	f->items[f->nitems++] = *it;
}

static int
load_file(struct file *f)
{
	FILE *in = strcmp(f->path, "-") == 0 ? stdin : fopen(f->path, "r");
	char *line = NULL;
	size_t cap = 0, rcap = 0, icap = 0;
	ssize_t len;
	unsigned long lineno = 0;
	int kind_known = 0;

	if (!in) {
		cc_warn("cannot open '%s': %s", f->path, strerror(errno));
		return CC_EXIT_USAGE;
	}
	while ((len = getline(&line, &cap, in)) >= 0) {
		jv r;
		int ok;
		size_t before;

		lineno++;
		if (strspn(line, " \t\r\n") == (size_t)len)
			continue;
		r = cc_json_parse(line, (size_t)len);	/* libjq leaks on some bad text */
		if (jv_get_kind(r) != JV_KIND_OBJECT) {
			cc_warn("%s:%lu: not a JSON object; skipped", f->path, lineno);
			jv_free(r);
			f->status = CC_EXIT_DATA;
			continue;
		}
		if (!kind_known) {
			f->kind = detect_kind(r, &ok);
			if (!ok) {
				cc_warn("%s:%lu: not a labelled record of a known kind "
				    "(expect.%s, turns, expect.language with text, "
				    "expect.time_range)", f->path, lineno,
				    fields_routing[0] ? fields_routing[0] : "LABEL");
				jv_free(r);
				f->status = CC_EXIT_DATA;
				continue;
			}
			kind_known = 1;
		}
		if (f->nrows == rcap) {
			rcap = rcap ? rcap * 2 : 256;
			f->rows = cc_xrealloc(f->rows, rcap * sizeof *f->rows);
		}
		f->rows[f->nrows] = (struct row){ .v = r, .line = lineno };
		before = f->nitems;
		ok = 1;
		if (f->kind == SESSIONS) {
			jv turns = member(r, "turns");
			int n = jv_get_kind(turns) == JV_KIND_ARRAY ? jv_array_length(jv_copy(turns)) : 0;

			ok = n > 0;
			for (int t = 0; t < n && ok; t++) {
				jv turn = jv_array_get(jv_copy(turns), t);
				struct item it = { .row = f->nrows, .turn = t + 1 };

				ok = item_init(&it, turn, turn, query_key()) == 0;
				if (ok)
					add_item(f, &it, &icap);
			}
			jv_free(turns);
		} else {
			struct item it = { .row = f->nrows };
			jv ref = member(r, "ref_now");

			ok = item_init(&it, jv_copy(r), r, f->kind == LANGUAGE ? "text" :
			    f->kind == TIME ? "query" : query_key()) == 0;
			if (ok && f->kind == TIME && jv_get_kind(ref) == JV_KIND_STRING)
				it.ref_now = jv_string_value(ref);	/* r keeps it alive */
			jv_free(ref);
			if (ok)
				add_item(f, &it, &icap);
		}
		if (!ok) {
			cc_warn("%s:%lu: not a %s record (a string query and an expect "
			    "object%s); skipped", f->path, lineno, kind_names[f->kind],
			    f->kind == SESSIONS ? " in every turn" : "");
			while (f->nitems > before)
				jv_free(f->items[--f->nitems].label);
			jv_free(r);
			f->status = CC_EXIT_DATA;
			continue;
		}
		f->nrows++;
	}
	free(line);
	if (in != stdin)
		fclose(in);
	return f->status;
}

/* ---- running the pipeline, in shards ---- */

struct shard {
	struct cc_pipe p;
	struct cc_buf in, partial;
	size_t off;
	size_t *items, nitems, got;
	char state[4096];
};

/*
 * The value at a dotted path ("route.agent") of the compact object text
 * s[0..n), or NULL; *len is its length.
 */
static const char *
at_path(const char *s, size_t n, const char *path, size_t *len)
{
	char seg[128];

	*len = n;
	while (s && *path) {
		size_t k = strcspn(path, ".");

		if (k >= sizeof seg || *s != '{')
			return NULL;
		memcpy(seg, path, k);
		seg[k] = '\0';
		s = cc_json_member(s, *len, seg, len);
		path += k + (path[k] == '.');
	}
	return s;
}

/* Keep the members that are scored: a small object, or invalid. */
static void
take_output(struct file *f, struct item *it, const char *line, size_t len,
    struct cc_json_doc *doc, int keep_line)
{
	static const char *const owners[] = { "route", "route", "language_detection", "events" };
	const struct cc_json_field *fld;
	jv v;

	if (keep_line) {
		it->line = cc_xmalloc(len + 1);
		memcpy(it->line, line, len);
		it->line[len] = '\0';
	}
	it->got = jv_object();
	if (cc_json_scan(doc, line, len) < 0) {
		it->error = 1;
		return;
	}
	if (cc_json_field(doc, "error"))
		it->error = 1;
	if (f->kind == ROUTING || f->kind == SESSIONS) {
		/* each label where the manifest says the pipeline puts it */
		for (size_t i = 0; i < domain->nlabels; i++) {
			size_t vlen;
			const char *val = at_path(doc->text.data, doc->text.len,
			    domain->labels[i].path, &vlen);

			it->got = jv_object_set(it->got, jv_string(domain->labels[i].name),
			    val ? cc_json_to_jv(val, vlen) : jv_null());
		}
		return;
	}
	if (!(fld = cc_json_field(doc, owners[f->kind])))
		return;
	v = jv_parse_sized(doc->text.data + fld->val_at, (int)fld->val_len);
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		jv_free(v);
		return;
	}
	if (f->kind == LANGUAGE) {
		it->got = jv_object_set(it->got, jv_string("language"), member(v, "detected_language"));
		it->got = jv_object_set(it->got, jv_string("is_mixed"), member(v, "is_mixed"));
	} else {
		static const char *const keys[] = { "time_range", "kind", "start", "end" };

		for (size_t i = 0; i < 4; i++)
			it->got = jv_object_set(it->got, jv_string(keys[i]), member(v, keys[i]));
	}
	jv_free(v);
}

static void
progress(const struct opts *o, size_t done, size_t total, double t0, int end)
{
	static double last;
	double t = now_seconds();
	char bar[31];
	size_t fill;

	if (!o->progress || total == 0)
		return;
	if (end) {
		fputs("\r\033[K", stderr);
		return;
	}
	if (t - last < 0.1 && done < total)
		return;
	last = t;
	fill = done * 30 / total;
	memset(bar, '#', fill);
	memset(bar + fill, '.', 30 - fill);
	bar[30] = '\0';
	fprintf(stderr, "\r\033[Kcc-eval: [%s] %zu/%zu %3.0f%% %.1fs", bar, done, total,
	    100.0 * done / total, t - t0);
}

/* Write item i's query record. */
static void
put_record(struct file *f, size_t i, struct cc_buf *b)
{
	struct item *it = &f->items[i];
	jv row = f->rows[it->row].v, id = member(row, "id"), lang;
	struct cc_jw w;
	char sid[64];

	cc_jw_init(&w, b);
	cc_jw_object(&w);
	cc_jw_key(&w, "id");
	cc_jw_jv(&w, id);
	if (it->turn) {
		snprintf(sid, sizeof sid, "eval-%zu", it->row + 1);
		cc_jw_key(&w, "turn");
		cc_jw_num(&w, it->turn);
		cc_jw_key(&w, "session_id");
		cc_jw_cstr(&w, sid);
	}
	cc_jw_key(&w, "query");
	cc_jw_str(&w, it->query, it->qlen);
	lang = member(row, "language");
	if (f->kind == TIME && jv_get_kind(lang) == JV_KIND_STRING) {
		cc_jw_key(&w, "language");
		cc_jw_jv(&w, lang);
	}
	jv_free(lang);
	cc_jw_end(&w);
	cc_buf_add(b, "\n", 1);
	jv_free(id);
}

/*
 * Run the items whose ref_now is `ref` (NULL: no frozen clock of the
 * file's own) through the stages, in shards.  Returns the worst status.
 */
static int
run_batch(struct opts *o, struct file *f, const char *ref, char **stages, size_t nstages,
    size_t *done, double t0)
{
	int nsh = o->jobs, worst = 0;
	struct shard *sh = calloc((size_t)nsh, sizeof *sh);
	struct pollfd *pf = calloc((size_t)nsh * 2, sizeof *pf);
	struct cc_json_doc doc = {0};
	size_t unit = 0, prev_row = (size_t)-1, total = 0;
	char err[512];
	int live = 0;

	if (!sh || !pf)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	/* shards: whole rows (so whole sessions), dealt in turn */
	for (size_t i = 0; i < f->nitems; i++) {
		struct item *it = &f->items[i];
		struct shard *s;

		if ((ref == NULL) != (it->ref_now == NULL) ||
		    (ref && strcmp(ref, it->ref_now) != 0))
			continue;
		if (it->row != prev_row) {
			unit++;
			prev_row = it->row;
		}
		s = &sh[(unit - 1) % (size_t)nsh];
		s->items = cc_xrealloc(s->items, (s->nitems + 1) * sizeof *s->items);
		s->items[s->nitems++] = i;
		put_record(f, i, &s->in);
		total++;
	}
	for (int k = 0; k < nsh; k++) {
		const char *env[6] = { NULL };
		size_t e = 0;

		if (sh[k].nitems == 0)
			continue;
		snprintf(sh[k].state, sizeof sh[k].state, "%s/%s-%d", o->tmp,
		    kind_names[f->kind], k);
		env[e++] = "CC_STATE_DIR";
		env[e++] = sh[k].state;
		if (ref) {
			env[e++] = "CC_NOW";
			env[e++] = ref;
		}
		if (cc_pipe_start(&sh[k].p, stages, nstages, env, err, sizeof err) < 0)
			cc_die(CC_EXIT_INTERNAL, "%s", err);
		fcntl(sh[k].p.in, F_SETFL, O_NONBLOCK);
		live++;
	}
	while (live > 0 && !interrupted) {
		size_t np = 0;

		for (int k = 0; k < nsh; k++) {
			if (sh[k].p.in >= 0)
				pf[np++] = (struct pollfd){ sh[k].p.in, POLLOUT, 0 };
			if (sh[k].p.out >= 0)
				pf[np++] = (struct pollfd){ sh[k].p.out, POLLIN, 0 };
		}
		if (poll(pf, np, -1) < 0) {
			if (errno == EINTR)
				continue;
			cc_die(CC_EXIT_INTERNAL, "poll: %s", strerror(errno));
		}
		for (int k = 0; k < nsh; k++) {
			struct shard *s = &sh[k];
			char buf[65536];
			ssize_t n;

			for (size_t j = 0; j < np; j++) {
				if (!pf[j].revents)
					continue;
				if (pf[j].fd == s->p.in && s->p.in >= 0) {
					n = write(s->p.in, s->in.data + s->off, s->in.len - s->off);
					if (n > 0)
						s->off += (size_t)n;
					if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
					    s->off == s->in.len) {
						close(s->p.in);
						s->p.in = -1;
					}
				} else if (pf[j].fd == s->p.out && s->p.out >= 0) {
					n = read(s->p.out, buf, sizeof buf);
					if (n < 0 && errno == EINTR)
						continue;
					if (n <= 0) {
						close(s->p.out);
						s->p.out = -1;
						live--;
						continue;
					}
					cc_buf_add(&s->partial, buf, (size_t)n);
					/* whole lines: one output record per query */
					size_t start = 0;
					char *nl;

					while ((nl = memchr(s->partial.data + start, '\n',
					    s->partial.len - start))) {
						size_t len = (size_t)(nl - (s->partial.data + start));

						if (s->got < s->nitems)
							take_output(f, &f->items[s->items[s->got]],
							    s->partial.data + start, len, &doc,
							    o->output != NULL);
						s->got++;
						(*done)++;
						start += len + 1;
					}
					memmove(s->partial.data, s->partial.data + start,
					    s->partial.len - start);
					s->partial.len -= start;
				}
			}
		}
		progress(o, *done, f->nitems, t0, 0);
	}
	for (int k = 0; k < nsh; k++) {
		int st;

		if (interrupted)
			cc_pipe_kill(&sh[k].p);
		st = cc_pipe_finish(&sh[k].p);
		if (st > worst)
			worst = st;
		if (!interrupted && sh[k].got != sh[k].nitems) {
			cc_warn("%s: the pipeline wrote %zu records for %zu queries",
			    f->path, sh[k].got, sh[k].nitems);
			/* a stage's own reason (usage 2, upstream 4) comes first */
			if (worst != CC_EXIT_USAGE && worst != CC_EXIT_UPSTREAM)
				worst = CC_EXIT_INTERNAL;
		}
		cc_buf_release(&sh[k].in);
		cc_buf_release(&sh[k].partial);
		free(sh[k].items);
	}
	cc_json_doc_release(&doc);
	free(sh);
	free(pf);
	return worst;
}

static int
run_file(struct opts *o, struct file *f, double t0, size_t *done)
{
	char *tstages[2] = { NULL, NULL }, **stages = o->stages;
	size_t nstages = o->nstages;
	int worst = 0;

	if (f->kind == TIME) {
		/* the time range is cc-event's alone */
		for (size_t i = 0; i < o->nstages; i++)
			if (strcmp(cc_stage_name(o->stages[i]), "cc-event") == 0)
				tstages[0] = o->stages[i];
		if (!tstages[0]) {
			cc_warn("%s: time ranges are scored on cc-event, which is not "
			    "in the pipeline (not built or installed): unsupported", f->path);
			return -1;
		}
		stages = tstages;
		nstages = 1;
	}
	/* one batch per distinct ref_now, in order of first appearance */
	for (size_t i = 0; i < f->nitems && !interrupted; i++) {
		const char *ref = f->items[i].ref_now;
		int seen = 0, st;

		for (size_t j = 0; j < i && !seen; j++)
			seen = (ref == NULL) == (f->items[j].ref_now == NULL) &&
			    (!ref || strcmp(ref, f->items[j].ref_now) == 0);
		if (seen)
			continue;
		st = run_batch(o, f, ref, stages, nstages, done, t0);
		if (st > worst)
			worst = st;
	}
	return worst;
}

/* ---- scoring ---- */

/* A value as the labels name it: the manifest's eval-alias lines.  Consumes v. */
static jv
canonical(const char *field, jv v)
{
	return cc_domain_label_value(domain, field, v);
}

/*
 * 1 if the labelled want is also right when the pipeline gives got: the
 * manifest's eval-accept lines (one way).  Borrows both.
 */
static int
accepted(const char *field, jv want, jv got)
{
	int ok = 0;

	for (size_t i = 0; i < domain->naliases && !ok; i++) {
		const struct cc_domain_alias *a = &domain->aliases[i];
		jv from, to;

		if (!a->one_way || strcmp(a->label, field) != 0)
			continue;
		/* compared as values, so the manifest may write its JSON freely */
		from = cc_json_parse(a->from, strlen(a->from));
		to = cc_json_parse(a->to, strlen(a->to));
		ok = jv_equal(from, jv_copy(want));	/* consumes from */
		ok = jv_equal(to, jv_copy(got)) && ok;	/* and to, always */
	}
	return ok;
}

static int
field_equal(const char *field, jv want, jv got)
{
	int eq;

	want = canonical(field, jv_copy(want));
	got = canonical(field, jv_copy(got));
	eq = jv_equal(jv_copy(want), jv_copy(got)) || accepted(field, want, got);
	jv_free(want);
	jv_free(got);
	return eq;
}

/* 1 if got matches the label on every field. */
static int
matches(enum kind k, jv label, jv got)
{
	for (const char *const *f = kind_fields(k); *f; f++) {
		jv want = member(label, *f), g = member(got, *f);
		int eq = field_equal(*f, want, g);

		jv_free(want);
		jv_free(g);
		if (!eq)
			return 0;
	}
	return 1;
}

struct count {
	size_t right, total;
};

static void
tally(struct count *c, int right)
{
	c->total++;
	c->right += right != 0;
}

static double
ratio(struct count c)
{
	return c.total ? (double)c.right / (double)c.total : 0.0;
}

/* A class value as text, "null" for null. */
static const char *
class_name(jv v, char *buf, size_t size)
{
	if (jv_get_kind(v) == JV_KIND_STRING)
		return jv_string_value(v);
	if (jv_get_kind(v) == JV_KIND_TRUE || jv_get_kind(v) == JV_KIND_FALSE)
		return jv_get_kind(v) == JV_KIND_TRUE ? "true" : "false";
	snprintf(buf, size, "null");
	return buf;
}

#define MAX_CLASSES 32
struct class_stats {
	char name[64];
	struct count strict, lenient, recall;
	size_t as_got, got_right;	/* precision: predicted as this class */
	size_t confusion[MAX_CLASSES + 1];	/* by got class; last: other */
};

struct score {
	struct count strict, lenient, clear, first_strict, first_lenient, first_clear;
	struct count field[MAX_FIELDS];
	struct count ext_kind, ext_start, ext_end, spec_literal;
	struct class_stats cls[MAX_CLASSES];
	size_t ncls;
	struct { char name[8]; struct count strict, lenient; } lang[8];
	size_t nlang;
	size_t errors;
	size_t misses, alt_misses;
};

static size_t
class_index(struct score *s, const char *name)
{
	for (size_t i = 0; i < s->ncls; i++)
		if (strcmp(s->cls[i].name, name) == 0)
			return i;
	if (s->ncls == MAX_CLASSES)
		return MAX_CLASSES;
	snprintf(s->cls[s->ncls].name, sizeof s->cls[0].name, "%s", name);
	return s->ncls++;
}

/* The last date of a range whose end is exclusive: "2025-01-27T00:00:00+09:00" is the 26th. */
static jv
last_date(jv end)
{
	struct tm tm = {0};
	char buf[16];
	const char *s;

	if (jv_get_kind(end) != JV_KIND_STRING) {
		jv_free(end);
		return jv_null();
	}
	s = jv_string_value(end);
	if (sscanf(s, "%4d-%2d-%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday) != 3) {
		jv_free(end);
		return jv_null();
	}
	if (strlen(s) >= 19 && strncmp(s + 10, "T00:00:00", 9) == 0)
		tm.tm_mday--;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	tm.tm_hour = 12;
	timegm(&tm);	/* normalises the day */
	strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
	jv_free(end);
	return jv_string(buf);
}

static jv
first_date(jv start)
{
	jv d;

	if (jv_get_kind(start) != JV_KIND_STRING || jv_string_length_bytes(jv_copy(start)) < 10) {
		jv_free(start);
		return jv_null();
	}
	d = jv_string_sized(jv_string_value(start), 10);
	jv_free(start);
	return d;
}

/*
 * Whether cc-event's start or end (an instant; the end exclusive) is the
 * labelled one: a date names the first or last day, inclusive; anything
 * longer is an instant, compared as it is.  Consumes both.
 */
static int
same_date(jv want, jv got, int is_end)
{
	if (jv_get_kind(want) == JV_KIND_STRING && jv_string_length_bytes(jv_copy(want)) == 10)
		got = is_end ? last_date(got) : first_date(got);
	return jv_equal(want, got);
}

/* JSON text of the scored fields, for a miss. */
static jv
fields_of(enum kind k, jv obj)
{
	jv o = jv_object();

	for (const char *const *f = kind_fields(k); *f; f++)
		o = jv_object_set(o, jv_string(*f), member(obj, *f));
	return o;
}

static void
score_file(struct file *f, struct score *s, jv *misses)
{
	const char *const *fields = kind_fields(f->kind);
	char buf[16];

	memset(s, 0, sizeof *s);
	*misses = jv_array();
	for (size_t i = 0; i < f->nitems; i++) {
		struct item *it = &f->items[i];
		int labels = f->kind == ROUTING || f->kind == SESSIONS;
		const char *altkey = !labels ? "alt" : domain->eval_alternatives;
		jv expect = member(it->label, "expect");
		jv alt = altkey ? member(it->label, altkey) : jv_null();
		jv amb = member(it->label, "ambiguous"), got = jv_copy(it->got);
		int strict, lenient, clear = jv_get_kind(amb) != JV_KIND_TRUE;
		int first = f->kind == SESSIONS && it->turn == 1;
		size_t ci, gi;
		jv wc, gc, lang;

		if (!jv_is_valid(got))
			got = jv_object();
		if (it->error)
			s->errors++;
		strict = matches(f->kind, expect, got);
		lenient = strict;
		if (jv_get_kind(alt) == JV_KIND_ARRAY)
			for (int a = 0; a < jv_array_length(jv_copy(alt)) && !lenient; a++) {
				jv l = jv_array_get(jv_copy(alt), a);

				lenient = matches(f->kind, l, got);
				jv_free(l);
			}
		for (size_t k = 0; labels && !lenient && k < domain->nlabels; k++) {
			/* other values the row accepts for one label (alt_agents) */
			jv vals = domain->labels[k].alt ? member(it->label, domain->labels[k].alt) :
			    jv_null();

			for (int a = 0; jv_get_kind(vals) == JV_KIND_ARRAY && !lenient &&
			    a < jv_array_length(jv_copy(vals)); a++) {
				jv l = jv_object_set(jv_copy(expect), jv_string(domain->labels[k].name),
				    jv_array_get(jv_copy(vals), a));

				lenient = matches(f->kind, l, got);
				jv_free(l);
			}
			jv_free(vals);
		}
		if (first) {
			tally(&s->first_strict, strict);
			tally(&s->first_lenient, lenient);
			if (clear)
				tally(&s->first_clear, strict);
		} else {
			tally(&s->strict, strict);
			tally(&s->lenient, lenient);
			if (clear)
				tally(&s->clear, strict);
			for (size_t k = 0; fields[k]; k++) {
				jv w = member(expect, fields[k]), g = member(got, fields[k]);

				tally(&s->field[k], field_equal(fields[k], w, g));
				jv_free(w);
				jv_free(g);
			}
			/* the class breakdown and the confusion matrix */
			wc = canonical(fields[0], member(expect, fields[0]));
			gc = canonical(fields[0], member(got, fields[0]));
			ci = class_index(s, class_name(wc, buf, sizeof buf));
			gi = class_index(s, class_name(gc, buf, sizeof buf));
			if (ci < MAX_CLASSES) {
				tally(&s->cls[ci].strict, strict);
				tally(&s->cls[ci].lenient, lenient);
				tally(&s->cls[ci].recall, jv_equal(jv_copy(wc), jv_copy(gc)));
				s->cls[ci].confusion[gi < MAX_CLASSES ? gi : MAX_CLASSES]++;
			}
			if (gi < MAX_CLASSES) {
				s->cls[gi].as_got++;
				s->cls[gi].got_right += jv_equal(jv_copy(wc), jv_copy(gc));
			}
			jv_free(wc);
			jv_free(gc);
			/* per language: the reply language the label asks for */
			/* the label's language, else the row's (lang in some sets) */
			lang = f->kind == TIME ? member(f->rows[it->row].v, "language") :
			    member(expect, "language");
			if (jv_get_kind(lang) != JV_KIND_STRING && labels) {
				jv_free(lang);
				lang = member(it->label, "lang");
			}
			if (jv_get_kind(lang) == JV_KIND_STRING) {
				size_t li = 0;

				while (li < s->nlang && strcmp(s->lang[li].name, jv_string_value(lang)) != 0)
					li++;
				if (li == s->nlang && s->nlang < 8)
					snprintf(s->lang[s->nlang++].name, sizeof s->lang[0].name,
					    "%s", jv_string_value(lang));
				if (li < s->nlang) {
					tally(&s->lang[li].strict, strict);
					tally(&s->lang[li].lenient, lenient);
				}
			}
			jv_free(lang);
			if (f->kind == TIME) {
				jv row = f->rows[it->row].v, lit = member(row, "spec_literal");
				jv ext = member(row, "expect_extended");

				if (has_member(row, "spec_literal"))
					tally(&s->spec_literal, jv_equal(jv_copy(lit), member(got, "time_range")));
				if (is_true(row, "extension") &&
				    jv_get_kind(ext) == JV_KIND_OBJECT) {
					tally(&s->ext_kind, jv_equal(member(ext, "kind"), member(got, "kind")));
					tally(&s->ext_start, same_date(member(ext, "start"),
					    member(got, "start"), 0));
					tally(&s->ext_end, same_date(member(ext, "end"),
					    member(got, "end"), 1));
				}
				jv_free(lit);
				jv_free(ext);
			}
		}
		if (!strict) {
			jv m = jv_object();

			m = jv_object_set(m, jv_string("id"), member(f->rows[it->row].v, "id"));
			if (it->turn)
				m = jv_object_set(m, jv_string("turn"), jv_number(it->turn));
			m = jv_object_set(m, jv_string("query"), jv_string_sized(it->query, (int)it->qlen));
			m = jv_object_set(m, jv_string("expected"), fields_of(f->kind, expect));
			m = jv_object_set(m, jv_string("got"), it->error && jv_object_length(jv_copy(got)) == 0 ?
			    jv_string("error record") : fields_of(f->kind, got));
			m = jv_object_set(m, jv_string("alt_ok"), jv_bool(lenient));
			m = jv_object_set(m, jv_string("ambiguous"), jv_bool(!clear));
			*misses = jv_array_append(*misses, m);
			s->misses++;
			s->alt_misses += lenient != 0;
		}
		jv_free(expect);
		jv_free(alt);
		jv_free(amb);
		jv_free(got);
	}
}

/* ---- reports ---- */

static jv
count_jv(struct count c)
{
	jv o = jv_object();

	o = jv_object_set(o, jv_string("right"), jv_number((double)c.right));
	o = jv_object_set(o, jv_string("total"), jv_number((double)c.total));
	o = jv_object_set(o, jv_string("accuracy"),
	    jv_number(round(ratio(c) * 10000) / 10000));
	return o;
}

static const char *
class_field(enum kind k)
{
	return kind_fields(k)[0];
}

static jv
summary_json(struct file *f, struct score *s, jv misses)
{
	const char *const *fields = kind_fields(f->kind);
	jv o = jv_object(), fo = jv_object(), by = jv_object(), conf = jv_object(), bl = jv_object();
	char key[64];

	o = jv_object_set(o, jv_string("file"), jv_string(f->path));
	o = jv_object_set(o, jv_string("kind"), jv_string(kind_names[f->kind]));
	o = jv_object_set(o, jv_string("rows"), jv_number((double)f->nrows));
	o = jv_object_set(o, jv_string("queries"), jv_number((double)f->nitems));
	o = jv_object_set(o, jv_string("scored"), jv_number((double)s->strict.total));
	o = jv_object_set(o, jv_string("strict"), count_jv(s->strict));
	o = jv_object_set(o, jv_string("lenient"), count_jv(s->lenient));
	o = jv_object_set(o, jv_string("clear"), count_jv(s->clear));
	for (size_t k = 0; fields[k]; k++)
		fo = jv_object_set(fo, jv_string(fields[k]), count_jv(s->field[k]));
	o = jv_object_set(o, jv_string("fields"), fo);
	if (f->kind == SESSIONS) {
		jv ft = jv_object();

		ft = jv_object_set(ft, jv_string("strict"), count_jv(s->first_strict));
		ft = jv_object_set(ft, jv_string("lenient"), count_jv(s->first_lenient));
		ft = jv_object_set(ft, jv_string("clear"), count_jv(s->first_clear));
		o = jv_object_set(o, jv_string("first_turns"), ft);
	}
	if (f->kind != LANGUAGE) {
		for (size_t i = 0; i < s->nlang; i++) {
			jv l = jv_object();

			l = jv_object_set(l, jv_string("strict"), count_jv(s->lang[i].strict));
			l = jv_object_set(l, jv_string("lenient"), count_jv(s->lang[i].lenient));
			bl = jv_object_set(bl, jv_string(s->lang[i].name), l);
		}
		o = jv_object_set(o, jv_string("by_language"), bl);
	} else {
		jv_free(bl);
	}
	for (size_t i = 0; i < s->ncls; i++) {
		struct class_stats *c = &s->cls[i];
		jv e = jv_object(), row = jv_object();

		if (c->strict.total) {
			e = jv_object_set(e, jv_string("strict"), count_jv(c->strict));
			e = jv_object_set(e, jv_string("lenient"), count_jv(c->lenient));
			e = jv_object_set(e, jv_string("recall"), count_jv(c->recall));
		}
		e = jv_object_set(e, jv_string("precision"),
		    count_jv((struct count){ c->got_right, c->as_got }));
		by = jv_object_set(by, jv_string(c->name), e);
		for (size_t j = 0; j <= s->ncls && c->strict.total; j++) {
			size_t n = c->confusion[j < s->ncls ? j : MAX_CLASSES];

			if (n)
				row = jv_object_set(row, jv_string(j < s->ncls ? s->cls[j].name : "(other)"),
				    jv_number((double)n));
		}
		if (c->strict.total)
			conf = jv_object_set(conf, jv_string(c->name), row);
		else
			jv_free(row);
	}
	snprintf(key, sizeof key, "by_%s", class_field(f->kind));
	o = jv_object_set(o, jv_string(key), by);
	o = jv_object_set(o, jv_string("confusion"), conf);
	if (f->kind == TIME) {
		jv ext = jv_object();

		o = jv_object_set(o, jv_string("spec_literal"), count_jv(s->spec_literal));
		ext = jv_object_set(ext, jv_string("kind"), count_jv(s->ext_kind));
		ext = jv_object_set(ext, jv_string("start"), count_jv(s->ext_start));
		ext = jv_object_set(ext, jv_string("end"), count_jv(s->ext_end));
		o = jv_object_set(o, jv_string("extended"), ext);
	}
	o = jv_object_set(o, jv_string("errors"), jv_number((double)s->errors));
	o = jv_object_set(o, jv_string("misses"), jv_copy(misses));
	o = jv_object_set(o, jv_string("seconds"), jv_number(round(f->seconds * 1000) / 1000));
	return o;
}

/* Print untrusted text (a query, a label) escaped. */
static void
put_escaped(const char *s, size_t n)
{
	struct cc_buf b = {0};

	cc_term_escape(&b, s, n, 0);
	fputs(b.data, stdout);
	cc_buf_release(&b);
}

/* The report's first column: 14, or a longer label's length. */
static int label_width = 14;

static void
line_count(const char *label, struct count c, const char *note)
{
	if (!c.total)
		return;
	printf("  %-*s %6zu/%-6zu %6.1f%%%s%s\n", label_width, label, c.right, c.total, 100 * ratio(c),
	    note ? "   " : "", note ? note : "");
}

static void
put_values(enum kind k, jv v)
{
	char buf[16];
	int first = 1;

	if (jv_get_kind(v) == JV_KIND_STRING) {
		put_escaped(jv_string_value(v), (size_t)jv_string_length_bytes(jv_copy(v)));
		return;
	}
	for (const char *const *f = kind_fields(k); *f; f++) {
		jv x = member(v, *f);
		const char *t = class_name(x, buf, sizeof buf);

		printf("%s", first ? "" : " ");
		put_escaped(t, strlen(t));
		first = 0;
		jv_free(x);
	}
}

static void
report(struct opts *o, struct file *f, struct score *s, jv misses)
{
	const char *cf = class_field(f->kind);
	char note[128];
	size_t nm = (size_t)jv_array_length(jv_copy(misses));

	label_width = 14;
	for (size_t k = 0; kind_fields(f->kind)[k]; k++)
		if ((int)strlen(kind_fields(f->kind)[k]) > label_width)
			label_width = (int)strlen(kind_fields(f->kind)[k]);
	printf("%s: %s, ", f->path, kind_names[f->kind]);
	if (f->kind == SESSIONS)
		printf("%zu sessions, %zu turns (%zu follow-ups scored)\n", f->nrows, f->nitems,
		    s->strict.total);
	else
		printf("%zu queries\n", f->nitems);
	line_count("strict", s->strict, "all fields as expected");
	line_count("lenient", s->lenient, "expected or an alt label");
	line_count("clear-cut", s->clear, "strict, on rows not marked ambiguous");
	for (size_t k = 0; kind_fields(f->kind)[k]; k++)
		line_count(kind_fields(f->kind)[k], s->field[k], NULL);
	if (f->kind == SESSIONS) {
		snprintf(note, sizeof note, "strict; lenient %zu/%zu, clear-cut %zu/%zu",
		    s->first_lenient.right, s->first_lenient.total,
		    s->first_clear.right, s->first_clear.total);
		line_count("first turns", s->first_strict, note);
	}
	if (f->kind == TIME) {
		line_count("spec literal", s->spec_literal, "agrees with the spec's literal port");
		line_count("ext. kind", s->ext_kind, "extension rows");
		line_count("ext. start", s->ext_start, NULL);
		line_count("ext. end", s->ext_end, NULL);
	}
	if (s->errors)
		printf("  %zu error records (scored as misses)\n", s->errors);
	if (s->nlang && f->kind != LANGUAGE) {
		printf("by language%16s  strict lenient\n", "n");
		for (size_t i = 0; i < s->nlang; i++)
			printf("  %-21s %3zu %6.1f%% %6.1f%%\n", s->lang[i].name,
			    s->lang[i].strict.total, 100 * ratio(s->lang[i].strict),
			    100 * ratio(s->lang[i].lenient));
	}
	printf("by %-18s %5s  strict lenient  recall precision\n", cf, "n");
	for (size_t i = 0; i < s->ncls; i++) {
		struct class_stats *c = &s->cls[i];

		if (!c->strict.total)
			continue;
		printf("  %-21s %3zu %6.1f%% %6.1f%% %6.1f%% ", c->name, c->strict.total,
		    100 * ratio(c->strict), 100 * ratio(c->lenient), 100 * ratio(c->recall));
		if (c->as_got)
			printf("%6.1f%%\n", 100.0 * c->got_right / c->as_got);
		else
			printf("%7s\n", "-");
	}
	printf("%s confusion (rows expected, columns got)\n%23s", cf, "");
	for (size_t j = 0; j < s->ncls; j++) {
		const char *n = s->cls[j].name;
		size_t len = strlen(n);

		/* a short label: five letters, without an Agent suffix */
		if (len > 5 && strcmp(n + len - 5, "Agent") == 0)
			len -= 5;
		printf(" %5.*s", (int)(len < 5 ? len : 5), n);
	}
	putchar('\n');
	for (size_t i = 0; i < s->ncls; i++) {
		if (!s->cls[i].strict.total)
			continue;
		printf("  %-21s", s->cls[i].name);
		for (size_t j = 0; j < s->ncls; j++)
			if (s->cls[i].confusion[j])
				printf(" %5zu", s->cls[i].confusion[j]);
			else
				printf(" %5s", ".");
		putchar('\n');
	}
	snprintf(note, sizeof note, "%zu accepted by an alt label", s->alt_misses);
	printf("misses: %zu (%s)\n", nm, note);
	for (size_t i = 0; i < nm && (o->max_misses < 0 || (long)i < o->max_misses); i++) {
		jv m = jv_array_get(jv_copy(misses), (int)i), id = member(m, "id"), q = member(m, "query");
		jv turn = member(m, "turn"), e = member(m, "expected"), g = member(m, "got");
		jv idt = jv_get_kind(id) == JV_KIND_STRING ? jv_copy(id) : jv_dump_string(jv_copy(id), 0);

		printf("  ");
		put_escaped(jv_string_value(idt), (size_t)jv_string_length_bytes(jv_copy(idt)));
		if (jv_get_kind(turn) == JV_KIND_NUMBER)
			printf(" turn %d", (int)jv_number_value(turn));
		if (is_true(m, "alt_ok"))
			printf(" (alt ok)");
		printf(" \"");
		put_escaped(jv_string_value(q), (size_t)jv_string_length_bytes(jv_copy(q)));
		printf("\"\n    expected ");
		put_values(f->kind, e);
		printf("\n    got      ");
		put_values(f->kind, g);
		putchar('\n');
		jv_free(idt);
		jv_free(id);
		jv_free(q);
		jv_free(turn);
		jv_free(e);
		jv_free(g);
		jv_free(m);
	}
	if (o->max_misses >= 0 && nm > (size_t)o->max_misses)
		printf("  ... %zu more (cc-eval --json lists them all)\n", nm - (size_t)o->max_misses);
}

/* ---- thresholds, files, main ---- */

static void
parse_threshold(struct opts *o, const char *arg)
{
	const char *eq = strchr(arg, '='), *num = eq ? eq + 1 : arg;
	char *end;
	double x = strtod(num, &end);
	struct threshold *t;

	if (o->nth == sizeof o->th / sizeof o->th[0])
		cc_die(CC_EXIT_USAGE, "too many --min-accuracy options");
	t = &o->th[o->nth++];
	t->metric = "strict";
	if (eq) {
		static const char *const metrics[] = { "strict", "lenient", "clear" };

		t->metric = NULL;
		for (size_t i = 0; i < 3; i++)
			if (strlen(metrics[i]) == (size_t)(eq - arg) &&
			    strncmp(arg, metrics[i], (size_t)(eq - arg)) == 0)
				t->metric = metrics[i];
		if (!t->metric)
			cc_die(CC_EXIT_USAGE, "invalid metric in '%s': expected strict, lenient or clear", arg);
	}
	if (end == num || (*end && strcmp(end, "%") != 0) || x < 0 || isnan(x))
		cc_die(CC_EXIT_USAGE, "invalid accuracy '%s': expected a fraction (0.95) or a percentage (95%%)", num);
	if (*end == '%' || x > 1)
		x /= 100;
	if (x > 1)
		cc_die(CC_EXIT_USAGE, "invalid accuracy '%s': above 100%%", num);
	t->min = x;
}

static int
check_thresholds(struct opts *o, struct file *f, struct score *s)
{
	int below = 0;

	for (size_t i = 0; i < o->nth; i++) {
		struct threshold *t = &o->th[i];
		struct count c = strcmp(t->metric, "lenient") == 0 ? s->lenient :
		    strcmp(t->metric, "clear") == 0 ? s->clear : s->strict;

		/* right/total >= min, without rounding surprises at the edge */
		if (c.total && (double)c.right < t->min * (double)c.total - 1e-9) {
			cc_warn("%s: %s accuracy %zu/%zu (%.1f%%) is below %g%%", f->path,
			    t->metric, c.right, c.total, 100 * ratio(c), 100 * t->min);
			below = 1;
		}
	}
	return below ? CC_EXIT_NEGATIVE : 0;
}

static int
rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

static void
free_file(struct file *f)
{
	for (size_t i = 0; i < f->nitems; i++) {
		jv_free(f->items[i].label);
		jv_free(f->items[i].got);
		free(f->items[i].line);
	}
	for (size_t i = 0; i < f->nrows; i++)
		jv_free(f->rows[i].v);
	free(f->items);
	free(f->rows);
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		CC_COMMON_LONGOPTS,
		{"json", no_argument, NULL, 'j'},
		{"min-accuracy", required_argument, NULL, 'm'},
		{"jobs", required_argument, NULL, 'P'},
		{"output", required_argument, NULL, 'o'},
		{"stages", required_argument, NULL, 'S'},
		{"misses", required_argument, NULL, 'n'},
		{"quiet", no_argument, NULL, 'q'},
		{NULL, 0, NULL, 0},
	};
	struct opts o = { .jobs = 1, .max_misses = -1 };
	struct cc_config cfg;
	struct cc_domain *dom;
	struct sigaction sa;
	const char *tmpdir = getenv("TMPDIR"), *stages_arg = NULL;
	char err[512], *end;
	int c, status = 0;
	FILE *out = NULL;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, CC_COMMON_SHORTOPTS "jm:P:o:S:n:q", lopts, NULL)) != -1) {
		if (cc_option_common(c, argv, usage_text, NULL))
			continue;
		switch (c) {
		case 'j': o.json = 1; break;
		case 'q': o.quiet = 1; break;
		case 'm': parse_threshold(&o, optarg); break;
		case 'o': o.output = optarg; break;
		case 'S': stages_arg = optarg; break;
		case 'P':
			o.jobs = (int)strtol(optarg, &end, 10);
			if (*end || o.jobs < 1 || o.jobs > 256)
				cc_die(CC_EXIT_USAGE, "invalid --jobs '%s': expected 1 to 256", optarg);
			break;
		case 'n':
			o.max_misses = strtol(optarg, &end, 10);
			if (*end || o.max_misses < 0)
				cc_die(CC_EXIT_USAGE, "invalid --misses '%s'", optarg);
			break;
		}
	}
	if (optind == argc) {	/* standard input */
		static char dash[] = "-", *stdin_only[] = { NULL, dash, NULL };

		stdin_only[0] = argv[0];
		argv = stdin_only;
		argc = 2;
		optind = 1;
	}
	cc_config_load(&cfg);
	dom = cc_domain_load(&cfg);
	domain = dom;
	for (size_t i = 0; i < dom->nlabels; i++)
		fields_routing[i] = dom->labels[i].name;
	if (stages_arg && setenv("CC_STAGES", stages_arg, 1) < 0)
		cc_die(CC_EXIT_INTERNAL, "setenv: %s", strerror(errno));
	if (!(o.stages = cc_stages_find(&o.nstages, err, sizeof err)))
		cc_die(CC_EXIT_USAGE, "%s", err);
	if (o.nstages == 0)
		cc_die(CC_EXIT_USAGE, "no stages to run: build the programs or set CC_STAGES");
	if (o.output && !(out = fopen(o.output, "w")))
		cc_die(CC_EXIT_USAGE, "cannot open '%s': %s", o.output, strerror(errno));
	o.progress = !o.quiet && isatty(2);

	o.tmp = cc_xmalloc(strlen(tmpdir && *tmpdir ? tmpdir : "/tmp") + 32);
	sprintf(o.tmp, "%s/cc-eval.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(o.tmp))
		cc_die(CC_EXIT_INTERNAL, "cannot create a temporary directory '%s': %s", o.tmp, strerror(errno));
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	for (int i = optind; i < argc && !interrupted; i++) {
		struct file f = { .path = argv[i] };
		struct score s;
		double t0 = now_seconds();
		size_t done = 0;
		int st = load_file(&f), rst;
		jv misses;

		if (st == CC_EXIT_USAGE || f.nitems == 0) {
			if (st != CC_EXIT_USAGE)
				cc_warn("%s: no labelled queries", f.path);
			status = status > (st ? st : CC_EXIT_DATA) ? status : (st ? st : CC_EXIT_DATA);
			free_file(&f);
			continue;
		}
		rst = run_file(&o, &f, t0, &done);
		progress(&o, 0, 1, t0, 1);
		f.seconds = now_seconds() - t0;
		if (rst < 0 || rst == CC_EXIT_USAGE || rst == CC_EXIT_INTERNAL) {
			/* time ranges without cc-event, or a pipeline that failed */
			if (rst < 0)
				rst = CC_EXIT_USAGE;
			else
				cc_warn("%s: not scored: the pipeline failed", f.path);
			status = status > rst ? status : rst;
			free_file(&f);
			continue;
		}
		if (interrupted)
			break;
		/* stages exit 3 for the error records scored as misses below */
		if (rst > st && rst != CC_EXIT_DATA)
			st = rst;
		score_file(&f, &s, &misses);
		if (o.json) {
			jv sum = summary_json(&f, &s, misses);

			jv_dumpf(sum, stdout, 0);
			putchar('\n');
		} else {
			report(&o, &f, &s, misses);
			if (i + 1 < argc)
				putchar('\n');
		}
		jv_free(misses);
		if (out)
			for (size_t k = 0; k < f.nitems; k++)
				if (f.items[k].line)
					fprintf(out, "%s\n", f.items[k].line);
		rst = check_thresholds(&o, &f, &s);
		if (rst > st && st < CC_EXIT_DATA)
			st = rst;
		if (st > status)
			status = st;
		free_file(&f);
	}
	/*
	 * A write that failed set the error flag and lost its buffer, so
	 * fclose() alone can succeed after it: -o on a full disk exited 0.
	 */
	if (fflush(stdout) == EOF || ferror(stdout)) {
		cc_warn("cannot write output: %s", strerror(errno));
		status = CC_EXIT_INTERNAL;
	}
	if (out && (ferror(out) | fclose(out))) {
		cc_warn("cannot write '%s': %s", o.output, strerror(errno));
		status = CC_EXIT_INTERNAL;
	}
	nftw(o.tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(o.tmp);
	cc_stages_free(o.stages);
	cc_domain_free(dom);
	cc_config_release(&cfg);
	if (interrupted) {
		fputs("\n", stderr);
		cc_warn("interrupted");
		return 130;
	}
	return status;
}
