/*
 * Session memory in PostgreSQL: the backend of cc_session.c for a venue
 * whose pipelines run on several machines and share one database
 * (CC_STORE=postgresql://..., or a conninfo such as "service=kiosk").
 *
 * The same guarantees as the SQLite files (cc_session_sqlite.c), in the
 * same shape: writes in batches of up to 1024 or 20 ms, one connection
 * for turns and answers and one per state name (as SQLite has a file
 * each), so a state's lock never waits for a batch of turns.
 *
 * What SQLite's PRAGMA data_version does for the writer's cache is done
 * two ways.  A stage's state has a counter row (concierge.changes,
 * "state:NAME"): a batch that writes it first adds one to it and reads
 * the sum back, so the row's lock keeps other writers of that state out
 * until it commits, as SQLite's write lock does (a read, a change and its
 * write lose nobody's write), and a sum that is not the last one seen
 * plus one says another connection wrote in between.  Turns take no lock,
 * so pipelines write them at once: each write of turns notes its sessions
 * (concierge.turn_changes) in its transaction, and a batch begins by
 * reading the notes of the transactions that ended since its last look
 * (peek, below), forgetting only those sessions.  A turn committed
 * elsewhere is seen one batch (20 ms) late at most, never missed.
 *
 * A connection lost in the middle (the server restarted, a failover)
 * is made again for up to the lock timeout and the batch written again
 * from its log: turn ids are the ones the sequence gave first (moved past
 * them, as a crash can set it back), answers and states are upserts.
 * When a state's commit itself was cut off, the counter row's writer
 * token tells whether it went through (turns and answers are simply
 * written again).  A state whose row another connection bumped meanwhile
 * is not written again (its writer computed it from what it read): that,
 * and a server not back in time, are failures the caller sees, marked
 * temporary (exit status 4).
 *
 * SQL only ever takes values as parameters ($1); the schema's names are
 * fixed, qualified (no search_path is trusted) and versioned
 * (concierge.schema_version, migrations below, cc-store(1)).  libpq is
 * loaded with dlopen() on first use, like libcurl (cc_http.c): most
 * processes never open a PostgreSQL store and should not pay for loading
 * it and its libraries at start.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libpq-fe.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_session.h"
#include "cc_store.h"

/* ---- libpq, loaded on first use ---- */

#define PQ_FUNCTIONS(X) \
	X(connectdbParams) X(status) X(errorMessage) X(finish) X(reset) \
	X(prepare) X(execPrepared) X(exec) X(resultStatus) X(resultErrorField) \
	X(resultErrorMessage) X(clear) X(getvalue) X(getisnull) X(ntuples) \
	X(cmdTuples) X(setNoticeProcessor)

static struct {
	void *dl;
#define X(f) __typeof__(PQ##f) *f;
	PQ_FUNCTIONS(X)
#undef X
} pq;

static int
pq_load(char *err, size_t errlen)
{
	static const char *const names[] = { "libpq.so.5", "libpq.so", NULL };
#define X(f) #f,
	static const char *const syms[] = { PQ_FUNCTIONS(X) NULL };
#undef X
#define X(f) (void **)&pq.f,
	static void **const slots[] = { PQ_FUNCTIONS(X) };
#undef X

	if (!pq.dl)
		pq.dl = cc_dl_load("libpq", names, "PQ", syms, slots, err, errlen);
	return pq.dl ? 0 : -1;
}

/* ---- the schema and its migrations ---- */

/*
 * Migration i brings the schema from version i to i + 1, in the
 * transaction that records the new version.  Add, never edit: a
 * database of every earlier version must come up to date.
 */
static const char *const migrations[] = {
	/* 1: turns, answers, stages' state, the change counters */
	"CREATE TABLE concierge.turns ("
	"  id bigserial PRIMARY KEY,"
	"  session text NOT NULL,"
	"  at bigint NOT NULL,"			/* Unix time of the question */
	"  query text NOT NULL,"
	"  language text, agent text, category text, request_type text,"
	"  slots text);"			/* the router's slots, JSON */
	"CREATE INDEX turns_by_session ON concierge.turns (session, id);"
	"CREATE INDEX turns_by_time ON concierge.turns (at);"
	"CREATE TABLE concierge.answers ("
	"  turn bigint PRIMARY KEY,"		/* turns.id */
	"  at bigint NOT NULL,"
	"  answer text);"
	"CREATE INDEX answers_by_time ON concierge.answers (at);"
	"CREATE TABLE concierge.state ("
	"  name text NOT NULL,"			/* the stage's state name */
	"  session text NOT NULL,"
	"  at bigint NOT NULL,"
	"  value text NOT NULL,"		/* JSON, the stage's own */
	"  PRIMARY KEY (name, session));"
	"CREATE INDEX state_by_time ON concierge.state (at);"
	"CREATE TABLE concierge.changes ("
	"  name text PRIMARY KEY,"		/* turns, state:NAME */
	"  n bigint NOT NULL,"			/* batches that wrote it */
	"  writer text);"			/* the last one's token */
	"CREATE TABLE concierge.turn_changes ("	/* each write of turns: */
	"  xid xid8 NOT NULL,"			/* its transaction */
	"  writer text NOT NULL,"		/* its connection */
	"  at bigint NOT NULL DEFAULT extract(epoch FROM now())::bigint,"
	"  sessions text[] NOT NULL);"		/* the sessions it wrote */
	"CREATE INDEX turn_changes_by_xid ON concierge.turn_changes (xid);",
	/* 2: logs (the gate's decisions and outcomes), kept, not expired */
	"CREATE TABLE concierge.logs ("
	"  id bigserial PRIMARY KEY,"
	"  name text NOT NULL,"			/* decisions, outcomes */
	"  session text,"
	"  at bigint NOT NULL,"
	"  line text NOT NULL);"		/* JSON */
	"CREATE INDEX logs_by_name ON concierge.logs (name, id);"
	"CREATE INDEX logs_by_time ON concierge.logs (at);",
	/*
	 * 3: stages' histories (cc_session_history_add): what grows with a
	 * session is appended, not rewritten with its state every turn
	 */
	"CREATE TABLE concierge.history ("
	"  name text NOT NULL,"			/* the stage's state name */
	"  session text NOT NULL,"
	"  id bigserial,"			/* the order of the entries */
	"  at bigint NOT NULL,"			/* Unix time it was added */
	"  value text NOT NULL,"		/* JSON, the stage's own */
	"  PRIMARY KEY (name, session, id));"
	"CREATE INDEX history_by_time ON concierge.history (at);",
};
#define SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))
/* advisory lock keys: "cc" + a number, arbitrary and fixed */
#define LOCK_MIGRATE "6363000001"
#define LOCK_PURGE "6363000002"
#define LOCK_IDS "6363000003"
/*
 * A batch of turns and answers lasts up to 100 ms here, not SQLite's 20:
 * each costs the server some ten statements, which a batch of a few turns
 * did not repay (8 pipelines spent more server time on batches than on
 * turns).  Interactive streams are not kept waiting either way: a batch
 * also ends whenever its stage hands records on.  States keep 20 ms.
 */
#define BATCH_NS (5 * CC_STORE_BATCH_NS)
/* turn_changes: kept this long, trusted by a look this much younger */
#define NOTES_KEPT_S "600"
#define NOTES_TRUSTED_S 300

