/*
 * How the child feels, from the words and the session (cc_emotion.h;
 * the rules are described for people in cc-emotion(1)).
 *
 * Five classes of cues are scored, each the weight of its strongest cue:
 * frustration, confusion (not understanding, finding it hard: scored on
 * the frustration scale, so that confusion alone gives moderate support),
 * fatigue, confidence and excitement.  The seed's frustration is the
 * larger of frustration and confusion.  Floors from the record (stumbles,
 * minutes of work) and the decaying memory of the last turn can only
 * raise a score.  Scores are rounded to three decimals before the
 * thresholds, so that the record's numbers give the same decision when
 * fed to update_emotion again.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "coach/cc_lexicon.h"
#include "coach/cc_emotion.h"

#define HISTORY_MAX 20		/* turns kept in the state's history */

enum { K_FRUSTRATION, K_CONFUSION, K_FATIGUE, K_CONFIDENCE, K_EXCITEMENT, NK };
static const char *const class_names[NK] = {
	"frustration", "confusion", "fatigue", "confidence", "excitement",
};
/* The seed's four scores, in the order of its update_emotion arguments. */
static const char *const score_names[4] = {
	"frustration", "confidence", "fatigue", "excitement",
};
/* The seed's emotions, sorted as its error message lists them. */
static const char *const emotions[] = {
	"confident", "confused", "frustrated", "happy", "neutral", "tired", NULL,
};

struct floor {
	size_t input;		/* which input */
	double min;		/* applies when the input is at least this */
	int cls;		/* K_* */
	double score;		/* the class scores at least this */
	int line;
};

struct cc_emotion {
	struct cc_lexicon *lex;
	int lexcls[NK];		/* the lexicon's class number of each K_* */
	char **input_names, **input_paths;
	size_t ninputs;
	struct floor *floors;
	size_t nfloors;
	double decay;		/* memory: a score carried to the next turn */
	long window;		/* seconds after which nothing is carried */
};

/* ---- the seed's rules ---- */

static double
clamp(double x)
{
	return !(x > 0) ? 0 : x > 1 ? 1 : x;	/* NaN counts as 0 */
}

const char *
cc_emotion_support_level(double frustration, double fatigue)
{
	frustration = clamp(frustration);
	fatigue = clamp(fatigue);
	if (frustration > 0.7 || fatigue > 0.6)
		return "intensive";
	if (frustration > 0.4 || fatigue > 0.3)
		return "moderate";
	return "minimal";
}

const char *
cc_emotion_action(double frustration, double fatigue)
{
	if (clamp(fatigue) > 0.6)
		return "rest";		/* rest before encourage */
	if (clamp(frustration) > 0.7)
		return "encourage";
	return "continue";
}

static const char *
valid_emotion(const char *s)
{
	for (int i = 0; s && emotions[i]; i++)
		if (strcmp(emotions[i], s) == 0)
			return emotions[i];
	return NULL;
}

/*
 * The primary emotion, consistent with the support level by construction:
 * a negative emotion exactly when support is above minimal.  Where both
 * frustration and fatigue pass a threshold, the one further above its own
 * threshold wins (fatigue on a tie, as rest comes before encourage).
 */
static const char *
derive_primary(const double *k)
{
	double fr = fmax(k[K_FRUSTRATION], k[K_CONFUSION]), fa = k[K_FATIGUE];
	const char *frustrated = k[K_CONFUSION] > k[K_FRUSTRATION] ? "confused" : "frustrated";

	if (fr > 0.7 || fa > 0.6)
		return fa > 0.6 && fa - 0.6 >= fr - 0.7 ? "tired" : "frustrated";
	if (fr > 0.4 || fa > 0.3)
		return fa > 0.3 && fa - 0.3 >= fr - 0.4 ? "tired" : frustrated;
	if (fmax(k[K_CONFIDENCE], k[K_EXCITEMENT]) >= 0.5)
		return k[K_EXCITEMENT] >= k[K_CONFIDENCE] ? "happy" : "confident";
	return "neutral";
}

