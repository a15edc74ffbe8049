/*
 * Session memory: the turns of each conversation, in SQLite under the state
 * directory.  cc-route records a turn as it routes it, so the next turn of
 * the session sees it even while the earlier record is still flowing
 * through later stages; cc-respond adds the answer to it.
 *
 * Turns and answers are two files, sessions.db and answers.db, because
 * they have two writers: in one pipeline cc-route and cc-respond write at
 * the same time, and in one file each would wait for the other's lock and
 * every commit of one would empty the other's page cache.  Only a memory
 * question reads both.
 *
 * Several pipelines may share one store: the databases are in WAL mode,
 * writes are batched in short transactions, and a writer waits for the
 * lock (busy timeout) rather than failing.  The writer of turns keeps
 * each session's newest ones in process (CC_SESSION_CACHE), trusted for
 * as long as PRAGMA data_version, read under its batch's write lock,
 * says nobody else wrote the file.  All SQL uses bound parameters.
 * This file is the only one that knows the store is SQLite, so another
 * backend (PostgreSQL for a deployment that outgrows one machine) replaces
 * it alone.
 */
#include "config.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_session.h"

#define BATCH_TURNS 1024		/* commit after this many turns ... */
#define BATCH_NS 20000000L	/* ... or this long after the first */
#define RETENTION_S (7 * 86400)	/* turns older than this are purged */

/* One database file and its batch of writes. */
struct store {
	sqlite3 *db;
	int in_txn, pending;	/* an open write transaction and its writes */
	int checked;		/* data_version was looked at in this batch */
	struct timespec since;
	sqlite3_stmt *begin, *commit;	/* prepared once: BEGIN, COMMIT */
};

/*
 * A stage's own state, one file per name (state-NAME.db): each name has one
 * writer, so like turns and answers they never wait for each other.
 */
#define MAX_STATES 4
struct state {
	char name[32];
	struct store st;
	sqlite3_stmt *get, *put, *version;
	sqlite3_int64 seen;	/* data_version at the last hold */
	int known;		/* seen is set */
};

/*
 * CC_SESSION_CACHE: each session's newest turns, kept in process, oldest
 * first.  The store holds every turn of the session at or after `floor`
 * that is newer than the oldest kept; older ones too when `truncated`.
 */
#define CACHE_TURNS 32		/* turns kept a session: the most callers ask */
#define CACHE_SESSIONS 4096	/* sessions kept, the least recently used go */
struct recent {
	char *session;
	struct cc_turn turn[CACHE_TURNS];
	int n, truncated;
	time_t floor;
	struct recent *chain;		/* the next in its hash bucket */
	struct recent *newer, *older;	/* the use order */
};

struct cache {
	struct recent **bucket;
	size_t nbuckets, n;
	struct recent *newest, *oldest;
	sqlite3_stmt *version;		/* PRAGMA data_version of sessions.db */
	sqlite3_int64 seen;		/* its value at the last batch */
	int known;			/* seen is set */
	/* given up since the last cc_session_turns, whose answer may still
	   point into them: freed at the next */
	struct recent *dead;
	struct cc_turn *dropped;
	size_t ndropped, maxdropped;
};

struct cc_session {
	struct store turns, answers;	/* answers.db: CC_SESSION_ANSWERS only */
	struct store *failed;		/* the one whose error is the last */
	sqlite3_stmt *recent, *add, *answer, *answer_of;
	const struct cc_config *cfg;	/* for opening state files later */
	struct state states[MAX_STATES];
	int nstates;
	struct cache *cache;		/* CC_SESSION_CACHE only */
	struct cc_turn view[CACHE_TURNS];	/* cc_session_turns' answer */
	int nview, view_owned;		/* ... and whether its strings are */
};

