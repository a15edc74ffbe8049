/*
 * The cc-coach stage's sessions, kept parsed between turns.  Reading a
 * session's state back from the store every turn meant parsing its JSON
 * (the history of finished problems grows to CC_COACH_MAX_SOLVED
 * entries), which cost more than the turn itself; here a turn starts from
 * the value the last turn of its session left, for as long as the store
 * says nobody else wrote the coach's state file (cc_session_state_hold).
 *
 * At most `max` sessions are kept, the least recently used given up
 * first: a chained hash for the lookup, a list for the order.
 *
 * A session's finished problems ("solved", up to CC_COACH_MAX_SOLVED,
 * about 5 kB of a busy session's 5.5) are not part of the state kept or
 * stored: they are the state's history in the store, appended to as
 * problems are finished, and kept here as what today's recap needs of
 * them (cc_coach_recap).  Rewriting the whole list with the state every
 * turn was most of a turn's cost: copying it between jv values, comparing
 * it, writing its JSON and 5 kB a turn into SQLite's log.
 */
#include "config.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_session.h"
#include "cc_coach.h"

struct entry {
	char *session;
	jv state;			/* the coach part, as stored */
	size_t size;			/* the length of its text */
	char *text;			/* the state as stored (NULL: none yet) */
	int lent;			/* state is the caller's until it saves */
	struct cc_coach_fields *fields;	/* the state as fields, or NULL: in state */
	struct cc_coach_recap recap;	/* what its turns keep */
	struct entry *chain;		/* the next in its hash bucket */
	struct entry *newer, *older;	/* the use order */
};

struct cc_coach_states {
	struct entry **bucket;
	size_t nbuckets, n, max;
	size_t size, max_size;		/* of the texts, a proxy for memory */
	struct entry *newest, *oldest;
	struct cc_buf text;		/* the state as written, reused */
	int use_fields;			/* keep states as fields where they fit */
};

/* ---- the history of finished problems ---- */

/* 1 if a history entry (borrows) counts for a recap: finished, not abandoned. */
static int
entry_counts(jv e)
{
	const char *outcome = cc_coach_get_str(e, "outcome");

	return outcome && strcmp(outcome, "abandoned") != 0;
}

static void recap_push(struct cc_coach_recap *r, time_t at, int counts);

void
cc_coach_recap_add(struct cc_coach_recap *r, jv entry)
{
	recap_push(r, cc_coach_get_time(entry, "at"), entry_counts(entry));
}

static void
recap_push(struct cc_coach_recap *r, time_t at, int counts)
{
	int i;

	if (!r->at) {
		r->at = cc_xmalloc(CC_COACH_MAX_SOLVED * sizeof *r->at);
		r->counts = cc_xmalloc(CC_COACH_MAX_SOLVED);
		r->n = r->oldest = 0;
	}
	if (r->n == CC_COACH_MAX_SOLVED) {
		i = r->oldest;
		if (r->start && r->counts[i] && r->at[i] >= r->start)
			r->count--;
		r->oldest = (r->oldest + 1) % CC_COACH_MAX_SOLVED;
		r->n--;
	}
	i = (r->oldest + r->n++) % CC_COACH_MAX_SOLVED;
	r->at[i] = at;
	r->counts[i] = (unsigned char)counts;
	if (r->start && counts && at >= r->start)
		r->count++;
}

jv
cc_coach_history_load(struct cc_session *s, const char *session, char *err,
    size_t errlen)
{
	char **items;
	int n = cc_session_history_get(s, session, "coach", CC_COACH_MAX_SOLVED, &items);
	jv list = jv_array();

	if (n < 0) {
		jv_free(list);
		snprintf(err, errlen, "cannot read the session's finished problems: %s",
		    cc_session_error(s));
		return jv_invalid();
	}
	for (int i = 0; i < n; i++) {
		jv e = cc_json_parse(items[i], strlen(items[i]));

		/* an entry that is no JSON is left out, as a bad one is by its readers */
		if (jv_is_valid(e))
			list = jv_array_append(list, e);
		else
			jv_free(e);
		free(items[i]);
	}
	free(items);
	return list;
}

