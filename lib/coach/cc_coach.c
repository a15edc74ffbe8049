/*
 * The homework coach's data and session state, and the small helpers its
 * tools share: reading arguments and state leniently (a state set by hand
 * or by an older version must never crash a tool), times as ISO 8601, and
 * texts from the domain's files.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_session.h"
#include "cc_texts.h"
#include "cc_calc.h"
#include "cc_emotion.h"
#include "cc_image.h"
#include "cc_lexicon.h"
#include "cc_answer_request.h"
#include "cc_coach.h"

/* ---- data ---- */

static char *
join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = cc_xmalloc(n);

	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

int
cc_coach_data_load(struct cc_coach_data *d, const char *dir, char *err,
    size_t errlen)
{
	char *path;

	memset(d, 0, sizeof *d);
	d->dir = cc_xstrdup(dir);
	d->image = cc_xmalloc(sizeof *d->image);
	cc_image_init(d->image, dir);
	path = join(dir, "calc-hints");
	d->calc_hints = cc_texts_load(path, err, errlen);
	free(path);
	if (!d->calc_hints)
		goto fail;
	path = join(dir, "answer_request.cues");
	d->answer_request = cc_answer_request_load(path, err, errlen);
	free(path);
	if (!d->answer_request)
		goto fail;
	path = join(dir, "hints");
	d->hints = cc_texts_load(path, err, errlen);
	free(path);
	if (!d->hints)
		goto fail;
	path = join(dir, "coach.texts");
	d->texts = cc_texts_load(path, err, errlen);
	free(path);
	if (!d->texts)
		goto fail;
	path = join(dir, "curriculum");
	d->curriculum = cc_curriculum_load(path, err, errlen);
	free(path);
	if (!d->curriculum)
		goto fail;
	path = join(dir, "achievements");
	if (cc_coach_achievements_load(path, &d->achievements, &d->nachievements,
	    err, errlen) < 0) {
		free(path);
		goto fail;
	}
	free(path);
	return 0;
fail:
	cc_coach_data_release(d);
	return -1;
}

static void time_release(void);
static void plain_texts_release(void);

void
cc_coach_data_release(struct cc_coach_data *d)
{
	cc_texts_free(d->hints);
	cc_texts_free(d->calc_hints);
	cc_lexicon_free(d->answer_request);
	cc_texts_free(d->texts);
	if (d->image)
		cc_image_release(d->image);
	free(d->image);
	free(d->dir);
	cc_curriculum_free(d->curriculum);
	for (size_t i = 0; i < d->nachievements; i++)
		free(d->achievements[i].id);
	free(d->achievements);
	memset(d, 0, sizeof *d);
	cc_jv_names_release();	/* the tools' names, shared while they ran */
	time_release();
	plain_texts_release();
}


/* ---- the other modules' tools, in the registry's shape ---- */

jv
cc_coach_calculate_and_verify(const struct cc_coach_data *d, jv args, jv *state,
    time_t now)
{
	(void)state;
	(void)now;
	return cc_calc_verify(d->calc_hints, args);
}

jv
cc_coach_update_emotion(const struct cc_coach_data *d, jv args, jv *state,
    time_t now)
{
	jv emo = jv_get_kind(*state) == JV_KIND_OBJECT ?
	    jv_object_get(jv_copy(*state), cc_jv_name("emotion")) : jv_invalid();
	jv result;

	(void)d;
	if (jv_get_kind(emo) != JV_KIND_OBJECT) {
		jv_free(emo);
		emo = jv_object();
	}
	result = cc_emotion_update(args, &emo, now);
	/* an error leaves the state as it was */
	if (!cc_coach_is_error(result) && jv_get_kind(*state) == JV_KIND_OBJECT)
		*state = jv_object_set(*state, cc_jv_name("emotion"), emo);
	else
		jv_free(emo);
	return result;
}

jv
cc_coach_analyze_homework_image(const struct cc_coach_data *d, jv args, jv *state,
    time_t now)
{
	(void)state;
	(void)now;
	return cc_image_analyze(d->image, args);
}

/* ---- results ---- */

int
cc_coach_is_error(jv result)
{
	if (jv_get_kind(result) != JV_KIND_OBJECT)
		return 1;
	jv e = jv_object_get(jv_copy(result), cc_jv_name("error"));
	int is = jv_is_valid(e);

	jv_free(e);
	return is;
}

