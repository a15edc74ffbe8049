/*
 * cc_http.h: the one HTTP client (libcurl, loaded on first use) every
 * outside service goes through: time limits, size caps, TLS verification,
 * a disk cache with revalidation, rate spacing across processes.
 *
 * Owns: libcurl's global state and the response bodies it returns.
 * Borrows: the headers and keys a caller passes, which it never logs.
 */
#ifndef CC_HTTP_H
#define CC_HTTP_H

#include <stddef.h>

#include "cc_json.h"

/*
 * A small libcurl client for every program that talks to the outside
 * (iCalendar URLs and connpass now; web search and an LLM later).
 * Contract:
 *   - libcurl is initialised once, on first use; cc_http_cleanup() at exit.
 *   - Connect and total timeouts always apply; the body is capped at
 *     max_bytes (after decompression); only http and https, TLS
 *     verification on; redirects only when asked, never with secret
 *     headers.
 *   - A status other than 2xx (or 304 on revalidation) is a failure.
 *   - Headers may hold secrets (API keys from the environment): they are
 *     sent, never logged, never cached, never put in messages.  Messages
 *     name a URL only as scheme://host/... (cc_http_redact).
 *   - GET answers are cached on disk under cc_http_cache_dir() when a
 *     cache_key is given: a copy younger than max_age seconds is used
 *     without asking; an older one is revalidated with If-None-Match /
 *     If-Modified-Since (304 keeps it); when the fetch fails, the stale
 *     copy is still returned, marked stale, with the error set.
 *   - Requests with the same rate_key are spaced at least min_interval_ms
 *     apart, across processes (a lock file in the cache directory).
 */
struct cc_http_request {
	const char *url;
	const char *const *headers;	/* "Name: value", NULL-terminated */
	int secret_headers;		/* headers hold a key: no redirects */
	const char *body;		/* POST body, or NULL for GET */
	size_t body_len;
	long connect_timeout_ms;	/* 0: 5000 */
	long timeout_ms;		/* 0: 15000 */
	size_t max_bytes;		/* 0: 8 MiB */
	int follow_redirects;		/* up to 5, http(s) only */
	const char *cache_key;		/* NULL: no cache; never a secret */
	long max_age;			/* seconds a cached copy is fresh */
	const char *rate_key;		/* NULL: no spacing */
	long min_interval_ms;
	/* optional: each piece of the body as it arrives (streamed answers) */
	void (*on_data)(const char *p, size_t n, void *arg);
	void *on_data_arg;
};

struct cc_http_response {
	long status;			/* HTTP status of the last answer, 0: none */
	struct cc_buf body;		/* the body used (fresh, cached or stale) */
	int from_cache;			/* body came from the cache (fresh or 304) */
	int stale;			/* body is a stale copy kept after a failure */
	const char *error_code;		/* NULL on success; "timeout", "connect",
					   "network", "http_status",
					   "rate_limited", "too_large" */
	char error[256];		/* what failed, safe to show */
};

/* Fetch; 0 on success, -1 with res->error_code set (res->body may still
 * hold a stale copy).  Release res with cc_http_response_release(). */
int cc_http_fetch(const struct cc_http_request *req, struct cc_http_response *res);
void cc_http_response_release(struct cc_http_response *res);
void cc_http_cleanup(void);
/* CC_CACHE_DIR, else $XDG_CACHE_HOME/concierge, else ~/.cache/concierge
 * (fresh string). */
char *cc_http_cache_dir(void);
/* "https://host/..." for messages (fresh string). */
char *cc_http_redact(const char *url);
/* Append s percent-encoded for a URL query. */
void cc_http_urlencode(struct cc_buf *b, const char *s);

#endif