static int
history_add(struct cc_session *s, const char *session, jv e, time_t at,
    struct cc_buf *b, char *err, size_t errlen)
{
	time_t t = cc_coach_get_time(e, "at");

	b->len = 0;
	cc_json_put(b, e);
	cc_buf_add(b, "", 1);
	if (cc_session_history_add(s, session, "coach", b->data, t ? t : at) < 0) {
		snprintf(err, errlen, "cannot store the session's finished problems: %s",
		    cc_session_error(s));
		return -1;
	}
	return 0;
}

static int
len_of(jv v)
{
	return jv_get_kind(v) == JV_KIND_ARRAY ? jv_array_length(jv_copy(v)) : 0;
}

/* 1 if a[ai..ai+n) equals b[bi..bi+n) (both borrowed). */
static int
same_run(jv a, int ai, jv b, int bi, int n)
{
	for (int i = 0; i < n; i++)
		if (!jv_equal(jv_array_get(jv_copy(a), ai + i), jv_array_get(jv_copy(b), bi + i)))
			return 0;
	return 1;
}

int
cc_coach_history_save(struct cc_session *s, const char *session, jv was,
    jv now, int replace, time_t at, char *err, size_t errlen)
{
	struct cc_buf b = {0};
	int kb = len_of(was), ka = len_of(now), from = -1, rc = 0;

	if (!replace) {
		/* the fewest entries at now's end that make it was's end and them */
		for (int m = 0; m <= ka && from < 0; m++) {
			int overlap = ka - m;

			if (overlap <= kb && (overlap == kb || ka >= CC_COACH_MAX_SOLVED) &&
			    same_run(was, kb - overlap, now, 0, overlap))
				from = overlap;
		}
		if (from == ka)
			return 0;
	}
	if (from < 0) {
		from = 0;
		if (cc_session_history_clear(s, session, "coach") < 0) {
			snprintf(err, errlen, "cannot store the session's finished problems: %s",
			    cc_session_error(s));
			return -1;
		}
	}
	for (int i = from; rc == 0 && i < ka; i++) {
		jv e = jv_array_get(jv_copy(now), i);

		rc = history_add(s, session, e, at, &b, err, errlen);
		jv_free(e);
	}
	cc_buf_release(&b);
	return rc;
}

int
cc_coach_history_convert(struct cc_session *s, const char *session, jv *coach,
    time_t now, char *err, size_t errlen)
{
	struct cc_buf b = {0};
	jv solved;
	int rc;

	if (jv_get_kind(*coach) != JV_KIND_OBJECT ||
	    !jv_object_has(jv_copy(*coach), cc_jv_name("solved")))
		return 0;
	solved = jv_object_get(jv_copy(*coach), cc_jv_name("solved"));
	*coach = jv_object_delete(*coach, cc_jv_name("solved"));
	rc = cc_coach_history_save(s, session, jv_null(), solved, 0, now, err, errlen);
	jv_free(solved);
	if (rc < 0)
		return -1;
	cc_json_put(&b, *coach);
	cc_buf_add(&b, "", 1);
	if (cc_session_state_put(s, session, "coach", b.data, now) < 0) {
		snprintf(err, errlen, "cannot store the session's coach state: %s",
		    cc_session_error(s));
		rc = -1;
	}
	cc_buf_release(&b);
	return rc;
}

struct cc_coach_states *
cc_coach_states_new(size_t max, size_t max_size)
{
	struct cc_coach_states *c = cc_xmalloc(sizeof *c);

	memset(c, 0, sizeof *c);
	c->max = max ? max : 1;
	c->max_size = max_size;
	c->nbuckets = 64;
	while (c->nbuckets < 2 * c->max)
		c->nbuckets *= 2;
	c->bucket = calloc(c->nbuckets, sizeof *c->bucket);
	if (!c->bucket)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	return c;
}

static void
entry_free(struct entry *e)
{
	free(e->session);
	jv_free(e->state);
	free(e->text);
	if (e->fields) {
		cc_coach_fields_release(e->fields);
		free(e->fields);
	}
	cc_coach_recap_release(&e->recap);
	free(e);
}