/* ---- statements ---- */

enum { S_RECENT, S_RECENT_ANSWERS, S_ADD, S_ANSWER, S_GET, S_PUT, S_COUNTER,
	S_BUMP, S_PEEK, S_PURGE, S_PRUNE_TURNS, S_PRUNE_ANSWERS, S_PRUNE_STATE,
	S_LOG, S_IDS, S_ADD_MANY, S_ANSWER_MANY, S_SNAPSHOT, S_NOTES,
	S_IDS_LOCK, S_IDS_PAST, S_HADD, S_HGET, S_HCLEAR, S_PRUNE_HISTORY,
	S_BEFORE, S_BEFORE_ANSWERS, NSTMT };
static const struct {
	const char *name, *sql;
	int n;
} stmts[NSTMT] = {
	{ "cc_recent", "SELECT id, at, query, language, agent, category,"
	  " request_type, slots, NULL FROM concierge.turns"
	  " WHERE session = $1 AND at >= $2 ORDER BY id DESC LIMIT $3", 3 },
	{ "cc_recent_answers", "SELECT t.id, t.at, t.query, t.language, t.agent,"
	  " t.category, t.request_type, t.slots, a.answer FROM concierge.turns t"
	  " LEFT JOIN concierge.answers a ON a.turn = t.id"
	  " WHERE t.session = $1 AND t.at >= $2 ORDER BY t.id DESC LIMIT $3", 3 },
	/* $1: the id of a turn written again after a lost connection */
	{ "cc_add", "INSERT INTO concierge.turns (id, session, at, query, language,"
	  " agent, category, request_type, slots) VALUES (COALESCE($1::bigint,"
	  " nextval('concierge.turns_id_seq')), $2, $3, $4, $5, $6, $7, $8, $9)"
	  " ON CONFLICT (id) DO NOTHING RETURNING id", 9 },
	{ "cc_answer", "INSERT INTO concierge.answers (turn, at, answer)"
	  " VALUES ($1, $2, $3) ON CONFLICT (turn) DO UPDATE"
	  " SET at = excluded.at, answer = excluded.answer", 3 },
	{ "cc_get", "SELECT value, at FROM concierge.state"
	  " WHERE name = $1 AND session = $2", 2 },
	{ "cc_put", "INSERT INTO concierge.state (name, session, at, value)"
	  " VALUES ($1, $2, $3, $4) ON CONFLICT (name, session) DO UPDATE"
	  " SET at = excluded.at, value = excluded.value", 4 },
	{ "cc_counter", "INSERT INTO concierge.changes (name, n) VALUES ($1, 0)"
	  " ON CONFLICT (name) DO NOTHING", 1 },
	{ "cc_bump", "UPDATE concierge.changes SET n = n + 1, writer = $2"
	  " WHERE name = $1 RETURNING n", 2 },
	{ "cc_peek", "SELECT n, writer FROM concierge.changes WHERE name = $1", 1 },
	/* one purger at a time; the others go on at once */
	{ "cc_purge", "WITH go AS (SELECT pg_try_advisory_xact_lock(" LOCK_PURGE ") AS ok),"
	  " t AS (DELETE FROM concierge.turns WHERE at < $1 AND (SELECT ok FROM go)),"
	  " a AS (DELETE FROM concierge.answers WHERE at < $1 AND (SELECT ok FROM go)),"
	  " s AS (DELETE FROM concierge.state WHERE at < $1 AND (SELECT ok FROM go)),"
	  " h AS (DELETE FROM concierge.history WHERE at < $1 AND (SELECT ok FROM go))"
	  " DELETE FROM concierge.turn_changes WHERE (SELECT ok FROM go)"
	  " AND at < extract(epoch FROM now())::bigint - " NOTES_KEPT_S, 1 },
	/* cc-store prune */
	{ "cc_prune_turns", "DELETE FROM concierge.turns WHERE at < $1", 1 },
	{ "cc_prune_answers", "DELETE FROM concierge.answers WHERE at < $1", 1 },
	{ "cc_prune_state", "DELETE FROM concierge.state WHERE at < $1", 1 },
	/* $1 as in cc_add: a line written again keeps its id */
	{ "cc_log", "INSERT INTO concierge.logs (id, name, session, at, line)"
	  " VALUES (COALESCE($1::bigint, nextval('concierge.logs_id_seq')),"
	  " $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING RETURNING id", 5 },
	/*
	 * The ids of a batch's turns, taken at once after the batch has
	 * looked at the counter: a turn that saw another's has a larger id.
	 */
	{ "cc_ids", "WITH l AS (SELECT pg_advisory_xact_lock_shared(" LOCK_IDS "))"
	  " SELECT nextval('concierge.turns_id_seq') FROM l, generate_series(1, $1)", 1 },

	/* a batch's turns and answers, one statement each, as arrays */
	/* ... and the note of their sessions for the other writers (peek) */
	{ "cc_add_many", "WITH t AS (INSERT INTO concierge.turns (id, session, at,"
	  " query, language, agent, category, request_type, slots) SELECT * FROM"
	  " unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[],"
	  " $6::text[], $7::text[], $8::text[], $9::text[])"
	  " ON CONFLICT (id) DO NOTHING)"
	  " INSERT INTO concierge.turn_changes (xid, writer, sessions)"
	  " VALUES (pg_current_xact_id(), $10, $2::text[])", 10 },
	{ "cc_answer_many", "INSERT INTO concierge.answers (turn, at, answer)"
	  " SELECT DISTINCT ON (t) t, a, x FROM unnest($1::bigint[], $2::bigint[],"
	  " $3::text[]) WITH ORDINALITY AS u(t, a, x, o) ORDER BY t, o DESC"
	  " ON CONFLICT (turn) DO UPDATE SET at = excluded.at,"
	  " answer = excluded.answer", 3 },
	/* peek: which transactions are done, then the notes of those done since */
	{ "cc_snapshot", "SELECT pg_current_snapshot()::text", 0 },
	{ "cc_notes", "SELECT sessions FROM concierge.turn_changes"
	  " WHERE xid >= pg_snapshot_xmin($1::pg_snapshot)"
	  " AND NOT pg_visible_in_snapshot(xid, $1::pg_snapshot) AND writer <> $2", 2 },
	/*
	 * After a crash the sequence can be behind ids it gave to a batch
	 * that did not commit (their WAL was not flushed): a batch written
	 * again moves it past the ids it holds, under the lock every taker of
	 * ids shares, or they would be given out twice.
	 */
	{ "cc_ids_lock", "SELECT pg_advisory_xact_lock(" LOCK_IDS ")", 0 },
	{ "cc_ids_past", "SELECT setval('concierge.turns_id_seq', $1::bigint)"
	  " WHERE $1::bigint > (SELECT last_value FROM concierge.turns_id_seq)", 1 },
	/* a state's history (at the end of this file) */
	{ "cc_hadd", "INSERT INTO concierge.history (name, session, at, value)"
	  " VALUES ($1, $2, $3, $4)", 4 },
	{ "cc_hget", "SELECT value FROM (SELECT id, value FROM concierge.history"
	  " WHERE name = $1 AND session = $2 ORDER BY id DESC LIMIT $3) h"
	  " ORDER BY id", 3 },
	{ "cc_hclear", "DELETE FROM concierge.history WHERE name = $1"
	  " AND session = $2", 2 },
	{ "cc_prune_history", "DELETE FROM concierge.history WHERE at < $1", 1 },
	/* cc_recent(_answers) before a turn of the session (cc_session_before) */
	{ "cc_before", "SELECT id, at, query, language, agent, category,"
	  " request_type, slots, NULL FROM concierge.turns"
	  " WHERE session = $1 AND at >= $2 AND id < $4"
	  " ORDER BY id DESC LIMIT $3", 4 },
	{ "cc_before_answers", "SELECT t.id, t.at, t.query, t.language, t.agent,"
	  " t.category, t.request_type, t.slots, a.answer FROM concierge.turns t"
	  " LEFT JOIN concierge.answers a ON a.turn = t.id"
	  " WHERE t.session = $1 AND t.at >= $2 AND t.id < $4"
	  " ORDER BY t.id DESC LIMIT $3", 4 },
};
/* struct conn's prepared has a bit per statement */
_Static_assert(NSTMT <= 32, "more statements than bits in conn.prepared");