jv
cc_coach_error(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return jv_object_set(jv_object(), cc_jv_name("error"), jv_string(msg));
}

static int problem_id(jv v, char *buf, size_t len);

/* ---- reading members leniently ---- */

long long
cc_coach_get_int(jv obj, const char *key, long long lo, long long hi,
    long long def)
{
	jv v;
	double x;

	if (jv_get_kind(obj) != JV_KIND_OBJECT)
		return def;
	v = jv_object_get(jv_copy(obj), cc_jv_name(key));
	if (jv_get_kind(v) != JV_KIND_NUMBER) {
		jv_free(v);
		return def;
	}
	x = jv_number_value(v);
	jv_free(v);
	/* the range before the conversion: beyond long long it is undefined */
	if (isnan(x))
		return def;
	if (x <= (double)lo)
		return lo;
	if (x >= (double)hi)
		return hi;
	return (long long)x;
}

const char *
cc_coach_get_str(jv obj, const char *key)
{
	jv v;
	const char *s;

	if (jv_get_kind(obj) != JV_KIND_OBJECT)
		return NULL;
	v = jv_object_get(jv_copy(obj), cc_jv_name(key));
	if (jv_get_kind(v) != JV_KIND_STRING) {
		jv_free(v);
		return NULL;
	}
	/* obj holds another reference to the same string: it stays alive */
	s = jv_string_value(v);
	jv_free(v);
	return s;
}

/*
 * A stage writes the same "now" into every turn: it is formatted once, and
 * the string shared (cc_coach_data_release frees it).
 */
static time_t time_last = (time_t)-1;
static jv time_text;

jv
cc_coach_time_jv(time_t t)
{
	char buf[32];
	struct tm tm;

	if (t != time_last) {
		if (!gmtime_r(&t, &tm) || !strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm))
			return jv_null();
		if (time_last != (time_t)-1)
			jv_free(time_text);
		time_text = jv_string(buf);
		time_last = t;
	}
	return jv_copy(time_text);
}

static void
time_release(void)
{
	if (time_last != (time_t)-1)
		jv_free(time_text);
	time_last = (time_t)-1;
}

time_t
cc_coach_get_time(jv obj, const char *key)
{
	const char *s = cc_coach_get_str(obj, key);
	time_t t;

	if (!s || cc_time_parse_iso8601(s, &t) < 0)
		return 0;
	return t;
}

/* ---- tool arguments ---- */

/* The member, or jv_invalid() when absent or null; owned. */
static jv
member(jv args, const char *key)
{
	jv v;

	if (jv_get_kind(args) != JV_KIND_OBJECT)
		return jv_invalid();
	v = jv_object_get(jv_copy(args), cc_jv_name(key));
	if (jv_get_kind(v) == JV_KIND_NULL) {
		jv_free(v);
		return jv_invalid();
	}
	return v;
}

int
cc_coach_arg_str(jv args, const char *key, size_t maxlen, const char **out,
    jv *err)
{
	jv v = member(args, key);
	size_t n;

	*out = NULL;
	if (!jv_is_valid(v)) {
		jv_free(v);
		return 0;
	}
	if (jv_get_kind(v) != JV_KIND_STRING) {
		jv_free(v);
		*err = cc_coach_error("%s must be a string", key);
		return -1;
	}
	n = (size_t)jv_string_length_bytes(jv_copy(v));
	if (n > maxlen || memchr(jv_string_value(v), '\0', n)) {
		jv_free(v);
		*err = cc_coach_error("%s is too long (at most %zu bytes)", key, maxlen);
		return -1;
	}
	*out = jv_string_value(v);	/* args keeps the string alive */
	jv_free(v);
	return 1;
}

int
cc_coach_arg_id(jv args, const char *key, char *buf, size_t len, jv *err)
{
	jv v = member(args, key);

	buf[0] = '\0';
	if (!jv_is_valid(v)) {
		jv_free(v);
		return 0;
	}
	if (problem_id(v, buf, len) < 0) {
		jv_free(v);
		buf[0] = '\0';
		*err = cc_coach_error("%s must be a non-empty string of at most 200 "
		    "bytes or an integer", key);
		return -1;
	}
	jv_free(v);
	return 1;
}

