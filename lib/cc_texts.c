/*
 * Response texts: the words an answer is made of, per key and language,
 * from the domain's `responses` file, and the {name} templates they use.
 * The C code chooses which text to say; the file says how to say it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_texts.h"

struct text {
	char *key, *lang, *emotion, *text;
	unsigned line;		/* in the file, for cc-domain check */
	size_t next;		/* the next text with this key, + 1; 0: none */
};

/*
 * The texts by key: a composed answer looks up a dozen texts (an event
 * list's dates, twenty), and a walk through the two hundred of a domain
 * for each was a tenth of cc-respond's work.
 */
#define TEXT_BUCKETS 512	/* a power of two */

/*
 * The texts point into the file's bytes, read whole and cut in place:
 * a string each was 850 allocations and frees for a cold question.
 */
struct cc_texts {
	char *data;		/* the file, its lines cut into the texts */
	struct text *t;
	size_t n, cap;
	size_t bucket[TEXT_BUCKETS];	/* the first text of a hash, + 1 */
};

static unsigned
key_hash(const char *s)
{
	unsigned h = 2166136261u;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h & (TEXT_BUCKETS - 1);
}

/* Chain the texts of each hash in file order, as the walk saw them. */
static void
index_texts(struct cc_texts *t)
{
	size_t last[TEXT_BUCKETS] = {0};

	memset(t->bucket, 0, sizeof t->bucket);
	for (size_t i = 0; i < t->n; i++) {
		unsigned h = key_hash(t->t[i].key);

		t->t[i].next = 0;
		if (last[h])
			t->t[last[h] - 1].next = i + 1;
		else
			t->bucket[h] = i + 1;
		last[h] = i + 1;
	}
}

static void
unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == 'n') {
			*o++ = '\n';
			s++;
		} else if (s[0] == '\\' && s[1] == '\\') {
			*o++ = '\\';
			s++;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

struct cc_texts *
cc_texts_read(const char *path, struct cc_problems *p)
{
	struct cc_texts *t;
	char *data, *line, *end, *s, *key, *lang, *emotion;
	size_t size, len;
	unsigned lineno = 0;

	if (!(data = cc_read_file(path, 0, &size))) {
		cc_problem(p, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (!(t = calloc(1, sizeof *t)))
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	t->data = data;
	for (line = data; line < data + size; line = end + 1) {
		/* a line as getline gave it, its trailing newlines cut */
		if (!(end = memchr(line, '\n', (size_t)(data + size - line))))
			end = data + size;
		len = (size_t)(end - line);
		*end = '\0';
		lineno++;
		while (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			continue;
		key = cc_word(&s);
		lang = cc_word(&s);
		emotion = cc_word(&s);
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*lang || !*emotion || !*s) {
			cc_problem(p, "%s:%u: expected 'KEY LANG EMOTION TEXT'", path, lineno);
			continue;
		}
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 256;
			t->t = cc_xrealloc(t->t, t->cap * sizeof *t->t);
		}
		t->t[t->n].key = key;
		t->t[t->n].lang = lang;
		t->t[t->n].emotion = emotion;
		t->t[t->n].text = s;
		t->t[t->n].line = lineno;
		unescape(s);
		t->n++;
	}
	index_texts(t);
	return t;
}

static void
first_problem(void *ctx, const char *message)
{
	struct cc_buf *first = ctx;

	if (!first->len)
		cc_buf_add(first, message, strlen(message));
}

struct cc_texts *
cc_texts_load(const char *path, char *err, size_t errlen)
{
	struct cc_buf first = {0};
	struct cc_problems p = { first_problem, &first, 0 };
	struct cc_texts *t = cc_texts_read(path, &p);

	if (p.n) {
		snprintf(err, errlen, "%s", first.data);
		cc_texts_free(t);
		t = NULL;
	}
	cc_buf_release(&first);
	return t;
}

int
cc_texts_has(const struct cc_texts *t, const char *key, const char *lang)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->t[i].key, key) == 0 && (!lang || strcmp(t->t[i].lang, lang) == 0))
			return 1;
	return 0;
}

size_t
cc_texts_count(const struct cc_texts *t)
{
	return t->n;
}

const char *
cc_texts_entry(const struct cc_texts *t, size_t i, const char **lang, unsigned *line)
{
	if (i >= t->n)
		return NULL;
	if (lang)
		*lang = t->t[i].lang;
	if (line)
		*line = t->t[i].line;
	return t->t[i].key;
}

void
cc_texts_free(struct cc_texts *t)
{
	if (!t)
		return;
	free(t->data);
	free(t->t);
	free(t);
}

const char *
cc_texts_get(const struct cc_texts *t, const char *key, const char *lang,
    const char **emotion)
{
	const struct text *other = NULL;

	for (size_t i = t->bucket[key_hash(key)]; i--; i = t->t[i].next) {
		if (strcmp(t->t[i].key, key) != 0)
			continue;
		if (strcmp(t->t[i].lang, lang) == 0) {
			other = &t->t[i];
			break;
		}
		if (!other)
			other = &t->t[i];	/* a text in another language beats none */
	}
	if (emotion)
		*emotion = other && strcmp(other->emotion, "-") ? other->emotion : NULL;
	return other ? other->text : NULL;
}

