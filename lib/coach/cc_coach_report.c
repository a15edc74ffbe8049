/*
 * The parent report: what a session finished today, by subject, how each
 * problem was solved, hints, points, streak, titles, and one kind sentence
 * about the child's effort.  The report is built once as a JSON object
 * (the json format) and the text and Markdown formats are written from
 * it; every word comes from coach.texts (report.*, subject.*, outcome.*).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_json.h"
#include "cc_term.h"
#include "cc_texts.h"
#include "cc_time.h"
#include "cc_coach.h"

static const char *const outcome_names[] = {
	"self_solved", "hint_solved", "guided_solved", "abandoned", NULL,
};

static int
same_day(time_t a, time_t b)
{
	return cc_date_cmp(cc_date_of(a), cc_date_of(b)) == 0;
}

static jv
num(long long n)
{
	return jv_number((double)n);
}

/* The summary of one subject's problems (from today's problems, borrowed). */
static jv
subject_summary(const struct cc_coach_data *d, jv problems, const char *subject,
    const char *lang)
{
	long long by[4] = {0}, n = 0, hints = 0, points = 0;
	char key[96];
	jv sum;

	jv_array_foreach(problems, i, p) {
		const char *s = cc_coach_get_str(p, "subject"), *o = cc_coach_get_str(p, "outcome");

		if (s && strcmp(s, subject) == 0) {
			for (int k = 0; outcome_names[k]; k++)
				if (o && strcmp(o, outcome_names[k]) == 0)
					by[k]++;
			n++;
			hints += cc_coach_get_int(p, "hints_used", 0, 1000000, 0);
			points += cc_coach_get_int(p, "points", 0, 3, 0);
		}
		jv_free(p);
	}
	sum = jv_object_set(jv_object(), jv_string("subject"), jv_string(subject));
	snprintf(key, sizeof key, "subject.%s", subject);
	if (strlen(subject) > 64 || !cc_texts_get(d->texts, key, lang, NULL))
		snprintf(key, sizeof key, "subject.other");
	sum = jv_object_set(sum, jv_string("name"), cc_coach_text(d->texts, key, lang, NULL));
	sum = jv_object_set(sum, jv_string("problems"), num(n));
	for (int k = 0; outcome_names[k]; k++)
		sum = jv_object_set(sum, jv_string(outcome_names[k]), num(by[k]));
	sum = jv_object_set(sum, jv_string("hints_used"), num(hints));
	return jv_object_set(sum, jv_string("points"), num(points));
}

/* Math, then Japanese, then the other subjects as they first come. */
static jv
subjects_of(const struct cc_coach_data *d, jv problems, const char *lang)
{
	jv names = jv_array(), subjects = jv_array();

	for (int pass = 0; pass < 3; pass++) {
		jv_array_foreach(problems, i, p) {
			const char *s = cc_coach_get_str(p, "subject");
			int is_math = strcmp(s, "math") == 0, is_ja = strcmp(s, "japanese") == 0;
			int seen = 0;

			if ((pass == 0 && is_math) || (pass == 1 && is_ja) ||
			    (pass == 2 && !is_math && !is_ja)) {
				jv_array_foreach(names, k, x) {
					seen |= strcmp(jv_string_value(x), s) == 0;
					jv_free(x);
				}
				if (!seen)
					names = jv_array_append(names, jv_string(s));
			}
			jv_free(p);
		}
	}
	jv_array_foreach(names, i, x) {
		subjects = jv_array_append(subjects,
		    subject_summary(d, problems, jv_string_value(x), lang));
		jv_free(x);
	}
	jv_free(names);
	return subjects;
}

