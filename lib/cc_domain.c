/*
 * The domain manifest (cc-domain(5)): one directive a line, words
 * separated by blanks, '#' lines and blank lines ignored.  The parser
 * reports every problem it finds (cc-domain check lists them all) and
 * keeps going; a program that serves the domain refuses one with any.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_record.h"
#include "cc_json.h"
#include "cc_domain.h"

static const char *const answer_names[] = {
	[CC_ANSWER_KB] = "kb",
	[CC_ANSWER_EVENTS] = "events",
	[CC_ANSWER_SEARCH] = "search",
	[CC_ANSWER_MEMORY] = "memory",
	[CC_ANSWER_CLARIFY] = "clarify",
	[CC_ANSWER_TIME] = "time",
	[CC_ANSWER_TOOL] = "tool",
};

const char *
cc_answer_kind_name(enum cc_answer_kind k)
{
	return answer_names[k];
}

int
cc_answer_kind_parse(const char *word)
{
	for (size_t i = 0; i < sizeof answer_names / sizeof *answer_names; i++)
		if (strcmp(word, answer_names[i]) == 0)
			return (int)i;
	return -1;
}

struct parse {
	struct cc_domain *d;
	unsigned line;
	struct cc_problems *problems;
	char *fallback;		/* the fallback agent's name, resolved at the end */
	unsigned fallback_line;
};

static void __attribute__((format(printf, 2, 3)))
problem(struct parse *p, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (p->line)
		cc_problem(p->problems, "%s:%u: %s", p->d->path, p->line, msg);
	else
		cc_problem(p->problems, "%s: %s", p->d->path, msg);
}