/* ---- state ---- */

static void
iso_time(time_t t, char *buf, size_t n)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
}

static double
state_number(jv state, const char *key)
{
	jv v = jv_object_get(jv_copy(state), jv_string(key));
	double d = jv_get_kind(v) == JV_KIND_NUMBER ? clamp(jv_number_value(v)) : 0;

	jv_free(v);
	return d;
}

/* The new state: scores, decision, time, and the history with this turn. */
static jv
new_state(jv old /* borrows */, const double *four, const char *primary,
    const char *support, const char *action, time_t now)
{
	char at[40];
	jv s = jv_object(), hist = jv_array(), entry;
	int n = 0;

	iso_time(now, at, sizeof at);
	for (int i = 0; i < 4; i++)
		s = jv_object_set(s, jv_string(score_names[i]), jv_number(four[i]));
	s = jv_object_set(s, jv_string("primary_emotion"), jv_string(primary));
	s = jv_object_set(s, jv_string("support_level"), jv_string(support));
	s = jv_object_set(s, jv_string("action_recommended"), jv_string(action));
	s = jv_object_set(s, jv_string("updated_at"), jv_string(at));
	if (jv_get_kind(old) == JV_KIND_OBJECT) {
		jv h = jv_object_get(jv_copy(old), jv_string("history"));

		if (jv_get_kind(h) == JV_KIND_ARRAY) {
			n = jv_array_length(jv_copy(h));
			/* keep the newest HISTORY_MAX - 1, then this turn */
			for (int i = n > HISTORY_MAX - 1 ? n - (HISTORY_MAX - 1) : 0; i < n; i++)
				hist = jv_array_append(hist, jv_array_get(jv_copy(h), i));
		}
		jv_free(h);
	}
	entry = jv_object();
	entry = jv_object_set(entry, jv_string("at"), jv_string(at));
	entry = jv_object_set(entry, jv_string("primary_emotion"), jv_string(primary));
	entry = jv_object_set(entry, jv_string("support_level"), jv_string(support));
	hist = jv_array_append(hist, entry);
	return jv_object_set(s, jv_string("history"), hist);
}

static void
replace_state(jv *state, jv fresh)
{
	jv_free(*state);
	*state = fresh;
}

/* ---- update_emotion ---- */

static jv
error_result(const char *fmt, const char *arg)
{
	char msg[512];

	snprintf(msg, sizeof msg, fmt, arg);
	return jv_object_set(jv_object(), jv_string("error"), jv_string(msg));
}

/* The value's JSON text, or its string, for a message. */
static void
shown(jv v /* borrows */, char *buf, size_t n)
{
	if (jv_get_kind(v) == JV_KIND_STRING) {
		snprintf(buf, n, "%s", jv_string_value(v));
	} else {
		jv t = jv_dump_string(jv_copy(v), 0);

		snprintf(buf, n, "%s", jv_string_value(t));
		jv_free(t);
	}
}

/*
 * Check the seed's arguments: the four scores into four[] (clamped) and
 * the primary emotion (NULL when absent and may_derive).  0, or -1 and
 * *error.
 */
