/*
 * cc_record.h: the NDJSON record stream (cc-record(5)): every stage is a
 * callback that owns one top-level key, and cc_record_run() does the rest
 * (reading, error records, pass-through, output, the exit status).
 *
 * Owns: the line being processed and what its accessors hand out, valid
 * until the stage returns.  Borrows: cc_json for checking and writing.
 */
#ifndef CC_RECORD_H
#define CC_RECORD_H

#include <jv.h>
#include <stddef.h>
#include <stdio.h>

#include "cc_json.h"

/*
 * One input record while a stage looks at it.  Read members through the
 * accessors: most records are never parsed into jv as a whole.
 */
struct cc_record {
	struct cc_json_doc doc;	/* the line, checked and compacted */
	jv whole;		/* the parsed record when the text cannot be
				   spliced (a bare string, needs_rewrite);
				   otherwise jv_invalid() */
	jv held;		/* strings handed out by cc_record_str() */
	unsigned long line;	/* physical input line, from 1 */
	/*
	 * The last member found by a walk below the indexed levels
	 * (route.debug_info.session, read by cc-respond twice a record):
	 * in the object text at walk_in, name walk_key, the value's text.
	 * Valid for the record being processed only.
	 */
	const char *walk_in, *walk_v;
	size_t walk_in_len, walk_len;
	char walk_key[32];
	/*
	 * The last long members read whole (cc_record_get), by their text:
	 * a value is a function of its text alone, and cc-respond reads the
	 * same week of events, a few kB, record after record.  Sixteen:
	 * a run asks for a few ranges of events, and each question's route
	 * passes through the memo too; with four, the events were read anew
	 * at most records (and the answer's list of them written anew).
	 */
	struct cc_record_memo {
		char *text;
		size_t len;
		jv v;
	} memo[16];
	unsigned memo_next;
	const char *fail_code;	/* set by cc_record_fail() */
	char fail_message[256];
};

/* The member `key` as an owned jv, or jv_invalid() when it is absent. */
jv cc_record_get(struct cc_record *rec, const char *key);
int cc_record_has(struct cc_record *rec, const char *key);
/*
 * The string member `key`, or NULL when absent or not a string.  The bytes
 * are valid UTF-8 but not NUL-terminated; use *len.  Valid until the stage
 * returns.
 */
const char *cc_record_str(struct cc_record *rec, const char *key, size_t *len);
/* The compact JSON text of member `key`, or NULL; valid until it returns. */
const char *cc_record_raw(struct cc_record *rec, const char *key, size_t *len);
/*
 * The same for a dotted path of object members ("route.debug_info.session"):
 * only the value at the end is parsed (cc_record_at), so reading
 * route.agent does not pay for parsing the whole route.
 */
jv cc_record_at(struct cc_record *rec, const char *path);
const char *cc_record_raw_at(struct cc_record *rec, const char *path, size_t *len);
/*
 * cc_json_members() on raw[0..len), the text cc_record_raw(rec, key)
 * gave: the same values, read from the scan's index of key's members
 * when there is one rather than by walking the text (a route's debug
 * trace, skipped by every stage that reads route.agent).
 */
int cc_record_members(struct cc_record *rec, const char *key, const char *raw,
	size_t len, const char *const keys[], const char *vals[], size_t lens[]);
/* The query, or NULL. */
#define cc_record_query(rec, len) cc_record_str((rec), "query", (len))
/*
 * The record's session: session_id, or the specs' sessionId; a number as
 * its JSON text; an empty string or one holding NUL is none.  Owned
 * (free), or NULL.
 */
char *cc_record_session_id(struct cc_record *rec);

/* What a stage did with a record. */
enum cc_outcome {
	CC_RECORD_PASS,		/* nothing to do: pass it through unchanged */
	CC_RECORD_SET,		/* the stage wrote its key's value */
	CC_RECORD_FAIL,		/* cannot process it: see cc_record_fail() */
};

/*
 * Mark the record as one the stage cannot process: it is passed on with an
 * "error" member {stage, code, message, line}, a message goes to stderr,
 * and the run ends with CC_EXIT_DATA.  Returns CC_RECORD_FAIL.
 */
