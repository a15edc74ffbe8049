/*
 * record_progress: the seed's points (3 self_solved, 2 hint_solved, 1
 * guided_solved; ours: 0 abandoned), a streak of problems solved by the
 * child (self or with hints) that a guided or abandoned problem breaks,
 * today's finished problems for the recap, and achievements whose
 * thresholds are data.  In the original the streak counts every record
 * and never resets, and achievement_unlocked is always null.
 *
 * Finishing a problem ends it: the hint level goes back to 0 and the
 * current problem is cleared, so the next one starts fresh.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_texts.h"
#include "cc_coach.h"

static const struct {
	const char *name;
	int points;
	int solved;		/* counts as solved by the child */
	int keeps_streak;
} outcomes[] = {
	{ "self_solved", 3, 1, 1 },
	{ "hint_solved", 2, 1, 1 },
	{ "guided_solved", 1, 1, 0 },
	{ "abandoned", 0, 0, 0 },
};
#define NOUTCOMES (sizeof outcomes / sizeof outcomes[0])

/*
 * What an achievement can count (the achievements file's METRIC): the
 * counters of the state's "counts" object, or a top-level number.
 */
enum metric {
	M_SOLVED,		/* self + hint + guided */
	M_SELF,			/* counts.self_solved */
	M_HINT,			/* counts.hint_solved */
	M_GUIDED,		/* counts.guided_solved */
	M_NO_HINT,		/* solved with no hint: counts.no_hint */
	M_PERSEVERED,		/* solved by the child after 3+ stumbles */
	M_MATH,			/* solved math problems: counts.math */
	M_JAPANESE,		/* solved Japanese problems: counts.japanese */
	M_POINTS,		/* total_points */
	M_STREAK,		/* streak */
	M_NMETRICS
};
static const char *const metric_names[M_NMETRICS] = {
	"solved", "self_solved", "hint_solved", "guided_solved", "no_hint",
	"persevered", "solved_math", "solved_japanese", "total_points", "streak",
};
/* A problem counts as persevered when solved after this many stumbles. */
#define PERSEVERED_STUMBLES 3

int
cc_coach_achievements_load(const char *path, struct cc_coach_achievement **out,
    size_t *n, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *p, *id, *metric, *threshold, *end;
	const char *why = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0;

	*out = NULL;
	*n = 0;
	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	while (!why && (len = getline(&line, &cap, f)) >= 0) {
		long long t;
		int m;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		id = cc_word(&p);
		metric = cc_word(&p);
		threshold = cc_word(&p);
		if (!*threshold || *cc_word(&p)) {
			why = "expected 'ID METRIC THRESHOLD'";
			break;
		}
		for (const char *c = id; *c; c++)
			if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '_')
				why = "the id must be lower-case letters, digits and _";
		for (m = 0; m < M_NMETRICS; m++)
			if (strcmp(metric, metric_names[m]) == 0)
				break;
		if (m == M_NMETRICS)
			why = "unknown metric (solved, self_solved, hint_solved, "
			    "guided_solved, no_hint, persevered, solved_math, "
			    "solved_japanese, total_points, streak)";
		errno = 0;
		t = strtoll(threshold, &end, 10);
		if (*end || errno || t < 1 || t > 1000000000)
			why = "the threshold must be a whole number from 1 to 1000000000";
		for (size_t i = 0; !why && i < *n; i++)
			if (strcmp((*out)[i].id, id) == 0)
				why = "this id is already defined";
		if (why)
			break;
		*out = cc_xrealloc(*out, (*n + 1) * sizeof **out);
		(*out)[*n].id = cc_xstrdup(id);
		(*out)[*n].metric = m;
		(*out)[*n].threshold = t;
		(*n)++;
	}
	free(line);
	fclose(f);
	if (why) {
		snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
		for (size_t i = 0; i < *n; i++)
			free((*out)[i].id);
		free(*out);
		*out = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

static long long
count(jv state, const char *key)
{
	jv counts = jv_object_get(jv_copy(state), cc_jv_name("counts"));
	long long n = cc_coach_get_int(counts, key, 0, 1000000000, 0);

	jv_free(counts);
	return n;
}

long long
cc_coach_metric_value(int metric, jv state)
{
	if (jv_get_kind(state) != JV_KIND_OBJECT)
		return 0;
	switch (metric) {
	case M_SOLVED:
		return count(state, "self_solved") + count(state, "hint_solved") +
		    count(state, "guided_solved");
	case M_SELF:
		return count(state, "self_solved");
	case M_HINT:
		return count(state, "hint_solved");
	case M_GUIDED:
		return count(state, "guided_solved");
	case M_NO_HINT:
		return count(state, "no_hint");
	case M_PERSEVERED:
		return count(state, "persevered");
	case M_MATH:
		return count(state, "math");
	case M_JAPANESE:
		return count(state, "japanese");
	case M_POINTS:
		return cc_coach_get_int(state, "total_points", 0, 1000000000000000LL, 0);
	case M_STREAK:
		return cc_coach_get_int(state, "streak", 0, 1000000000, 0);
	}
	return 0;
}

static jv
bump(jv counts, const char *key)
{
	long long n = cc_coach_get_int(counts, key, 0, 1000000000, 0);

	if (n < 1000000000)
		n++;
	return jv_object_set(counts, cc_jv_name(key), jv_number((double)n));
}

/* 1 if id is among the n ids of the state's unlocked achievements. */
static int
unlocked(const char *const *ids, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(ids[i], id) == 0)
			return 1;
	return 0;
}

