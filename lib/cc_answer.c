/*
 * Composed answers: the response of every agent, made from what earlier
 * stages found (passages, events, the session's turns) and the domain's
 * response texts, without an LLM.  Every fact in an answer is quoted from
 * the knowledge base, the calendar or the session; the C code only decides
 * which text to say and fills it in.
 *
 * Emotion and confidence follow the specifications: seed 002 for general
 * knowledge (0.9 knowledge base and web, 0.8 knowledge base, 0.6 web, 0.3
 * fallback), seed 004 for events (0.8 found, 0.7 none).
 */
#include "config.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_text.h"
#include "cc_time.h"
#include "cc_session.h"
#include "cc_texts.h"
#include "cc_domain.h"
#include "cc_answer.h"
#include "cc_memo.h"

#define MAX_EVENTS 10		/* listed in one answer; the rest are counted */
#define MAX_MEMORY_TURNS 5	/* earlier questions a memory answer lists */
#define MAX_FIRST_TURNS 32	/* turns read to find a session's first */
#define MEMORY_ANSWER_CHARS 80	/* of each earlier answer */

/* ---- reading the record ---- */

static const char *
str(jv o, const char *key, jv *keep)	/* borrows o; *keep holds the string */
{
	jv v = jv_object_get(jv_copy(o), cc_jv_name(key));

	if (jv_get_kind(v) != JV_KIND_STRING) {
		jv_free(v);
		return NULL;
	}
	*keep = jv_array_append(*keep, jv_copy(v));
	const char *s = jv_string_value(v);
	jv_free(v);	/* *keep still holds the string */
	return s;
}

/*
 * str() of the route, which the answer holds to its end and never
 * changes: the string is the route's, so nothing need keep it.
 */
static const char *
rstr(jv route, const char *key)	/* borrows route */
{
	jv v = jv_object_get(jv_copy(route), cc_jv_name(key));
	const char *s = jv_get_kind(v) == JV_KIND_STRING ? jv_string_value(v) : NULL;

	jv_free(v);	/* route still holds it */
	return s;
}

/* snprintf(d, size, "%.*s", (int)n, s) for s without NUL in its n bytes, no printf */
static void
cut(char *d, size_t size, const char *s, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(d, s, n);
	d[n] = '\0';
}

static jv
member(jv o, const char *key)	/* borrows o */
{
	if (jv_get_kind(o) != JV_KIND_OBJECT)
		return jv_invalid();
	return jv_object_get(jv_copy(o), cc_jv_name(key));	/* hashed once */
}

/*
 * retrieval.results, read where an answer looks: each passage is kept as
 * its compact text, and read when an answer first looks at it, in one
 * pass over its members.  An answer quotes one passage or a few of the
 * ten, and turning all of them into jv (their long texts above all) was a
 * third of cc-respond's work.
 */
enum { P_ID, P_TITLE, P_CONTENT, P_SCORE, P_LANGUAGE, P_CATEGORY, P_SOURCE,
	P_REQUEST_TYPES, P_URL, P_KEYS };
static const char *const passage_keys[P_KEYS + 1] = {
	"id", "title", "content", "score", "language", "category", "source",
	"request_types", "url", NULL,
};

struct passage {
	char *text;		/* a copy once read, NULL before */
	const char *val[P_KEYS];	/* each member's JSON text in it, or NULL */
	size_t len[P_KEYS];
	const char *str[P_KEYS];	/* a string without escapes, NUL-ended
					   in place of its closing quote, or
					   one with escapes once decoded */
	char *dec[P_KEYS];	/* those decoded, owned */
};

/*
 * What the memo keeps of a list of passages, one a passage: where it is
 * in the list, and once it was read, where its members are in it.
 */
#define NO_MEMBER ((size_t)-1)
struct passage_place {
	size_t at, len;
	int read;
	size_t val[P_KEYS], vlen[P_KEYS];	/* NO_MEMBER: none */
};

struct passages {
	int n;
	const char **at;	/* each passage's text, in the record */
	size_t *len;
	struct passage *p;
	struct passage_place *places;	/* in the memo's entry, or NULL */
};

static struct cc_memo *results_memo(const struct cc_answerer *ar);

/*
 * The passages of retrieval.results.  Finding where each of the ten
 * begins and ends is a walk over every name and value of 5 kB (12k
 * instructions a record); the same question retrieves the same text, so
 * with a memo the places are kept by the list's text (compared whole).
 */
static void
passages_of(const struct cc_answerer *ar, struct cc_record *rec,
    struct passages *ps)
{
	size_t n, pos = 0, len, cap = 0;
	const char *arr = cc_record_raw_at(rec, "retrieval.results", &n), *p;
	struct cc_memo *m = arr ? results_memo(ar) : NULL;
	struct cc_memo_entry *e = m ? cc_memo_find(m, arr, n) : NULL;

	memset(ps, 0, sizeof *ps);
	if (e && e->value) {
		struct passage_place *pl = (struct passage_place *)(void *)e->value;

		ps->n = (int)(e->vlen / sizeof *pl);
		if (ps->n) {
			ps->at = cc_xmalloc((size_t)ps->n * sizeof *ps->at);
			ps->len = cc_xmalloc((size_t)ps->n * sizeof *ps->len);
		}
		for (int i = 0; i < ps->n; i++) {
			ps->at[i] = arr + pl[i].at;
			ps->len[i] = pl[i].len;
		}
		ps->places = pl;
	}
	while (!(e && e->value) && arr && (p = cc_json_next(arr, n, &pos, &len))) {
		if (ps->n == (int)cap) {
			cap = cap ? cap * 2 : 16;
			ps->at = cc_xrealloc(ps->at, cap * sizeof *ps->at);
			ps->len = cc_xrealloc(ps->len, cap * sizeof *ps->len);
		}
		ps->at[ps->n] = p;
		ps->len[ps->n++] = len;
	}
	if (e && !e->value) {
		struct passage_place *pl = cc_xmalloc((size_t)(ps->n + 1) * sizeof *pl);

		memset(pl, 0, (size_t)(ps->n + 1) * sizeof *pl);
		for (int i = 0; i < ps->n; i++) {
			pl[i].at = (size_t)(ps->at[i] - arr);
			pl[i].len = ps->len[i];
		}
		cc_memo_set(e, arr, n, pl, (size_t)ps->n * sizeof *pl, 0);
		free(pl);
		ps->places = (struct passage_place *)(void *)e->value;
	}
	if (ps->n)
		ps->p = memset(cc_xmalloc((size_t)ps->n * sizeof *ps->p), 0,
		    (size_t)ps->n * sizeof *ps->p);
}

static void
passages_release(struct passages *ps)
{
	for (int i = 0; i < ps->n; i++) {
		free(ps->p[i].text);
		for (int k = 0; k < P_KEYS; k++)
			free(ps->p[i].dec[k]);
	}
	free(ps->p);
	free(ps->at);
	free(ps->len);
	memset(ps, 0, sizeof *ps);
}

static struct passage *
passage(const struct passages *ps, int i)
{
	struct passage *p = &ps->p[i];

	if (p->text)
		return p;
	p->text = cc_xmalloc(ps->len[i] + 1);
	memcpy(p->text, ps->at[i], ps->len[i]);
	p->text[ps->len[i]] = '\0';
	if (ps->places && ps->places[i].read) {
		/* the same text as when its members were found */
		const struct passage_place *pl = &ps->places[i];

		for (int k = 0; k < P_KEYS; k++) {
			p->val[k] = pl->val[k] == NO_MEMBER ? NULL : p->text + pl->val[k];
			p->len[k] = pl->vlen[k];
		}
	} else {
		cc_json_members(p->text, ps->len[i], passage_keys, p->val, p->len);
		for (int k = 0; ps->places && k < P_KEYS; k++) {
			ps->places[i].val[k] = p->val[k] ?
			    (size_t)(p->val[k] - p->text) : NO_MEMBER;
			ps->places[i].vlen[k] = p->val[k] ? p->len[k] : 0;
		}
		if (ps->places)
			ps->places[i].read = 1;
	}
	for (int k = 0; k < P_KEYS; k++)
		if (p->val[k] && *p->val[k] == '"' &&
		    !memchr(p->val[k], '\\', p->len[k])) {
			p->text[p->val[k] - p->text + (ptrdiff_t)p->len[k] - 1] = '\0';
			p->str[k] = p->val[k] + 1;
		}
	return p;
}

/*
 * The string member k of passage i, or NULL.  One with escapes is decoded
 * once a record: the answers try each passage's content in turn (a
 * table? a price?), and decoding it at every look was a fifth of
 * cc-respond's work.  keep is no longer needed (the passage holds it).
 */
static const char *
pstr(const struct passages *ps, int i, int k, jv *keep)
{
	struct passage *p = passage(ps, i);

	(void)keep;
	if (p->str[k] || !p->val[k] || *p->val[k] != '"')
		return p->str[k];
	p->dec[k] = cc_json_unescape(p->val[k], p->len[k]);	/* escapes */
	return p->str[k] = p->dec[k];
}

/* The number member k of passage i; 0 when it is none. */
static int
pnum(const struct passages *ps, int i, int k, double *d)
{
	struct passage *p = passage(ps, i);
	jv x;
	int ok;

	if (!p->val[k] || !(*p->val[k] == '-' || (*p->val[k] >= '0' && *p->val[k] <= '9')))
		return 0;
	x = cc_json_to_jv(p->val[k], p->len[k]);
	ok = jv_get_kind(x) == JV_KIND_NUMBER;
	if (ok)
		*d = jv_number_value(x);
	jv_free(x);
	return ok;
}

void
cc_answer_init(struct cc_answer *a)
{
	memset(a, 0, sizeof *a);
	a->passages = jv_array();
	a->category = jv_invalid();
	a->request_type = jv_invalid();
}

void
cc_answer_release(struct cc_answer *a)
{
	cc_buf_release(&a->text);
	jv_free(a->passages);
	a->passages = jv_invalid();
	jv_free(a->category);
	jv_free(a->request_type);
	a->category = a->request_type = jv_invalid();
}

static void
add_source(struct cc_answer *a, const char *s)
{
	for (int i = 0; i < a->nsources; i++)
		if (strcmp(a->sources[i], s) == 0)
			return;
	if (a->nsources < (int)(sizeof a->sources / sizeof *a->sources))
		a->sources[a->nsources++] = s;
}

/* Say the text `key` with vars; the text's emotion becomes the answer's. */
static int
say(const struct cc_answerer *ar, struct cc_answer *a, const char *key,
    const char *lang, const struct cc_var *vars)
{
	const char *emotion, *t = cc_texts_get(ar->texts, key, lang, &emotion);

	if (!t)
		return -1;
	a->text.len = 0;
	cc_texts_fill(&a->text, t, vars);
	if (emotion)
		a->emotion = emotion;
	return 0;
}

/* ---- the knowledge base: BusinessInfo, Facility ---- */

/*
 * Which places a passage may speak for.  The responses file names the
 * categories that are places (kb.places), the venue itself first: a
 * question about a place takes only that place's passages, and a question
 * about the venue also those of categories that are no place (its events,
 * its house rules).  So the hours of a shop inside a venue never answer
 * the venue's.
 */
static int
place_index(const struct cc_answerer *ar, const char *category)
{
	const char *s = cc_texts_get(ar->texts, "kb.places", "*", NULL);
	size_t k = category ? strlen(category) : 0;

	for (int i = 0; s && *s && k; i++) {
		size_t w;

		while (*s == ' ')
			s++;
		w = strcspn(s, " ");
		if (w == k && strncmp(s, category, k) == 0)
			return i;
		s += w;
	}
	return -1;
}

/*
 * The passage that answers: the best-ranked one in the answer language
 * about the asked place (cc-rag has already ranked by request type); its
 * rank, or -1.
 */
static int
pick_passage(const struct cc_answerer *ar, const struct passages *ps,
    const char *lang, const char *category)
{
	int venue = category && place_index(ar, category) == 0;

	for (int i = 0; i < ps->n; i++) {
		/* the passage holds its strings: no keep array to make and free */
		const char *l = pstr(ps, i, P_LANGUAGE, NULL);
		const char *c = pstr(ps, i, P_CATEGORY, NULL);
		const char *src = pstr(ps, i, P_SOURCE, NULL);
		int ok = l && strcmp(l, lang) == 0 &&
		    (!category || (c && strcmp(c, category) == 0) ||
			(venue && place_index(ar, c) < 0)) &&
		    (!src || strcmp(src, "web_search") != 0);

		if (ok)
			return i;
	}
	return -1;
}

static void language_part(const char *s, const char *sep, const char *lang,
	struct cc_buf *out);

/*
 * The time of day the folded question f names (21:30, 9:30pm, 8時半,
 * 20時45分, 午後8時), in minutes after midnight; *half is 1 when am/pm,
 * 午前/午後, 朝/夜 say which half of the day.  -1 when it names none (a
 * date's 31日 or a head count's 30人 is no time).
 */
static int
clock_named(const char *f, int *half)
{
	for (const char *p = f; *p; p++) {
		int h = 0, m = 0, nd = 0, pm = -1;
		const char *q = p, *before = p;

		if (!isdigit((unsigned char)*p) || (p > f && isdigit((unsigned char)p[-1])))
			continue;
		while (isdigit((unsigned char)*q) && nd < 3)
			h = h * 10 + (*q++ - '0'), nd++;
		if (nd > 2 || h > 24)
			continue;
		if (*q == ':' && isdigit((unsigned char)q[1]) && isdigit((unsigned char)q[2])) {
			m = (q[1] - '0') * 10 + (q[2] - '0');
			q += 3;
		} else if (strncmp(q, "時", 3) == 0) {
			q += 3;
			if (strncmp(q, "半", 3) == 0) {
				m = 30;
				q += 3;
			} else if (isdigit((unsigned char)*q)) {
				while (isdigit((unsigned char)*q))
					m = m * 10 + (*q++ - '0');
				if (strncmp(q, "分", 3) != 0)
					m = 0;
			}
		} else if (!(q[0] == ' ' ? q[1] == 'a' || q[1] == 'p' : q[0] == 'a' || q[0] == 'p')) {
			continue;	/* 12月, 30人, 3 minutes */
		}
		if (*q == ' ')
			q++;
		if ((q[0] == 'a' || q[0] == 'p') && (q[1] == 'm' || (q[1] == '.' && q[2] == 'm')))
			pm = q[0] == 'p';
		else if (q[0] == 'a' || q[0] == 'p')
			continue;	/* "9 apples" */
		/* 午後8時, 夜の9時, 朝8時半 */
		for (int k = 0; pm < 0 && k < 4; k++) {
			static const char *const w[] = { "午後", "夜", "夕方", "午前" };
			const char *at = strstr(f, w[k]);

			if (at && at < before && before - at <= 12)
				pm = k < 3;
		}
		if (pm < 0 && strstr(f, "朝") && strstr(f, "朝") < before)
			pm = 0;
		if (m > 59)
			continue;
		*half = pm >= 0;
		if (pm == 1 && h < 12)
			h += 12;
		if (pm == 0 && h == 12)
			h = 0;
		return h * 60 + m;
	}
	return -1;
}

/* "9:00" as minutes after midnight, or -1. */
static int
hhmm_minutes(const char *s)
{
	int h, m;

	return s && sscanf(s, "%d:%d", &h, &m) == 2 ? h * 60 + m : -1;
}

/*
 * "Can I still get in if I arrive at 21:30?": the route's opening is
 * arrive and cc-event gave that day's opening hours; yes or no for the
 * time the question names, with the closing time (the texts
 * opening.arrive.yes, .early, .late: {time} {date} {place} {hours}
 * {start} {end}).  A time with no half of the day said (8時半) that is
 * open only in one half is read in that half, and the other said after
 * it (opening.arrive.other_early, other_late).  -1 when the day is closed
 * or no time is named: answer_opening() then says the day.
 */
