/*
 * check_curriculum: the curriculum table of grades 1-3, math and Japanese,
 * read from the domain's `curriculum` file (format in its header and in
 * cc-coach(1)).  Each entry's result object is built once at load, so a
 * lookup hands out a reference; a miss gets the fallback entry, which has
 * the original's shape (one prerequisite, one objective, two mistakes,
 * three strategies, no related topics).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_coach.h"

/* The five lists of the seed, in its order, and the file's word for each. */
static const char *const list_keys[] = {
	"prerequisites", "learning_objectives", "common_mistakes",
	"teaching_strategies", "related_topics",
};
static const char *const list_words[] = { "pre", "goal", "mistake", "strategy", "related" };
#define NLISTS 5
#define RELATED 4

struct entry {
	int grade;			/* 0: the fallback */
	char *subject;
	char **ids;			/* ids[0] the topic, the rest aliases */
	size_t nids;
	char *title;
	jv lists[NLISTS];		/* arrays of strings */
	jv value;			/* the result object, built at the end */
	int line;
};

struct cc_curriculum {
	struct entry *e;
	size_t n;
	struct entry *fallback;
};

static int
is_id(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

static void
entry_release(struct entry *e)
{
	free(e->subject);
	for (size_t i = 0; i < e->nids; i++)
		free(e->ids[i]);
	free(e->ids);
	free(e->title);
	for (int i = 0; i < NLISTS; i++)
		jv_free(e->lists[i]);
	jv_free(e->value);
}

void
cc_curriculum_free(struct cc_curriculum *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		entry_release(&c->e[i]);
	free(c->e);
	free(c);
}

static struct entry *
new_entry(struct cc_curriculum *c, int line)
{
	struct entry *e;

	c->e = cc_xrealloc(c->e, (c->n + 1) * sizeof *c->e);
	e = &c->e[c->n++];
	memset(e, 0, sizeof *e);
	for (int i = 0; i < NLISTS; i++)
		e->lists[i] = jv_array();
	e->value = jv_null();
	e->line = line;
	return e;
}

static struct entry *
find(const struct cc_curriculum *c, int grade, const char *subject,
    const char *topic)
{
	for (size_t i = 0; i < c->n; i++) {
		struct entry *e = &c->e[i];

		if (e->grade != grade || !e->subject || strcmp(e->subject, subject) != 0)
			continue;
		for (size_t k = 0; k < e->nids; k++)
			if (strcmp(e->ids[k], topic) == 0)
				return e;
	}
	return NULL;
}

const char *
cc_curriculum_canonical(const struct cc_curriculum *c, const char *subject,
    const char *topic)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct entry *e = &c->e[i];

		if (!e->subject || strcmp(e->subject, subject) != 0)
			continue;
		for (size_t k = 0; k < e->nids; k++)
			if (strcmp(e->ids[k], topic) == 0)
				return e->ids[0];
	}
	return NULL;
}

int
cc_curriculum_has(const struct cc_curriculum *c, int grade, const char *subject,
    const char *topic)
{
	return find(c, grade, subject, topic) != NULL;
}

void
cc_curriculum_each(const struct cc_curriculum *c,
    void (*fn)(int, const char *, const char *, const char *const *, void *),
    void *arg)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct entry *e = &c->e[i];
		int n = jv_array_length(jv_copy(e->lists[RELATED]));
		const char **rel;

		if (!e->grade)
			continue;
		rel = cc_xmalloc(((size_t)n + 1) * sizeof *rel);
		for (int k = 0; k < n; k++) {
			jv s = jv_array_get(jv_copy(e->lists[RELATED]), k);

			rel[k] = jv_string_value(s);	/* the list keeps it alive */
			jv_free(s);
		}
		rel[n] = NULL;
		fn(e->grade, e->subject, e->ids[0], rel, arg);
		free(rel);
	}
}

/* Parse "topic GRADE SUBJECT ID[,ALIAS...] TITLE"; NULL or an error. */
static const char *
parse_topic(struct cc_curriculum *c, char *p, int line)
{
	char *grade = cc_word(&p), *subject = cc_word(&p), *ids = cc_word(&p), *end;
	struct entry *e;
	long g;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*grade || !*subject || !*ids || !*p)
		return "expected 'topic GRADE SUBJECT ID[,ALIAS...] TITLE'";
	g = strtol(grade, &end, 10);
	if (*end || g < 1 || g > 9)
		return "the grade must be a number from 1 to 9";
	if (!is_id(subject))
		return "the subject must be lower-case letters, digits and _";
	e = new_entry(c, line);
	e->grade = (int)g;
	e->subject = cc_xstrdup(subject);
	e->title = cc_xstrdup(p);
	for (char *id = strtok(ids, ","); id; id = strtok(NULL, ",")) {
		if (!is_id(id))
			return "topic ids must be lower-case letters, digits and _";
		if (find(c, (int)g, subject, id))
			return "this topic is already in the table";
		e->ids = cc_xrealloc(e->ids, (e->nids + 1) * sizeof *e->ids);
		e->ids[e->nids++] = cc_xstrdup(id);
	}
	if (!e->nids)
		return "expected a topic id";
	return NULL;
}