/* Unlock what the state now reaches; the new ones as [{id, title}]. */
static jv
unlock(const struct cc_coach_data *d, jv *state, time_t now, const char *lang)
{
	jv list = jv_object_get(jv_copy(*state), cc_jv_name("achievements")), news = jv_array();
	jv held;
	const char **ids;
	size_t n = 0;
	char key[160];
	long long value[M_NMETRICS];
	int known[M_NMETRICS] = {0};

	if (jv_get_kind(list) != JV_KIND_ARRAY) {
		jv_free(list);
		list = jv_array();
	}
	/* the ids unlocked before, read once (held keeps their strings) */
	held = jv_copy(list);
	ids = cc_xmalloc(((size_t)jv_array_length(jv_copy(held)) + 1) * sizeof *ids);
	jv_array_foreach(held, i, a) {
		const char *s = jv_get_kind(a) == JV_KIND_STRING ? jv_string_value(a) :
		    cc_coach_get_str(a, "id");

		if (s)
			ids[n++] = s;
		jv_free(a);
	}
	for (size_t i = 0; i < d->nachievements; i++) {
		const struct cc_coach_achievement *a = &d->achievements[i];

		/* (the ids are unique: one unlocked here is never asked again) */
		if (unlocked(ids, n, a->id))
			continue;
		/* each metric read once: the state does not change in this loop */
		if (!known[a->metric]) {
			value[a->metric] = cc_coach_metric_value(a->metric, *state);
			known[a->metric] = 1;
		}
		if (value[a->metric] < a->threshold)
			continue;
		list = jv_array_append(list, jv_object_set(jv_object_set(jv_object(),
		    cc_jv_name("id"), jv_string(a->id)), cc_jv_name("at"), cc_coach_time_jv(now)));
		snprintf(key, sizeof key, "achievement.%s", a->id);
		news = jv_array_append(news, jv_object_set(jv_object_set(jv_object(),
		    cc_jv_name("id"), jv_string(a->id)), cc_jv_name("title"),
		    cc_coach_text(d->texts, key, lang, NULL)));
	}
	free(ids);
	jv_free(held);
	*state = jv_object_set(*state, cc_jv_name("achievements"), list);
	return news;
}

/* The encouragement: the outcome's praise, the streak, a new title. */
static jv
encouragement(const struct cc_coach_data *d, const char *outcome, long long streak,
    jv news, const char *lang)
{
	char key[64], n[24];
	jv msg;

	snprintf(key, sizeof key, "praise.%s", outcome);
	msg = cc_coach_text(d->texts, key, lang, NULL);
	if (streak >= 3) {
		struct cc_var v[] = { { "message", jv_string_value(msg), 0 },
			{ "streak", n, 0 }, { NULL, NULL, 0 } };
		jv with;

		snprintf(n, sizeof n, "%lld", streak);
		with = cc_coach_text(d->texts, "praise.with_streak", lang, v);
		jv_free(msg);
		msg = with;
	}
	if (jv_array_length(jv_copy(news)) > 0) {
		jv title = jv_object_get(jv_array_get(jv_copy(news), 0), cc_jv_name("title"));
		struct cc_var v[] = { { "message", jv_string_value(msg), 0 },
			{ "title", jv_string_value(title), 0 }, { NULL, NULL, 0 } };
		jv with = cc_coach_text(d->texts, "praise.with_achievement", lang, v);

		jv_free(msg);
		jv_free(title);
		msg = with;
	}
	return msg;
}