/* Forget every session: another process wrote the file. */
static void
forget_all(struct cc_coach_states *c)
{
	struct entry *e = c->newest, *next;

	for (; e; e = next) {
		next = e->older;
		entry_free(e);
	}
	memset(c->bucket, 0, c->nbuckets * sizeof *c->bucket);
	c->newest = c->oldest = NULL;
	c->n = 0;
	c->size = 0;
}

void
cc_coach_states_free(struct cc_coach_states *c)
{
	if (!c)
		return;
	forget_all(c);
	free(c->bucket);
	cc_buf_release(&c->text);
	free(c);
}

static size_t
hash(const char *s)
{
	uint64_t h = 14695981039346656037u;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return (size_t)h;
}

static struct entry **
slot(struct cc_coach_states *c, const char *session)
{
	struct entry **p = &c->bucket[hash(session) & (c->nbuckets - 1)];

	while (*p && strcmp((*p)->session, session) != 0)
		p = &(*p)->chain;
	return p;
}

static void
unlink_use(struct cc_coach_states *c, struct entry *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		c->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		c->oldest = e->newer;
}

static void
link_newest(struct cc_coach_states *c, struct entry *e)
{
	e->newer = NULL;
	e->older = c->newest;
	if (c->newest)
		c->newest->newer = e;
	c->newest = e;
	if (!c->oldest)
		c->oldest = e;
}

static void
drop(struct cc_coach_states *c, const char *session)
{
	struct entry **p = slot(c, session), *e = *p;

	if (!e)
		return;
	*p = e->chain;
	unlink_use(c, e);
	c->size -= e->size;
	entry_free(e);
	c->n--;
}

/*
 * Keep state (consumed), whose text is size bytes, as the session's, the
 * least recently used given up for room; one too large is not kept.
 */
static void
keep(struct cc_coach_states *c, const char *session, jv state, size_t size)
{
	struct entry **p = slot(c, session), *e = *p;

	if (e) {
		*p = e->chain;
		unlink_use(c, e);
		c->size -= e->size;
		c->n--;
	} else {
		e = cc_xmalloc(sizeof *e);
		memset(e, 0, sizeof *e);
		e->session = cc_xstrdup(session);
		e->state = jv_null();
	}
	if (size > c->max_size) {
		jv_free(state);
		entry_free(e);
		return;
	}
	while (c->oldest && (c->n == c->max || c->size + size > c->max_size))
		drop(c, c->oldest->session);
	jv_free(e->state);
	e->state = state;
	e->size = size;
	p = &c->bucket[hash(session) & (c->nbuckets - 1)];
	e->chain = *p;
	*p = e;
	link_newest(c, e);
	c->n++;
	c->size += size;
}

void
cc_coach_states_use_fields(struct cc_coach_states *c, int on)
{
	c->use_fields = on;
}

int
cc_coach_states_load(struct cc_coach_states *c, struct cc_session *s,
    const char *session, time_t now, jv *state, struct cc_coach_recap **recap,
    char *err, size_t errlen)
{
	return cc_coach_states_load_fields(c, s, session, now, state, NULL, recap,
	    err, errlen);
}

int
cc_coach_states_load_fields(struct cc_coach_states *c, struct cc_session *s,
    const char *session, time_t now, jv *state, struct cc_coach_fields **fields,
    struct cc_coach_recap **recap, char *err, size_t errlen)
{
	jv history;
	char *stored = NULL;	/* the text of the state as stored */
	struct entry *e;
	char *json = NULL;
	size_t size = 2;
	int rc = cc_session_state_hold(s, "coach");