static int
answer_arrival(const struct cc_answerer *ar, struct cc_answer *a, jv route,
    jv events, const char *category, const char *query, size_t qlen,
    const char *lang)
{
	jv keep = jv_array();
	const char *how = rstr(route, "opening"), *date = NULL;
	jv opening = member(events, "opening"), places = member(opening, "places");
	jv day = member(places, category ? category : ""), open = jv_invalid(), list = jv_invalid();
	struct cc_buf hours = {0}, when = {0};
	char *f = NULL, tbuf[16], obuf[16];
	int half = 0, t, rc = -1, n = 0, first = 24 * 60, last = 0;
	int y, mo, d;

	if (!how || strcmp(how, "arrive") != 0 || jv_get_kind(day) != JV_KIND_OBJECT)
		goto out;
	open = member(day, "open");
	date = str(opening, "date", &keep);
	if (jv_get_kind(open) != JV_KIND_TRUE || !date ||
	    sscanf(date, "%d-%d-%d", &y, &mo, &d) != 3)
		goto out;
	f = cc_text_fold(query, qlen, NULL, 0);
	if ((t = clock_named(f, &half)) < 0)
		goto out;
	list = member(day, "hours");
	n = jv_get_kind(list) == JV_KIND_ARRAY ? jv_array_length(jv_copy(list)) : 0;
	{
		int from[8], to[8], np = 0, in_t = 0, in_pm = 0, use, verdict, other = -1;
		const char *and = cc_texts_get(ar->texts, "opening.and", lang, NULL);
		const char *period = cc_texts_get(ar->texts, "opening.period", lang, NULL);
		const char *fmt = cc_texts_get(ar->texts, "opening.date", lang, NULL);
		struct cc_date_vars dv;
		char key[64], sbuf[16], ebuf[16], place_key[96];

		for (int i = 0; i < n && np < 8; i++) {
			jv it = jv_array_get(jv_copy(list), i);
			const char *s0 = str(it, "start", &keep), *e0 = str(it, "end", &keep);
			struct cc_var v[] = { { "start", s0, 0 }, { "end", e0, 0 }, { "note", "", 0 }, { 0 } };

			if (hhmm_minutes(s0) >= 0 && hhmm_minutes(e0) >= 0) {
				from[np] = hhmm_minutes(s0);
				to[np] = hhmm_minutes(e0);
				first = from[np] < first ? from[np] : first;
				last = to[np] > last ? to[np] : last;
				if (np++)
					cc_buf_add(&hours, and ? and : ", ", strlen(and ? and : ", "));
				cc_texts_fill(&hours, period ? period : "{start}-{end}", v);
			}
			jv_free(it);
		}
		if (!np)
			goto out;
		for (int i = 0; i < np; i++) {
			in_t |= t >= from[i] && t < to[i];
			in_pm |= t + 720 >= from[i] && t + 720 < to[i];
		}
		use = t;
		if (!half && t >= 60 && t < 720 && !in_t && in_pm) {
			use = t + 720;	/* 8時半 at a venue open 9:00-22:00: 20:30 */
			other = t;
		}
		verdict = (use == t ? in_t : in_pm) ? 0 : use < first ? 1 : 2;
		snprintf(tbuf, sizeof tbuf, "%d:%02d", use / 60, use % 60);
		snprintf(sbuf, sizeof sbuf, "%d:%02d", first / 60, first % 60);
		snprintf(ebuf, sizeof ebuf, "%d:%02d", last / 60 % 24, last % 60);
		cc_texts_date_vars(ar->texts, lang, cc_date_start((struct cc_date){ y, mo, d }), &dv);
		cc_texts_fill(&when, fmt ? fmt : "{year}-{month2}-{day2}", dv.vars);
		snprintf(place_key, sizeof place_key, "place.%s", category);
		{
			const char *place = cc_texts_get(ar->texts, place_key, lang, NULL);
			struct cc_var v[] = {
				{ "time", tbuf, 0 }, { "date", when.len ? when.data : "", when.len },
				{ "place", place ? place : "", 0 },
				{ "hours", hours.data, hours.len }, { "start", sbuf, 0 },
				{ "end", ebuf, 0 }, { "other", obuf, 0 }, { 0 },
			};

			snprintf(key, sizeof key, "opening.arrive.%s",
			    verdict == 0 ? "yes" : verdict == 1 ? "early" : "late");
			if (say(ar, a, key, lang, v) < 0)
				goto out;
			if (other >= 0) {	/* the morning's 8:30 too */
				const char *note = cc_texts_get(ar->texts, other < first ?
				    "opening.arrive.other_early" : "opening.arrive.other_late", lang, NULL);

				snprintf(obuf, sizeof obuf, "%d:%02d", other / 60, other % 60);
				if (note) {
					if (a->text.len && (unsigned char)a->text.data[a->text.len - 1] < 0x80)
						cc_buf_add(&a->text, " ", 1);
					cc_texts_fill(&a->text, note, v);
				}
			}
			a->confidence = 0.9;
			add_source(a, "calendar");
			rc = 0;
		}
	}
out:
	free(f);
	cc_buf_release(&hours);
	cc_buf_release(&when);
	jv_free(list);
	jv_free(open);
	jv_free(day);
	jv_free(places);
	jv_free(opening);
	jv_free(keep);
	return rc;
}

/*
 * An open day that follows a closure (「1月4日からは開いとる？」): the
 * closure it reopens after (cc-event's after_closed), the text
 * opening.after_closed {reason}.
 */
static void
after_closed(const struct cc_answerer *ar, struct cc_answer *a, jv day,
    const char *lang, jv *keep)
{
	jv ac = member(day, "after_closed");
	const char *title = jv_get_kind(ac) == JV_KIND_OBJECT ? str(ac, "title", keep) : NULL;
	const char *t = cc_texts_get(ar->texts, "opening.after_closed", lang, NULL);
	struct cc_buf why = {0};

	if (title && t) {
		language_part(title, " / ", lang, &why);
		{
			struct cc_var v[] = { { "reason", why.len ? why.data : "", why.len }, { 0 } };

			if (a->text.len && (unsigned char)a->text.data[a->text.len - 1] < 0x80)
				cc_buf_add(&a->text, " ", 1);
			cc_texts_fill(&a->text, t, v);
		}
	}
	cc_buf_release(&why);
	jv_free(ac);
}

/*
 * After a closed day, the next day the place opens and its hours
 * (cc-event's next_open): the text opening.next {next_date} {next_hours}.
 */
static void
next_open(const struct cc_answerer *ar, struct cc_answer *a, jv day,
    const char *lang, const char *and, jv *keep)
{
	jv nx = member(day, "next_open"), list = member(nx, "hours");
	const char *date = jv_get_kind(nx) == JV_KIND_OBJECT ? str(nx, "date", keep) : NULL;
	const char *t = cc_texts_get(ar->texts, "opening.next", lang, NULL);
	const char *period = cc_texts_get(ar->texts, "opening.period", lang, NULL);
	const char *fmt = cc_texts_get(ar->texts, "opening.date", lang, NULL);
	int n = jv_get_kind(list) == JV_KIND_ARRAY ? jv_array_length(jv_copy(list)) : 0;
	struct cc_buf hours = {0}, when = {0};
	int y, m, d;

	if (!t || !date || !n || sscanf(date, "%d-%d-%d", &y, &m, &d) != 3)
		goto out;
	{
		struct cc_date_vars dv;

		cc_texts_date_vars(ar->texts, lang, cc_date_start((struct cc_date){ y, m, d }), &dv);
		cc_texts_fill(&when, fmt ? fmt : "{year}-{month2}-{day2}", dv.vars);
	}
	for (int i = 0; i < n; i++) {
		jv it = jv_array_get(jv_copy(list), i);
		struct cc_var v[] = {
			{ "start", str(it, "start", keep), 0 },
			{ "end", str(it, "end", keep), 0 }, { "note", "", 0 }, { 0 },
		};

		if (i)
			cc_buf_add(&hours, and, strlen(and));
		if (v[0].value && v[1].value)
			cc_texts_fill(&hours, period ? period : "{start}-{end}", v);
		jv_free(it);
	}
	{
		struct cc_var v[] = {
			{ "next_date", when.len ? when.data : "", when.len },
			{ "next_hours", hours.len ? hours.data : "", hours.len }, { 0 },
		};

		if (a->text.len && (unsigned char)a->text.data[a->text.len - 1] < 0x80)
			cc_buf_add(&a->text, " ", 1);
		cc_texts_fill(&a->text, t, v);
	}
out:
	cc_buf_release(&hours);
	cc_buf_release(&when);
	jv_free(list);
	jv_free(nx);
}

/*
 * "Is it open on D?": cc-event's events.opening (the opening calendar,
 * cc-event(1)) says for the one day asked whether each place is open and
 * when, or why it is closed.  Answered when the route says how (its
 * member opening, a rules output: yes-no, hours) and the place is in the
 * calendar: the text opening.HOW.open {date} {place} {hours} or
 * opening.HOW.closed {date} {place} {reason}, where {place} is the text
 * place.CATEGORY.  0, or -1 when this is no such question.
 */
static int
answer_opening(const struct cc_answerer *ar, struct cc_answer *a, jv route,
    jv events, const char *category, const char *lang)
{
	jv keep = jv_array();
	const char *how = rstr(route, "opening");
	jv opening = member(events, "opening");
	jv places = member(opening, "places");
	jv day = member(places, category ? category : "");
	const char *date = NULL;
	struct cc_buf hours = {0}, reason = {0}, when = {0};
	int y, m, d, rc = -1;

	if (jv_get_kind(day) == JV_KIND_OBJECT)
		date = str(opening, "date", &keep);
	/* the closing days asked of one day ("the last Monday of next month,
	 * closed?", which cc-event dates): whether that day is open */
	if (date && how && strcmp(how, "closing-days") == 0)
		how = "yes-no";
	/* the closing days of a "period" of one day: is it closed that day */
	if (date && how && strcmp(how, "closing-period") == 0)
		how = "closed-q";
	if (!date || !how || strlen(how) > 32 ||
	    sscanf(date, "%d-%d-%d", &y, &m, &d) != 3)
		goto out;
	{
		jv open = member(day, "open");
		int is_open = jv_get_kind(open) == JV_KIND_TRUE;
		jv list = member(day, is_open ? "hours" : "closed");
		int n = jv_get_kind(list) == JV_KIND_ARRAY ? jv_array_length(jv_copy(list)) : 0;
		struct cc_date_vars dv;
		char key[96], said[64];
		const char *place, *and = cc_texts_get(ar->texts, "opening.and", lang, NULL);
		/* a day asked by its weekday names that weekday first */
		jv ws = member(route, "weekday_said");
		const char *fmt = jv_get_kind(ws) == JV_KIND_TRUE ?
		    cc_texts_get(ar->texts, "opening.date_weekday", lang, NULL) : NULL;

		jv_free(ws);
		if (!fmt)
			fmt = cc_texts_get(ar->texts, "opening.date", lang, NULL);
		jv_free(open);
		cc_texts_date_vars(ar->texts, lang, cc_date_start((struct cc_date){ y, m, d }), &dv);
		if (!and)
			and = ", ";
		cc_texts_fill(&when, fmt ? fmt : "{year}-{month2}-{day2}", dv.vars);
		for (int i = 0; i < n; i++) {
			jv it = jv_array_get(jv_copy(list), i);
			const char *title = str(it, "title", &keep);
			struct cc_buf note = {0};

			if (title)
				language_part(title, " / ", lang, &note);
			if (is_open) {
				struct cc_var v[] = {
					{ "start", str(it, "start", &keep), 0 },
					{ "end", str(it, "end", &keep), 0 },
					{ "note", note.len ? note.data : "", note.len }, { 0 },
				};
				const char *t = cc_texts_get(ar->texts, note.len ?
				    "opening.period_note" : "opening.period", lang, NULL);

				if (i)
					cc_buf_add(&hours, and, strlen(and));
				if (v[0].value && v[1].value)
					cc_texts_fill(&hours, t ? t : "{start}-{end}", v);
			} else if (note.len && !reason.len) {
				cc_buf_add(&reason, note.data, note.len);
			}
			cc_buf_release(&note);
			jv_free(it);
		}
		jv_free(list);
		snprintf(key, sizeof key, "place.%s", category);
		place = cc_texts_get(ar->texts, key, lang, NULL);
		{
			struct cc_var v[] = {
				{ "date", when.len ? when.data : "", when.len },
				{ "place", place ? place : "", 0 },
				{ "hours", hours.len ? hours.data : "", hours.len },
				{ "reason", reason.len ? reason.data : "", reason.len }, { 0 },
			};

			snprintf(said, sizeof said, "opening.%s.%s", how, is_open ? "open" : "closed");
			if (say(ar, a, said, lang, v) == 0) {
				/*
				 * open on a weekday that has a closing rule of its
				 * own ("Is it closed on Mondays?"): the rule too,
				 * the text opening.HOW.weekdayN (1 Monday .. 7)
				 */
				const char *note;

				snprintf(said, sizeof said, "opening.%s.weekday%d", how,
				    cc_date_weekday((struct cc_date){ y, m, d }));
				if (is_open && (note = cc_texts_get(ar->texts, said, lang, NULL))) {
					if (a->text.len && (unsigned char)a->text.data[a->text.len - 1] < 0x80)
						cc_buf_add(&a->text, " ", 1);	/* after "." */
					cc_texts_fill(&a->text, note, v);
				}
				if (!is_open)
					next_open(ar, a, day, lang, and, &keep);
				else
					after_closed(ar, a, day, lang, &keep);
				a->confidence = 0.9;
				add_source(a, "calendar");
				rc = 0;
			}
		}
	}
out:
	cc_buf_release(&hours);
	cc_buf_release(&reason);
	cc_buf_release(&when);
	jv_free(day);
	jv_free(places);
	jv_free(opening);
	jv_free(keep);
	return rc;
}

/* "2025-02-25" as the text closing.date ({month}月{day}日（{weekday}）). */
static void
closing_date(const struct cc_answerer *ar, const char *iso, const char *lang,
    struct cc_buf *out)
{
	const char *fmt = cc_texts_get(ar->texts, "closing.date", lang, NULL);
	struct cc_date_vars dv;
	int y, m, d;

	if (sscanf(iso, "%d-%d-%d", &y, &m, &d) != 3)
		return;
	cc_texts_date_vars(ar->texts, lang, cc_date_start((struct cc_date){ y, m, d }), &dv);
	cc_texts_fill(out, fmt ? fmt : "{year}-{month2}-{day2}", dv.vars);
}

/*
 * "When is the closing day in February?", 次の休館日は: the route's
 * opening is closing-days and cc-event listed the closing days of the
 * asked range (cc_event_write_opening).  Days in a row closed for the same
 * reason are one span; an open range ("the next one") says its first
 * span only.  The texts closing.days {range} {place} {days},
 * closing.next, closing.none; each span closing.day {date} {reason} or
 * closing.span {from} {to} {reason}.  0, or -1 when this is no such
 * question.
 */