#define PRAGMAS \
	"PRAGMA journal_mode=WAL;" \
	"PRAGMA synchronous=NORMAL;" \
	/* 8 MB of pages: a busy store's session index outgrows the default \
	   2 MB and every turn then re-read its pages from the file */ \
	"PRAGMA cache_size=-8192;" \
	/* a batch rewrites the same index pages: a checkpoint every 16 MB \
	   of log copies each once, not once every 4 MB */ \
	"PRAGMA wal_autocheckpoint=4000;"

/* (Stores made before answers.db keep their unused answer columns.) */
static const char turns_schema[] = PRAGMAS
	"CREATE TABLE IF NOT EXISTS turns ("
	"  id INTEGER PRIMARY KEY,"
	"  session TEXT NOT NULL,"
	"  at INTEGER NOT NULL,"		/* Unix time of the question */
	"  query TEXT NOT NULL,"
	"  language TEXT,"
	"  agent TEXT,"
	"  category TEXT,"
	"  request_type TEXT,"
	"  slots TEXT);"			/* the router's slots, JSON */
	"CREATE INDEX IF NOT EXISTS turns_by_session ON turns (session, id);"
	"CREATE INDEX IF NOT EXISTS turns_by_time ON turns (at);";

static const char answers_schema[] = PRAGMAS
	"CREATE TABLE IF NOT EXISTS answers ("
	"  turn INTEGER PRIMARY KEY,"		/* turns.id in sessions.db */
	"  at INTEGER NOT NULL,"		/* Unix time of the answer */
	"  answer TEXT);"
	"CREATE INDEX IF NOT EXISTS answers_by_time ON answers (at);";

static const char state_schema[] = PRAGMAS
	"CREATE TABLE IF NOT EXISTS state ("
	"  session TEXT PRIMARY KEY,"
	"  at INTEGER NOT NULL,"		/* Unix time of the last write */
	"  value TEXT NOT NULL);"		/* JSON, the stage's own */
	"CREATE INDEX IF NOT EXISTS state_by_time ON state (at);";

static int
prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
	return sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
}

static void view_release(struct cc_session *s);

static void
store_close(struct store *st)
{
	sqlite3_finalize(st->begin);
	sqlite3_finalize(st->commit);
	sqlite3_close(st->db);
}

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

static size_t
cache_hash(const struct cache *c, const char *session)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)session; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h & (c->nbuckets - 1);
}

static void
recent_free(struct recent *e)
{
	cc_turns_release(e->turn, e->n);
	free(e->session);
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
	cc_turns_release(c->dropped, (int)c->ndropped);
	c->ndropped = 0;
}

static void
cache_drop(struct cache *c, struct recent *e)
{
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
	sqlite3_finalize(c->version);
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
}

/* The session's entry, made the most recently used; NULL if not kept. */
static struct recent *
cache_find(struct cache *c, const char *session)
{
	struct recent *e = c->bucket[cache_hash(c, session)];

	while (e && strcmp(e->session, session) != 0)
		e = e->chain;
	if (e && e != c->newest) {
		cache_unlink(c, e);
		cache_push(c, e);
	}
	return e;
}

static void
cache_remove(struct cache *c, struct recent *e)
{
	struct recent **p = &c->bucket[cache_hash(c, e->session)];

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
	struct recent *e = cc_xmalloc(sizeof *e);
	size_t h = cache_hash(c, session);

	if (c->n >= CACHE_SESSIONS)
		cache_remove(c, c->oldest);
	memset(e, 0, sizeof *e);
	e->session = cc_xstrdup(session);
	e->chain = c->bucket[h];
	c->bucket[h] = e;
	cache_push(c, e);
	c->n++;
	return e;
}

static char *
dup_or_null(const char *s)
{
	return s ? cc_xstrdup(s) : NULL;
}

/* Keep a copy of t (answer aside) as the session's newest turn. */
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
		c->dropped[c->ndropped++] = e->turn[0];
		memmove(e->turn, e->turn + 1, (CACHE_TURNS - 1) * sizeof *e->turn);
		e->n--;
		e->truncated = 1;
	}
	k = &e->turn[e->n++];
	k->id = id;
	k->at = t->at;
	k->query = dup_or_null(t->query);
	k->language = dup_or_null(t->language);
	k->agent = dup_or_null(t->agent);
	k->category = dup_or_null(t->category);
	k->request_type = dup_or_null(t->request_type);
	k->slots = dup_or_null(t->slots);
	k->answer = NULL;
}

