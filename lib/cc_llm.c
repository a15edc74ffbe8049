/*
 * An optional OpenAI-compatible chat-completions client.  The LLM only
 * writes prose: what it writes is checked by the caller and replaced by the
 * composed answer when the call fails or the check does (seed 003: the LLM
 * does not decide).
 *
 * Configuration is the environment only, so the key is never on a command
 * line: CC_LLM_BASE_URL (".../v1"), CC_LLM_MODEL, CC_LLM_API_KEY (sent as
 * a bearer token, never logged, never cached), CC_LLM_TIMEOUT_MS.  An
 * endpoint that timed out or cannot be reached is left alone for a minute
 * (cc_backoff): each record meanwhile fails at once instead of waiting
 * twice its time limit.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_llm.h"
#include "cc_http.h"

#define MAX_TOKENS 500		/* seed 002: LLM generation within 500 tokens */
#define ATTEMPTS 2		/* one retry after 429, 5xx or a timeout */

/* PREFIX_NAME from the environment, or NULL when unset or empty. */
static const char *
env2(const char *prefix, const char *name)
{
	char var[64];
	const char *v;

	snprintf(var, sizeof var, "%s_%s", prefix, name);
	v = getenv(var);
	return v && *v ? v : NULL;
}

int
cc_llm_endpoint_from_env(const char *prefix, char **url, char **model, char **auth)
{
	const char *base = env2(prefix, "BASE_URL"), *m = env2(prefix, "MODEL");
	const char *key = env2(prefix, "API_KEY");
	size_t n;

	*url = *model = *auth = NULL;
	if (!base)
		return 0;
	n = strlen(base);
	while (n && base[n - 1] == '/')
		n--;
	*url = cc_xmalloc(n + sizeof "/chat/completions");
	memcpy(*url, base, n);
	strcpy(*url + n, "/chat/completions");
	*model = cc_xstrdup(m ? m : "gpt-4o-mini");
	if (key) {
		*auth = cc_xmalloc(strlen(key) + sizeof "Authorization: Bearer ");
		strcpy(*auth, "Authorization: Bearer ");
		strcat(*auth, key);
	}
	return 1;
}

int
cc_llm_from_env(struct cc_llm *l)
{
	return cc_llm_from_env_prefix(l, "CC_LLM");
}

int
cc_llm_from_env_prefix(struct cc_llm *l, const char *prefix)
{
	const char *t = env2(prefix, "TIMEOUT_MS");

	memset(l, 0, sizeof *l);
	if (!cc_llm_endpoint_from_env(prefix, &l->url, &l->model, &l->auth))
		return 0;
	l->timeout_ms = t && atol(t) > 0 ? atol(t) : 20000;
	return 1;
}

void
cc_llm_release(struct cc_llm *l)
{
	free(l->url);
	free(l->model);
	if (l->auth) {	/* the key: do not leave it in freed memory */
		memset(l->auth, 0, strlen(l->auth));
		free(l->auth);
	}
	memset(l, 0, sizeof *l);
}

static void
request_body(const struct cc_llm *l, const char *system, const char *user,
    int stream, struct cc_buf *b)
{
	struct cc_jw w;

	cc_jw_init(&w, b);
	cc_jw_object(&w);
	cc_jw_key(&w, "model");
	cc_jw_cstr(&w, l->model);
	if (stream) {
		cc_jw_key(&w, "stream");
		cc_jw_bool(&w, 1);
	}
	cc_jw_key(&w, "max_tokens");
	cc_jw_num(&w, MAX_TOKENS);
	cc_jw_key(&w, "temperature");
	cc_jw_num(&w, 0.3);
	cc_jw_key(&w, "messages");
	cc_jw_array(&w);
	cc_jw_object(&w);
	cc_jw_key(&w, "role");
	cc_jw_cstr(&w, "system");
	cc_jw_key(&w, "content");
	cc_jw_cstr(&w, system);
	cc_jw_end(&w);
	cc_jw_object(&w);
	cc_jw_key(&w, "role");
	cc_jw_cstr(&w, "user");
	cc_jw_key(&w, "content");
	cc_jw_cstr(&w, user);
	cc_jw_end(&w);
	cc_jw_end(&w);
	cc_jw_end(&w);
}