static int
answer_closings(const struct cc_answerer *ar, struct cc_answer *a, jv route,
    jv events, const char *category, const char *lang)
{
	jv keep = jv_array();
	const char *how = rstr(route, "opening");
	jv opening = member(events, "opening"), places = member(opening, "places");
	jv place = member(places, category ? category : ""), closed = member(place, "closed");
	int is_obj = jv_get_kind(opening) == JV_KIND_OBJECT;
	const char *kind = is_obj ? str(opening, "kind", &keep) : NULL;
	const char *from = is_obj ? str(opening, "from", &keep) : NULL;
	int n = jv_get_kind(closed) == JV_KIND_ARRAY ? jv_array_length(jv_copy(closed)) : -1;
	const char *to = is_obj ? str(opening, "to", &keep) : NULL;
	int next = kind && strcmp(kind, "nextUpcoming") == 0, spans = 0, rc = -1;
	int period = how && strcmp(how, "closing-period") == 0;
	struct cc_buf days = {0}, range = {0};
	char key[96], first[16] = "", last[16] = "", reason[512] = "";
	size_t lastsep = 0;	/* where the separator before the last span is */
	const char *name, *and = cc_texts_get(ar->texts, "opening.and", lang, NULL);
	int fy, fm, fd;

	if (!how || (strcmp(how, "closing-days") != 0 && !period) || n < 0 || !from ||
	    (period && (!to || next)) ||
	    sscanf(from, "%d-%d-%d", &fy, &fm, &fd) != 3)
		goto out;
	for (int i = 0; i <= n; i++) {
		jv it = i < n ? jv_array_get(jv_copy(closed), i) : jv_null();
		const char *date = i < n ? str(it, "date", &keep) : NULL;
		const char *title = i < n ? str(it, "title", &keep) : NULL;
		struct cc_buf why = {0};
		int y, m, d, follows = 0;

		if (title)
			language_part(title, " / ", lang, &why);
		if (date && *last && sscanf(last, "%d-%d-%d", &y, &m, &d) == 3) {
			char after[16];
			struct cc_date nd = cc_date_add((struct cc_date){ y, m, d }, 1);

			if (strcmp(date, last) == 0) {	/* closed twice that day */
				cc_buf_release(&why);
				jv_free(it);
				continue;
			}
			snprintf(after, sizeof after, "%04d-%02d-%02d", nd.year % 10000, nd.month, nd.day);
			follows = strcmp(date, after) == 0 && why.len &&
			    strcmp(why.data, reason) == 0;
		}
		if (follows) {
			snprintf(last, sizeof last, "%s", date);
		} else {
			if (*first && !(next && spans)) {	/* the span before this one */
				struct cc_buf f = {0}, t = {0};
				int one = strcmp(first, last) == 0;

				closing_date(ar, first, lang, &f);
				closing_date(ar, last, lang, &t);
				{
					struct cc_var v[] = {
						{ "date", f.len ? f.data : "", f.len },
						{ "from", f.len ? f.data : "", f.len },
						{ "to", t.len ? t.data : "", t.len },
						{ "reason", reason, 0 }, { 0 },
					};

					if (spans++) {
						lastsep = days.len;
						cc_buf_add(&days, and ? and : ", ", strlen(and ? and : ", "));
					}
					cc_texts_fill(&days, cc_texts_get(ar->texts, one ?
					    "closing.day" : "closing.span", lang, NULL), v);
				}
				cc_buf_release(&f);
				cc_buf_release(&t);
			}
			if (date) {
				snprintf(first, sizeof first, "%s", date);
				snprintf(last, sizeof last, "%s", date);
				snprintf(reason, sizeof reason, "%s", why.len ? why.data : "");
			}
		}
		cc_buf_release(&why);
		jv_free(it);
	}
	/* "A, B and C": the last span joined by the text closing.last {rest} {last} */
	if (spans >= 2 && (name = cc_texts_get(ar->texts, "closing.last", lang, NULL))) {
		struct cc_buf j = {0};
		size_t sep = strlen(and ? and : ", ");
		char *rest = cc_xmalloc(lastsep + 1);

		memcpy(rest, days.data, lastsep);
		rest[lastsep] = '\0';
		{
			struct cc_var v[] = {
				{ "rest", rest, lastsep },
				{ "last", days.data + lastsep + sep, days.len - lastsep - sep }, { 0 },
			};

			cc_texts_fill(&j, name, v);
		}
		free(rest);
		cc_buf_release(&days);
		days = j;
	}
	snprintf(key, sizeof key, "place.%s", category);
	name = cc_texts_get(ar->texts, key, lang, NULL);
	{
		/* the range in words, as range_words() says an event range */
		struct cc_date_vars dv;
		const char *tmpl;

		snprintf(key, sizeof key, "range.%s", kind ? kind : "other");
		if (!(tmpl = cc_texts_get(ar->texts, key, lang, NULL)))
			tmpl = cc_texts_get(ar->texts, "range.other", lang, NULL);
		cc_texts_date_vars(ar->texts, lang, cc_date_start((struct cc_date){ fy, fm, fd }), &dv);
		cc_texts_fill(&range, tmpl ? tmpl : "", dv.vars);
	}
	{
		/* {Range}: the range to begin a sentence ("In February, ...") */
		char *cap = range.len ? strdup(range.data) : NULL;

		if (cap && *cap >= 'a' && *cap <= 'z')
			*cap -= 'a' - 'A';
		struct cc_var v[] = {
			{ "range", range.len ? range.data : "", range.len },
			{ "Range", cap ? cap : "", 0 },
			{ "place", name ? name : "", 0 },
			{ "days", days.len ? days.data : "", days.len }, { 0 },
		};

		if (period) {
			/*
			 * a stay or a period: the rules, then its closings
			 * (closing.rules, closing.period {from} {to} {days} or
			 * closing.period_none)
			 */
			struct cc_buf f = {0}, t = {0};
			const char *tail = cc_texts_get(ar->texts, spans ?
			    "closing.period" : "closing.period_none", lang, NULL);

			closing_date(ar, from, lang, &f);
			closing_date(ar, to, lang, &t);
			struct cc_var pv[] = {
				{ "from", f.len ? f.data : "", f.len },
				{ "to", t.len ? t.data : "", t.len },
				{ "place", name ? name : "", 0 },
				{ "days", days.len ? days.data : "", days.len }, { 0 },
			};

			if (tail && say(ar, a, "closing.rules", lang, v) == 0) {
				if (a->text.len && (unsigned char)a->text.data[a->text.len - 1] < 0x80)
					cc_buf_add(&a->text, " ", 1);	/* after "." */
				cc_texts_fill(&a->text, tail, pv);
				a->confidence = 0.9;
				add_source(a, "calendar");
				rc = 0;
			}
			cc_buf_release(&f);
			cc_buf_release(&t);
		} else if (say(ar, a, !spans ? "closing.none" : next ? "closing.next" :
		    "closing.days", lang, v) == 0) {
			a->confidence = 0.9;
			add_source(a, "calendar");
			rc = 0;
		}
		free(cap);
	}
out:
	cc_buf_release(&days);
	cc_buf_release(&range);
	jv_free(closed);
	jv_free(place);
	jv_free(places);
	jv_free(opening);
	jv_free(keep);
	return rc;
}

/* The i-th string of the list l, or dflt. */
static const char *
list_at(jv l, int i, const char *dflt, jv *keep)
{
	jv v;

	if (jv_get_kind(l) != JV_KIND_ARRAY || jv_array_length(jv_copy(l)) == 0)
		return dflt;
	v = jv_array_get(jv_copy(l), i);
	if (jv_get_kind(v) != JV_KIND_STRING) {
		jv_free(v);
		return dflt;
	}
	*keep = jv_array_append(*keep, jv_copy(v));
	{
		const char *s = jv_string_value(v);

		jv_free(v);
		return s;
	}
}

static int answer_opening(const struct cc_answerer *ar, struct cc_answer *a,
	jv route, jv events, const char *category, const char *lang);

/*
 * A compound question: the route's places and aspects (rules outputs,
 * cc-domain(5)) ask several things at once ("the hours of both cafes",
 * "hours, address and fees").  Each place and aspect is answered by its
 * own best passage (or by the opening calendar, for a day's hours), in
 * one reply: the text found.many {passages}, the parts joined by blank
 * lines; several aspects of one place each begin with the text
 * found.aspect.ASPECT (営業時間：) when the domain has it.  0, or -1 when
 * the question asks one thing only.
 */
static int
answer_compound(const struct cc_answerer *ar, struct cc_answer *a, jv route,
    const struct passages *ps, jv events, const char *lang)
{
	jv keep = jv_array(), places = member(route, "places"), aspects = member(route, "aspects");
	jv used = jv_array();
	int np = jv_get_kind(places) == JV_KIND_ARRAY ? jv_array_length(jv_copy(places)) : 0;
	int na = jv_get_kind(aspects) == JV_KIND_ARRAY ? jv_array_length(jv_copy(aspects)) : 0;
	const char *category = rstr(route, "category");
	const char *rt = rstr(route, "request_type");
	struct cc_buf parts = {0};
	int rc = -1, nparts = 0;

	if ((np ? np : 1) * (na ? na : 1) < 2)
		goto out;
	for (int i = 0; i < (np ? np : 1); i++)
		for (int k = 0; k < (na ? na : 1); k++) {
			const char *place = list_at(places, i, category, &keep);
			const char *aspect = list_at(aspects, k, rt, &keep);
			struct cc_answer day;
			jv route1;

			/* a day's hours: the opening calendar, as a single question */
			cc_answer_init(&day);
			route1 = jv_object_set(jv_copy(route), jv_string("request_type"),
			    aspect ? jv_string(aspect) : jv_null());
			if (aspect && place && strcmp(aspect, rt ? rt : "") == 0 &&
			    answer_opening(ar, &day, route1, events, place, lang) == 0) {
				const char *t = day.text.data;

				if (nparts++)
					cc_buf_add(&parts, "\n\n", 2);
				t += cc_answer_tag(t);
				cc_buf_add(&parts, t, strlen(t));
				add_source(a, "calendar");
				jv_free(route1);
				cc_answer_release(&day);
				continue;
			}
			jv_free(route1);
			cc_answer_release(&day);
			/*
			 * A passage about this aspect alone first (the fees, not
			 * the equipment's material costs; the address, not the
			 * floor guide), then any that covers it.
			 */
			for (int pass = 0, found = 0; pass < 2 && !found; pass++)
			for (int j = 0, only = pass == 0; j < ps->n; j++) {
				const char *l = pstr(ps, j, P_LANGUAGE, &keep);
				const char *c = pstr(ps, j, P_CATEGORY, &keep);
				const char *types = pstr(ps, j, P_REQUEST_TYPES, &keep);
				const char *id = pstr(ps, j, P_ID, &keep);
				const char *content = pstr(ps, j, P_CONTENT, &keep);
				int seen = 0;

				jv_array_foreach(used, u, x) {
					seen |= id && strcmp(jv_string_value(x), id) == 0;
					jv_free(x);
				}
				if (!seen && id && content && l && strcmp(l, lang) == 0 &&
				    (!place || (c && strcmp(c, place) == 0)) &&
				    (!aspect || cc_csv_has(types, aspect)) &&
				    (!only || !aspect || (types && strcmp(types, aspect) == 0))) {
					char hk[80];
					const char *head;

					if (nparts++)
						cc_buf_add(&parts, "\n\n", 2);
					/*
					 * several aspects of one place: each part
					 * says what it answers (found.aspect.ASPECT,
					 * 営業時間：), so a long list of questions
					 * reads as answered one by one
					 */
					snprintf(hk, sizeof hk, "found.aspect.%s", aspect ? aspect : "");
					if (np <= 1 && na >= 2 && aspect &&
					    (head = cc_texts_get(ar->texts, hk, lang, NULL)))
						cc_buf_add(&parts, head, strlen(head));
					cc_buf_add(&parts, content, strlen(content));
					used = jv_array_append(used, jv_string(id));
					a->passages = jv_array_append(a->passages, jv_string(id));
					add_source(a, "knowledge_base");
					found = 1;
					break;
				}
			}
		}
	if (nparts >= 2) {
		struct cc_var v[] = { { "passages", parts.data, parts.len }, { 0 } };

		if (say(ar, a, "found.many", lang, v) == 0) {
			a->confidence = 0.9;
			rc = 0;
		}
	}
	if (rc < 0) {	/* one part or none: answered as one question */
		jv_free(a->passages);
		a->passages = jv_array();
		a->nsources = 0;
	}
out:
	cc_buf_release(&parts);
	jv_free(used);
	jv_free(places);
	jv_free(aspects);
	jv_free(keep);
	return rc;
}

/* ---- one cell of a table: "Room 3, 9 to 9, how much?" ---- */

static int sentences(const char *s);
static int mentions(const struct cc_answerer *ar, const char *key,
	const char *lang, const char *folded);

#define CELL_MAX_COLS 8
#define CELL_MAX_ROWS 16

struct cell_table {
	char *col[CELL_MAX_COLS];	/* header cells, [0] the rows' heading */
	char *row[CELL_MAX_ROWS][CELL_MAX_COLS];
	int ncols, nrows;
	char *copy;
};

/* Split the first Markdown table of s into t (cells point into t->copy);
 * 0, or -1 when s has none. */
static int
cell_table_read(const char *s, struct cell_table *t)
{
	char *line, *next;
	int header = 1;

	memset(t, 0, sizeof *t);
	t->copy = cc_xstrdup(s);
	for (line = t->copy; line; line = next) {
		char *cells[CELL_MAX_COLS + 2];
		int n = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		while (*line == ' ')
			line++;
		if (*line != '|') {
			if (!header || t->nrows)
				break;	/* the table is over */
			continue;
		}
		for (char *p = line + 1; *p && n < CELL_MAX_COLS + 1; ) {
			char *bar = strchr(p, '|'), *e;

			if (!bar)
				break;
			*bar = '\0';
			while (*p == ' ')
				p++;
			for (e = p + strlen(p); e > p && e[-1] == ' '; e--)
				;
			*e = '\0';
			cells[n++] = p;
			p = bar + 1;
		}
		if (n < 2 || n > CELL_MAX_COLS)
			continue;
		if (strspn(cells[0], "-: ") == strlen(cells[0]) && *cells[0])
			continue;	/* |---|---| */
		if (header) {
			memcpy(t->col, cells, (size_t)n * sizeof *cells);
			t->ncols = n;
			header = 0;
		} else if (t->nrows < CELL_MAX_ROWS && n == t->ncols) {
			memcpy(t->row[t->nrows++], cells, (size_t)n * sizeof *cells);
		}
	}
	if (t->ncols < 2 || t->nrows < 1) {
		free(t->copy);
		t->copy = NULL;
		return -1;
	}
	return 0;
}

/*
 * 1 if s[0..n) holds "\u007" (a '|' or another character of 7x written
 * escaped), as memmem() finds it: from each backslash, which is all
 * the text a passage of prose escapes (its newlines).  glibc's memmem
 * went through the whole passage for every passage of every answer.
 */
static int
has_escaped_7x(const char *s, size_t n)
{
	const char *p = s, *end = s + n;

	while ((p = memchr(p, '\\', (size_t)(end - p)))) {
		if (end - p >= 5 && memcmp(p, "\\u007", 5) == 0)
			return 1;
		p++;
	}
	return 0;
}

/* 1 if a line of s begins with '|' (cheap: most passages are prose). */
static int
has_table(const char *s)
{
	return *s == '|' || strstr(s, "\n|") != NULL;
}

/* s folded, without spaces: 会議室 2 and Room2 alike. */
static char *
fold_tight(const char *s)
{
	char *f = cc_text_fold(s, strlen(s), NULL, 0), *o = f;

	for (char *p = f; *p; p++)
		if (*p != ' ')
			*o++ = *p;
	*o = '\0';
	return f;
}

/*
 * An hour at s[*i] (folded text): 13時, 13:00, 1pm, 1 p.m., 9; minutes
 * from midnight, *pm 1 when said am or pm, or -1 (*i unchanged).
 */
