/*
 * A session's coach state as a C struct (struct cc_coach_fields), for the
 * cc-coach stage's kept sessions.  A turn on the state as a jv object
 * touched every member's reference count whenever it read one and copied
 * objects it changed: with 2,000 sessions those were cache misses more
 * than instructions (libjq was a third of the stage's time).  Here a turn
 * reads and sets fields of a few hundred bytes, and the state's JSON is
 * written from them only when it is stored.
 *
 * The stored text must not change: libjq keeps an object's members in
 * the order they were first set (a member deleted and set again goes
 * last), and the state's order differs from session to session with its
 * history.  So the struct remembers the order of its members and of its
 * problem's, and sets and deletes them as libjq would.
 *
 * Only a state that the struct holds exactly is converted: the members
 * the coach writes, of the kinds it writes (integers, strings of the
 * sizes below, counts and achievements as it keeps them); anything else
 * (a member set by hand with `cc-coach state --set`, a number that is not
 * a whole one) stays a jv object on the old path.  The conversion checks
 * itself: the struct's text must be the object's, byte for byte.
 *
 * Every clamp of the jv readers (cc_coach_get_int's ranges) is applied
 * where a field is read, as the tools read the members.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_config.h"
#include "cc_time.h"
#include "cc_coach.h"

static const char *const top_names[F_NTOP] = {
	"work_started_at", "last_activity_at", "hint_level", "hints_used_total",
	"total_points", "streak", "best_streak", "counts", "achievements",
	"problem",
};
static const char *const problem_names[P_N] = {
	"id", "subject", "topic", "expression", "text", "started_at",
	"last_stumble_at", "stumbles", "hints_used",
};

/* ---- member order, as libjq keeps it ---- */

static int
in_order(const unsigned char *order, int n, int m)
{
	for (int i = 0; i < n; i++)
		if (order[i] == m)
			return 1;
	return 0;
}

/* Set: a member not yet there goes last. */
static void
order_set(unsigned char *order, unsigned char *n, int m)
{
	if (!in_order(order, *n, m))
		order[(*n)++] = (unsigned char)m;
}

static void
order_del(unsigned char *order, unsigned char *n, int m)
{
	int j = 0;

	for (int i = 0; i < *n; i++)
		if (order[i] != m)
			order[j++] = order[i];
	*n = (unsigned char)j;
}

int
cc_coach_fields_has(const struct cc_coach_fields *f, int m)
{
	return in_order(f->order, f->n, m);
}

void
cc_coach_fields_set(struct cc_coach_fields *f, int m)
{
	order_set(f->order, &f->n, m);
}

int
cc_coach_fields_has_problem(const struct cc_coach_fields *f, int m)
{
	return cc_coach_fields_has(f, F_PROBLEM) && in_order(f->problem.order,
	    f->problem.n, m);
}

void
cc_coach_fields_set_problem(struct cc_coach_fields *f, int m)
{
	order_set(f->problem.order, &f->problem.n, m);
}

/* As cc_coach_get_int on a number member: clamped, def when absent. */
long long
cc_coach_fields_int(const struct cc_coach_fields *f, int m, long long lo,
    long long hi, long long def)
{
	long long x = f->num[m];

	if (!cc_coach_fields_has(f, m))
		return def;
	return x <= lo ? lo : x >= hi ? hi : x;
}

long long
cc_coach_fields_problem_int(const struct cc_coach_fields *f, int m,
    long long lo, long long hi, long long def)
{
	long long x = f->problem.num[m];

	if (!cc_coach_fields_has_problem(f, m))
		return def;
	return x <= lo ? lo : x >= hi ? hi : x;
}

/* ---- the problem ---- */

void
cc_coach_fields_drop_problem(struct cc_coach_fields *f)
{
	for (int i = 0; i < P_NSTR; i++) {
		free(f->problem.str[i]);
		f->problem.str[i] = NULL;
	}
	f->problem.n = 0;
	order_del(f->order, &f->n, F_PROBLEM);
}

void
cc_coach_fields_put_problem_str(struct cc_coach_fields *f, int m, const char *s)
{
	free(f->problem.str[m]);
	f->problem.str[m] = cc_xstrdup(s);
	order_set(f->problem.order, &f->problem.n, m);
}

