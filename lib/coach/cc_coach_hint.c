/*
 * manage_hint: the seed's three hint levels, kept per problem rather than
 * per session.  The original keeps one level for the whole session, so a
 * child who needed three hints on one problem starts the next at level 3
 * unless the model remembers to reset it; here a new problem (a different
 * problem_id), and solving one (record_progress), start again at 0.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_texts.h"
#include "cc_coach.h"

/*
 * The template of a level: the topic's text, else the subject's, else the
 * general one (hints file).  Level 0 has none.
 */
static jv
template_of(const struct cc_coach_data *d, const char *subject, const char *topic,
    int level, const char *lang)
{
	char key[200];

	if (level <= 0)
		return cc_jv_name("");
	if (subject && topic && d->curriculum)
		topic = cc_curriculum_canonical(d->curriculum, subject, topic);
	if (subject && topic) {
		snprintf(key, sizeof key, "%s.%s.%d", subject, topic, level);
		if (cc_texts_get(d->hints, key, lang, NULL))
			return cc_coach_text(d->hints, key, lang, NULL);
	}
	if (subject) {
		snprintf(key, sizeof key, "%s.%d", subject, level);
		if (cc_texts_get(d->hints, key, lang, NULL))
			return cc_coach_text(d->hints, key, lang, NULL);
	}
	snprintf(key, sizeof key, "general.%d", level);
	return cc_coach_text(d->hints, key, lang, NULL);
}

static jv
hint_template(const struct cc_coach_data *d, jv problem, int level,
    const char *lang)
{
	return template_of(d, cc_coach_get_str(problem, "subject"),
	    cc_coach_get_str(problem, "topic"), level, lang);
}

static const char *const extra[] = { "subject", "topic", "expression", "text", NULL };

/* 1 if state.problem is an object whose id is pid; borrows state. */
static int
is_current(jv state, const char *pid)
{
	jv p = jv_object_get(jv_copy(state), cc_jv_name("problem"));
	const char *id = cc_coach_get_str(p, "id");
	int same = id && strcmp(id, pid) == 0;

	jv_free(p);
	return same;
}

/*
 * manage_hint once its arguments are read: a valid action, pid ("" for
 * none), the problem's other fields from args (borrows; none when it is
 * no object) and lang.
 */
static void
hint_do(const struct cc_coach_data *d, const char *action, const char *pid,
    jv args, const char *lang, jv *state, time_t now, struct cc_coach_hint *h)
{
	const char *s;
	jv st, problem;
	long long level, total;
	int changed = 0, taken;

	/*
	 * Taken, not copied: a change to a state held twice copies it whole
	 * (libjq's copy on write).  Given back below, changed or not.
	 */
	if ((taken = jv_get_kind(*state) == JV_KIND_OBJECT)) {
		st = *state;
		*state = jv_invalid();
	} else {
		st = jv_object();
	}
	if (*pid) {
		/* a problem_id other than the current one starts a new problem */
		int fields = 0;

		for (int i = 0; extra[i] && jv_get_kind(args) == JV_KIND_OBJECT; i++) {
			jv v = jv_object_get(jv_copy(args), cc_jv_name(extra[i]));

			fields |= jv_get_kind(v) == JV_KIND_STRING;
			jv_free(v);
		}
		/* the current problem named alone (every turn does) changes nothing */
		if (fields || !is_current(st, pid)) {
			jv p = jv_object_set(jv_object(), cc_jv_name("id"), jv_string(pid));
			jv before = jv_copy(st);

			for (int i = 0; fields && extra[i]; i++) {
				jv v = jv_object_get(jv_copy(args), cc_jv_name(extra[i]));

				if (jv_get_kind(v) == JV_KIND_STRING)
					p = jv_object_set(p, cc_jv_name(extra[i]), v);
				else
					jv_free(v);
			}
			cc_coach_state_set_problem(&st, p, now);
			changed = !jv_equal(before, jv_copy(st));
			jv_free(p);
		}
	}
	/* a level set by hand out of range is read as the nearest level */
	level = cc_coach_get_int(st, "hint_level", 0, CC_COACH_MAX_HINT_LEVEL, 0);
	total = cc_coach_get_int(st, "hints_used_total", 0, 1000000000, 0);
	if (strcmp(action, "advance") == 0 && level < CC_COACH_MAX_HINT_LEVEL) {
		level++;
		total++;
		st = jv_object_set(st, cc_jv_name("hint_level"), jv_number((double)level));
		st = jv_object_set(st, cc_jv_name("hints_used_total"), jv_number((double)total));
		problem = jv_object_get(jv_copy(st), cc_jv_name("problem"));
		if (jv_get_kind(problem) == JV_KIND_OBJECT) {
			long long n = cc_coach_get_int(problem, "hints_used", 0,
			    1000000, 0) + 1;

			problem = jv_object_set(problem, cc_jv_name("hints_used"),
			    jv_number((double)n));
			st = jv_object_set(st, cc_jv_name("problem"), problem);
		} else {
			jv_free(problem);
		}
		changed = 1;
	} else if (strcmp(action, "reset") == 0) {
		level = 0;
		st = jv_object_set(st, cc_jv_name("hint_level"), jv_number(0));
		changed = 1;
	}

	problem = jv_object_get(jv_copy(st), cc_jv_name("problem"));
	h->level = level;
	h->total = total;
	h->changed = changed;
	h->template = hint_template(d, problem, (int)level, lang);
	s = cc_coach_get_str(problem, "id");
	h->problem_id = s ? jv_string(s) : jv_null();
	jv_free(problem);

	if (changed) {
		cc_coach_state_touch(&st, now);
		jv_free(*state);
		*state = st;
	} else if (taken) {
		*state = st;
	} else {
		jv_free(st);	/* *state was no object: left as it was */
	}
}

