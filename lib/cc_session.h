/*
 * cc_session.h: session memory: the turns of a conversation and their answers,
 * and each stage's own state, in the store CC_STORE names: SQLite files
 * under the state directory by default (sessions.db, answers.db,
 * state-NAME.db), or a PostgreSQL database (cc-store(1)).
 *
 * Owns: the store connection and its write batches.  Borrows: the
 * configuration (state directory, lock timeout).
 */
#ifndef CC_SESSION_H
#define CC_SESSION_H

#include <stddef.h>
#include <time.h>

#include "cc_config.h"

struct cc_session;

/* One routed turn; strings are owned (cc_turns_release frees them). */
struct cc_turn {
	long long id;
	time_t at;
	char *query, *language, *agent, *category, *request_type;
	char *slots;		/* the router's slots as a JSON object */
	char *answer;		/* added by cc-respond; NULL if none or not asked for */
	/*
	 * The writer's own note on a turn it added (cc-route: which of its
	 * parsed slot texts this turn's is), kept with the turn in process
	 * (CC_SESSION_CACHE) and given back by cc_session_turns; 0 for a
	 * turn read from the store.
	 */
	unsigned long note;
};

/*
 * Open the store cfg names: SQLite (creating the directory, mode 0700,
 * waiting up to cfg->lock_timeout_ms for another process's lock) or
 * PostgreSQL (connecting, and creating or migrating the schema on first
 * use); NULL + message (a conninfo in it has its password masked).  With
 * CC_SESSION_ANSWERS the answers are opened too (cc_session_answer, and
 * cc_turn.answer from cc_session_recent); without, they are not touched.
 * A program that gets -1 from a store call should go on without memory
 * (the spec's rule) rather than try again for every record.
 */
#define CC_SESSION_ANSWERS 1
/*
 * CC_SESSION_CACHE, for the writer of turns (cc-route): cc_session_turns
 * answers from each session's newest turns kept in process, and takes the
 * write lock of sessions.db for the current batch to do so; it looks at
 * the file's PRAGMA data_version once a batch and forgets everything kept
 * when another process wrote.  Ignored with CC_SESSION_ANSWERS.
 */
#define CC_SESSION_CACHE 2
/*
 * CC_SESSION_BATCH, for one connection that both writes turns and adds
 * their answers (the stages chained in a process, cc_chain.h): with
 * CC_SESSION_CACHE and CC_SESSION_ANSWERS, turns and answers are kept in
 * process until the batch ends (cc_session_flush, or its limits) and
 * then written, turns then answers, each file in a short transaction of
 * its own; no lock is held in between, so pipelines on one store do not
 * wait for each other's batches.  Turn ids are taken a block at a time;
 * this connection reads its own writes at once (cc_session_recent,
 * cc_session_before, answers too), others after the batch ends.  The
 * turns kept are checked once a batch against what other connections
 * noted they wrote (a turn written elsewhere meanwhile is seen a batch
 * late, as with PostgreSQL).  A crash loses the batch not yet written.
 */
#define CC_SESSION_BATCH 4
struct cc_session *cc_session_open(const struct cc_config *cfg, int flags,
	char *err, size_t errlen);
void cc_session_close(struct cc_session *s);
const char *cc_session_error(struct cc_session *s);
/*
 * 1 when the last error was a temporary one: the server of a PostgreSQL
 * store lost and not back within the lock timeout (a stage exits 4).
 * A connection lost in the middle of a batch is reconnected and the batch
 * written again first; the call fails only when that is not possible.
 */
int cc_session_transient(struct cc_session *s);
/* Whether a CC_STORE value names PostgreSQL (a URI or a conninfo). */
int cc_session_is_pg(const char *store);
/* The store cfg names, for messages: a password in it masked (fresh). */
char *cc_session_store_name(const struct cc_config *cfg);
/* A CC_STORE value with its password masked (fresh). */
char *cc_session_mask(const char *store);
/*
 * For operators (cc-store(1)): migrate creates the schema or brings it up
 * to date; check looks at it (schema version, integrity, counts); prune
 * removes turns, answers and states older than keep seconds.  A report
 * for people goes to out; returns an exit status (0 ok; 1 check found
 * a problem or an old schema; 4 the server cannot be reached; 5 other).
 */
/*
 * Append a line (JSON text) to the log `name` (the gate's decisions and
 * outcomes), in the batches of turns: 1 when the store keeps logs
 * (PostgreSQL: concierge.logs, shared by every machine), 0 when it does
 * not and the caller keeps its own files (SQLite, as before), -1 on a
 * store error.
 */
int cc_session_log(struct cc_session *s, const char *name, const char *session,
	const char *line, time_t at);
/* Whether the store cfg names keeps logs (cc_session_log would return 1). */
int cc_session_keeps_logs(const struct cc_config *cfg);
enum cc_store_admin { CC_STORE_MIGRATE, CC_STORE_CHECK, CC_STORE_PRUNE };
int cc_session_admin(const struct cc_config *cfg, enum cc_store_admin what,
	long keep, char *out, size_t outlen);
