/*
 * The knowledge base's outside services, both optional and off unless
 * configured in the environment: a web-search endpoint (SearXNG's JSON
 * API shape, seed 002 generalWebSearch) and an OpenAI-compatible
 * embeddings endpoint for dense retrieval.  HTTP goes through the shared
 * client, cc_http_fetch() (timeouts, a size cap, the status checked, TLS
 * verified, keys only in headers and never in messages); a service that
 * timed out or cannot be reached is left alone a minute (cc_backoff).
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_kbnet.h"
#include "cc_http.h"

#define MAX_RESPONSE (4 * 1024 * 1024)

/*
 * GET url (body NULL) or POST body as JSON; the answer in out.  Returns 0
 * on a 2xx answer, else -1 with a short code (timeout, unreachable,
 * http_status, rate_limited, too_large, failed) and a message.
 */
static int
http_call(const char *url, const char *key, const char *body, long timeout_ms,
    struct cc_buf *out, const char **code, char *err, size_t errlen)
{
	const char *headers[4];
	char *auth = NULL;
	size_t nh = 0;
	struct cc_http_request req = {
		.url = url, .headers = headers, .body = body,
		.body_len = body ? strlen(body) : 0, .timeout_ms = timeout_ms,
		.connect_timeout_ms = timeout_ms < 2000 ? timeout_ms : 2000,
		.max_bytes = MAX_RESPONSE,
	};
	struct cc_http_response res;
	int rc;

	headers[nh++] = "Accept: application/json";
	if (body)
		headers[nh++] = "Content-Type: application/json";
	if (key && *key) {
		size_t n = strlen(key) + sizeof "Authorization: Bearer ";

		auth = cc_xmalloc(n);
		snprintf(auth, n, "Authorization: Bearer %s", key);
		headers[nh++] = auth;
		req.secret_headers = 1;
	}
	headers[nh] = NULL;
	rc = cc_http_fetch(&req, &res);
	if (auth) {
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	out->len = 0;
	if (rc == 0) {
		cc_buf_add(out, res.body.data ? res.body.data : "", res.body.len);
	} else {
		/* the names cc-rag(1) documents */
		*code = !strcmp(res.error_code, "connect") ? "unreachable" :
		    !strcmp(res.error_code, "network") ? "failed" : res.error_code;
		snprintf(err, errlen, "%s", res.error);
	}
	cc_http_response_release(&res);
	return rc;
}

static long
env_ms(const char *name, long fallback)
{
	const char *v = getenv(name);
	char *end;
	double s;

	if (!v || !*v)
		return fallback;
	s = strtod(v, &end);
	if (*end || s <= 0 || s > 600)
		cc_die(CC_EXIT_USAGE, "invalid %s '%s': seconds, such as 2.5", name, v);
	return (long)(s * 1000);
}

/* ---- web search ---- */

int
cc_websearch_init(struct cc_websearch *ws)
{
	const char *url = getenv("CC_WEB_SEARCH_URL");
	const char *lim = getenv("CC_WEB_SEARCH_LIMIT");

	memset(ws, 0, sizeof *ws);
	if (!url || !*url)
		return 0;
	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
		cc_die(CC_EXIT_USAGE, "invalid CC_WEB_SEARCH_URL: use an http or "
		    "https URL");
	ws->url = url;
	ws->key = getenv("CC_WEB_SEARCH_API_KEY");
	ws->timeout_ms = env_ms("CC_WEB_SEARCH_TIMEOUT", 3000);
	ws->limit = 5;
	if (lim && *lim) {
		char *end;
		long n = strtol(lim, &end, 10);

		if (*end || n < 1 || n > 50)
			cc_die(CC_EXIT_USAGE, "invalid CC_WEB_SEARCH_LIMIT '%s': "
			    "use 1 to 50", lim);
		ws->limit = (size_t)n;
	}
	return 1;
}

void
cc_websearch_release(struct cc_websearch *ws)
{
	memset(ws, 0, sizeof *ws);
}

/* The spec's web-search keywords (seed 002, shouldUseWebSearch). */
static const char *const ja_keywords[] = {
	"最新", "現在", "今", "ニュース", "トレンド", "スタートアップ",
	"ベンチャー", "技術", "人工知能", "機械学習", "プログラミング",
};
static const char *const en_keywords[] = {
	"latest", "current", "now", "news", "trend", "startup", "venture",
	"technology", "ai", "artificial intelligence", "machine learning",
	"programming",
};

static int
latin(unsigned char c)
{
	return isalnum(c);
}

int
cc_websearch_wanted(const char *q, size_t len)
{
	size_t n;
	char *f = cc_text_fold(q, len, &n, 0);
	int hit = 0;

	for (size_t i = 0; !hit && i < sizeof ja_keywords / sizeof *ja_keywords; i++) {
		char *k = cc_text_fold(ja_keywords[i], strlen(ja_keywords[i]), NULL, 0);

		hit = strstr(f, k) != NULL;
		free(k);
	}
	/* English keywords as whole words: "now" is not in "know" */
	for (size_t i = 0; !hit && i < sizeof en_keywords / sizeof *en_keywords; i++) {
		size_t kl = strlen(en_keywords[i]);

		for (const char *p = f; !hit && (p = strstr(p, en_keywords[i])); p++) {
			int before = p > f && latin((unsigned char)p[-1]);
			const char *e = p + kl;
			/* plurals and -s forms: trends, startups */
			if (*e == 's')
				e++;
			hit = !before && !latin((unsigned char)*e);
		}
	}
	free(f);
	return hit;
}

static char *
json_str(jv obj, const char *key)
{
	jv v = jv_object_get(jv_copy(obj), jv_string(key));
	char *s = NULL;

	if (jv_get_kind(v) == JV_KIND_STRING)
		s = cc_xstrdup(jv_string_value(v));
	jv_free(v);
	return s;
}

void
cc_web_hits_release(struct cc_web_hit *h, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(h[i].title);
		free(h[i].url);
		free(h[i].content);
	}
	free(h);
}

