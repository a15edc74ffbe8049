/*
 * Session memory in SQLite under the state directory (or the directory
 * CC_STORE names): the embedded default backend of cc_session.c.
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
 * This file is the only one that knows the store is SQLite;
 * cc_session_pg.c is the same for PostgreSQL.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_config.h"
#include "cc_session.h"
#include "cc_store.h"

#define BATCH_TURNS CC_STORE_BATCH_TURNS
#define BATCH_NS CC_STORE_BATCH_NS
#define RETENTION_S CC_STORE_RETENTION_S
/*
 * A stage's own state (state-NAME.db) in longer batches than turns: its
 * one writer rewrites the same rows (a session's state, every turn), and
 * a commit writes every page a batch changed to the log.  At 20 ms, a
 * batch of cc-coach's 2,000 sessions changed a page a turn, and logging
 * them was a third of its store's cost; at 200 ms a page holds several
 * turns' writes.  The stage still commits whenever it hands records on.
 */
#define STATE_BATCH_WRITES 8192
#define STATE_BATCH_NS 200000000L
#define STATE_AT_SLACK 60	/* seconds: lite_state_put */

/* One database file and its batch of writes. */
struct store {
	sqlite3 *db;
	int in_txn, pending;	/* an open write transaction and its writes */
	int batch_writes;	/* it commits after this many writes ... */
	long batch_ns;		/* ... or this long after the first */
	int checked;		/* data_version was looked at in this batch */
	struct timespec since;
	sqlite3_stmt *begin, *commit;	/* prepared at first use: BEGIN, COMMIT */
	int log_pages;		/* pages in the write-ahead log after our last commit */
	const char *purge, *purge_heads;	/* in the first batch (store_purge) */
	time_t purge_before;
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
	sqlite3_stmt *rewrite;	/* the value alone, of a row written lately */
	sqlite3_int64 seen;	/* data_version at the last hold */
	int known;		/* seen is set */
	/* its history (history_ready, at the end of this file) */
	sqlite3_stmt *hadd, *hhead, *hlast, *hget, *hclear;
};

struct lite {
	struct store turns, answers;	/* answers.db: CC_SESSION_ANSWERS only */
	struct store *failed;		/* the one whose error is the last */
	sqlite3_stmt *last, *prev, *turn, *add, *add_prev, *head, *head_update;
	sqlite3_stmt *answer, *answer_of;
	sqlite3_stmt *read_begin, *read_end;	/* answers.db, for lite_recent */
	const struct cc_config *cfg;	/* for opening state files later */
	char *dir;			/* ... in this directory */
	struct state states[MAX_STATES];
	int nstates;
	/* CC_SESSION_CACHE: PRAGMA data_version of sessions.db, its value
	   at the last batch, and whether that is set */
	sqlite3_stmt *version;
	sqlite3_int64 seen;
	int known;
	/*
	 * CC_SESSION_ANSWERS (cc-respond): sessions.db is opened at its
	 * first statement (stmt), since a stage that stores answers reads
	 * turns only for a question about the conversation itself, and a
	 * third connection parsing its schema cost a cold question with a
	 * session a third of a million instructions (issue 16).
	 */
	int turns_later;
	/* the heads of the sessions this batch added turns to (heads_put) */
	struct head *heads;
	size_t nheads;
	/* turn ids: the block taken (take_id), next to end */
	sqlite3_stmt *take_ids;
	sqlite3_int64 next_id, end_id;
	int want_ids;
	/* the notes of batches of turns (turn_changes): this batch's
	   sessions, one a line; this connection's token */
	struct cc_buf noted;
	sqlite3_stmt *note, *note_purge, *notes, *notes_last;
	char writer[48];
	/* CC_SESSION_BATCH: writes kept until the batch ends (defer_*) */
	int deferred;
	struct pending *pend;
	size_t npend, maxpend, nturns;	/* nturns: of them, turns */
	struct timespec looked;
	sqlite3_int64 note_seen;	/* the last note looked at */
	int note_known;
	char **others;			/* sessions others wrote (turns_changed) */
	size_t nothers;
};

/*
 * A write kept in process (CC_SESSION_BATCH): a turn (session set, its
 * strings in one block from t.query) or an answer (session NULL).
 */
struct pending {
	char *session;
	sqlite3_int64 id;	/* the turn's, or the answer's turn */
	struct cc_turn t;	/* an answer: t.at and t.answer */
};

/*
 * A session's newest turn, to be written to `sessions` once a batch
 * (heads_write) rather than once a turn: the upsert was 40% of the SQL a
 * turn cost, and a batch's turns come from fewer sessions than turns.
 * An open-addressed table, twice the most turns a batch holds.
 */
#define HEADS (2 * BATCH_TURNS)
struct head {
	char *session;		/* NULL: a free slot */
	sqlite3_int64 last, at;
};

/* A connection's settings; WAL, once set, is the file's own */
#define CONNECTION_PRAGMAS \
	"PRAGMA synchronous=NORMAL;" \
	/* 8 MB of pages: a busy store's session index outgrows the default \
	   2 MB and every turn then re-read its pages from the file */ \
	"PRAGMA cache_size=-8192;"
#define PRAGMAS "PRAGMA journal_mode=WAL;" CONNECTION_PRAGMAS

/*
 * The log's checkpoints (note_commit): a batch rewrites the same index
 * pages, so a checkpoint every 16 MB of log copies each once, not once
 * every 4 MB (SQLite's default).  But the first process to open a store
 * reads all of the log left behind to rebuild its index (2,800 reads for
 * a 16 MB log, about a third of a cold question with a session): a
 * process that leaves more than 1 MB of log checkpoints it as it closes,
 * so a question from the shell mostly finds a short one.
 */
#define CHECKPOINT_PAGES 4000
#define CLOSE_CHECKPOINT_PAGES 256

/*
 * Turns, version 1 (PRAGMA user_version).  A session's turns are a chain:
 * each turn names the session's previous one (prev), and `sessions` its
 * newest (last).  Version 0 found them through an index on (session, id),
 * and a new turn of one of a thousand sessions went into a random page
 * of it: every batch wrote back most of the index (4 kB a turn to the
 * log, and as much again at the checkpoint), a third of cc-route's time
 * with memory.  A turn now goes at the end of the table and of the time
 * index, and changes one row of `sessions`, a table as small as the
 * number of live sessions.  The writer gives each turn its prev (no
 * trigger keeps the chain), so a program older than version 1, which
 * inserts turns without it, must not write a store of version 1 or later.
 *
 * (Stores made before answers.db keep their unused answer columns.)
 */
#define TURNS_VERSION 2
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
	"CREATE INDEX IF NOT EXISTS turns_by_time ON turns (at);";

/* From version 0 (or nothing), under the write lock: see store_upgrade. */
static const char turns_upgrade[] =
	"CREATE INDEX IF NOT EXISTS turns_by_session ON turns (session, id);"
	"ALTER TABLE turns ADD COLUMN prev INTEGER;"	/* the session's previous turn */
	"UPDATE turns SET prev = (SELECT max(t.id) FROM turns AS t"
	"  WHERE t.session = turns.session AND t.id < turns.id);"
	"CREATE TABLE sessions ("
	"  session TEXT PRIMARY KEY,"
	"  last INTEGER NOT NULL,"		/* its newest turn */
	"  at INTEGER NOT NULL"			/* ... and when */
	") WITHOUT ROWID;"
	"INSERT INTO sessions (session, last, at) SELECT session, id, at FROM turns"
	"  WHERE id IN (SELECT max(id) FROM turns GROUP BY session);"
	"DROP INDEX turns_by_session;"
	"PRAGMA user_version = 1;";

/*
 * Version 2: turn ids a block at a time, and a note of each batch's
 * sessions.  A writer that keeps its turns in process until its batch
 * ends (CC_SESSION_BATCH) must give each its id before the batch is
 * written, without holding the write lock meanwhile: it takes a block of
 * ids from turn_ids (a short transaction of its own), and every writer
 * takes its ids there too, so no insert can take an id a block holds
 * (an insert that leaves the id to SQLite, max(id) + 1, could: programs
 * older than this file's version 2 must not write a store that a newer
 * one writes at the same time).  Each batch of turns notes the sessions
 * it wrote in turn_changes, so such a writer, which cannot read
 * data_version under its own lock, forgets only the sessions others
 * wrote (as concierge.turn_changes does in PostgreSQL).
 */
static const char turns_upgrade2[] =
	"CREATE TABLE IF NOT EXISTS turn_ids ("
	"  one INTEGER PRIMARY KEY CHECK (one = 1),"
	"  next INTEGER NOT NULL);"		/* the first id no block holds */
	"INSERT OR IGNORE INTO turn_ids (one, next)"
	"  SELECT 1, coalesce(max(id), 0) + 1 FROM turns;"
	"CREATE TABLE IF NOT EXISTS turn_changes ("
	"  id INTEGER PRIMARY KEY,"		/* consecutive: a gap is a purge */
	"  writer TEXT NOT NULL,"		/* the connection's token */
	"  sessions TEXT NOT NULL);"		/* the batch's, one a line */
	"PRAGMA user_version = 2;";