/* The n-th (from 0) word of a space-separated list text, into out. */
static const char *
nth_word(const struct cc_texts *t, const char *key, const char *lang, int n,
    char *out, size_t outlen)
{
	const char *s = cc_texts_get(t, key, lang, NULL);

	out[0] = '\0';
	while (s && *s) {
		size_t k;

		while (*s == ' ')
			s++;
		k = strcspn(s, " ");
		if (n-- == 0) {
			if (k >= outlen)
				k = outlen - 1;
			memcpy(out, s, k);
			out[k] = '\0';
			break;
		}
		s += k;
	}
	return out;
}

void
cc_texts_fill(struct cc_buf *b, const char *tmpl, const struct cc_var *vars)
{
	while (*tmpl) {
		const char *open = strchr(tmpl, '{'), *close;
		size_t k;

		if (!open || !(close = strchr(open, '}'))) {
			cc_buf_add(b, tmpl, strlen(tmpl));
			return;
		}
		cc_buf_add(b, tmpl, (size_t)(open - tmpl));
		k = (size_t)(close - open - 1);
		const struct cc_var *v = vars;
		for (; v && v->name; v++)
			if (strlen(v->name) == k && memcmp(v->name, open + 1, k) == 0)
				break;
		if (v && v->name)
			cc_buf_add(b, v->value, v->len ? v->len : strlen(v->value));
		else
			cc_buf_add(b, open, k + 2);	/* unknown: leave as written */
		tmpl = close + 1;
	}
}

/*
 * v in decimal, at least two digits when two is set, into out (12
 * bytes): an event list writes a dozen numbers for each of its dates,
 * and snprintf cost more than the rest of the list.
 */
static void
decimal(char *out, int v, int two)
{
	char tmp[12];
	int n = 0;

	if (v < 0 || v > 99999999) {	/* no such date field */
		snprintf(out, 12, two ? "%02d" : "%d", v);
		return;
	}
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (two && n < 2)
		tmp[n++] = '0';
	while (n)
		*out++ = tmp[--n];
	*out = '\0';
}

void
cc_texts_date_vars(const struct cc_texts *t, const char *lang, time_t when,
    struct cc_date_vars *d)
{
	struct tm tm;

	localtime_r(&when, &tm);	/* TZ is CC_TZ (cc_tz_use) */
	decimal(d->year, tm.tm_year + 1900, 0);
	decimal(d->month, tm.tm_mon + 1, 0);
	decimal(d->month2, tm.tm_mon + 1, 1);
	decimal(d->day, tm.tm_mday, 0);
	decimal(d->day2, tm.tm_mday, 1);
	decimal(d->hour, tm.tm_hour, 0);
	decimal(d->hour2, tm.tm_hour, 1);
	decimal(d->hour12, tm.tm_hour % 12 ? tm.tm_hour % 12 : 12, 0);
	decimal(d->minute2, tm.tm_min, 1);
	nth_word(t, "ampm", lang, tm.tm_hour >= 12, d->ampm, sizeof d->ampm);
	nth_word(t, "weekdays", lang, tm.tm_wday, d->weekday, sizeof d->weekday);
	nth_word(t, "weekdays_long", lang, tm.tm_wday, d->weekday_long,
	    sizeof d->weekday_long);
	nth_word(t, "months", lang, tm.tm_mon, d->month_name, sizeof d->month_name);
	nth_word(t, "months_short", lang, tm.tm_mon, d->month_name_short,
	    sizeof d->month_name_short);
	struct cc_var *v = d->vars;
	*v++ = (struct cc_var){ "year", d->year, 0 };
	*v++ = (struct cc_var){ "month", d->month, 0 };
	*v++ = (struct cc_var){ "month2", d->month2, 0 };
	*v++ = (struct cc_var){ "day", d->day, 0 };
	*v++ = (struct cc_var){ "day2", d->day2, 0 };
	*v++ = (struct cc_var){ "hour", d->hour, 0 };
	*v++ = (struct cc_var){ "hour2", d->hour2, 0 };
	*v++ = (struct cc_var){ "hour12", d->hour12, 0 };
	*v++ = (struct cc_var){ "minute2", d->minute2, 0 };
	*v++ = (struct cc_var){ "ampm", d->ampm, 0 };
	*v++ = (struct cc_var){ "weekday", d->weekday, 0 };
	*v++ = (struct cc_var){ "weekday_long", d->weekday_long, 0 };
	*v++ = (struct cc_var){ "month_name", d->month_name, 0 };
	*v++ = (struct cc_var){ "month_name_short", d->month_name_short, 0 };
	*v = (struct cc_var){ NULL, NULL, 0 };
}

void
cc_texts_format_time(const struct cc_texts *t, const char *key, const char *lang,
    time_t when, struct cc_buf *b)
{
	struct cc_date_vars d;
	const char *tmpl = cc_texts_get(t, key, lang, NULL);

	cc_texts_date_vars(t, lang, when, &d);
	cc_texts_fill(b, tmpl ? tmpl : "{year}-{month2}-{day2} {hour2}:{minute2}",
	    d.vars);
}