static int
cell_hour(const char *s, size_t *i, int *ampm)
{
	size_t j = *i;
	int h = 0, m = 0, nd = 0;

	if (j > 0 && (isalnum((unsigned char)s[j - 1]) || s[j - 1] == ':'))
		return -1;
	while (isdigit((unsigned char)s[j]) && nd < 3)
		h = h * 10 + (s[j++] - '0'), nd++;
	if (nd == 0 || nd > 2 || h > 24)
		return -1;
	if (s[j] == ':' && isdigit((unsigned char)s[j + 1]) && isdigit((unsigned char)s[j + 2])) {
		m = (s[j + 1] - '0') * 10 + (s[j + 2] - '0');
		j += 3;
	}
	*ampm = 0;
	{
		size_t k = j;

		while (s[k] == ' ')
			k++;
		if ((s[k] == 'a' || s[k] == 'p') && (s[k + 1] == 'm' ||
		    (s[k + 1] == '.' && s[k + 2] == 'm'))) {
			if (s[k] == 'p' && h < 12)
				h += 12;
			if (s[k] == 'a' && h == 12)
				h = 0;
			*ampm = 1;
			j = k + (s[k + 1] == 'm' ? 2 : 3);
			if (s[j] == '.')
				j++;
		} else if (strncmp(s + k, "時", strlen("時")) == 0) {
			j = k + strlen("時");
			if (strncmp(s + j, "半", strlen("半")) == 0) {
				m = 30;
				j += strlen("半");
			}
		} else if (isalpha((unsigned char)s[k]) && k == j) {
			return -1;	/* 2f, 3d */
		}
	}
	*i = j;
	return h * 60 + m;
}

/* The span of hours the question names (13時から17時, "9 to 9", "1pm-5pm"),
 * as minutes; 0, or -1 when it names none. */
static int
cell_span(const char *s, int *from, int *to)
{
	static const char *const joins[] = {"から", "〜", "~", "-", "\xe2\x80\x93",
	    "to", "until", "till", "through", "ー", NULL};

	for (size_t i = 0; s[i]; i++) {
		size_t j = i;
		int a, b, pa, pb;

		if (!isdigit((unsigned char)s[i]) || (a = cell_hour(s, &j, &pa)) < 0)
			continue;
		while (s[j] == ' ')
			j++;
		for (int k = 0; joins[k]; k++) {
			size_t n = strlen(joins[k]), e;

			if (strncmp(s + j, joins[k], n) != 0)
				continue;
			e = j + n;
			while (s[e] == ' ')
				e++;
			if ((b = cell_hour(s, &e, &pb)) < 0)
				break;
			/* "1 to 5": the afternoon; "9 to 9": nine in the evening */
			if (!pa && a < 8 * 60)
				a += 12 * 60;
			if (!pb && b <= a && b + 12 * 60 <= 24 * 60)
				b += 12 * 60;
			if (b <= a)
				break;
			*from = a;
			*to = b;
			return 0;
		}
		i = j > i ? j - 1 : i;
	}
	return -1;
}

/* Add table.total {total}: the sum of the cells (numbers with thousands
 * commas) of column col in the given rows. */
static void
cell_total(const struct cc_answerer *ar, struct cc_answer *a,
    const struct cell_table *t, int col, const int *rows, int nrows,
    const char *lang)
{
	const char *fmt = cc_texts_get(ar->texts, "table.total", lang, NULL);
	long sum = 0;
	char total[32], digits[32];
	int n = 0, o = 0;

	if (!fmt)
		return;
	for (int k = 0; k < nrows; k++) {
		long v = 0;
		int any = 0;

		for (const char *p = t->row[rows[k]][col]; *p; p++)
			if (isdigit((unsigned char)*p)) {
				v = v * 10 + (*p - '0');
				any = 1;
			} else if (*p != ',') {
				return;	/* not a plain number */
			}
		if (!any || v > 100000000L)
			return;
		sum += v;
	}
	n = snprintf(digits, sizeof digits, "%ld", sum);
	for (int k = 0; k < n; k++) {
		if (k && (n - k) % 3 == 0)
			total[o++] = ',';
		total[o++] = digits[k];
	}
	total[o] = '\0';
	{
		struct cc_var v[] = { { "total", total, 0 }, { 0 } };

		cc_buf_add(&a->text, "\n", 1);
		cc_texts_fill(&a->text, fmt, v);
	}
}

/* 1 if q holds h's first n bytes followed by the number d as a word
 * (Room one, 会議室二): a header "Room 1" named another way. */
static int
number_named(const char *q, const char *h, size_t n, int d)
{
	static const char *const words[][2] = { {"one", "一"}, {"two", "二"},
	    {"three", "三"}, {"four", "四"}, {"five", "五"}, {"six", "六"},
	    {"seven", "七"}, {"eight", "八"}, {"nine", "九"} };

	size_t ql = strlen(q);

	if (memchr(h, '\0', n))	/* strncmp() stopped at h's end */
		n = strlen(h);
	/* where q holds h's n bytes, by memmem rather than at every byte */
	for (const char *p = q; p < q + ql &&
	    (p = memmem(p, ql - (size_t)(p - q), h, n)) != NULL; p++) {
		/* the text has no spaces: "roomonefor" */
		for (int w = 0; w < 2; w++)
			if (strncmp(p + n, words[d - 1][w], strlen(words[d - 1][w])) == 0)
				return 1;
	}
	return 0;
}

/* 1 if q holds <h>N with a number sign between or a counter after
 * (Room No.2, room #3, room number 1, 会議室の2番), not <h>N0. */
static int
numbered(const char *q, const char *h, int d)
{
	static const char *const fmt[] = { "%s%d", "%sno.%d", "%sno%d", "%s#%d",
	    "%snumber%d", "%sの%d番", "%s%d番" };

	/* every form holds h whole (when it fits): most questions name no
	   column, and seven snprintf calls cost more than one strstr */
	if (strlen(h) < 64 && !strstr(q, h))
		return 0;
	for (size_t i = 0; i < sizeof fmt / sizeof *fmt; i++) {
		char w[128];
		const char *p;

		snprintf(w, sizeof w, fmt[i], h, d);
		for (p = strstr(q, w); p; p = strstr(p + 1, w))
			if (!isdigit((unsigned char)p[strlen(w)]))
				return 1;
	}
	return 0;
}

/* 1 if q holds 第N<h>, 第<kanji N><h> or N番(の)<h> (第1会議室, 3番の会議室). */
static int
ordinal_named(const char *q, const char *h, int d)
{
	static const char *const kanji[] = { "一", "二", "三", "四", "五", "六",
	    "七", "八", "九" };
	char w[4][96];

	if (strlen(h) < 64 && !strstr(q, h))	/* as in numbered() */
		return 0;
	snprintf(w[0], sizeof w[0], "第%d%s", d, h);
	snprintf(w[1], sizeof w[1], "第%s%s", kanji[d - 1], h);
	snprintf(w[2], sizeof w[2], "%d番%s", d, h);
	snprintf(w[3], sizeof w[3], "%d番の%s", d, h);
	for (int i = 0; i < 4; i++) {
		const char *p = strstr(q, w[i]);

		/* not the 11th or the 21st */
		if (p && (i < 2 || p == q || !isdigit((unsigned char)p[-1])))
			return 1;
	}
	return 0;
}

/*
 * The text table.columns ("会議室=ミーティングルーム,部屋 | room=meeting
 * room"), each name and its other names folded without spaces.  Folded
 * once for the answerer's memo: it was folded again for every header a
 * question did not name, a twentieth of an answer.
 */
struct columns {
	struct column {
		char *key;	/* the name before '=' */
		char **words;	/* its other names */
		int n;
	} *e;
	int n;
};