/* The sentence about today's effort: which one says it best. */
static const char *
message_key(jv problems)
{
	int n = 0, by[4] = {0}, persevered = 0;

	jv_array_foreach(problems, i, p) {
		const char *o = cc_coach_get_str(p, "outcome");

		for (int k = 0; outcome_names[k]; k++)
			if (strcmp(o, outcome_names[k]) == 0)
				by[k]++;
		if ((strcmp(o, "self_solved") == 0 || strcmp(o, "hint_solved") == 0) &&
		    cc_coach_get_int(p, "stumbles", 0, 1000000, 0) >= 3)
			persevered = 1;
		n++;
		jv_free(p);
	}
	if (n == 0)
		return "report.message.none";
	if (persevered)
		return "report.message.persevered";
	if (by[3])
		return "report.message.abandoned";
	if (by[0] == n)
		return "report.message.self";
	if (by[2])
		return "report.message.guided";
	return "report.message.hints";
}

jv
cc_coach_report(const struct cc_coach_data *d, jv state, const char *session,
    time_t now, const char *lang)
{
	jv report = jv_object(), problems = jv_array(), list, titles;
	long long points = 0, hints = 0, seconds = 0, streak;
	struct cc_date day = cc_date_of(now);
	char date[32], key[96], nbuf[24];

	snprintf(date, sizeof date, "%04d-%02d-%02d", day.year, day.month, day.day);
	report = jv_object_set(report, jv_string("session_id"),
	    session ? jv_string(session) : jv_null());
	report = jv_object_set(report, jv_string("date"), jv_string(date));
	report = jv_object_set(report, jv_string("language"), jv_string(lang));

	/* today's finished problems */
	list = jv_get_kind(state) == JV_KIND_OBJECT ?
	    jv_object_get(jv_copy(state), jv_string("solved")) : jv_null();
	if (jv_get_kind(list) != JV_KIND_ARRAY) {
		jv_free(list);
		list = jv_array();
	}
	jv_array_foreach(list, i, p) {
		time_t at = cc_coach_get_time(p, "at");
		const char *o = cc_coach_get_str(p, "outcome"), *subject, *label;
		jv item;
		int known = 0;

		for (int k = 0; o && outcome_names[k]; k++)
			known |= strcmp(o, outcome_names[k]) == 0;
		if (!at || !same_day(at, now) || !known) {
			jv_free(p);
			continue;
		}
		subject = cc_coach_get_str(p, "subject");
		if (!subject || !*subject)
			subject = "other";
		item = jv_object_set(jv_object(), jv_string("problem_id"),
		    jv_object_get(jv_copy(p), jv_string("problem_id")));
		item = jv_object_set(item, jv_string("subject"), jv_string(subject));
		label = cc_coach_get_str(p, "expression");
		if (!label || !*label)
			label = cc_coach_get_str(p, "text");
		if (!label || !*label)
			label = cc_coach_get_str(p, "problem_id");
		item = jv_object_set(item, jv_string("label"), label && *label ?
		    jv_string(label) : cc_coach_text(d->texts, "report.unnamed", lang, NULL));
		item = jv_object_set(item, jv_string("outcome"), jv_string(o));
		snprintf(key, sizeof key, "outcome.%s", o);
		item = jv_object_set(item, jv_string("outcome_text"),
		    cc_coach_text(d->texts, key, lang, NULL));
		item = jv_object_set(item, jv_string("points"),
		    num(cc_coach_get_int(p, "points", 0, 3, 0)));
		item = jv_object_set(item, jv_string("hints_used"),
		    num(cc_coach_get_int(p, "hints_used", 0, 1000000, 0)));
		item = jv_object_set(item, jv_string("stumbles"),
		    num(cc_coach_get_int(p, "stumbles", 0, 1000000, 0)));
		item = jv_object_set(item, jv_string("time_spent_seconds"),
		    jv_object_get(jv_copy(p), jv_string("time_spent_seconds")));
		item = jv_object_set(item, jv_string("at"),
		    jv_object_get(jv_copy(p), jv_string("at")));
		points += cc_coach_get_int(p, "points", 0, 3, 0);
		hints += cc_coach_get_int(p, "hints_used", 0, 1000000, 0);
		seconds += cc_coach_get_int(p, "time_spent_seconds", 0, 100000000, 0);
		problems = jv_array_append(problems, item);
		jv_free(p);
	}
	jv_free(list);
	report = jv_object_set(report, jv_string("problems_total"),
	    num(jv_array_length(jv_copy(problems))));
	report = jv_object_set(report, jv_string("points_today"), num(points));
	report = jv_object_set(report, jv_string("hints_used_today"), num(hints));
	report = jv_object_set(report, jv_string("minutes_today"), num((seconds + 30) / 60));
	report = jv_object_set(report, jv_string("total_points"),
	    num(cc_coach_get_int(state, "total_points", 0, 1000000000000000LL, 0)));
	streak = cc_coach_get_int(state, "streak", 0, 1000000000, 0);
	report = jv_object_set(report, jv_string("streak"), num(streak));
	report = jv_object_set(report, jv_string("best_streak"),
	    num(cc_coach_get_int(state, "best_streak", 0, 1000000000, 0)));

	/* the titles unlocked today */
	titles = jv_array();
	list = jv_get_kind(state) == JV_KIND_OBJECT ?
	    jv_object_get(jv_copy(state), jv_string("achievements")) : jv_null();
	if (jv_get_kind(list) == JV_KIND_ARRAY) {
		jv_array_foreach(list, i, a) {
			const char *id = cc_coach_get_str(a, "id");
			time_t at = cc_coach_get_time(a, "at");

			if (id && at && same_day(at, now) && strlen(id) < 64) {
				snprintf(key, sizeof key, "achievement.%s", id);
				titles = jv_array_append(titles, jv_object_set(jv_object_set(
				    jv_object_set(jv_object(), jv_string("id"), jv_string(id)),
				    jv_string("title"), cc_coach_text(d->texts, key, lang, NULL)),
				    jv_string("at"), jv_object_get(jv_copy(a), jv_string("at"))));
			}
			jv_free(a);
		}
	}
	jv_free(list);

	{
		jv msg = cc_coach_text(d->texts, message_key(problems), lang, NULL);

		snprintf(nbuf, sizeof nbuf, "%lld", streak);
		if (streak >= 3 && jv_array_length(jv_copy(problems)) > 0) {
			struct cc_var v[] = { { "message", jv_string_value(msg), 0 },
				{ "streak", nbuf, 0 }, { NULL, NULL, 0 } };
			jv with = cc_coach_text(d->texts, "report.message.with_streak", lang, v);

			jv_free(msg);
			msg = with;
		}
		report = jv_object_set(report, jv_string("subjects"),
		    subjects_of(d, problems, lang));
		report = jv_object_set(report, jv_string("problems"), problems);
		report = jv_object_set(report, jv_string("achievements"), titles);
		report = jv_object_set(report, jv_string("message"), msg);
	}
	return report;
}