static const char *const turns_steps[] = { turns_upgrade, turns_upgrade2 };

/*
 * answers.db and the state files, version 1: their schema is there (a
 * file of version 0 may or may not have it, and is set up again).  It
 * spares every later open the schema's statements: with the version
 * current, an open reads PRAGMA user_version and nothing else.
 */
#define SETUP_VERSION 1
static const char setup_upgrade[] = "PRAGMA user_version = 1;";
static const char *const setup_steps[] = { setup_upgrade };

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

static void
store_close(struct store *st)
{
	sqlite3_finalize(st->begin);
	sqlite3_finalize(st->commit);
	if (st->db && st->log_pages > CLOSE_CHECKPOINT_PAGES) {
		/* not waiting: a store in use is checkpointed by its users */
		sqlite3_busy_timeout(st->db, 0);
		sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE,
		    NULL, NULL);
	}
	sqlite3_close(st->db);
}

/* SQLite's own autocheckpoint, which this hook replaces, and the log's
 * size for store_close. */
static int
note_commit(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct store *st = arg;

	st->log_pages = pages;
	if (pages >= CHECKPOINT_PAGES) {
		sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL,
		    NULL);
		st->log_pages = 0;
	}
	return SQLITE_OK;
}

/*
 * Bring the file to `version` with the scripts steps[have] to
 * steps[version - 1] (each ends by setting user_version), unless it is
 * there already: one read when it
 * is, so a start does not wait for another process's batch.  The script
 * runs under the write lock, after a second look, so of processes that
 * open an old store at once one upgrades it.  An SQLite code, *msg as
 * sqlite3_exec's.
 */
static int
store_upgrade(sqlite3 *db, int version, const char *const *steps, char **msg)
{
	sqlite3_stmt *v = NULL;
	int rc, have = -1;

	for (int locked = 0; locked < 2; locked++) {
		if ((rc = prepare(db, "PRAGMA user_version", &v)) != SQLITE_OK)
			break;
		if ((rc = sqlite3_step(v)) == SQLITE_ROW) {
			have = sqlite3_column_int(v, 0);
			rc = SQLITE_OK;
		}
		sqlite3_finalize(v);
		if (rc != SQLITE_OK || have >= version)
			break;
		if (locked) {
			/* steps[i] brings version i to i + 1 */
			for (int i = have < 0 ? 0 : have; rc == SQLITE_OK && i < version; i++)
				rc = sqlite3_exec(db, steps[i], NULL, NULL, msg);
			break;
		}
		if ((rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, msg)) != SQLITE_OK)
			return rc;
	}
	if (!sqlite3_get_autocommit(db)) {
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(db, "COMMIT", NULL, NULL, msg);
		if (rc != SQLITE_OK)
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	}
	if (rc != SQLITE_OK && !*msg)
		*msg = sqlite3_mprintf("%s", sqlite3_errmsg(db));
	return rc;
}

/* 1 when the file is at version or later: its schema is there. */
static int
store_current(sqlite3 *db, int version)
{
	sqlite3_stmt *v = NULL;
	int have = -1;

	if (prepare(db, "PRAGMA user_version", &v) == SQLITE_OK &&
	    sqlite3_step(v) == SQLITE_ROW)
		have = sqlite3_column_int(v, 0);
	sqlite3_finalize(v);
	return have >= version;
}

/*
 * Open (creating it, mode 0600) dir/name with its schema (and its
 * upgrade to version: store_upgrade), and have rows older than the
 * retention forgotten with purge_sql in its first batch.  A file of the
 * version costs one PRAGMA: the schema's statements, the upgrade's check
 * and the purge's write lock were most of a cold question's session
 * memory (2.3 of 3.2 million instructions).  0, or -1 with err set.
 */
static int sqlite_configured;

static int
store_open(struct store *st, const struct cc_config *cfg, const char *dir,
    const char *name, const char *schema, int version, const char *const *upgrade,
    const char *purge_sql, char *err, size_t errlen)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *path = cc_xmalloc(n), *msg = NULL;
	int rc = -1, setup;

	st->log_pages = 0;
	st->batch_writes = BATCH_TURNS;
	st->batch_ns = BATCH_NS;
	snprintf(path, n, "%s/%s", dir, name);
	/*
	 * SQLite's count of the memory it holds costs every allocation a
	 * global mutex and its bookkeeping, and nothing here reads it: off,
	 * before SQLite is first used (later, as in a worker whose index was
	 * opened first, the call is refused and changes nothing).
	 */
	if (!sqlite_configured) {
		sqlite_configured = 1;
		sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	}
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		goto sqlfail;
	chmod(path, 0600);
	/*
	 * Most processes write a turn or two and leave (a question from the
	 * shell): checkpointing the log at every close cost them four
	 * fsyncs, about as much as the rest of the question.  The log is
	 * checkpointed as it grows instead (note_commit), and when a
	 * process leaves a long one; committed turns are as durable either
	 * way.
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

		if (waited == 0 && store_current(st->db, version)) {
			setup = sqlite3_exec(st->db, CONNECTION_PRAGMAS, NULL, NULL, &msg);
			if (setup == SQLITE_OK)
				break;
			sqlite3_free(msg);
			msg = NULL;
		}

		setup = sqlite3_exec(st->db, schema, NULL, NULL, &msg);
		if (setup == SQLITE_OK && upgrade)
			setup = store_upgrade(st->db, version, upgrade, &msg);
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
	sqlite3_wal_hook(st->db, note_commit, st);
	st->purge = purge_sql;
	st->purge_before = cfg->now - RETENTION_S;
	rc = 0;
	goto done;
sqlfail:
	snprintf(err, errlen, "'%s': %s", path,
	    st->db ? sqlite3_errmsg(st->db) : "cannot open");
done:
	free(path);
	return rc;
}

/*
 * Forget old conversations, in the first batch a connection writes: it
 * holds the write lock then anyway, where a purge at the open took the
 * lock for itself (and must not wait for it) even in a process that only
 * reads.  A file nobody writes keeps its rows until one does (or until
 * cc-store prune).  A purge that fails leaves the rows for the next
 * process; if SQLite rolled the batch back for it, the batch begins again.
 */
static void
store_purge(struct store *st)
{
	sqlite3_stmt *purge = NULL;
	const char *sql = st->purge;

	st->purge = NULL;
	if (prepare(st->db, sql, &purge) != SQLITE_OK)
		return;
	sqlite3_bind_int64(purge, 1, (sqlite3_int64)st->purge_before);
	if (sqlite3_step(purge) == SQLITE_DONE && sqlite3_changes(st->db) > 0 &&
	    st->purge_heads) {
		/* the sessions whose newest turn went: sessions.db's only */
		sqlite3_finalize(purge);
		purge = NULL;
		if (prepare(st->db, st->purge_heads, &purge) == SQLITE_OK) {
			sqlite3_bind_int64(purge, 1, (sqlite3_int64)st->purge_before);
			sqlite3_step(purge);
		}
	}
	sqlite3_finalize(purge);
}

static void lite_close(void *b);
static int lite_flush(void *b);
static int heads_write(struct lite *s);
static void pending_clear(struct lite *s);
static void others_clear(struct lite *s);
static int pending_turns(struct lite *s, const char *session, sqlite3_int64 *from,
    time_t since, struct cc_turn *turns, int max);
static char *pending_answer(struct lite *s, sqlite3_int64 turn);
static int note_write(struct lite *s);
static int take_id(struct lite *s, sqlite3_int64 *id);
static long long defer_add(struct lite *s, const char *session,
    const struct cc_turn *t);
static int defer_answer(struct lite *s, long long turn, const char *answer,
    time_t at);
static int defer_flush(struct lite *s);
static int defer_look(struct lite *s);

/*
 * The statements, each prepared at its first use: a process that asks
 * one question uses a few of them, and preparing them all cost a cold
 * question half a million instructions.
 */
#define SQL_LAST "SELECT last FROM sessions WHERE session = ?1"
/* the turn before a turn of the session: none when it is another's */
#define SQL_PREV "SELECT prev FROM turns WHERE id = ?1 AND session = ?2"
#define SQL_TURN "SELECT prev, at, query, language, agent, category," \
	" request_type, slots FROM turns WHERE id = ?1"
#define SQL_ADD "INSERT INTO turns (session, at, query, language, agent," \
	" category, request_type, slots, prev, id) VALUES (?1,?2,?3,?4,?5,?6,?7,?8," \
	" (SELECT last FROM sessions WHERE session = ?1), ?10)"
