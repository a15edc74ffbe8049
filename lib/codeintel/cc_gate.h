/*
 * cc_gate.h: seed 003's phase gate.  A coding agent's session goes
 * EXPLORATION -> SEMANTIC -> VERIFICATION -> READY, and the gate decides
 * each step from what the agent submits, never from what it says of
 * itself: the tools below, with the original server's names, arguments
 * and input schemas (cc-gate(1) lists every difference).
 *
 * Two layers:
 *   - the tools, cc_gate_<tool>(): functions of their arguments and of
 *     the session's state, both jv; they touch no store and no file, so
 *     they are tested and fuzzed alone.  What a call decides for the
 *     logs is left in ctx->logs for the caller to write.
 *   - cc_gate_call(): one call against the session store
 *     (cc_session_state_*, state "gate"): the session is read and
 *     replaced in one transaction, then the DecisionLog and OutcomeLog
 *     lines are appended under the log directory.  cc-gate(1) and the
 *     MCP server use this.
 *
 * jv ownership: "borrows" leaves the caller's value alone; "consumes"
 * takes it; every jv returned is owned by the caller.
 *
 * Owns: the loaded gate (struct cc_gate) and what it allocates.  Borrows:
 * the session store, the repository it is told to check evidence in.
 */
#ifndef CC_GATE_H
#define CC_GATE_H

#include <jv.h>
#include <stddef.h>
#include <time.h>

struct cc_session;
struct cc_gate;

/*
 * Load the gate's data: conf (gate.conf: phases, reasons, intents) and,
 * from the directory frame_dir, the QueryFrame's data cc-frame(1) reads
 * too (synonyms, guidance, requirements; code-intel(5)).  NULL with err
 * set on the first problem ("path:line: why").
 */
struct cc_gate *cc_gate_load(const char *conf, const char *frame_dir, char *err,
	size_t errlen);
void cc_gate_free(struct cc_gate *g);
/*
 * Check evidence against the repository at dir (its real path is kept):
 * submitted files must exist under it, symbols must occur in them, entry
 * points must resolve.  0, or -1 with err set (no such directory).
 */
int cc_gate_set_repo(struct cc_gate *g, const char *dir, char *err, size_t errlen);
/* Where cc_gate_call() appends decisions.ndjson and outcomes.ndjson. */
void cc_gate_set_log_dir(struct cc_gate *g, const char *dir);
/*
 * Or: append them to the session store's logs (cc_session_log), when the
 * store keeps logs (PostgreSQL, shared by every machine) and no log
 * folder was asked for.
 */
void cc_gate_set_log_store(struct cc_gate *g);

/* One call's context: the gate, the session it is for, what it logs. */
struct cc_gate_ctx {
	struct cc_gate *gate;
	const char *session_id;	/* start_session: the new session's id
				   (NULL: made from the time, as the original
				   did); other tools read it from the state */
	jv logs;		/* filled by the tool: [{"log": "decisions" or
				   "outcomes", "line": {...}}]; start with
				   jv_array(), free when done */
	const char *nonce;	/* makes the call's record ids unique across
				   processes and restarted sessions
				   (cc_gate_call: random hex); NULL: none */
};

/*
 * The tools.  Each takes its arguments as an object (borrowed) and the
 * session's state (*session: jv_null() when there is none; on return the
 * new state, which the caller stores when it changed), and returns the
 * answer the agent sees.  An answer with an "error" member (and no
 * "allowed") is an error answer: cc_gate_is_error().
 *
 * get_outcome_stats takes the outcome statistics as its state instead of
 * a session; record_outcome's session is the one named by its
 * "session_id" argument.
 */
jv cc_gate_start_session(struct cc_gate_ctx *c, jv args, jv *session, time_t now);
jv cc_gate_set_query_frame(struct cc_gate_ctx *c, jv args, jv *session, time_t now);
jv cc_gate_get_session_status(struct cc_gate_ctx *c, jv args, jv *session, time_t now);
jv cc_gate_submit_understanding(struct cc_gate_ctx *c, jv args, jv *session, time_t now);
jv cc_gate_submit_semantic(struct cc_gate_ctx *c, jv args, jv *session, time_t now);
jv cc_gate_submit_verification(struct cc_gate_ctx *c, jv args, jv *session, time_t now);
jv cc_gate_check_write_target(struct cc_gate_ctx *c, jv args, jv *session, time_t now);
jv cc_gate_record_outcome(struct cc_gate_ctx *c, jv args, jv *session, time_t now);
jv cc_gate_get_outcome_stats(struct cc_gate_ctx *c, jv args, jv *stats, time_t now);