static const char *
parse_item(struct entry *e, const char *word, char *p)
{
	int k;

	for (k = 0; k < NLISTS; k++)
		if (strcmp(word, list_words[k]) == 0)
			break;
	if (k == NLISTS)
		return "expected topic, fallback, pre, goal, mistake, strategy or related";
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return "an item needs its text";
	if (k != RELATED) {
		e->lists[k] = jv_array_append(e->lists[k], jv_string(p));
		return NULL;
	}
	if (!e->grade)
		return "the fallback has no related topics";
	for (char *w = cc_word(&p); *w; w = cc_word(&p)) {
		if (!is_id(w))
			return "related topics are topic ids";
		e->lists[k] = jv_array_append(e->lists[k], jv_string(w));
	}
	return NULL;
}

/* Every list filled, every related topic in the table; builds the values. */
static int
finish(struct cc_curriculum *c, const char *path, char *err, size_t errlen)
{
	if (!c->fallback) {
		snprintf(err, errlen, "%s: no fallback block", path);
		return -1;
	}
	for (size_t i = 0; i < c->n; i++) {
		struct entry *e = &c->e[i];
		jv v = jv_object();

		for (int k = 0; k < RELATED; k++)
			if (jv_array_length(jv_copy(e->lists[k])) == 0) {
				snprintf(err, errlen, "%s:%d: no '%s' item", path, e->line,
				    list_words[k]);
				jv_free(v);
				return -1;
			}
		jv_array_foreach(e->lists[RELATED], j, t) {
			if (!cc_curriculum_canonical(c, e->subject, jv_string_value(t))) {
				snprintf(err, errlen, "%s:%d: related topic '%s' is not a "
				    "%s topic of the table", path, e->line,
				    jv_string_value(t), e->subject);
				jv_free(t);
				jv_free(v);
				return -1;
			}
			jv_free(t);
		}
		for (int k = 0; k < NLISTS; k++)
			v = jv_object_set(v, jv_string(list_keys[k]), jv_copy(e->lists[k]));
		v = jv_object_set(v, jv_string("matched"),
		    jv_string(e->grade ? "table" : "fallback"));
		v = jv_object_set(v, jv_string("title"),
		    e->title ? jv_string(e->title) : jv_null());
		jv_free(e->value);
		e->value = v;
	}
	return 0;
}

struct cc_curriculum *
cc_curriculum_load(const char *path, char *err, size_t errlen)
{
	struct cc_curriculum *c = calloc(1, sizeof *c);
	FILE *f = fopen(path, "r");
	struct entry *cur = NULL;
	char *line = NULL, *p, *word;
	const char *why = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0;

	if (!c)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		free(c);
		return NULL;
	}
	while (!why && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		word = cc_word(&p);
		if (strcmp(word, "topic") == 0)
			why = parse_topic(c, p, lineno);
		else if (strcmp(word, "fallback") == 0)
			why = c->fallback ? "a second fallback block" :
			    (new_entry(c, lineno), NULL);
		else if (!cur)
			why = "an item before the first topic";
		else
			why = parse_item(cur, word, p);
		/* items belong to the last block; entries move as the array grows */
		cur = c->n ? &c->e[c->n - 1] : NULL;
		c->fallback = NULL;
		for (size_t i = 0; i < c->n; i++)
			if (!c->e[i].grade)
				c->fallback = &c->e[i];
	}
	free(line);
	fclose(f);
	if (why) {
		snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
		cc_curriculum_free(c);
		return NULL;
	}
	if (finish(c, path, err, errlen) < 0) {
		cc_curriculum_free(c);
		return NULL;
	}
	return c;
}

jv
cc_coach_check_curriculum(const struct cc_coach_data *d, jv args, jv *state,
    time_t now)
{
	const char *subject, *topic;
	const struct entry *e = NULL;
	double grade;
	jv err = jv_invalid();
	int g, s, t;

	(void)state;
	(void)now;
	if (jv_get_kind(args) != JV_KIND_OBJECT)
		return cc_coach_error("the arguments must be a JSON object");
	if ((g = cc_coach_arg_num(args, "grade_level", -1e9, 1e9, &grade, &err)) < 0 ||
	    (s = cc_coach_arg_str(args, "subject", 64, &subject, &err)) < 0 ||
	    (t = cc_coach_arg_str(args, "topic", 64, &topic, &err)) < 0)
		return err;
	if (!g)
		return cc_coach_error("missing argument: grade_level");
	if (!s)
		return cc_coach_error("missing argument: subject");
	if (!t)
		return cc_coach_error("missing argument: topic");
	/* a grade that is no whole number from 1 to 9 misses, as in the original */
	if (grade >= 1 && grade <= 9 && grade == (double)(int)grade)
		e = find(d->curriculum, (int)grade, subject, topic);
	if (!e)
		e = d->curriculum->fallback;
	return jv_copy(e->value);
}