/* Copy the string member key of from (if any) into to; borrows from. */
static jv
copy_str(jv to, jv from, const char *key)
{
	const char *s = cc_coach_get_str(from, key);

	return s ? jv_object_set(to, cc_jv_name(key), jv_string(s)) : to;
}

static const char *const extra[] = { "subject", "topic", "expression", "text", NULL };

static void progress_do(const struct cc_coach_data *d, int o, const char *pid,
	int has_hints, double hints_arg, int has_secs, double secs_arg, jv args,
	const char *lang, jv *state, time_t now, struct cc_coach_progress *p, int want);
static jv progress_result(struct cc_coach_progress *p);

jv
cc_coach_record_progress(const struct cc_coach_data *d, jv args, jv *state,
    time_t now)
{
	struct cc_coach_progress p;
	const char *outcome, *lang, *s;
	char pid[256], ignored[256];
	double hints_arg = 0, secs_arg = 0;
	int has_hints, has_secs, rc, o;
	jv err = jv_invalid();

	if (jv_get_kind(args) != JV_KIND_OBJECT)
		return cc_coach_error("the arguments must be a JSON object");
	if (cc_coach_arg_id(args, "user_id", ignored, sizeof ignored, &err) < 0 ||
	    cc_coach_arg_id(args, "session_id", ignored, sizeof ignored, &err) < 0 ||
	    cc_coach_arg_id(args, "problem_id", pid, sizeof pid, &err) < 0 ||
	    (has_hints = cc_coach_arg_num(args, "hints_used", 0, 1000000, &hints_arg, &err)) < 0 ||
	    (has_secs = cc_coach_arg_num(args, "time_spent_seconds", 0, 1e8, &secs_arg, &err)) < 0 ||
	    cc_coach_arg_lang(args, &lang, &err) < 0)
		return err;
	for (int i = 0; extra[i]; i++)
		if (cc_coach_arg_str(args, extra[i], i < 2 ? 64 : 1000, &s, &err) < 0)
			return err;
	rc = cc_coach_arg_str(args, "outcome", 64, &outcome, &err);
	if (rc < 0) {
		/* the original's message, whatever the type */
		struct cc_buf b = {0};
		jv v = jv_object_get(jv_copy(args), cc_jv_name("outcome"));

		jv_free(err);
		cc_json_put(&b, v);
		jv_free(v);
		err = cc_coach_error("Unknown outcome: %.200s", b.data);
		cc_buf_release(&b);
		return err;
	}
	if (rc == 0)
		return cc_coach_error("missing argument: outcome");
	for (o = 0; o < (int)NOUTCOMES; o++)
		if (strcmp(outcome, outcomes[o].name) == 0)
			break;
	if (o == (int)NOUTCOMES)
		return cc_coach_error("Unknown outcome: %.200s", outcome);
	progress_do(d, o, pid, has_hints, hints_arg, has_secs, secs_arg, args, lang,
	    state, now, &p, 1);
	return progress_result(&p);
}

int
cc_coach_progress_step(const struct cc_coach_data *d, const char *outcome,
    const char *pid, const char *lang, jv *state, time_t now,
    struct cc_coach_progress *p)
{
	struct cc_coach_progress none;
	size_t n = pid ? strlen(pid) : 0;
	int o;

	if (p)
		p->message = p->news = jv_invalid();
	for (o = 0; o < (int)NOUTCOMES; o++)
		if (strcmp(outcome, outcomes[o].name) == 0)
			break;
	/* what cc_coach_arg_id refuses (the tool's error, nothing changed) */
	if ((pid && (n == 0 || n > 200)) || o == (int)NOUTCOMES)
		return -1;
	progress_do(d, o, pid ? pid : "", 0, 0, 0, 0, jv_null(), lang, state, now,
	    p ? p : &none, p != NULL);
	if (!p)
		cc_coach_progress_release(&none);
	return 0;
}