/* ---- connections and their batches ---- */

/* A write of the batch, kept to be written again after a lost connection. */
struct op {
	int stmt;
	int sent;		/* turns and answers wait for the batch's end */
	char *v[9];
};

struct conn {
	PGconn *pg;
	char counter[48];	/* its row in concierge.changes */
	unsigned prepared;	/* a bit per statement */
	int counted;		/* the counter row is known to exist */
	int in_txn, pending;	/* an open batch and its writes */
	int bumped;		/* the batch holds the counter row */
	int peeked, wrote_turns;	/* turns: looked (peek); wrote some */
	struct timespec since;
	long long seen;		/* the counter after this connection's last bump */
	int known, changed;	/* seen is set; another connection wrote */
	/*
	 * turns: the snapshot of the last look and when it was, and the
	 * sessions other connections wrote since (changed 2: those;
	 * changed 1: maybe any)
	 */
	char *snap;
	struct timespec looked;
	char **others;
	size_t nothers;
	char token[48];		/* this batch's, in the counter row */
	unsigned long batches;
	struct op *log;
	size_t nlog, maxlog;
	size_t unsent;		/* turns and answers in the log not sent yet */
	long long *ids;		/* turn ids taken for this batch */
	size_t nids, usedids, wantids;
};

#define MAX_STATES 4
struct pg {
	const struct cc_config *cfg;
	char *conninfo, *shown;	/* shown: the password masked */
	int answers;
	struct conn main;	/* turns and answers */
	struct {
		char name[32];
		struct conn c;
	} states[MAX_STATES];
	int nstates;
	char error[512];
	int transient;
	uint64_t nonce;		/* for batch tokens */
	char writer[24];	/* this process's turn_changes notes */
	struct timespec purged;	/* the last purge (at open, then hourly) */
};

static void
quiet(void *arg, const char *message)
{
	/* "schema ... already exists, skipping" and the like */
	(void)arg;
	(void)message;
}

/* One line of a libpq message (they end in newlines, some have two lines). */
static void
set_error(struct pg *p, int transient, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->error, sizeof p->error, fmt, ap);
	va_end(ap);
	for (char *c = p->error; *c; c++)
		if (*c == '\n' || *c == '\t')
			*c = ' ';
	for (size_t n = strlen(p->error); n > 0 && p->error[n - 1] == ' '; n--)
		p->error[n - 1] = '\0';
	p->transient = transient;
}

static int
conn_lost(struct conn *c, const PGresult *r)
{
	const char *state = r ? pq.resultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

	/*
	 * 08: connection exceptions; 57P: the server shutting down; none:
	 * libpq's own error, such as "server closed the connection
	 * unexpectedly" after a write to a dead server, when PQstatus still
	 * says CONNECTION_OK (libpq 15)
	 */
	return pq.status(c->pg) != CONNECTION_OK || !state ||
	    strncmp(state, "08", 2) == 0 || strncmp(state, "57P", 3) == 0;
}

/* Settings of a fresh connection; 0 or -1. */
static int
conn_setup(struct pg *p, struct conn *c)
{
	char sql[64];
	PGresult *r;
	int ok;

	pq.setNoticeProcessor(c->pg, quiet, NULL);
	c->prepared = 0;
	/* a batch waits for another's counter row as SQLite waits for a lock */
	snprintf(sql, sizeof sql, "SET lock_timeout = %ld", p->cfg->lock_timeout_ms);
	r = pq.exec(c->pg, sql);
	ok = pq.resultStatus(r) == PGRES_COMMAND_OK;
	if (!ok)
		set_error(p, conn_lost(c, r), "%s", pq.resultErrorMessage(r));
	pq.clear(r);
	return ok ? 0 : -1;
}

static int
conn_open(struct pg *p, struct conn *c)
{
	char timeout[24];
	long s = (p->cfg->lock_timeout_ms + 999) / 1000;
	/* ours first: what the store's conninfo says wins */
	const char *keys[] = { "connect_timeout", "fallback_application_name",
		"dbname", NULL };
	const char *vals[] = { timeout, cc_progname, p->conninfo, NULL };

	snprintf(timeout, sizeof timeout, "%ld", s < 2 ? 2 : s);
	c->pg = pq.connectdbParams(keys, vals, 1);
	if (!c->pg) {
		set_error(p, 1, "cannot connect to '%s': out of memory", p->shown);
		return -1;
	}
	if (pq.status(c->pg) != CONNECTION_OK) {
		set_error(p, 1, "cannot connect to '%s': %s", p->shown, pq.errorMessage(c->pg));
		return -1;
	}
	return conn_setup(p, c);
}

static void
log_clear(struct conn *c)
{
	for (size_t i = 0; i < c->nlog; i++)
		for (int k = 0; k < 9; k++)
			free(c->log[i].v[k]);
	c->nlog = c->unsent = 0;
	/* ids left over are not used later: they would be older than
	   turns other connections commit meanwhile */
	c->nids = c->usedids = 0;
}

/* The batch is over: committed, or see batch_lost. */
static void
batch_done(struct conn *c)
{
	if (c->wrote_turns)
		c->wantids = 2 * c->usedids;
	c->in_txn = c->pending = c->bumped = c->peeked = c->wrote_turns = 0;
	log_clear(c);
}

/* The batch is gone (rolled back, or given up): nothing kept is sure. */
static void
batch_lost(struct conn *c)
{
	batch_done(c);
	c->changed = 1;
}

static int
prepare(struct pg *p, struct conn *c, int k)
{
	PGresult *r;
	int ok;

	if (c->prepared & (1u << k))
		return 0;
	r = pq.prepare(c->pg, stmts[k].name, stmts[k].sql, stmts[k].n, NULL);
	ok = pq.resultStatus(r) == PGRES_COMMAND_OK;
	if (ok)
		c->prepared |= 1u << k;
	else
		set_error(p, conn_lost(c, r), "%s", pq.resultErrorMessage(r));
	pq.clear(r);
	return ok ? 0 : -1;
}

/*
 * Run statement k (or the SQL text sql, with no parameters) once: the
 * result, or NULL with the error set and *lost telling whether the
 * connection is gone.
 */