#define SQL_ADD_PREV "INSERT INTO turns (session, at, query, language, agent," \
	" category, request_type, slots, prev, id) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)"
/* a block of ?1 ids: above every turn, and every block taken before */
#define SQL_TAKE_IDS "UPDATE turn_ids SET next = max(next," \
	" (SELECT coalesce(max(id), 0) + 1 FROM turns)) + ?1 RETURNING next - ?1"
#define SQL_NOTE "INSERT INTO turn_changes (writer, sessions) VALUES (?1, ?2)"
#define SQL_NOTE_PURGE "DELETE FROM turn_changes WHERE id <= ?1"
#define SQL_NOTES "SELECT id, writer, sessions FROM turn_changes WHERE id > ?1" \
	" ORDER BY id"
#define SQL_NOTES_LAST "SELECT coalesce(max(id), 0) FROM turn_changes"
#define NOTES_KEPT 4096		/* a writer that looks less often forgets all */
#define SQL_HEAD "INSERT INTO sessions (session, last, at) VALUES (?1, ?2, ?3)" \
	" ON CONFLICT (session) DO UPDATE SET last = excluded.last, at = excluded.at"
/*
 * A session with a head already (most, in a batch) is updated in place:
 * the upsert found the row, then sought it again to update it, and cost
 * a batch's writer a third more than the update alone.
 */
#define SQL_HEAD_UPDATE "UPDATE sessions SET last = ?2, at = ?3 WHERE session = ?1"
#define SQL_VERSION "PRAGMA data_version"
#define SQL_ANSWER "INSERT OR REPLACE INTO answers (turn, at, answer) VALUES (?1, ?2, ?3)"
#define SQL_ANSWER_OF "SELECT answer FROM answers WHERE turn = ?1"

static int
open_turns(struct lite *s, char *err, size_t errlen)
{
	s->turns_later = 0;
	if (store_open(&s->turns, s->cfg, s->dir, "sessions.db", turns_schema,
	    TURNS_VERSION, turns_steps,
	    "DELETE FROM turns WHERE at < ?1", err, errlen) < 0)
		return -1;
	s->turns.purge_heads = "DELETE FROM sessions WHERE at < ?1";
	return 0;
}

/* *st, prepared on f's connection if it is not yet; NULL on an error. */
static sqlite3_stmt *
stmt(struct lite *s, struct store *f, sqlite3_stmt **st, const char *sql)
{
	char err[256];

	if (!*st && f == &s->turns && s->turns_later && open_turns(s, err, sizeof err) < 0) {
		s->failed = f;
		return NULL;
	}
	if (!*st && (!f->db || prepare(f->db, sql, st) != SQLITE_OK)) {
		sqlite3_finalize(*st);
		*st = NULL;
		s->failed = f;
	}
	return *st;
}

static void *
lite_open(const struct cc_config *cfg, const char *dir, int flags, char *err,
    size_t errlen)
{
	struct lite *s = calloc(1, sizeof *s);

	if (!s)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	s->cfg = cfg;
	s->dir = cc_xstrdup(dir);
	if (cc_mkdirs(dir) < 0) {
		snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
		goto fail;
	}
	s->failed = &s->turns;
	if (flags & CC_SESSION_ANSWERS)
		s->turns_later = 1;
	else if (open_turns(s, err, errlen) < 0)
		goto fail;
	/* the statements are prepared at their first use (stmt) */
	snprintf(s->writer, sizeof s->writer, "%ld.%ld", (long)getpid(),
	    (long)(cc_store_elapsed_ns(&(struct timespec){ 0, 0 }) & 0x7fffffff));
	s->deferred = (flags & CC_SESSION_BATCH) != 0;
	if (flags & CC_SESSION_ANSWERS) {
		s->failed = &s->answers;
		if (store_open(&s->answers, cfg, dir, "answers.db", answers_schema,
		    SETUP_VERSION, setup_steps,
		    "DELETE FROM answers WHERE at < ?1", err, errlen) < 0)
			goto fail;
	}
	return s;
fail:
	lite_close(s);
	return NULL;
}

static void
lite_close(void *b)
{
	struct lite *s = b;

	if (!s)
		return;
	lite_flush(s);
	sqlite3_finalize(s->last);
	sqlite3_finalize(s->prev);
	sqlite3_finalize(s->turn);
	sqlite3_finalize(s->add);
	sqlite3_finalize(s->add_prev);
	sqlite3_finalize(s->head);
	sqlite3_finalize(s->head_update);
	sqlite3_finalize(s->answer);
	sqlite3_finalize(s->answer_of);
	sqlite3_finalize(s->read_begin);
	sqlite3_finalize(s->read_end);
	sqlite3_finalize(s->take_ids);
	sqlite3_finalize(s->note);
	sqlite3_finalize(s->note_purge);
	sqlite3_finalize(s->notes);
	sqlite3_finalize(s->notes_last);
	/* every statement first: a connection with one is not closed */
	sqlite3_finalize(s->version);
	store_close(&s->turns);
	store_close(&s->answers);
	for (int i = 0; i < s->nstates; i++) {
		sqlite3_finalize(s->states[i].get);
		sqlite3_finalize(s->states[i].put);
		sqlite3_finalize(s->states[i].rewrite);
		sqlite3_finalize(s->states[i].version);
		sqlite3_finalize(s->states[i].hadd);
		sqlite3_finalize(s->states[i].hhead);
		sqlite3_finalize(s->states[i].hlast);
		sqlite3_finalize(s->states[i].hget);
		sqlite3_finalize(s->states[i].hclear);
		store_close(&s->states[i].st);
	}
	free(s->dir);
	free(s->heads);
	cc_buf_release(&s->noted);
	pending_clear(s);
	free(s->pend);
	others_clear(s);
	free(s);
}

static const char *
lite_error(void *b)
{
	struct lite *s = b;

	return s->failed->db ? sqlite3_errmsg(s->failed->db) : "cannot open";
}

static char *
column(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? cc_xstrdup((const char *)t) : NULL;
}

/*
 * The session's chain, from its newest turn back (from is 0) or from the
 * turn before its turn `from`, until max turns at or after since are
 * found or it ends: turns older than the retention are gone, and so is
 * the rest of the chain behind them.
 */
static int
walk(struct lite *s, const char *session, sqlite3_int64 from, time_t since,
    struct cc_turn *turns, int max)
{
	int n = 0, rc;
	sqlite3_int64 id = 0;
	sqlite3_stmt *bad = NULL;	/* reset last, so its error is the one told */
	sqlite3_stmt *start;
	int more, reading, answers = s->answers.db != NULL;

	/* this connection's turns not written yet, newest first */
	n = pending_turns(s, session, &from, since, turns, max);
	start = from ? stmt(s, &s->turns, &s->prev, SQL_PREV) :
	    stmt(s, &s->turns, &s->last, SQL_LAST);
	/* a head this batch has not written yet is read as if it had */
	if (!start || !stmt(s, &s->turns, &s->turn, SQL_TURN) ||
	    (!from && s->nheads && heads_write(s) < 0) ||
	    (answers && (!stmt(s, &s->answers, &s->answer_of, SQL_ANSWER_OF) ||
	    !stmt(s, &s->answers, &s->read_begin, "BEGIN") ||
	    !stmt(s, &s->answers, &s->read_end, "COMMIT")))) {
		cc_turns_release(turns, n);
		return -1;
	}
	if (from) {
		sqlite3_bind_int64(start, 1, from);
		sqlite3_bind_text(start, 2, session, -1, SQLITE_STATIC);
	} else {
		sqlite3_bind_text(start, 1, session, -1, SQLITE_STATIC);
	}
	rc = sqlite3_step(start);
	/* no row: no turn yet, or `from` is not the session's (or purged);
	   a null prev: the session's first turn */
	if ((more = rc == SQLITE_ROW && sqlite3_column_type(start, 0) != SQLITE_NULL))
		id = sqlite3_column_int64(start, 0);
	rc = rc == SQLITE_ROW ? SQLITE_DONE : rc;
	/*
	 * start is reset only after the walk: while it is active, the
	 * walk's statements read in its transaction.  Each one in its own
	 * (a WAL read lock taken and given up each time) made a memory
	 * question in cc-respond cost hundreds of microseconds.
	 */
	while (more && n < max && rc == SQLITE_DONE) {
		sqlite3_bind_int64(s->turn, 1, id);
		if ((rc = sqlite3_step(s->turn)) == SQLITE_ROW) {
			rc = SQLITE_DONE;
			more = sqlite3_column_type(s->turn, 0) != SQLITE_NULL;
			if (sqlite3_column_int64(s->turn, 1) >= (sqlite3_int64)since) {
				struct cc_turn *t = &turns[n++];

				t->id = id;
				t->at = (time_t)sqlite3_column_int64(s->turn, 1);
				t->query = column(s->turn, 2);
				t->language = column(s->turn, 3);
				t->agent = column(s->turn, 4);
				t->category = column(s->turn, 5);
				t->request_type = column(s->turn, 6);
				t->slots = column(s->turn, 7);
				t->answer = NULL;
			}
			id = sqlite3_column_int64(s->turn, 0);
		} else if (rc == SQLITE_DONE) {
			more = 0;	/* purged */
		} else {
			bad = s->turn;
			break;
		}
		sqlite3_reset(s->turn);
	}
	sqlite3_reset(start);
	if (bad)
		sqlite3_reset(bad);
	bad = NULL;
	s->failed = &s->turns;
	/* the answers likewise, in one read of answers.db unless a batch is open */
	reading = rc == SQLITE_DONE && answers && n > 0 && !s->answers.in_txn &&
	    sqlite3_step(s->read_begin) == SQLITE_DONE;

