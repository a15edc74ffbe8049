/*
 * Session memory: the turns of each conversation, their answers and the
 * stages' own state, in a store that CC_STORE (or --store) names: SQLite
 * files under the state directory by default (cc_session_sqlite.c), or a
 * PostgreSQL database that several machines share (cc_session_pg.c).
 * cc-route records a turn as it routes it, so the next turn of the
 * session sees it even while the earlier record is still flowing through
 * later stages; cc-respond adds the answer to it.
 *
 * What is the same for every backend is here: the choice of backend and
 * the writer of turns' cache of each session's newest turns
 * (CC_SESSION_CACHE), trusted for as long as the backend's turns_hold
 * says nobody else wrote turns (cc_store.h).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_config.h"
#include "cc_session.h"
#include "cc_store.h"


/*
 * CC_SESSION_CACHE: each session's newest turns, kept in process, oldest
 * first.  The store holds every turn of the session at or after `floor`
 * that is newer than the oldest kept; older ones too when `truncated`.
 *
 * The kept turns are turn[first] to turn[first + n - 1] of twice as many
 * slots: a new turn goes after the newest, and only when the slots run
 * out are the kept ones moved back to the start, once every CACHE_TURNS
 * turns of a full session rather than a memmove of 31 at every turn.
 * cc_session_turns lends the newest of them as they lie (view_lend), and
 * the slot after them is free, so the next cc_session_add writes past the
 * loan (and a move back to the start, to slots the loan does not cover:
 * it starts at CACHE_TURNS or later when the slots run out).
 */
#define CACHE_TURNS 32		/* turns kept a session: the most callers ask */
#define CACHE_SLOTS (2 * CACHE_TURNS)
#define CACHE_SESSIONS 4096	/* sessions kept, the least recently used go */
struct recent {
	struct cc_turn *turn;	/* CACHE_SLOTS of them */
	int first, n, truncated;
	int ordered;		/* the kept turns' times never go back */
	time_t floor;
	struct recent *chain;		/* the next in its hash bucket */
	struct recent *newer, *older;	/* the use order (cache_find) */
	unsigned long used;		/* the cache's tick when last moved */
	uint32_t hash;
	char session[];
};

struct cache {
	struct recent **bucket;
	size_t nbuckets, n;
	struct recent *newest, *oldest;
	struct recent *hit;		/* the last found: cc_session_add's */
	unsigned long tick;		/* finds so far */
	/* given up since the last cc_session_turns, whose answer may still
	   point into them: freed at the next */
	struct recent *dead;
	struct cc_turn *dropped;
	size_t ndropped, maxdropped;
};


struct cc_session {
	const struct cc_store_ops *ops;
	void *b;			/* the backend's */
	struct cache *cache;		/* CC_SESSION_CACHE only */
	struct cc_turn view[CACHE_TURNS];	/* cc_session_turns' answer */
	int nview, view_owned;		/* ... and whether its strings are */
};

/* ---- the turns kept in process (CC_SESSION_CACHE) ---- */

static struct cache *
cache_new(void)
{
	struct cache *c = cc_xmalloc(sizeof *c);

	memset(c, 0, sizeof *c);
	c->nbuckets = 2 * CACHE_SESSIONS;
	c->bucket = calloc(c->nbuckets, sizeof *c->bucket);
	if (!c->bucket)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	return c;
}

static uint32_t
cache_hash(const char *session)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)session; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

/*
 * A turn kept is one block, its query first and the other strings after
 * it (kept_copy): one allocation and one free a turn rather than seven
 * of each, which were a twentieth of cc-route's time with memory.
 */
static void
kept_release(struct cc_turn *turns, int n)
{
	for (int i = 0; i < n; i++) {
		free(turns[i].query);
		memset(&turns[i], 0, sizeof turns[i]);
	}
}

/* Keep a copy of t (answer aside; a query, as every stored turn has). */
static void
kept_copy(struct cc_turn *k, const struct cc_turn *t, long long id)
{
	const char *from[6] = { t->query ? t->query : "", t->language, t->agent,
	    t->category, t->request_type, t->slots };
	char **to[6] = { &k->query, &k->language, &k->agent, &k->category,
	    &k->request_type, &k->slots };
	size_t len[6], total = 0;
	char *p;

	for (int i = 0; i < 6; i++)
		total += from[i] ? (len[i] = strlen(from[i])) + 1 : 0;
	p = cc_xmalloc(total);
	for (int i = 0; i < 6; i++) {
		*to[i] = NULL;
		if (from[i]) {
			memcpy(p, from[i], len[i] + 1);
			*to[i] = p;
			p += len[i] + 1;
		}
	}
	k->id = id;
	k->at = t->at;
	k->answer = NULL;
	k->note = t->note;
}