static PGresult *
exec1(struct pg *p, struct conn *c, int k, const char *sql,
    const char *const *v, int *lost)
{
	PGresult *r;
	ExecStatusType st;

	*lost = 0;
	if (sql)
		r = pq.exec(c->pg, sql);
	else if (prepare(p, c, k) < 0) {
		*lost = p->transient;
		return NULL;
	} else
		r = pq.execPrepared(c->pg, stmts[k].name, stmts[k].n, v, NULL, NULL, 0);
	st = pq.resultStatus(r);
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return r;
	*lost = conn_lost(c, r);
	set_error(p, *lost, "%s", r ? pq.resultErrorMessage(r) : pq.errorMessage(c->pg));
	pq.clear(r);
	return NULL;
}

static int bump(struct pg *p, struct conn *c, int replaying);

/* Append v to a PostgreSQL array literal being built in b (NULL: NULL). */
static void
array_add(struct cc_buf *b, const char *v)
{
	cc_buf_add(b, b->len ? "," : "{", 1);
	if (!v) {
		cc_buf_add(b, "NULL", 4);
		return;
	}
	cc_buf_add(b, "\"", 1);
	for (const char *q = v; *q; q++) {
		size_t n = strcspn(q, "\"\\");

		cc_buf_add(b, q, n);
		q += n;
		if (!*q)
			break;
		cc_buf_add(b, "\\", 1);
		cc_buf_add(b, q, 1);
	}
	cc_buf_add(b, "\"", 1);
}

/*
 * Send the turns and answers of the batch not sent yet, one statement
 * for each (their values as arrays: parameters still, never SQL text).
 * 0, or -1 with *lost telling whether the connection went.
 */
static int
send_pending(struct pg *p, struct conn *c, int *lost)
{
	static const int kinds[][3] = { { S_ADD, S_ADD_MANY, 9 },
		{ S_ANSWER, S_ANSWER_MANY, 3 } };
	int rc = 0;

	*lost = 0;
	if (!c->unsent)
		return 0;
	for (size_t k = 0; rc == 0 && k < sizeof kinds / sizeof kinds[0]; k++) {
		struct cc_buf arr[9];
		const char *v[10];
		size_t n = 0;
		PGresult *r;

		memset(arr, 0, sizeof arr);
		for (size_t i = 0; i < c->nlog; i++) {
			if (c->log[i].stmt != kinds[k][0] || c->log[i].sent)
				continue;
			for (int j = 0; j < kinds[k][2]; j++)
				array_add(&arr[j], c->log[i].v[j]);
			n++;
		}
		for (int j = 0; j < kinds[k][2]; j++) {
			cc_buf_add(&arr[j], "}", 1);
			v[j] = arr[j].data;
		}
		v[9] = p->writer;	/* cc_add_many's note */
		if (n && !(r = exec1(p, c, kinds[k][1], NULL, v, lost)))
			rc = -1;
		else if (n)
			pq.clear(r);
		for (int j = 0; j < kinds[k][2]; j++)
			cc_buf_release(&arr[j]);
	}
	if (rc == 0) {
		for (size_t i = 0; i < c->nlog; i++)
			c->log[i].sent = 1;
		c->unsent = 0;
	}
	return rc;
}

/*
 * Write the batch again on a fresh connection: 0, or -1 (*lost when the
 * connection went again).
 */
static int
replay(struct pg *p, struct conn *c, int *lost)
{
	PGresult *r;

	if (!(r = exec1(p, c, -1, "BEGIN", NULL, lost)))
		return -1;
	pq.clear(r);
	if (c->bumped && bump(p, c, 1) < 0) {
		*lost = p->transient;
		return -1;
	}
	if (c->nids) {
		char past[24];
		const char *w[] = { past };

		snprintf(past, sizeof past, "%lld", c->ids[c->nids - 1]);
		if (!(r = exec1(p, c, S_IDS_LOCK, NULL, NULL, lost)))
			return -1;
		pq.clear(r);
		if (!(r = exec1(p, c, S_IDS_PAST, NULL, w, lost)))
			return -1;
		pq.clear(r);
	}
	c->unsent = 0;
	for (size_t i = 0; i < c->nlog; i++) {
		if (c->log[i].stmt == S_ADD || c->log[i].stmt == S_ANSWER) {
			c->log[i].sent = 0;
			c->unsent++;
			continue;
		}
		/* a log line takes a new id: its old one may be given again */
		if (c->log[i].stmt == S_LOG) {
			free(c->log[i].v[0]);
			c->log[i].v[0] = NULL;
		}
		if (!(r = exec1(p, c, c->log[i].stmt, NULL,
		    (const char *const *)c->log[i].v, lost)))
			return -1;
		pq.clear(r);
	}
	return send_pending(p, c, lost);
}

/*
 * The connection is lost: make it again, for up to the lock timeout, and
 * bring back the batch that was open.  0 (the caller runs its statement
 * again; c->in_txn is 0 when a COMMIT that was cut off had gone through)
 * or -1 with the error set.
 */
static int
recover(struct pg *p, struct conn *c, int committing)
{
	struct timespec t0, pause;
	long wait = 50;
	int lost;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		lost = 0;
		pq.reset(c->pg);
		if (pq.status(c->pg) == CONNECTION_OK && conn_setup(p, c) == 0) {
			if (!c->in_txn)
				return 0;
			/* turns others committed meanwhile were not looked at */
			if (strcmp(c->counter, "turns") == 0)
				c->changed = 1;
			if (c->bumped) {
				/* did the batch commit, did anybody else write? */
				const char *v[] = { c->counter };
				PGresult *r = exec1(p, c, S_PEEK, NULL, v, &lost);

				if (r) {
					long long n = pq.ntuples(r) ?
					    strtoll(pq.getvalue(r, 0, 0), NULL, 10) : -1;
					int ours = pq.ntuples(r) &&
					    strcmp(pq.getvalue(r, 0, 1), c->token) == 0;

					pq.clear(r);
					if (committing && n == c->seen && ours) {
						batch_done(c);
						return 0;
					}
					if (n != c->seen - 1) {
						if (strcmp(c->counter, "turns") != 0) {
							set_error(p, 1, "the connection to '%s' was lost "
							    "and another process wrote %s meanwhile",
							    p->shown, c->counter);
							batch_lost(c);
							return -1;
						}
						/* turns are written again all the same */
						c->changed = 1;
					}
				}
			}
			if (!lost && replay(p, c, &lost) == 0)
				return 0;
			if (!lost) {
				batch_lost(c);
				return -1;
			}
		} else {
			set_error(p, 1, "lost the connection to '%s': %s", p->shown,
			    pq.errorMessage(c->pg));
		}
		if (cc_store_elapsed_ns(&t0) / 1000000 >= p->cfg->lock_timeout_ms) {
			set_error(p, 1, "lost the connection to '%s' and it did not come back "
			    "within %.1f s: %s", p->shown, p->cfg->lock_timeout_ms / 1000.0,
			    pq.errorMessage(c->pg));
			batch_lost(c);
			return -1;
		}
		pause.tv_sec = wait / 1000;
		pause.tv_nsec = wait % 1000 * 1000000L;
		nanosleep(&pause, NULL);
		wait = wait * 2 > 1000 ? 1000 : wait * 2;
	}
}