static void
columns_parse(const struct cc_answerer *ar, struct columns *c)
{
	const char *words = cc_texts_get(ar->texts, "table.columns", "*", NULL);

	memset(c, 0, sizeof *c);
	while (words && *words) {
		size_t k = strcspn(words, "|");
		char entry[512], *eq, *w, *save = NULL;
		struct column *e;

		snprintf(entry, sizeof entry, "%.*s", (int)k, words);
		words += k + (words[k] == '|');
		if ((eq = strchr(entry, '=')) == NULL)
			continue;
		*eq = '\0';
		c->e = cc_xrealloc(c->e, (size_t)(c->n + 1) * sizeof *c->e);
		e = &c->e[c->n++];
		e->key = fold_tight(entry);
		e->words = NULL;
		e->n = 0;
		for (w = strtok_r(eq + 1, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
			e->words = cc_xrealloc(e->words, (size_t)(e->n + 1) * sizeof *e->words);
			e->words[e->n++] = fold_tight(w);
		}
	}
}

static void
columns_release(struct columns *c)
{
	for (int i = 0; i < c->n; i++) {
		for (int k = 0; k < c->e[i].n; k++)
			free(c->e[i].words[k]);
		free(c->e[i].words);
		free(c->e[i].key);
	}
	free(c->e);
	memset(c, 0, sizeof *c);
}

static const struct columns *columns_of(const struct cc_answerer *ar,
	struct columns *local);

/*
 * 1 if the question q (folded, no spaces) names the table's column h
 * (folded, no spaces): as it is ("会議室2", "room3"), with its number as a
 * word (Room one, 会議室二) or before it (第1会議室, 3番の会議室), or by
 * another name of the word before the number, from the text table.columns
 * ("会議室=ミーティングルーム,部屋 | room=meeting room": ミーティングルーム2).
 */
static int
column_named(const struct cc_answerer *ar, const char *h, const char *q)
{
	size_t hl = strlen(h);
	struct columns local;
	const struct columns *cols;
	char pre[96];
	int d, hit = 0;

	if (!*h)
		return 0;
	if (strstr(q, h))
		return 1;
	if (hl < 2 || hl >= sizeof pre || h[hl - 1] < '1' || h[hl - 1] > '9' ||
	    isdigit((unsigned char)h[hl - 2]))
		return 0;
	d = h[hl - 1] - '0';
	snprintf(pre, sizeof pre, "%.*s", (int)(hl - 1), h);
	if (numbered(q, pre, d) || number_named(q, pre, hl - 1, d) ||
	    ordinal_named(q, pre, d))
		return 1;
	cols = columns_of(ar, &local);
	for (int i = 0; !hit && i < cols->n; i++) {
		if (strcmp(cols->e[i].key, pre) != 0)
			continue;
		for (int k = 0; !hit && k < cols->e[i].n; k++) {
			const char *fo = cols->e[i].words[k];

			hit = *fo && (numbered(q, fo, d) || number_named(q, fo, strlen(fo), d) ||
			    ordinal_named(q, fo, d));
		}
	}
	if (cols == &local)
		columns_release(&local);
	return hit;
}

/* A row label's hours ("9:00–12:00（午前）"); 0, or -1. */
static int
label_span(const char *label, int *from, int *to)
{
	int h1, m1, h2, m2, n = 0;

	if (sscanf(label, "%d:%d%n", &h1, &m1, &n) != 2)
		return -1;
	label += n;
	while (*label && !isdigit((unsigned char)*label))
		label++;
	if (sscanf(label, "%d:%d", &h2, &m2) != 2)
		return -1;
	*from = h1 * 60 + m1;
	*to = h2 * 60 + m2;
	return *to > *from ? 0 : -1;
}

/*
 * 1 if the question names the row's label word (the part in brackets:
 * 午前, "full day") or one of its other names in the text table.rows
 * ("full day=whole day,all day | ...").
 */
static int
label_named(const struct cc_answerer *ar, const char *label, const char *q,
    const char *lang)
{
	const char *open = strstr(label, "（"), *close;
	const char *words = cc_texts_get(ar->texts, "table.rows", lang, NULL);
	char word[64], *fw;
	int hit;

	if (open) {
		open += strlen("（");
		close = strstr(open, "）");
	} else if ((open = strchr(label, '(')) != NULL) {
		open++;
		close = strchr(open, ')');
	} else {
		return 0;
	}
	if (!close || close - open >= (long)sizeof word || close == open)
		return 0;
	snprintf(word, sizeof word, "%.*s", (int)(close - open), open);
	fw = fold_tight(word);
	hit = strstr(q, fw) != NULL;
	/* word=other,other | word=... */
	while (!hit && words && *words) {
		size_t k = strcspn(words, "|");
		char entry[256], *eq, *w;

		snprintf(entry, sizeof entry, "%.*s", (int)k, words);
		words += k + (words[k] == '|');
		if ((eq = strchr(entry, '=')) == NULL)
			continue;
		*eq = '\0';
		{
			char *fk = fold_tight(entry);
			int same = strcmp(fk, fw) == 0;

			free(fk);
			if (!same)
				continue;
		}
		for (w = strtok(eq + 1, ","); w && !hit; w = strtok(NULL, ",")) {
			char *fo = fold_tight(w);

			hit = *fo && strstr(q, fo) != NULL;
			free(fo);
		}
	}
	free(fw);
	return hit;
}

/* Put the best passage in lang other than passage `table` that names
 * the column (its capacity, say) before the answer. */
static void
cell_with_other(struct cc_answer *a, const struct passages *ps, int table,
    const char *lang, const char *column)
{
	int done = 0;

	for (int i = 0; i < ps->n && !done; i++) {
		jv keep = jv_array();
		const char *content = pstr(ps, i, P_CONTENT, &keep);
		const char *id = pstr(ps, i, P_ID, &keep);
		const char *l = pstr(ps, i, P_LANGUAGE, &keep);

		if (i != table && l && strcmp(l, lang) == 0 && content &&
		    strstr(content, column) && sentences(content)) {
			struct cc_buf b = {0};
			size_t tag = cc_answer_tag(a->text.data);

			cc_buf_add(&b, a->text.data, tag);
			cc_buf_add(&b, content, strlen(content));
			cc_buf_add(&b, "\n\n", 2);
			cc_buf_add(&b, a->text.data + tag, a->text.len - tag);
			cc_buf_release(&a->text);
			a->text = b;
			if (id)
				a->passages = jv_array_append(a->passages, jv_string(id));
			done = 1;
		}
		jv_free(keep);
	}
}

/*
 * A head count the folded question gives (30人, 30名, "30 people", "a
 * 30-seat room", "for 12"); 0 when it gives none.
 */
static int
head_count(const char *f)
{
	for (const char *p = f; *p; p++) {
		int n = 0, nd = 0;
		const char *q = p;

		if (!isdigit((unsigned char)*p) || (p > f && isdigit((unsigned char)p[-1])))
			continue;
		while (isdigit((unsigned char)*q) && nd < 4)
			n = n * 10 + (*q++ - '0'), nd++;
		if (isdigit((unsigned char)*q) || n < 2)
			continue;
		if (strncmp(q, "人", 3) == 0 || strncmp(q, "名", 3) == 0)
			return n;
		if (*q == ' ' || *q == '-')
			q++;
		if (strncmp(q, "people", 6) == 0 || strncmp(q, "persons", 7) == 0 ||
		    strncmp(q, "seat", 4) == 0 || strncmp(q, "guests", 6) == 0 ||
		    strncmp(q, "participants", 12) == 0 || strncmp(q, "of us", 5) == 0)
			return n;
	}
	return 0;
}

/*
 * The table's column for a head count: the knowledge base says each
 * column's capacity in prose ("Room 3 seats 30", 会議室3が30人), a number
 * within a few bytes after the column's name in some passage; the
 * smallest that holds n.  0 when no passage says.
 */
static int
capacity_column(const struct passages *ps, const struct cell_table *t, int n)
{
	int best = 0, best_cap = 0;

	for (int k = 1; k < t->ncols; k++) {
		char *h = fold_tight(t->col[k]);
		size_t hl = strlen(h);
		int cap = 0;

		for (int i = 0; i < ps->n && !cap && hl; i++) {
			jv keep = jv_array();
			const char *content = pstr(ps, i, P_CONTENT, &keep);
			char *c = content ? fold_tight(content) : NULL;

			for (const char *p = c ? strstr(c, h) : NULL; p && !cap; p = strstr(p + 1, h)) {
				const char *q = p + hl;
				int skip = 0;

				if (isdigit((unsigned char)*q))
					continue;	/* room1 in room12 */
				/* a word between, not a table's cell or a list */
				while (*q && !isdigit((unsigned char)*q) && skip < 9 &&
				    !ispunct((unsigned char)*q))
					q++, skip++;
				if (isdigit((unsigned char)*q) && skip > 0)
					cap = atoi(q);
			}
			free(c);
			jv_free(keep);
		}
		if (cap >= n && (!best || cap < best_cap)) {
			best = k;
			best_cap = cap;
		}
		free(h);
	}
	return best;
}

/*
 * A question about one column of a table in a passage (会議室2, "Room 3")
 * and one of its rows, by its hours (13時から17時, "9 to 9": the smallest
 * row that holds them) or its label (午前中, "the evening slot"): that
 * cell, the text table.cell {column} {row} {value}; with no row named but
 * the column and the table's own passage picked, the column, one
 * table.column_row {row} {value} each in table.column {column} {rows}.
 * The passages tried are the answer language's of the asked place, best
 * first.  0, or -1 when the question is no such question.
 */
static int
answer_cell(const struct cc_answerer *ar, struct cc_answer *a,
    const struct passages *ps, const char *category, const char *query,
    size_t qlen, const char *lang, int picked)
{
	char *q = NULL, *qraw = NULL;
	int rc = -1, from = 0, to = 0, has_span = 0;

	for (int i = 0; i < ps->n && rc < 0; i++) {
		jv keep;
		const char *content;
		const char *l, *c, *id;
		struct cell_table t;
		int col = 0, row = -1, best = 0, cols[CELL_MAX_COLS], ncols = 0;
		int rows[CELL_MAX_ROWS], nrows = 0;

		/*
		 * A table needs a '|', in the passage's text as it is or as
		 * \u007c: most passages have neither, and need not be read
		 * (passage() copies and walks them) to know it.
		 */
		if (!memchr(ps->at[i], '|', ps->len[i]) &&
		    !has_escaped_7x(ps->at[i], ps->len[i]))
			continue;
		keep = jv_array();
		content = pstr(ps, i, P_CONTENT, &keep);
		/* most passages are prose: nothing more to read of them */
		if (!content || !has_table(content)) {
			jv_free(keep);
			continue;
		}
		l = pstr(ps, i, P_LANGUAGE, &keep);
		c = pstr(ps, i, P_CATEGORY, &keep);
		id = pstr(ps, i, P_ID, &keep);
		if (!l || strcmp(l, lang) != 0 ||
		    (category && (!c || strcmp(c, category) != 0)) ||
		    (!q && !cc_texts_get(ar->texts, "table.cell", lang, NULL)) ||
		    cell_table_read(content, &t) < 0) {
			jv_free(keep);
			continue;
		}
		if (!q) {	/* the first table: read the question */
			char *tmp = cc_xmalloc(qlen + 1);

			qraw = cc_text_fold(query, qlen, NULL, 0);
			has_span = cell_span(qraw, &from, &to) == 0;
			snprintf(tmp, qlen + 1, "%.*s", (int)qlen, query);
			q = fold_tight(tmp);
			free(tmp);
		}
		for (int k = 1; k < t.ncols; k++) {
			char *h = fold_tight(t.col[k]);

			if (column_named(ar, h, q))
				cols[ncols++] = k;
			free(h);
		}
		if (!ncols) {	/* "the 30-seat room": the column that holds them */
			int n = head_count(qraw);

			if (n && (cols[0] = capacity_column(ps, &t, n)) > 0)
				ncols = 1;
		}
		col = ncols ? cols[0] : 0;
		for (int k = 0; col > 0 && k < t.nrows; k++) {
			int f, e;

			if (has_span) {
				if (label_span(t.row[k][0], &f, &e) == 0 && f <= from &&
				    e >= to && (row < 0 || e - f < best)) {
					row = k;
					best = e - f;
				}
			} else if (label_named(ar, t.row[k][0], q, lang)) {
				rows[nrows++] = k;
			}
		}
		if (row >= 0)
			rows[nrows++] = row;
		if (col > 0 && nrows > 0) {
			/* one cell for each column and row named (Room 2 and
			 * Room 3; the morning and the evening) */
			for (int k = 0; k < ncols * nrows; k++) {
				int cc = cols[k / nrows], rr = rows[k % nrows];
				struct cc_var v[] = {
					{ "column", t.col[cc], 0 }, { "row", t.row[rr][0], 0 },
					{ "value", t.row[rr][cc], 0 }, { 0 },
				};
				struct cc_buf more = {0};

				if (k == 0) {
					rc = say(ar, a, "table.cell", lang, v);
					continue;
				}
				cc_texts_fill(&more, cc_texts_get(ar->texts, "table.cell",
				    lang, NULL), v);
				cc_buf_add(&a->text, "\n", 1);
				cc_buf_add(&a->text, more.data + cc_answer_tag(more.data),
				    more.len - cc_answer_tag(more.data));
				cc_buf_release(&more);
			}
			/* several slots of one room: what they come to */
			if (rc == 0 && ncols == 1 && nrows > 1)
				cell_total(ar, a, &t, col, rows, nrows, lang);
		} else if (ncols == 1 && !has_span && i == picked) {
			struct cc_buf list = {0};
			const char *each = cc_texts_get(ar->texts, "table.column_row", lang, NULL);

			for (int k = 0; each && k < t.nrows; k++) {
				struct cc_var v[] = { { "row", t.row[k][0], 0 },
				    { "value", t.row[k][col], 0 }, { 0 } };

				if (k)
					cc_buf_add(&list, "\n", 1);
				cc_texts_fill(&list, each, v);
			}
			{
				struct cc_var v[] = { { "column", t.col[col], 0 },
				    { "rows", list.data ? list.data : "", list.len }, { 0 } };

				rc = list.len ? say(ar, a, "table.column", lang, v) : -1;
			}
			cc_buf_release(&list);
		}
		if (rc == 0) {
			a->confidence = 0.9;
			add_source(a, "knowledge_base");
			if (id)
				a->passages = jv_array_append(a->passages, jv_string(id));
			/* it asks more about that column too ("how many fit in
			 * Room 1, and how much ..."): the best passage that
			 * names it, first */
			if (mentions(ar, "table.also", lang, qraw))
				cell_with_other(a, ps, i, lang, t.col[col]);
		}
		free(t.copy);
		jv_free(keep);
	}
	free(q);
	free(qraw);
	return rc;
}

/* 1 if the text reads as sentences rather than a list or a table. */
static int
sentences(const char *s)
{
	return strstr(s, "。") || strstr(s, ". ") || (*s && s[strlen(s) - 1] == '.');
}

/*
 * The weekdays a list item's label names, as bits (1 << 1 Monday ..
 * 1 << 7 Sunday): 月〜木曜, 日曜・祝日, "Monday to Thursday", "Friday";
 * a range word between two days fills the days between.  ja day
 * characters count before 曜 or a range or list mark only, so 祝日 and
 * 平日 name no Sunday.
 */
static unsigned
label_days(const char *s, size_t n)
{
	static const char *const en[] = {"monday", "tuesday", "wednesday", "thursday",
	    "friday", "saturday", "sunday"};
	static const char *const ja[] = {"\xe6\x9c\x88", "\xe7\x81\xab", "\xe6\xb0\xb4",
	    "\xe6\x9c\xa8", "\xe9\x87\x91", "\xe5\x9c\x9f", "\xe6\x97\xa5"};
	unsigned set = 0;
	int prev = 0, range = 0;

	for (size_t i = 0; i < n; ) {
		int day = 0;
		size_t step = 1;

		size_t w = 0;

		/* an English word: a day's name, its plural or abbreviation
		 * (Mon, Tues, Thurs.), not "month" or "sunny" */
		if (isalpha((unsigned char)s[i]) && (i == 0 || !isalpha((unsigned char)s[i - 1])))
			while (i + w < n && isalpha((unsigned char)s[i + w]))
				w++;
		for (int d = 0; d < 7 && !day && w >= 3; d++) {
			size_t full = strlen(en[d]);

			if ((w >= full && strncasecmp(s + i, en[d], full) == 0) ||
			    (w <= 5 && w < full - 2 && strncasecmp(s + i, en[d], w) == 0))
				day = d + 1;
		}
		for (int d = 0; d < 7 && !day; d++)
			if (i + 3 <= n && memcmp(s + i, ja[d], 3) == 0 &&
			    ((i + 6 <= n && (memcmp(s + i + 3, "\xe6\x9b\x9c", 3) == 0 ||	/* 曜 */
			    memcmp(s + i + 3, "\xe3\x80\x9c", 3) == 0 ||	/* 〜 */
			    memcmp(s + i + 3, "\xef\xbd\x9e", 3) == 0 ||	/* ～ */
			    memcmp(s + i + 3, "\xe3\x83\xbb", 3) == 0)) ||	/* ・ */
			    (i >= 3 && (memcmp(s + i - 3, "\xe3\x80\x9c", 3) == 0 ||
			    memcmp(s + i - 3, "\xef\xbd\x9e", 3) == 0))))	/* 〜木 */
				day = d + 1, step = 3;
		if (day) {
			if (range && prev && day > prev)
				for (int d = prev + 1; d < day; d++)
					set |= 1u << d;
			set |= 1u << day;
			prev = day;
			range = 0;
			if (w)
				step = w;
		} else if ((i + 3 <= n && (memcmp(s + i, "\xe3\x80\x9c", 3) == 0 ||
		    memcmp(s + i, "\xef\xbd\x9e", 3) == 0 || memcmp(s + i, "\xe2\x80\x93", 3) == 0)) ||
		    (i + 4 <= n && strncasecmp(s + i, " to ", 4) == 0) ||
		    (i + 9 <= n && strncasecmp(s + i, " through ", 9) == 0) || s[i] == '-') {
			range = prev != 0;
		}
		i += step;
	}
	return set;
}

/*
 * The weekdays a question asks about, as label_days() bits, or 0: the
 * days of the range cc-event read when it is shorter than a week (月曜
 * から木曜, "on Fridays", 土日), else weekdays or the weekend by name
 * (平日, "on weekdays", 週末).
 */
static unsigned
asked_days(jv events, const char *query, size_t qlen)
{
	jv keep = jv_array(), opening = member(events, "opening");
	const char *from = NULL, *to = NULL;
	unsigned set = 0;
	int y, m, d, y2, m2, d2;

	if (jv_get_kind(opening) == JV_KIND_OBJECT) {
		from = str(opening, "from", &keep);
		to = str(opening, "to", &keep);
		if (!from)
			from = to = str(opening, "date", &keep);
	}
	if (from && to && sscanf(from, "%d-%d-%d", &y, &m, &d) == 3 &&
	    sscanf(to, "%d-%d-%d", &y2, &m2, &d2) == 3) {
		struct cc_date f = { y, m, d }, t = { y2, m2, d2 };
		int n = cc_date_diff(f, t);

		for (int i = 0; n >= 0 && n < 6 && i <= n; i++)
			set |= 1u << cc_date_weekday(cc_date_add(f, i));
	}
	if (!set) {
		char *q = cc_xmalloc(qlen + 1);

		for (size_t i = 0; i < qlen; i++)
			q[i] = (char)tolower((unsigned char)query[i]);
		q[qlen] = '\0';
		if (strstr(q, "weekend") || strstr(q, "\xe9\x80\xb1\xe6\x9c\xab") ||	/* 週末 */
		    strstr(q, "\xe5\x9c\x9f\xe6\x97\xa5"))	/* 土日 */
			set = 1u << 6 | 1u << 7;
		else if (strstr(q, "weekday") || strstr(q, "\xe5\xb9\xb3\xe6\x97\xa5"))	/* 平日 */
			set = 0x3eu;
		else	/* days as a label says them: 月〜木, "Mon-Thu" */
			set = label_days(q, qlen);
		free(q);
	}
	jv_free(opening);
	jv_free(keep);
	return set;
}

/*
 * A list of hours by day ("- 月〜木曜: ..."): the items of the days
 * asked only, or NULL when the question names no day, an item names
 * none, or every item is asked.  The lines before the first item stay.
 */
static char *
items_of_days(const char *content, unsigned asked)
{
	struct cc_buf out = {0};
	const char *p = content;
	int items = 0, kept = 0;

	if (!asked)
		return NULL;
	while (*p) {
		size_t n = strcspn(p, "\n");
		int item = n > 2 && p[0] == '-' && p[1] == ' ';

		if (item) {
			size_t ln = strcspn(p, ":\n");
			const char *fw = strstr(p, "\xef\xbc\x9a");	/* ： */
			unsigned days;

			if (fw && (size_t)(fw - p) < ln)
				ln = (size_t)(fw - p);
			days = label_days(p, ln);
			if (!days) {
				cc_buf_release(&out);
				return NULL;
			}
			items++;
			if (days & asked) {
				kept++;
				cc_buf_add(&out, p, n);
				cc_buf_add(&out, "\n", 1);
			}
		} else if (!items) {
			cc_buf_add(&out, p, n);
			cc_buf_add(&out, "\n", 1);
		}
		p += n;
		if (*p)
			p++;
	}
	if (!kept || kept == items) {
		cc_buf_release(&out);
		return NULL;
	}
	while (out.len && out.data[out.len - 1] == '\n')
		out.data[--out.len] = '\0';
	return out.data;
}

/* How many stations a passage names: "Station"/"station" words and 駅. */
static int
stations_in(const char *s)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, "\xe9\xa7\x85")); p += 3)	/* 駅 */
		n++;
	for (const char *p = s; *p; p++)
		if ((*p == 'S' || *p == 's') && strncmp(p + 1, "tation", 6) == 0 &&
		    (p == s || !isalpha((unsigned char)p[-1])))
			n++;
	return n;
}

/*
 * The terms of s that name a place, into t[] (at most max, each at most
 * 31 bytes, lower case): two capitalised words in a row (Tenjin Station,
 * Nishitetsu Fukuoka; "(Tenjin)" is none) and each capitalised word, and
 * each pair of non-ASCII characters other than punctuation (天神, 神駅).
 */
static int
place_terms(const char *s, char t[][32], int max, int capital)
{
	int n = 0;
	const char *prev = NULL;
	size_t prevlen = 0;

	for (const char *p = s; *p && n < max; ) {
		unsigned char c = (unsigned char)*p;

		if (c < 0x80) {
			size_t w = 0;

			while (isalnum((unsigned char)p[w]))
				w++;
			const char *b = p;

			while (b > s && b[-1] == ' ')
				b--;
			/* a capital after a full stop is a sentence's, no name */
			if (w && (p == s || !isalnum((unsigned char)p[-1])) &&
			    (!capital || (isupper(c) && b > s && b[-1] != '.')) && w < 31) {
				if (prev && prevlen + 1 + w < 31 && n < max) {
					snprintf(t[n], 32, "%.*s %.*s", (int)prevlen, prev, (int)w, p);
					n++;
				}
				if (n < max) {
					snprintf(t[n], 32, "%.*s", (int)w, p);
					n++;
				}
				prev = p;
				prevlen = w;
				p += w;
				continue;
			}
			if (c != ' ')
				prev = NULL;
			p += w ? w : 1;
			continue;
		}
		prev = NULL;
		{
			size_t l1 = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
			unsigned char d = (unsigned char)p[l1];
			size_t l2 = d >= 0xF0 ? 4 : d >= 0xE0 ? 3 : 2;

			/* punctuation and brackets (U+3000-303F, U+FF00-FF0F...) end a pair */
			if (d >= 0x80 && !(c == 0xE3 && (unsigned char)p[1] == 0x80) &&
			    !(d == 0xE3 && (unsigned char)p[l1 + 1] == 0x80) &&
			    !(c == 0xEF && (unsigned char)p[1] == 0xBC) &&
			    !(d == 0xEF && (unsigned char)p[l1 + 1] == 0xBC) && l1 + l2 < 31) {
				memcpy(t[n], p, l1 + l2);
				t[n][l1 + l2] = '\0';
				n++;
			}
			p += l1;
		}
	}
	for (int i = 0; i < n; i++)
		for (char *q = t[i]; *q; q++)
			*q = (char)tolower((unsigned char)*q);
	return n;
}