static int
read_scores(jv args, int may_derive, double *four, const char **primary, jv *error)
{
	char got[200];
	jv p;

	if (jv_get_kind(args) != JV_KIND_OBJECT) {
		*error = error_result("%s", "Invalid arguments: expected an object with "
		    "frustration, confidence, fatigue, excitement and primary_emotion");
		return -1;
	}
	p = jv_object_get(jv_copy(args), jv_string("primary_emotion"));
	*primary = NULL;
	if (jv_get_kind(p) == JV_KIND_STRING)
		*primary = valid_emotion(jv_string_value(p));
	if (!*primary && (jv_is_valid(p) || !may_derive)) {
		if (jv_is_valid(p))
			shown(p, got, sizeof got);
		else
			snprintf(got, sizeof got, "(missing)");
		*error = error_result("Invalid primary_emotion: %s. Must be one of: "
		    "confident, confused, frustrated, happy, neutral, tired", got);
		jv_free(p);
		return -1;
	}
	jv_free(p);
	for (int i = 0; i < 4; i++) {
		jv v = jv_object_get(jv_copy(args), jv_string(score_names[i]));

		if (jv_get_kind(v) != JV_KIND_NUMBER) {
			*error = error_result(jv_is_valid(v) ? "Invalid %s: must be a number" :
			    "Missing %s: a number from 0 to 1 is required", score_names[i]);
			jv_free(v);
			return -1;
		}
		four[i] = clamp(jv_number_value(v));
		jv_free(v);
	}
	return 0;
}

jv
cc_emotion_update(jv args, jv *state, time_t now)
{
	double four[4];
	const char *primary, *support, *action;
	jv error, result;

	if (read_scores(args, 0, four, &primary, &error) < 0)
		return error;
	support = cc_emotion_support_level(four[0], four[2]);
	action = cc_emotion_action(four[0], four[2]);
	if (state)
		replace_state(state, new_state(*state, four, primary, support, action, now));
	result = jv_object();
	result = jv_object_set(result, jv_string("primary_emotion"), jv_string(primary));
	result = jv_object_set(result, jv_string("support_level"), jv_string(support));
	return jv_object_set(result, jv_string("action_recommended"), jv_string(action));
}

/* ---- loading ---- */

static int
setting_error(struct cc_emotion *e, const struct cc_lexicon_line *l,
    const char *want, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s:%d: expected '%s %s'", cc_lexicon_path(e->lex),
	    l->line, l->directive, want);
	return -1;
}

static int
number_word(char **rest, double *d)
{
	char *w = cc_word(rest), *end;

	*d = strtod(w, &end);
	return *w && !*end && isfinite(*d) ? 0 : -1;
}

static int
read_settings(struct cc_emotion *e, char *err, size_t errlen)
{
	for (size_t i = 0; i < cc_lexicon_nextra(e->lex); i++) {
		const struct cc_lexicon_line *l = cc_lexicon_extra(e->lex, i);
		char *args = cc_xstrdup(l->args), *rest = args;
		int rc = 0;

		if (strcmp(l->directive, "input") == 0) {
			char *name = cc_word(&rest), *path = cc_word(&rest);

			if (!*name || !*path || *rest)
				rc = setting_error(e, l, "NAME PATH", err, errlen);
			else {
				e->input_names = cc_xrealloc(e->input_names,
				    (e->ninputs + 1) * sizeof *e->input_names);
				e->input_paths = cc_xrealloc(e->input_paths,
				    (e->ninputs + 1) * sizeof *e->input_paths);
				e->input_names[e->ninputs] = cc_xstrdup(name);
				e->input_paths[e->ninputs++] = cc_xstrdup(path);
			}
		} else if (strcmp(l->directive, "floor") == 0) {
			struct floor f = { .line = l->line, .cls = -1 };
			char *name = cc_word(&rest), *cls;
			size_t k;

			for (k = 0; k < e->ninputs && strcmp(e->input_names[k], name); k++)
				;
			f.input = k;
			if (number_word(&rest, &f.min) == 0) {
				cls = cc_word(&rest);
				for (int c = 0; c < NK; c++)
					if (strcmp(class_names[c], cls) == 0)
						f.cls = c;
			}
			if (k == e->ninputs || f.cls < 0 || number_word(&rest, &f.score) < 0 ||
			    f.score < 0 || f.score > 1 || *rest)
				rc = setting_error(e, l, "INPUT MIN CLASS SCORE (an input "
				    "declared above, a class of the five, a score from 0 to 1)",
				    err, errlen);
			else {
				e->floors = cc_xrealloc(e->floors, (e->nfloors + 1) * sizeof *e->floors);
				e->floors[e->nfloors++] = f;
			}
		} else {	/* memory decay D window SECONDS */
			char *kw;
			double d;

			while (rc == 0 && *(kw = cc_word(&rest))) {
				if (number_word(&rest, &d) < 0)
					rc = -1;
				else if (strcmp(kw, "decay") == 0 && d >= 0 && d <= 1)
					e->decay = d;
				else if (strcmp(kw, "window") == 0 && d >= 0 && d < 1e9)
					e->window = (long)d;
				else
					rc = -1;
			}
			if (rc < 0)
				setting_error(e, l, "decay D window SECONDS", err, errlen);
		}
		free(args);
		if (rc < 0)
			return -1;
	}
	return 0;
}