/*
 * Run statement k (or sql) in c's batch, or alone: the result (to clear),
 * or NULL with the error set.  A lost connection is made again and the
 * batch written again first; any other failure ends the batch (the
 * server rolled it back).
 */
static PGresult *
run(struct pg *p, struct conn *c, int k, const char *sql, const char *const *v)
{
	int lost, committing = sql && strcmp(sql, "COMMIT") == 0;

	for (;;) {
		PGresult *r = exec1(p, c, k, sql, v, &lost);

		if (r)
			return r;
		if (!lost) {
			if (c->in_txn) {
				PGresult *rb = pq.exec(c->pg, "ROLLBACK");

				pq.clear(rb);
				batch_lost(c);
			}
			return NULL;
		}
		if (recover(p, c, committing) < 0)
			return NULL;
		if (committing && !c->in_txn)
			return pq.exec(c->pg, "");	/* it went through */
	}
}

/* send_pending, the connection made again if it is lost. 0 or -1. */
static int
write_pending(struct pg *p, struct conn *c)
{
	int lost;

	while (send_pending(p, c, &lost) < 0) {
		if (!lost) {
			pq.clear(pq.exec(c->pg, "ROLLBACK"));
			batch_lost(c);
			return -1;
		}
		if (recover(p, c, 0) < 0)
			return -1;	/* (recover sent them again when it could) */
		if (!c->unsent)
			return 0;
	}
	return 0;
}

static int
run_ok(struct pg *p, struct conn *c, const char *sql)
{
	PGresult *r = run(p, c, -1, sql, NULL);

	pq.clear(r);
	return r ? 0 : -1;
}

static int
batch_begin(struct pg *p, struct conn *c)
{
	if (c->in_txn)
		return 0;
	if (run_ok(p, c, "BEGIN") < 0)
		return -1;
	c->in_txn = 1;
	c->pending = 0;
	clock_gettime(CLOCK_MONOTONIC, &c->since);
	return 0;
}

static int
conn_flush(struct pg *p, struct conn *c)
{
	int rc;

	if (!c->in_txn)
		return 0;
	if (write_pending(p, c) < 0)
		rc = -1;
	else
		rc = run_ok(p, c, "COMMIT");
	if (c->in_txn)
		batch_done(c);
	return rc;
}

static int
batch_end(struct pg *p, struct conn *c)
{
	if (++c->pending >= CC_STORE_BATCH_TURNS ||
	    cc_store_elapsed_ns(&c->since) >= BATCH_NS)
		return conn_flush(p, c);
	return 0;
}

/*
 * Hold c's counter row for this batch (once a batch): add one to it and
 * note whether another connection did since this one last did.
 */
static int
bump(struct pg *p, struct conn *c, int replaying)
{
	const char *v[] = { c->counter, c->token };
	PGresult *r;
	long long n;
	int lost;

	if (c->bumped && !replaying)
		return 0;
	if (!c->counted) {
		if (!(r = replaying ? exec1(p, c, S_COUNTER, NULL, v, &lost) :
		    run(p, c, S_COUNTER, NULL, v)))
			return -1;
		pq.clear(r);
		c->counted = 1;
	}
	snprintf(c->token, sizeof c->token, "%016" PRIx64 "-%lu", p->nonce, ++c->batches);
	if (!(r = replaying ? exec1(p, c, S_BUMP, NULL, v, &lost) : run(p, c, S_BUMP, NULL, v)))
		return -1;
	n = pq.ntuples(r) == 1 ? strtoll(pq.getvalue(r, 0, 0), NULL, 10) : -1;
	pq.clear(r);
	if (n < 0) {
		set_error(p, 0, "no row '%s' in concierge.changes", c->counter);
		return -1;
	}
	/* a batch written again: the row is where it was, or somebody wrote */
	if (replaying ? n != c->seen : !c->known || n != c->seen + 1)
		c->changed = 1;
	if (replaying && n != c->seen && strcmp(c->counter, "turns") != 0) {
		set_error(p, 1, "the connection to '%s' was lost and another process "
		    "wrote %s meanwhile", p->shown, c->counter);
		return -1;
	}
	c->seen = n;
	c->known = 1;
	c->bumped = 1;
	return 0;
}

/*
 * Turns, at the start of a batch: which sessions did other connections
 * write since this one last looked?  Writers of turns take no lock
 * (PostgreSQL is for many pipelines at once): each write of turns notes
 * its sessions in turn_changes in its own transaction, and a look takes
 * the server's snapshot (which transactions are done) first, then reads
 * the notes of transactions done now that were not done at the last
 * look.  A note committed in between is read twice (a reload, nothing
 * more), none is missed; a turn committed while this batch is open is
 * seen at the next batch (20 ms or the next flush at most).
 */
static void
others_clear(struct conn *c)
{
	for (size_t i = 0; i < c->nothers; i++)
		free(c->others[i]);
	c->nothers = 0;
}

/* Add the sessions of an array literal to c->others (changed 2). */
static void
note_sessions(struct conn *c, const char *text)
{
	const char *q = text;

	if (*q == '{')
		q++;
	while (*q && *q != '}') {
		struct cc_buf b = { 0 };

		if (*q == '"') {
			for (q++; *q && *q != '"'; q++) {
				if (*q == '\\' && q[1])
					q++;
				cc_buf_add(&b, q, 1);
			}
			if (*q)
				q++;
		} else {
			size_t k = strcspn(q, ",}");

			cc_buf_add(&b, q, k);
			q += k;
		}
		if (*q == ',')
			q++;
		c->others = cc_xrealloc(c->others, (c->nothers + 1) * sizeof *c->others);
		c->others[c->nothers++] = b.data ? b.data : cc_xstrdup("");
		if (!c->changed)
			c->changed = 2;
	}
}

static int
peek(struct pg *p, struct conn *c)
{
	const char *v[] = { c->snap, p->writer };
	PGresult *r;
	char *now;

	if (!(r = run(p, c, S_SNAPSHOT, NULL, NULL)))
		return -1;
	now = cc_xstrdup(pq.getvalue(r, 0, 0));
	pq.clear(r);
	/* notes are kept 10 minutes: a look older than 5 trusts none */
	if (!c->known || cc_store_elapsed_ns(&c->looked) / 1000000000L >= NOTES_TRUSTED_S) {
		c->changed = 1;
	} else {
		if (!(r = run(p, c, S_NOTES, NULL, v))) {
			free(now);
			return -1;
		}
		for (int i = 0; i < pq.ntuples(r); i++)
			note_sessions(c, pq.getvalue(r, i, 0));
		pq.clear(r);
	}
	free(c->snap);
	c->snap = now;
	clock_gettime(CLOCK_MONOTONIC, &c->looked);
	/* a process that runs for days purges as if it had started again */
	if (cc_store_elapsed_ns(&p->purged) / 1000000000L >= 3600) {
		char before[24];
		const char *w[] = { before };

		snprintf(before, sizeof before, "%lld",
		    (long long)time(NULL) - CC_STORE_RETENTION_S);
		if (!p->cfg->now_frozen && (r = run(p, c, S_PURGE, NULL, w)))
			pq.clear(r);
		clock_gettime(CLOCK_MONOTONIC, &p->purged);
	}
	c->known = 1;
	c->peeked = 1;
	return 0;
}