/* The question (lower case) asks where the place is, beside the way. */
static int
asks_where(const char *q)
{
	static const char *const w[] = {"address", "where", "location",
	    "\xe4\xbd\x8f\xe6\x89\x80" /* 住所 */,
	    "\xe5\xa0\xb4\xe6\x89\x80" /* 場所 */, "\xe3\x81\xa9\xe3\x81\x93" /* どこ */,
	    "\xe6\x89\x80\xe5\x9c\xa8" /* 所在 */, NULL};

	for (int i = 0; w[i]; i++)
		if (strstr(q, w[i]))
			return 1;
	return 0;
}

/* w in s, and when w is ASCII, as whole words ("line", not "online"). */
static int
word_in(const char *s, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = s; (p = strstr(p, w)); p++)
		if ((unsigned char)*w >= 0x80 ||
		    ((p == s || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[n])))
			return 1;
	return 0;
}

/*
 * "how long from Nishitetsu Tenjin?", 地下鉄天神駅から何分？: of the
 * passages that name one station each, the one whose own place terms
 * (those no other such passage has) the question names most, when one
 * names strictly more than the others; else p.
 */
static int
station_named(const struct passages *ps, int p, const char *lang,
    const char *category, const char *query, size_t qlen)
{
	enum { MAXC = 6, MAXT = 48 };
	char (*t)[MAXT][32] = cc_xmalloc(MAXC * sizeof *t), *q = cc_xmalloc(qlen + 1);
	int cand[MAXC], nt[MAXC], nc = 0, best = -1, bestn = 0, tie = 0;
	jv keep = jv_array();
	const char *pc = p >= 0 ? pstr(ps, p, P_CONTENT, &keep) : NULL;

	if (!pc || !stations_in(pc))
		goto out;
	for (size_t i = 0; i < qlen; i++)
		q[i] = (char)tolower((unsigned char)query[i]);
	q[qlen] = '\0';
	/*
	 * a passage that also says something else (the address) stays when
	 * the question asks where as well (住所と天神駅から何分か)
	 */
	for (const char *b = pc, *e; *b && asks_where(q); b = e) {
		const char *j = strstr(b, "\xe3\x80\x82"), *d = strstr(b, ". ");
		char *one;

		e = j && (!d || j < d) ? j + 3 : d ? d + 2 : b + strlen(b);
		one = cc_xmalloc((size_t)(e - b) + 1);
		memcpy(one, b, (size_t)(e - b));
		one[e - b] = '\0';
		if (!stations_in(one)) {
			free(one);
			goto out;
		}
		free(one);
	}
	for (int i = 0; i < ps->n && nc < MAXC; i++) {
		const char *l = pstr(ps, i, P_LANGUAGE, &keep);
		const char *c = pstr(ps, i, P_CATEGORY, &keep);
		const char *content = pstr(ps, i, P_CONTENT, &keep);

		if (l && strcmp(l, lang) == 0 && c && category && strcmp(c, category) == 0 &&
		    content && stations_in(content) == 1) {
			cand[nc] = i;
			nt[nc] = place_terms(content, t[nc], MAXT, strcmp(lang, "en") == 0);
			nc++;
		}
	}
	for (int k = 0; k < nc; k++) {
		int hits = 0;

		for (int i = 0; i < nt[k]; i++) {
			int other = 0;

			for (int o = 0; o < nc && !other; o++)
				for (int j = 0; o != k && j < nt[o] && !other; j++)
					other = strcmp(t[k][i], t[o][j]) == 0;
			if (!other && word_in(q, t[k][i]))
				hits++;
		}
		if (hits > bestn) {
			best = cand[k];
			bestn = hits;
			tie = 0;
		} else if (hits && hits == bestn) {
			tie = 1;
		}
	}
	if (best >= 0 && !tie)
		p = best;
out:
	free(t);
	free(q);
	jv_free(keep);
	return p;
}

static void
answer_kb(const struct cc_answerer *ar, struct cc_answer *a, jv route,
    const struct passages *ps, jv events, const char *query, size_t qlen,
    const char *lang)
{
	jv keep = jv_array();
	const char *category = rstr(route, "category");
	const char *places = cc_texts_get(ar->texts, "kb.places", "*", NULL);
	char venue[64] = "";
	int p;

	/* a category that is no place (a clarification's, say): the venue's */
	if (place_index(ar, category) < 0) {
		if (places)
			snprintf(venue, sizeof venue, "%.*s", (int)strcspn(places, " "), places);
		category = *venue ? venue : NULL;	/* no places named: any passage */
	}
	if (answer_compound(ar, a, route, ps, events, lang) == 0 ||
	    answer_arrival(ar, a, route, events, category, query, qlen, lang) == 0 ||
	    answer_opening(ar, a, route, events, category, lang) == 0 ||
	    answer_closings(ar, a, route, events, category, lang) == 0) {
		jv_free(keep);
		return;
	}
	p = pick_passage(ar, ps, lang, category);
	if (p >= 0 && rstr(route, "request_type") &&
	    strcmp(rstr(route, "request_type"), "location") == 0)
		p = station_named(ps, p, lang, category, query, qlen);
	if (answer_cell(ar, a, ps, category, query, qlen, lang, p) == 0) {
		jv_free(keep);
		return;
	}

	if (p >= 0) {
		const char *content = pstr(ps, p, P_CONTENT, &keep);
		const char *title = pstr(ps, p, P_TITLE, &keep);
		const char *id = pstr(ps, p, P_ID, &keep);
		struct cc_var vars[] = {
			{ "passage", content ? content : "", 0 },
			{ "title", title ? title : "", 0 }, { 0 },
		};

		char *some = content && !sentences(content) ?
		    items_of_days(content, asked_days(events, query, qlen)) : NULL;

		if (some)
			vars[0].value = content = some;
		if (content && !sentences(content)) {
			/* the lead line names it: drop the list's own heading */
			size_t tl = title ? strlen(title) : 0;

			if (tl && strncmp(content, title, tl) == 0 && strchr(content, '\n'))
				vars[0].value = strchr(content, '\n') + 1;
			say(ar, a, "found.list", lang, vars);
		} else {
			say(ar, a, "found", lang, vars);
		}
		free(some);
		a->confidence = p == 0 ? 0.9 : 0.8;
		add_source(a, "knowledge_base");
		if (id)
			a->passages = jv_array_append(a->passages, jv_string(id));
	} else {
		say(ar, a, "not_found", lang, NULL);
		a->confidence = 0.3;
		add_source(a, "fallback");
	}
	jv_free(keep);
}

/* ---- events ---- */

/* {range}: the asked range in words, from events.kind and its dates. */
static void
range_words(const struct cc_answerer *ar, jv events, const char *lang,
    struct cc_buf *out)
{
	jv keep = jv_array();
	const char *kind = str(events, "kind", &keep);
	const char *start = str(events, "start", &keep);
	jv days = member(events, "days");
	char key[64], ndays[16] = "";
	struct cc_date_vars d;
	time_t t = 0;
	const char *tmpl;

	snprintf(key, sizeof key, "range.%s", kind ? kind : "thisWeek");
	if (!(tmpl = cc_texts_get(ar->texts, key, lang, NULL)))
		tmpl = cc_texts_get(ar->texts, "range.other", lang, NULL);
	if (start)
		cc_time_parse_iso8601(start, &t);
	if (jv_get_kind(days) == JV_KIND_NUMBER)
		snprintf(ndays, sizeof ndays, "%d", (int)jv_number_value(days));
	cc_texts_date_vars(ar->texts, lang, t, &d);
	/* the date words, then {days} */
	size_t nv = 0;
	while (d.vars[nv].name)
		nv++;
	d.vars[nv++] = (struct cc_var){ "days", ndays, 0 };
	d.vars[nv] = (struct cc_var){ 0 };
	cc_texts_fill(out, tmpl ? tmpl : "", d.vars);
	jv_free(days);
	jv_free(keep);
}

/* 1 if s[0..n) has kana or kanji. */
static int
has_japanese(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		enum cc_script sc = cc_text_script(cc_utf8_next(s, n, &i));

		if (sc == CC_SCRIPT_HIRAGANA || sc == CC_SCRIPT_KATAKANA ||
		    sc == CC_SCRIPT_HAN)
			return 1;
	}
	return 0;
}

/*
 * Calendars written for both languages put them side by side: a title
 * "もくもく会 / Mokumoku night", a description line in each language.
 * Keep the parts in the answer's language (Japanese parts have kana or
 * kanji; the others are English); text with no such parts stays whole.
 */
static void
language_part(const char *s, const char *sep, const char *lang, struct cc_buf *out)
{
	int want_ja = strcmp(lang, "ja") == 0, kept = 0;
	size_t seplen = strlen(sep);
	const char *p = s;

	while (*p) {
		const char *e = strstr(p, sep);
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n && has_japanese(p, n) == want_ja) {
			if (kept++)
				cc_buf_add(out, sep, seplen);
			cc_buf_add(out, p, n);
		}
		p += n;
		if (e)
			p += seplen;
	}
	if (!kept)
		cc_buf_add(out, s, strlen(s));
}

static void
event_item(const struct cc_answerer *ar, jv item, const char *lang,
    struct cc_buf *out)
{
	jv keep = jv_array();
	const char *title = str(item, "title", &keep);
	const char *start = str(item, "start", &keep);
	const char *end = str(item, "end", &keep);
	const char *desc = str(item, "description", &keep);
	struct cc_buf s = {0}, e = {0};
	time_t ts, te;

	if (start && cc_time_parse_iso8601(start, &ts) == 0)
		cc_texts_format_time(ar->texts, "datetime", lang, ts, &s);
	if (end && cc_time_parse_iso8601(end, &te) == 0)
		/* the same day: only the time */
		cc_texts_format_time(ar->texts, start && te - ts < 86400 ? "time" :
		    "datetime", lang, te, &e);
	struct cc_buf t = {0}, d = {0};

	if (!desc || !*desc)
		desc = cc_texts_get(ar->texts, "events.no_description", lang, NULL);
	language_part(title ? title : "", " / ", lang, &t);
	language_part(desc ? desc : "", "\n", lang, &d);
	struct cc_var vars[] = {
		{ "title", t.data ? t.data : "", 0 },
		{ "start", s.data ? s.data : "", 0 },
		{ "end", e.data ? e.data : "", 0 },
		{ "description", d.data ? d.data : "", 0 },
		{ 0 },
	};
	cc_texts_fill(out, cc_texts_get(ar->texts, "events.item", lang, NULL), vars);
	cc_buf_release(&s);
	cc_buf_release(&e);
	cc_buf_release(&t);
	cc_buf_release(&d);
	jv_free(keep);
}

/* 1 if two names (folded, spaces out) are one: one holds the other, or
 * they begin alike ("Makers-space training", "Makers"). */
static int
same_name(const char *x, const char *y)
{
	size_t k = 0;

	if (!*x || !*y)
		return 0;
	if (strstr(x, y) || strstr(y, x))
		return 1;
	while (x[k] && x[k] == y[k])
		k++;
	return k >= 6;
}

/*
 * A regular event asked by name (events.title, cc-event(1) event_name):
 * when it is held, from the line "- NAME: WHEN" of a passage of the
 * event category in the answer language whose NAME is the event's (the
 * asked title or the first date's title), said with events.pattern
 * {name} {when} into out.  0, or -1 when no passage says it.
 */
static int
event_pattern(const struct cc_answerer *ar, jv events,
    const struct passages *ps, const char *category, const char *lang,
    struct cc_buf *out)
{
	jv keep = jv_array();
	jv items = member(events, "items"), first = jv_invalid();
	const char *title = str(events, "title", &keep), *fmt;
	char *keys[2] = {NULL, NULL};
	int rc = -1;

	fmt = cc_texts_get(ar->texts, "events.pattern", lang, NULL);
	if (!title || !*title || !fmt)
		goto out;
	keys[0] = fold_tight(title);
	if (jv_get_kind(items) == JV_KIND_ARRAY && jv_array_length(jv_copy(items)) > 0) {
		struct cc_buf t = {0};
		const char *it;

		first = jv_array_get(jv_copy(items), 0);
		it = str(first, "title", &keep);
		if (it) {
			language_part(it, " / ", lang, &t);
			keys[1] = fold_tight(t.data ? t.data : "");
		}
		cc_buf_release(&t);
	}
	for (int i = 0; i < ps->n && rc < 0; i++) {
		const char *l = pstr(ps, i, P_LANGUAGE, &keep);
		const char *c = pstr(ps, i, P_CATEGORY, &keep);
		const char *content = pstr(ps, i, P_CONTENT, &keep);

		if (content && l && strcmp(l, lang) == 0 &&
		    (!category || (c && strcmp(c, category) == 0))) {
			for (const char *line = content; line && *line && rc < 0; ) {
				const char *end = strchr(line, '\n'), *colon;
				size_t len = end ? (size_t)(end - line) : strlen(line);
				char name[160], *fn;

				if (strncmp(line, "- ", 2) == 0 &&
				    (colon = memchr(line, ':', len)) != NULL &&
				    colon - line - 2 < (long)sizeof name && colon[1] == ' ') {
					snprintf(name, sizeof name, "%.*s", (int)(colon - line - 2), line + 2);
					fn = fold_tight(name);
					if (same_name(fn, keys[0]) || (keys[1] && same_name(fn, keys[1]))) {
						char when[256];
						struct cc_var v[] = { { "name", name, 0 }, { "when", when, 0 }, { 0 } };

						snprintf(when, sizeof when, "%.*s",
						    (int)(len - (size_t)(colon + 2 - line)), colon + 2);
						cc_texts_fill(out, fmt, v);
						rc = 0;
					}
					free(fn);
				}
				line = end ? end + 1 : NULL;
			}
		}
	}
out:
	free(keys[0]);
	free(keys[1]);
	jv_free(first);
	jv_free(items);
	jv_free(keep);
	return rc;
}

/*
 * The events of the asked range; with none, what the knowledge base says
 * about the regular ones (the passages of the route's category), and with
 * the calendar down, that alone (seed 004's fallbacks).
 */
/*
 * No events on a day the venue (the first of kb.places) is closed: the
 * text opening.events.closed {date} {place} {reason}, from the opening
 * cc-event wrote for the day.  0, or -1 when the venue was open or nobody
 * said.
 */
static int
closed_day(const struct cc_answerer *ar, struct cc_answer *a, jv events,
    const char *lang)
{
	const char *places = cc_texts_get(ar->texts, "kb.places", "*", NULL);
	char venue[64];
	jv opening = member(events, "opening"), all = member(opening, "places"), day;
	int rc = -1;

	snprintf(venue, sizeof venue, "%.*s", places ? (int)strcspn(places, " ") : 0,
	    places ? places : "");
	day = member(all, venue);
	if (*venue && jv_get_kind(day) == JV_KIND_OBJECT) {
		jv open = member(day, "open");

		if (jv_get_kind(open) == JV_KIND_FALSE) {
			jv route = jv_object_set(jv_object(), jv_string("opening"),
			    jv_string("events"));

			rc = answer_opening(ar, a, route, events, venue, lang);
			jv_free(route);
		}
		jv_free(open);
	}
	jv_free(day);
	jv_free(all);
	jv_free(opening);
	return rc;
}

/*
 * The list of a calendar's first MAX_EVENTS items, as event_item() writes
 * them.  The memo holds a reference to the items it wrote, so the same
 * value (jv_identical: the record's events read from cc_record_get()'s
 * memo) is the same list while it holds it.
 */