jv
cc_coach_progress_step_jv(const struct cc_coach_data *d, const char *outcome,
    const char *pid, const char *lang, jv *state, time_t now)
{
	struct cc_coach_progress p;
	size_t n = pid ? strlen(pid) : 0;

	if (pid && (n == 0 || n > 200))
		return cc_coach_error("problem_id must be a non-empty string of at most "
		    "200 bytes or an integer");
	if (cc_coach_progress_step(d, outcome, pid, lang, state, now, &p) < 0)
		return cc_coach_error("Unknown outcome: %.200s", outcome);
	return progress_result(&p);
}

/*
 * record_progress once its arguments are read: the outcome's index, pid
 * ("" for none), hints_used and time_spent_seconds when given, the
 * problem's fields from args (borrows; none when it is no object), lang.
 */
static void
progress_do(const struct cc_coach_data *d, int o, const char *pid, int has_hints,
    double hints_arg, int has_secs, double secs_arg, jv args, const char *lang,
    jv *state, time_t now, struct cc_coach_progress *p, int want)
{
	const char *outcome = outcomes[o].name, *s;
	jv st, problem, counts, entry, solved, news;
	long long points, total, streak, best, hints, stumbles;

	/* taken, not copied (as manage_hint's): replaced below */
	if (jv_get_kind(*state) == JV_KIND_OBJECT) {
		st = *state;
		*state = jv_invalid();
	} else {
		st = jv_object();
	}
	/* the problem: the current one, unless the arguments name another */
	problem = jv_object_get(jv_copy(st), cc_jv_name("problem"));
	s = cc_coach_get_str(problem, "id");
	if (jv_get_kind(problem) != JV_KIND_OBJECT || (*pid && (!s || strcmp(s, pid) != 0))) {
		jv_free(problem);
		problem = *pid ? jv_object_set(jv_object(), cc_jv_name("id"), jv_string(pid)) :
		    jv_object();
	}
	for (int i = 0; extra[i]; i++)
		problem = copy_str(problem, args, extra[i]);

	points = outcomes[o].points;
	total = cc_coach_get_int(st, "total_points", 0, 1000000000000000LL, 0) + points;
	streak = outcomes[o].keeps_streak ?
	    cc_coach_get_int(st, "streak", 0, 1000000000, 0) + 1 : 0;
	best = cc_coach_get_int(st, "best_streak", 0, 1000000000, 0);
	if (streak > best)
		best = streak;
	hints = has_hints ? (long long)hints_arg :
	    cc_coach_get_int(problem, "hints_used", 0, 1000000, 0);
	stumbles = cc_coach_get_int(problem, "stumbles", 0, 1000000, 0);
	if (!has_secs) {
		time_t started = cc_coach_get_time(problem, "started_at");

		has_secs = started && now >= started;
		secs_arg = has_secs ? (double)(now - started) : 0;
	}

	counts = jv_object_get(jv_copy(st), cc_jv_name("counts"));
	if (jv_get_kind(counts) != JV_KIND_OBJECT) {
		jv_free(counts);
		counts = jv_object();
	}
	counts = bump(counts, outcome);
	if (outcomes[o].solved) {
		s = cc_coach_get_str(problem, "subject");
		if (hints == 0)
			counts = bump(counts, "no_hint");
		if (outcomes[o].keeps_streak && stumbles >= PERSEVERED_STUMBLES)
			counts = bump(counts, "persevered");
		if (s && (strcmp(s, "math") == 0 || strcmp(s, "japanese") == 0))
			counts = bump(counts, s);
	}

	/* today's recap: what was finished, how, when */
	entry = jv_object();
	s = cc_coach_get_str(problem, "id");
	entry = jv_object_set(entry, cc_jv_name("problem_id"), s ? jv_string(s) : jv_null());
	for (int i = 0; extra[i]; i++)
		entry = copy_str(entry, problem, extra[i]);
	entry = jv_object_set(entry, cc_jv_name("outcome"), jv_string(outcome));
	entry = jv_object_set(entry, cc_jv_name("points"), jv_number((double)points));
	entry = jv_object_set(entry, cc_jv_name("hints_used"), jv_number((double)hints));
	entry = jv_object_set(entry, cc_jv_name("stumbles"), jv_number((double)stumbles));
	entry = jv_object_set(entry, cc_jv_name("time_spent_seconds"),
	    has_secs ? jv_number((double)(long long)secs_arg) : jv_null());
	entry = jv_object_set(entry, cc_jv_name("at"), cc_coach_time_jv(now));
	solved = jv_object_get(jv_copy(st), cc_jv_name("solved"));
	if (jv_get_kind(solved) != JV_KIND_ARRAY) {
		jv_free(solved);
		solved = jv_array();
	}
	solved = jv_array_append(solved, entry);
	if (jv_array_length(jv_copy(solved)) > CC_COACH_MAX_SOLVED) {
		int n = jv_array_length(jv_copy(solved));

		solved = jv_array_slice(solved, n - CC_COACH_MAX_SOLVED, n);
	}

	st = jv_object_set(st, cc_jv_name("total_points"), jv_number((double)total));
	st = jv_object_set(st, cc_jv_name("streak"), jv_number((double)streak));
	st = jv_object_set(st, cc_jv_name("best_streak"), jv_number((double)best));
	st = jv_object_set(st, cc_jv_name("counts"), counts);
	st = jv_object_set(st, cc_jv_name("solved"), solved);
	/* the problem is over: the next one starts without hints */
	st = jv_object_set(st, cc_jv_name("hint_level"), jv_number(0));
	st = jv_object_delete(st, cc_jv_name("problem"));
	cc_coach_state_touch(&st, now);
	news = unlock(d, &st, now, lang);
	jv_free(problem);

	p->points = points;
	p->total = total;
	p->streak = streak;
	/* the message only for a result that is shown */
	p->message = want ? encouragement(d, outcome, streak, news, lang) : jv_invalid();
	p->news = news;
	jv_free(*state);
	*state = st;
}

