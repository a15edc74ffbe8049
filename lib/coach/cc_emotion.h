/*
 * cc_emotion.h: how the child feels (seed 001, section 6): the four scores
 * frustration, confidence, fatigue and excitement (0-1), the primary
 * emotion, and the seed's support level and recommended action.
 *
 * The seed's rules, exactly: scores are clamped to 0-1 first; support is
 * intensive when frustration > 0.7 or fatigue > 0.6, else moderate when
 * frustration > 0.4 or fatigue > 0.3, else minimal; the action is rest
 * when fatigue > 0.6 (checked first), else encourage when frustration >
 * 0.7, else continue.
 *
 * Scores come from the caller (update_emotion, or a record whose
 * "emotion" already holds scores), or from the child's words through a
 * cue lexicon (emotion.cues: classes frustration, confusion, fatigue,
 * confidence, excitement; format in cc_lexicon.h) together with the
 * session: floors from numbers of the record (three stumbles on one
 * problem, fifteen minutes of work) and a decaying memory of the last
 * turn.  cc-emotion(1) describes the rules.
 *
 * The session state is one JSON object (the state named "emotion"): the
 * four clamped scores, primary_emotion, support_level,
 * action_recommended, updated_at (ISO 8601, UTC) and history (the last
 * turns' primary_emotion and support_level, oldest first).
 *
 * Owns: the lexicon and its settings.  Borrows: cc_lexicon, cc_json (the
 * writer), libjq's jv for state and arguments.
 */
#ifndef CC_EMOTION_H
#define CC_EMOTION_H

#include <jv.h>
#include <stddef.h>
#include <time.h>

#include "cc_json.h"

struct cc_emotion;

/* Load emotion.cues; NULL with a "path:line: why" message. */
struct cc_emotion *cc_emotion_load(const char *path, char *err, size_t errlen);
void cc_emotion_free(struct cc_emotion *e);
/*
 * The record members the floors read ("input NAME PATH" lines): the
 * caller looks each path up and passes the numbers in
 * cc_emotion_turn.inputs, in this order.
 */
size_t cc_emotion_ninputs(const struct cc_emotion *e);
const char *cc_emotion_input_name(const struct cc_emotion *e, size_t i);
const char *cc_emotion_input_path(const struct cc_emotion *e, size_t i);

/* One turn of a conversation, as cc-emotion sees it. */
struct cc_emotion_turn {
	const char *text;	/* the child's words (not NUL-terminated), or NULL */
	size_t len;
	jv given;		/* caller-given scores (borrows), or jv_invalid() */
	const double *inputs;	/* cc_emotion_ninputs() numbers; NAN: absent */
	jv *state;		/* the session's state: read and replaced; NULL: none */
	time_t now;
};

/*
 * Decide one turn and write the record's "emotion" object to w: the four
 * scores, primary_emotion, support_level, action_recommended and
 * debug_info.  given, when valid, must be an object with the four scores
 * as numbers and, optionally, a valid primary_emotion (else one is
 * derived from the scores); it is used as it is, without cues, floors or
 * memory.  Returns 0, or -1 with a message in err when given is
 * malformed (then nothing is written and the state is unchanged).
 */
int cc_emotion_turn(struct cc_emotion *e, const struct cc_emotion_turn *t,
	struct cc_jw *w, char *err, size_t errlen);

/*
 * The seed's update_emotion tool: args (borrows) holds frustration,
 * confidence, fatigue, excitement (numbers) and primary_emotion (one of
 * frustrated, confident, confused, happy, tired, neutral, case-sensitive).
 * Returns {primary_emotion, support_level, action_recommended} and
 * replaces *state (owned by the caller; the old value is consumed) with
 * the new state, keeping its history; or returns {"error": message} and
 * leaves *state untouched.
 */
jv cc_emotion_update(jv args, jv *state, time_t now);

/* The seed's rules, for callers with scores of their own (clamped first). */
const char *cc_emotion_support_level(double frustration, double fatigue);
const char *cc_emotion_action(double frustration, double fatigue);

#endif