/*
 * Lists of events written, by the items they were written from (the
 * same jv: cc_record.c hands the same events text the same jv) and the
 * language: a run's questions ask for a few ranges (today, this week,
 * the weekend) in two languages, and one list alone was written anew at
 * every change of language or range.
 */
#define EVENT_LISTS 8
struct event_list {
	jv items;
	char lang[4];
	struct cc_buf list;
};

struct cc_answer_memo {
	struct event_list lists[EVENT_LISTS];
	unsigned next_list;
	struct columns columns;	/* table.columns, folded */
	int columns_read;
	struct cc_memo results;	/* retrieval.results: where its passages are */
};

static struct cc_memo *
results_memo(const struct cc_answerer *ar)
{
	return ar->memo ? &ar->memo->results : NULL;
}

/* table.columns from the memo, or parsed into local (then released by the caller) */
static const struct columns *
columns_of(const struct cc_answerer *ar, struct columns *local)
{
	struct cc_answer_memo *m = ar->memo;

	if (!m) {
		columns_parse(ar, local);
		return local;
	}
	if (!m->columns_read) {
		columns_parse(ar, &m->columns);
		m->columns_read = 1;
	}
	return &m->columns;
}

struct cc_answer_memo *
cc_answer_memo_new(void)
{
	struct cc_answer_memo *m = cc_xmalloc(sizeof *m);

	memset(m, 0, sizeof *m);
	for (int i = 0; i < EVENT_LISTS; i++)
		m->lists[i].items = jv_invalid();
	return m;
}

void
cc_answer_memo_free(struct cc_answer_memo *m)
{
	if (!m)
		return;
	for (int i = 0; i < EVENT_LISTS; i++) {
		jv_free(m->lists[i].items);
		cc_buf_release(&m->lists[i].list);
	}
	columns_release(&m->columns);
	cc_memo_release(&m->results);
	free(m);
}

static void
event_list(const struct cc_answerer *ar, jv items, int n, const char *lang,
    struct cc_buf *list)	/* borrows items */
{
	struct cc_answer_memo *mm = ar->memo;
	struct event_list *m;

	for (int i = 0; mm && i < EVENT_LISTS; i++) {
		m = &mm->lists[i];
		if (jv_is_valid(m->items) && strcmp(m->lang, lang) == 0 &&
		    jv_identical(jv_copy(m->items), jv_copy(items))) {
			cc_buf_add(list, m->list.data, m->list.len);
			return;
		}
	}
	for (int i = 0; i < n && i < MAX_EVENTS; i++) {
		if (i)
			cc_buf_add(list, "\n\n", 2);
		jv item = jv_array_get(jv_copy(items), i);

		event_item(ar, item, lang, list);
		jv_free(item);
	}
	if (mm && strlen(lang) < sizeof m->lang) {
		m = &mm->lists[mm->next_list++ % EVENT_LISTS];
		jv_free(m->items);
		m->items = jv_copy(items);
		strcpy(m->lang, lang);
		m->list.len = 0;
		cc_buf_add(&m->list, list->data ? list->data : "", list->len);
	}
}

static void
answer_events(const struct cc_answerer *ar, struct cc_answer *a, jv events,
    const struct passages *ps, const char *category, const char *lang)
{
	jv items = member(events, "items"), errors = member(events, "errors");
	int n = jv_get_kind(items) == JV_KIND_ARRAY ? jv_array_length(jv_copy(items)) : 0;
	int failed = jv_get_kind(errors) == JV_KIND_ARRAY &&
	    jv_array_length(jv_copy(errors)) > 0;
	struct cc_buf range = {0}, list = {0};

	range_words(ar, events, lang, &range);
	if (n > 0)
		event_list(ar, items, n, lang, &list);
	if (n > MAX_EVENTS) {
		char count[16];
		struct cc_var v[] = { { "count", count, 0 }, { 0 } };

		snprintf(count, sizeof count, "%d", n - MAX_EVENTS);
		cc_texts_fill(&list, cc_texts_get(ar->texts, "events.more", lang, NULL), v);
	}
	struct cc_var vars[] = {
		{ "range", range.data ? range.data : "", 0 },
		{ "events", list.data ? list.data : "", 0 },
		{ 0 },
	};
	add_source(a, "calendar");
	add_source(a, "knowledge_base");
	if (n > 0) {
		struct cc_buf pattern = {0};

		/* a regular event by name: when it is held, then its dates */
		if (event_pattern(ar, events, ps, category, lang, &pattern) == 0) {
			struct cc_var pv[] = { { "pattern", pattern.data, pattern.len },
			    { "range", vars[0].value, 0 }, { "events", vars[1].value, 0 }, { 0 } };

			if (say(ar, a, "events.named", lang, pv) < 0)
				say(ar, a, "events.found", lang, vars);
		} else {
			say(ar, a, "events.found", lang, vars);
		}
		cc_buf_release(&pattern);
		a->confidence = 0.8;
		a->events = n;
	} else {
		int p = failed ? pick_passage(ar, ps, lang, category) : -1;

		if (p >= 0) {	/* calendar down: the knowledge base only */
			jv keep = jv_array();
			const char *id = pstr(ps, p, P_ID, &keep);
			struct cc_var pv[] = { { "passage", pstr(ps, p, P_CONTENT, &keep), 0 }, { 0 } };

			say(ar, a, "events.kb", lang, pv);
			if (id)
				a->passages = jv_array_append(a->passages, jv_string(id));
			jv_free(keep);
		} else if (closed_day(ar, a, events, lang) == 0) {
			add_source(a, "calendar");
		} else {
			int kb = pick_passage(ar, ps, lang, category);

			say(ar, a, "events.none", lang, vars);
			if (kb >= 0) {	/* none in the range: the regular ones */
				jv keep = jv_array();
				const char *id = pstr(ps, kb, P_ID, &keep);
				struct cc_var pv[] = { { "passage", pstr(ps, kb, P_CONTENT, &keep), 0 }, { 0 } };

				cc_texts_fill(&a->text, cc_texts_get(ar->texts, "events.regular",
				    lang, NULL), pv);
				if (id)
					a->passages = jv_array_append(a->passages, jv_string(id));
				jv_free(keep);
			}
		}
		a->confidence = 0.7;
	}
	cc_buf_release(&range);
	cc_buf_release(&list);
	jv_free(items);
	jv_free(errors);
}

/* ---- general knowledge (seed 002) ---- */

/* 1 if one of the |-separated words of text `key` is in the folded query. */
static int
mentions(const struct cc_answerer *ar, const char *key, const char *lang,
    const char *folded)
{
	const char *w = cc_texts_get(ar->texts, key, lang, NULL);

	while (w && *w) {
		size_t k = strcspn(w, "|");
		char word[96];
		char *fw;
		const char *hit;

		snprintf(word, sizeof word, "%.*s", (int)k, w);
		fw = cc_text_fold(word, strlen(word), NULL, 0);
		for (hit = strstr(folded, fw); hit; hit = strstr(hit + 1, fw)) {
			/* a Latin word must stand alone: "ai" is not in "said" */
			size_t n = strlen(fw);
			int latin = (fw[0] | 0x20) >= 'a' && (fw[0] | 0x20) <= 'z';
			int before = hit > folded && ((hit[-1] | 0x20) >= 'a' && (hit[-1] | 0x20) <= 'z');
			int after = ((hit[n] | 0x20) >= 'a' && (hit[n] | 0x20) <= 'z');

			if (!latin || (!before && !after))
				break;
		}
		free(fw);
		if (hit)
			return 1;
		w += k;
		if (*w == '|')
			w++;
	}
	return 0;
}

static void
answer_general(const struct cc_answerer *ar, struct cc_answer *a,
    const struct passages *ps, const char *query, size_t qlen, const char *lang)
{
	jv keep = jv_array();
	const char *passage = NULL;
	struct cc_buf web = {0};
	int nweb = 0;
	char *folded = cc_text_fold(query, qlen, NULL, 0);
	const char *tag = mentions(ar, "tag.surprised", lang, folded) ? "[surprised]" :
	    mentions(ar, "tag.happy", lang, folded) ? "[happy]" : "[relaxed]";

	for (int i = 0; i < ps->n; i++) {
		const char *src = pstr(ps, i, P_SOURCE, &keep);
		double score = 0;
		int scored = pnum(ps, i, P_SCORE, &score);

		if (src && strcmp(src, "web_search") == 0 && nweb < 3) {
			struct cc_var v[] = {
				{ "title", pstr(ps, i, P_TITLE, &keep), 0 },
				{ "snippet", pstr(ps, i, P_CONTENT, &keep), 0 },
				{ "url", pstr(ps, i, P_URL, &keep), 0 },
				{ 0 },
			};
			for (struct cc_var *x = v; x->name; x++)
				if (!x->value)
					x->value = "";
			if (nweb++)
				cc_buf_add(&web, "\n", 1);
			cc_texts_fill(&web, cc_texts_get(ar->texts, "general.web_item", lang, NULL), v);
		} else if (!passage && scored && score >= ar->general_min_score) {
			/* a weak match answers a different question: leave it */
			const char *l = pstr(ps, i, P_LANGUAGE, &keep);

			if (l && strcmp(l, lang) == 0) {
				const char *id = pstr(ps, i, P_ID, &keep);

				passage = pstr(ps, i, P_CONTENT, &keep);
				a->passages = jv_array_append(a->passages,
				    jv_string(id ? id : ""));
			}
		}
	}
	struct cc_var vars[] = {
		{ "tag", tag, 0 },
		{ "passage", passage ? passage : "", 0 },
		{ "web", web.data ? web.data : "", 0 },
		{ 0 },
	};
	if (passage && nweb) {
		say(ar, a, "general.kb_web", lang, vars);
		a->confidence = 0.9;
		add_source(a, "knowledge_base");
		add_source(a, "web_search");
	} else if (passage) {
		say(ar, a, "general.kb", lang, vars);
		a->confidence = 0.8;
		add_source(a, "knowledge_base");
	} else if (nweb) {
		say(ar, a, "general.web", lang, vars);
		a->confidence = 0.6;
		add_source(a, "web_search");
	} else {
		say(ar, a, "general.none", lang, NULL);
		a->confidence = 0.3;
		add_source(a, "fallback");
	}
	free(folded);
	cc_buf_release(&web);
	jv_free(keep);
}

/* ---- memory: what this session asked ---- */

static void
answer_memory(const struct cc_answerer *ar, struct cc_answer *a,
    struct cc_session *store, const char *session, long long this_turn,
    const char *lang, const char *pick)
{
	/*
	 * The turns before this one, not the session's newest: in the
	 * stage processes cc-route runs a pipe's worth of records ahead and
	 * has recorded turns the session asks after this question.  A
	 * record without a turn of its own (cc-route recorded none: it ran
	 * without memory, or lost its store) is answered from the newest.
	 * Reading 32 turns with their answers, as once, made a memory
	 * question cost about 200 us: only the ones listed are read.
	 */
	struct cc_turn turns[MAX_FIRST_TURNS];
	time_t since = ar->now - ar->window;
	/*
	 * "Which question did I start with?" (route.memory_turn "first")
	 * quotes the session's first turn alone, read among more turns: the
	 * others list the newest few.
	 */
	int first = pick && strcmp(pick, "first") == 0;
	int max = first ? MAX_FIRST_TURNS : MAX_MEMORY_TURNS;
	int n = !store || !session ? 0 : this_turn >= 0 ?
	    cc_session_before(store, session, this_turn, since, turns, max) :
	    cc_session_recent(store, session, since, turns, max);
	struct cc_buf list = {0};
	int listed = 0;

	if (n < 0)
		n = 0;
	/* oldest first */
	for (int i = 0; i < (first && n > 0 ? 1 : n); i++) {
		char num[16], answer[MEMORY_ANSWER_CHARS * 4 + 8];

		snprintf(num, sizeof num, "%d", ++listed);
		struct cc_var v[] = {
			{ "n", num, 0 }, { "query", turns[i].query ? turns[i].query : "", 0 },
			{ "answer", answer, 0 }, { 0 },
		};
		if (listed > 1)
			cc_buf_add(&list, "\n", 1);
		cc_texts_fill(&list, cc_texts_get(ar->texts, "memory.turn", lang, NULL), v);
		if (turns[i].answer) {
			const char *ans = turns[i].answer;

			if (*ans == '[' && strchr(ans, ']'))	/* not the emotion tag */
				ans = strchr(ans, ']') + 1;
			cc_text_excerpt(ans, MEMORY_ANSWER_CHARS, answer, sizeof answer);
			cc_texts_fill(&list, cc_texts_get(ar->texts, "memory.answer", lang,
			    NULL), v);
		}
	}
	struct cc_var vars[] = { { "turns", list.data ? list.data : "", 0 }, { 0 } };
	if (listed) {
		say(ar, a, first ? "memory.first" : "memory.list", lang, vars);
		a->confidence = 0.9;
		add_source(a, "session");
	} else {
		say(ar, a, "memory.none", lang, NULL);
		a->confidence = 0.5;
		add_source(a, "session");
	}
	cc_turns_release(turns, n > 0 ? n : 0);
	cc_buf_release(&list);
}

/* ---- clarification ---- */

/*
 * Which one was meant: the text clarify.CATEGORY (the route's category
 * says what is unclear), else the domain's general clarify text.
 */
static void
answer_clarify(const struct cc_answerer *ar, struct cc_answer *a,
    const char *category, const char *lang)
{
	char key[128];

	snprintf(key, sizeof key, "clarify.%s", category ? category : "");
	if (!category || say(ar, a, key, lang, NULL) < 0)
		say(ar, a, "clarify", lang, NULL);
	a->confidence = 0.7;
}

/* ---- the place named the way the visitor did ---- */

/* Where s has w[0..n), ASCII letters in any case; NULL if nowhere. */
static const char *
find_caseless(const char *s, const char *w, size_t n)
{
	for (; n && *s; s++) {
		size_t k = 0;

		while (k < n && s[k] && (s[k] == w[k] || ((unsigned char)s[k] < 0x80 &&
		    tolower((unsigned char)s[k]) == tolower((unsigned char)w[k]))))
			k++;
		if (k == n)
			return s;
	}
	return NULL;
}

/*
 * The text aka (LANG) pairs a name the answers use with the one visitors
 * may type instead: "NAME=OTHER | NAME=OTHER", a place's name in kana
 * and in Latin letters, say.  When the question has the other name (ASCII
 * letters in any case) and not the answer's, the answer's first mention
 * becomes aka.format {name} {other}: NAME（OTHER）.
 */
static void
name_as_asked(const struct cc_answerer *ar, struct cc_answer *a,
    const char *query, size_t qlen, const char *lang)
{
	const char *pairs = cc_texts_get(ar->texts, "aka", lang, NULL);
	const char *fmt;
	char *q;

	if (!pairs || !a->text.len || !a->text.data)
		return;
	q = cc_xmalloc(qlen + 1);	/* the record's query is not NUL-terminated */
	memcpy(q, query, qlen);
	q[qlen] = '\0';
	while (*pairs) {
		size_t n = strcspn(pairs, "|");
		const char *eq = memchr(pairs, '=', n);

		if (eq) {
			const char *name = pairs, *other = eq + 1, *at;
			size_t nl = (size_t)(eq - pairs), ol = n - (size_t)(eq + 1 - pairs);
			char nb[128], ob[128];

			while (nl && name[0] == ' ')
				name++, nl--;
			while (nl && name[nl - 1] == ' ')
				nl--;
			while (ol && other[0] == ' ')
				other++, ol--;
			while (ol && other[ol - 1] == ' ')
				ol--;
			cut(nb, sizeof nb, name, nl);
			cut(ob, sizeof ob, other, ol);
			/* the answer names it, the question the other way only */
			if (nl && ol && (at = strstr(a->text.data, nb)) &&
			    find_caseless(q, ob, strlen(ob)) && !find_caseless(q, nb, strlen(nb)) &&
			    (fmt = cc_texts_get(ar->texts, "aka.format", lang, NULL))) {
				struct cc_buf out = {0};
				struct cc_var v[] = {
					{ "name", nb, 0 }, { "other", ob, 0 }, { 0 },
				};
				size_t before = (size_t)(at - a->text.data);

				cc_buf_add(&out, a->text.data, before);
				cc_texts_fill(&out, fmt, v);
				cc_buf_add(&out, at + strlen(nb), a->text.len - before - strlen(nb));
				cc_buf_release(&a->text);
				a->text = out;
			}
		}
		pairs += n;
		if (*pairs == '|')
			pairs++;
	}
	free(q);
}