/* The first new achievement's title, or null; borrows p. */
static jv
unlocked_title(const struct cc_coach_progress *p)
{
	if (jv_array_length(jv_copy(p->news)) > 0)
		return jv_object_get(jv_array_get(jv_copy(p->news), 0), cc_jv_name("title"));
	return jv_null();
}

/* The tool's result object; consumes p. */
static jv
progress_result(struct cc_coach_progress *p)
{
	jv result = jv_object();

	result = jv_object_set(result, cc_jv_name("points_earned"), jv_number((double)p->points));
	result = jv_object_set(result, cc_jv_name("total_points"), jv_number((double)p->total));
	result = jv_object_set(result, cc_jv_name("streak"), jv_number((double)p->streak));
	result = jv_object_set(result, cc_jv_name("achievement_unlocked"), unlocked_title(p));
	result = jv_object_set(result, cc_jv_name("encouragement_message"), p->message);
	result = jv_object_set(result, cc_jv_name("achievements_new"), p->news);
	p->message = p->news = jv_invalid();
	return result;
}

void
cc_coach_progress_write(const struct cc_coach_progress *p, struct cc_jw *w)
{
	jv title = unlocked_title(p);

	cc_jw_object(w);
	cc_jw_key(w, "points_earned");
	cc_jw_num(w, (double)p->points);
	cc_jw_key(w, "total_points");
	cc_jw_num(w, (double)p->total);
	cc_jw_key(w, "streak");
	cc_jw_num(w, (double)p->streak);
	cc_jw_key(w, "achievement_unlocked");
	cc_jw_jv(w, title);
	cc_jw_key(w, "encouragement_message");
	cc_jw_jv(w, p->message);
	cc_jw_key(w, "achievements_new");
	cc_jw_jv(w, p->news);
	cc_jw_end(w);
	jv_free(title);
}

void
cc_coach_progress_release(struct cc_coach_progress *p)
{
	jv_free(p->message);
	jv_free(p->news);
	p->message = p->news = jv_invalid();
}

/* ---- on fields (the stage's kept sessions, cc_coach_fields.c) ---- */