	*state = jv_object();
	*recap = NULL;
	if (fields)
		*fields = NULL;
	if (rc < 0) {
		forget_all(c);
		snprintf(err, errlen, "cannot read the session's coach state: %s",
		    cc_session_error(s));
		return -1;
	}
	if (rc == 1)
		forget_all(c);
	if ((e = *slot(c, session)) && (e->lent || (e->fields && !fields)))
		drop(c, session);	/* loaded and never saved: read it again */
	else if (e) {
		unlink_use(c, e);
		link_newest(c, e);
		e->lent = 1;
		*recap = &e->recap;
		if (e->fields) {
			jv_free(*state);
			*state = jv_null();
			*fields = e->fields;
			return 0;
		}
		/*
		 * Lent, not copied: a state held twice is copied whole by the
		 * turn's first change (libjq's copy on write), every member
		 * touched, and so is each member object changed while a copy
		 * holds it too.
		 */
		jv_free(*state);
		*state = e->state;
		e->state = jv_null();
		return 0;
	}
	/* as cc_coach_state_load, but for the emotion (the turn never reads it) */
	rc = cc_session_state_get(s, session, "coach", &json, NULL);
	if (rc < 0) {
		snprintf(err, errlen, "cannot read the session's coach state: %s",
		    cc_session_error(s));
		return -1;
	}
	if (rc == 1) {
		jv v = cc_json_parse(json, size = strlen(json));

		if (jv_get_kind(v) != JV_KIND_OBJECT) {
			free(json);
			jv_free(v);
			snprintf(err, errlen, "the session's stored coach state is not "
			    "a JSON object");
			return -1;
		}
		jv_free(*state);
		/* an emotion kept in the coach's own state by hand is not shown */
		*state = jv_object_delete(v, cc_jv_name("emotion"));
		stored = json;
		json = NULL;
		/* a state stored before the history: its "solved" becomes that */
		if (cc_coach_history_convert(s, session, state, now, err, errlen) < 0) {
			free(stored);
			jv_free(*state);
			*state = jv_object();
			forget_all(c);
			return -1;
		}
	}
	history = cc_coach_history_load(s, session, err, errlen);
	if (!jv_is_valid(history)) {
		free(stored);
		jv_free(*state);
		*state = jv_object();
		forget_all(c);
		return -1;
	}
	keep(c, session, jv_null(), size);
	if ((e = *slot(c, session))) {
		/*
		 * The text kept is the stored one only when it is what the state
		 * as loaded is written as (NULL: differs), so a turn that changes
		 * nothing need not write it to know: not when converted, nor with
		 * an emotion left out, nor stored by hand with other spacing.
		 */
		if (stored) {
			c->text.len = 0;
			cc_json_put(&c->text, *state);
			if (c->text.len != strlen(stored) ||
			    memcmp(c->text.data, stored, c->text.len) != 0) {
				free(stored);
				stored = NULL;
			}
		}
		e->text = stored;
		e->lent = 1;
		jv_array_foreach(history, i, h) {
			cc_coach_recap_add(&e->recap, h);
			jv_free(h);
		}
		e->recap.kept = 1;
		*recap = &e->recap;
		if (fields && c->use_fields) {
			struct cc_coach_fields f;

			/* as fields when they hold it exactly: else it stays a jv */
			if (cc_coach_fields_from_jv(&f, *state) == 0) {
				e->fields = cc_xmalloc(sizeof *e->fields);
				*e->fields = f;
				jv_free(*state);
				*state = jv_null();
				*fields = e->fields;
			}
		}
	} else {
		free(stored);
		/* not kept: the turn reads the history from the state */
		if (jv_array_length(jv_copy(history)) > 0)
			*state = jv_object_set(*state, cc_jv_name("solved"), jv_copy(history));
	}
	jv_free(history);
	return 0;
}