enum cc_outcome cc_record_fail(struct cc_record *rec, const char *code,
	const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * A stage: process() reads the record and, to set its key, writes exactly
 * one JSON value to `out` and returns CC_RECORD_SET.  It is never called
 * for records that already carry an "error".  A NULL process() passes
 * every record on (a stage whose domain does not run it).
 */
struct cc_stage {
	const char *name;	/* program name, recorded in error records */
	const char *key;	/* the top-level key this stage owns */
	int unbuffered;		/* flush after every record */
	enum cc_outcome (*process)(void *ctx, struct cc_record *rec,
	    struct cc_jw *out);
	/*
	 * Optional: called whenever output is flushed (after every record when
	 * interactive, and at the end), so a stage can make what it wrote
	 * elsewhere (the session store) visible at the same moment.
	 */
	void (*flush)(void *ctx);
	/*
	 * Optional: called at the end, and when no input has come for
	 * CC_RECORD_IDLE_MS with nothing left to hand on: for writes no later
	 * stage waits for (cc-respond's answers), so they are committed in
	 * batches rather than with every record, yet never held while the
	 * stream is quiet.
	 */
	void (*idle)(void *ctx);
	/*
	 * Optional: write this instead of the record when process() set the
	 * key (cc-respond --text); `value` is the key's JSON text.  Records it
	 * did not set are then not written at all.
	 */
	void (*render)(void *ctx, const char *value, size_t len, struct cc_buf *line);
	void *ctx;
	/*
	 * Set by the caller before close when the process ends right after
	 * (cc_chain_close_at_exit): close still commits what outlives the
	 * process (the session store) and returns its verdict, but leaves
	 * the memory, reachable through ctx, to the exit.
	 */
	int leave;
};

#define CC_RECORD_IDLE_MS 20
/* Read records from `in`, write them to `out`; returns the exit status. */
int cc_record_run(struct cc_stage *stage, FILE *in, FILE *out);

/*
 * The same stream a line at a time, for a caller that runs stages in one
 * process (cc_chain.c): each line gives the output line cc_record_run()
 * would have written for it, with its newline (nothing for a blank line,
 * or a render() that wrote nothing), appended to out; the stage's flush()
 * has run when it returns, as before a record is handed on.  The caller
 * calls stage->idle() when its input is quiet.  Free returns the exit
 * status cc_record_run() would have returned (after idle() and flush(),
 * as at its end).  Borrows the stage.
 */
struct cc_record_stream;
struct cc_record_stream *cc_record_stream_new(struct cc_stage *stage);
void cc_record_stream_line(struct cc_record_stream *s, const char *line,
	size_t len, struct cc_buf *out);
int cc_record_stream_free(struct cc_record_stream *s);
/*
 * cc_record_stream_line() for stages chained in one process, without
 * writing a record out and reading it again between them: s reads line
 * (NULL: the record the stage before handed it), and hands its output
 * to next, as the checked and indexed record next would have read from
 * the line when it can (s set its key, or passed the record on), else as
 * the line; with next NULL, the output line is appended to out.  What
 * every stage does with the record is what it would do with the line.
 * Returns 0 when s wrote nothing (a blank line).
 */
int cc_record_stream_pass(struct cc_record_stream *s, const char *line,
	size_t len, struct cc_record_stream *next, struct cc_buf *out);
/*
 * The next line given to the stream is input line n (from 1), as if the
 * lines before it had come: a caller that hands a stage only some of a
 * stream's records (cc_run.c's workers) keeps the line numbers of its
 * error records those of the whole stream.
 */
void cc_record_stream_seek(struct cc_record_stream *s, unsigned long n);
/*
 * Leave the stage's flush() to the caller from here on, rather than run
 * it after every record: for stages whose later stages read what it
 * wrote elsewhere through the same connection (cc_chain.h's batches),
 * where a commit a record cost more than the record.  Free still runs it.
 */
void cc_record_stream_hold(struct cc_record_stream *s);
/*
 * The session of the input line[0..len) as a stage reads it from the
 * record (cc_record_session_id), or NULL when there is none or the line
 * is no record; owned.  For a caller that must keep a session's records
 * together before any stage has seen them.  doc is the caller's, reused
 * from line to line (cc_json_doc_release frees it).
 */
char *cc_record_line_session(struct cc_json_doc *doc, const char *line,
	size_t len);

#endif
