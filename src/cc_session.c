/*
 * Session memory: the turns of each conversation, in SQLite under the state
 * directory.  cc-route records a turn as it routes it, so the next turn of
 * the session sees it even while the earlier record is still flowing
 * through later stages; cc-respond adds the answer to it.
 *
 * Several pipelines may share one store: the database is in WAL mode,
 * writes are batched in short transactions, and a writer waits for the
 * lock (busy timeout) rather than failing.  All SQL uses bound parameters.
 * This file is the only one that knows the store is SQLite, so another
 * backend (PostgreSQL for a deployment that outgrows one machine) replaces
 * it alone.
 */
#include "config.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cc.h"

#define BATCH_TURNS 64		/* commit after this many turns ... */
#define BATCH_NS 20000000L	/* ... or this long after the first */
#define RETENTION_S (7 * 86400)	/* turns older than this are purged */

struct cc_session {
	sqlite3 *db;
	sqlite3_stmt *recent, *add, *answer;
	int in_txn, pending;	/* an open write transaction and its turns */
	struct timespec since;
};

static const char schema[] =
	"PRAGMA journal_mode=WAL;"
	"PRAGMA synchronous=NORMAL;"
	/* 8 MB of pages: a busy store's session index outgrows the default 2 MB
	   and every turn then re-read its pages from the file */
	"PRAGMA cache_size=-8192;"
	"CREATE TABLE IF NOT EXISTS turns ("
	"  id INTEGER PRIMARY KEY,"
	"  session TEXT NOT NULL,"
	"  at INTEGER NOT NULL,"		/* Unix time of the question */
	"  query TEXT NOT NULL,"
	"  language TEXT,"
	"  agent TEXT,"
	"  category TEXT,"
	"  request_type TEXT,"
	"  slots TEXT,"				/* the router's slots, JSON */
	"  answer TEXT,"
	"  answered_at INTEGER);"
	"CREATE INDEX IF NOT EXISTS turns_by_session ON turns (session, id);"
	"CREATE INDEX IF NOT EXISTS turns_by_time ON turns (at);";

static int
prepare(struct cc_session *s, const char *sql, sqlite3_stmt **st)
{
	return sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
}

struct cc_session *
cc_session_open(const struct cc_config *cfg, char *err, size_t errlen)
{
	const char *state_dir = cfg->state_dir;
	struct cc_session *s = calloc(1, sizeof *s);
	size_t n = strlen(state_dir) + sizeof "/sessions.db";
	char *path = cc_xmalloc(n);
	char *msg = NULL;
	sqlite3_stmt *purge = NULL;

	if (!s)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	snprintf(path, n, "%s/sessions.db", state_dir);
	if (cc_mkdirs(state_dir) < 0) {
		snprintf(err, errlen, "cannot create '%s': %s", state_dir, strerror(errno));
		goto fail;
	}
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		goto sqlfail;
	chmod(path, 0600);
	/*
	 * Most processes write a turn or two and leave (a question from the
	 * shell): checkpointing the log at every close cost them four
	 * fsyncs, about as much as the rest of the question.  The log is
	 * checkpointed as it grows instead (every 1,000 pages, by whoever
	 * commits then); committed turns are as durable either way.
	 */
	sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sqlite3_busy_timeout(s->db, (int)cfg->lock_timeout_ms);
	if (sqlite3_exec(s->db, schema, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "'%s': %s", path, msg ? msg : "cannot set up");
		sqlite3_free(msg);
		goto fail;
	}
	if (prepare(s, "SELECT id, at, query, language, agent, category,"
	    " request_type, slots, answer FROM turns"
	    " WHERE session = ?1 AND at >= ?2 ORDER BY id DESC LIMIT ?3",
	    &s->recent) != SQLITE_OK ||
	    prepare(s, "INSERT INTO turns (session, at, query, language, agent,"
	    " category, request_type, slots) VALUES (?1,?2,?3,?4,?5,?6,?7,?8)",
	    &s->add) != SQLITE_OK ||
	    prepare(s, "UPDATE turns SET answer = ?2, answered_at = ?3 WHERE id = ?1",
	    &s->answer) != SQLITE_OK ||
	    prepare(s, "DELETE FROM turns WHERE at < ?1", &purge) != SQLITE_OK)
		goto sqlfail;
	/*
	 * Forget old conversations.  A busy store just keeps them a while
	 * longer: this must not wait for the lock, or a store held by another
	 * process cost every start-up the whole lock timeout for nothing.
	 */
	sqlite3_bind_int64(purge, 1, (sqlite3_int64)cfg->now - RETENTION_S);
	sqlite3_busy_timeout(s->db, 0);
	sqlite3_step(purge);
	sqlite3_finalize(purge);
	sqlite3_busy_timeout(s->db, (int)cfg->lock_timeout_ms);
	free(path);
	return s;
sqlfail:
	snprintf(err, errlen, "'%s': %s", path,
	    s->db ? sqlite3_errmsg(s->db) : "cannot open");
fail:
	sqlite3_finalize(purge);
	free(path);
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
	sqlite3_close(s->db);
	free(s);
}

