/*
 * cc_coach.h: the homework coach (seed 001): its domain data, its session
 * state, and its tools, each a function of one shape so that cc-coach(1)
 * keeps them in one registry.
 *
 * The state is one JSON object per session (layout in cc-coach(1), STATE),
 * kept by the caller with cc_coach_state_load/save under the state name
 * "coach"; the emotion helper's state (name "emotion") is shown to the
 * tools as the member "emotion" of the same object, so a tool reads and
 * writes session state as the original's tools read ADK's session.state.
 *
 * jv ownership follows libjq: every function that takes a jv says whether
 * it "borrows" it (the caller still owns it) or "consumes" it.
 *
 * Owns: the loaded data (cc_coach_data_release frees it).  Borrows: cc_texts
 * to read text files, cc_session to keep state, cc_time for local dates.
 */
#ifndef CC_COACH_H
#define CC_COACH_H

#include <jv.h>
#include <stddef.h>
#include <time.h>

#include "cc_json.h"
#include "cc_texts.h"
#include "cc_image.h"

struct cc_session;
struct cc_curriculum;
struct cc_lexicon;

/* The three hint levels of the seed: 0 means no hint given yet. */
#define CC_COACH_MAX_HINT_LEVEL 3
/*
 * Work is continuous while the child is never idle this long; a longer
 * pause starts a new stretch (the seed's "15 minutes of continuous use").
 */
#define CC_COACH_BREAK_SECONDS 600
/* Today's recap keeps at most this many finished problems. */
#define CC_COACH_MAX_SOLVED 500

/* An achievement: unlocked once, when its metric first reaches threshold. */
struct cc_coach_achievement {
	char *id;		/* also the key of its title: achievement.ID */
	int metric;		/* index into the metrics (cc_coach_progress.c) */
	long long threshold;
};

/*
 * The domain's data, read once: everything a tool says or looks up.  Other
 * modules' tools add their data here when they are merged.
 */
struct cc_coach_data {
	char *dir;			/* the domain folder */
	struct cc_texts *hints;		/* hints: SUBJECT[.TOPIC].LEVEL */
	struct cc_texts *calc_hints;	/* calc-hints: by mistake and grade */
	struct cc_lexicon *answer_request;	/* answer_request.cues */
	/* photos: OCR or a vision model, set up on the first one (a pointer,
	   so tools that only read the data may still load it) */
	struct cc_image *image;
	struct cc_texts *texts;		/* coach.texts: praise, titles, report */
	struct cc_curriculum *curriculum;
	struct cc_coach_achievement *achievements;
	size_t nachievements;
};

/*
 * Load the data in dir (the domain folder): hints, coach.texts, curriculum,
 * achievements.  0, or -1 with a "path:line: why" message in err.
 */
int cc_coach_data_load(struct cc_coach_data *d, const char *dir, char *err,
	size_t errlen);
void cc_coach_data_release(struct cc_coach_data *d);

/*
 * A tool: args (borrows) are its JSON arguments, *state the session's state
 * (read, and replaced by a new value when the tool changes it; never
 * changed when the result is an error), now the clock (CC_NOW).  Returns
 * the owned result object: the seed's keys, or {"error": "..."} alone.
 */
typedef jv cc_coach_tool_fn(const struct cc_coach_data *d, jv args, jv *state,
	time_t now);

/* manage_hint(session_id, action get_current|advance|reset, problem_id) */
cc_coach_tool_fn cc_coach_manage_hint;
/* check_curriculum(grade_level, subject, topic) */
cc_coach_tool_fn cc_coach_check_curriculum;
/* record_progress(user_id, session_id, problem_id, outcome, hints_used,
   time_spent_seconds) */
cc_coach_tool_fn cc_coach_record_progress;
/*
 * manage_hint and record_progress as the stage's turn calls them, without
 * building and reading their arguments: the result and the state of
 * {"action": advance ? "advance" : "get_current", "problem_id": pid,
 * "lang": lang} and of {"problem_id": pid, "outcome": outcome, "lang":
 * lang} (pid NULL: no problem_id).
 */
jv cc_coach_hint_step_jv(const struct cc_coach_data *d, int advance,
	const char *pid, const char *lang, jv *state, time_t now);