static void
recent_free(struct recent *e)
{
	kept_release(e->turn + e->first, e->n);
	free(e->turn);
	free(e);
}

/* Free what was given up since the last cc_session_turns. */
static void
cache_bury(struct cache *c)
{
	struct recent *e, *next;

	if (!c)
		return;
	for (e = c->dead; e; e = next) {
		next = e->chain;
		recent_free(e);
	}
	c->dead = NULL;
	kept_release(c->dropped, (int)c->ndropped);
	c->ndropped = 0;
}

static void
cache_drop(struct cache *c, struct recent *e)
{
	if (c->hit == e)
		c->hit = NULL;
	e->chain = c->dead;
	c->dead = e;
}

/* Forget every session: another process wrote, or a batch was lost. */
static void
cache_forget(struct cache *c)
{
	struct recent *e, *next;

	if (!c)
		return;
	for (e = c->newest; e; e = next) {
		next = e->older;
		cache_drop(c, e);
	}
	memset(c->bucket, 0, c->nbuckets * sizeof *c->bucket);
	c->newest = c->oldest = NULL;
	c->n = 0;
}

static void
cache_free(struct cache *c)
{
	if (!c)
		return;
	cache_forget(c);
	cache_bury(c);
	free(c->dropped);
	free(c->bucket);
	free(c);
}

static void
cache_unlink(struct cache *c, struct recent *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		c->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		c->oldest = e->newer;
	e->newer = e->older = NULL;
}

static void
cache_push(struct cache *c, struct recent *e)
{
	e->older = c->newest;
	if (c->newest)
		c->newest->newer = e;
	c->newest = e;
	if (!c->oldest)
		c->oldest = e;
	e->used = c->tick;
}

/*
 * The session's entry, NULL if not kept.  An entry found is moved to the
 * front of the use order only when a quarter of the cache's finds have
 * passed since it last was: moving it at every find touched two
 * neighbours (two cache misses among 1,000 sessions) for an order that
 * only decides which session is given up when 4,096 are kept, and an
 * entry used that lately is far from the end.
 */
static struct recent *
cache_find(struct cache *c, const char *session)
{
	uint32_t h = cache_hash(session);
	struct recent *e = c->bucket[h & (c->nbuckets - 1)];

	while (e && (e->hash != h || strcmp(e->session, session) != 0))
		e = e->chain;
	c->tick++;
	if (e && c->tick - e->used > CACHE_SESSIONS / 4) {
		cache_unlink(c, e);
		cache_push(c, e);
	}
	return c->hit = e;
}

static void
cache_remove(struct cache *c, struct recent *e)
{
	struct recent **p = &c->bucket[e->hash & (c->nbuckets - 1)];

	while (*p != e)
		p = &(*p)->chain;
	*p = e->chain;
	cache_unlink(c, e);
	c->n--;
	cache_drop(c, e);
}

/* A new, empty entry for session (not kept yet), the least used given up. */
static struct recent *
cache_add(struct cache *c, const char *session)
{
	size_t len = strlen(session);
	struct recent *e = cc_xmalloc(sizeof *e + len + 1);
	uint32_t h = cache_hash(session);

	if (c->n >= CACHE_SESSIONS)
		cache_remove(c, c->oldest);
	memset(e, 0, sizeof *e);
	e->turn = calloc(CACHE_SLOTS, sizeof *e->turn);
	if (!e->turn)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	memcpy(e->session, session, len + 1);
	e->hash = h;
	e->ordered = 1;
	e->chain = c->bucket[h & (c->nbuckets - 1)];
	c->bucket[h & (c->nbuckets - 1)] = e;
	cache_push(c, e);
	c->n++;
	return c->hit = e;
}

char *
cc_store_dup(const char *s)
{
	return s ? cc_xstrdup(s) : NULL;
}

/*
 * Keep a copy of t (answer aside) as the session's newest turn.  The
 * oldest, when it goes, may be in the view: its strings are freed at the
 * next cc_session_turns.
 */
