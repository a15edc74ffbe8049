/*
 * A vision model reads the worksheet (the contract is in cc_vision.h).
 * What the model answers is checked field by field and rebuilt: the
 * model reads, it does not decide what reaches the child (DESIGN.md, seed
 * 003), so a malformed answer becomes an error or a problem left out and
 * a request for confirmation, never a crash or a field of the wrong kind.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_http.h"
#include "cc_llm.h"
#include "cc_sheet.h"
#include "cc_vision.h"

#define MAX_TOKENS 1500		/* a sheet of twenty problems fits */
#define ATTEMPTS 2		/* one retry after 429 or a 5xx */

int
cc_vision_from_env(struct cc_vision *v)
{
	const char *t = getenv("CC_VISION_TIMEOUT");

	memset(v, 0, sizeof *v);
	if (!cc_llm_endpoint_from_env("CC_VISION", &v->url, &v->model, &v->auth))
		return 0;
	v->timeout_ms = 60000;
	if (t && *t) {
		char *end;
		double s = strtod(t, &end);

		/* seconds, decimals allowed; nonsense keeps the default */
		if (end != t && !*end && s > 0 && s <= 3600)
			v->timeout_ms = (long)(s * 1000);
	}
	return 1;
}

void
cc_vision_release(struct cc_vision *v)
{
	free(v->url);
	free(v->model);
	if (v->auth) {	/* the key: do not leave it in freed memory */
		memset(v->auth, 0, strlen(v->auth));
		free(v->auth);
	}
	memset(v, 0, sizeof *v);
}

void
cc_vision_base64(struct cc_buf *b, const unsigned char *p, size_t n)
{
	static const char abc[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i = 0;

	cc_buf_grow_to(b, (n + 2) / 3 * 4);
	for (; i + 3 <= n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
		char q[4] = { abc[v >> 18], abc[(v >> 12) & 63], abc[(v >> 6) & 63],
			abc[v & 63] };

		cc_buf_add(b, q, 4);
	}
	if (i < n) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0);
		char q[4] = { abc[v >> 18], abc[(v >> 12) & 63],
			i + 1 < n ? abc[(v >> 6) & 63] : '=', '=' };

		cc_buf_add(b, q, 4);
	}
}

/* ---- reading the model's text ---- */