int
cc_coach_arg_num(jv args, const char *key, double lo, double hi, double *out,
    jv *err)
{
	jv v = member(args, key);
	double x;

	if (!jv_is_valid(v)) {
		jv_free(v);
		return 0;
	}
	x = jv_get_kind(v) == JV_KIND_NUMBER ? jv_number_value(v) : NAN;
	jv_free(v);
	if (!(x >= lo && x <= hi)) {
		*err = cc_coach_error("%s must be a number from %.15g to %.15g", key, lo, hi);
		return -1;
	}
	*out = x;
	return 1;
}

int
cc_coach_arg_lang(jv args, const char **lang, jv *err)
{
	const char *l;
	int rc = cc_coach_arg_str(args, "lang", 16, &l, err);

	*lang = "ja";
	if (rc < 0)
		return -1;
	if (rc == 1 && strcmp(l, "en") != 0 && strcmp(l, "ja") != 0) {
		*err = cc_coach_error("lang must be \"ja\" or \"en\"");
		return -1;
	}
	if (rc == 1)
		*lang = strcmp(l, "en") == 0 ? "en" : "ja";
	return rc;
}

/*
 * The texts filled without variables (a hint's, a praise's: the same text
 * every time) as jv strings made once, by the address of their template:
 * making a jv string checks its UTF-8 anew, which cost a hint more than
 * the rest of its step.  Valid while the texts are, so
 * cc_coach_data_release forgets them; a full table makes strings as before.
 */
#define PLAIN_TEXTS 256		/* a power of 2 */
static struct plain_text {
	const char *tmpl;
	jv s;
} plain_texts[PLAIN_TEXTS];

static jv
plain_text(const char *tmpl)
{
	size_t h = (size_t)(((uintptr_t)tmpl >> 3) * 0x9e3779b97f4a7c15u);

	for (size_t i = 0; i < 8; i++) {
		struct plain_text *p = &plain_texts[(h + i) & (PLAIN_TEXTS - 1)];

		if (p->tmpl == tmpl)
			return jv_copy(p->s);
		if (!p->tmpl) {
			p->tmpl = tmpl;
			p->s = jv_string(tmpl);
			return jv_copy(p->s);
		}
	}
	return jv_string(tmpl);
}

static void
plain_texts_release(void)
{
	for (size_t i = 0; i < PLAIN_TEXTS; i++)
		if (plain_texts[i].tmpl) {
			jv_free(plain_texts[i].s);
			plain_texts[i].tmpl = NULL;
		}
}

jv
cc_coach_text(const struct cc_texts *t, const char *key, const char *lang,
    const struct cc_var *vars)
{
	const char *tmpl = t ? cc_texts_get(t, key, lang, NULL) : NULL;
	struct cc_buf b = {0};
	jv s;

	if (!tmpl)
		return cc_jv_name("");
	/* (cc_texts_fill leaves a template without variables as it is) */
	if (!vars)
		return plain_text(tmpl);
	cc_texts_fill(&b, tmpl, vars);
	s = jv_string_sized(b.data ? b.data : "", (int)b.len);
	cc_buf_release(&b);
	return s;
}

/* ---- the session state ---- */

/* The stored text of one state name as an object; jv_null() when none. */
static int
load_part(struct cc_session *s, const char *session, const char *name, jv *out,
    char *err, size_t errlen)
{
	char *json = NULL;
	int rc = cc_session_state_get(s, session, name, &json, NULL);

	*out = jv_null();
	if (rc < 0) {
		snprintf(err, errlen, "cannot read the session's %s state: %s", name,
		    cc_session_error(s));
		return -1;
	}
	if (rc == 0)
		return 0;
	*out = cc_json_parse(json, strlen(json));
	free(json);
	if (jv_get_kind(*out) != JV_KIND_OBJECT) {
		jv_free(*out);
		*out = jv_null();
		snprintf(err, errlen, "the session's stored %s state is not a JSON "
		    "object", name);
		return -1;
	}
	return 0;
}