static void
recent_append(struct cache *c, struct recent *e, const struct cc_turn *t,
    long long id)
{
	struct cc_turn *k;

	if (e->n == CACHE_TURNS) {
		if (c->ndropped == c->maxdropped) {
			c->maxdropped = c->maxdropped ? 2 * c->maxdropped : 16;
			c->dropped = realloc(c->dropped, c->maxdropped * sizeof *c->dropped);
			if (!c->dropped)
				cc_die(CC_EXIT_INTERNAL, "out of memory");
		}
		c->dropped[c->ndropped++] = e->turn[e->first];
		e->first++;
		e->n--;
		e->truncated = 1;
	}
	if (e->first + e->n == CACHE_SLOTS) {
		/* first > n here: the two ranges do not overlap */
		memcpy(e->turn, e->turn + e->first, (size_t)e->n * sizeof *e->turn);
		e->first = 0;
	}
	k = &e->turn[e->first + e->n];
	if (e->n > 0 && t->at < k[-1].at)
		e->ordered = 0;
	kept_copy(k, t, id);
	e->n++;
}

/* ---- shared by the backends ---- */

int
cc_store_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n < 32 && strspn(name,
	    "abcdefghijklmnopqrstuvwxyz0123456789-_") == n;
}

long
cc_store_elapsed_ns(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000000000L + now.tv_nsec - since->tv_nsec;
}

void
cc_store_say(char *out, size_t outlen, const char *fmt, ...)
{
	size_t n = strlen(out);
	va_list ap;

	if (n >= outlen)
		return;
	va_start(ap, fmt);
	vsnprintf(out + n, outlen - n, fmt, ap);
	va_end(ap);
}

/* ---- the choice of backend ---- */

int
cc_session_is_pg(const char *store)
{
	size_t k;

	if (!store || !*store)
		return 0;
	if (strncmp(store, "postgresql://", 13) == 0 || strncmp(store, "postgres://", 11) == 0)
		return 1;
	/* a conninfo string: "service=kiosk", "host=db dbname=concierge" */
	k = strspn(store, "abcdefghijklmnopqrstuvwxyz_");
	return k > 0 && store[k] == '=';
}

/* The backend for cfg, and where its store is (a directory, or the conninfo). */
static const struct cc_store_ops *
backend(const struct cc_config *cfg, const char **where)
{
	if (cc_session_is_pg(cfg->store)) {
		*where = cfg->store;
		return &cc_store_pg;
	}
	*where = cfg->store && *cfg->store ? cfg->store : cfg->state_dir;
	return &cc_store_sqlite;
}

char *
cc_session_store_name(const struct cc_config *cfg)
{
	const char *where;

	backend(cfg, &where);
	return cc_session_mask(where);
}

char *
cc_session_mask(const char *where)
{
	const char *p, *at, *end;
	struct cc_buf b = { 0 };

	if (!cc_session_is_pg(where))
		return cc_xstrdup(where);
	/* a password in the user part of a URI: user:***@host */
	p = strstr(where, "://");
	end = p ? p + 3 + strcspn(p + 3, "/?#") : where;
	at = p ? memchr(p + 3, '@', (size_t)(end - p - 3)) : NULL;
	if (at) {
		const char *colon = memchr(p + 3, ':', (size_t)(at - p - 3));

		if (colon) {
			cc_buf_add(&b, where, (size_t)(colon - where) + 1);
			cc_buf_add(&b, "***", 3);
			where = at;
		}
	}
	/* and password=... in a conninfo or a URI's parameters */
	while (*where) {
		const char *k = strstr(where, "password=");

		if (!k || (k > where && !strchr("?& \t", k[-1]))) {
			if (!k) {
				cc_buf_add(&b, where, strlen(where));
				break;
			}
			cc_buf_add(&b, where, (size_t)(k - where) + 9);
			where = k + 9;
			continue;
		}
		cc_buf_add(&b, where, (size_t)(k - where) + 9);
		cc_buf_add(&b, "***", 3);
		where = k + 9;
		if (*where == '\'') {
			for (where++; *where && *where != '\''; where++)
				if (*where == '\\' && where[1])
					where++;
			if (*where)
				where++;
		} else {
			where += strcspn(where, p ? "&#" : " \t");
		}
	}
	return b.data ? b.data : cc_xstrdup("");
}

/* ---- the interface ---- */

struct cc_session *
cc_session_open(const struct cc_config *cfg, int flags, char *err, size_t errlen)
{
	struct cc_session *s = calloc(1, sizeof *s);
	const char *where;

	if (!s)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	s->ops = backend(cfg, &where);
	if (!(s->b = s->ops->open(cfg, where, flags, err, errlen))) {
		free(s);
		return NULL;
	}
	/* a reader of answers does not write turns (unless it is one
	   connection for both, CC_SESSION_BATCH): nothing to keep */
	if ((flags & CC_SESSION_CACHE) &&
	    (!(flags & CC_SESSION_ANSWERS) || (flags & CC_SESSION_BATCH)))
		s->cache = cache_new();
	return s;
}