/* The tool's result object of a hint; consumes it. */
static jv
hint_result(struct cc_coach_hint *h)
{
	jv result = jv_object();

	result = jv_object_set(result, cc_jv_name("current_level"), jv_number((double)h->level));
	result = jv_object_set(result, cc_jv_name("max_level"),
	    jv_number(CC_COACH_MAX_HINT_LEVEL));
	result = jv_object_set(result, cc_jv_name("hint_template"), h->template);
	result = jv_object_set(result, cc_jv_name("can_advance"),
	    jv_bool(h->level < CC_COACH_MAX_HINT_LEVEL));
	result = jv_object_set(result, cc_jv_name("hints_used_total"),
	    jv_number((double)h->total));
	result = jv_object_set(result, cc_jv_name("problem_id"), h->problem_id);
	h->template = h->problem_id = jv_invalid();
	return result;
}

void
cc_coach_hint_write(const struct cc_coach_hint *h, struct cc_jw *w)
{
	cc_jw_object(w);
	cc_jw_key(w, "current_level");
	cc_jw_num(w, (double)h->level);
	cc_jw_key(w, "max_level");
	cc_jw_num(w, CC_COACH_MAX_HINT_LEVEL);
	cc_jw_key(w, "hint_template");
	cc_jw_jv(w, h->template);
	cc_jw_key(w, "can_advance");
	cc_jw_bool(w, h->level < CC_COACH_MAX_HINT_LEVEL);
	cc_jw_key(w, "hints_used_total");
	cc_jw_num(w, (double)h->total);
	cc_jw_key(w, "problem_id");
	cc_jw_jv(w, h->problem_id);
	cc_jw_end(w);
}

void
cc_coach_hint_release(struct cc_coach_hint *h)
{
	jv_free(h->template);
	jv_free(h->problem_id);
	h->template = h->problem_id = jv_invalid();
}

