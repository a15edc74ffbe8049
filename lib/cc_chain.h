/*
 * cc_chain.h: stages of the library (cc_stages.h) run in one process, a
 * record through each in turn, each stage's output line the next one's
 * input: the same texts the pipes of cc_pipe.c would carry, so what comes
 * out is byte for byte what the programs would write, with the same error
 * records, messages (named after each stage's program) and exit statuses.
 * It saves a question the start of a process for every stage (issue 16).
 *
 * Owns: the stages it opened, until close.
 */
#ifndef CC_CHAIN_H
#define CC_CHAIN_H

#include <stddef.h>

#include "cc_json.h"

/* 1 if the library runs the stage of that program name ("cc-route"). */
int cc_chain_has(const char *name);

/*
 * Open the stages named in order (program names, as a manifest's
 * pipeline line), as their programs would start with no options.  NULL
 * when one is not the library's, or its open failed: then *status is the
 * status its program would have died with and err its message (*status
 * 0 and err empty: not the library's).
 */
struct cc_chain;
struct cc_chain *cc_chain_open(char *const *names, size_t n, int *status,
	char *err, size_t errlen);
/*
 * The same, with CC_CHAIN_BATCH: what the stages write elsewhere is
 * committed when the caller hands records on (cc_chain_flush, and
 * cc_chain_idle), not after every record; cc-route and cc-respond share
 * one session store (CC_SESSION_BATCH), so cc-respond reads the turns
 * its cc-route has not committed yet.  For a caller that hands its
 * output on in chunks (cc_run.c), which calls cc_chain_flush() before
 * each: no record leaves before its turn is committed.
 */
#define CC_CHAIN_BATCH 1
struct cc_chain *cc_chain_open_flags(char *const *names, size_t n, int flags,
	int *status, char *err, size_t errlen);
/* Commit what the stages keep (CC_CHAIN_BATCH); nothing otherwise. */
void cc_chain_flush(struct cc_chain *c);
/*
 * One line through the stages: the last one's output line (with its
 * newline) appended to out; nothing when a stage wrote nothing.
 */
void cc_chain_line(struct cc_chain *c, const char *line, size_t len,
	struct cc_buf *out);
/*
 * cc_chain_line() for input line `line_no` of a stream whose records
 * (non-blank lines) before it number record_no - 1: what a caller that
 * hands this chain only some of a stream's lines passes, so that error
 * records carry the line numbers the stage processes would give (the
 * first stage counts input lines, each later one its input's records).
 */
void cc_chain_line_at(struct cc_chain *c, const char *line, size_t len,
	unsigned long line_no, unsigned long record_no, struct cc_buf *out);
/* The input is quiet: let each stage commit what it keeps for that. */
void cc_chain_idle(struct cc_chain *c);
/* Close every stage; the worst exit status among them. */
int cc_chain_close(struct cc_chain *c);
/*
 * The same for a process that exits right after: each stage commits and
 * reports as at close, but the memory is left to the exit, kept
 * reachable (LeakSanitizer stays quiet): freeing the rules, the texts and
 * the index's statements one by one was a tenth of a cold question's
 * instructions (issue 16).  A process that goes on uses cc_chain_close().
 */
int cc_chain_close_at_exit(struct cc_chain *c);

#endif