static void view_release(struct cc_session *s);

void
cc_session_close(struct cc_session *s)
{
	if (!s)
		return;
	view_release(s);
	cache_free(s->cache);
	s->ops->close(s->b);
	free(s);
}

const char *
cc_session_error(struct cc_session *s)
{
	return s->ops->error(s->b);
}

int
cc_session_transient(struct cc_session *s)
{
	return s && s->ops->transient(s->b);
}

/* A turn read from the store has no note: that is the writer's, in process. */
static int
no_notes(struct cc_turn *turns, int n)
{
	for (int i = 0; i < n; i++)
		turns[i].note = 0;
	return n;
}

int
cc_session_recent(struct cc_session *s, const char *session, time_t since,
    struct cc_turn *turns, int max)
{
	return no_notes(turns, s->ops->recent(s->b, session, since, turns, max));
}

int
cc_session_before(struct cc_session *s, const char *session, long long turn,
    time_t since, struct cc_turn *turns, int max)
{
	return no_notes(turns, s->ops->before(s->b, session, turn, since, turns, max));
}

int
cc_session_flush(struct cc_session *s)
{
	if (!s)
		return 0;
	if (s->ops->flush(s->b) < 0) {
		/* the turns kept may be ones rolled back */
		cache_forget(s->cache);
		return -1;
	}
	return 0;
}

long long
cc_session_add(struct cc_session *s, const char *session, const struct cc_turn *t)
{
	struct recent *e = NULL;
	long long id, prev = 0;

	/*
	 * The session's newest turn, when its turns are kept: the backend
	 * trusts it only within the batch that checked them (SQLite), where
	 * it spares the insert a look-up of the session's head.  Mostly the
	 * session is the one cc_session_turns just found.
	 */
	if (s->cache && (e = s->cache->hit) && strcmp(e->session, session) != 0)
		e = NULL;
	if (e && e->n > 0)
		prev = e->turn[e->first + e->n - 1].id;
	id = s->ops->add(s->b, session, t, prev);
	if (id < 0) {
		cache_forget(s->cache);
	} else if (s->cache) {
		/* not kept: the next read loads it, this turn with it */
		if (e || (e = cache_find(s->cache, session)))
			recent_append(s->cache, e, t, id);
	}
	return id;
}

int
cc_session_answer(struct cc_session *s, long long turn, const char *answer,
    time_t at)
{
	return s->ops->answer(s->b, turn, answer, at);
}

static void
view_release(struct cc_session *s)
{
	if (s->view_owned)
		cc_turns_release(s->view, s->nview);
	s->nview = s->view_owned = 0;
	cache_bury(s->cache);
}

/* Load session's turns at or after since from the store into e. */
static int
recent_load(struct cc_session *s, struct recent *e, time_t since)
{
	struct cc_turn got[CACHE_TURNS];
	int n;

	kept_release(e->turn + e->first, e->n);
	e->first = e->n = 0;
	e->ordered = 1;
	if ((n = cc_session_recent(s, e->session, since, got, CACHE_TURNS)) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		kept_copy(&e->turn[i], &got[i], got[i].id);
		if (i > 0 && got[i].at < got[i - 1].at)
			e->ordered = 0;
	}
	cc_turns_release(got, n);
	e->n = n;
	e->floor = since;
	e->truncated = n == CACHE_TURNS;
	return 0;
}

/*
 * How many of e's kept turns were asked at or after since.  When their
 * times never go back, those are the newest: found by halving, not by
 * reading the time of every turn kept (up to 32 cache lines a record).
 */
static int
recent_since(const struct recent *e, time_t since)
{
	const struct cc_turn *t = e->turn + e->first;
	int lo = 0, hi = e->n, k = 0;

	if (!e->ordered) {
		for (int i = 0; i < e->n; i++)
			k += t[i].at >= since;
		return k;
	}
	if (e->n == 0 || t[0].at >= since)	/* all of them, mostly */
		return e->n;
	while (lo < hi) {	/* the first asked at or after since */
		int mid = (lo + hi) / 2;

		if (t[mid].at >= since)
			hi = mid;
		else
			lo = mid + 1;
	}
	return e->n - lo;
}