const char *
cc_session_error(struct cc_session *s)
{
	return sqlite3_errmsg(s->db);
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
		t->answer = column(s->recent, 8);
	}
	rc = n < max ? rc : SQLITE_DONE;
	sqlite3_reset(s->recent);
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

int
cc_session_flush(struct cc_session *s)
{
	int rc;

	if (!s || !s->in_txn)
		return 0;
	rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	/* a COMMIT that failed can leave the transaction open: end it, or
	   the next BEGIN is refused */
	if (rc != SQLITE_OK && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->in_txn = 0;
	s->pending = 0;
	return rc == SQLITE_OK ? 0 : -1;
}

static long
elapsed_ns(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000000000L + now.tv_nsec - since->tv_nsec;
}

/*
 * One commit per write costs more than the routing itself, so writes (new
 * turns, answers) are batched in one transaction; a batch is short
 * (BATCH_TURNS, BATCH_NS) and the stage flushes it whenever its output is
 * flushed, so an interactive session never waits for one, and a later
 * stage never sees a record before its turn is committed.
 */
static int
batch_begin(struct cc_session *s)
{
	if (s->in_txn)
		return 0;
	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	s->in_txn = 1;
	clock_gettime(CLOCK_MONOTONIC, &s->since);
	return 0;
}

static int
batch_end(struct cc_session *s)
{
	if (++s->pending >= BATCH_TURNS || elapsed_ns(&s->since) >= BATCH_NS)
		return cc_session_flush(s);
	return 0;
}

long long
cc_session_add(struct cc_session *s, const char *session, const struct cc_turn *t)
{
	long long id = -1;

	if (batch_begin(s) < 0)
		return -1;
	sqlite3_bind_text(s->add, 1, session, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s->add, 2, (sqlite3_int64)t->at);
	bind_text(s->add, 3, t->query);
	bind_text(s->add, 4, t->language);
	bind_text(s->add, 5, t->agent);
	bind_text(s->add, 6, t->category);
	bind_text(s->add, 7, t->request_type);
	bind_text(s->add, 8, t->slots);
	if (sqlite3_step(s->add) == SQLITE_DONE)
		id = sqlite3_last_insert_rowid(s->db);
	sqlite3_reset(s->add);
	sqlite3_clear_bindings(s->add);
	if (batch_end(s) < 0)
		id = -1;
	return id;
}

int
cc_session_answer(struct cc_session *s, long long turn, const char *answer,
    time_t at)
{
	int rc;

	if (batch_begin(s) < 0)
		return -1;
	sqlite3_bind_int64(s->answer, 1, turn);
	bind_text(s->answer, 2, answer);
	sqlite3_bind_int64(s->answer, 3, (sqlite3_int64)at);
	rc = sqlite3_step(s->answer);
	sqlite3_reset(s->answer);
	sqlite3_clear_bindings(s->answer);
	if (batch_end(s) < 0)
		rc = SQLITE_ERROR;
	return rc == SQLITE_DONE ? 0 : -1;
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