int
cc_websearch_query(struct cc_websearch *ws, const char *q, size_t len,
    const char *lang, struct cc_web_hit **hits, size_t *nhits,
    const char **code, char *err, size_t errlen)
{
	struct cc_buf url = {0}, body = {0};
	char *text;
	int rc = -1;

	*hits = NULL;
	*nhits = 0;
	if (cc_backoff_active(&ws->down, code, err, errlen))
		return -1;
	if (len > 2000)		/* a search engine wants a question, not a book */
		for (len = 2000; len > 0 && ((unsigned char)q[len] & 0xC0) == 0x80; len--)
			;
	text = cc_xmalloc(len + 1);
	memcpy(text, q, len);
	text[len] = '\0';
	cc_buf_add(&url, ws->url, strlen(ws->url));
	cc_buf_add(&url, strchr(ws->url, '?') ? "&q=" : "?q=", 3);
	cc_http_urlencode(&url, text);
	free(text);
	cc_buf_add(&url, "&format=json", 12);
	if (lang && (strcmp(lang, "ja") == 0 || strcmp(lang, "en") == 0)) {
		cc_buf_add(&url, "&language=", 10);
		cc_buf_add(&url, lang, 2);
	}
	if (http_call(url.data, ws->key, NULL, ws->timeout_ms, &body, code, err,
	    errlen) == 0)
		rc = cc_websearch_parse(body.data, body.len, ws->limit, hits, nhits,
		    code, err, errlen);
	else
		cc_backoff_note(&ws->down, *code, err);
	cc_buf_release(&url);
	cc_buf_release(&body);
	return rc;
}

int
cc_websearch_parse(const char *body, size_t len, size_t limit,
    struct cc_web_hit **hits, size_t *nhits, const char **code, char *err,
    size_t errlen)
{
	jv doc, results;

	*hits = NULL;
	*nhits = 0;
	doc = cc_json_parse(body, len);
	if (!jv_is_valid(doc) || jv_get_kind(doc) != JV_KIND_OBJECT) {
		jv_free(doc);
		*code = "bad_response";
		snprintf(err, errlen, "the search endpoint did not answer a JSON object");
		return -1;
	}
	results = jv_object_get(doc, jv_string("results"));
	if (jv_get_kind(results) != JV_KIND_ARRAY) {
		jv_free(results);
		*code = "bad_response";
		snprintf(err, errlen, "the search answer has no \"results\" array");
		return -1;
	}
	jv_array_foreach(results, i, r) {
		if (*nhits < limit && jv_get_kind(r) == JV_KIND_OBJECT) {
			char *title = json_str(r, "title"), *link = json_str(r, "url");
			char *content = json_str(r, "content");

			if ((title && *title) || (content && *content)) {
				*hits = cc_xrealloc(*hits, (*nhits + 1) * sizeof **hits);
				(*hits)[(*nhits)++] = (struct cc_web_hit){
				    title ? title : cc_xstrdup(""),
				    link ? link : cc_xstrdup(""),
				    content ? content : cc_xstrdup("") };
			} else {
				free(title);
				free(link);
				free(content);
			}
		}
		jv_free(r);
	}
	jv_free(results);
	return 0;
}

/* ---- embeddings ---- */