struct cc_emotion *
cc_emotion_load(const char *path, char *err, size_t errlen)
{
	static const char *const extra[] = { "input", "floor", "memory", NULL };
	struct cc_emotion *e = cc_xmalloc(sizeof *e);

	*e = (struct cc_emotion){ .decay = 0.5, .window = 600 };
	if (!(e->lex = cc_lexicon_load(path, extra, err, errlen))) {
		free(e);
		return NULL;
	}
	for (int k = 0; k < NK; k++) {
		if ((e->lexcls[k] = cc_lexicon_class(e->lex, class_names[k])) < 0) {
			snprintf(err, errlen, "%s: no class '%s' (the five classes are "
			    "frustration, confusion, fatigue, confidence, excitement)",
			    path, class_names[k]);
			cc_emotion_free(e);
			return NULL;
		}
	}
	if (read_settings(e, err, errlen) < 0) {
		cc_emotion_free(e);
		return NULL;
	}
	return e;
}

void
cc_emotion_free(struct cc_emotion *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->ninputs; i++) {
		free(e->input_names[i]);
		free(e->input_paths[i]);
	}
	free(e->input_names);
	free(e->input_paths);
	free(e->floors);
	cc_lexicon_free(e->lex);
	free(e);
}

size_t
cc_emotion_ninputs(const struct cc_emotion *e)
{
	return e->ninputs;
}

const char *
cc_emotion_input_name(const struct cc_emotion *e, size_t i)
{
	return i < e->ninputs ? e->input_names[i] : NULL;
}

const char *
cc_emotion_input_path(const struct cc_emotion *e, size_t i)
{
	return i < e->ninputs ? e->input_paths[i] : NULL;
}

/* ---- one turn ---- */

static int
class_of(const struct cc_emotion *e, int lexcls)
{
	for (int k = 0; k < NK; k++)
		if (e->lexcls[k] == lexcls)
			return k;
	return -1;
}

static double
round3(double x)
{
	return round(clamp(x) * 1000) / 1000;
}

/*
 * What the last turn leaves: each score times the decay, when the last
 * turn is at most `window` seconds old.  Frustration is carried as
 * confusion when the last turn was confused.  A turn with a confident or
 * happy cue of its own lets carried frustration and confusion decay once
 * more: a success calms a tantrum faster.  0 when nothing is carried.
 */
static int
carried(const struct cc_emotion *e, jv state, time_t now, int positive, double *c,
    time_t *from)
{
	jv at = jv_invalid(), primary;
	double fr;
	int ok = 0;

	memset(c, 0, NK * sizeof *c);
	if (jv_get_kind(state) != JV_KIND_OBJECT || e->decay <= 0)
		return 0;
	at = jv_object_get(jv_copy(state), jv_string("updated_at"));
	ok = jv_get_kind(at) == JV_KIND_STRING &&
	    cc_time_parse_iso8601(jv_string_value(at), from) == 0 &&
	    *from <= now && now - *from <= e->window;
	jv_free(at);
	if (!ok)
		return 0;
	primary = jv_object_get(jv_copy(state), jv_string("primary_emotion"));
	fr = state_number(state, "frustration") * e->decay;
	if (positive)
		fr *= e->decay;
	if (jv_get_kind(primary) == JV_KIND_STRING &&
	    strcmp(jv_string_value(primary), "confused") == 0)
		c[K_CONFUSION] = fr;
	else
		c[K_FRUSTRATION] = fr;
	jv_free(primary);
	c[K_FATIGUE] = state_number(state, "fatigue") * e->decay;
	c[K_CONFIDENCE] = state_number(state, "confidence") * e->decay;
	c[K_EXCITEMENT] = state_number(state, "excitement") * e->decay;
	return 1;
}