/*
 * Open (creating it, mode 0600) state_dir/name with its schema, and forget
 * rows older than the retention with purge_sql.  0, or -1 with err set.
 */
static int
store_open(struct store *st, const struct cc_config *cfg, const char *name,
    const char *schema, const char *purge_sql, char *err, size_t errlen)
{
	size_t n = strlen(cfg->state_dir) + strlen(name) + 2;
	char *path = cc_xmalloc(n), *msg = NULL;
	sqlite3_stmt *purge = NULL;
	int rc = -1, setup;

	snprintf(path, n, "%s/%s", cfg->state_dir, name);
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		goto sqlfail;
	chmod(path, 0600);
	/*
	 * Most processes write a turn or two and leave (a question from the
	 * shell): checkpointing the log at every close cost them four
	 * fsyncs, about as much as the rest of the question.  The log is
	 * checkpointed as it grows instead (every 4,000 pages, by whoever
	 * commits then); committed turns are as durable either way.
	 */
	sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sqlite3_busy_timeout(st->db, (int)cfg->lock_timeout_ms);
	/*
	 * Processes that create one store at once: SQLite can answer one
	 * that sets up the file while another does with SQLITE_BUSY at once,
	 * without waiting in its busy handler (that could deadlock), and a
	 * program then went on without memory.  Try again, as long as the
	 * lock timeout.
	 */
	for (long waited = 0;; waited += 10) {
		struct timespec pause = { 0, 10000000L };

		setup = sqlite3_exec(st->db, schema, NULL, NULL, &msg);
		if (setup != SQLITE_BUSY || waited >= cfg->lock_timeout_ms)
			break;
		sqlite3_free(msg);
		msg = NULL;
		nanosleep(&pause, NULL);
	}
	if (setup != SQLITE_OK) {
		snprintf(err, errlen, "'%s': %s", path, msg ? msg : "cannot set up");
		sqlite3_free(msg);
		goto done;
	}
	if (prepare(st->db, purge_sql, &purge) != SQLITE_OK ||
	    prepare(st->db, "BEGIN IMMEDIATE", &st->begin) != SQLITE_OK ||
	    prepare(st->db, "COMMIT", &st->commit) != SQLITE_OK)
		goto sqlfail;
	/*
	 * Forget old conversations.  A busy store just keeps them a while
	 * longer: this must not wait for the lock, or a store held by another
	 * process cost every start-up the whole lock timeout for nothing.
	 */
	sqlite3_bind_int64(purge, 1, (sqlite3_int64)cfg->now - RETENTION_S);
	sqlite3_busy_timeout(st->db, 0);
	sqlite3_step(purge);
	sqlite3_busy_timeout(st->db, (int)cfg->lock_timeout_ms);
	rc = 0;
	goto done;
sqlfail:
	snprintf(err, errlen, "'%s': %s", path,
	    st->db ? sqlite3_errmsg(st->db) : "cannot open");
done:
	sqlite3_finalize(purge);
	free(path);
	return rc;
}

