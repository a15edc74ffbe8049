/*
 * cc_ask.h: the MCP tool "ask": one question answered through an
 * installed domain's pipeline, by running the concierge driver
 * (`concierge [--domain D] ask --json [--session S] -- TEXT`) with an
 * argument vector, a time limit (its process group killed past it) and an
 * output cap.  The domain is taken by name only (never a folder), the
 * session name and the question are single arguments after the options.
 *
 * jv ownership: borrows its arguments; the answer is owned by the caller.
 */
#ifndef CC_ASK_H
#define CC_ASK_H

#include <jv.h>

extern const char cc_ask_description[];
extern const char cc_ask_schema[];	/* JSON text: question, domain, session */

/*
 * Answer args {question, domain?, session?} (borrowed) with the driver at
 * `driver` (a path, or a name looked up in PATH): {answer, domain,
 * session, record}, the answer without the avatar's leading cue
 * ("[relaxed]"); or {error, message} (invalid_arguments, unavailable,
 * timeout, failed).  The caller ignores SIGPIPE.
 */
jv cc_ask(const char *driver, long timeout_ms, jv args);

#endif