static void
write_decision(struct cc_jw *w, const double *four, const char *primary,
    const char *support, const char *action)
{
	for (int i = 0; i < 4; i++) {
		cc_jw_key(w, score_names[i]);
		cc_jw_num(w, four[i]);
	}
	cc_jw_key(w, "primary_emotion");
	cc_jw_cstr(w, primary);
	cc_jw_key(w, "support_level");
	cc_jw_cstr(w, support);
	cc_jw_key(w, "action_recommended");
	cc_jw_cstr(w, action);
}

static const char *
mod_name(enum cc_lexicon_mod m)
{
	return m == CC_LEX_SOFT ? "soft" : m == CC_LEX_STRONG ? "strong" :
	    m == CC_LEX_NEGATED ? "negated" : NULL;
}

/* The caller measured the scores: the seed's update_emotion, no more. */
static int
given_turn(const struct cc_emotion_turn *t, struct cc_jw *w, char *err, size_t errlen)
{
	double four[4], k[NK] = {0};
	const char *primary, *support, *action;
	jv error;

	if (read_scores(t->given, 1, four, &primary, &error) < 0) {
		jv m = jv_object_get(error, jv_string("error"));

		snprintf(err, errlen, "emotion: %s", jv_string_value(m));
		jv_free(m);
		return -1;
	}
	if (!primary) {
		k[K_FRUSTRATION] = four[0];
		k[K_CONFIDENCE] = four[1];
		k[K_FATIGUE] = four[2];
		k[K_EXCITEMENT] = four[3];
		primary = derive_primary(k);
	}
	support = cc_emotion_support_level(four[0], four[2]);
	action = cc_emotion_action(four[0], four[2]);
	cc_jw_object(w);
	write_decision(w, four, primary, support, action);
	cc_jw_key(w, "debug_info");
	cc_jw_object(w);
	cc_jw_key(w, "source");
	cc_jw_cstr(w, "caller");
	cc_jw_end(w);
	cc_jw_end(w);
	if (t->state)
		replace_state(t->state, new_state(*t->state, four, primary, support,
		    action, t->now));
	return 0;
}

int
cc_emotion_turn(struct cc_emotion *e, const struct cc_emotion_turn *t,
    struct cc_jw *w, char *err, size_t errlen)
{
	double k[NK] = {0}, c[NK], four[4];
	const char *primary, *support, *action, *text;
	size_t nhits = 0, tlen;
	int positive = 0, have_carry = 0;
	time_t from = 0;

	if (jv_is_valid(t->given))
		return given_turn(t, w, err, errlen);
	if (t->text)
		nhits = cc_lexicon_scan(e->lex, t->text, t->len);
	for (size_t i = 0; i < nhits; i++) {
		const struct cc_lexicon_hit *h = cc_lexicon_hit(e->lex, i);
		int kk = class_of(e, h->cls);

		if (kk < 0 || h->weight <= 0)
			continue;
		k[kk] = fmax(k[kk], h->weight);
		positive |= kk == K_CONFIDENCE || kk == K_EXCITEMENT;
	}
	for (size_t i = 0; i < e->nfloors; i++) {
		const struct floor *f = &e->floors[i];
		double v = t->inputs ? t->inputs[f->input] : NAN;

		if (!isnan(v) && v >= f->min)
			k[f->cls] = fmax(k[f->cls], f->score);
	}
	if (t->state && (have_carry = carried(e, *t->state, t->now, positive, c, &from)))
		for (int i = 0; i < NK; i++)
			k[i] = fmax(k[i], c[i]);
	for (int i = 0; i < NK; i++)
		k[i] = round3(k[i]);
	four[0] = fmax(k[K_FRUSTRATION], k[K_CONFUSION]);
	four[1] = k[K_CONFIDENCE];
	four[2] = k[K_FATIGUE];
	four[3] = k[K_EXCITEMENT];
	primary = derive_primary(k);
	support = cc_emotion_support_level(four[0], four[2]);
	action = cc_emotion_action(four[0], four[2]);

