/*
 * cc_kbnet.h: the outside services of the knowledge base: web search
 * (seed 002's generalWebSearch) and embeddings, both off unless
 * configured in the environment.
 *
 * Owns: the hits and vectors it returns and each service's back-off.
 * Borrows: cc_http for every request, the environment for URLs and keys.
 */
#ifndef CC_KBNET_H
#define CC_KBNET_H

#include <stddef.h>

#include "cc_util.h"
#include "cc_kb.h"

/*
 * Outside services of the knowledge base (cc_kbnet.c, over cc_http_fetch),
 * both off unless configured in the environment.  Failures return -1 with
 * a short code (timeout, unreachable, http_status, rate_limited,
 * too_large, bad_response, failed)
 * and a message that never holds a key.
 *
 * Web search (seed 002 generalWebSearch), SearXNG's JSON API shape:
 *   CC_WEB_SEARCH_URL      e.g. http://127.0.0.1:8888/search (GET
 *                          ?q=...&format=json&language=ja|en)
 *   CC_WEB_SEARCH_API_KEY  sent as "Authorization: Bearer"; optional
 *   CC_WEB_SEARCH_TIMEOUT  seconds (default 3); CC_WEB_SEARCH_LIMIT (5)
 */
struct cc_websearch {
	const char *url, *key;
	long timeout_ms;
	size_t limit;
	struct cc_backoff down;
};
struct cc_web_hit {
	char *title, *url, *content;
};
/* 1 if configured, 0 if not; dies with CC_EXIT_USAGE on a bad value. */
int cc_websearch_init(struct cc_websearch *ws);
void cc_websearch_release(struct cc_websearch *ws);
/* 1 if the query has one of the spec's web-search keywords. */
int cc_websearch_wanted(const char *q, size_t len);
int cc_websearch_query(struct cc_websearch *ws, const char *q, size_t len,
	const char *lang, struct cc_web_hit **hits, size_t *nhits,
	const char **code, char *err, size_t errlen);
/*
 * The reading half of cc_websearch_query(), on its own so it can be tested
 * and fuzzed without a server: the hits (at most limit) of a SearXNG JSON
 * answer body[0..len) (len below 2 GiB; body may be NULL when len is 0).
 * 0, or -1 with *code "bad_response" and a message.
 */
int cc_websearch_parse(const char *body, size_t len, size_t limit,
	struct cc_web_hit **hits, size_t *nhits, const char **code, char *err,
	size_t errlen);
void cc_web_hits_release(struct cc_web_hit *h, size_t n);

/*
 * Embeddings, an OpenAI-compatible POST <base>/embeddings:
 *   CC_EMBED_BASE_URL  e.g. http://127.0.0.1:8080/v1
 *   CC_EMBED_MODEL     required with the URL
 *   CC_EMBED_API_KEY   sent as "Authorization: Bearer"; optional
 *   CC_EMBED_TIMEOUT   seconds (default 10)
 */
struct cc_embed {
	const char *base, *key;
	long timeout_ms;
	struct cc_kb_embedder embedder;	/* for cc_kb_build() */
	const char *code;	/* the last failure's code, or NULL */
	struct cc_backoff down;
};
int cc_embed_init(struct cc_embed *e);
void cc_embed_release(struct cc_embed *e);
/* The cc_kb_embedder function; ctx is the struct cc_embed. */
int cc_embed_texts(void *ctx, const char *const *texts, size_t n,
	float **vecs, int *dim, char *err, size_t errlen);
/*
 * The reading half of cc_embed_texts(): n vectors of one dimension from an
 * embeddings answer body[0..len) (len below 2 GiB), placed by their
 * "index".  0 with *vecs (malloc'd, n * *dim floats; NULL when n is 0),
 * or -1 with a message.
 */
int cc_embed_parse(const char *body, size_t len, size_t n, float **vecs,
	int *dim, char *err, size_t errlen);

#endif