/*
 * Any other tool (find_definitions, devrag_search, ...): the gate does
 * not run it, it lets it through or not.  cc_gate_allowed() answers
 * jv_null() when the session's phase allows the tool (or there is no
 * session), else the phase_blocked answer; borrows session.
 * cc_gate_use() does that and records an allowed call in the session
 * (tools_used counts towards submit_understanding); `result`, borrowed,
 * is the tool's own answer when the caller ran it (jv_null() when not):
 * it gives the call's result summary as the original's did.
 */
jv cc_gate_allowed(struct cc_gate *g, const char *tool, jv session);
jv cc_gate_use(struct cc_gate_ctx *c, const char *tool, jv args, jv result,
	jv *session, time_t now);
/* 1 if the gate knows `tool` (its own or a phase's), else 0. */
int cc_gate_knows(const struct cc_gate *g, const char *tool);

/*
 * 1 if a stored session (borrowed) has what the gate needs to read it (an
 * object with string session_id, intent, query and a known phase), else 0
 * with why: cc_gate_call() answers corrupt_session then.
 */
int cc_gate_session_check(jv session, char *why, size_t whylen);

/* 1 if `answer` (borrowed) is an error answer (cc-gate exits 3). */
int cc_gate_is_error(jv answer);

/* ---- the registry: what an MCP server lists and calls ---- */
typedef jv (*cc_gate_fn)(struct cc_gate_ctx *c, jv args, jv *session, time_t now);

#define CC_GATE_NEW_SESSION 1	/* start_session: makes the session */
#define CC_GATE_SESSION_ARG 2	/* record_outcome: args.session_id's session */
#define CC_GATE_STATS 4		/* get_outcome_stats: the statistics, no session */

struct cc_gate_tool {
	const char *name;
	const char *description;	/* the original's */
	const char *input_schema;	/* JSON text: the original's, with the
					   additions cc-gate(1) lists */
	cc_gate_fn fn;
	unsigned flags;
};
extern const struct cc_gate_tool cc_gate_tools[];
extern const size_t cc_gate_ntools;
/* The gate tool named, or NULL. */
const struct cc_gate_tool *cc_gate_tool(const char *name);
/* {"tools": [{name, description, inputSchema}, ...]}: MCP's tools/list. */
jv cc_gate_tools_list(void);

/* ---- against the store ---- */
/*
 * Call `tool` with args (an object, or a JSON text of one as a string;
 * borrowed) for session `sid` (NULL when none was given), against the
 * store: the session is read and replaced in one transaction
 * (cc_session_state_begin), then the log lines are appended.  `result`
 * (borrowed, jv_null() if none) is an exploration tool's own answer.
 * *sid_out, when not NULL, gets the session's id (malloc'd; start_session
 * makes one when sid is NULL) or NULL.  Returns the answer; *status is 0,
 * 3 for an error answer, 5 when the store failed (the answer says so).
 */
jv cc_gate_call(struct cc_gate *g, struct cc_session *store, const char *tool,
	jv args, jv result, const char *sid, time_t now, char **sid_out, int *status);
/*
 * Before running a tool the gate does not run (an MCP server's
 * find_definitions): jv_null() when session sid's phase lets it through (or
 * there is no such session), else the answer to give instead
 * (phase_blocked, unknown_tool, corrupt_session).  Then, with the tool's
 * answer, cc_gate_call() records the call.
 */
jv cc_gate_check(struct cc_gate *g, struct cc_session *store, const char *tool,
	const char *sid);
/* The phase of session sid in the store ("READY"), NULL if none; malloc'd. */
char *cc_gate_phase_of(struct cc_session *store, const char *sid);

/* Limits on what an agent may submit (invalid_arguments beyond them). */
#define CC_GATE_MAX_ARGS (1024 * 1024)	/* the arguments' JSON text */
#define CC_GATE_MAX_ITEMS 1000		/* items in one list */
#define CC_GATE_MAX_NAME 4096		/* a symbol, a path, a slot value */
#define CC_GATE_MAX_TEXT (256 * 1024)	/* a query, notes, a hypothesis */
#define CC_GATE_MAX_SESSION_ID 256

#endif