/*
 * The hint step for a stage that writes the result: 0 with *h filled
 * (cc_coach_hint_write writes the tool's result object from it;
 * cc_coach_hint_release frees it), or -1 where the tool gives an error
 * (nothing changed, nothing to release).
 */
struct cc_coach_hint {
	long long level, total;
	jv template, problem_id;	/* owned: a string; a string or null */
	int changed;		/* the step changed *state */
};
int cc_coach_hint_step(const struct cc_coach_data *d, int advance, const char *pid,
	const char *lang, jv *state, time_t now, struct cc_coach_hint *h);
void cc_coach_hint_write(const struct cc_coach_hint *h, struct cc_jw *w);
void cc_coach_hint_release(struct cc_coach_hint *h);
jv cc_coach_progress_step_jv(const struct cc_coach_data *d, const char *outcome,
	const char *pid, const char *lang, jv *state, time_t now);
/*
 * The progress step for a stage that writes the result, as the hint
 * step: 0 with *p filled (NULL: the result is not wanted, only the
 * state), or -1 where the tool gives an error.
 */
struct cc_coach_progress {
	long long points, total, streak;
	jv message, news;	/* owned: the encouragement, the new achievements */
};
int cc_coach_progress_step(const struct cc_coach_data *d, const char *outcome,
	const char *pid, const char *lang, jv *state, time_t now,
	struct cc_coach_progress *p);
void cc_coach_progress_write(const struct cc_coach_progress *p, struct cc_jw *w);
void cc_coach_progress_release(struct cc_coach_progress *p);
/*
 * The other modules' tools in the same shape: calculate_and_verify
 * (cc_calc, stateless), update_emotion (cc_emotion, on the state's
 * "emotion"), analyze_homework_image (cc_image, stateless).
 */
cc_coach_tool_fn cc_coach_calculate_and_verify;
cc_coach_tool_fn cc_coach_update_emotion;
cc_coach_tool_fn cc_coach_analyze_homework_image;

/*
 * What a turn keeps of a session for the next (the stage keeps one per
 * session).  When `kept`, the session's finished problems as its history
 * in the store holds them (the newest CC_COACH_MAX_SOLVED: when each was
 * finished and whether it counts for today's recap), and the state the
 * turn is given has no "solved" of its own: the entries the turn adds go
 * there, and cc_coach_states_save appends them to the history.  So a
 * history of hundreds is neither read, copied nor written every turn.
 * Also the answers of the problem's expression that no reply may state.
 * Zero it to start; cc_coach_recap_release frees it.
 */
struct cc_coach_recap {
	int kept;		/* the history below is the session's */
	int n, oldest;		/* entries, and the oldest's place in the ring */
	time_t *at;		/* the ring, CC_COACH_MAX_SOLVED long (or NULL) */
	unsigned char *counts;	/* ... finished, not abandoned */
	time_t start;		/* the local midnight of count, or 0 */
	int count;		/* the ring's entries that count since start */
	char *expr;		/* the expression whose answers these are, or NULL */
	char *answer, *remainder;	/* cc_calc_check's, "" when none */
};
/* Add a finished problem's entry (borrows) to a kept history. */
void cc_coach_recap_add(struct cc_coach_recap *r, jv entry);
void cc_coach_recap_release(struct cc_coach_recap *r);

/*
 * One turn of the cc-coach stage (cc_coach_turn.c): what the child's
 * text[0..len) was (a new problem, an answer, a request for the answer,
 * being stuck), what it did to the session's *state (replaced), and the
 * stage's record member, written to out: {event, said, problem, check,
 * hint, progress, answer_request, hint_level, stumbles, working_minutes,
 * total_points, streak, solved_today, forbid}.  lang is the reply
 * language, "ja" or "en"; recap is the session's (NULL: none kept).
 * Returns 1 if the turn may have changed *state, 0 if it is certainly the
 * state it was given (cc_coach_states_unchanged then keeps it unwritten).
 */
int cc_coach_turn(struct cc_coach_data *d, const char *text, size_t len,
	const char *lang, jv *state, time_t now, struct cc_coach_recap *recap,
	struct cc_jw *out);