struct cc_session *
cc_session_open(const struct cc_config *cfg, int flags, char *err, size_t errlen)
{
	struct cc_session *s = calloc(1, sizeof *s);

	if (!s)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	if (cc_mkdirs(cfg->state_dir) < 0) {
		snprintf(err, errlen, "cannot create '%s': %s", cfg->state_dir,
		    strerror(errno));
		goto fail;
	}
	s->cfg = cfg;
	s->failed = &s->turns;
	if (store_open(&s->turns, cfg, "sessions.db", turns_schema,
	    "DELETE FROM turns WHERE at < ?1", err, errlen) < 0)
		goto fail;
	if (prepare(s->turns.db, "SELECT id, at, query, language, agent, category,"
	    " request_type, slots FROM turns"
	    " WHERE session = ?1 AND at >= ?2 ORDER BY id DESC LIMIT ?3",
	    &s->recent) != SQLITE_OK ||
	    prepare(s->turns.db, "INSERT INTO turns (session, at, query, language,"
	    " agent, category, request_type, slots) VALUES (?1,?2,?3,?4,?5,?6,?7,?8)",
	    &s->add) != SQLITE_OK)
		goto sqlfail;
	/* a reader of answers does not write turns: nothing to keep */
	if ((flags & CC_SESSION_CACHE) && !(flags & CC_SESSION_ANSWERS)) {
		s->cache = cache_new();
		if (prepare(s->turns.db, "PRAGMA data_version", &s->cache->version) != SQLITE_OK)
			goto sqlfail;
	}
	if (flags & CC_SESSION_ANSWERS) {
		s->failed = &s->answers;
		if (store_open(&s->answers, cfg, "answers.db", answers_schema,
		    "DELETE FROM answers WHERE at < ?1", err, errlen) < 0)
			goto fail;
		if (prepare(s->answers.db, "INSERT OR REPLACE INTO answers (turn, at, answer)"
		    " VALUES (?1, ?2, ?3)", &s->answer) != SQLITE_OK ||
		    prepare(s->answers.db, "SELECT answer FROM answers WHERE turn = ?1",
		    &s->answer_of) != SQLITE_OK)
			goto sqlfail;
	}
	return s;
sqlfail:
	snprintf(err, errlen, "%s: %s", s->failed == &s->answers ? "answers.db" :
	    "sessions.db", sqlite3_errmsg(s->failed->db));
fail:
	cc_session_close(s);
	return NULL;
}

void
cc_session_close(struct cc_session *s)
{
	if (!s)
		return;
	cc_session_flush(s);
	sqlite3_finalize(s->recent);
	sqlite3_finalize(s->add);
	sqlite3_finalize(s->answer);
	sqlite3_finalize(s->answer_of);
	/* the cache's statement first: a connection with one is not closed */
	view_release(s);
	cache_free(s->cache);
	store_close(&s->turns);
	store_close(&s->answers);
	for (int i = 0; i < s->nstates; i++) {
		sqlite3_finalize(s->states[i].get);
		sqlite3_finalize(s->states[i].put);
		sqlite3_finalize(s->states[i].version);
		store_close(&s->states[i].st);
	}
	free(s);
}

const char *
cc_session_error(struct cc_session *s)
{
	return s->failed->db ? sqlite3_errmsg(s->failed->db) : "cannot open";
}

static char *
column(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? cc_xstrdup((const char *)t) : NULL;
}

int
cc_session_recent(struct cc_session *s, const char *session, time_t since,
    struct cc_turn *turns, int max)
{
	int n = 0, rc;

	sqlite3_bind_text(s->recent, 1, session, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s->recent, 2, (sqlite3_int64)since);
	sqlite3_bind_int(s->recent, 3, max);
	while (n < max && (rc = sqlite3_step(s->recent)) == SQLITE_ROW) {
		struct cc_turn *t = &turns[n++];

		t->id = sqlite3_column_int64(s->recent, 0);
		t->at = (time_t)sqlite3_column_int64(s->recent, 1);
		t->query = column(s->recent, 2);
		t->language = column(s->recent, 3);
		t->agent = column(s->recent, 4);
		t->category = column(s->recent, 5);
		t->request_type = column(s->recent, 6);
		t->slots = column(s->recent, 7);
		t->answer = NULL;
	}
	rc = n < max ? rc : SQLITE_DONE;
	sqlite3_reset(s->recent);
	s->failed = &s->turns;
	for (int i = 0; rc == SQLITE_DONE && s->answer_of && i < n; i++) {
		sqlite3_bind_int64(s->answer_of, 1, turns[i].id);
		if ((rc = sqlite3_step(s->answer_of)) == SQLITE_ROW)
			turns[i].answer = column(s->answer_of, 0);
		rc = rc == SQLITE_ROW ? SQLITE_DONE : rc;
		sqlite3_reset(s->answer_of);
		s->failed = &s->answers;
	}
	if (rc != SQLITE_DONE) {
		cc_turns_release(turns, n);
		return -1;
	}
	/* newest first from SQL; callers want them in order */
	for (int i = 0; i < n / 2; i++) {
		struct cc_turn tmp = turns[i];

		turns[i] = turns[n - 1 - i];
		turns[n - 1 - i] = tmp;
	}
	return n;
}