int
cc_coach_state_load(struct cc_session *s, const char *session, jv *state,
    time_t now, char *err, size_t errlen)
{
	jv coach, emotion, history;

	*state = jv_object();
	if (load_part(s, session, "coach", &coach, err, errlen) < 0)
		return -1;
	if (jv_get_kind(coach) == JV_KIND_OBJECT &&
	    jv_object_has(jv_copy(coach), cc_jv_name("solved"))) {
		/* stored before the history: moved there, read again under the lock */
		jv_free(coach);
		if (cc_session_state_begin(s, "coach") < 0) {
			snprintf(err, errlen, "cannot lock the session's coach state: %s",
			    cc_session_error(s));
			return -1;
		}
		if (load_part(s, session, "coach", &coach, err, errlen) < 0 ||
		    cc_coach_history_convert(s, session, &coach, now, err, errlen) < 0) {
			jv_free(coach);
			return -1;
		}
	}
	history = cc_coach_history_load(s, session, err, errlen);
	if (!jv_is_valid(history)) {
		jv_free(coach);
		return -1;
	}
	if (load_part(s, session, "emotion", &emotion, err, errlen) < 0) {
		jv_free(coach);
		return -1;
	}
	if (jv_get_kind(coach) == JV_KIND_OBJECT) {
		jv_free(*state);
		/* an emotion kept in the coach's own state by hand is not shown */
		*state = jv_object_delete(coach, cc_jv_name("emotion"));
	} else {
		jv_free(coach);
	}
	if (jv_array_length(jv_copy(history)) > 0)
		*state = jv_object_set(*state, cc_jv_name("solved"), history);
	else
		jv_free(history);
	if (jv_get_kind(emotion) == JV_KIND_OBJECT)
		*state = jv_object_set(*state, cc_jv_name("emotion"), emotion);
	else
		jv_free(emotion);
	return 0;
}

/* The part of a merged state kept under name; owned. */
static jv
part_of(jv state, const char *name)
{
	if (jv_get_kind(state) != JV_KIND_OBJECT)
		return jv_null();
	if (strcmp(name, "emotion") == 0 || strcmp(name, "solved") == 0)
		return jv_object_get(jv_copy(state), cc_jv_name(name));
	return jv_object_delete(jv_object_delete(jv_copy(state), cc_jv_name("emotion")),
	    cc_jv_name("solved"));
}

static int
save_part(struct cc_session *s, const char *session, const char *name,
    jv before, jv state, time_t now, char *err, size_t errlen)
{
	jv old = part_of(before, name), cur = part_of(state, name);
	struct cc_buf b = {0};
	int rc = 0;

	if (jv_get_kind(cur) == JV_KIND_OBJECT &&
	    (jv_get_kind(old) != JV_KIND_OBJECT || !jv_equal(jv_copy(old), jv_copy(cur)))) {
		cc_json_put(&b, cur);
		if (cc_session_state_put(s, session, name, b.data, now) < 0) {
			snprintf(err, errlen, "cannot store the session's %s state: %s",
			    name, cc_session_error(s));
			rc = -1;
		}
	}
	cc_buf_release(&b);
	jv_free(old);
	jv_free(cur);
	return rc;
}

int
cc_coach_state_save(struct cc_session *s, const char *session, jv before,
    jv state, time_t now, char *err, size_t errlen)
{
	jv was, solved;
	int rc;

	if (save_part(s, session, "coach", before, state, now, err, errlen) < 0 ||
	    save_part(s, session, "emotion", before, state, now, err, errlen) < 0)
		return -1;
	/* the history: before null replaces it, as the rest of the state */
	if (jv_get_kind(state) == JV_KIND_OBJECT) {
		was = part_of(before, "solved");
		solved = part_of(state, "solved");
		rc = cc_coach_history_save(s, session, was, solved,
		    jv_get_kind(before) != JV_KIND_OBJECT, now, err, errlen);
		jv_free(was);
		jv_free(solved);
		if (rc < 0)
			return -1;
	}
	if (cc_session_flush(s) < 0) {
		snprintf(err, errlen, "cannot store the session's state: %s",
		    cc_session_error(s));
		return -1;
	}
	return 0;
}

static jv
as_object(jv v)
{
	if (jv_get_kind(v) == JV_KIND_OBJECT)
		return v;
	jv_free(v);
	return jv_object();
}

/* 1 if obj's member key is the string t (borrows both). */
static int
has_text(jv obj, const char *key, jv t)
{
	return jv_get_kind(obj) == JV_KIND_OBJECT && jv_get_kind(t) == JV_KIND_STRING &&
	    jv_equal(jv_object_get(jv_copy(obj), cc_jv_name(key)), jv_copy(t));
}