/* ---- writing it ---- */

struct writer {
	const struct cc_coach_data *d;
	const char *lang;
	enum cc_coach_format format;
	struct cc_buf *out;
};

/*
 * Untrusted text (labels come from the session's state) for a terminal,
 * and in Markdown with its syntax characters escaped as well.
 */
static void
put_text(struct writer *w, const char *s)
{
	struct cc_buf md = {0};

	if (w->format == CC_COACH_MARKDOWN) {
		for (const char *p = s; *p; p++) {
			/* what acts mid-line: a label never begins a line */
			if (strchr("\\`*_[]<>|~", *p))
				cc_buf_add(&md, "\\", 1);
			cc_buf_add(&md, p, 1);
		}
		s = md.data ? md.data : "";
	}
	cc_term_escape(w->out, s, strlen(s), 0);
	cc_buf_release(&md);
}

/* A text of coach.texts with vars, its values escaped as put_text does. */
static void
put_texts(struct writer *w, const char *key, const struct cc_var *vars)
{
	const char *tmpl = cc_texts_get(w->d->texts, key, w->lang, NULL);

	if (!tmpl)
		return;
	/* the template is ours: fill it, then escape only what filled it */
	while (*tmpl) {
		const char *open = strchr(tmpl, '{'), *close;
		const struct cc_var *v = vars;
		size_t k;

		if (!open || !(close = strchr(open, '}'))) {
			cc_buf_add(w->out, tmpl, strlen(tmpl));
			break;
		}
		cc_buf_add(w->out, tmpl, (size_t)(open - tmpl));
		k = (size_t)(close - open - 1);
		for (; v && v->name; v++)
			if (strlen(v->name) == k && memcmp(v->name, open + 1, k) == 0)
				break;
		if (v && v->name)
			put_text(w, v->value ? v->value : "");
		else
			cc_buf_add(w->out, open, k + 2);
		tmpl = close + 1;
	}
}