const char *
cc_coach_fields_problem_str(const struct cc_coach_fields *f, int m)
{
	return cc_coach_fields_has_problem(f, m) ? f->problem.str[m] : NULL;
}

void
cc_coach_fields_release(struct cc_coach_fields *f)
{
	for (int i = 0; i < P_NSTR; i++)
		free(f->problem.str[i]);
	free(f->ach);
	memset(f, 0, sizeof *f);
}

/* ---- counts ---- */

long long
cc_coach_fields_count(const struct cc_coach_fields *f, const char *key)
{
	if (!cc_coach_fields_has(f, F_COUNTS))
		return 0;
	for (int i = 0; i < f->ncounts; i++)
		if (strcmp(f->counts[i].name, key) == 0) {
			long long x = f->counts[i].n;

			return x <= 0 ? 0 : x >= 1000000000 ? 1000000000 : x;
		}
	return 0;
}

/* As progress's bump: one more, at most 1e9; 0 if it cannot be held. */
int
cc_coach_fields_bump(struct cc_coach_fields *f, const char *key)
{
	long long n = cc_coach_fields_count(f, key);
	int i;

	if (n < 1000000000)
		n++;
	for (i = 0; i < f->ncounts; i++)
		if (strcmp(f->counts[i].name, key) == 0)
			break;
	if (i == f->ncounts) {
		if (i == CC_COACH_FIELDS_COUNTS || strlen(key) >= sizeof f->counts[i].name)
			return 0;
		snprintf(f->counts[i].name, sizeof f->counts[i].name, "%s", key);
		f->ncounts++;
	}
	f->counts[i].n = n;
	return 1;
}

/* 1 if the data's achievement ids fit the struct's. */
int
cc_coach_fields_usable(const struct cc_coach_data *d)
{
	struct cc_coach_fields f;

	for (size_t i = 0; i < d->nachievements; i++)
		if (strlen(d->achievements[i].id) >= sizeof f.ach[0].id)
			return 0;
	return 1;
}

/* ---- from a jv object ---- */

/* A whole number that a double holds exactly, into *out. */
static int
whole(jv v, long long *out)
{
	double x;

	if (jv_get_kind(v) != JV_KIND_NUMBER)
		return 0;
	x = jv_number_value(v);
	if (!(fabs(x) < 9007199254740992.0) || x != floor(x))
		return 0;
	*out = (long long)x;
	return 1;
}

/* A string without NUL shorter than size, copied into buf. */
static int
text_into(jv v, char *buf, size_t size)
{
	size_t n;

	if (jv_get_kind(v) != JV_KIND_STRING)
		return 0;
	n = (size_t)jv_string_length_bytes(jv_copy(v));
	if (n >= size || memchr(jv_string_value(v), '\0', n))
		return 0;
	memcpy(buf, jv_string_value(v), n + 1);
	return 1;
}

static time_t
parse_time(const char *s)
{
	time_t t;

	return cc_time_parse_iso8601(s, &t) < 0 ? 0 : t;
}

static int
name_of(const char *const *names, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], key) == 0)
			return i;
	return -1;
}

static int
problem_from(struct cc_coach_fields *f, jv p)
{
	int ok = 1;

	if (jv_get_kind(p) != JV_KIND_OBJECT)
		return 0;
	jv_object_foreach(p, key, val) {
		int m = ok ? name_of(problem_names, P_N, jv_string_value(key)) : -1;
		char buf[CC_COACH_FIELDS_STRLEN];

		if (m < 0 || in_order(f->problem.order, f->problem.n, m)) {
			ok = 0;
		} else if (m < P_NSTR) {
			ok = text_into(val, buf, sizeof buf);
			if (ok)
				f->problem.str[m] = cc_xstrdup(buf);
		} else if (m == P_STARTED) {
			ok = text_into(val, f->problem.started_at, sizeof f->problem.started_at);
			f->problem.started = ok ? parse_time(f->problem.started_at) : 0;
		} else if (m == P_LAST_STUMBLE) {
			ok = text_into(val, f->problem.last_stumble_at,
			    sizeof f->problem.last_stumble_at);
		} else {
			ok = whole(val, &f->problem.num[m]);
		}
		if (ok)
			f->problem.order[f->problem.n++] = (unsigned char)m;
		jv_free(key);
		jv_free(val);
	}
	return ok;
}

