/*
 * cc_run.h: `concierge run` without a process for every stage: a stream
 * of NDJSON records through the domain's stages chained in one process
 * (cc_chain.h), or in a few worker processes so that every core works.
 *
 * What comes out is what the stage processes of a shell pipeline write,
 * byte for byte and in input order: one line per record, the same error
 * records (with the line numbers of the whole stream), the messages named
 * after each stage's program, and the worst of the stages' exit statuses.
 * Workers split the records: every record of one session goes to the
 * same worker, in input order, so session memory sees a conversation as
 * one pipeline would; records without a session go to the worker with
 * the least work waiting.
 *
 * Owns: the worker processes and the pipes to them, until cc_run returns.
 */
#ifndef CC_RUN_H
#define CC_RUN_H

#include <stddef.h>

#include "cc_config.h"
#include "cc_domain.h"

/*
 * The stage names of the configured domain's pipeline when the library
 * can run them all in one process, as cc-chat decides for a question:
 * the number of them, copied into names (pointers into *d, which the
 * caller frees with cc_domain_free), or 0 when processes must run them:
 * the caller set CC_STAGES, an LLM is configured, the manifest has a
 * problem (the processes say what) or names a stage the library does
 * not have.
 */
size_t cc_run_stages(const struct cc_config *cfg, struct cc_domain **d,
	char *names[CC_DOMAIN_MAX_STAGES]);

/* 1 if the stages open here (nothing is said when one cannot). */
int cc_run_opens(char *const *names, size_t n);

#define CC_RUN_MAX_WORKERS 16
struct cc_run_options {
	int unbuffered;		/* hand every record on at once */
	unsigned workers;	/* 0: one a core, at most CC_RUN_MAX_WORKERS */
};
/*
 * Run the stages over the records of descriptor in, writing to out; the
 * exit status the shell pipeline would end with.  A reader of out that
 * leaves ends the process with SIGPIPE, as it ends the pipeline's last
 * stage.
 */
int cc_run(char *const *names, size_t n, const struct cc_run_options *o,
	int in, int out);

#endif