int
cc_session_turns(struct cc_session *s, const char *session, time_t since,
    const struct cc_turn **turns, int max)
{
	struct recent *e;
	int k, first;

	view_release(s);
	*turns = s->view;
	if (max > CACHE_TURNS)
		max = CACHE_TURNS;
	if (!s->cache) {
		int n = cc_session_recent(s, session, since, s->view, max);

		if (n < 0)
			return -1;
		s->nview = n;
		s->view_owned = 1;
		return n;
	}
	switch (s->ops->turns_hold(s->b)) {
	case 0:
		break;
	case 1:
		cache_forget(s->cache);	/* another process wrote turns */
		break;
	case 2: {			/* ... of these sessions only */
		size_t n;
		const char *const *changed = s->ops->turns_changed(s->b, &n);

		for (size_t i = 0; i < n; i++) {
			struct recent *gone = cache_find(s->cache, changed[i]);

			if (gone)
				cache_remove(s->cache, gone);
		}
		break;
	}
	default:
		cache_forget(s->cache);
		return -1;
	}
	if (!(e = cache_find(s->cache, session))) {
		e = cache_add(s->cache, session);
		if (recent_load(s, e, since) < 0)
			goto fail;
	} else if (since < e->floor && recent_load(s, e, since) < 0)
		goto fail;
	k = recent_since(e, since);
	/*
	 * Fewer than asked, and the store may hold older turns than those
	 * kept that are still recent enough (a turn aged out of the window,
	 * or the clock went back): ask the store.
	 */
	if (k < max && e->truncated && k < e->n) {
		if (recent_load(s, e, since) < 0)
			goto fail;
		k = e->n;
	}
	/* the newest max of them, oldest first, borrowed */
	first = k > max ? k - max : 0;
	if (e->ordered) {	/* they are the newest kept: lent as they lie */
		s->nview = k - first;
		*turns = e->turn + e->first + e->n - s->nview;
		return s->nview;
	}
	for (int i = e->first, j = 0; i < e->first + e->n; i++)
		if (e->turn[i].at >= since && j++ >= first)
			s->view[s->nview++] = e->turn[i];
	return s->nview;
fail:
	cache_forget(s->cache);
	return -1;
}

void
cc_turns_release(struct cc_turn *turns, int n)
{
	for (int i = 0; i < n; i++) {
		free(turns[i].query);
		free(turns[i].language);
		free(turns[i].agent);
		free(turns[i].category);
		free(turns[i].request_type);
		free(turns[i].slots);
		free(turns[i].answer);
		memset(&turns[i], 0, sizeof turns[i]);
	}
}


int
cc_session_state_get(struct cc_session *s, const char *session, const char *name,
    char **json, time_t *at)
{
	*json = NULL;
	return s->ops->state_get(s->b, session, name, json, at);
}

int
cc_session_state_put(struct cc_session *s, const char *session, const char *name,
    const char *json, time_t at)
{
	return s->ops->state_put(s->b, session, name, json, at);
}

int
cc_session_state_hold(struct cc_session *s, const char *name)
{
	return s->ops->state_hold(s->b, name);
}

int
cc_session_state_begin(struct cc_session *s, const char *name)
{
	return s->ops->state_begin(s->b, name);
}

int
cc_session_log(struct cc_session *s, const char *name, const char *session,
    const char *line, time_t at)
{
	return s->ops->log ? s->ops->log(s->b, name, session, line, at) : 0;
}

int
cc_session_keeps_logs(const struct cc_config *cfg)
{
	const char *where;

	return backend(cfg, &where)->log != NULL;
}

int
cc_session_admin(const struct cc_config *cfg, enum cc_store_admin what, long keep,
    char *out, size_t outlen)
{
	const char *where;
	const struct cc_store_ops *ops = backend(cfg, &where);

	return ops->admin(cfg, where, what, keep, out, outlen);
}

/* ---- a state's history ---- */

int
cc_session_history_add(struct cc_session *s, const char *session,
    const char *name, const char *json, time_t at)
{
	return s->ops->history_add(s->b, session, name, json, at);
}

int
cc_session_history_get(struct cc_session *s, const char *session,
    const char *name, int max, char ***items)
{
	*items = NULL;
	return max > 0 ? s->ops->history_get(s->b, session, name, max, items) : 0;
}

int
cc_session_history_clear(struct cc_session *s, const char *session,
    const char *name)
{
	return s->ops->history_clear(s->b, session, name);
}