/* ---- conversation ---- */

/*
 * The route's reply (a rules output: greeting, thanks, who-are-you, a
 * question out of scope) names the text reply.VALUE, which answers by
 * itself whatever the agent; -1 when there is none, or no such text.
 */
static int
answer_reply(const struct cc_answerer *ar, struct cc_answer *a,
    const char *reply, const char *lang)
{
	char key[96];

	if (!reply || !*reply || strlen(reply) > 64)
		return -1;
	snprintf(key, sizeof key, "reply.%s", reply);
	if (say(ar, a, key, lang, NULL) < 0)
		return -1;
	a->confidence = 0.9;
	add_source(a, "conversation");
	return 0;
}

/* ---- a domain stage's own result ---- */

/*
 * A domain stage (the homework coach's) decides what to say and writes it
 * in its record member as reply {key, vars, confidence}: the key of a
 * response text and the values of its {names}; the words stay the
 * domain's data, and this only fills them in.  A stage that had to check
 * the words it chose (the coach's guard against stating an answer) gives
 * the finished reply {text, emotion, confidence} instead.
 */
static void
answer_tool(const struct cc_answerer *ar, struct cc_answer *a,
    struct cc_record *rec, const char *member_name, const char *lang)
{
	char path[160];
	jv reply, key, vars, conf, text;
	struct cc_var v[33];
	size_t n = 0;

	snprintf(path, sizeof path, "%s.reply", member_name);
	reply = cc_record_at(rec, path);
	text = member(reply, "text");
	if (jv_get_kind(text) == JV_KIND_STRING && jv_string_length_bytes(jv_copy(text)) > 0) {
		jv emo = member(reply, "emotion");
		static const char *const known[] = { "helpful", "excited", "apologetic", NULL };

		conf = member(reply, "confidence");
		a->text.len = 0;
		cc_buf_add(&a->text, jv_string_value(text),
		    (size_t)jv_string_length_bytes(jv_copy(text)));
		/* an emotion of the record contract's, as a static string */
		for (int i = 0; known[i]; i++)
			if (jv_get_kind(emo) == JV_KIND_STRING && !strcmp(jv_string_value(emo), known[i]))
				a->emotion = known[i];
		a->confidence = jv_get_kind(conf) == JV_KIND_NUMBER ? jv_number_value(conf) : 0.8;
		add_source(a, "tool");
		jv_free(emo);
		jv_free(conf);
		jv_free(text);
		jv_free(reply);
		return;
	}
	jv_free(text);
	key = member(reply, "key");
	vars = member(reply, "vars");
	conf = member(reply, "confidence");
	if (jv_get_kind(vars) == JV_KIND_OBJECT) {
		int it = jv_object_iter(vars);

		while (jv_object_iter_valid(vars, it) && n < 32) {
			jv k = jv_object_iter_key(vars, it), val = jv_object_iter_value(vars, it);

			/* the strings stay alive in vars until we return */
			if (jv_get_kind(val) == JV_KIND_STRING)
				v[n++] = (struct cc_var){ jv_string_value(k), jv_string_value(val), 0 };
			jv_free(k);
			jv_free(val);
			it = jv_object_iter_next(vars, it);
		}
	}
	v[n] = (struct cc_var){ 0 };
	if (jv_get_kind(key) == JV_KIND_STRING && say(ar, a, jv_string_value(key), lang, v) == 0) {
		a->confidence = jv_get_kind(conf) == JV_KIND_NUMBER ? jv_number_value(conf) : 0.8;
		add_source(a, "tool");
	} else {
		say(ar, a, "not_found", lang, NULL);
		a->confidence = 0.3;
		add_source(a, "fallback");
	}
	jv_free(reply);
	jv_free(key);
	jv_free(vars);
	jv_free(conf);
}

/* ---- dispatch ---- */

/*
 * Only the members answers read, as small objects: a route carries its
 * debug trace and a retrieval its context, and parsing them whole for
 * every record cost more than composing the answer.
 */
static jv
route_of(struct cc_record *rec)
{
	static const char *const keys[] = {
		"agent", "language", "category", "request_type", "reply", "opening",
		"places", "aspects", "weekday_said", "memory_turn", NULL,
	};
	const char *vals[sizeof keys / sizeof keys[0]];
	size_t lens[sizeof keys / sizeof keys[0]], len;
	const char *raw = cc_record_raw(rec, "route", &len);
	jv route = jv_object();

	if (!raw || *raw != '{') {
		jv_free(route);
		return jv_invalid();
	}
	/* from the index of the route's members: its debug trace unread */
	cc_record_members(rec, "route", raw, len, keys, vals, lens);
	/*
	 * null and [] (a route's usual opening, reply, places and aspects)
	 * are left out: every answer reads a member by its kind, and reads
	 * them as it reads a member that is absent.
	 */
	for (size_t i = 0; keys[i]; i++)
		if (vals[i] && !(lens[i] == 4 && memcmp(vals[i], "null", 4) == 0) &&
		    !(lens[i] == 2 && memcmp(vals[i], "[]", 2) == 0))
			route = jv_object_set(route, cc_jv_name(keys[i]),
			    cc_json_to_jv(vals[i], lens[i]));
	return route;
}

int
cc_answer_compose(const struct cc_answerer *ar, struct cc_record *rec,
    struct cc_session *store, struct cc_answer *a)
{
	jv route = route_of(rec), keep = jv_array();
	jv events = jv_invalid();
	struct passages ps = {0};
	size_t slen;
	/* read as text: a session's id and turn, most often two nulls */
	const char *sess = cc_record_raw_at(rec, "route.debug_info.session", &slen);
	const struct cc_domain_agent *ag;
	const char *agent, *lang, *category;
	size_t qlen;
	const char *query = cc_record_query(rec, &qlen);
	char *sid = NULL;

	if (jv_get_kind(route) != JV_KIND_OBJECT || !query) {
		jv_free(route);
		jv_free(events);
		jv_free(keep);
		return -1;
	}
	agent = rstr(route, "agent");
	lang = rstr(route, "language");
	category = rstr(route, "category");
	if (!lang || (strcmp(lang, "ja") && strcmp(lang, "en")))
		lang = "ja";	/* spec: detection failure means Japanese */
	/* an agent the manifest does not know is answered as its fallback */
	ag = cc_domain_agent(ar->domain, agent);
	if (!agent)
		agent = ag->name;
	a->emotion = "helpful";
	cut(a->language, sizeof a->language, lang, strlen(lang));
	cut(a->agent_name, sizeof a->agent_name, agent, strlen(agent));
	a->kind = ag->answer;
	a->category = member(route, "category");
	a->request_type = member(route, "request_type");
	a->turn = -1;
	if (sess && *sess == '{') {
		size_t n;
		const char *v = cc_json_member(sess, slen, "turn", &n);
		jv x;

		if (v && (*v == '-' || (*v >= '0' && *v <= '9'))) {
			x = cc_json_to_jv(v, n);
			if (jv_get_kind(x) == JV_KIND_NUMBER)
				a->turn = (long long)jv_number_value(x);
			jv_free(x);
		}
		if ((v = cc_json_member(sess, slen, "id", &n)) && *v == '"') {
			x = cc_json_to_jv(v, n);
			if (jv_get_kind(x) == JV_KIND_STRING)
				sid = cc_xstrdup(jv_string_value(x));
			jv_free(x);
		}
	}
	/* conversation: the domain's text answers by itself */
	if (answer_reply(ar, a, rstr(route, "reply"), lang) < 0)
	switch (ag->answer) {
	case CC_ANSWER_KB:
		passages_of(ar, rec, &ps);
		events = cc_record_get(rec, "events");
		answer_kb(ar, a, route, &ps, events, query, qlen, lang);
		break;
	case CC_ANSWER_EVENTS:
		passages_of(ar, rec, &ps);
		events = cc_record_get(rec, "events");
		answer_events(ar, a, events, &ps, category, lang);
		break;
	case CC_ANSWER_SEARCH:
		passages_of(ar, rec, &ps);
		answer_general(ar, a, &ps, query, qlen, lang);
		break;
	case CC_ANSWER_MEMORY:
		answer_memory(ar, a, store, sid, a->turn, lang, rstr(route, "memory_turn"));
		break;
	case CC_ANSWER_CLARIFY:
		answer_clarify(ar, a, category, lang);
		break;
	case CC_ANSWER_TIME: {
		struct cc_date_vars d;

		cc_texts_date_vars(ar->texts, lang, ar->now, &d);
		say(ar, a, "time.now", lang, d.vars);
		a->confidence = 0.95;
		add_source(a, "clock");
		break;
	}
	case CC_ANSWER_TOOL:
		answer_tool(ar, a, rec, ag->tool, lang);
		break;
	}
	if (a->kind == CC_ANSWER_KB || a->kind == CC_ANSWER_CLARIFY)
		name_as_asked(ar, a, query, qlen, lang);
	free(sid);
	passages_release(&ps);
	jv_free(route);
	jv_free(events);
	jv_free(keep);
	return 0;
}

/* ---- an optional LLM: prompts, and checking what it wrote ---- */

static const char *
text_or(const struct cc_answerer *ar, const char *key, const char *lang)
{
	const char *t = cc_texts_get(ar->texts, key, lang, NULL);

	return t ? t : "";
}

int
cc_answer_prompt(const struct cc_answerer *ar, struct cc_record *rec,
    const struct cc_answer *a, struct cc_buf *system, struct cc_buf *user)
{
	jv retrieval = cc_record_get(rec, "retrieval"), events = cc_record_get(rec, "events");
	jv keep = jv_array();
	const char *lang = a->language, *context = NULL;
	int kb = 0, web = 0, rc = 0;
	size_t qlen;
	const char *q = cc_record_query(rec, &qlen);
	struct cc_buf query = {0}, range = {0}, list = {0};

	cc_buf_add(&query, q ? q : "", q ? qlen : 0);
	for (int i = 0; i < a->nsources; i++) {
		kb |= strcmp(a->sources[i], "knowledge_base") == 0;
		web |= strcmp(a->sources[i], "web_search") == 0;
	}
	if (a->kind == CC_ANSWER_SEARCH && (kb || web)) {
		context = str(retrieval, "context", &keep);
	} else if (a->kind == CC_ANSWER_KB) {
		/* the passage the composed answer quotes, and only that one */
		jv results = member(retrieval, "results");
		int n = jv_get_kind(results) == JV_KIND_ARRAY ? jv_array_length(jv_copy(results)) : 0;
		for (int i = 0; i < n; i++) {
			jv r = jv_array_get(jv_copy(results), i);
			jv id = member(r, "id"), first = jv_array_get(jv_copy(a->passages), 0);

			if (jv_equal(jv_copy(id), jv_copy(first)))
				context = str(r, "content", &keep);
			jv_free(id);
			jv_free(first);
			jv_free(r);
		}
		jv_free(results);
	}
	if (a->kind == CC_ANSWER_EVENTS) {
		jv items = member(events, "items");
		int n = jv_get_kind(items) == JV_KIND_ARRAY ? jv_array_length(jv_copy(items)) : 0;

		range_words(ar, events, lang, &range);
		for (int i = 0; i < n && i < MAX_EVENTS; i++) {
			jv item = jv_array_get(jv_copy(items), i);

			if (i)
				cc_buf_add(&list, "\n\n", 2);
			event_item(ar, item, lang, &list);
			jv_free(item);
		}
		jv_free(items);
		struct cc_var v[] = {
			{ "query", query.data, 0 }, { "range", range.data ? range.data : "", 0 },
			{ "events", list.data ? list.data : text_or(ar, "llm.no_events", lang), 0 },
			{ "context", text_or(ar, "llm.no_context", lang), 0 }, { 0 },
		};
		cc_texts_fill(user, text_or(ar, "llm.event", lang), v);
	} else if (context && *context) {
		struct cc_var v[] = {
			{ "sources", text_or(ar, kb && web ? "llm.sources.both" : web ?
			    "llm.sources.web" : "llm.sources.kb", lang), 0 },
			{ "query", query.data, 0 }, { "context", context, 0 }, { 0 },
		};
		cc_texts_fill(user, text_or(ar, "llm.general", lang), v);
	} else {
		rc = -1;	/* nothing to ground an answer in: keep the composed one */
	}
	cc_buf_add(system, text_or(ar, "llm.system", lang), strlen(text_or(ar, "llm.system", lang)));
	cc_buf_release(&query);
	cc_buf_release(&range);
	cc_buf_release(&list);
	jv_free(retrieval);
	jv_free(events);
	jv_free(keep);
	return rc;
}

/* The digits of s with thousands separators dropped (1,700 -> 1700). */
static char *
digits_only(const char *s)
{
	size_t n, o = 0;
	char *norm = cc_text_nfkc(s, strlen(s), &n), *out;

	if (!norm)
		norm = cc_xstrdup(s), n = strlen(s);
	out = cc_xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		if (!(norm[i] == ',' && i > 0 && norm[i - 1] >= '0' && norm[i - 1] <= '9' &&
		    norm[i + 1] >= '0' && norm[i + 1] <= '9'))
			out[o++] = norm[i];
	out[o] = '\0';
	free(norm);
	return out;
}

int
cc_answer_check(const char *text, const char *grounding, char *why, size_t whylen)
{
	char *t = digits_only(text), *g = digits_only(grounding);
	int rc = 0;

	for (char *p = t; *p && rc == 0; ) {
		if (*p < '0' || *p > '9') {
			p++;
			continue;
		}
		size_t k = strspn(p, "0123456789");
		char num[32];

		snprintf(num, sizeof num, "%.*s", (int)(k < 31 ? k : 31), p);
		/* the same digits, not inside a longer number of the context */
		int found = 0;
		for (const char *h = strstr(g, num); h && !found; h = strstr(h + 1, num))
			found = (h == g || h[-1] < '0' || h[-1] > '9') &&
			    (h[k] < '0' || h[k] > '9');
		if (!found) {
			snprintf(why, whylen, "states %s, which the context does not", num);
			rc = -1;
		}
		p += k;
	}
	free(t);
	free(g);
	return rc;
}

size_t
cc_answer_tag(const char *s)
{
	static const char *const tags[] = { "[happy]", "[sad]", "[relaxed]", "[surprised]" };

	for (size_t i = 0; i < 4; i++)
		if (strncmp(s, tags[i], strlen(tags[i])) == 0)
			return strlen(tags[i]);
	return 0;
}

void
cc_answer_use_llm(struct cc_answer *a, const char *text)
{
	struct cc_buf b = {0};
	size_t k;

	while (*text == ' ' || *text == '\n')
		text++;
	/* the model dropped the tag: the rules' tag goes first */
	if (!cc_answer_tag(text) && a->text.data && (k = cc_answer_tag(a->text.data)))
		cc_buf_add(&b, a->text.data, k);
	cc_buf_add(&b, text, strlen(text));
	cc_buf_release(&a->text);
	a->text = b;
}