static void
nl(struct writer *w)
{
	cc_buf_add(w->out, "\n", 1);
}

/* A number member of obj as decimal text in buf. */
static const char *
numtext(jv obj, const char *key, char *buf, size_t len)
{
	snprintf(buf, len, "%lld", cc_coach_get_int(obj, key, 0, 1000000000000000LL, 0));
	return buf;
}

/* "自分で 2問、ヒントで 1問": the subject's problems by outcome. */
static void
breakdown(struct writer *w, jv sum, struct cc_buf *b)
{
	const char *sep = cc_texts_get(w->d->texts, "report.separator", w->lang, NULL);
	char n[24], key[64];
	int first = 1;

	for (int k = 0; outcome_names[k]; k++) {
		struct cc_var v[] = { { "n", n, 0 }, { NULL, NULL, 0 } };
		jv t;

		if (cc_coach_get_int(sum, outcome_names[k], 0, 1000000000, 0) == 0)
			continue;
		numtext(sum, outcome_names[k], n, sizeof n);
		snprintf(key, sizeof key, "report.count.%s", outcome_names[k]);
		t = cc_coach_text(w->d->texts, key, w->lang, v);
		if (!first && sep)
			cc_buf_add(b, sep, strlen(sep));
		cc_buf_add(b, jv_string_value(t), (size_t)jv_string_length_bytes(jv_copy(t)));
		jv_free(t);
		first = 0;
	}
	if (!b->data)
		cc_buf_add(b, "", 0);
}

static void
write_subject(struct writer *w, jv sum, jv problems)
{
	const char *subject = cc_coach_get_str(sum, "subject");
	char n[24], h[24], p[24];
	struct cc_buf detail = {0};

	breakdown(w, sum, &detail);
	{
		struct cc_var v[] = {
			{ "subject", cc_coach_get_str(sum, "name"), 0 },
			{ "count", numtext(sum, "problems", n, sizeof n), 0 },
			{ "detail", detail.data, 0 },
			{ "hints", numtext(sum, "hints_used", h, sizeof h), 0 },
			{ "points", numtext(sum, "points", p, sizeof p), 0 },
			{ NULL, NULL, 0 },
		};

		cc_buf_add(w->out, w->format == CC_COACH_MARKDOWN ? "## " : "", w->format ==
		    CC_COACH_MARKDOWN ? 3 : 0);
		put_texts(w, "report.subject", v);
		nl(w);
		if (w->format == CC_COACH_MARKDOWN)
			nl(w);
	}
	cc_buf_release(&detail);
	jv_array_foreach(problems, i, pr) {
		const char *s = cc_coach_get_str(pr, "subject");

		if (s && subject && strcmp(s, subject) == 0) {
			struct cc_var v[] = {
				{ "label", cc_coach_get_str(pr, "label"), 0 },
				{ "outcome", cc_coach_get_str(pr, "outcome_text"), 0 },
				{ "hints", numtext(pr, "hints_used", h, sizeof h), 0 },
				{ "points", numtext(pr, "points", p, sizeof p), 0 },
				{ NULL, NULL, 0 },
			};

			cc_buf_add(w->out, w->format == CC_COACH_MARKDOWN ? "- " : "  - ",
			    w->format == CC_COACH_MARKDOWN ? 2 : 4);
			put_texts(w, "report.problem", v);
			nl(w);
		}
		jv_free(pr);
	}
	nl(w);
}

/* A summary line: "- " in Markdown, plain in text. */
static void
line(struct writer *w, const char *key, const struct cc_var *v)
{
	if (w->format == CC_COACH_MARKDOWN)
		cc_buf_add(w->out, "- ", 2);
	put_texts(w, key, v);
	nl(w);
}

