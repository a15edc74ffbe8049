/*
 * cc_vision.h: reading a worksheet photo with an OpenAI-compatible
 * vision model (chat completions with an image), when one is configured,
 * and checking what it answers.
 *
 * Owns: the endpoint, model and key read from the environment, and its
 * back-off.  Borrows: cc_http for the request, cc_sheet to check the
 * expressions the model writes.
 *
 * Configuration is the environment only, so the key is never on a
 * command line:
 *   CC_VISION_BASE_URL  ".../v1" (the endpoint is off when unset)
 *   CC_VISION_MODEL     default gpt-4o-mini
 *   CC_VISION_API_KEY   sent as a bearer token; never logged, never in
 *                       a message, wiped from memory on release
 *   CC_VISION_TIMEOUT   seconds for the whole request (default 60; the
 *                       connection gets at most 10)
 * TLS verification stays on (cc_http).  One retry after 429 or a 5xx;
 * an endpoint that timed out or cannot be reached is left alone for a
 * minute (cc_backoff).
 *
 * The model only reads: its reply is outside text, parsed strictly and
 * rebuilt into the seed's shape (cc_vision_parse_content):
 *   - the JSON may stand in a ```json fence, any ``` fence, or in prose
 *     (the first { to the last }); anything else, or JSON that is not an
 *     object, is an error;
 *   - problems must be a list when present (missing: []); an entry that
 *     is not an object with a non-empty text string is dropped;
 *   - type outside arithmetic, word_problem, kanji, reading, other
 *     becomes other; difficulty is rounded into 1-3 (missing: from the
 *     expression, else 1); an expression is rewritten into ASCII syntax
 *     by cc_sheet_arith() and becomes null when it is not arithmetic; a
 *     missing expression of an arithmetic problem is taken from its text
 *     when the text is one;
 *   - confidence is clamped to 0-1 (95 is read as 0.95; missing: 0);
 *   - needs_confirmation is the model's boolean (missing: true), and is
 *     true as well when anything above was dropped or rewritten, when
 *     confidence is below CC_VISION_CONFIRM_BELOW, or when there is no
 *     problem at all.
 */
#ifndef CC_VISION_H
#define CC_VISION_H

#include <stddef.h>

#include "cc_util.h"
#include "cc_json.h"

#define CC_VISION_CONFIRM_BELOW 0.8
#define CC_VISION_MAX_PROBLEMS 100
#define CC_VISION_MAX_TEXT 2000		/* bytes of one problem's text */

struct cc_vision {
	char *url;		/* CC_VISION_BASE_URL + /chat/completions */
	char *model;
	char *auth;		/* "Authorization: Bearer ...", or NULL */
	long timeout_ms;
	/* the last failure: timeout, unreachable, http_status, rate_limited,
	   too_large, failed, bad_response */
	const char *code;
	struct cc_backoff down;
};

/* 1 with v set up when CC_VISION_BASE_URL is set, else 0. */
int cc_vision_from_env(struct cc_vision *v);
void cc_vision_release(struct cc_vision *v);

/*
 * Ask the model about the image img[0..n) of type mime, with the system
 * prompt and, when subject is not NULL, a line naming the expected
 * subject.  Returns the checked result (owned), or jv_invalid() with
 * err set (and v->code).
 */
jv cc_vision_analyze(struct cc_vision *v, const char *prompt,
	const unsigned char *img, size_t n, const char *mime, const char *subject,
	char *err, size_t errlen);

/*
 * The readers, on their own so they can be tested and fuzzed without a
 * server.  cc_vision_parse_content: the model's text[0..n) to the checked
 * result (owned) or jv_invalid() with err.  cc_vision_parse_reply: the
 * same from a whole chat-completion body.
 */
jv cc_vision_parse_content(const char *text, size_t n, char *err, size_t errlen);
jv cc_vision_parse_reply(const char *body, size_t n, char *err, size_t errlen);

/* Append the base64 (standard, padded) of p[0..n) to b. */
void cc_vision_base64(struct cc_buf *b, const unsigned char *p, size_t n);

#endif