/* Keep a write of the batch (its values copied) to write it again. */
static void
log_add(struct conn *c, int k, const char *const *v)
{
	struct op *o;

	if (c->nlog == c->maxlog) {
		c->maxlog = c->maxlog ? 2 * c->maxlog : 64;
		c->log = cc_xrealloc(c->log, c->maxlog * sizeof *c->log);
	}
	o = &c->log[c->nlog++];
	memset(o, 0, sizeof *o);
	o->stmt = k;
	o->sent = k != S_ADD && k != S_ANSWER;
	c->unsent += !o->sent;
	for (int i = 0; i < stmts[k].n; i++)
		o->v[i] = cc_store_dup(v[i]);
}

/* ---- the backend ---- */

static void pg_close(void *b);

static int
schema_version(struct pg *p, struct conn *c, int *version)
{
	PGresult *r = pq.exec(c->pg, "SELECT max(version) FROM concierge.schema_version");
	const char *state = pq.resultErrorField(r, PG_DIAG_SQLSTATE);

	if (pq.resultStatus(r) == PGRES_TUPLES_OK) {
		*version = pq.getisnull(r, 0, 0) ? 0 : atoi(pq.getvalue(r, 0, 0));
	} else if (state && (strcmp(state, "42P01") == 0 || strcmp(state, "3F000") == 0)) {
		*version = 0;	/* no table, no schema: a new database */
	} else {
		set_error(p, conn_lost(c, r), "'%s': %s", p->shown, pq.resultErrorMessage(r));
		pq.clear(r);
		return -1;
	}
	pq.clear(r);
	return 0;
}

/* Bring the schema up to date, one process at a time; *from: the version found. */
static int
migrate(struct pg *p, struct conn *c, int *from)
{
	char sql[128];
	int v;

	if (run_ok(p, c, "BEGIN") < 0)
		return -1;
	if (run_ok(p, c, "SELECT pg_advisory_xact_lock(" LOCK_MIGRATE ")") < 0 ||
	    run_ok(p, c, "CREATE SCHEMA IF NOT EXISTS concierge") < 0 ||
	    run_ok(p, c, "CREATE TABLE IF NOT EXISTS concierge.schema_version"
	    " (version integer NOT NULL)") < 0 || schema_version(p, c, &v) < 0)
		goto fail;
	*from = v;
	if (v > SCHEMA_VERSION) {
		set_error(p, 0, "'%s': the schema is version %d, newer than this "
		    "program's %d", p->shown, v, SCHEMA_VERSION);
		goto fail;
	}
	for (; v < SCHEMA_VERSION; v++)
		if (run_ok(p, c, migrations[v]) < 0)
			goto fail;
	snprintf(sql, sizeof sql, "DELETE FROM concierge.schema_version;"
	    " INSERT INTO concierge.schema_version VALUES (%d)", SCHEMA_VERSION);
	if (run_ok(p, c, sql) < 0 || run_ok(p, c, "COMMIT") < 0)
		goto fail;
	return 0;
fail:
	pq.clear(pq.exec(c->pg, "ROLLBACK"));
	return -1;
}

static struct pg *
pg_new(const struct cc_config *cfg, const char *where, char *err, size_t errlen)
{
	struct pg *p;

	if (pq_load(err, errlen) < 0)
		return NULL;
	p = calloc(1, sizeof *p);
	if (!p)
		cc_die(CC_EXIT_INTERNAL, "out of memory");
	p->cfg = cfg;
	p->conninfo = cc_xstrdup(where);
	p->shown = cc_session_mask(where);
	p->nonce = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)p;
	snprintf(p->writer, sizeof p->writer, "%016" PRIx64, p->nonce);
	snprintf(p->main.counter, sizeof p->main.counter, "turns");
	return p;
}

static void *
pg_open(const struct cc_config *cfg, const char *where, int flags, char *err,
    size_t errlen)
{
	struct pg *p = pg_new(cfg, where, err, errlen);
	char before[24];
	const char *v[] = { before };
	int version, from;
	PGresult *r;

	if (!p)
		return NULL;
	p->answers = flags & CC_SESSION_ANSWERS;
	if (conn_open(p, &p->main) < 0 || schema_version(p, &p->main, &version) < 0)
		goto fail;
	if (version != SCHEMA_VERSION && migrate(p, &p->main, &from) < 0)
		goto fail;
	/* forget old conversations; a purge under way elsewhere is enough */
	snprintf(before, sizeof before, "%lld", (long long)cfg->now - CC_STORE_RETENTION_S);
	if (!(r = run(p, &p->main, S_PURGE, NULL, v)))
		goto fail;
	pq.clear(r);
	clock_gettime(CLOCK_MONOTONIC, &p->purged);
	return p;
fail:
	snprintf(err, errlen, "%s", p->error);
	pg_close(p);
	return NULL;
}

static void
conn_close(struct pg *p, struct conn *c)
{
	if (c->pg) {
		conn_flush(p, c);
		pq.finish(c->pg);
	}
	log_clear(c);
	free(c->log);
	free(c->ids);
	others_clear(c);
	free(c->others);
	free(c->snap);
}

static int
pg_flush(void *b)
{
	struct pg *p = b;
	int rc = conn_flush(p, &p->main);

	for (int i = 0; i < p->nstates; i++)
		if (conn_flush(p, &p->states[i].c) < 0)
			rc = -1;
	return rc;
}

static void
pg_close(void *b)
{
	struct pg *p = b;

	if (!p)
		return;
	conn_close(p, &p->main);
	for (int i = 0; i < p->nstates; i++)
		conn_close(p, &p->states[i].c);
	free(p->conninfo);
	free(p->shown);
	free(p);
}

static const char *
pg_error(void *b)
{
	return ((struct pg *)b)->error;
}

static int
pg_transient(void *b)
{
	return ((struct pg *)b)->transient;
}

static char *
value(PGresult *r, int row, int col)
{
	return pq.getisnull(r, row, col) ? NULL : cc_xstrdup(pq.getvalue(r, row, col));
}

/* Whether session has a turn in the batch not sent yet. */
static int
pending_turn_of(const struct conn *c, const char *session)
{
	for (size_t i = c->nlog; i-- > 0;)
		if (c->log[i].stmt == S_ADD && !c->log[i].sent &&
		    strcmp(c->log[i].v[1], session) == 0)
			return 1;
	return 0;
}

/*
 * The session's newest max turns at or after since (before 0), or those
 * before its turn `before`: ids are the order of a session's turns, as
 * SQLite's chain is (a turn that saw another's has a larger id: cc_ids).
 */
static int
recent(struct pg *p, const char *session, long long before, time_t since,
    struct cc_turn *turns, int max)
{
	char at[24], lim[16], id[24];
	const char *v[] = { session, at, lim, id };
	PGresult *r;
	int n;

