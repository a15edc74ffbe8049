/*
 * cc_spawn.h: run a helper program (ctags, rg, the concierge driver) with
 * an argv array and no shell, bounded: a time limit after which its whole
 * process group is killed, and a cap on the output kept.
 *
 * Owns: the child until cc_spawn_run returns (it is always reaped).
 * Borrows: argv, the input text, the buffers it fills.
 */
#ifndef CC_SPAWN_H
#define CC_SPAWN_H

#include <stddef.h>

#include "cc_json.h"

struct cc_spawn {
	const char *dir;	/* working directory (NULL: ours) */
	const char *input;	/* written to its stdin (NULL: /dev/null) */
	size_t input_len;
	long timeout_ms;	/* <= 0: none */
	size_t out_cap;		/* bytes of stdout kept; past it the child is
				   killed and `truncated` set */
	size_t err_cap;		/* bytes of stderr kept (the rest dropped) */
	/* results */
	int status;		/* exit status, 128+signal when killed, -1 */
	int timed_out, truncated;
	int exec_errno;		/* set when the program could not be run */
};

/*
 * Run argv[0] (looked up in PATH when it has no '/') with argv; its stdout
 * into out, its stderr into err (NULL: dropped).  0 when it ran (see
 * s->status), -1 when it could not be started (s->exec_errno).  With
 * input, the caller ignores SIGPIPE: a child that exits without reading
 * it shows as a short write, not a signal.
 */
int cc_spawn_run(struct cc_spawn *s, char *const argv[], struct cc_buf *out,
	struct cc_buf *err);

#endif