int
cc_coach_states_save(struct cc_coach_states *c, struct cc_session *s,
    const char *session, jv before, jv state, time_t now, char *err,
    size_t errlen)
{
	struct entry *e = *slot(c, session);
	int kept = e && e->recap.kept, changed;
	jv cur = state, solved;

	if (jv_get_kind(cur) != JV_KIND_OBJECT) {
		/* nothing is stored; what was lent is gone: read it again next time */
		jv_free(cur);
		if (e)
			drop(c, session);
		return 0;
	}
	if (jv_object_has(jv_copy(cur), cc_jv_name("emotion")))
		cur = jv_object_delete(cur, cc_jv_name("emotion"));
	/* the problems finished: appended to the history, not kept in the state */
	if (jv_object_has(jv_copy(cur), cc_jv_name("solved"))) {
		int rc;

		solved = jv_object_get(jv_copy(cur), cc_jv_name("solved"));
		cur = jv_object_delete(cur, cc_jv_name("solved"));
		if (kept) {
			/* the kept turn's state had none: each one is new */
			rc = cc_coach_history_save(s, session, jv_null(), solved, 0, now,
			    err, errlen);
			if (rc == 0 && jv_get_kind(solved) == JV_KIND_ARRAY)
				jv_array_foreach(solved, i, h) {
					cc_coach_recap_add(&e->recap, h);
					jv_free(h);
				}
		} else {
			jv was = jv_get_kind(before) == JV_KIND_OBJECT ?
			    jv_object_get(jv_copy(before), cc_jv_name("solved")) : jv_null();

			rc = cc_coach_history_save(s, session, was, solved, 0, now, err, errlen);
			jv_free(was);
		}
		jv_free(solved);
		if (rc < 0) {
			jv_free(cur);
			forget_all(c);
			return -1;
		}
	}
	/*
	 * Changed: for a kept session, its text against the text stored (a
	 * few hundred bytes now that the history is apart); else against
	 * before.
	 */
	c->text.len = 0;
	cc_json_put(&c->text, cur);
	cc_buf_add(&c->text, "", 1);
	c->text.len--;
	if (kept) {
		changed = !e->text || strcmp(e->text, c->text.data) != 0;
	} else {
		jv b = jv_get_kind(before) == JV_KIND_OBJECT ?
		    jv_object_delete(jv_copy(before), cc_jv_name("solved")) : jv_null();

		changed = jv_get_kind(b) != JV_KIND_OBJECT || !jv_equal(b, jv_copy(cur));
	}
	if (changed && cc_session_state_put(s, session, "coach", c->text.data, now) < 0) {
		jv_free(cur);
		forget_all(c);
		snprintf(err, errlen, "cannot store the session's coach state: %s",
		    cc_session_error(s));
		return -1;
	}
	if (!kept) {
		jv_free(cur);	/* never kept: its history is not */
		return 0;
	}
	if (changed) {
		free(e->text);
		e->text = cc_xstrdup(c->text.data);
	}
	e->lent = 0;
	keep(c, session, cur, c->text.len);
	return 0;
}

int
cc_coach_states_unchanged(struct cc_coach_states *c, struct cc_session *s,
    const char *session, jv state, time_t now, char *err, size_t errlen)
{
	struct entry *e = *slot(c, session);

	/* only a kept state whose text is known: else it is written */
	if (!e || !e->recap.kept || !e->lent || !e->text ||
	    jv_get_kind(state) != JV_KIND_OBJECT)
		return cc_coach_states_save(c, s, session, jv_invalid(), state, now,
		    err, errlen);
	e->lent = 0;
	keep(c, session, state, e->size);
	return 0;
}

int
cc_coach_states_save_fields(struct cc_coach_states *c, struct cc_session *s,
    const char *session, int changed, struct cc_coach_done *done, time_t now,
    char *err, size_t errlen)
{
	struct entry *e = *slot(c, session);
	struct cc_jw w;

	if (!e || !e->fields)
		cc_die(CC_EXIT_INTERNAL, "saving fields of a session not kept as fields");
	/* the problems finished: appended to the history, as save does */
	for (int i = 0; i < done->n; i++) {
		if (cc_session_history_add(s, session, "coach", done->text.data + done->off[i],
		    done->at[i]) < 0) {
			forget_all(c);
			snprintf(err, errlen, "cannot store the session's finished problems: %s",
			    cc_session_error(s));
			return -1;
		}
	}
	for (int i = 0; i < done->n; i++)
		recap_push(&e->recap, done->at[i], done->counts[i]);
	e->lent = 0;
	/* unchanged with its text known: nothing composed or written */
	if (!changed && e->text)
		return 0;
	c->text.len = 0;
	cc_jw_init(&w, &c->text);
	cc_coach_fields_write(e->fields, &w);
	cc_buf_add(&c->text, "", 1);
	c->text.len--;
	if (e->text && strcmp(e->text, c->text.data) == 0)
		return 0;
	if (cc_session_state_put(s, session, "coach", c->text.data, now) < 0) {
		forget_all(c);
		snprintf(err, errlen, "cannot store the session's coach state: %s",
		    cc_session_error(s));
		return -1;
	}
	free(e->text);
	e->text = cc_xstrdup(c->text.data);
	c->size += c->text.len;
	c->size -= e->size;
	e->size = c->text.len;
	while (c->oldest && c->oldest != e && c->size > c->max_size)
		drop(c, c->oldest->session);
	return 0;
}