	if (answers)
		sqlite3_reset(s->read_begin);
	for (int i = 0; rc == SQLITE_DONE && answers && i < n; i++) {
		if ((turns[i].answer = pending_answer(s, turns[i].id)))
			continue;
		sqlite3_bind_int64(s->answer_of, 1, turns[i].id);
		if ((rc = sqlite3_step(s->answer_of)) == SQLITE_ROW)
			turns[i].answer = column(s->answer_of, 0);
		rc = rc == SQLITE_ROW ? SQLITE_DONE : rc;
		s->failed = &s->answers;
		if (rc != SQLITE_DONE) {
			bad = s->answer_of;
			break;
		}
		sqlite3_reset(s->answer_of);
	}
	if (reading) {
		sqlite3_step(s->read_end);	/* a read: nothing to lose */
		sqlite3_reset(s->read_end);
	}
	if (bad)
		sqlite3_reset(bad);
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

static int
lite_recent(void *b, const char *session, time_t since, struct cc_turn *turns,
    int max)
{
	return walk(b, session, 0, since, turns, max);
}

static int
lite_before(void *b, const char *session, long long turn, time_t since,
    struct cc_turn *turns, int max)
{
	return turn > 0 ? walk(b, session, turn, since, turns, max) : 0;
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
store_flush(struct lite *s, struct store *st)
{
	int rc;

	if (!st->in_txn)
		return 0;
	/* the batch's session heads go in its transaction: sessions.db only */
	if (st == &s->turns && (heads_write(s) < 0 || note_write(s) < 0)) {
		rc = SQLITE_ERROR;
	} else {
		rc = sqlite3_step(st->commit);
		sqlite3_reset(st->commit);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	/* a COMMIT that failed can leave the transaction open: end it, or
	   the next BEGIN is refused */
	if (rc != SQLITE_OK) {
		s->failed = st;
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		/* a block taken in the batch went with it */
		if (st == &s->turns)
			s->next_id = s->end_id = 0;
	}
	st->in_txn = 0;
	st->pending = 0;
	st->checked = 0;
	return rc == SQLITE_OK ? 0 : -1;
}

static int
lite_flush(void *p)
{
	struct lite *s = p;
	int a, b;

	if (defer_flush(s) < 0)
		return -1;
	a = store_flush(s, &s->turns);
	b = store_flush(s, &s->answers);
	for (int i = 0; i < s->nstates; i++)
		if (store_flush(s, &s->states[i].st) < 0)
			a = -1;
	return a < 0 || b < 0 ? -1 : 0;
}

/*
 * One commit per write costs more than the routing itself, so writes are
 * batched in one transaction; a batch is short (BATCH_TURNS, BATCH_NS)
 * and the stage flushes it whenever its output is flushed, so an
 * interactive session never waits for one, and a later stage never sees
 * a record before its turn is committed.
 */
static int
batch_begin(struct lite *s, struct store *st)
{
	int rc;

	if (st->in_txn)
		return 0;
	if ((!st->begin && prepare(st->db, "BEGIN IMMEDIATE", &st->begin) != SQLITE_OK) ||
	    (!st->commit && prepare(st->db, "COMMIT", &st->commit) != SQLITE_OK)) {
		s->failed = st;
		return -1;
	}
	rc = sqlite3_step(st->begin);
	sqlite3_reset(st->begin);
	if (rc != SQLITE_DONE) {
		s->failed = st;
		return -1;
	}
	if (st->purge) {
		store_purge(st);
		if (sqlite3_get_autocommit(st->db))	/* rolled back: again */
			return batch_begin(s, st);
	}
	st->in_txn = 1;
	clock_gettime(CLOCK_MONOTONIC, &st->since);
	return 0;
}

static int
batch_end(struct lite *s, struct store *st)
{
	if (++st->pending >= st->batch_writes ||
	    cc_store_elapsed_ns(&st->since) >= st->batch_ns)
		return store_flush(s, st);
	return 0;
}

/* Note session's newest turn, for heads_write. */
static void
heads_put(struct lite *s, const char *session, sqlite3_int64 id, sqlite3_int64 at)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	struct head *e;

	if (!s->heads && !(s->heads = calloc(HEADS, sizeof *s->heads)))
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	for (const unsigned char *p = (const unsigned char *)session; *p; p++)
		h = (h ^ *p) * 16777619u;
	for (e = &s->heads[h & (HEADS - 1)]; e->session && strcmp(e->session, session);
	    e = e == &s->heads[HEADS - 1] ? s->heads : e + 1)
		;
	if (!e->session) {
		e->session = cc_xstrdup(session);
		s->nheads++;
	}
	e->last = id;
	e->at = at;
	/* a batch ends at BATCH_TURNS turns, but a full table is written now */
	if (s->nheads >= HEADS / 2)
		heads_write(s);
}

/*
 * Write the noted heads in the open batch of sessions.db, and forget
 * them (written or not: a failure fails the batch); 0 or -1.
 */
static int
heads_write(struct lite *s)
{
	int rc = SQLITE_DONE;

	for (size_t i = 0; s->nheads && i < HEADS; i++) {
		struct head *e = &s->heads[i];

		if (!e->session)
			continue;
		if (rc == SQLITE_DONE && s->turns.in_txn) {
			sqlite3_stmt *up = s->head_update;

			sqlite3_bind_text(up, 1, e->session, -1, SQLITE_STATIC);
			sqlite3_bind_int64(up, 2, e->last);
			sqlite3_bind_int64(up, 3, e->at);
			rc = sqlite3_step(up);
			sqlite3_reset(up);
			if (rc == SQLITE_DONE && sqlite3_changes(s->turns.db) == 0) {
				sqlite3_bind_text(s->head, 1, e->session, -1, SQLITE_STATIC);
				sqlite3_bind_int64(s->head, 2, e->last);
				sqlite3_bind_int64(s->head, 3, e->at);
				rc = sqlite3_step(s->head);
				sqlite3_reset(s->head);
			}
			cc_buf_add(&s->noted, e->session, strlen(e->session));
			cc_buf_add(&s->noted, "\n", 1);
		}
		free(e->session);
		e->session = NULL;
		s->nheads--;
	}
	if (rc != SQLITE_DONE) {
		s->failed = &s->turns;
		return -1;
	}
	return 0;
}

/*
 * The caller's prev is trusted only in the batch whose lock was taken
 * with a look at data_version (lite_turns_hold): then nobody else can
 * have written a turn since the caller's turns were checked.  Else the
 * insert looks the session's head up itself.
 */
static long long
lite_add(void *b, const char *session, const struct cc_turn *t, long long prev)
{
	struct lite *s = b;
	long long id = -1;
	sqlite3_int64 given;
	sqlite3_stmt *add;

	if (s->deferred)
		return defer_add(s, session, t);
	if (prev <= 0 || !s->turns.in_txn || !s->turns.checked)
		prev = 0;
	if (!(add = prev ? stmt(s, &s->turns, &s->add_prev, SQL_ADD_PREV) :
	    stmt(s, &s->turns, &s->add, SQL_ADD)) ||
	    !stmt(s, &s->turns, &s->head, SQL_HEAD) ||
	    !stmt(s, &s->turns, &s->head_update, SQL_HEAD_UPDATE) || batch_begin(s, &s->turns) < 0 ||
	    take_id(s, &given) < 0)
		return -1;
	/* SQL_ADD reads the session's head: the batch's own written first */
	if (!prev && s->nheads && heads_write(s) < 0)
		return -1;
	sqlite3_bind_text(add, 1, session, -1, SQLITE_STATIC);
	sqlite3_bind_int64(add, 2, (sqlite3_int64)t->at);
	bind_text(add, 3, t->query);
	bind_text(add, 4, t->language);
	bind_text(add, 5, t->agent);
	bind_text(add, 6, t->category);
	bind_text(add, 7, t->request_type);
	bind_text(add, 8, t->slots);
	if (prev)
		sqlite3_bind_int64(add, 9, prev);
	sqlite3_bind_int64(add, 10, given);
	if (sqlite3_step(add) == SQLITE_DONE)
		id = given;
	sqlite3_reset(add);
	sqlite3_clear_bindings(add);
	/* the session's newest turn is this one, from the batch's end */
	if (id >= 0)
		heads_put(s, session, id, (sqlite3_int64)t->at);
	if (id < 0)
		s->failed = &s->turns;
	if (batch_end(s, &s->turns) < 0)
		id = -1;
	return id;
}

static int
lite_answer(void *b, long long turn, const char *answer, time_t at)
{
	struct lite *s = b;
	int rc;

	if (s->deferred && s->answers.db)
		return defer_answer(s, turn, answer, at);
	if (!s->answers.db || !stmt(s, &s->answers, &s->answer, SQL_ANSWER) ||
	    batch_begin(s, &s->answers) < 0)
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

/* sessions.db's data_version (PRAGMA data_version) into *v. */
static int
data_version(struct lite *s, sqlite3_int64 *v)
{
	if (sqlite3_step(s->version) != SQLITE_ROW) {
		sqlite3_reset(s->version);
		s->failed = &s->turns;
		return -1;
	}
	*v = sqlite3_column_int64(s->version, 0);
	sqlite3_reset(s->version);
	return 0;
}

/*
 * Under the write lock of sessions.db for this batch, tell whether
 * another connection wrote the file since the last batch: its
 * data_version changes when another connection commits (a checkpoint may
 * change it too: that costs a reload, nothing more).
 */
static int
lite_turns_hold(void *b)
{
	struct lite *s = b;
	sqlite3_int64 v;
	int changed;

	if (s->deferred)
		return defer_look(s);
	if (!stmt(s, &s->turns, &s->version, SQL_VERSION))
		return -1;
	if (s->turns.in_txn && cc_store_elapsed_ns(&s->turns.since) >= s->turns.batch_ns &&
	    store_flush(s, &s->turns) < 0)
		return -1;
	if (batch_begin(s, &s->turns) < 0)
		return -1;
	if (s->turns.checked)
		return 0;
	if (data_version(s, &v) < 0)
		return -1;
	changed = !s->known || v != s->seen;
	s->seen = v;
	s->known = 1;
	s->turns.checked = 1;
	return changed;
}

/* ---- turn ids, notes, and writes kept until the batch ends ---- */

/*
 * A turn id: from the block taken, the next block when it is used up
 * (16 ids, then twice as many each time up to a batch's worth).  In a
 * batch the block is taken in its transaction; else in one of its own,
 * which holds the write lock for one statement.  0 or -1.
 */
static int
take_id(struct lite *s, sqlite3_int64 *id)
{
	struct store *st = &s->turns;
	int own = !st->in_txn, rc;

	if (s->next_id < s->end_id) {
		*id = s->next_id++;
		return 0;
	}
	if (!stmt(s, st, &s->take_ids, SQL_TAKE_IDS) ||
	    (own && ((!st->begin && prepare(st->db, "BEGIN IMMEDIATE", &st->begin) != SQLITE_OK) ||
	    (!st->commit && prepare(st->db, "COMMIT", &st->commit) != SQLITE_OK)))) {
		s->failed = st;
		return -1;
	}
	s->want_ids = s->want_ids < 16 ? 16 : s->want_ids < BATCH_TURNS ?
	    2 * s->want_ids : BATCH_TURNS;
	if (own) {
		rc = sqlite3_step(st->begin);
		sqlite3_reset(st->begin);
		if (rc != SQLITE_DONE) {
			s->failed = st;
			return -1;
		}
	}
	sqlite3_bind_int(s->take_ids, 1, s->want_ids);
	if ((rc = sqlite3_step(s->take_ids)) == SQLITE_ROW) {
		s->next_id = sqlite3_column_int64(s->take_ids, 0);
		s->end_id = s->next_id + s->want_ids;
		rc = SQLITE_DONE;
	}
	sqlite3_reset(s->take_ids);
	/* a note with no session: others know the write was not a turn */
	if (own && rc == SQLITE_DONE && note_write(s) < 0)
		rc = SQLITE_ERROR;
	if (own) {
		if (rc == SQLITE_DONE) {
			rc = sqlite3_step(st->commit);
			sqlite3_reset(st->commit);
		}
		if (rc != SQLITE_DONE && !sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	}
	if (rc != SQLITE_DONE) {
		s->next_id = s->end_id = 0;
		s->failed = st;
		return -1;
	}
	*id = s->next_id++;
	return 0;
}

/*
 * Note the sessions written since the last note (s->noted) in the open
 * transaction of sessions.db, and let notes older than NOTES_KEPT go.
 * An empty note is written only by a deferred writer (take_id): the
 * others look at notes only through it.  0 or -1.
 */
static int
note_write(struct lite *s)
{
	int rc;
	sqlite3_int64 id;

	if (!s->noted.len && !s->deferred)
		return 0;
	if (!stmt(s, &s->turns, &s->note, SQL_NOTE) ||
	    !stmt(s, &s->turns, &s->note_purge, SQL_NOTE_PURGE))
		return -1;
	sqlite3_bind_text(s->note, 1, s->writer, -1, SQLITE_STATIC);
	sqlite3_bind_text(s->note, 2, s->noted.len ? s->noted.data : "",
	    (int)s->noted.len, SQLITE_STATIC);
	rc = sqlite3_step(s->note);
	sqlite3_reset(s->note);
	s->noted.len = 0;
	if (rc != SQLITE_DONE) {
		s->failed = &s->turns;
		return -1;
	}
	id = sqlite3_last_insert_rowid(s->turns.db);
	if (id % 256 == 0) {	/* now and then is enough */
		sqlite3_bind_int64(s->note_purge, 1, id - NOTES_KEPT);
		rc = sqlite3_step(s->note_purge);
		sqlite3_reset(s->note_purge);
		if (rc != SQLITE_DONE) {
			s->failed = &s->turns;
			return -1;
		}
	}
	return 0;
}

static void
others_clear(struct lite *s)
{
	for (size_t i = 0; i < s->nothers; i++)
		free(s->others[i]);
	free(s->others);
	s->others = NULL;
	s->nothers = 0;
}

static const char *const *
lite_turns_changed(void *b, size_t *n)
{
	struct lite *s = b;

	*n = s->nothers;
	return (const char *const *)s->others;
}

/*
 * What a deferred writer's cache may trust (turns_hold): once a batch,
 * without any lock, data_version says whether another connection wrote
 * sessions.db; if one did, the notes since the last look say which
 * sessions (2) or, with none from another writer or some purged
 * meanwhile, that any may have changed (1).  A turn committed elsewhere
 * is seen at the next look, a batch late at most: the prev of the turns
 * written is read under the lock as they are written, so no chain is
 * broken by it.
 */
static int
defer_look(struct lite *s)
{
	sqlite3_int64 v, last;
	int rc, changed = 0, other = 0;

	others_clear(s);
	if (s->known && s->turns.checked &&
	    cc_store_elapsed_ns(&s->looked) < s->turns.batch_ns)
		return 0;
	if (!stmt(s, &s->turns, &s->version, SQL_VERSION) ||
	    !stmt(s, &s->turns, &s->notes, SQL_NOTES) ||
	    !stmt(s, &s->turns, &s->notes_last, SQL_NOTES_LAST))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &s->looked);
	s->turns.checked = 1;
	if (data_version(s, &v) < 0)
		return -1;
	if (s->known && v == s->seen)
		return 0;
	if (!s->known) {
		s->seen = v;
		s->known = 1;
		if ((rc = sqlite3_step(s->notes_last)) == SQLITE_ROW)
			s->note_seen = sqlite3_column_int64(s->notes_last, 0);
		sqlite3_reset(s->notes_last);
		if (rc != SQLITE_ROW) {
			s->failed = &s->turns;
			s->known = 0;
			return -1;
		}
		return 1;
	}
	s->seen = v;
	last = s->note_seen;
	sqlite3_bind_int64(s->notes, 1, last);
	while ((rc = sqlite3_step(s->notes)) == SQLITE_ROW) {
		sqlite3_int64 id = sqlite3_column_int64(s->notes, 0);
		const char *w = (const char *)sqlite3_column_text(s->notes, 1);
		const char *p = (const char *)sqlite3_column_text(s->notes, 2);

		if (id != last + 1)
			changed = 1;	/* purged before this look */
		last = id;
		if (!w || strcmp(w, s->writer) == 0)
			continue;
		other = 1;
		while (p && *p) {
			size_t k = strcspn(p, "\n");

			if (k) {
				s->others = cc_xrealloc(s->others,
				    (s->nothers + 1) * sizeof *s->others);
				s->others[s->nothers] = cc_xmalloc(k + 1);
				memcpy(s->others[s->nothers], p, k);
				s->others[s->nothers++][k] = '\0';
			}
			p += k + (p[k] == '\n');
		}
	}
	sqlite3_reset(s->notes);
	if (rc != SQLITE_DONE) {
		s->failed = &s->turns;
		s->known = 0;	/* look again, from scratch */
		return -1;
	}
	s->note_seen = last;
	return changed || !other ? 1 : 2;
}

/* A new pending write, zeroed. */
static struct pending *
pending_push(struct lite *s)
{
	struct pending *p;

	if (s->npend == s->maxpend) {
		s->maxpend = s->maxpend ? 2 * s->maxpend : 64;
		s->pend = cc_xrealloc(s->pend, s->maxpend * sizeof *s->pend);
	}
	p = &s->pend[s->npend++];
	memset(p, 0, sizeof *p);
	return p;
}

static void
pending_clear(struct lite *s)
{
	for (size_t i = 0; i < s->npend; i++) {
		free(s->pend[i].session);
		free(s->pend[i].t.query);	/* a turn's strings, one block */
		free(s->pend[i].t.answer);
	}
	s->npend = s->nturns = 0;
}

/*
 * The batch ends at BATCH_TURNS writes, or when the caller flushes: it
 * holds no lock meanwhile, so nobody waits for it, and the caller
 * (cc_chain.h's batches) flushes before the records leave and whenever
 * its input is quiet.  Ended at BATCH_NS, it was a commit every twenty
 * records under load, half the cost of memory in the chain.
 */
static int
defer_end(struct lite *s)
{
	return s->npend >= BATCH_TURNS ? defer_flush(s) : 0;
}

static long long
defer_add(struct lite *s, const char *session, const struct cc_turn *t)
{
	const char *from[6] = { t->query ? t->query : "", t->language, t->agent,
	    t->category, t->request_type, t->slots };
	char **to[6];
	size_t len[6], total = 0;
	struct pending *p;
	sqlite3_int64 id;
	char *q;

	if (take_id(s, &id) < 0)
		return -1;
	p = pending_push(s);
	to[0] = &p->t.query, to[1] = &p->t.language, to[2] = &p->t.agent;
	to[3] = &p->t.category, to[4] = &p->t.request_type, to[5] = &p->t.slots;
	for (int i = 0; i < 6; i++)
		total += from[i] ? (len[i] = strlen(from[i])) + 1 : 0;
	q = cc_xmalloc(total);
	for (int i = 0; i < 6; i++)
		if (from[i]) {
			memcpy(q, from[i], len[i] + 1);
			*to[i] = q;
			q += len[i] + 1;
		}
	p->session = cc_xstrdup(session);
	p->id = id;
	p->t.id = id;
	p->t.at = t->at;
	s->nturns++;
	return defer_end(s) < 0 ? -1 : id;
}

static int
defer_answer(struct lite *s, long long turn, const char *answer, time_t at)
{
	struct pending *p = pending_push(s);

	p->id = turn;
	p->t.at = at;
	p->t.answer = cc_store_dup(answer);
	return defer_end(s);
}

/*
 * The session's pending turns, newest first, into turns (copies): all of
 * them, or those before *from when it is one of them (*from is then 0:
 * the store's part of the walk begins at the session's head).  When
 * *from is a turn in the store, pending turns are newer: none.
 */
static int
pending_turns(struct lite *s, const char *session, sqlite3_int64 *from,
    time_t since, struct cc_turn *turns, int max)
{
	size_t k = s->npend;
	int n = 0;

	if (!s->nturns)
		return 0;
	if (*from) {
		for (k = 0; k < s->npend; k++)
			if (s->pend[k].session && s->pend[k].id == *from)
				break;
		if (k == s->npend || strcmp(s->pend[k].session, session) != 0)
			return 0;
		*from = 0;
	}
	while (k-- > 0 && n < max) {
		const struct pending *p = &s->pend[k];

		if (!p->session || strcmp(p->session, session) != 0 || p->t.at < since)
			continue;
		turns[n] = p->t;
		turns[n].query = cc_store_dup(p->t.query);
		turns[n].language = cc_store_dup(p->t.language);
		turns[n].agent = cc_store_dup(p->t.agent);
		turns[n].category = cc_store_dup(p->t.category);
		turns[n].request_type = cc_store_dup(p->t.request_type);
		turns[n].slots = cc_store_dup(p->t.slots);
		turns[n].answer = NULL;
		n++;
	}
	return n;
}

/* The pending answer to turn (a copy), or NULL. */
static char *
pending_answer(struct lite *s, sqlite3_int64 turn)
{
	for (size_t k = s->npend; k-- > 0;)
		if (!s->pend[k].session && s->pend[k].id == turn)
			return cc_store_dup(s->pend[k].t.answer);
	return NULL;
}

/* The head noted in this batch for session, or -1. */
static sqlite3_int64
heads_get(struct lite *s, const char *session)
{
	uint32_t h = 2166136261u;
	struct head *e;

	if (!s->nheads)
		return -1;
	for (const unsigned char *p = (const unsigned char *)session; *p; p++)
		h = (h ^ *p) * 16777619u;
	for (e = &s->heads[h & (HEADS - 1)]; e->session;
	    e = e == &s->heads[HEADS - 1] ? s->heads : e + 1)
		if (strcmp(e->session, session) == 0)
			return e->last;
	return -1;
}

/*
 * Write the pending turns, then the pending answers, each file in one
 * transaction of its own: the write lock of one is never held while
 * waiting for the other's, so two writers cannot wait for each other.
 * Each turn's prev is the session's head as the store has it under the
 * lock (or the batch's own turn before it).  The writes are gone either
 * way, written or failed; 0 or -1.
 */
static int
defer_flush(struct lite *s)
{
	int rc = SQLITE_DONE, answers = 0;

	if (!s->npend)
		return 0;
	if (s->nturns && (!stmt(s, &s->turns, &s->add_prev, SQL_ADD_PREV) ||
	    !stmt(s, &s->turns, &s->head, SQL_HEAD) ||
	    !stmt(s, &s->turns, &s->head_update, SQL_HEAD_UPDATE) ||
	    !stmt(s, &s->turns, &s->last, SQL_LAST) ||
	    batch_begin(s, &s->turns) < 0))
		rc = SQLITE_ERROR;
	for (size_t i = 0; s->nturns && rc == SQLITE_DONE && i < s->npend; i++) {
		struct pending *p = &s->pend[i];
		sqlite3_int64 prev;

		if (!p->session) {
			answers = 1;
			continue;
		}
		if ((prev = heads_get(s, p->session)) < 0) {
			sqlite3_bind_text(s->last, 1, p->session, -1, SQLITE_STATIC);
			rc = sqlite3_step(s->last);
			prev = rc == SQLITE_ROW ? sqlite3_column_int64(s->last, 0) : 0;
			rc = rc == SQLITE_ROW ? SQLITE_DONE : rc;
			sqlite3_reset(s->last);
			if (rc != SQLITE_DONE)
				break;
		}
		sqlite3_bind_text(s->add_prev, 1, p->session, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s->add_prev, 2, (sqlite3_int64)p->t.at);
		bind_text(s->add_prev, 3, p->t.query);
		bind_text(s->add_prev, 4, p->t.language);
		bind_text(s->add_prev, 5, p->t.agent);
		bind_text(s->add_prev, 6, p->t.category);
		bind_text(s->add_prev, 7, p->t.request_type);
		bind_text(s->add_prev, 8, p->t.slots);
		if (prev > 0)
			sqlite3_bind_int64(s->add_prev, 9, prev);
		else
			sqlite3_bind_null(s->add_prev, 9);
		sqlite3_bind_int64(s->add_prev, 10, p->id);
		rc = sqlite3_step(s->add_prev);
		sqlite3_reset(s->add_prev);
		sqlite3_clear_bindings(s->add_prev);
		if (rc == SQLITE_DONE)
			heads_put(s, p->session, p->id, (sqlite3_int64)p->t.at);
	}
	if (s->nturns) {
		if (rc != SQLITE_DONE) {
			s->failed = &s->turns;
			heads_write(s);		/* not in a batch any more: forgotten */
			if (!sqlite3_get_autocommit(s->turns.db))
				sqlite3_exec(s->turns.db, "ROLLBACK", NULL, NULL, NULL);
			s->turns.in_txn = s->turns.pending = s->turns.checked = 0;
			s->noted.len = 0;
		} else if (store_flush(s, &s->turns) < 0) {
			rc = SQLITE_ERROR;
		}
	} else {
		answers = 1;
	}
	if (rc == SQLITE_DONE && answers) {
		if (!stmt(s, &s->answers, &s->answer, SQL_ANSWER) ||
		    batch_begin(s, &s->answers) < 0)
			rc = SQLITE_ERROR;
		for (size_t i = 0; rc == SQLITE_DONE && i < s->npend; i++) {
			struct pending *p = &s->pend[i];

			if (p->session)
				continue;
			sqlite3_bind_int64(s->answer, 1, p->id);
			sqlite3_bind_int64(s->answer, 2, (sqlite3_int64)p->t.at);
			bind_text(s->answer, 3, p->t.answer);
			rc = sqlite3_step(s->answer);
			sqlite3_reset(s->answer);
			sqlite3_clear_bindings(s->answer);
		}
		if (rc != SQLITE_DONE) {
			s->failed = &s->answers;
			if (s->answers.in_txn && !sqlite3_get_autocommit(s->answers.db))
				sqlite3_exec(s->answers.db, "ROLLBACK", NULL, NULL, NULL);
			s->answers.in_txn = s->answers.pending = 0;
		} else if (store_flush(s, &s->answers) < 0) {
			rc = SQLITE_ERROR;
		}
	}
	pending_clear(s);
	s->turns.checked = 0;	/* look at the others' notes again */
	return rc == SQLITE_DONE ? 0 : -1;
}

static struct state *
state_of(struct lite *s, const char *name)
{
	char file[64], err[512];
	struct state *x;

	for (int i = 0; i < s->nstates; i++)
		if (strcmp(s->states[i].name, name) == 0)
			return &s->states[i];
	/* the name becomes a file name: letters, digits, - and _ only */
	if (!cc_store_name_ok(name) || s->nstates == MAX_STATES)
		return NULL;
	x = &s->states[s->nstates];
	memset(x, 0, sizeof *x);
	snprintf(x->name, sizeof x->name, "%s", name);
	snprintf(file, sizeof file, "state-%s.db", name);
	if (store_open(&x->st, s->cfg, s->dir, file, state_schema, SETUP_VERSION,
	    setup_steps,
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
	x->st.batch_writes = STATE_BATCH_WRITES;
	x->st.batch_ns = STATE_BATCH_NS;
	s->nstates++;
	return x;
}

static int
lite_state_get(void *b, const char *session, const char *name, char **json,
    time_t *at)
{
	struct lite *s = b;
	struct state *x = state_of(s, name);
	int rc;

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

static int
lite_state_put(void *b, const char *session, const char *name, const char *json,
    time_t at)
{
	struct lite *s = b;
	struct state *x = state_of(s, name);
	int rc;

	if (!x || batch_begin(s, &x->st) < 0)
		return -1;
	/*
	 * A row written less than a minute before keeps its time: `at` is
	 * indexed (for the purge), and moving the row's entry in the index
	 * at every turn was a third of a put.  The purge then sees a state
	 * at most a minute older than its last write.
	 */
	if (x->rewrite || prepare(x->st.db, "UPDATE state SET value = ?3"
	    " WHERE session = ?1 AND at >= ?2", &x->rewrite) == SQLITE_OK) {
		sqlite3_bind_text(x->rewrite, 1, session, -1, SQLITE_STATIC);
		sqlite3_bind_int64(x->rewrite, 2, (sqlite3_int64)at - STATE_AT_SLACK);
		sqlite3_bind_text(x->rewrite, 3, json, -1, SQLITE_STATIC);
		rc = sqlite3_step(x->rewrite);
		sqlite3_reset(x->rewrite);
		sqlite3_clear_bindings(x->rewrite);
		if (rc == SQLITE_DONE && sqlite3_changes(x->st.db) == 1)
			goto done;
	}
	sqlite3_bind_text(x->put, 1, session, -1, SQLITE_STATIC);
	sqlite3_bind_int64(x->put, 2, (sqlite3_int64)at);
	sqlite3_bind_text(x->put, 3, json, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(x->put)) != SQLITE_DONE)
		s->failed = &x->st;
	sqlite3_reset(x->put);
	sqlite3_clear_bindings(x->put);
done:
	if (batch_end(s, &x->st) < 0)
		rc = SQLITE_ERROR;
	return rc == SQLITE_DONE ? 0 : -1;
}

static int
lite_state_hold(void *b, const char *name)
{
	struct lite *s = b;
	struct state *x = state_of(s, name);
	sqlite3_int64 v;
	int changed;

	if (!x)
		return -1;
	/* a batch that turns keep open without writing is still a short one */
	if (x->st.in_txn && cc_store_elapsed_ns(&x->st.since) >= x->st.batch_ns &&
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

static int
lite_state_begin(void *b, const char *name)
{
	struct lite *s = b;
	struct state *x = state_of(s, name);

	return x ? batch_begin(s, &x->st) : -1;
}

static int
lite_transient(void *b)
{
	(void)b;
	return 0;	/* a file fails for good, or for a lock timeout */
}

/* ---- for operators: cc-store migrate|check|prune ---- */

/* One file of the store: checked, or pruned of rows older than before. */
static int
lite_admin_file(const char *dir, const char *file, enum cc_store_admin what,
    time_t before, char *out, size_t outlen)
{
	static const char *const tables[][2] = {
		{ "sessions.db", "turns" }, { "answers.db", "answers" },
		{ "state-", "state" },
	};
	char *path = cc_xmalloc(strlen(dir) + strlen(file) + 2), sql[128];
	const char *table = NULL;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int status = CC_EXIT_OK, rc;

	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
		if (strncmp(file, tables[i][0], strlen(tables[i][0])) == 0)
			table = tables[i][1];
	sprintf(path, "%s/%s", dir, file);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_busy_timeout(db, 10000);
	if (what == CC_STORE_CHECK) {
		const unsigned char *v;

		if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK ||
		    sqlite3_step(st) != SQLITE_ROW)
			goto fail;
		v = sqlite3_column_text(st, 0);
		if (!v || strcmp((const char *)v, "ok") != 0) {
			cc_store_say(out, outlen, "%s: %s\n", path, v ? (const char *)v : "not ok");
			status = CC_EXIT_NEGATIVE;
			goto done;
		}
		sqlite3_finalize(st);
		snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
	} else {
		snprintf(sql, sizeof sql, "DELETE FROM %s WHERE at < ?1", table);
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)before);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		cc_store_say(out, outlen, "%s: ok, %lld rows\n", path,
		    (long long)sqlite3_column_int64(st, 0));
	else if (rc == SQLITE_DONE)
		cc_store_say(out, outlen, "%s: %d rows older than the retention removed\n",
		    path, sqlite3_changes(db));
	else
		goto fail;
	if (what == CC_STORE_PRUNE && strcmp(table, "turns") == 0) {
		/* the sessions whose newest turn went (none in a version 0 store) */
		sqlite3_finalize(st);
		st = NULL;
		if (sqlite3_prepare_v2(db, "DELETE FROM sessions WHERE at < ?1", -1, &st,
		    NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, (sqlite3_int64)before);
			if (sqlite3_step(st) != SQLITE_DONE)
				goto fail;
		}
	}
	if (what == CC_STORE_PRUNE && strcmp(table, "state") == 0) {
		/* its history's old entries (a version 0 file has none) */
		sqlite3_finalize(st);
		st = NULL;
		if (sqlite3_prepare_v2(db, "DELETE FROM history WHERE at < ?1", -1, &st,
		    NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, (sqlite3_int64)before);
			if (sqlite3_step(st) != SQLITE_DONE)
				goto fail;
		}
	}
	goto done;
fail:
	cc_store_say(out, outlen, "%s: %s\n", path, db ? sqlite3_errmsg(db) : "cannot open");
	status = what == CC_STORE_CHECK ? CC_EXIT_NEGATIVE : CC_EXIT_INTERNAL;
done:
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(path);
	return status;
}

static int
lite_admin(const struct cc_config *cfg, const char *dir, enum cc_store_admin what,
    long keep, char *out, size_t outlen)
{
	int status = CC_EXIT_OK;
	DIR *d;
	struct dirent *e;

	*out = '\0';
	if (what == CC_STORE_MIGRATE) {
		char err[512];
		struct lite *s = lite_open(cfg, dir, CC_SESSION_ANSWERS, err, sizeof err);

		if (!s) {
			cc_store_say(out, outlen, "%s\n", err);
			return CC_EXIT_INTERNAL;
		}
		lite_close(s);
		cc_store_say(out, outlen, "'%s': sessions.db and answers.db are up to date "
		    "(state files are made on first use)\n", dir);
		return CC_EXIT_OK;
	}
	if (!(d = opendir(dir))) {
		cc_store_say(out, outlen, "cannot open '%s': %s\n", dir, strerror(errno));
		return what == CC_STORE_CHECK ? CC_EXIT_NEGATIVE : CC_EXIT_INTERNAL;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		int st;

		if (n < 4 || strcmp(e->d_name + n - 3, ".db") != 0 ||
		    (strcmp(e->d_name, "sessions.db") != 0 && strcmp(e->d_name, "answers.db") != 0 &&
		    strncmp(e->d_name, "state-", 6) != 0))
			continue;
		st = lite_admin_file(dir, e->d_name, what, cfg->now - keep, out, outlen);
		if (st > status)
			status = st;
	}
	closedir(d);
	return status;
}

/* ---- a state's history ---- */

/*
 * A state file, version 1 (PRAGMA user_version): its history, a list of
 * entries per session, appended in the state's batches.  Version 0 had
 * the state alone; the tables are added on the first use of a history,
 * by whoever comes first, under the write lock (store_upgrade, or the
 * batch already held).  As turns are in sessions.db, a session's entries
 * are a chain (each names the session's previous one) and `heads` names
 * its newest: an entry goes at the end of the file, and a batch changes
 * a few pages of a table as small as the number of sessions, where an
 * index by session took a random page of a large one for every entry.
 * Reading a session's newest entries walks the chain back (a stage does
 * it once per session).  An entry older than the retention goes, and
 * the chain behind it with it; clearing a history forgets its head.
 */
#define STATE_VERSION 1
static const char state_upgrade[] =
	"CREATE TABLE IF NOT EXISTS history ("
	"  id INTEGER PRIMARY KEY,"
	"  prev INTEGER,"			/* the session's previous entry */
	"  session TEXT NOT NULL,"
	"  at INTEGER NOT NULL,"		/* Unix time it was added */
	"  value TEXT NOT NULL);"		/* JSON, the stage's own */
	"CREATE INDEX IF NOT EXISTS history_by_time ON history (at);"
	"CREATE TABLE IF NOT EXISTS heads ("
	"  session TEXT PRIMARY KEY,"
	"  last INTEGER NOT NULL"		/* its newest entry */
	") WITHOUT ROWID;"
	"PRAGMA user_version = 1;";
static const char *const state_steps[] = { state_upgrade };

/* The state name's file, its history tables there and its statements. */
static struct state *
history_ready(struct lite *s, const char *name)
{
	struct state *x = state_of(s, name);
	sqlite3_stmt *purge = NULL;
	char *msg = NULL;
	int rc;

	if (!x || x->hadd)
		return x;
	/* in a batch this connection holds the write lock already */
	rc = x->st.in_txn ? sqlite3_exec(x->st.db, state_upgrade, NULL, NULL, &msg) :
	    store_upgrade(x->st.db, STATE_VERSION, state_steps, &msg);
	sqlite3_free(msg);
	if (rc != SQLITE_OK ||
	    prepare(x->st.db, "INSERT INTO history (prev, session, at, value)"
	    " VALUES ((SELECT last FROM heads WHERE session = ?1), ?1, ?2, ?3)",
	    &x->hadd) != SQLITE_OK ||
	    prepare(x->st.db, "INSERT INTO heads (session, last) VALUES (?1, ?2)"
	    " ON CONFLICT (session) DO UPDATE SET last = excluded.last",
	    &x->hhead) != SQLITE_OK ||
	    prepare(x->st.db, "SELECT last FROM heads WHERE session = ?1",
	    &x->hlast) != SQLITE_OK ||
	    prepare(x->st.db, "SELECT prev, value FROM history WHERE id = ?1",
	    &x->hget) != SQLITE_OK ||
	    prepare(x->st.db, "DELETE FROM heads WHERE session = ?1",
	    &x->hclear) != SQLITE_OK) {
		s->failed = &x->st;
		sqlite3_finalize(x->hadd);
		sqlite3_finalize(x->hhead);
		sqlite3_finalize(x->hlast);
		sqlite3_finalize(x->hget);
		x->hadd = x->hhead = x->hlast = x->hget = NULL;
		return NULL;
	}
	/* entries older than the retention, as the state's at open: not waiting */
	if (prepare(x->st.db, "DELETE FROM history WHERE at < ?1", &purge) == SQLITE_OK) {
		sqlite3_bind_int64(purge, 1, (sqlite3_int64)s->cfg->now - RETENTION_S);
		if (!x->st.in_txn)
			sqlite3_busy_timeout(x->st.db, 0);
		if (sqlite3_step(purge) == SQLITE_DONE && sqlite3_changes(x->st.db) > 0)
			sqlite3_exec(x->st.db, "DELETE FROM heads WHERE last NOT IN"
			    " (SELECT id FROM history)", NULL, NULL, NULL);
		sqlite3_busy_timeout(x->st.db, (int)s->cfg->lock_timeout_ms);
	}
	sqlite3_finalize(purge);
	return x;
}

/*
 * In the state's batch, but not ending it: the state's write that
 * follows (or the hold after the batch's time, or a flush) commits both,
 * so a turn's entries and its state are not split across two batches.
 */
static int
lite_history_add(void *b, const char *session, const char *name,
    const char *json, time_t at)
{
	struct lite *s = b;
	struct state *x = history_ready(s, name);
	int rc;

	if (!x || batch_begin(s, &x->st) < 0)
		return -1;
	sqlite3_bind_text(x->hadd, 1, session, -1, SQLITE_STATIC);
	sqlite3_bind_int64(x->hadd, 2, (sqlite3_int64)at);
	sqlite3_bind_text(x->hadd, 3, json, -1, SQLITE_STATIC);
	rc = sqlite3_step(x->hadd);
	sqlite3_reset(x->hadd);
	sqlite3_clear_bindings(x->hadd);
	if (rc == SQLITE_DONE) {
		sqlite3_bind_text(x->hhead, 1, session, -1, SQLITE_STATIC);
		sqlite3_bind_int64(x->hhead, 2, sqlite3_last_insert_rowid(x->st.db));
		rc = sqlite3_step(x->hhead);
		sqlite3_reset(x->hhead);
		sqlite3_clear_bindings(x->hhead);
	}
	if (rc != SQLITE_DONE)
		s->failed = &x->st;
	return rc == SQLITE_DONE ? 0 : -1;
}

static int
lite_history_get(void *b, const char *session, const char *name, int max,
    char ***items)
{
	struct lite *s = b;
	struct state *x = history_ready(s, name);
	sqlite3_int64 id = 0;
	int n = 0, rc;

	*items = NULL;
	if (!x)
		return -1;
	sqlite3_bind_text(x->hlast, 1, session, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(x->hlast)) == SQLITE_ROW)
		id = sqlite3_column_int64(x->hlast, 0);
	sqlite3_reset(x->hlast);
	rc = rc == SQLITE_ROW ? SQLITE_DONE : rc;
	/* newest first, from the head back along the chain */
	while (rc == SQLITE_DONE && id && n < max) {
		sqlite3_bind_int64(x->hget, 1, id);
		if ((rc = sqlite3_step(x->hget)) == SQLITE_ROW) {
			if (n % 64 == 0)
				*items = cc_xrealloc(*items, (size_t)(n + 64) * sizeof **items);
			(*items)[n++] = column(x->hget, 1);
			id = sqlite3_column_int64(x->hget, 0);
			rc = SQLITE_DONE;
		} else if (rc == SQLITE_DONE) {
			id = 0;		/* gone with the retention, and the rest behind it */
		}
		sqlite3_reset(x->hget);
	}
	if (rc != SQLITE_DONE) {
		s->failed = &x->st;
		while (n > 0)
			free((*items)[--n]);
		free(*items);
		*items = NULL;
		return -1;
	}
	for (int i = 0; i < n / 2; i++) {
		char *t = (*items)[i];

		(*items)[i] = (*items)[n - 1 - i];
		(*items)[n - 1 - i] = t;
	}
	return n;
}

static int
lite_history_clear(void *b, const char *session, const char *name)
{
	struct lite *s = b;
	struct state *x = history_ready(s, name);
	int rc;

	if (!x || batch_begin(s, &x->st) < 0)
		return -1;
	sqlite3_bind_text(x->hclear, 1, session, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(x->hclear)) != SQLITE_DONE)
		s->failed = &x->st;
	sqlite3_reset(x->hclear);
	return rc == SQLITE_DONE ? 0 : -1;
}

const struct cc_store_ops cc_store_sqlite = {
	.name = "sqlite",
	.open = lite_open,
	.close = lite_close,
	.error = lite_error,
	.transient = lite_transient,
	.recent = lite_recent,
	.before = lite_before,
	.add = lite_add,
	.answer = lite_answer,
	.flush = lite_flush,
	.turns_hold = lite_turns_hold,
	.turns_changed = lite_turns_changed,
	.state_get = lite_state_get,
	.state_put = lite_state_put,
	.state_hold = lite_state_hold,
	.state_begin = lite_state_begin,
	.admin = lite_admin,
	.history_add = lite_history_add,
	.history_get = lite_history_get,
	.history_clear = lite_history_clear,
};