/* A program name a pipeline may hold: cc-<letters, digits, ->. */
static int
stage_name_ok(const char *w)
{
	return strncmp(w, "cc-", 3) == 0 && w[3] &&
	    strspn(w + 3, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(w + 3);
}

static int
stage_index(const struct cc_domain *d, const char *stage)
{
	for (size_t i = 0; i < d->nstages; i++)
		if (strcmp(d->pipeline[i], stage) == 0)
			return (int)i;
	return -1;
}

static struct cc_domain_agent *
find_agent(const struct cc_domain *d, const char *name)
{
	for (size_t i = 0; i < d->nagents; i++)
		if (strcmp(d->agents[i].name, name) == 0)
			return &d->agents[i];
	return NULL;
}

/* The next blank-delimited word of *s, or NULL at the end. */
static char *
word(char **s)
{
	char *w = cc_word(s);

	return *w ? w : NULL;
}

/* The rest of the line after the directive, trimmed, or "". */
static char *
rest(char *s)
{
	size_t n;

	s += strspn(s, " \t");
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* An alias value: JSON text as it is, a bare word as a JSON string. */
static char *
json_value(const char *w)
{
	size_t n = strlen(w);
	char *out;

	if (strchr("[{\"-0123456789", *w) || strcmp(w, "null") == 0 ||
	    strcmp(w, "true") == 0 || strcmp(w, "false") == 0)
		return cc_xstrdup(w);
	out = cc_xmalloc(n + 3);
	snprintf(out, n + 3, "\"%s\"", w);
	return out;
}

static void
directive_agent(struct parse *p, char *s)
{
	struct cc_domain *d = p->d;
	char *name = word(&s), *answer = word(&s), *w;
	struct cc_domain_agent a = { .line = p->line };
	int k;

	if (!name || !answer) {
		problem(p, "agent: expected a name and an answer (kb, events, search, "
		    "memory, clarify, time, tool:KEY)");
		return;
	}
	if (find_agent(d, name)) {
		problem(p, "agent '%s' is defined twice", name);
		return;
	}
	if (strncmp(answer, "tool:", 5) == 0) {
		a.answer = CC_ANSWER_TOOL;
		if (!answer[5]) {
			problem(p, "agent '%s': tool: needs the record member to answer "
			    "from (tool:coach)", name);
			return;
		}
		a.tool = cc_xstrdup(answer + 5);
	} else if ((k = cc_answer_kind_parse(answer)) < 0 || k == CC_ANSWER_TOOL) {
		problem(p, "agent '%s': unknown answer '%s' (kb, events, search, "
		    "memory, clarify, time, tool:KEY)", name, answer);
		return;
	} else {
		a.answer = (enum cc_answer_kind)k;
	}
	while ((w = word(&s))) {
		int i = stage_index(d, w);

		if (i < 0) {
			problem(p, "agent '%s': stage '%s' is not in the pipeline%s", name, w,
			    d->nstages ? "" : " (write the pipeline line first)");
			continue;
		}
		a.stages |= 1u << i;
	}
	a.name = cc_xstrdup(name);
	d->agents = cc_xrealloc(d->agents, (d->nagents + 1) * sizeof *d->agents);
	d->agents[d->nagents++] = a;
}

static void
directive_label(struct parse *p, char *s)
{
	struct cc_domain *d = p->d;
	char *name = word(&s), *path = word(&s), *opt;
	struct cc_domain_label *l;

	if (!name || !path) {
		problem(p, "eval-label: expected a label name and a record path "
		    "(eval-label agent route.agent)");
		return;
	}
	if (d->nlabels == CC_DOMAIN_MAX_LABELS) {
		problem(p, "eval-label: at most %d labels", CC_DOMAIN_MAX_LABELS);
		return;
	}
	if (*path == '.' || path[strlen(path) - 1] == '.' || strstr(path, "..")) {
		problem(p, "eval-label %s: '%s' is not a dotted path", name, path);
		return;
	}
	l = &d->labels[d->nlabels++];
	l->name = cc_xstrdup(name);
	l->path = cc_xstrdup(path);
	while ((opt = word(&s))) {
		if (strncmp(opt, "alt=", 4) == 0 && opt[4])
			l->alt = cc_xstrdup(opt + 4);
		else
			problem(p, "eval-label %s: unknown option '%s' (alt=FIELD)", name, opt);
	}
}

static void
directive_alias(struct parse *p, char *s, int one_way)
{
	struct cc_domain *d = p->d;
	char *label = word(&s), *from = word(&s), *to = word(&s);
	struct cc_domain_alias *a;

	if (!label || !from || !to || word(&s)) {
		if (one_way)
			problem(p, "eval-accept: expected a label, a labelled value and a "
			    "value also accepted for it (eval-accept categories [] [\"A\"])");
		else
			problem(p, "eval-alias: expected a label, a value and the value it "
			    "stands for (eval-alias category calendar events)");
		return;
	}
	d->aliases = cc_xrealloc(d->aliases, (d->naliases + 1) * sizeof *d->aliases);
	a = &d->aliases[d->naliases++];
	a->label = cc_xstrdup(label);
	a->from = json_value(from);
	a->to = json_value(to);
	a->one_way = one_way;
}

/* Replace *slot with a copy of the one word in s; a problem if not one. */
static void
one_word(struct parse *p, const char *directive, char *s, char **slot)
{
	char *w = word(&s);

	if (!w || word(&s)) {
		problem(p, "%s: expected one word", directive);
		return;
	}
	if (*slot)
		problem(p, "%s is given twice", directive);
	free(*slot);
	*slot = cc_xstrdup(w);
}

static void
parse_line(struct parse *p, char *line)
{
	struct cc_domain *d = p->d;
	char *s = line, *key = word(&s), *w;

	if (!key || *key == '#')
		return;
	if (strcmp(key, "name") == 0) {
		one_word(p, key, s, &d->name);
	} else if (strcmp(key, "description") == 0) {
		if (!*rest(s))
			problem(p, "description: say in a line what the domain answers");
		free(d->description);
		d->description = cc_xstrdup(rest(s));
	} else if (strcmp(key, "pipeline") == 0) {
		if (d->nstages)
			problem(p, "pipeline is given twice");
		d->nstages = 0;
		while ((w = word(&s))) {
			if (!stage_name_ok(w))
				problem(p, "pipeline: '%s' is not a stage program name (cc-...)", w);
			else if (stage_index(d, w) >= 0)
				problem(p, "pipeline: '%s' twice", w);
			else if (d->nstages == CC_DOMAIN_MAX_STAGES)
				problem(p, "pipeline: at most %d stages", CC_DOMAIN_MAX_STAGES);
			else
				d->pipeline[d->nstages++] = cc_xstrdup(w);
		}
		if (!d->nstages)
			problem(p, "pipeline: no stages");
	} else if (strcmp(key, "agent") == 0) {
		directive_agent(p, s);
	} else if (strcmp(key, "fallback") == 0) {
		char *agent = word(&s), *category = word(&s);

		if (!agent || word(&s)) {
			problem(p, "fallback: expected an agent and optionally its category");
			return;
		}
		if (p->fallback)
			problem(p, "fallback is given twice");
		free(p->fallback);
		free(d->fallback_category);
		p->fallback = cc_xstrdup(agent);
		d->fallback_category = category ? cc_xstrdup(category) : NULL;
		p->fallback_line = p->line;
	} else if (strcmp(key, "min-score") == 0) {
		char *num = word(&s), *end = NULL;
		double v = num ? strtod(num, &end) : -1;

		if (!num || *end || word(&s) || !(v >= 0 && v <= 1e6))
			problem(p, "min-score: expected one number, 0 or more");
		else
			d->min_score = v;
	} else if (strcmp(key, "examples") == 0) {
		one_word(p, key, s, &d->examples);
	} else if (strcmp(key, "examples-margin") == 0) {
		char *num = word(&s), *end = NULL;
		double v = num ? strtod(num, &end) : -1;

		if (!num || *end || word(&s) || !(v >= 0 && v <= 100))
			problem(p, "examples-margin: expected one number, 0 or more");
		else
			d->examples_margin = v;
	} else if (strcmp(key, "eval-query") == 0) {
		one_word(p, key, s, &d->eval_query);
	} else if (strcmp(key, "eval-alternatives") == 0) {
		one_word(p, key, s, &d->eval_alternatives);
	} else if (strcmp(key, "eval-label") == 0) {
		directive_label(p, s);
	} else if (strcmp(key, "eval-alias") == 0) {
		directive_alias(p, s, 0);
	} else if (strcmp(key, "eval-accept") == 0) {
		directive_alias(p, s, 1);
	} else {
		problem(p, "unknown directive '%s' (name, description, pipeline, agent, "
		    "fallback, min-score, examples, examples-margin, eval-query, "
		    "eval-label, eval-alias, eval-accept, eval-alternatives)", key);
	}
}

struct cc_domain *
cc_domain_parse(const char *path, struct cc_problems *problems)
{
	struct cc_domain *d = calloc(1, sizeof *d);
	struct parse p = { .d = d, .problems = problems };
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!d)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	d->refs = 1;
	d->path = cc_xstrdup(path);
	d->examples_margin = -1;	/* the classifier's own default */
	if (!(f = fopen(path, "r"))) {
		problem(&p, "cannot read the domain manifest: %s%s", strerror(errno),
		    errno == ENOENT ? " (every domain folder has one: see cc-domain(5))" : "");
		cc_domain_free(d);
		return NULL;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		p.line++;
		if (memchr(line, '\0', (size_t)n)) {
			problem(&p, "a NUL byte: not a text file");
			continue;
		}
		line[strcspn(line, "\r\n")] = '\0';
		parse_line(&p, line);
	}
	free(line);
	fclose(f);
	p.line = 0;
	if (!d->name)
		problem(&p, "no name line");
	if (!d->description)
		problem(&p, "no description line");
	if (!d->nstages)
		problem(&p, "no pipeline line");
	if (!d->nagents)
		problem(&p, "no agent lines");
	if (p.fallback) {
		p.line = p.fallback_line;
		if (!(d->fallback = find_agent(d, p.fallback)))
			problem(&p, "fallback: agent '%s' is not defined", p.fallback);
	} else if (d->nagents) {
		problem(&p, "no fallback line (the agent of what no rule routes)");
	}
	free(p.fallback);
	if (!d->nstages || !d->nagents || !d->fallback) {
		cc_domain_free(d);
		return NULL;
	}
	return d;
}

static void
first_problem(void *ctx, const char *message)
{
	char *first = ctx;

	if (!*first)
		snprintf(first, 768, "%s", message);
}

/*
 * The manifest last loaded, shared while its file stays the same (device,
 * inode, size, modification time): it holds one reference of its own, so
 * it stays reachable until the next domain replaces it.
 */
static struct cc_domain *shared;

static int
same_file(const struct cc_domain *d, const struct stat *st)
{
	return d->dev == st->st_dev && d->ino == st->st_ino &&
	    d->size == st->st_size && d->mtime.tv_sec == st->st_mtim.tv_sec &&
	    d->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

struct cc_domain *
cc_domain_load(const struct cc_config *cfg)
{
	char *path = cc_config_domain_path(cfg, CC_DOMAIN_FILE), first[768] = "";
	struct cc_problems problems = { first_problem, first, 0 };
	struct cc_domain *d;
	struct stat st;
	int known = stat(path, &st) == 0;

	if (known && shared && strcmp(shared->path, path) == 0 && same_file(shared, &st)) {
		free(path);
		shared->refs++;
		return shared;
	}
	d = cc_domain_parse(path, &problems);
	free(path);
	if (problems.n) {
		cc_domain_free(d);
		cc_die(CC_EXIT_USAGE, "%s%s", first, problems.n > 1 ?
		    " (and more: cc-domain check lists them)" : "");
	}
	if (d && known) {
		d->dev = st.st_dev;
		d->ino = st.st_ino;
		d->size = st.st_size;
		d->mtime = st.st_mtim;
		cc_domain_free(shared);
		shared = d;
		d->refs++;
	}
	return d;
}

struct cc_domain *
cc_domain_for_stage(const struct cc_config *cfg, struct cc_stage *stage)
{
	struct cc_domain *d = cc_domain_load(cfg);

	if (!cc_domain_runs(d, stage->name))
		stage->process = NULL;
	return d;
}

void
cc_domain_free(struct cc_domain *d)
{
	if (!d || --d->refs > 0)
		return;
	free(d->path);
	free(d->name);
	free(d->description);
	for (size_t i = 0; i < d->nstages; i++)
		free(d->pipeline[i]);
	for (size_t i = 0; i < d->nagents; i++) {
		free(d->agents[i].name);
		free(d->agents[i].tool);
	}
	free(d->agents);
	free(d->fallback_category);
	free(d->examples);
	free(d->eval_query);
	free(d->eval_alternatives);
	for (size_t i = 0; i < d->nlabels; i++) {
		free(d->labels[i].name);
		free(d->labels[i].path);
		free(d->labels[i].alt);
	}
	for (size_t i = 0; i < d->naliases; i++) {
		free(d->aliases[i].label);
		free(d->aliases[i].from);
		free(d->aliases[i].to);
	}
	free(d->aliases);
	free(d);
}

int
cc_domain_runs(const struct cc_domain *d, const char *stage)
{
	return stage_index(d, stage) >= 0;
}

const struct cc_domain_agent *
cc_domain_agent(const struct cc_domain *d, const char *name)
{
	const struct cc_domain_agent *a = name ? find_agent(d, name) : NULL;

	return a ? a : d->fallback;
}

const struct cc_domain_agent *
cc_domain_find_agent(const struct cc_domain *d, const char *name)
{
	return find_agent(d, name);
}

int
cc_domain_acts(const struct cc_domain *d, const char *stage, const char *agent)
{
	int i = stage_index(d, stage);

	if (i < 0)
		return 0;
	return !agent || (cc_domain_agent(d, agent)->stages >> i & 1);
}

jv
cc_domain_label_value(const struct cc_domain *d, const char *label, jv v)
{
	jv text = jv_invalid();

	for (size_t i = 0; i < d->naliases; i++) {
		const struct cc_domain_alias *a = &d->aliases[i];

		if (a->one_way || strcmp(a->label, label) != 0)
			continue;
		if (!jv_is_valid(text))
			text = jv_dump_string(jv_copy(v), 0);
		if (strcmp(jv_string_value(text), a->from) == 0) {
			jv to = cc_json_parse(a->to, strlen(a->to));

			if (jv_is_valid(to)) {
				jv_free(v);
				v = to;
			} else {
				jv_free(to);
			}
			break;
		}
	}
	jv_free(text);
	return v;
}