/* The JSON inside the text: a ```json fence, any fence, or the braces. */
static jv
find_json(const char *t, size_t n)
{
	const char *end = t + n, *p, *q;
	jv v;

	p = memmem(t, n, "```json", 7);
	if (p) {
		p += 7;
	} else if ((p = memmem(t, n, "```", 3))) {
		p += 3;
		/* a language name on the fence's line: ```JSON, ```javascript */
		q = p;
		while (q < end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')))
			q++;
		if (q < end && (*q == '\n' || *q == '\r'))
			p = q;
	}
	if (p) {
		q = memmem(p, (size_t)(end - p), "```", 3);
		if (!q)
			q = end;
		while (p < q && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
			p++;
		v = cc_json_parse(p, (size_t)(q - p));
		if (jv_is_valid(v))
			return v;
		jv_free(v);
	}
	v = cc_json_parse(t, n);
	if (jv_is_valid(v))
		return v;
	jv_free(v);
	/* prose round the object: "Here it is: {...} Hope this helps" */
	p = memchr(t, '{', n);
	for (q = end; q > t && q[-1] != '}'; q--)
		;
	if (p && q > p)
		return cc_json_parse(p, (size_t)(q - p));
	return jv_invalid();
}

/* s cut to at most max bytes, never inside a UTF-8 character. */
static jv
cut_string(const char *s, size_t n, size_t max)
{
	if (n > max) {
		n = max;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	return jv_string_sized(s, (int)n);
}

static int
known_type(const char *t)
{
	static const char *const types[] = { "arithmetic", "word_problem", "kanji",
		"reading", "other" };

	for (size_t i = 0; i < sizeof types / sizeof *types; i++)
		if (!strcmp(t, types[i]))
			return 1;
	return 0;
}

/* One problem from the model, checked; jv_invalid() when unusable.
   Borrows p; *doubt is set when something had to be fixed. */
static jv
check_problem(jv p, int *doubt)
{
	jv text, type, diff, expr, out;
	const char *ty = "other";
	char *ascii = NULL;
	int d = 0;

	if (jv_get_kind(p) != JV_KIND_OBJECT)
		return jv_invalid();
	text = jv_object_get(jv_copy(p), jv_string("text"));
	if (jv_get_kind(text) != JV_KIND_STRING || jv_string_length_bytes(jv_copy(text)) == 0) {
		jv_free(text);
		return jv_invalid();
	}
	type = jv_object_get(jv_copy(p), jv_string("type"));
	if (jv_get_kind(type) == JV_KIND_STRING && known_type(jv_string_value(type)))
		ty = jv_string_value(type);
	else
		*doubt = 1;
	expr = jv_object_get(jv_copy(p), jv_string("expression"));
	if (jv_get_kind(expr) == JV_KIND_STRING) {
		int rep = 0;

		if (!cc_sheet_arith(jv_string_value(expr),
		    (size_t)jv_string_length_bytes(jv_copy(expr)), &ascii, NULL, &rep) ||
		    !ascii || rep)
			*doubt = 1;	/* not arithmetic, a box in it, or a look-alike */
	} else if (jv_get_kind(expr) == JV_KIND_NULL ||
	    jv_get_kind(expr) == JV_KIND_INVALID) {
		/* the model left it out: the text may be the expression */
		if (!strcmp(ty, "arithmetic"))
			cc_sheet_arith(jv_string_value(text),
			    (size_t)jv_string_length_bytes(jv_copy(text)), &ascii, NULL, NULL);
	} else {
		*doubt = 1;
	}
	jv_free(expr);
	diff = jv_object_get(jv_copy(p), jv_string("difficulty"));
	if (jv_get_kind(diff) == JV_KIND_NUMBER && isfinite(jv_number_value(diff))) {
		double x = round(jv_number_value(diff));

		d = x < 1 ? 1 : x > 3 ? 3 : (int)x;
	} else {
		d = ascii ? cc_sheet_difficulty(ascii) : 0;
		if (d < 1)
			d = 1;
	}
	jv_free(diff);
	out = jv_object();
	out = jv_object_set(out, jv_string("text"), cut_string(jv_string_value(text),
	    (size_t)jv_string_length_bytes(jv_copy(text)), CC_VISION_MAX_TEXT));
	out = jv_object_set(out, jv_string("type"), jv_string(ty));
	out = jv_object_set(out, jv_string("difficulty"), jv_number(d));
	out = jv_object_set(out, jv_string("expression"), ascii ? jv_string(ascii) : jv_null());
	free(ascii);
	jv_free(type);
	jv_free(text);
	return out;
}

jv
cc_vision_parse_content(const char *t, size_t n, char *err, size_t errlen)
{
	jv v = find_json(t, n), problems, list, conf, need, out;
	double c = 0;
	int doubt = 0;

	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		snprintf(err, errlen, jv_is_valid(v) ?
		    "the model's answer is JSON but not an object" :
		    "the model's answer is not JSON");
		jv_free(v);
		return jv_invalid();
	}
	problems = jv_object_get(jv_copy(v), jv_string("problems"));
	list = jv_array();
	if (jv_get_kind(problems) == JV_KIND_ARRAY) {
		int len = jv_array_length(jv_copy(problems));

		for (int i = 0; i < len; i++) {
			jv p = jv_array_get(jv_copy(problems), i), q;

			if (i >= CC_VISION_MAX_PROBLEMS) {
				doubt = 1;
				jv_free(p);
				break;
			}
			q = check_problem(p, &doubt);
			jv_free(p);
			if (jv_is_valid(q))
				list = jv_array_append(list, q);
			else
				doubt = 1;
		}
	} else if (jv_get_kind(problems) != JV_KIND_INVALID &&
	    jv_get_kind(problems) != JV_KIND_NULL) {
		snprintf(err, errlen, "the model's problems are not a list");
		jv_free(problems);
		jv_free(list);
		jv_free(v);
		return jv_invalid();
	}
	jv_free(problems);
	conf = jv_object_get(jv_copy(v), jv_string("confidence"));
	if (jv_get_kind(conf) == JV_KIND_NUMBER && isfinite(jv_number_value(conf))) {
		c = jv_number_value(conf);
		if (c > 1 && c <= 100)
			c /= 100;	/* a percentage */
		c = c < 0 ? 0 : c > 1 ? 1 : c;
	} else {
		doubt = 1;
	}
	jv_free(conf);
	need = jv_object_get(jv_copy(v), jv_string("needs_confirmation"));
	if (jv_get_kind(need) != JV_KIND_FALSE)
		doubt = 1;	/* true, or anything that is not false */
	jv_free(need);
	if (c < CC_VISION_CONFIRM_BELOW || jv_array_length(jv_copy(list)) == 0)
		doubt = 1;
	out = jv_object();
	out = jv_object_set(out, jv_string("problems"), list);
	out = jv_object_set(out, jv_string("confidence"), jv_number(c));
	out = jv_object_set(out, jv_string("needs_confirmation"), jv_bool(doubt));
	jv_free(v);
	return out;
}

jv
cc_vision_parse_reply(const char *body, size_t n, char *err, size_t errlen)
{
	struct cc_buf text = {0};
	jv v;

	if (cc_llm_parse_reply(body, n, &text, err, errlen) < 0) {
		cc_buf_release(&text);
		return jv_invalid();
	}
	v = cc_vision_parse_content(text.data, text.len, err, errlen);
	cc_buf_release(&text);
	return v;
}

/* ---- the request ---- */

static void
request_body(const struct cc_vision *v, const char *prompt, const unsigned char *img,
    size_t n, const char *mime, const char *subject, struct cc_buf *b)
{
	struct cc_jw w;
	struct cc_buf url = {0}, ask = {0};
	static const char intro[] =
	    "この宿題の写真を読み取ってください。";

	cc_buf_add(&url, "data:", 5);
	cc_buf_add(&url, mime, strlen(mime));
	cc_buf_add(&url, ";base64,", 8);
	cc_vision_base64(&url, img, n);
	cc_buf_add(&ask, intro, sizeof intro - 1);
	if (subject && *subject) {
		char s[64];

		/* the caller's word, short and on one line */
		cc_buf_add(&ask, "\n教科: ", strlen("\n教科: "));
		snprintf(s, sizeof s, "%s", subject);
		s[strcspn(s, "\r\n")] = '\0';
		cc_buf_add(&ask, s, strlen(s));
	}
	cc_jw_init(&w, b);
	cc_jw_object(&w);
	cc_jw_key(&w, "model");
	cc_jw_cstr(&w, v->model);
	cc_jw_key(&w, "max_tokens");
	cc_jw_num(&w, MAX_TOKENS);
	cc_jw_key(&w, "temperature");
	cc_jw_num(&w, 0);
	cc_jw_key(&w, "messages");
	cc_jw_array(&w);
	cc_jw_object(&w);
	cc_jw_key(&w, "role");
	cc_jw_cstr(&w, "system");
	cc_jw_key(&w, "content");
	cc_jw_cstr(&w, prompt);
	cc_jw_end(&w);
	cc_jw_object(&w);
	cc_jw_key(&w, "role");
	cc_jw_cstr(&w, "user");
	cc_jw_key(&w, "content");
	cc_jw_array(&w);
	cc_jw_object(&w);
	cc_jw_key(&w, "type");
	cc_jw_cstr(&w, "text");
	cc_jw_key(&w, "text");
	cc_jw_str(&w, ask.data, ask.len);
	cc_jw_end(&w);
	cc_jw_object(&w);
	cc_jw_key(&w, "type");
	cc_jw_cstr(&w, "image_url");
	cc_jw_key(&w, "image_url");
	cc_jw_object(&w);
	cc_jw_key(&w, "url");
	cc_jw_str(&w, url.data, url.len);
	cc_jw_end(&w);
	cc_jw_end(&w);
	cc_jw_end(&w);
	cc_jw_end(&w);
	cc_jw_end(&w);
	cc_jw_end(&w);
	cc_buf_release(&url);
	cc_buf_release(&ask);
}

static const char *
failure_code(const char *http_code)
{
	if (!http_code)
		return "failed";
	return !strcmp(http_code, "connect") ? "unreachable" :
	    !strcmp(http_code, "network") ? "failed" : http_code;
}

jv
cc_vision_analyze(struct cc_vision *v, const char *prompt, const unsigned char *img,
    size_t n, const char *mime, const char *subject, char *err, size_t errlen)
{
	const char *headers[3] = { "Content-Type: application/json", v->auth, NULL };
	struct cc_buf body = {0};
	jv out = jv_invalid();

	if (cc_backoff_active(&v->down, &v->code, err, errlen))
		return jv_invalid();
	request_body(v, prompt, img, n, mime, subject, &body);
	for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
		struct cc_http_request req = {
			.url = v->url, .headers = headers, .secret_headers = 1,
			.body = body.data, .body_len = body.len,
			.connect_timeout_ms = v->timeout_ms < 10000 ? v->timeout_ms : 10000,
			.timeout_ms = v->timeout_ms, .max_bytes = 1 << 20,
		};
		struct cc_http_response res = {0};
		int again;

		if (cc_http_fetch(&req, &res) == 0) {
			out = cc_vision_parse_reply(res.body.data, res.body.len, err, errlen);
			v->code = jv_is_valid(out) ? NULL : "bad_response";
			cc_http_response_release(&res);
			break;	/* a malformed answer is not asked again */
		}
		snprintf(err, errlen, "%s", res.error);
		v->code = failure_code(res.error_code);
		/* a timeout is not retried: a minute more is too long to wait */
		again = res.error_code && (!strcmp(res.error_code, "rate_limited") ||
		    (!strcmp(res.error_code, "http_status") && res.status >= 500));
		cc_http_response_release(&res);
		if (!again)
			break;
		if (attempt < ATTEMPTS) {
			struct timespec pause = { 0, 300 * 1000000L };

			nanosleep(&pause, NULL);
		}
	}
	if (!jv_is_valid(out))
		cc_backoff_note(&v->down, v->code, err);
	cc_buf_release(&body);
	return out;
}
