/*
 * cc_llm.h: an optional LLM: one OpenAI-compatible chat-completion client,
 * plain or streamed (cc-respond(1) ENVIRONMENT).
 *
 * Owns: the endpoint, model and key read from the environment, and its
 * back-off.  Borrows: cc_http for the requests.
 */
#ifndef CC_LLM_H
#define CC_LLM_H

#include <stddef.h>

#include "cc_util.h"
#include "cc_json.h"

struct cc_llm {
	char *url;		/* CC_LLM_BASE_URL + /chat/completions */
	char *model;		/* CC_LLM_MODEL */
	char *auth;		/* "Authorization: Bearer " CC_LLM_API_KEY, or NULL */
	long timeout_ms;	/* CC_LLM_TIMEOUT_MS, default 20000 */
	/* the last failure: timeout, unreachable, http_status, rate_limited,
	   too_large, failed (network), bad_response, cut_off (a stream) */
	const char *code;
	struct cc_backoff down;
};
/* 1 and l set up when CC_LLM_BASE_URL is set, else 0. */
int cc_llm_from_env(struct cc_llm *l);
/*
 * An OpenAI-compatible chat endpoint from PREFIX_BASE_URL, PREFIX_MODEL
 * (default gpt-4o-mini) and PREFIX_API_KEY: *url its chat-completions
 * URL, *model, and *auth the "Authorization: Bearer" header or NULL, all
 * malloc'd.  1 when PREFIX_BASE_URL is set, else 0 (nothing set).  Keys
 * are read from the environment only.
 */
int cc_llm_endpoint_from_env(const char *prefix, char **url, char **model,
	char **auth);
/*
 * A client from PREFIX_BASE_URL, PREFIX_MODEL, PREFIX_API_KEY and
 * PREFIX_TIMEOUT_MS, for a stage with an endpoint of its own
 * (cc_llm_from_env is prefix CC_LLM).
 */
int cc_llm_from_env_prefix(struct cc_llm *l, const char *prefix);
void cc_llm_release(struct cc_llm *l);
/*
 * One chat completion (max 500 tokens; one retry after 429, 5xx or a
 * timeout).  0 with the text appended to out, or -1 with a reason that
 * never contains the key.
 */
int cc_llm_chat(struct cc_llm *l, const char *system, const char *user,
	struct cc_buf *out, char *err, size_t errlen);
/*
 * The same, streamed ("stream": true, server-sent events): delta() gets
 * each piece of text as it comes.  A stream that ends without its final
 * "[DONE]" is a failure (cut off); nothing is retried once text came.
 */
int cc_llm_chat_stream(struct cc_llm *l, const char *system,
	const char *user, struct cc_buf *out, char *err, size_t errlen,
	void (*delta)(const char *s, size_t n, void *arg), void *arg);

/*
 * The readers of the answers, on their own so they can be tested and
 * fuzzed without a server.  cc_llm_parse_reply: choices[0].message.content
 * of a chat-completion body[0..len) (len below 2 GiB) appended to out; 0,
 * or -1 with a reason.
 */
int cc_llm_parse_reply(const char *body, size_t len, struct cc_buf *out,
	char *err, size_t errlen);
/*
 * A streamed answer being read: cc_llm_stream_feed() takes the body in
 * pieces as they come (split anywhere, arg is the stream) and appends each
 * "data: {...}" line's choices[0].delta.content to out, also handing it to
 * delta() when set.  Zero it, set out, delta and arg; free line with
 * cc_buf_release() when done.
 */
struct cc_llm_stream {
	struct cc_buf line;	/* a line still coming */
	struct cc_buf *out;
	void (*delta)(const char *s, size_t n, void *arg);
	void *arg;
	int done;		/* "data: [DONE]" seen */
	int bad;		/* an event that is not the expected JSON */
	int events;		/* "data:" lines seen */
};
void cc_llm_stream_feed(const char *p, size_t n, void *arg);

#endif
