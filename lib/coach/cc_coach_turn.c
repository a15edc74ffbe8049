/*
 * One turn of a tutoring session, as the cc-coach stage sees it.  The
 * child said something; this decides what it was (a new problem, an
 * answer, a request for the answer, being stuck, or none of these), does
 * to the session's state what the seed's tools would (manage_hint,
 * calculate_and_verify, record_progress), and writes the facts the later
 * stages read: cc-emotion the stumbles and the minutes of work, cc-route
 * the subject, cc-tutor everything it needs to choose what to say.
 *
 * The seed leaves these decisions to an LLM that calls the tools when it
 * thinks of it; here they are made the same way every time, in order, by
 * the one stage that owns the state, so a batch of turns gives the same
 * state as the same turns asked one by one.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_time.h"
#include "cc_calc.h"
#include "cc_answer_request.h"
#include "cc_coach.h"

static void forget_problem(struct cc_coach_recap *r);

/* The curriculum topic of a one-operation problem, from its numbers. */
static const char *
topic_of(const struct cc_calc_expr *e)
{
	long a = (long)e->lhs, b = (long)e->rhs;
	int whole = e->lhs == floor(e->lhs) && e->rhs == floor(e->rhs) &&
	    e->lhs >= 0 && e->rhs >= 0;

	if (e->nops != 1 || !whole)
		return NULL;
	switch (e->op) {
	case '+':
		return a % 10 + b % 10 >= 10 ? "addition_carry" : "addition";
	case '-':
		return a % 10 < b % 10 ? "subtraction_borrow" : "subtraction";
	case '*':
		return "multiplication";
	case '/':
		return b && a % b ? "division_remainder" : "division";
	}
	return NULL;
}

/* A problem object for the state: id, subject, topic, expression. */
static jv
math_problem(const char *expr)
{
	struct cc_calc_expr e;
	char err[128], id[CC_CALC_EXPRLEN + 8];
	const char *topic = NULL;
	jv p;

	if (cc_calc_parse(expr, strlen(expr), &e, err, sizeof err) == CC_CALC_OK)
		topic = topic_of(&e);
	snprintf(id, sizeof id, "math:%s", expr);
	p = jv_object_set(jv_object(), cc_jv_name("id"), jv_string(id));
	p = jv_object_set(p, cc_jv_name("subject"), cc_jv_name("math"));
	if (topic)
		p = jv_object_set(p, cc_jv_name("topic"), jv_string(topic));
	return jv_object_set(p, cc_jv_name("expression"), jv_string(expr));
}

/*
 * state.problem's string members id and expression, or NULL, valid while
 * *keep lives (it holds the problem object); borrows state.
 */
static void
problem_strs(jv state, jv *keep, const char **id, const char **expr)
{
	jv p = jv_get_kind(state) == JV_KIND_OBJECT ?
	    jv_object_get(jv_copy(state), cc_jv_name("problem")) : jv_invalid();

	*id = *expr = NULL;
	if (jv_get_kind(p) != JV_KIND_OBJECT) {
		jv_free(p);
		return;
	}
	*id = cc_coach_get_str(p, "id");
	*expr = cc_coach_get_str(p, "expression");
	*keep = jv_array_append(*keep, p);
}

/*
 * The problem is over: solved (the outcome by the hints it took: the
 * seed's 3/2/1 points) or abandoned for another.  1 with the progress in
 * *p when p is not NULL; 0 when record_progress would refuse.
 */
static int
finish(struct cc_coach_data *d, jv *state, const char *pid, const char *outcome,
    const char *lang, time_t now, struct cc_coach_progress *p)
{
	return cc_coach_progress_step(d, outcome, pid, lang, state, now, p) == 0;
}

static const char *
outcome_of(long long level)
{
	return level == 0 ? "self_solved" : level < CC_COACH_MAX_HINT_LEVEL ?
	    "hint_solved" : "guided_solved";
}

/*
 * The answer the child gave, checked by calculate_and_verify (with its
 * hint for the mistake, graded for the child's grade): the check object,
 * owned, with the answer given.
 */