/*
 * The counts: at most half the room, so that the eight a turn may add
 * (four outcomes, no_hint, persevered, math, japanese) always fit.
 */
static int
counts_from(struct cc_coach_fields *f, jv c)
{
	int ok = 1;

	if (jv_get_kind(c) != JV_KIND_OBJECT)
		return 0;
	jv_object_foreach(c, key, val) {
		if (ok && f->ncounts < CC_COACH_FIELDS_COUNTS / 2 &&
		    text_into(key, f->counts[f->ncounts].name, sizeof f->counts[0].name) &&
		    whole(val, &f->counts[f->ncounts].n))
			f->ncounts++;
		else
			ok = 0;
		jv_free(key);
		jv_free(val);
	}
	return ok;
}

static int
achievements_from(struct cc_coach_fields *f, jv a)
{
	int ok = 1;

	if (jv_get_kind(a) != JV_KIND_ARRAY)
		return 0;
	f->ach = cc_xmalloc(((size_t)jv_array_length(jv_copy(a)) + 1) * sizeof *f->ach);
	f->cap = jv_array_length(jv_copy(a)) + 1;
	jv_array_foreach(a, i, e) {
		/* exactly {"id": ..., "at": ...}, as unlock writes it */
		jv id = jv_invalid(), at = jv_invalid();
		int k = 0;

		if (ok && jv_get_kind(e) == JV_KIND_OBJECT)
			jv_object_foreach(e, key, val) {
				const char *s = jv_string_value(key);

				if (k == 0 && strcmp(s, "id") == 0)
					id = jv_copy(val);
				else if (k == 1 && strcmp(s, "at") == 0)
					at = jv_copy(val);
				k++;
				jv_free(key);
				jv_free(val);
			}
		ok = ok && k == 2 && text_into(id, f->ach[f->nach].id, sizeof f->ach[0].id) &&
		    text_into(at, f->ach[f->nach].at, sizeof f->ach[0].at);
		if (ok)
			f->nach++;
		jv_free(id);
		jv_free(at);
		jv_free(e);
	}
	return ok;
}

int
cc_coach_fields_from_jv(struct cc_coach_fields *f, jv state)
{
	struct cc_buf a = {0}, b = {0};
	struct cc_jw w;
	int ok = 1;

	memset(f, 0, sizeof *f);
	if (jv_get_kind(state) != JV_KIND_OBJECT)
		return -1;
	jv_object_foreach(state, key, val) {
		int m = ok ? name_of(top_names, F_NTOP, jv_string_value(key)) : -1;

		if (m < 0 || in_order(f->order, f->n, m))
			ok = 0;
		else if (m == F_WORK_STARTED)
			ok = text_into(val, f->work_started_at, sizeof f->work_started_at);
		else if (m == F_LAST_ACTIVITY)
			ok = text_into(val, f->last_activity_at, sizeof f->last_activity_at);
		else if (m == F_COUNTS)
			ok = counts_from(f, val);
		else if (m == F_ACHIEVEMENTS)
			ok = achievements_from(f, val);
		else if (m == F_PROBLEM)
			ok = problem_from(f, val);
		else
			ok = whole(val, &f->num[m]);
		if (ok)
			f->order[f->n++] = (unsigned char)m;
		jv_free(key);
		jv_free(val);
	}
	if (ok) {
		f->work_started = parse_time(f->work_started_at);
		f->last_activity = parse_time(f->last_activity_at);
		/* what it will be written as is what it was */
		cc_json_put(&a, state);
		cc_jw_init(&w, &b);
		cc_coach_fields_write(f, &w);
		ok = a.len == b.len && memcmp(a.data, b.data, a.len) == 0;
	}
	cc_buf_release(&a);
	cc_buf_release(&b);
	if (!ok) {
		cc_coach_fields_release(f);
		return -1;
	}
	return 0;
}

/* ---- written ---- */

