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
	struct cc_json_memo memo;	/* its members as last written */
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
};

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
	cc_json_memo_release(&e->memo);
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
		e->recap.solved = jv_invalid();
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

int
cc_coach_states_load(struct cc_coach_states *c, struct cc_session *s,
    const char *session, jv *state, struct cc_coach_recap **recap, char *err,
    size_t errlen)
{
	struct entry *e;
	char *json = NULL;
	size_t size = 2;
	int rc = cc_session_state_hold(s, "coach");

	*state = jv_object();
	*recap = NULL;
	if (rc < 0) {
		forget_all(c);
		snprintf(err, errlen, "cannot read the session's coach state: %s",
		    cc_session_error(s));
		return -1;
	}
	if (rc == 1)
		forget_all(c);
	if ((e = *slot(c, session))) {
		unlink_use(c, e);
		link_newest(c, e);
		jv_free(*state);
		*state = jv_copy(e->state);
		*recap = &e->recap;
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

		free(json);
		if (jv_get_kind(v) != JV_KIND_OBJECT) {
			jv_free(v);
			snprintf(err, errlen, "the session's stored coach state is not "
			    "a JSON object");
			return -1;
		}
		jv_free(*state);
		/* an emotion kept in the coach's own state by hand is not shown */
		*state = jv_object_delete(v, cc_jv_name("emotion"));
	}
	keep(c, session, jv_copy(*state), size);
	e = *slot(c, session);
	*recap = e ? &e->recap : NULL;
	return 0;
}

int
cc_coach_states_save(struct cc_coach_states *c, struct cc_session *s,
    const char *session, jv before, jv state, time_t now, char *err,
    size_t errlen)
{
	struct entry *e;
	size_t size;
	jv cur;

	if (jv_get_kind(state) != JV_KIND_OBJECT)
		return 0;	/* nothing is stored: what is kept stays true */
	cur = jv_object_has(jv_copy(state), cc_jv_name("emotion")) ?
	    jv_object_delete(jv_copy(state), cc_jv_name("emotion")) : jv_copy(state);
	e = *slot(c, session);
	size = e ? e->size : 2;
	if (jv_get_kind(before) != JV_KIND_OBJECT ||
	    !jv_equal(jv_copy(before), jv_copy(cur))) {
		struct cc_json_memo none = {0};

		/* most turns change a few numbers: the history is copied */
		c->text.len = 0;
		cc_json_put_memo(&c->text, cur, e ? &e->memo : &none);
		cc_json_memo_release(&none);
		if (cc_session_state_put(s, session, "coach", c->text.data, now) < 0) {
			jv_free(cur);
			forget_all(c);
			snprintf(err, errlen, "cannot store the session's coach state: %s",
			    cc_session_error(s));
			return -1;
		}
		size = c->text.len;
	}
	keep(c, session, cur, size);
	return 0;
}