jv
cc_coach_manage_hint(const struct cc_coach_data *d, jv args, jv *state, time_t now)
{
	struct cc_coach_hint h;
	const char *action, *lang, *s;
	char pid[256], sid[256];
	jv err = jv_invalid();
	int rc;

	if (jv_get_kind(args) != JV_KIND_OBJECT)
		return cc_coach_error("the arguments must be a JSON object");
	if ((rc = cc_coach_arg_str(args, "action", 64, &action, &err)) < 0 ||
	    cc_coach_arg_id(args, "problem_id", pid, sizeof pid, &err) < 0 ||
	    cc_coach_arg_id(args, "session_id", sid, sizeof sid, &err) < 0 ||
	    cc_coach_arg_lang(args, &lang, &err) < 0)
		return err;
	for (int i = 0; extra[i]; i++)
		if (cc_coach_arg_str(args, extra[i], i < 2 ? 64 : 1000, &s, &err) < 0)
			return err;
	if (rc == 0)
		return cc_coach_error("missing argument: action");
	if (strcmp(action, "get_current") != 0 && strcmp(action, "advance") != 0 &&
	    strcmp(action, "reset") != 0)
		return cc_coach_error("Unknown action: %s", action);
	hint_do(d, action, pid, args, lang, state, now, &h);
	return hint_result(&h);
}

int
cc_coach_hint_step(const struct cc_coach_data *d, int advance, const char *pid,
    const char *lang, jv *state, time_t now, struct cc_coach_hint *h)
{
	size_t n = pid ? strlen(pid) : 0;

	h->template = h->problem_id = jv_invalid();
	h->changed = 0;
	/* what cc_coach_arg_id refuses (the tool's error, nothing changed) */
	if (pid && (n == 0 || n > 200))
		return -1;
	hint_do(d, advance ? "advance" : "get_current", pid ? pid : "", jv_null(),
	    lang, state, now, h);
	return 0;
}

jv
cc_coach_hint_step_jv(const struct cc_coach_data *d, int advance, const char *pid,
    const char *lang, jv *state, time_t now)
{
	struct cc_coach_hint h;

	if (cc_coach_hint_step(d, advance, pid, lang, state, now, &h) < 0)
		return cc_coach_error("problem_id must be a non-empty string of at most "
		    "200 bytes or an integer");
	return hint_result(&h);
}

/*
 * hint_do's get_current and advance for the stage's turn on fields: pid
 * is the current problem's id (the turn passes no other), so the problem
 * is not set again.
 */
int
cc_coach_hint_step_fields(const struct cc_coach_data *d, int advance,
    const char *pid, const char *lang, struct cc_coach_fields *f, time_t now,
    const char *t, struct cc_coach_hint *h)
{
	size_t n = pid ? strlen(pid) : 0;
	const char *id = cc_coach_fields_problem_str(f, P_ID);
	long long level, total;
	int changed = 0;

	h->template = h->problem_id = jv_invalid();
	h->changed = 0;
	if (pid && (n == 0 || n > 200))
		return -1;
	/* (hint_do would set a problem other than the current one) */
	if (pid && (!id || strcmp(id, pid) != 0))
		cc_die(CC_EXIT_INTERNAL, "hint step on fields: not the current problem");
	level = cc_coach_fields_int(f, F_HINT_LEVEL, 0, CC_COACH_MAX_HINT_LEVEL, 0);
	total = cc_coach_fields_int(f, F_HINTS_TOTAL, 0, 1000000000, 0);
	if (advance && level < CC_COACH_MAX_HINT_LEVEL) {
		level++;
		total++;
		f->num[F_HINT_LEVEL] = level;
		cc_coach_fields_set(f, F_HINT_LEVEL);
		f->num[F_HINTS_TOTAL] = total;
		cc_coach_fields_set(f, F_HINTS_TOTAL);
		if (cc_coach_fields_has(f, F_PROBLEM)) {
			f->problem.num[P_HINTS_USED] = cc_coach_fields_problem_int(f,
			    P_HINTS_USED, 0, 1000000, 0) + 1;
			cc_coach_fields_set_problem(f, P_HINTS_USED);
		}
		changed = 1;
	}
	h->level = level;
	h->total = total;
	h->changed = changed;
	h->template = cc_coach_fields_has(f, F_PROBLEM) ?
	    template_of(d, cc_coach_fields_problem_str(f, P_SUBJECT),
	    cc_coach_fields_problem_str(f, P_TOPIC), (int)level, lang) :
	    template_of(d, NULL, NULL, (int)level, lang);
	h->problem_id = id ? jv_string(id) : jv_null();
	if (changed)
		cc_coach_fields_touch(f, now, t);
	return 0;
}