int
cc_llm_parse_reply(const char *body, size_t len, struct cc_buf *out, char *err,
    size_t errlen)
{
	jv v = cc_json_parse(body, len);
	jv c;
	int rc = -1;

	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		snprintf(err, errlen, "the answer is not a JSON object");
		jv_free(v);
		return -1;
	}
	c = jv_object_get(jv_copy(v), jv_string("choices"));
	if (jv_get_kind(c) == JV_KIND_ARRAY && jv_array_length(jv_copy(c)) > 0) {
		/* choices[0] may be anything, and libjq asserts on a kind mismatch */
		jv first = jv_array_get(jv_copy(c), 0);
		jv m = jv_get_kind(first) == JV_KIND_OBJECT ?
		    jv_object_get(jv_copy(first), jv_string("message")) : jv_invalid();
		jv t = jv_get_kind(m) == JV_KIND_OBJECT ?
		    jv_object_get(jv_copy(m), jv_string("content")) : jv_invalid();

		jv_free(first);
		if (jv_get_kind(t) == JV_KIND_STRING && jv_string_length_bytes(jv_copy(t)) > 0) {
			cc_buf_add(out, jv_string_value(t),
			    (size_t)jv_string_length_bytes(jv_copy(t)));
			rc = 0;
		}
		jv_free(t);
		jv_free(m);
	}
	if (rc < 0)
		snprintf(err, errlen, "the answer has no choices[0].message.content");
	jv_free(c);
	jv_free(v);
	return rc;
}

/* The names of cc_http's failures that the record shows (as cc-rag's). */
static const char *
failure_code(const char *http_code)
{
	if (!http_code)
		return "failed";
	return !strcmp(http_code, "connect") ? "unreachable" :
	    !strcmp(http_code, "network") ? "failed" : http_code;
}

int
cc_llm_chat(struct cc_llm *l, const char *system, const char *user,
    struct cc_buf *out, char *err, size_t errlen)
{
	const char *headers[3] = { "Content-Type: application/json", l->auth, NULL };
	struct cc_buf body = {0};
	int rc = -1;

	if (cc_backoff_active(&l->down, &l->code, err, errlen))
		return -1;
	request_body(l, system, user, 0, &body);
	for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
		struct cc_http_request req = {
			.url = l->url, .headers = headers, .secret_headers = 1,
			.body = body.data, .body_len = body.len,
			.timeout_ms = l->timeout_ms, .max_bytes = 1 << 20,
		};
		struct cc_http_response res = {0};

		if (cc_http_fetch(&req, &res) == 0) {
			rc = cc_llm_parse_reply(res.body.data, res.body.len, out, err,
			    errlen);
			l->code = rc < 0 ? "bad_response" : NULL;
			cc_http_response_release(&res);
			break;	/* a malformed answer is not retried */
		}
		snprintf(err, errlen, "%s", res.error);
		l->code = failure_code(res.error_code);
		int again = res.error_code && (strcmp(res.error_code, "timeout") == 0 ||
		    strcmp(res.error_code, "rate_limited") == 0 ||
		    (strcmp(res.error_code, "http_status") == 0 && res.status >= 500));
		cc_http_response_release(&res);
		if (!again)
			break;
		if (attempt < ATTEMPTS) {	/* a short pause before the retry */
			struct timespec pause = { 0, 200 * 1000000L };

			nanosleep(&pause, NULL);
		}
	}
	if (rc < 0)
		cc_backoff_note(&l->down, l->code, err);
	cc_buf_release(&body);
	return rc;
}

/* ---- streaming: server-sent events ---- */