/*
 * A session's coach state as a C struct (cc_coach_fields.c), for the
 * stage's kept sessions: the members the coach writes, as fields, with
 * the order of the members (top-level and the problem's) that libjq
 * would give the same object, so its JSON is the jv object's byte for
 * byte.  A member is present when its index is in order[0..n).
 */
enum {
	F_WORK_STARTED, F_LAST_ACTIVITY, F_HINT_LEVEL, F_HINTS_TOTAL,
	F_TOTAL_POINTS, F_STREAK, F_BEST_STREAK, F_COUNTS, F_ACHIEVEMENTS,
	F_PROBLEM, F_NTOP
};
/* the problem's members: its strings first */
enum {
	P_ID, P_SUBJECT, P_TOPIC, P_EXPRESSION, P_TEXT, P_NSTR = P_TEXT + 1,
	P_STARTED = P_NSTR, P_LAST_STUMBLE, P_STUMBLES, P_HINTS_USED, P_N
};
#define CC_COACH_FIELDS_COUNTS 16
#define CC_COACH_FIELDS_STRLEN 512
struct cc_coach_fields_problem {
	unsigned char order[P_N], n;
	char *str[P_NSTR];		/* owned */
	char started_at[24], last_stumble_at[24];
	time_t started;			/* started_at parsed, or 0 */
	long long num[P_N];		/* stumbles, hints_used */
};
struct cc_coach_fields {
	unsigned char order[F_NTOP], n;
	char work_started_at[24], last_activity_at[24];	/* as stored */
	time_t work_started, last_activity;	/* parsed, or 0 */
	long long num[F_NTOP];		/* the number members */
	int ncounts;
	struct { char name[24]; long long n; } counts[CC_COACH_FIELDS_COUNTS];
	int nach, cap;
	struct { char id[40]; char at[24]; } *ach;	/* owned */
	struct cc_coach_fields_problem problem;
};
/*
 * Fill f from state (borrows) when the struct holds it exactly (its text
 * written from f is cc_json_put's of state): 0, else -1 with f empty.
 */
int cc_coach_fields_from_jv(struct cc_coach_fields *f, jv state);
void cc_coach_fields_release(struct cc_coach_fields *f);
/* 1 if the data's achievements fit (ids shorter than the struct's) */
int cc_coach_fields_usable(const struct cc_coach_data *d);
void cc_coach_fields_write(const struct cc_coach_fields *f, struct cc_jw *w);
void cc_coach_fields_write_problem(const struct cc_coach_fields *f,
	struct cc_jw *w);
int cc_coach_fields_has(const struct cc_coach_fields *f, int m);
void cc_coach_fields_set(struct cc_coach_fields *f, int m);
int cc_coach_fields_has_problem(const struct cc_coach_fields *f, int m);
void cc_coach_fields_set_problem(struct cc_coach_fields *f, int m);
/* a member as cc_coach_get_int reads it: clamped to [lo, hi], def if absent */
long long cc_coach_fields_int(const struct cc_coach_fields *f, int m,
	long long lo, long long hi, long long def);
long long cc_coach_fields_problem_int(const struct cc_coach_fields *f, int m,
	long long lo, long long hi, long long def);
const char *cc_coach_fields_problem_str(const struct cc_coach_fields *f, int m);
void cc_coach_fields_put_problem_str(struct cc_coach_fields *f, int m,
	const char *s);
/* delete the member "problem" */
void cc_coach_fields_drop_problem(struct cc_coach_fields *f);
long long cc_coach_fields_count(const struct cc_coach_fields *f, const char *key);
int cc_coach_fields_bump(struct cc_coach_fields *f, const char *key);
/* cc_coach_state_touch, _work_minutes, _stumble on fields; t: now as text */
int cc_coach_fields_touch(struct cc_coach_fields *f, time_t now, const char *t);
long cc_coach_fields_work_minutes(const struct cc_coach_fields *f, time_t now);
int cc_coach_fields_stumble(struct cc_coach_fields *f, const char *t);

/*
 * The problems a turn on fields finished, for cc_coach_states_save_fields
 * to append to the history: each entry's JSON text in text (NUL after
 * each, from off[i]), its time and whether it counts for the recap.
 */