static jv
check_answer(const struct cc_coach_data *d, const char *expr, const char *answer,
    int grade, const char *lang, int *right)
{
	jv a = jv_object(), o;

	a = jv_object_set(a, cc_jv_name("expression"), jv_string(expr));
	a = jv_object_set(a, cc_jv_name("child_answer"), jv_string(answer));
	a = jv_object_set(a, cc_jv_name("grade_level"), jv_number(grade));
	a = jv_object_set(a, cc_jv_name("lang"), jv_string(lang));
	o = cc_calc_verify(d->calc_hints, a);
	jv_free(a);
	if (jv_get_kind(o) != JV_KIND_OBJECT) {
		jv_free(o);
		o = jv_object();
	}
	a = jv_object_get(jv_copy(o), cc_jv_name("is_correct"));
	*right = jv_get_kind(a) == JV_KIND_TRUE;
	jv_free(a);
	return jv_object_set(o, cc_jv_name("answer"), jv_string(answer));
}

/* 1 if a recap entry (borrows) counts: finished, not abandoned, since start. */
static int
counts_today(jv e, time_t start)
{
	const char *outcome = cc_coach_get_str(e, "outcome");

	return cc_coach_get_time(e, "at") >= start && outcome &&
	    strcmp(outcome, "abandoned") != 0;
}

static int
count_today(jv solved, int from, int to, time_t start)
{
	int n = 0;

	for (int i = from; i < to; i++) {
		jv e = jv_array_get(jv_copy(solved), i);

		n += counts_today(e, start);
		jv_free(e);
	}
	return n;
}

/* Of a kept history's entries, from its oldest: how many of the first n count. */
static int
ring_today(const struct cc_coach_recap *r, int n, time_t start)
{
	int count = 0;

	for (int i = 0; i < n; i++) {
		int k = (r->oldest + i) % CC_COACH_MAX_SOLVED;

		count += r->counts[k] && r->at[k] >= start;
	}
	return count;
}

/*
 * Problems finished today (local date of now), of the newest
 * CC_COACH_MAX_SOLVED: from state.solved, or with a kept recap from its
 * history and the entries this turn added to state.solved.
 */
static int
solved_today(jv state, time_t now, struct cc_coach_recap *recap)
{
	jv solved = jv_object_get(jv_copy(state), cc_jv_name("solved"));
	int n, len = jv_get_kind(solved) == JV_KIND_ARRAY ?
	    jv_array_length(jv_copy(solved)) : 0;
	/* local midnight, as mktime gives it (kept by cc_time per day) */
	time_t start = cc_date_start(cc_date_of(now));

	if (!recap || !recap->kept) {
		n = len ? count_today(solved, 0, len, start) : 0;
	} else {
		/* the oldest kept ones that this turn's push out */
		int drop = recap->n + len - CC_COACH_MAX_SOLVED;

		if (recap->start != start) {
			recap->count = recap->n ? ring_today(recap, recap->n, start) : 0;
			recap->start = start;
		}
		drop = drop < 0 ? 0 : drop > recap->n ? recap->n : drop;
		n = recap->count - (drop ? ring_today(recap, drop, start) : 0) +
		    count_today(solved, len > CC_COACH_MAX_SOLVED ?
		    len - CC_COACH_MAX_SOLVED : 0, len, start);
	}
	jv_free(solved);
	return n;
}

/*
 * What no reply may say while the problem (its expression e, or NULL) is
 * open: its answer, in the forms cc_calc_states_value() recognises
 * (cc-tutor's guard).
 */
static void
write_forbid(const char *e, struct cc_coach_recap *recap, struct cc_jw *out)
{
	cc_jw_key(out, "forbid");
	cc_jw_array(out);
	if (e) {
		const char *answer, *rem;
		struct cc_calc_check f;

		/* the session's problem is the same turn after turn */
		if (recap && recap->expr && strcmp(recap->expr, e) == 0) {
			answer = recap->answer;
			rem = recap->remainder;
		} else {
			cc_calc_check(e, strlen(e), "", 0, &f);
			answer = f.correct_answer;
			rem = f.remainder_form;
			if (recap) {
				forget_problem(recap);
				recap->expr = cc_xstrdup(e);
				recap->answer = cc_xstrdup(answer);
				recap->remainder = cc_xstrdup(rem);
			}
		}
		if (*answer)
			cc_jw_cstr(out, answer);
		if (*rem)
			cc_jw_cstr(out, rem);
	}
	cc_jw_end(out);
}