static void
bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* Commit st's batch; 0 or -1. */
static int
store_flush(struct cc_session *s, struct store *st)
{
	int rc;

	if (!st->in_txn)
		return 0;
	rc = sqlite3_step(st->commit);
	sqlite3_reset(st->commit);
	rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	/* a COMMIT that failed can leave the transaction open: end it, or
	   the next BEGIN is refused */
	if (rc != SQLITE_OK) {
		s->failed = st;
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		/* the turns kept may be ones rolled back */
		if (st == &s->turns)
			cache_forget(s->cache);
	}
	st->in_txn = 0;
	st->pending = 0;
	st->checked = 0;
	return rc == SQLITE_OK ? 0 : -1;
}

int
cc_session_flush(struct cc_session *s)
{
	int a, b;

	if (!s)
		return 0;
	a = store_flush(s, &s->turns);
	b = store_flush(s, &s->answers);
	for (int i = 0; i < s->nstates; i++)
		if (store_flush(s, &s->states[i].st) < 0)
			a = -1;
	return a < 0 || b < 0 ? -1 : 0;
}

static long
elapsed_ns(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000000000L + now.tv_nsec - since->tv_nsec;
}

/*
 * One commit per write costs more than the routing itself, so writes are
 * batched in one transaction; a batch is short (BATCH_TURNS, BATCH_NS)
 * and the stage flushes it whenever its output is flushed, so an
 * interactive session never waits for one, and a later stage never sees
 * a record before its turn is committed.
 */
static int
batch_begin(struct cc_session *s, struct store *st)
{
	int rc;

	if (st->in_txn)
		return 0;
	rc = sqlite3_step(st->begin);
	sqlite3_reset(st->begin);
	if (rc != SQLITE_DONE) {
		s->failed = st;
		return -1;
	}
	st->in_txn = 1;
	clock_gettime(CLOCK_MONOTONIC, &st->since);
	return 0;
}

static int
batch_end(struct cc_session *s, struct store *st)
{
	if (++st->pending >= BATCH_TURNS || elapsed_ns(&st->since) >= BATCH_NS)
		return store_flush(s, st);
	return 0;
}

long long
cc_session_add(struct cc_session *s, const char *session, const struct cc_turn *t)
{
	long long id = -1;

	if (batch_begin(s, &s->turns) < 0)
		return -1;
	sqlite3_bind_text(s->add, 1, session, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s->add, 2, (sqlite3_int64)t->at);
	bind_text(s->add, 3, t->query);
	bind_text(s->add, 4, t->language);
	bind_text(s->add, 5, t->agent);
	bind_text(s->add, 6, t->category);
	bind_text(s->add, 7, t->request_type);
	bind_text(s->add, 8, t->slots);
	if (sqlite3_step(s->add) == SQLITE_DONE) {
		id = sqlite3_last_insert_rowid(s->turns.db);
		if (s->cache) {
			struct recent *e = cache_find(s->cache, session);

			/* not kept: the next read loads it, this turn with it */
			if (e)
				recent_append(s->cache, e, t, id);
		}
	} else {
		s->failed = &s->turns;
		cache_forget(s->cache);
	}
	sqlite3_reset(s->add);
	sqlite3_clear_bindings(s->add);
	if (batch_end(s, &s->turns) < 0)
		id = -1;
	return id;
}