#define CC_COACH_DONE_MAX 4
struct cc_coach_done {
	int n;
	size_t off[CC_COACH_DONE_MAX];
	time_t at[CC_COACH_DONE_MAX];
	unsigned char counts[CC_COACH_DONE_MAX];
	struct cc_buf text;
};
/*
 * cc_coach_turn on a kept session's state as fields: the same record
 * member, the same changes to the state (those to "solved" into *done,
 * emptied first).  recap is the session's, kept.
 */
int cc_coach_turn_fields(struct cc_coach_data *d, const char *text, size_t len,
	const char *lang, struct cc_coach_fields *f, time_t now,
	struct cc_coach_recap *recap, struct cc_coach_done *done, struct cc_jw *out);
/* the hint and progress steps on fields (cc_coach_hint.c, _progress.c) */
int cc_coach_hint_step_fields(const struct cc_coach_data *d, int advance,
	const char *pid, const char *lang, struct cc_coach_fields *f, time_t now,
	const char *t, struct cc_coach_hint *h);
int cc_coach_progress_step_fields(const struct cc_coach_data *d,
	const char *outcome, const char *pid, const char *lang,
	struct cc_coach_fields *f, time_t now, const char *t,
	struct cc_coach_done *done, struct cc_coach_progress *p);

/* 1 if the result (borrows) is an error result. */
int cc_coach_is_error(jv result);
/* {"error": msg}: the tools' error result. */
jv cc_coach_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- the session state ---- */

/*
 * The history of finished problems in the store (cc_coach_states.c): the
 * session's newest CC_COACH_MAX_SOLVED entries as a JSON array (owned;
 * [] when none), or jv_invalid() with err set.
 */
jv cc_coach_history_load(struct cc_session *s, const char *session, char *err,
	size_t errlen);
/*
 * Bring the history from was to now (both arrays or anything else as
 * none; borrowed): the entries now has at its end beyond was's appended,
 * and any other change (or replace set) the history cleared and written
 * anew.  Added at their own "at", or at `at`.  0, or -1 with err set.
 */
int cc_coach_history_save(struct cc_session *s, const char *session, jv was,
	jv now, int replace, time_t at, char *err, size_t errlen);
/*
 * A coach state (*coach, an object, borrowed and replaced) that still
 * holds "solved", as stored before the history: its entries appended to
 * the history and the state stored without them, under the file's lock.
 * 0 (nothing to do, or done), or -1 with err set.
 */
int cc_coach_history_convert(struct cc_session *s, const char *session,
	jv *coach, time_t now, char *err, size_t errlen);

/*
 * The state of a session: the "coach" state with its history of finished
 * problems as the member "solved" (absent when there is none) and the
 * "emotion" state as the member "emotion" (absent when there is none).
 * A session without state gives {}.  A stored coach state that still
 * holds its "solved" (as every version before the history did) has it
 * moved to the history first (its entries at their own times, or now).
 * 0, or -1 with err set (a store error or a stored text that is not a
 * JSON object).  *state is owned.
 */
int cc_coach_state_load(struct cc_session *s, const char *session, jv *state,
	time_t now, char *err, size_t errlen);
/*
 * Store state (borrows), split again: "emotion" under its own name,
 * "solved" as the history (entries that state has at its end beyond
 * before's are appended; any other change replaces the history), the rest
 * as "coach"; each part only when it differs from the same part of before
 * (borrows; jv_null() stores them all, the history replaced).  An "emotion" that is not an object is
 * not stored.  0, or -1 with err set.
 */
int cc_coach_state_save(struct cc_session *s, const char *session, jv before,
	jv state, time_t now, char *err, size_t errlen);

/*
 * The cc-coach stage's sessions, kept parsed between turns
 * (cc_coach_states.c): at most max sessions and max_size bytes of their
 * JSON texts, the least recently used given up first, and all of them
 * whenever another process has written the coach's state file
 * (cc_session_state_hold's contract).  Only the "coach" part: a turn
 * neither reads nor writes "emotion".
 */