/* The turn's "said", "check", "hint" and "progress" parts, in order. */
static void
write_said(const struct cc_calc_utterance *u, int flags, struct cc_jw *out)
{
	if (u->recitation || (flags & (CC_CALC_HAS_EXPR | CC_CALC_HAS_ANSWER))) {
		cc_jw_key(out, "said");
		cc_jw_cstr(out, u->recitation ? "recitation" : flags & CC_CALC_HAS_EXPR ?
		    "problem" : "answer");
	}
}

static void
write_middle(jv check, int has_hint, struct cc_coach_hint *h, int has_progress,
    struct cc_coach_progress *progress, struct cc_jw *out)
{
	if (jv_is_valid(check)) {
		cc_jw_key(out, "check");
		cc_jw_jv(out, check);
	}
	if (has_hint) {
		cc_jw_key(out, "hint");
		cc_coach_hint_write(h, out);
		cc_coach_hint_release(h);
	}
	if (has_progress) {
		cc_jw_key(out, "progress");
		cc_coach_progress_write(progress, out);
		cc_coach_progress_release(progress);
	}
}

static void
write_request(const struct cc_coach_data *d, struct cc_answer_request *areq,
    struct cc_jw *out)
{
	cc_jw_key(out, "answer_request");
	if (d->answer_request) {
		cc_answer_request_write(areq, out);
	} else {
		cc_jw_object(out);
		cc_jw_key(out, "request_type");
		cc_jw_cstr(out, "none");
		cc_jw_end(out);
	}
	cc_answer_request_release(areq);
}

int
cc_coach_turn(struct cc_coach_data *d, const char *text, size_t len,
    const char *lang, jv *state, time_t now, struct cc_coach_recap *recap,
    struct cc_jw *out)
{
	struct cc_calc_utterance u;
	int right = 0;
	struct cc_answer_request areq = {0};
	struct cc_coach_hint h;
	int has_hint = 0;
	jv keep = jv_array();
	struct cc_coach_progress progress;
	int has_progress = 0;
	jv check = jv_invalid();
	const char *event = "none", *request, *cur, *cur_expr;
	int flags = cc_calc_from_words(text, len, &u), stuck = 0;
	int changed = 0;	/* what the state was given may have changed */
	long long level;

	if (jv_get_kind(*state) != JV_KIND_OBJECT) {
		jv_free(*state);
		*state = jv_object();
		changed = 1;
	}
	changed |= cc_coach_state_touch(state, now);
	request = "none";
	if (d->answer_request) {
		cc_answer_request_scan(d->answer_request, text, len, &areq);
		request = areq.type;
	}
	problem_strs(*state, &keep, &cur, &cur_expr);

	if (flags & CC_CALC_HAS_EXPR) {
		jv p = math_problem(u.expr);
		const char *pid = cc_coach_get_str(p, "id");

		if (!cur || strcmp(cur, pid) != 0) {
			/* another problem: the one left unsolved after trying is abandoned */
			jv old = jv_object_get(jv_copy(*state), cc_jv_name("problem"));
			int tried = cc_coach_get_int(*state, "hint_level", 0, 3, 0) > 0 ||
			    (jv_get_kind(old) == JV_KIND_OBJECT &&
			    cc_coach_get_int(old, "stumbles", 0, 1000000, 0) > 0);

			jv_free(old);
			if (cur && tried)
				finish(d, state, cur, "abandoned", lang, now, NULL);
			cc_coach_state_set_problem(state, p, now);
			event = "new_problem";
			changed = 1;
		}
		jv_free(p);
		problem_strs(*state, &keep, &cur, &cur_expr);
	}
	if ((flags & CC_CALC_HAS_ANSWER) && cur_expr) {
		level = cc_coach_get_int(*state, "hint_level", 0, CC_COACH_MAX_HINT_LEVEL, 0);
		check = check_answer(d, cur_expr, u.answer, (int)cc_coach_get_int(*state,
		    "grade_level", 1, 6, 2), lang, &right);
		if (right) {
			event = "solved";
			has_progress = finish(d, state, cur, outcome_of(level), lang, now,
			    &progress);
		} else {
			event = "wrong";
			cc_coach_state_stumble(state, now);
			has_hint = cc_coach_hint_step(d, 1, cur, lang, state, now, &h) == 0;
		}
		changed = 1;	/* a stumble, or the problem finished */
	} else if (strcmp(request, "none") != 0 && cur) {
		/*
		 * "わからない" is a stumble; "just tell me" is not, but both get
		 * the next hint rather than the answer.
		 */
		stuck = strcmp(request, "implicit") == 0;
		if (stuck && cc_coach_state_stumble(state, now))
			changed = 1;
		if (strcmp(event, "new_problem") != 0)
			event = stuck ? "stuck" : "asked_answer";
		has_hint = cc_coach_hint_step(d, 1, cur, lang, state, now, &h) == 0;
		changed |= has_hint && h.changed;
	} else if (cur) {
		has_hint = cc_coach_hint_step(d, 0, cur, lang, state, now, &h) == 0;
		changed |= has_hint && h.changed;
	}