int
cc_coach_state_touch(jv *state, time_t now)
{
	int changed = jv_get_kind(*state) != JV_KIND_OBJECT;
	jv st = as_object(*state), t = cc_coach_time_jv(now);
	time_t last = cc_coach_get_time(st, "last_activity_at");
	time_t start = cc_coach_get_time(st, "work_started_at");

	/* a time that is already the one to set is left be: a set copies a
	   state that is shared (the stage's kept copy, the turn's before) */
	if ((!start || !last || now - last >= CC_COACH_BREAK_SECONDS || now < start) &&
	    !has_text(st, "work_started_at", t)) {
		st = jv_object_set(st, cc_jv_name("work_started_at"), jv_copy(t));
		changed = 1;
	}
	if (!has_text(st, "last_activity_at", t)) {
		st = jv_object_set(st, cc_jv_name("last_activity_at"), jv_copy(t));
		changed = 1;
	}
	jv_free(t);
	*state = st;
	return changed;
}

long
cc_coach_state_work_minutes(jv state, time_t now)
{
	time_t last = cc_coach_get_time(state, "last_activity_at");
	time_t start = cc_coach_get_time(state, "work_started_at");

	if (!start || !last || now - last >= CC_COACH_BREAK_SECONDS || now < start)
		return 0;
	return (long)((now - start) / 60);
}

/* A problem id: a non-empty string of at most 200 bytes, or an integer. */
static int
problem_id(jv v, char *buf, size_t len)
{
	if (jv_get_kind(v) == JV_KIND_STRING) {
		const char *s = jv_string_value(v);
		size_t n = (size_t)jv_string_length_bytes(jv_copy(v));

		if (n == 0 || n > 200 || n >= len || memchr(s, '\0', n))
			return -1;
		memcpy(buf, s, n + 1);
		return 0;
	}
	if (jv_get_kind(v) == JV_KIND_NUMBER) {
		double x = jv_number_value(v);

		if (!(fabs(x) < 1e15) || x != floor(x))
			return -1;
		snprintf(buf, len, "%lld", (long long)x);
		return 0;
	}
	return -1;
}

static const char *const problem_fields[] = {
	"subject", "topic", "expression", "text", NULL,
};

int
cc_coach_state_set_problem(jv *state, jv problem, time_t now)
{
	char id[256];
	jv st, cur, idv;
	const char *cur_id;
	int is_new;

	if (jv_get_kind(problem) != JV_KIND_OBJECT)
		return -1;
	idv = jv_object_get(jv_copy(problem), cc_jv_name("id"));
	if (problem_id(idv, id, sizeof id) < 0) {
		jv_free(idv);
		return -1;
	}
	jv_free(idv);
	st = as_object(*state);
	cur = jv_object_get(jv_copy(st), cc_jv_name("problem"));
	cur_id = cc_coach_get_str(cur, "id");
	is_new = !cur_id || strcmp(cur_id, id) != 0;
	if (is_new) {
		jv_free(cur);
		cur = jv_object();
		cur = jv_object_set(cur, cc_jv_name("id"), jv_string(id));
		cur = jv_object_set(cur, cc_jv_name("started_at"), cc_coach_time_jv(now));
		cur = jv_object_set(cur, cc_jv_name("stumbles"), jv_number(0));
		cur = jv_object_set(cur, cc_jv_name("hints_used"), jv_number(0));
		/* the seed's levels are per problem: a new one starts with none */
		st = jv_object_set(st, cc_jv_name("hint_level"), jv_number(0));
	}
	for (int i = 0; problem_fields[i]; i++) {
		jv v = jv_object_get(jv_copy(problem), cc_jv_name(problem_fields[i]));

		if (jv_get_kind(v) == JV_KIND_STRING)
			cur = jv_object_set(cur, cc_jv_name(problem_fields[i]), v);
		else
			jv_free(v);
	}
	*state = jv_object_set(st, cc_jv_name("problem"), cur);
	return is_new;
}

int
cc_coach_state_stumble(jv *state, time_t now)
{
	jv st = as_object(*state), cur;
	long long n;

	cur = jv_object_get(jv_copy(st), cc_jv_name("problem"));
	if (jv_get_kind(cur) != JV_KIND_OBJECT) {
		jv_free(cur);
		*state = st;
		return 0;
	}
	n = cc_coach_get_int(cur, "stumbles", 0, 1000000, 0) + 1;
	cur = jv_object_set(cur, cc_jv_name("stumbles"), jv_number((double)n));
	cur = jv_object_set(cur, cc_jv_name("last_stumble_at"), cc_coach_time_jv(now));
	*state = jv_object_set(st, cc_jv_name("problem"), cur);
	return (int)n;
}