int
cc_embed_init(struct cc_embed *e)
{
	const char *base = getenv("CC_EMBED_BASE_URL");
	const char *model = getenv("CC_EMBED_MODEL");

	memset(e, 0, sizeof *e);
	if (!base || !*base)
		return 0;
	if (strncmp(base, "http://", 7) != 0 && strncmp(base, "https://", 8) != 0)
		cc_die(CC_EXIT_USAGE, "invalid CC_EMBED_BASE_URL: use an http or "
		    "https URL");
	if (!model || !*model)
		cc_die(CC_EXIT_USAGE, "CC_EMBED_BASE_URL is set but CC_EMBED_MODEL "
		    "is not");
	e->base = base;
	e->key = getenv("CC_EMBED_API_KEY");
	e->timeout_ms = env_ms("CC_EMBED_TIMEOUT", 10000);
	e->embedder.model = model;
	e->embedder.embed = cc_embed_texts;
	e->embedder.ctx = e;
	return 1;
}

void
cc_embed_release(struct cc_embed *e)
{
	memset(e, 0, sizeof *e);
}

int
cc_embed_texts(void *ctx, const char *const *texts, size_t n, float **vecs,
    int *dim, char *err, size_t errlen)
{
	struct cc_embed *e = ctx;
	struct cc_buf url = {0}, req = {0}, body = {0};
	struct cc_jw w;
	const char *code = "failed";
	int rc = -1;
	size_t base = strlen(e->base);

	*vecs = NULL;
	*dim = 0;
	if (cc_backoff_active(&e->down, &e->code, err, errlen))
		return -1;
	while (base > 0 && e->base[base - 1] == '/')
		base--;
	cc_buf_add(&url, e->base, base);
	cc_buf_add(&url, "/embeddings", 11);
	cc_jw_init(&w, &req);
	cc_jw_object(&w);
	cc_jw_key(&w, "model");
	cc_jw_cstr(&w, e->embedder.model);
	cc_jw_key(&w, "input");
	cc_jw_array(&w);
	for (size_t i = 0; i < n; i++)
		cc_jw_cstr(&w, texts[i]);
	cc_jw_end(&w);
	cc_jw_end(&w);
	e->code = "bad_response";
	if (http_call(url.data, e->key, req.data, e->timeout_ms, &body, &code,
	    err, errlen) < 0) {
		e->code = code;
		cc_backoff_note(&e->down, code, err);
		goto out;
	}
	if (cc_embed_parse(body.data, body.len, n, vecs, dim, err, errlen) == 0) {
		e->code = NULL;
		rc = 0;
	}
out:
	cc_buf_release(&url);
	cc_buf_release(&req);
	cc_buf_release(&body);
	return rc;
}

int
cc_embed_parse(const char *body, size_t body_len, size_t n, float **vecs,
    int *dim, char *err, size_t errlen)
{
	jv doc, data = jv_invalid();
	float *out = NULL;
	int rc = -1, d = 0;

	*vecs = NULL;
	*dim = 0;
	doc = cc_json_parse(body, body_len);
	if (jv_get_kind(doc) == JV_KIND_OBJECT)
		data = jv_object_get(jv_copy(doc), jv_string("data"));
	if (jv_get_kind(data) != JV_KIND_ARRAY ||
	    (size_t)jv_array_length(jv_copy(data)) != n) {
		snprintf(err, errlen, "the embeddings answer has no \"data\" array "
		    "of %zu items", n);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		jv item = jv_array_get(jv_copy(data), (int)i);
		jv idx = jv_get_kind(item) == JV_KIND_OBJECT ?
		    jv_object_get(jv_copy(item), jv_string("index")) : jv_invalid();
		jv emb = jv_get_kind(item) == JV_KIND_OBJECT ?
		    jv_object_get(jv_copy(item), jv_string("embedding")) : jv_invalid();
		size_t at = jv_get_kind(idx) == JV_KIND_NUMBER &&
		    jv_number_value(idx) >= 0 && jv_number_value(idx) < (double)n ?
		    (size_t)jv_number_value(idx) : i;
		int len = jv_get_kind(emb) == JV_KIND_ARRAY ?
		    jv_array_length(jv_copy(emb)) : 0;
		int bad = len <= 0 || len > 65536 || (d && len != d);

		if (!bad && !d) {
			d = len;
			out = calloc(n * (size_t)d, sizeof *out);
			if (!out)
				cc_die(CC_EXIT_INTERNAL, "out of memory");
		}
		for (int k = 0; !bad && k < len; k++) {
			jv x = jv_array_get(jv_copy(emb), k);

			if (jv_get_kind(x) != JV_KIND_NUMBER)
				bad = 1;
			else
				out[at * (size_t)d + (size_t)k] = (float)jv_number_value(x);
			jv_free(x);
		}
		jv_free(item);
		jv_free(idx);
		jv_free(emb);
		if (bad) {
			snprintf(err, errlen, "embedding %zu is not an array of "
			    "numbers of one length", i);
			free(out);
			out = NULL;
			goto out;
		}
	}
	*vecs = out;
	*dim = d;
	rc = 0;
out:
	jv_free(doc);
	jv_free(data);
	return rc;
}