	snprintf(at, sizeof at, "%lld", (long long)since);
	snprintf(lim, sizeof lim, "%d", max);
	snprintf(id, sizeof id, "%lld", before);
	/* this connection reads its own writes, as SQLite's does */
	if (p->main.unsent && (p->answers || pending_turn_of(&p->main, session)) &&
	    write_pending(p, &p->main) < 0)
		return -1;
	if (!(r = run(p, &p->main, before ?
	    (p->answers ? S_BEFORE_ANSWERS : S_BEFORE) :
	    (p->answers ? S_RECENT_ANSWERS : S_RECENT), NULL, v)))
		return -1;
	n = pq.ntuples(r);
	if (n > max)
		n = max;
	/* newest first from SQL; callers want them in order */
	for (int i = 0; i < n; i++) {
		struct cc_turn *t = &turns[n - 1 - i];

		t->id = strtoll(pq.getvalue(r, i, 0), NULL, 10);
		t->at = (time_t)strtoll(pq.getvalue(r, i, 1), NULL, 10);
		t->query = value(r, i, 2);
		t->language = value(r, i, 3);
		t->agent = value(r, i, 4);
		t->category = value(r, i, 5);
		t->request_type = value(r, i, 6);
		t->slots = value(r, i, 7);
		t->answer = value(r, i, 8);
	}
	pq.clear(r);
	return n;
}

static int
pg_recent(void *b, const char *session, time_t since, struct cc_turn *turns, int max)
{
	return recent(b, session, 0, since, turns, max);
}

static int
pg_before(void *b, const char *session, long long turn, time_t since,
    struct cc_turn *turns, int max)
{
	return turn > 0 ? recent(b, session, turn, since, turns, max) : 0;
}

/*
 * A turn id for this batch: from the ids taken for it, the next ones
 * taken when they run out (twice the last batch's turns, 16 to 1024:
 * one round trip a batch).  0 or -1.
 */
static int
take_id(struct pg *p, struct conn *c, long long *id)
{
	char want[16];
	const char *v[] = { want };
	PGresult *r;
	int n;

	if (c->usedids == c->nids) {
		c->wantids = c->wantids < 16 ? 16 : c->wantids > 1024 ? 1024 : c->wantids;
		snprintf(want, sizeof want, "%zu", c->wantids);
		if (!(r = run(p, c, S_IDS, NULL, v)))
			return -1;
		n = pq.ntuples(r);
		c->ids = cc_xrealloc(c->ids, (size_t)(n > 0 ? n : 1) * sizeof *c->ids);
		for (int i = 0; i < n; i++)
			c->ids[i] = strtoll(pq.getvalue(r, i, 0), NULL, 10);
		pq.clear(r);
		c->nids = (size_t)n;
		c->usedids = 0;
		if (!n) {
			set_error(p, 0, "no turn ids from concierge.turns_id_seq");
			return -1;
		}
	}
	*id = c->ids[c->usedids++];
	return 0;
}

static long long
pg_add(void *b, const char *session, const struct cc_turn *t, long long prev)
{
	struct pg *p = b;

	(void)prev;	/* writers take no lock: the server finds the head */
	struct conn *c = &p->main;
	char at[24], id[24];
	const char *v[] = { NULL, session, at, t->query, t->language, t->agent,
		t->category, t->request_type, t->slots };
	long long turn;

	if (batch_begin(p, c) < 0 || take_id(p, c, &turn) < 0)
		return -1;
	c->wrote_turns = 1;
	snprintf(at, sizeof at, "%lld", (long long)t->at);
	snprintf(id, sizeof id, "%lld", turn);
	v[0] = id;
	log_add(c, S_ADD, v);
	return batch_end(p, c) < 0 ? -1 : turn;
}

static int
pg_answer(void *b, long long turn, const char *answer, time_t at)
{
	struct pg *p = b;
	char id[24], when[24];
	const char *v[] = { id, when, answer };

	if (!p->answers) {
		set_error(p, 0, "the store was not opened for answers");
		return -1;
	}
	snprintf(id, sizeof id, "%lld", turn);
	snprintf(when, sizeof when, "%lld", (long long)at);
	if (batch_begin(p, &p->main) < 0)
		return -1;
	log_add(&p->main, S_ANSWER, v);	/* sent as the batch ends */
	return batch_end(p, &p->main);
}

static int
pg_log(void *b, const char *name, const char *session, const char *line, time_t at)
{
	struct pg *p = b;
	char when[24], id[24];
	const char *v[] = { NULL, name, session, when, line };
	PGresult *r;

	snprintf(when, sizeof when, "%lld", (long long)at);
	if (batch_begin(p, &p->main) < 0 || !(r = run(p, &p->main, S_LOG, NULL, v)))
		return -1;
	snprintf(id, sizeof id, "%s", pq.ntuples(r) == 1 ? pq.getvalue(r, 0, 0) : "");
	pq.clear(r);
	v[0] = *id ? id : NULL;
	log_add(&p->main, S_LOG, v);
	return batch_end(p, &p->main) < 0 ? -1 : 1;
}

static const char *const *
pg_turns_changed(void *b, size_t *n)
{
	struct pg *p = b;

	*n = p->main.nothers;
	return (const char *const *)p->main.others;
}

static int
pg_turns_hold(void *b)
{
	struct pg *p = b;
	struct conn *c = &p->main;
	int changed;

	others_clear(c);	/* the caller is done with them */
	if (c->in_txn && cc_store_elapsed_ns(&c->since) >= BATCH_NS &&
	    conn_flush(p, c) < 0)
		return -1;
	if (batch_begin(p, c) < 0 || (!c->peeked && peek(p, c) < 0))
		return -1;
	changed = c->changed;
	c->changed = 0;
	return changed;
}

/* The connection of state `name`, made on first use; NULL on failure. */
static struct conn *
state_of(struct pg *p, const char *name)
{
	struct conn *c;

	for (int i = 0; i < p->nstates; i++)
		if (strcmp(p->states[i].name, name) == 0)
			return &p->states[i].c;
	if (!cc_store_name_ok(name) || p->nstates == MAX_STATES) {
		set_error(p, 0, "bad state name '%s'", name);
		return NULL;
	}
	c = &p->states[p->nstates].c;
	memset(c, 0, sizeof *c);
	snprintf(c->counter, sizeof c->counter, "state:%s", name);
	if (conn_open(p, c) < 0) {
		if (c->pg)
			pq.finish(c->pg);
		return NULL;
	}
	snprintf(p->states[p->nstates++].name, sizeof p->states[0].name, "%s", name);
	return c;
}

static int
pg_state_get(void *b, const char *session, const char *name, char **json, time_t *at)
{
	struct pg *p = b;
	struct conn *c = state_of(p, name);
	const char *v[] = { name, session };
	PGresult *r;
	int found;

	if (!c || !(r = run(p, c, S_GET, NULL, v)))
		return -1;
	found = pq.ntuples(r) == 1;
	if (found) {
		*json = value(r, 0, 0);
		if (at)
			*at = (time_t)strtoll(pq.getvalue(r, 0, 1), NULL, 10);
	}
	pq.clear(r);
	return found;
}

/*
 * Write one row (name, session, at, json) of a state (S_PUT) or of its
 * history (S_HADD) in the batch, and keep it to write again after a
 * lost connection; c is the state's connection.
 */
static int
put_row(struct pg *p, struct conn *c, int k, const char *session,
    const char *name, const char *json, time_t at)
{
	char when[24];
	const char *v[] = { name, session, when, json };
	PGresult *r;

	if (!c || batch_begin(p, c) < 0 || bump(p, c, 0) < 0)
		return -1;
	snprintf(when, sizeof when, "%lld", (long long)at);
	if (!(r = run(p, c, k, NULL, v)))
		return -1;
	pq.clear(r);
	log_add(c, k, v);
	return 0;
}