struct cc_coach_states;
struct cc_coach_states *cc_coach_states_new(size_t max, size_t max_size);
void cc_coach_states_free(struct cc_coach_states *c);
/*
 * The session's coach state ({} when none), owned, as cc_coach_state_load
 * gives it but for "emotion", and for "solved" when the session is kept:
 * its history is then in *recap (kept), for cc_coach_turn (valid until
 * the next call with c; NULL when the session is not kept, and the state
 * has its "solved").  A kept state is lent, not copied: save gives it
 * back (a session loaded again without a save is read from the store).
 * This takes the coach state file's write lock for the current batch (a
 * read, a change and its write under one lock).  0, or -1 with err set,
 * *state {} and *recap NULL; after -1 nothing is kept.
 */
int cc_coach_states_load(struct cc_coach_states *c, struct cc_session *s,
	const char *session, time_t now, jv *state, struct cc_coach_recap **recap,
	char *err, size_t errlen);
/*
 * Keep the sessions' states as fields (struct cc_coach_fields) where they
 * fit, for the callers of cc_coach_states_load_fields: on when the data
 * fits them (cc_coach_fields_usable).
 */
void cc_coach_states_use_fields(struct cc_coach_states *c, int on);
/*
 * cc_coach_states_load, but a kept session whose state fits is given as
 * *fields (the kept struct itself, lent until cc_coach_states_save_fields;
 * *state then jv_null()); NULL when it is given as *state.  fields may be
 * NULL (cc_coach_states_load: always a jv).
 */
int cc_coach_states_load_fields(struct cc_coach_states *c, struct cc_session *s,
	const char *session, time_t now, jv *state, struct cc_coach_fields **fields,
	struct cc_coach_recap **recap, char *err, size_t errlen);
/*
 * After cc_coach_turn_fields: the problems it finished (done) appended
 * to the history, and the state's JSON, written from the fields, stored
 * when the turn changed it and it differs from the text stored.  0, or
 * -1 with err set; after -1 nothing is kept.
 */
int cc_coach_states_save_fields(struct cc_coach_states *c, struct cc_session *s,
	const char *session, int changed, struct cc_coach_done *done, time_t now,
	char *err, size_t errlen);

/*
 * Store state (consumed: kept) if it differs from what load gave, the
 * finished problems it has beyond before's appended to the history, and
 * keep it.  before (borrowed) is what load gave, a copy taken before the
 * turn, needed only when load gave no recap (the session not kept: a
 * copy would cost the kept ones a copy of their state on their turn's
 * first change); pass jv_invalid() otherwise.  Committed with the
 * store's batch (cc_session_flush), not at once.  0, or -1 with err set;
 * after -1 nothing is kept.
 */
int cc_coach_states_save(struct cc_coach_states *c, struct cc_session *s,
	const char *session, jv before, jv state, time_t now, char *err,
	size_t errlen);

/*
 * The turn left a kept session's state (consumed: kept) as
 * cc_coach_states_load gave it: kept again, nothing composed or written.
 * For a session load gave no recap, or that was given up since, this is
 * cc_coach_states_save with before jv_invalid() (nothing kept to compare:
 * the state is written).  0, or -1 with err set.
 */
int cc_coach_states_unchanged(struct cc_coach_states *c, struct cc_session *s,
	const char *session, jv state, time_t now, char *err, size_t errlen);

/*
 * The child did something at `now`: last_activity_at moves, and after a
 * pause of CC_COACH_BREAK_SECONDS or more work_started_at starts again.
 * These and the next two replace *state (anything but an object becomes
 * one).  1 if it changed the state (an object with other times), else 0.
 */
int cc_coach_state_touch(jv *state, time_t now);
/* Minutes of continuous work at `now` (0 after a break); borrows state. */
long cc_coach_state_work_minutes(jv state, time_t now);
/*
 * Make problem (borrows; an object with "id" and any of subject, topic,
 * expression, text) the current one.  A different id starts a new problem:
 * hint level 0, no stumbles, started_at now.  The same id updates the
 * fields it gives.  Returns 1 for a new problem, 0 for the same, -1 when
 * problem has no usable id (nothing changed).
 */