static long long
metric_fields(int metric, const struct cc_coach_fields *f)
{
	switch (metric) {
	case M_SOLVED:
		return cc_coach_fields_count(f, "self_solved") +
		    cc_coach_fields_count(f, "hint_solved") +
		    cc_coach_fields_count(f, "guided_solved");
	case M_SELF:
		return cc_coach_fields_count(f, "self_solved");
	case M_HINT:
		return cc_coach_fields_count(f, "hint_solved");
	case M_GUIDED:
		return cc_coach_fields_count(f, "guided_solved");
	case M_NO_HINT:
		return cc_coach_fields_count(f, "no_hint");
	case M_PERSEVERED:
		return cc_coach_fields_count(f, "persevered");
	case M_MATH:
		return cc_coach_fields_count(f, "math");
	case M_JAPANESE:
		return cc_coach_fields_count(f, "japanese");
	case M_POINTS:
		return cc_coach_fields_int(f, F_TOTAL_POINTS, 0, 1000000000000000LL, 0);
	case M_STREAK:
		return cc_coach_fields_int(f, F_STREAK, 0, 1000000000, 0);
	}
	return 0;
}

/* unlock() on fields; the new ones as [{id, title}]. */
static jv
unlock_fields(const struct cc_coach_data *d, struct cc_coach_fields *f,
    const char *t, const char *lang)
{
	jv news = jv_array();
	char key[160];
	long long value[M_NMETRICS];
	int known[M_NMETRICS] = {0}, had;

	if (!cc_coach_fields_has(f, F_ACHIEVEMENTS))
		f->nach = 0;
	had = f->nach;
	for (size_t i = 0; i < d->nachievements; i++) {
		const struct cc_coach_achievement *a = &d->achievements[i];
		int seen = 0;

		for (int k = 0; k < had && !seen; k++)
			seen = strcmp(f->ach[k].id, a->id) == 0;
		if (seen)
			continue;
		if (!known[a->metric]) {
			value[a->metric] = metric_fields(a->metric, f);
			known[a->metric] = 1;
		}
		if (value[a->metric] < a->threshold)
			continue;
		if (f->nach == f->cap) {
			f->cap = f->cap ? 2 * f->cap : 4;
			f->ach = cc_xrealloc(f->ach, (size_t)f->cap * sizeof *f->ach);
		}
		/* (ids that do not fit: cc_coach_fields_usable refuses the data) */
		snprintf(f->ach[f->nach].id, sizeof f->ach[0].id, "%s", a->id);
		snprintf(f->ach[f->nach].at, sizeof f->ach[0].at, "%s", t);
		f->nach++;
		snprintf(key, sizeof key, "achievement.%s", a->id);
		news = jv_array_append(news, jv_object_set(jv_object_set(jv_object(),
		    cc_jv_name("id"), jv_string(a->id)), cc_jv_name("title"),
		    cc_coach_text(d->texts, key, lang, NULL)));
	}
	cc_coach_fields_set(f, F_ACHIEVEMENTS);
	return news;
}

static void
done_str(struct cc_jw *w, const char *key, const char *s)
{
	if (s) {
		cc_jw_key(w, key);
		cc_jw_cstr(w, s);
	}
}

/*
 * progress_do for the stage's turn on fields: no arguments but the
 * outcome and pid; the finished problem's entry written into done.
 */