	/* written as it is found: building the object cost more than its text */
	cc_jw_object(out);
	cc_jw_key(out, "event");
	cc_jw_cstr(out, event);
	/* what the words held, for the router: arithmetic is math */
	write_said(&u, flags, out);
	{
		jv p = jv_object_get(jv_copy(*state), cc_jv_name("problem"));

		if (jv_get_kind(p) != JV_KIND_OBJECT && strcmp(event, "solved") == 0 &&
		    cur_expr) {
			/* the problem just solved, for the reply to praise */
			jv_free(p);
			p = math_problem(cur_expr);
		}
		cc_jw_key(out, "problem");
		if (jv_get_kind(p) == JV_KIND_OBJECT)
			cc_jw_jv(out, p);
		else
			cc_jw_null(out);
		jv_free(p);
	}
	write_middle(check, has_hint, &h, has_progress, &progress, out);
	jv_free(check);
	write_request(d, &areq, out);
	cc_jw_key(out, "hint_level");
	cc_jw_num(out, (double)cc_coach_get_int(*state, "hint_level", 0,
	    CC_COACH_MAX_HINT_LEVEL, 0));
	{
		jv p = jv_object_get(jv_copy(*state), cc_jv_name("problem"));

		cc_jw_key(out, "stumbles");
		cc_jw_num(out, (double)(jv_get_kind(p) == JV_KIND_OBJECT ?
		    cc_coach_get_int(p, "stumbles", 0, 1000000, 0) : 0));
		jv_free(p);
	}
	cc_jw_key(out, "working_minutes");
	cc_jw_num(out, (double)cc_coach_state_work_minutes(*state, now));
	cc_jw_key(out, "total_points");
	cc_jw_num(out, (double)cc_coach_get_int(*state, "total_points", 0, 1000000000, 0));
	cc_jw_key(out, "streak");
	cc_jw_num(out, (double)cc_coach_get_int(*state, "streak", 0, 1000000000, 0));
	cc_jw_key(out, "solved_today");
	cc_jw_num(out, solved_today(*state, now, recap));
	{
		const char *id, *e;

		problem_strs(*state, &keep, &id, &e);
		write_forbid(e, recap, out);
	}
	cc_jw_end(out);
	jv_free(keep);
	return changed;
}

static void
forget_problem(struct cc_coach_recap *r)
{
	free(r->expr);
	free(r->answer);
	free(r->remainder);
	r->expr = r->answer = r->remainder = NULL;
}

void
cc_coach_recap_release(struct cc_coach_recap *r)
{
	free(r->at);
	free(r->counts);
	r->at = NULL;
	r->counts = NULL;
	r->kept = r->n = r->oldest = r->count = 0;
	r->start = 0;
	forget_problem(r);
}

/* ---- the turn on fields (cc_coach_fields.c): a kept session's ---- */

/* solved_today with a kept recap and the entries this turn finished. */
static int
solved_today_done(const struct cc_coach_done *done, time_t now,
    struct cc_coach_recap *recap)
{
	time_t start = cc_date_start(cc_date_of(now));
	int len = done->n, drop = recap->n + len - CC_COACH_MAX_SOLVED, n = 0;