int cc_coach_state_set_problem(jv *state, jv problem, time_t now);
/* A wrong answer on the current problem; returns its stumbles (0: none). */
int cc_coach_state_stumble(jv *state, time_t now);

/* ---- helpers the tools share (cc_coach.c) ---- */

/*
 * Tool arguments.  Each reads the member key of args (borrows): 0 when it
 * is absent or null, 1 with the value, -1 with *err set to an error result
 * when it has the wrong type or is out of range.  A string must hold no
 * NUL and at most maxlen bytes (*out lives as long as args); an id is such
 * a string of at most 200 bytes or an integer, written into buf.
 */
int cc_coach_arg_str(jv args, const char *key, size_t maxlen, const char **out,
	jv *err);
int cc_coach_arg_id(jv args, const char *key, char *buf, size_t len, jv *err);
int cc_coach_arg_num(jv args, const char *key, double lo, double hi,
	double *out, jv *err);
/* The language of the lang argument: "en" or "ja" (default); borrows args. */
int cc_coach_arg_lang(jv args, const char **lang, jv *err);

/*
 * A number member as an integer, clamped to [lo, hi]; def when it is absent
 * or no number.  Borrows obj.
 */
long long cc_coach_get_int(jv obj, const char *key, long long lo, long long hi,
	long long def);
/* A string member, or NULL (valid while obj lives unchanged); borrows obj. */
const char *cc_coach_get_str(jv obj, const char *key);
/* t as ISO 8601 UTC ("2025-01-15T01:00:00Z"); owned jv string. */
jv cc_coach_time_jv(time_t t);
/* An ISO 8601 member as a time, or 0; borrows obj. */
time_t cc_coach_get_time(jv obj, const char *key);
/*
 * A text of coach.texts (or hints) with its {name}s filled in from vars
 * (may be NULL), as an owned jv string; "" when the key has no text.
 */
jv cc_coach_text(const struct cc_texts *t, const char *key, const char *lang,
	const struct cc_var *vars);

/* ---- achievements (cc_coach_progress.c) ---- */

/* Load the achievements file; 0, or -1 with "path:line: why" in err. */
int cc_coach_achievements_load(const char *path,
	struct cc_coach_achievement **out, size_t *n, char *err, size_t errlen);
/* The value of an achievement's metric in state (borrows). */
long long cc_coach_metric_value(int metric, jv state);

/* ---- the curriculum (cc_coach_curriculum.c) ---- */

/* Load the curriculum file; NULL with "path:line: why" in err. */
struct cc_curriculum *cc_curriculum_load(const char *path, char *err,
	size_t errlen);
void cc_curriculum_free(struct cc_curriculum *c);
/* 1 if (grade, subject, topic) is a key of the table (aliases included). */
int cc_curriculum_has(const struct cc_curriculum *c, int grade,
	const char *subject, const char *topic);
/*
 * The topic id that topic names in subject at any grade (itself, or the id
 * of the entry it is an alias of), or NULL: hints are kept by topic id.
 */
const char *cc_curriculum_canonical(const struct cc_curriculum *c,
	const char *subject, const char *topic);
/*
 * Visit every entry: fn(grade, subject, topic id, related topic ids
 * (a NULL-terminated list), arg).  For the data checks of the tests.
 */
void cc_curriculum_each(const struct cc_curriculum *c,
	void (*fn)(int grade, const char *subject, const char *topic,
	    const char *const *related, void *arg), void *arg);

/* ---- the parent report (cc_coach_report.c) ---- */

enum cc_coach_format {
	CC_COACH_TEXT,
	CC_COACH_MARKDOWN,
	CC_COACH_JSON,
};
/*
 * Today's report of a session: the problems finished on the local date of
 * `now` (in the zone set by cc_tz_use), by subject, with points, streak,
 * achievements and a kind sentence, in lang ("ja" or "en").  Borrows state;
 * returns the owned report object (the JSON format).
 */
jv cc_coach_report(const struct cc_coach_data *d, jv state, const char *session,
	time_t now, const char *lang);
/* Append the report (borrows) in a format; text is escaped for terminals. */
void cc_coach_report_write(const struct cc_coach_data *d, jv report,
	enum cc_coach_format format, struct cc_buf *out);

#endif
