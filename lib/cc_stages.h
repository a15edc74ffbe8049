/*
 * cc_stages.h: the stages of the general pipeline as library modules
 * (cc-detect-lang, cc-route, cc-event, cc-rag, cc-respond), so that a
 * program can run one over a stream (the stage programs: main, options,
 * cc_record_run) or several in one process (cc_chain.h).
 *
 * Each open fills the caller's struct cc_stage (name, key, process and
 * hooks, ctx; `unbuffered` is left as the caller set it) from the
 * configuration in the environment and the options, exactly as the
 * program did before its records.  It returns 0, or the exit status the
 * program ends with and the message it ends with in err (the
 * program's own die).  What the domain's files or the library find wrong
 * at open still ends the process (cc_domain_load, cc_kb_dirs_check), as
 * it did.  Each close frees what open made and returns the exit status
 * for a run that cc_record_run ended with `status` (a stage adds its own
 * verdicts: an upstream that failed, an index that could not be searched).
 * With stage->leave set, close does all of that but frees nothing (see
 * cc_record.h).  A stage whose open failed is not closed.
 *
 * Messages go through cc_warn under cc_progname: a caller that runs
 * several stages in one process names the stage in it (cc_chain.c).
 */
#ifndef CC_STAGES_H
#define CC_STAGES_H

#include <stddef.h>

#include "cc_record.h"
#include "cc_event.h"
#include "cc_session.h"

int cc_detect_open(struct cc_stage *stage, char *err, size_t errlen);
int cc_detect_close(struct cc_stage *stage, int status);

struct cc_route_options {
	const char *rules_path;	/* NULL: the domain's routing.rules */
	const char *window;	/* seconds, as given; NULL: CC_MEMORY_WINDOW */
	int no_memory, no_classifier;
	/*
	 * Stages in one process (cc_chain.c): the session store they share,
	 * or NULL.  cc-route opens it (CC_SESSION_BATCH) at its first use
	 * and leaves it there; cc-respond uses it when it is there.  The
	 * caller closes it after both stages.
	 */
	struct cc_session **shared;
};
int cc_route_open(struct cc_stage *stage, const struct cc_route_options *o,
	char *err, size_t errlen);
int cc_route_close(struct cc_stage *stage, int status);
/*
 * --learn: the router model learnt from the domain's examples, and where
 * it went, on stdout; the exit status, or minus the status the program
 * dies with and the message in err (a bad option).
 */
int cc_route_learn(const struct cc_route_options *o, char *err, size_t errlen);

struct cc_event_stage_options {
	struct cc_event_options eo;	/* ics: borrowed until close */
	const char *now;	/* --now, ISO 8601; NULL: CC_NOW or the clock */
};
int cc_event_open(struct cc_stage *stage, const struct cc_event_stage_options *o,
	char *err, size_t errlen);
int cc_event_close(struct cc_stage *stage, int status);

struct cc_rag_options {
	const char *db;		/* NULL: the default index */
	const char **kb;	/* document folders; borrowed during open */
	size_t nkb;
	size_t limit, context_chars;
	int no_cache;
};
#define CC_RAG_OPTIONS_INIT { .limit = 10, .context_chars = 4000 }
int cc_rag_open(struct cc_stage *stage, const struct cc_rag_options *o,
	char *err, size_t errlen);
int cc_rag_close(struct cc_stage *stage, int status);
/*
 * Start opening the index cc_rag_open(o) will open, on a second thread
 * (cc_kb_open_ahead); call it only once a stage's open has accepted the
 * configuration (CC_DOMAIN and the like), and cc_kb_ahead_end() after
 * the stages are open.
 */
void cc_rag_open_ahead(const struct cc_rag_options *o);

struct cc_respond_options {
	int text, no_emotion, camel, no_memory;
	int no_stream;		/* leave CC_STREAM_FD alone: no one reads it */
	struct cc_session **shared;	/* as cc_route_options' */
};
int cc_respond_open(struct cc_stage *stage, const struct cc_respond_options *o,
	char *err, size_t errlen);
int cc_respond_close(struct cc_stage *stage, int status);

#endif