	if (recap->start != start) {
		recap->count = recap->n ? ring_today(recap, recap->n, start) : 0;
		recap->start = start;
	}
	drop = drop < 0 ? 0 : drop > recap->n ? recap->n : drop;
	for (int i = len > CC_COACH_MAX_SOLVED ? len - CC_COACH_MAX_SOLVED : 0; i < len; i++)
		n += done->counts[i] && done->at[i] >= start;
	return recap->count - (drop ? ring_today(recap, drop, start) : 0) + n;
}

/* now as the state's times are written; cached, as cc_coach_time_jv's */
static const char *
time_text(time_t now)
{
	static time_t last = (time_t)-1;
	static char buf[24];
	struct tm tm;

	if (now != last) {
		if (!gmtime_r(&now, &tm) || !strftime(buf, sizeof buf,
		    "%Y-%m-%dT%H:%M:%SZ", &tm))
			cc_die(CC_EXIT_INTERNAL, "cannot write the time %lld", (long long)now);
		last = now;
	}
	return buf;
}

/*
 * A copy of a problem string (the turn reads it after the problem is
 * finished and its strings freed), or NULL.
 */
static const char *
copy_str(char *buf, size_t size, const char *s)
{
	size_t n;

	if (!s)
		return NULL;
	n = strnlen(s, size - 1);
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

int
cc_coach_turn_fields(struct cc_coach_data *d, const char *text, size_t len,
    const char *lang, struct cc_coach_fields *f, time_t now,
    struct cc_coach_recap *recap, struct cc_coach_done *done, struct cc_jw *out)
{
	struct cc_calc_utterance u;
	int right = 0;
	struct cc_answer_request areq = {0};
	struct cc_coach_hint h;
	int has_hint = 0;
	struct cc_coach_progress progress;
	int has_progress = 0;
	jv check = jv_invalid();
	const char *event = "none", *request, *cur, *cur_expr;
	char cur_buf[CC_COACH_FIELDS_STRLEN], expr_buf[CC_COACH_FIELDS_STRLEN];
	int flags = cc_calc_from_words(text, len, &u), stuck = 0;
	int changed = 0;
	const char *t = time_text(now);
	long long level;

	done->n = 0;
	done->text.len = 0;
	changed |= cc_coach_fields_touch(f, now, t);
	request = "none";
	if (d->answer_request) {
		cc_answer_request_scan(d->answer_request, text, len, &areq);
		request = areq.type;
	}
	cur = copy_str(cur_buf, sizeof cur_buf, cc_coach_fields_problem_str(f, P_ID));
	cur_expr = copy_str(expr_buf, sizeof expr_buf,
	    cc_coach_fields_problem_str(f, P_EXPRESSION));

	if (flags & CC_CALC_HAS_EXPR) {
		struct cc_calc_expr e;
		char err[128], pid[CC_CALC_EXPRLEN + 8];
		const char *topic = NULL;
		size_t n = strnlen(u.expr, sizeof u.expr - 1);

		if (cc_calc_parse(u.expr, n, &e, err, sizeof err) == CC_CALC_OK)
			topic = topic_of(&e);
		/* "math:" and the expression (shorter than CC_CALC_EXPRLEN) */
		memcpy(pid, "math:", 5);
		memcpy(pid + 5, u.expr, n);
		pid[5 + n] = '\0';
		if (!cur || strcmp(cur, pid) != 0) {
			/* another problem: the one left unsolved after trying is abandoned */
			int tried = cc_coach_fields_int(f, F_HINT_LEVEL, 0, 3, 0) > 0 ||
			    cc_coach_fields_problem_int(f, P_STUMBLES, 0, 1000000, 0) > 0;

			if (cur && tried)
				cc_coach_progress_step_fields(d, "abandoned", cur, lang, f, now,
				    t, done, NULL);
			/* cc_coach_state_set_problem: a new one, its members in order */
			if (cc_coach_fields_has(f, F_PROBLEM)) {
				for (int i = 0; i < P_NSTR; i++) {
					free(f->problem.str[i]);
					f->problem.str[i] = NULL;
				}
				f->problem.n = 0;
			}
			cc_coach_fields_put_problem_str(f, P_ID, pid);
			copy_str(f->problem.started_at, sizeof f->problem.started_at, t);
			f->problem.started = now;
			cc_coach_fields_set_problem(f, P_STARTED);
			f->problem.num[P_STUMBLES] = 0;
			cc_coach_fields_set_problem(f, P_STUMBLES);
			f->problem.num[P_HINTS_USED] = 0;
			cc_coach_fields_set_problem(f, P_HINTS_USED);
			f->num[F_HINT_LEVEL] = 0;
			cc_coach_fields_set(f, F_HINT_LEVEL);
			cc_coach_fields_put_problem_str(f, P_SUBJECT, "math");
			if (topic)
				cc_coach_fields_put_problem_str(f, P_TOPIC, topic);
			cc_coach_fields_put_problem_str(f, P_EXPRESSION, u.expr);
			cc_coach_fields_set(f, F_PROBLEM);
			event = "new_problem";
			changed = 1;
		}
		cur = copy_str(cur_buf, sizeof cur_buf, cc_coach_fields_problem_str(f, P_ID));
		cur_expr = copy_str(expr_buf, sizeof expr_buf,
		    cc_coach_fields_problem_str(f, P_EXPRESSION));
	}
	if ((flags & CC_CALC_HAS_ANSWER) && cur_expr) {
		level = cc_coach_fields_int(f, F_HINT_LEVEL, 0, CC_COACH_MAX_HINT_LEVEL, 0);
		/* (grade_level is no member a state in fields has: 2) */
		check = check_answer(d, cur_expr, u.answer, 2, lang, &right);
		if (right) {
			event = "solved";
			has_progress = cc_coach_progress_step_fields(d, outcome_of(level), cur,
			    lang, f, now, t, done, &progress) == 0;
		} else {
			event = "wrong";
			cc_coach_fields_stumble(f, t);
			has_hint = cc_coach_hint_step_fields(d, 1, cur, lang, f, now, t, &h) == 0;
		}
		changed = 1;
	} else if (strcmp(request, "none") != 0 && cur) {
		stuck = strcmp(request, "implicit") == 0;
		if (stuck && cc_coach_fields_stumble(f, t))
			changed = 1;
		if (strcmp(event, "new_problem") != 0)
			event = stuck ? "stuck" : "asked_answer";
		has_hint = cc_coach_hint_step_fields(d, 1, cur, lang, f, now, t, &h) == 0;
		changed |= has_hint && h.changed;
	} else if (cur) {
		has_hint = cc_coach_hint_step_fields(d, 0, cur, lang, f, now, t, &h) == 0;
		changed |= has_hint && h.changed;
	}

	cc_jw_object(out);
	cc_jw_key(out, "event");
	cc_jw_cstr(out, event);
	write_said(&u, flags, out);
	cc_jw_key(out, "problem");
	if (cc_coach_fields_has(f, F_PROBLEM)) {
		cc_coach_fields_write_problem(f, out);
	} else if (strcmp(event, "solved") == 0 && cur_expr) {
		/* the problem just solved, for the reply to praise */
		jv p = math_problem(cur_expr);

		cc_jw_jv(out, p);
		jv_free(p);
	} else {
		cc_jw_null(out);
	}
	write_middle(check, has_hint, &h, has_progress, &progress, out);
	jv_free(check);
	write_request(d, &areq, out);
	cc_jw_key(out, "hint_level");
	cc_jw_num(out, (double)cc_coach_fields_int(f, F_HINT_LEVEL, 0,
	    CC_COACH_MAX_HINT_LEVEL, 0));
	cc_jw_key(out, "stumbles");
	cc_jw_num(out, (double)cc_coach_fields_problem_int(f, P_STUMBLES, 0, 1000000, 0));
	cc_jw_key(out, "working_minutes");
	cc_jw_num(out, (double)cc_coach_fields_work_minutes(f, now));
	cc_jw_key(out, "total_points");
	cc_jw_num(out, (double)cc_coach_fields_int(f, F_TOTAL_POINTS, 0, 1000000000, 0));
	cc_jw_key(out, "streak");
	cc_jw_num(out, (double)cc_coach_fields_int(f, F_STREAK, 0, 1000000000, 0));
	cc_jw_key(out, "solved_today");
	cc_jw_num(out, solved_today_done(done, now, recap));
	write_forbid(cc_coach_fields_problem_str(f, P_EXPRESSION), recap, out);
	cc_jw_end(out);
	return changed;
}
