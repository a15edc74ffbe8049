/*
 * cc_pipe.h: running the pipeline: the stage list (from the driver, or
 * CC_STAGES) and the stages started as one process group joined by pipes,
 * with no shell.
 *
 * Owns: the child processes and the pipe ends it returns.  Borrows: the
 * caller's environment, which the children inherit.
 */
#ifndef CC_PIPE_H
#define CC_PIPE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The stages of the pipeline, as program paths or names, in order: from
 * CC_STAGES (colon-separated) when set, else from `concierge stages
 * --path` (the driver beside this program, else in PATH), so the list is
 * written in one place.  NULL with a message in err; free with
 * cc_stages_free().
 */
char **cc_stages_find(size_t *n, char *err, size_t errlen);
void cc_stages_free(char **stages);
/* The program name of a stage path: "cc-route" for ".../src/cc-route". */
const char *cc_stage_name(const char *path);

/*
 * A running pipeline: stages exec'd directly (no shell), joined by pipes,
 * in a process group of their own.  Write records to `in`, read them from
 * `out`; both are close-on-exec, and so must be every other descriptor of
 * the caller that the stages should not inherit.
 */
#define CC_PIPE_MAX 16
struct cc_pipe {
	int in, out;		/* -1 once closed */
	pid_t pgid;
	pid_t pids[CC_PIPE_MAX];
	int status[CC_PIPE_MAX];	/* each stage's exit status, after finish */
	size_t n;
	int killed;
};
/*
 * Start stages[0..n).  env is NULL or a NULL-terminated list of name,
 * value pairs set in the children (CC_STATE_DIR, CC_NOW).  0, or -1 with
 * a message in err.
 */
int cc_pipe_start(struct cc_pipe *p, char *const *stages, size_t n,
	const char *const *env, char *err, size_t errlen);
/*
 * For a pipeline kept between records (cc-chat's): 1 while every stage
 * runs and `out` has nothing to read (an idle pipeline owes no output: a
 * readable end is a stage gone), else 0.  Reaps nothing, so
 * cc_pipe_finish still reports how each stage ended.
 */
int cc_pipe_alive(struct cc_pipe *p);
/* Cancel: SIGTERM to the whole group. */
void cc_pipe_kill(struct cc_pipe *p);
/*
 * Close what is still open, reap every stage and return the worst exit
 * status (the table above; a stage that could not be run counts as
 * CC_EXIT_USAGE, one killed by a signal we did not send or exiting with
 * a status outside the table as CC_EXIT_INTERNAL).
 */
int cc_pipe_finish(struct cc_pipe *p);

#endif