int
cc_coach_progress_step_fields(const struct cc_coach_data *d, const char *outcome,
    const char *pid, const char *lang, struct cc_coach_fields *f, time_t now,
    const char *t, struct cc_coach_done *done, struct cc_coach_progress *p)
{
	size_t n = pid ? strlen(pid) : 0;
	const char *id, *str[P_NSTR] = {0};
	long long points, total, streak, best, hints = 0, stumbles = 0;
	time_t started = 0;
	int o, has_secs, same;
	struct cc_jw w;
	jv news;

	if (p)
		p->message = p->news = jv_invalid();
	for (o = 0; o < (int)NOUTCOMES; o++)
		if (strcmp(outcome, outcomes[o].name) == 0)
			break;
	if ((pid && (n == 0 || n > 200)) || o == (int)NOUTCOMES ||
	    done->n == CC_COACH_DONE_MAX)
		return -1;
	/* the problem: the current one, unless pid names another */
	id = cc_coach_fields_problem_str(f, P_ID);
	same = cc_coach_fields_has(f, F_PROBLEM) && (!pid || (id && strcmp(id, pid) == 0));
	if (same) {
		for (int i = 0; i < P_NSTR; i++)
			str[i] = cc_coach_fields_problem_str(f, i);
		hints = cc_coach_fields_problem_int(f, P_HINTS_USED, 0, 1000000, 0);
		stumbles = cc_coach_fields_problem_int(f, P_STUMBLES, 0, 1000000, 0);
		started = cc_coach_fields_has_problem(f, P_STARTED) ? f->problem.started : 0;
	} else {
		str[P_ID] = pid;
	}
	points = outcomes[o].points;
	total = cc_coach_fields_int(f, F_TOTAL_POINTS, 0, 1000000000000000LL, 0) + points;
	streak = outcomes[o].keeps_streak ?
	    cc_coach_fields_int(f, F_STREAK, 0, 1000000000, 0) + 1 : 0;
	best = cc_coach_fields_int(f, F_BEST_STREAK, 0, 1000000000, 0);
	if (streak > best)
		best = streak;
	has_secs = started && now >= started;

	if (!cc_coach_fields_has(f, F_COUNTS))
		f->ncounts = 0;
	cc_coach_fields_bump(f, outcome);
	if (outcomes[o].solved) {
		const char *s = str[P_SUBJECT];

		if (hints == 0)
			cc_coach_fields_bump(f, "no_hint");
		if (outcomes[o].keeps_streak && stumbles >= PERSEVERED_STUMBLES)
			cc_coach_fields_bump(f, "persevered");
		if (s && (strcmp(s, "math") == 0 || strcmp(s, "japanese") == 0))
			cc_coach_fields_bump(f, s);
	}

	/* the entry, as progress_do composes it */
	done->off[done->n] = done->text.len;
	done->at[done->n] = now;
	done->counts[done->n] = o != (int)NOUTCOMES - 1;	/* not abandoned */
	cc_jw_init(&w, &done->text);
	cc_jw_object(&w);
	cc_jw_key(&w, "problem_id");
	cc_jw_cstr(&w, str[P_ID]);
	done_str(&w, "subject", str[P_SUBJECT]);
	done_str(&w, "topic", str[P_TOPIC]);
	done_str(&w, "expression", str[P_EXPRESSION]);
	done_str(&w, "text", str[P_TEXT]);
	cc_jw_key(&w, "outcome");
	cc_jw_cstr(&w, outcome);
	cc_jw_key(&w, "points");
	cc_jw_num(&w, (double)points);
	cc_jw_key(&w, "hints_used");
	cc_jw_num(&w, (double)hints);
	cc_jw_key(&w, "stumbles");
	cc_jw_num(&w, (double)stumbles);
	cc_jw_key(&w, "time_spent_seconds");
	if (has_secs)
		cc_jw_num(&w, (double)(long long)(double)(now - started));
	else
		cc_jw_null(&w);
	cc_jw_key(&w, "at");
	cc_jw_cstr(&w, t);
	cc_jw_end(&w);
	cc_buf_add(&done->text, "", 1);
	done->n++;

	f->num[F_TOTAL_POINTS] = total;
	cc_coach_fields_set(f, F_TOTAL_POINTS);
	f->num[F_STREAK] = streak;
	cc_coach_fields_set(f, F_STREAK);
	f->num[F_BEST_STREAK] = best;
	cc_coach_fields_set(f, F_BEST_STREAK);
	cc_coach_fields_set(f, F_COUNTS);
	/* the problem is over: the next one starts without hints */
	f->num[F_HINT_LEVEL] = 0;
	cc_coach_fields_set(f, F_HINT_LEVEL);
	cc_coach_fields_drop_problem(f);
	cc_coach_fields_touch(f, now, t);
	news = unlock_fields(d, f, t, lang);
	if (p) {
		p->points = points;
		p->total = total;
		p->streak = streak;
		p->message = encouragement(d, outcome, streak, news, lang);
		p->news = news;
	} else {
		jv_free(news);
	}
	return 0;
}