/*
 * The turns of `session` asked at or after `since`, oldest first, at most
 * max (the newest ones).  Returns the count, or -1 on a store error.
 */
int cc_session_recent(struct cc_session *s, const char *session, time_t since,
	struct cc_turn *turns, int max);
/*
 * The same, but only the turns of `session` before its turn `turn` (a
 * record's route.debug_info.session.turn): what was asked before that
 * record, whatever the writer of turns has recorded since.  cc-respond
 * reads a pipe's worth of records behind cc-route, which has by then
 * recorded turns the session asks later, and the newest turns
 * (cc_session_recent) would be those.  0 turns when `turn` is not one
 * of session's (or is purged); -1 on a store error.
 */
int cc_session_before(struct cc_session *s, const char *session, long long turn,
	time_t since, struct cc_turn *turns, int max);
/*
 * The same turns (at most 32; answers only as cc_session_recent gives
 * them), borrowed: *turns points at them until the next call of
 * cc_session_turns or cc_session_close; one cc_session_add in between
 * (the turn routed from them) leaves them be.  -1 on a store error.
 */
int cc_session_turns(struct cc_session *s, const char *session, time_t since,
	const struct cc_turn **turns, int max);
/*
 * Record a turn (t->id is ignored); returns its id, or -1.  Turns are
 * written in transactions of up to 1024 turns or 20 ms: this connection sees
 * them at once, other processes after cc_session_flush() or the next
 * commit.
 */
long long cc_session_add(struct cc_session *s, const char *session,
	const struct cc_turn *t);
/* Commit what cc_session_add() and cc_session_answer() wrote; 0 or -1. */
int cc_session_flush(struct cc_session *s);
/* Add the answer to a turn, in the same batches as cc_session_add(); 0 or -1. */
int cc_session_answer(struct cc_session *s, long long turn, const char *answer,
	time_t at);
void cc_turns_release(struct cc_turn *turns, int n);

/*
 * A stage's own state for a session (the homework coach's problem and
 * points, say): one JSON text per session and name, kept as long as turns
 * are.  Each name has one writer, in a file of its own (state-NAME.db;
 * NAME is lower-case letters, digits, - and _), written in batches as
 * turns are (SQLite: up to 8192 writes or 200 ms), so the writer reads
 * its own writes at once and other processes see them after
 * cc_session_flush().
 *
 * cc_session_state_get: 1 with *json (malloc'd) and *at (if not NULL)
 * when there is one, 0 when there is none, -1 on a store error.
 */
int cc_session_state_get(struct cc_session *s, const char *session,
	const char *name, char **json, time_t *at);
/* Replace it; 0 or -1. */
int cc_session_state_put(struct cc_session *s, const char *session,
	const char *name, const char *json, time_t at);
/*
 * For a writer that keeps what it read and wrote of `name` in memory
 * rather than reading the store again every turn.  Take the write lock of
 * name's file for the current batch (unless this batch holds it already)
 * and tell whether any other connection may have written the file since
 * this one last held it: 1 yes (or the first call), 0 no, -1 a store
 * error.
 *
 * The contract: call it before reading the state of a turn.  After 0,
 * every value this connection read or wrote of `name` is still the
 * stored one; after 1, forget them all.  Until the batch is committed
 * (cc_session_flush, the batch limits above, or the next hold after a
 * batch's time is up) no other process can write the file, so a read,
 * a change and its write under one hold lose nobody's write.  After -1
 * from this or any write call the batch may be rolled back: forget
 * everything kept.  Costs one PRAGMA data_version per batch.
 */
int cc_session_state_hold(struct cc_session *s, const char *name);
/*
 * Begin the batch of state `name` now rather than at its next put (0, or
 * -1 when the lock is not had within the lock timeout): a get, then a put
 * computed from it, are then one transaction, and no other process's
 * write can fall between them (cc-gate's sessions, which two agents'
 * calls may change at once).  cc_session_flush() ends it.  Unlike a
 * hold, it does not look at what others wrote.
 */
int cc_session_state_begin(struct cc_session *s, const char *name);

/*
 * A state's history: entries (JSON texts) appended to a session's list
 * under a state name, in the state's file (PostgreSQL: concierge.history)
 * and in the batches of its writes, so a hold covers them as it covers
 * the state.  What grows with a session (the homework coach's finished
 * problems) is appended, not rewritten with the state every turn.
 * Entries are kept as long as turns are (each by the time it was added).
 *
 * cc_session_history_add: append one; 0 or -1.
 * cc_session_history_get: the session's newest max entries, oldest first:
 *   their count with *items (malloc'd, each entry malloc'd; NULL when
 *   none), or -1 on a store error.
 * cc_session_history_clear: remove all of the session's; 0 or -1.
 */
int cc_session_history_add(struct cc_session *s, const char *session,
	const char *name, const char *json, time_t at);
int cc_session_history_get(struct cc_session *s, const char *session,
	const char *name, int max, char ***items);
int cc_session_history_clear(struct cc_session *s, const char *session,
	const char *name);

#endif
