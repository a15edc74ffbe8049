/*
 * cc_store.h: the backends behind cc_session.h (private to the library).
 * cc_session.c chooses one from CC_STORE and keeps what is common: the
 * turns kept in process (CC_SESSION_CACHE) and cc_session_turns' view.
 * A backend keeps the rest: connections, write batches, SQL.
 *
 * Every function of a backend takes the object its open returned.  The
 * contracts are cc_session.h's, except:
 *   recent      oldest first, answers only when opened with answers;
 *   before      likewise;
 *   turns_hold  begin the batch of turns and tell whether another
 *               connection wrote turns since this one last looked: 1 yes
 *               (or the first call), 0 no, -1 error (the turns kept are
 *               then forgotten by the caller too).  SQLite holds the
 *               write lock for the batch; PostgreSQL does not, and may
 *               tell of a turn committed during a batch at the next;
 *               2: only the sessions turns_changed lists (borrowed until
 *               the next turns_hold) were written;
 *   transient   1 when the last error was a lost server (a temporary
 *               failure: exit status 4), 0 for a local one.
 */
#ifndef CC_STORE_H
#define CC_STORE_H

#include <stddef.h>
#include <time.h>

#include "cc_config.h"
#include "cc_session.h"

struct cc_store_ops {
	const char *name;
	void *(*open)(const struct cc_config *cfg, const char *where, int flags,
	    char *err, size_t errlen);
	void (*close)(void *b);
	const char *(*error)(void *b);
	int (*transient)(void *b);
	int (*recent)(void *b, const char *session, time_t since,
	    struct cc_turn *turns, int max);
	/* recent's turns before the session's turn `turn` (cc_session_before) */
	int (*before)(void *b, const char *session, long long turn, time_t since,
	    struct cc_turn *turns, int max);
	/* prev: the session's newest turn when the caller knows it (its
	   turns kept, checked in this batch), else 0 */
	long long (*add)(void *b, const char *session, const struct cc_turn *t,
	    long long prev);
	int (*answer)(void *b, long long turn, const char *answer, time_t at);
	int (*flush)(void *b);
	int (*turns_hold)(void *b);
	const char *const *(*turns_changed)(void *b, size_t *n);
	int (*state_get)(void *b, const char *session, const char *name,
	    char **json, time_t *at);
	int (*state_put)(void *b, const char *session, const char *name,
	    const char *json, time_t at);
	int (*state_hold)(void *b, const char *name);
	int (*state_begin)(void *b, const char *name);
	int (*log)(void *b, const char *name, const char *session,
	    const char *line, time_t at);	/* NULL: logs are the caller's */
	/* for operators (cc-store): see cc_session.h */
	int (*admin)(const struct cc_config *cfg, const char *where,
	    enum cc_store_admin what, long keep, char *out, size_t outlen);
	/* a state's history (cc_session.h) */
	int (*history_add)(void *b, const char *session, const char *name,
	    const char *json, time_t at);
	int (*history_get)(void *b, const char *session, const char *name,
	    int max, char ***items);
	int (*history_clear)(void *b, const char *session, const char *name);
};

extern const struct cc_store_ops cc_store_sqlite, cc_store_pg;

/* Shared by the backends. */
#define CC_STORE_BATCH_TURNS 1024	/* commit after this many writes ... */
#ifndef CC_STORE_BATCH_NS	/* a profiling build under valgrind sets it */
#define CC_STORE_BATCH_NS 20000000L	/* ... or this long after the first */
#endif
#define CC_STORE_RETENTION_S (7 * 86400)	/* older turns are purged */
/* A state's name: lower-case letters, digits, - and _, under 32 bytes. */
int cc_store_name_ok(const char *name);
long cc_store_elapsed_ns(const struct timespec *since);
char *cc_store_dup(const char *s);
/* Append a formatted line to the report out (outlen bytes), as it fits. */
void cc_store_say(char *out, size_t outlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