/* One "data: {...}" line: its choices[0].delta.content. */
static void
sse_line(struct cc_llm_stream *e, const char *l, size_t n)
{
	jv v, c;

	if (n < 6 || strncmp(l, "data: ", 6) != 0)
		return;		/* comments, event names, blank lines */
	e->events++;
	l += 6;
	n -= 6;
	if (n == 6 && strncmp(l, "[DONE]", 6) == 0) {
		e->done = 1;
		return;
	}
	v = cc_json_parse(l, n);
	c = jv_get_kind(v) == JV_KIND_OBJECT ?
	    jv_object_get(jv_copy(v), jv_string("choices")) : jv_invalid();
	if (jv_get_kind(c) == JV_KIND_ARRAY && jv_array_length(jv_copy(c)) > 0) {
		/* as in a whole answer: choices[0] need not be an object */
		jv first = jv_array_get(jv_copy(c), 0);
		jv d = jv_get_kind(first) == JV_KIND_OBJECT ?
		    jv_object_get(jv_copy(first), jv_string("delta")) : jv_invalid();
		jv t = jv_get_kind(d) == JV_KIND_OBJECT ?
		    jv_object_get(jv_copy(d), jv_string("content")) : jv_invalid();

		if (jv_get_kind(first) != JV_KIND_OBJECT)
			e->bad = 1;
		jv_free(first);
		if (jv_get_kind(t) == JV_KIND_STRING) {
			size_t k = (size_t)jv_string_length_bytes(jv_copy(t));

			cc_buf_add(e->out, jv_string_value(t), k);
			if (e->delta && k)
				e->delta(jv_string_value(t), k, e->arg);
		}
		jv_free(t);
		jv_free(d);
	} else {
		e->bad = 1;
	}
	jv_free(c);
	jv_free(v);
}

void
cc_llm_stream_feed(const char *p, size_t n, void *arg)
{
	struct cc_llm_stream *e = arg;

	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\n') {
			size_t k = e->line.len;

			if (k && e->line.data[k - 1] == '\r')
				k--;
			sse_line(e, e->line.data ? e->line.data : "", k);
			e->line.len = 0;
		} else {
			cc_buf_add(&e->line, p + i, 1);
		}
	}
}

int
cc_llm_chat_stream(struct cc_llm *l, const char *system, const char *user,
    struct cc_buf *out, char *err, size_t errlen,
    void (*delta)(const char *s, size_t n, void *arg), void *arg)
{
	const char *headers[4] = { "Content-Type: application/json",
		"Accept: text/event-stream", l->auth, NULL };
	struct cc_buf body = {0};
	struct cc_llm_stream e = { .out = out, .delta = delta, .arg = arg };
	struct cc_http_request req = {
		.headers = headers, .secret_headers = 1, .url = l->url,
		.timeout_ms = l->timeout_ms, .max_bytes = 4 << 20,
		.on_data = cc_llm_stream_feed, .on_data_arg = &e,
	};
	struct cc_http_response res = {0};
	int rc = -1;

	if (cc_backoff_active(&l->down, &l->code, err, errlen))
		return -1;
	request_body(l, system, user, 1, &body);
	req.body = body.data;
	req.body_len = body.len;
	l->code = "bad_response";
	if (cc_http_fetch(&req, &res) < 0) {
		snprintf(err, errlen, "%s", res.error);
		l->code = failure_code(res.error_code);
		cc_backoff_note(&l->down, l->code, err);
	} else if (!e.events) {
		/* a 200 of plain text or JSON: say so, not "cut off" */
		snprintf(err, errlen, "the answer is not an event stream");
	} else if (!e.done) {
		snprintf(err, errlen, "the stream was cut off before its end");
		l->code = "cut_off";
	} else if (out->len == 0) {
		snprintf(err, errlen, "the stream held no text%s",
		    e.bad ? " (events of the wrong shape)" : "");
	} else {
		l->code = NULL;
		rc = 0;
	}
	cc_http_response_release(&res);
	cc_buf_release(&e.line);
	cc_buf_release(&body);
	return rc;
}