	cc_jw_object(w);
	write_decision(w, four, primary, support, action);
	cc_jw_key(w, "debug_info");
	cc_jw_object(w);
	cc_jw_key(w, "source");
	cc_jw_cstr(w, "words");
	cc_jw_key(w, "cues");
	cc_jw_array(w);
	text = t->text ? cc_lexicon_text(e->lex, &tlen) : "";
	if (!t->text)
		tlen = 0;
	for (size_t i = 0; i < nhits; i++) {
		const struct cc_lexicon_hit *h = cc_lexicon_hit(e->lex, i);

		cc_jw_object(w);
		cc_jw_key(w, "class");
		cc_jw_cstr(w, cc_lexicon_class_name(e->lex, h->cls));
		if (h->cls != h->cue_cls) {
			cc_jw_key(w, "written_as");
			cc_jw_cstr(w, cc_lexicon_class_name(e->lex, h->cue_cls));
		}
		cc_jw_key(w, "text");
		cc_jw_str(w, text + h->start, h->end - h->start);
		cc_jw_key(w, "weight");
		cc_jw_num(w, h->weight);
		if (h->mod != CC_LEX_PLAIN) {
			cc_jw_key(w, "modifier");
			cc_jw_cstr(w, mod_name(h->mod));
		}
		cc_jw_key(w, "line");
		cc_jw_num(w, h->line);
		cc_jw_end(w);
	}
	cc_jw_end(w);
	cc_jw_key(w, "session");
	cc_jw_object(w);
	for (size_t i = 0; t->inputs && i < e->ninputs; i++) {
		if (isnan(t->inputs[i]))
			continue;
		cc_jw_key(w, e->input_names[i]);
		cc_jw_num(w, t->inputs[i]);
	}
	cc_jw_key(w, "floors");
	cc_jw_array(w);
	for (size_t i = 0; i < e->nfloors; i++) {
		const struct floor *f = &e->floors[i];
		double v = t->inputs ? t->inputs[f->input] : NAN;

		if (isnan(v) || v < f->min)
			continue;
		cc_jw_object(w);
		cc_jw_key(w, "input");
		cc_jw_cstr(w, e->input_names[f->input]);
		cc_jw_key(w, "at_least");
		cc_jw_num(w, f->min);
		cc_jw_key(w, "class");
		cc_jw_cstr(w, class_names[f->cls]);
		cc_jw_key(w, "score");
		cc_jw_num(w, f->score);
		cc_jw_end(w);
	}
	cc_jw_end(w);
	cc_jw_key(w, "carried");
	if (have_carry) {
		char at[40];

		cc_jw_object(w);
		iso_time(from, at, sizeof at);
		cc_jw_key(w, "from");
		cc_jw_cstr(w, at);
		for (int i = 0; i < NK; i++) {
			cc_jw_key(w, class_names[i]);
			cc_jw_num(w, round3(c[i]));
		}
		cc_jw_end(w);
	} else {
		cc_jw_null(w);
	}
	cc_jw_end(w);
	cc_jw_key(w, "text");
	cc_jw_str(w, text, tlen);
	cc_jw_end(w);
	cc_jw_end(w);
	if (t->state)
		replace_state(t->state, new_state(*t->state, four, primary, support,
		    action, t->now));
	return 0;
}