void
cc_coach_fields_write_problem(const struct cc_coach_fields *f, struct cc_jw *w)
{
	const struct cc_coach_fields_problem *p = &f->problem;

	cc_jw_object(w);
	for (int i = 0; i < p->n; i++) {
		int m = p->order[i];

		cc_jw_key(w, problem_names[m]);
		if (m < P_NSTR)
			cc_jw_cstr(w, p->str[m]);
		else if (m == P_STARTED)
			cc_jw_cstr(w, p->started_at);
		else if (m == P_LAST_STUMBLE)
			cc_jw_cstr(w, p->last_stumble_at);
		else
			cc_jw_num(w, (double)p->num[m]);
	}
	cc_jw_end(w);
}

void
cc_coach_fields_write(const struct cc_coach_fields *f, struct cc_jw *w)
{
	cc_jw_object(w);
	for (int i = 0; i < f->n; i++) {
		int m = f->order[i];

		cc_jw_key(w, top_names[m]);
		switch (m) {
		case F_WORK_STARTED:
			cc_jw_cstr(w, f->work_started_at);
			break;
		case F_LAST_ACTIVITY:
			cc_jw_cstr(w, f->last_activity_at);
			break;
		case F_COUNTS:
			cc_jw_object(w);
			for (int k = 0; k < f->ncounts; k++) {
				cc_jw_key(w, f->counts[k].name);
				cc_jw_num(w, (double)f->counts[k].n);
			}
			cc_jw_end(w);
			break;
		case F_ACHIEVEMENTS:
			cc_jw_array(w);
			for (int k = 0; k < f->nach; k++) {
				cc_jw_object(w);
				cc_jw_key(w, "id");
				cc_jw_cstr(w, f->ach[k].id);
				cc_jw_key(w, "at");
				cc_jw_cstr(w, f->ach[k].at);
				cc_jw_end(w);
			}
			cc_jw_end(w);
			break;
		case F_PROBLEM:
			cc_coach_fields_write_problem(f, w);
			break;
		default:
			cc_jw_num(w, (double)f->num[m]);
		}
	}
	cc_jw_end(w);
}

/* ---- the state functions of cc_coach.c, on fields ---- */

/* t (a time's text, shorter than 24 bytes: time_text's) into a field */
static void
put_time(char dst[24], const char *t)
{
	size_t n = strnlen(t, 23);

	memcpy(dst, t, n);
	dst[n] = '\0';
}

int
cc_coach_fields_touch(struct cc_coach_fields *f, time_t now, const char *t)
{
	int changed = 0;
	time_t last = f->last_activity, start = f->work_started;

	if (!cc_coach_fields_has(f, F_WORK_STARTED))
		start = 0;
	if (!cc_coach_fields_has(f, F_LAST_ACTIVITY))
		last = 0;
	if ((!start || !last || now - last >= CC_COACH_BREAK_SECONDS || now < start) &&
	    !(cc_coach_fields_has(f, F_WORK_STARTED) && strcmp(f->work_started_at, t) == 0)) {
		put_time(f->work_started_at, t);
		f->work_started = now;
		cc_coach_fields_set(f, F_WORK_STARTED);
		changed = 1;
	}
	if (!(cc_coach_fields_has(f, F_LAST_ACTIVITY) && strcmp(f->last_activity_at, t) == 0)) {
		put_time(f->last_activity_at, t);
		f->last_activity = now;
		cc_coach_fields_set(f, F_LAST_ACTIVITY);
		changed = 1;
	}
	return changed;
}

long
cc_coach_fields_work_minutes(const struct cc_coach_fields *f, time_t now)
{
	time_t last = cc_coach_fields_has(f, F_LAST_ACTIVITY) ? f->last_activity : 0;
	time_t start = cc_coach_fields_has(f, F_WORK_STARTED) ? f->work_started : 0;

	if (!start || !last || now - last >= CC_COACH_BREAK_SECONDS || now < start)
		return 0;
	return (long)((now - start) / 60);
}

int
cc_coach_fields_stumble(struct cc_coach_fields *f, const char *t)
{
	long long n;

	if (!cc_coach_fields_has(f, F_PROBLEM))
		return 0;
	n = cc_coach_fields_problem_int(f, P_STUMBLES, 0, 1000000, 0) + 1;
	f->problem.num[P_STUMBLES] = n;
	cc_coach_fields_set_problem(f, P_STUMBLES);
	put_time(f->problem.last_stumble_at, t);
	cc_coach_fields_set_problem(f, P_LAST_STUMBLE);
	return (int)n;
}