int
cc_session_answer(struct cc_session *s, long long turn, const char *answer,
    time_t at)
{
	int rc;

	if (!s->answer || batch_begin(s, &s->answers) < 0)
		return -1;
	sqlite3_bind_int64(s->answer, 1, turn);
	sqlite3_bind_int64(s->answer, 2, (sqlite3_int64)at);
	bind_text(s->answer, 3, answer);
	if ((rc = sqlite3_step(s->answer)) != SQLITE_DONE)
		s->failed = &s->answers;
	sqlite3_reset(s->answer);
	sqlite3_clear_bindings(s->answer);
	if (batch_end(s, &s->answers) < 0)
		rc = SQLITE_ERROR;
	return rc == SQLITE_DONE ? 0 : -1;
}

static void
view_release(struct cc_session *s)
{
	if (s->view_owned)
		cc_turns_release(s->view, s->nview);
	s->nview = s->view_owned = 0;
	cache_bury(s->cache);
}

/*
 * Under the write lock of sessions.db for this batch, forget the turns
 * kept if another connection wrote the file since the last batch: its
 * data_version changes when another connection commits (a checkpoint may
 * change it too: that costs a reload, nothing more).  0 or -1.
 */
static int
cache_hold(struct cc_session *s)
{
	struct cache *c = s->cache;
	sqlite3_int64 v;

	if (s->turns.in_txn && elapsed_ns(&s->turns.since) >= BATCH_NS &&
	    store_flush(s, &s->turns) < 0)
		return -1;
	if (batch_begin(s, &s->turns) < 0)
		return -1;
	if (s->turns.checked)
		return 0;
	if (sqlite3_step(c->version) != SQLITE_ROW) {
		sqlite3_reset(c->version);
		s->failed = &s->turns;
		return -1;
	}
	v = sqlite3_column_int64(c->version, 0);
	sqlite3_reset(c->version);
	if (!c->known || v != c->seen)
		cache_forget(c);
	c->seen = v;
	c->known = 1;
	s->turns.checked = 1;
	return 0;
}

/* Load session's turns at or after since from the store into e. */
static int
recent_load(struct cc_session *s, struct recent *e, time_t since)
{
	int n;

	cc_turns_release(e->turn, e->n);
	e->n = 0;
	if ((n = cc_session_recent(s, e->session, since,
	    e->turn, CACHE_TURNS)) < 0)
		return -1;
	e->n = n;
	e->floor = since;
	e->truncated = n == CACHE_TURNS;
	return 0;
}