void
cc_coach_report_write(const struct cc_coach_data *d, jv report,
    enum cc_coach_format format, struct cc_buf *out)
{
	struct writer w = { d, cc_coach_get_str(report, "language"), format, out };
	jv subjects, problems, titles;
	char y[8], m[8], dd[8], m2[8], d2[8], a[24], b[24], c[24];
	const char *date = cc_coach_get_str(report, "date");

	if (format == CC_COACH_JSON) {
		cc_json_put(out, report);
		nl(&w);
		return;
	}
	if (!w.lang)
		w.lang = "ja";
	snprintf(y, sizeof y, "%.4s", date ? date : "");
	snprintf(m, sizeof m, "%d", date && strlen(date) >= 10 ? atoi(date + 5) : 0);
	snprintf(dd, sizeof dd, "%d", date && strlen(date) >= 10 ? atoi(date + 8) : 0);
	snprintf(m2, sizeof m2, "%02d", atoi(m));
	snprintf(d2, sizeof d2, "%02d", atoi(dd));
	{
		struct cc_var v[] = { { "year", y, 0 }, { "month", m, 0 }, { "day", dd, 0 },
			{ "month2", m2, 0 }, { "day2", d2, 0 }, { NULL, NULL, 0 } };

		if (format == CC_COACH_MARKDOWN)
			cc_buf_add(out, "# ", 2);
		put_texts(&w, "report.title", v);
		nl(&w);
		nl(&w);
	}
	subjects = jv_object_get(jv_copy(report), jv_string("subjects"));
	problems = jv_object_get(jv_copy(report), jv_string("problems"));
	if (jv_get_kind(subjects) == JV_KIND_ARRAY && jv_array_length(jv_copy(subjects)) > 0) {
		jv_array_foreach(subjects, i, s) {
			write_subject(&w, s, problems);
			jv_free(s);
		}
	} else {
		put_texts(&w, "report.none", NULL);
		nl(&w);
		nl(&w);
	}
	jv_free(subjects);
	jv_free(problems);
	{
		struct cc_var v[] = {
			{ "today", numtext(report, "points_today", a, sizeof a), 0 },
			{ "total", numtext(report, "total_points", b, sizeof b), 0 },
			{ NULL, NULL, 0 },
		};
		line(&w, "report.points", v);
	}
	{
		struct cc_var v[] = {
			{ "streak", numtext(report, "streak", a, sizeof a), 0 },
			{ "best", numtext(report, "best_streak", b, sizeof b), 0 },
			{ NULL, NULL, 0 },
		};
		line(&w, "report.streak", v);
	}
	if (cc_coach_get_int(report, "minutes_today", 0, 1000000000, 0) > 0) {
		struct cc_var v[] = {
			{ "minutes", numtext(report, "minutes_today", c, sizeof c), 0 },
			{ NULL, NULL, 0 },
		};
		line(&w, "report.time", v);
	}
	titles = jv_object_get(jv_copy(report), jv_string("achievements"));
	if (jv_get_kind(titles) == JV_KIND_ARRAY && jv_array_length(jv_copy(titles)) > 0) {
		const char *sep = cc_texts_get(d->texts, "report.separator", w.lang, NULL);
		struct cc_buf list = {0};

		jv_array_foreach(titles, i, t) {
			const char *s = cc_coach_get_str(t, "title");

			if (i > 0 && sep)
				cc_buf_add(&list, sep, strlen(sep));
			if (s)
				cc_buf_add(&list, s, strlen(s));
			jv_free(t);
		}
		{
			struct cc_var v[] = { { "titles", list.data ? list.data : "", 0 },
				{ NULL, NULL, 0 } };
			line(&w, "report.achievements", v);
		}
		cc_buf_release(&list);
	}
	jv_free(titles);
	nl(&w);
	{
		struct cc_var v[] = { { "message", cc_coach_get_str(report, "message"), 0 },
			{ NULL, NULL, 0 } };

		if (format == CC_COACH_MARKDOWN)
			cc_buf_add(out, "> ", 2);
		put_texts(&w, "report.closing", v);
		nl(&w);
	}
}