static int
pg_state_put(void *b, const char *session, const char *name, const char *json,
    time_t at)
{
	struct pg *p = b;
	struct conn *c = state_of(p, name);

	if (put_row(p, c, S_PUT, session, name, json, at) < 0)
		return -1;
	return batch_end(p, c);
}

static int
pg_state_hold(void *b, const char *name)
{
	struct pg *p = b;
	struct conn *c = state_of(p, name);
	int changed;

	if (!c)
		return -1;
	/* a batch kept open without writing is still a short one */
	if (c->in_txn && cc_store_elapsed_ns(&c->since) >= CC_STORE_BATCH_NS &&
	    conn_flush(p, c) < 0)
		return -1;
	if (batch_begin(p, c) < 0 || bump(p, c, 0) < 0)
		return -1;
	changed = c->changed;
	c->changed = 0;
	return changed;
}

static int
pg_state_begin(void *b, const char *name)
{
	struct pg *p = b;
	struct conn *c = state_of(p, name);

	return c && batch_begin(p, c) == 0 && bump(p, c, 0) == 0 ? 0 : -1;
}

/* ---- for operators ---- */

static int
pg_admin(const struct cc_config *cfg, const char *where, enum cc_store_admin what,
    long keep, char *out, size_t outlen)
{
	struct pg *p;
	int version, from, status = CC_EXIT_OK;
	PGresult *r;

	*out = '\0';
	if (!(p = pg_new(cfg, where, out, outlen)))
		return CC_EXIT_INTERNAL;
	if (conn_open(p, &p->main) < 0 || schema_version(p, &p->main, &version) < 0)
		goto fail;
	switch (what) {
	case CC_STORE_MIGRATE:
		if (migrate(p, &p->main, &from) < 0)
			goto fail;
		if (from == SCHEMA_VERSION)
			cc_store_say(out, outlen, "%s: schema version %d, up to date\n", p->shown, from);
		else
			cc_store_say(out, outlen, "%s: schema version %d, migrated from %d\n",
			    p->shown, SCHEMA_VERSION, from);
		break;
	case CC_STORE_CHECK:
		cc_store_say(out, outlen, "%s: schema version %d of %d", p->shown, version,
		    SCHEMA_VERSION);
		if (version != SCHEMA_VERSION) {
			cc_store_say(out, outlen, version < SCHEMA_VERSION ?
			    ": run 'concierge store migrate'\n" : ": newer than this program\n");
			status = CC_EXIT_NEGATIVE;
			break;
		}
		if (!(r = run(p, &p->main, -1, "SELECT (SELECT count(*) FROM concierge.turns),"
		    " (SELECT count(DISTINCT session) FROM concierge.turns),"
		    " (SELECT count(*) FROM concierge.answers),"
		    " (SELECT count(*) FROM concierge.state),"
		    " (SELECT count(*) FROM concierge.logs),"
		    " (SELECT count(*) FROM concierge.answers a WHERE NOT EXISTS"
		    "  (SELECT 1 FROM concierge.turns t WHERE t.id = a.turn))", NULL)))
			goto fail;
		cc_store_say(out, outlen, ", ok\nturns %s in %s sessions, answers %s, states %s, "
		    "log lines %s, answers without their turn %s\n", pq.getvalue(r, 0, 0),
		    pq.getvalue(r, 0, 1), pq.getvalue(r, 0, 2), pq.getvalue(r, 0, 3),
		    pq.getvalue(r, 0, 4), pq.getvalue(r, 0, 5));
		pq.clear(r);
		break;
	case CC_STORE_PRUNE: {
		static const char *const tables[] = { "turns", "answers", "states" };
		char before[24];
		const char *v[] = { before };

		if (version != SCHEMA_VERSION) {
			cc_store_say(out, outlen, "%s: schema version %d of %d: nothing pruned\n",
			    p->shown, version, SCHEMA_VERSION);
			status = CC_EXIT_NEGATIVE;
			break;
		}
		snprintf(before, sizeof before, "%lld", (long long)cfg->now - keep);
		for (int i = 0; i < 3; i++) {
			if (!(r = run(p, &p->main, S_PRUNE_TURNS + i, NULL, v)))
				goto fail;
			cc_store_say(out, outlen, "%s older than %ld s removed: %s\n", tables[i],
			    keep, pq.cmdTuples(r));
			pq.clear(r);
		}
		if (!(r = run(p, &p->main, S_PRUNE_HISTORY, NULL, v)))
			goto fail;
		cc_store_say(out, outlen, "history entries older than %ld s removed: %s\n",
		    keep, pq.cmdTuples(r));
		pq.clear(r);
		break;
	}
	}
	pg_close(p);
	return status;
fail:
	cc_store_say(out, outlen, "%s\n", p->error);
	status = p->transient ? CC_EXIT_UPSTREAM : CC_EXIT_INTERNAL;
	pg_close(p);
	return status;
}

/* ---- a state's history ---- */

/*
 * Written on the state's connection, in its batch (holding its counter
 * row, as a state's write does) and kept in its log to be written again;
 * the batch is not ended here, so the state's write that follows commits
 * both (cc_session_sqlite.c does the same).
 */
static int
pg_history_add(void *b, const char *session, const char *name,
    const char *json, time_t at)
{
	struct pg *p = b;
	struct conn *c = state_of(p, name);

	if (put_row(p, c, S_HADD, session, name, json, at) < 0)
		return -1;
	c->pending++;
	return 0;
}

static int
pg_history_get(void *b, const char *session, const char *name, int max,
    char ***items)
{
	struct pg *p = b;
	struct conn *c = state_of(p, name);
	char limit[24];
	const char *v[] = { name, session, limit };
	PGresult *r;
	int n;

	*items = NULL;
	snprintf(limit, sizeof limit, "%d", max);
	if (!c || !(r = run(p, c, S_HGET, NULL, v)))
		return -1;
	n = pq.ntuples(r);
	if (n > 0) {
		*items = cc_xmalloc((size_t)n * sizeof **items);
		for (int i = 0; i < n; i++)
			(*items)[i] = value(r, i, 0);
	}
	pq.clear(r);
	return n;
}

static int
pg_history_clear(void *b, const char *session, const char *name)
{
	struct pg *p = b;
	struct conn *c = state_of(p, name);
	const char *v[] = { name, session };
	PGresult *r;

	if (!c || batch_begin(p, c) < 0 || bump(p, c, 0) < 0)
		return -1;
	if (!(r = run(p, c, S_HCLEAR, NULL, v)))
		return -1;
	pq.clear(r);
	log_add(c, S_HCLEAR, v);
	c->pending++;
	return 0;
}

const struct cc_store_ops cc_store_pg = {
	.name = "postgresql",
	.open = pg_open,
	.close = pg_close,
	.error = pg_error,
	.transient = pg_transient,
	.recent = pg_recent,
	.before = pg_before,
	.add = pg_add,
	.answer = pg_answer,
	.flush = pg_flush,
	.turns_hold = pg_turns_hold,
	.turns_changed = pg_turns_changed,
	.state_get = pg_state_get,
	.state_put = pg_state_put,
	.state_hold = pg_state_hold,
	.state_begin = pg_state_begin,
	.log = pg_log,
	.admin = pg_admin,
	.history_add = pg_history_add,
	.history_get = pg_history_get,
	.history_clear = pg_history_clear,
};