int
cc_session_turns(struct cc_session *s, const char *session, time_t since,
    const struct cc_turn **turns, int max)
{
	struct recent *e;
	int k = 0, first;

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
	if (cache_hold(s) < 0) {
		cache_forget(s->cache);
		return -1;
	}
	if (!(e = cache_find(s->cache, session))) {
		e = cache_add(s->cache, session);
		if (recent_load(s, e, since) < 0)
			goto fail;
	} else if (since < e->floor && recent_load(s, e, since) < 0)
		goto fail;
	for (int i = 0; i < e->n; i++)
		k += e->turn[i].at >= since;
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
	for (int i = 0, j = 0; i < e->n; i++)
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

/* The state file of `name`, opened on first use; NULL on failure. */
static struct state *
state_of(struct cc_session *s, const char *name)
{
	char file[64], err[512];
	struct state *x;
	size_t n = strlen(name);

	for (int i = 0; i < s->nstates; i++)
		if (strcmp(s->states[i].name, name) == 0)
			return &s->states[i];
	/* the name becomes a file name: letters, digits, - and _ only */
	if (n == 0 || n >= sizeof x->name || strspn(name,
	    "abcdefghijklmnopqrstuvwxyz0123456789-_") != n || s->nstates == MAX_STATES)
		return NULL;
	x = &s->states[s->nstates];
	memset(x, 0, sizeof *x);
	snprintf(x->name, sizeof x->name, "%s", name);
	snprintf(file, sizeof file, "state-%s.db", name);
	if (store_open(&x->st, s->cfg, file, state_schema,
	    "DELETE FROM state WHERE at < ?1", err, sizeof err) < 0 ||
	    prepare(x->st.db, "SELECT value, at FROM state WHERE session = ?1",
	    &x->get) != SQLITE_OK ||
	    /* in place: a REPLACE gave the row a new rowid, so every write
	       touched the old row's page, the last page and both indexes */
	    prepare(x->st.db, "INSERT INTO state (session, at, value)"
	    " VALUES (?1, ?2, ?3) ON CONFLICT (session) DO UPDATE"
	    " SET at = excluded.at, value = excluded.value", &x->put) != SQLITE_OK ||
	    prepare(x->st.db, "PRAGMA data_version", &x->version) != SQLITE_OK) {
		sqlite3_finalize(x->get);
		sqlite3_finalize(x->put);
		sqlite3_finalize(x->version);
		store_close(&x->st);
		return NULL;
	}
	s->nstates++;
	return x;
}

int
cc_session_state_get(struct cc_session *s, const char *session, const char *name,
    char **json, time_t *at)
{
	struct state *x = state_of(s, name);
	int rc;

	*json = NULL;
	if (!x)
		return -1;
	sqlite3_bind_text(x->get, 1, session, -1, SQLITE_STATIC);
	rc = sqlite3_step(x->get);
	if (rc == SQLITE_ROW) {
		*json = column(x->get, 0);
		if (at)
			*at = (time_t)sqlite3_column_int64(x->get, 1);
	}
	sqlite3_reset(x->get);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		s->failed = &x->st;
		return -1;
	}
	return rc == SQLITE_ROW;
}

int
cc_session_state_put(struct cc_session *s, const char *session, const char *name,
    const char *json, time_t at)
{
	struct state *x = state_of(s, name);
	int rc;

	if (!x || batch_begin(s, &x->st) < 0)
		return -1;
	sqlite3_bind_text(x->put, 1, session, -1, SQLITE_STATIC);
	sqlite3_bind_int64(x->put, 2, (sqlite3_int64)at);
	sqlite3_bind_text(x->put, 3, json, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(x->put)) != SQLITE_DONE)
		s->failed = &x->st;
	sqlite3_reset(x->put);
	sqlite3_clear_bindings(x->put);
	if (batch_end(s, &x->st) < 0)
		rc = SQLITE_ERROR;
	return rc == SQLITE_DONE ? 0 : -1;
}

int
cc_session_state_hold(struct cc_session *s, const char *name)
{
	struct state *x = state_of(s, name);
	sqlite3_int64 v;
	int changed;

	if (!x)
		return -1;
	/* a batch that turns keep open without writing is still a short one */
	if (x->st.in_txn && elapsed_ns(&x->st.since) >= BATCH_NS &&
	    store_flush(s, &x->st) < 0)
		return -1;
	if (x->st.checked)
		return 0;	/* held since the last look: nobody else wrote */
	if (batch_begin(s, &x->st) < 0)
		return -1;
	/*
	 * Under the write lock now, so the version read is the file's last
	 * and stays so until this batch is committed.  SQLite changes it
	 * when another connection commits to the file (a checkpoint may
	 * change it too: that costs the caller a reload, nothing more).
	 */
	if (sqlite3_step(x->version) != SQLITE_ROW) {
		sqlite3_reset(x->version);
		s->failed = &x->st;
		return -1;
	}
	v = sqlite3_column_int64(x->version, 0);
	sqlite3_reset(x->version);
	changed = !x->known || v != x->seen;
	x->seen = v;
	x->known = 1;
	x->st.checked = 1;
	return changed;
}

int
cc_session_state_begin(struct cc_session *s, const char *name)
{
	struct state *x = state_of(s, name);

	return x ? batch_begin(s, &x->st) : -1;
}
