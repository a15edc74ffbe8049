/*
 * The gate against the session store: one call reads the session, runs
 * the tool and replaces the session in one transaction, so two agents (or
 * two cc-gate processes) calling at once on one session lose no write;
 * then the DecisionLog and OutcomeLog lines the call decided are appended
 * to NDJSON files, each line in one write(2) on a file opened O_APPEND, so
 * lines from several processes never interleave.
 *
 * State names in the store: "gate" (a session's state, by session id) and
 * "gate-outcomes" (the outcome statistics, under the key "stats").
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_session.h"
#include "cc_gate_int.h"

#define STATE_SESSIONS "gate"
#define STATE_OUTCOMES "gate-outcomes"
#define STATS_KEY "stats"

static jv
answer(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static jv
answer(const char *code, const char *fmt, ...)
{
	va_list ap;
	char msg[1024];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return jv_object_set(jv_object_set(jv_object(), jv_string("error"), jv_string(code)),
	    jv_string("message"), jv_string(msg));
}

/* The arguments: an object, a JSON text of one, or nothing ({}). */
static jv
arguments(jv args)
{
	jv_kind k = jv_get_kind(args);

	if (k == JV_KIND_NULL || k == JV_KIND_INVALID)
		return jv_object();
	if (k == JV_KIND_STRING) {
		jv v = cc_json_parse(jv_string_value(args),
		    (size_t)jv_string_length_bytes(jv_copy(args)));

		if (jv_get_kind(v) == JV_KIND_OBJECT)
			return v;
		jv_free(v);
		return answer("invalid_arguments", "the arguments, given as a string, must be "
		    "the JSON text of an object");
	}
	if (k != JV_KIND_OBJECT)
		return answer("invalid_arguments", "the arguments must be an object");
	return jv_copy(args);
}

static int
valid_id(const char *id, char *why, size_t n)
{
	size_t len = strlen(id);

	if (len == 0 || len > CC_GATE_MAX_SESSION_ID) {
		snprintf(why, n, "a session id has 1 to %d bytes", CC_GATE_MAX_SESSION_ID);
		return 0;
	}
	for (const unsigned char *c = (const unsigned char *)id; *c; c++)
		if (*c < 0x20 || *c == 0x7F) {
			snprintf(why, n, "a session id has no control characters");
			return 0;
		}
	return 1;
}

/* n random bytes as hex into out (2n + 1 bytes). */
static void
random_hex(char *out, size_t n)
{
	unsigned char r[16] = {0};

	if (n > sizeof r)
		n = sizeof r;
	if (getrandom(r, n, 0) != (ssize_t)n) {
		struct timespec t;

		clock_gettime(CLOCK_REALTIME, &t);
		for (size_t i = 0; i < n; i++)
			r[i] = (unsigned char)((unsigned long)t.tv_nsec >> (i * 3) ^
			    (unsigned long)getpid() >> i);
	}
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", r[i]);
}

/* A fresh id: the original's session_YYYYMMDD_HHMMSS and, so two in one second differ, 48 random bits. */
static char *
new_id(time_t now)
{
	char stamp[40], hex[13], *id;
	struct tm tm;
	size_t n = 64;

	random_hex(hex, 6);
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "session_%Y%m%d_%H%M%S", &tm);
	id = cc_xmalloc(n);
	snprintf(id, n, "%s_%s", stamp, hex);
	return id;
}

int
cc_gate_session_check(jv s, char *why, size_t n)
{
	static const char *const strs[] = { "session_id", "intent", "query", "phase", NULL };
	jv v;

	if (jv_get_kind(s) != JV_KIND_OBJECT) {
		snprintf(why, n, "not a JSON object");
		return 0;
	}
	for (int i = 0; strs[i]; i++) {
		v = jv_object_get(jv_copy(s), jv_string(strs[i]));
		if (jv_get_kind(v) != JV_KIND_STRING) {
			snprintf(why, n, "no string '%s'", strs[i]);
			jv_free(v);
			return 0;
		}
		if (i == 3 && gate_phase_parse(jv_string_value(v)) < 0) {
			snprintf(why, n, "an unknown phase");
			jv_free(v);
			return 0;
		}
		jv_free(v);
	}
	return 1;
}

static char *
dump(jv v)
{
	struct cc_buf b = {0};

	cc_json_put(&b, v);
	return b.data;
}

static void
append(const struct cc_gate *g, const char *name, jv line)
{
	struct cc_buf b = {0};
	size_t n = strlen(g->log_dir) + strlen(name) + 2;
	char *path = cc_xmalloc(n);
	int fd;

	snprintf(path, n, "%s/%s", g->log_dir, name);
	if (cc_mkdirs(g->log_dir) < 0 ||
	    (fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600)) < 0) {
		cc_warn("cannot write '%s': %s", path, strerror(errno));
		free(path);
		return;
	}
	cc_json_put(&b, line);
	cc_buf_add(&b, "\n", 1);
	if (write(fd, b.data, b.len) != (ssize_t)b.len)
		cc_warn("cannot write '%s': %s", path, strerror(errno));
	close(fd);
	cc_buf_release(&b);
	free(path);
}

/* The outcome lines into the statistics, one transaction. 0 or -1. */
static int
count_outcomes(struct cc_session *store, jv logs, time_t now)
{
	char *text = NULL, *out;
	jv stats = jv_null();
	int rc, any = 0;

	jv_array_foreach(logs, i, l) {
		jv kind = jv_object_get(jv_copy(l), jv_string("log"));

		any |= jv_get_kind(kind) == JV_KIND_STRING &&
		    strcmp(jv_string_value(kind), "outcomes") == 0;
		jv_free(kind);
		jv_free(l);
	}
	if (!any)
		return 0;
	if (cc_session_state_begin(store, STATE_OUTCOMES) < 0 ||
	    (rc = cc_session_state_get(store, STATS_KEY, STATE_OUTCOMES, &text, NULL)) < 0)
		return -1;
	if (rc == 1)
		stats = cc_json_parse(text, strlen(text));
	free(text);
	jv_array_foreach(logs, i, l) {
		jv kind = jv_object_get(jv_copy(l), jv_string("log"));

		if (jv_get_kind(kind) == JV_KIND_STRING &&
		    strcmp(jv_string_value(kind), "outcomes") == 0) {
			jv line = jv_object_get(jv_copy(l), jv_string("line"));

			stats = gate_stats_add(stats, line);
			jv_free(line);
		}
		jv_free(kind);
		jv_free(l);
	}
	out = dump(stats);
	jv_free(stats);
	rc = cc_session_state_put(store, STATS_KEY, STATE_OUTCOMES, out, now);
	free(out);
	return rc < 0 || cc_session_flush(store) < 0 ? -1 : 0;
}

jv
cc_gate_call(struct cc_gate *g, struct cc_session *store, const char *tool, jv args,
    jv result, const char *sid, time_t now, char **sid_out, int *status)
{
	const struct cc_gate_tool *t = cc_gate_tool(tool);
	char nonce[9];
	struct cc_gate_ctx c = { .gate = g, .logs = jv_array(), .nonce = nonce };
	const char *state = STATE_SESSIONS;
	int stats = 0;
	char *id = NULL, *stored = NULL, *text, why[256];
	jv a, session = jv_null(), before, ans;
	int rc, replaced_corrupt = 0;

	random_hex(nonce, 4);
	*status = CC_EXIT_OK;
	if (sid_out)
		*sid_out = NULL;
	if (!t && !cc_gate_knows(g, tool)) {
		ans = cc_gate_use(&c, tool, jv_null(), jv_null(), &session, now);
		goto done;
	}
	a = arguments(args);
	if (jv_get_kind(a) != JV_KIND_OBJECT || cc_gate_is_error(a)) {
		ans = a;
		goto done;
	}
	if (t && (t->flags & CC_GATE_STATS)) {
		state = STATE_OUTCOMES;
		stats = 1;
		id = cc_xstrdup(STATS_KEY);
	} else if (t && (t->flags & CC_GATE_SESSION_ARG)) {
		jv v = jv_object_get(jv_copy(a), jv_string("session_id"));

		if (jv_get_kind(v) == JV_KIND_STRING && !memchr(jv_string_value(v), '\0',
		    (size_t)jv_string_length_bytes(jv_copy(v))))
			id = cc_xstrdup(jv_string_value(v));
		jv_free(v);
	} else if (t && (t->flags & CC_GATE_NEW_SESSION)) {
		id = sid ? cc_xstrdup(sid) : new_id(now);
	} else if (sid) {
		id = cc_xstrdup(sid);
	}
	if (id && !valid_id(id, why, sizeof why)) {
		jv_free(a);
		ans = answer("invalid_arguments", "%s", why);
		goto done;
	}
	if (id) {
		if (cc_session_state_begin(store, state) < 0 ||
		    (rc = cc_session_state_get(store, id, state, &stored, NULL)) < 0) {
			jv_free(a);
			ans = answer("store_unavailable", "cannot read the session store: %s",
			    cc_session_error(store));
			*status = CC_EXIT_INTERNAL;
			goto done;
		}
		if (rc == 1) {
			session = cc_json_parse(stored, strlen(stored));
			if (!(stats ? jv_get_kind(session) == JV_KIND_OBJECT :
			    cc_gate_session_check(session, why, sizeof why))) {
				jv_free(session);
				session = jv_null();
				if (stats) {
					/* statistics are recounted from nothing */
				} else if (t && (t->flags & CC_GATE_NEW_SESSION)) {
					replaced_corrupt = 1;
				} else if (t && (t->flags & CC_GATE_SESSION_ARG)) {
					/* an outcome is still recorded, the session left alone */
				} else {
					cc_session_flush(store);
					jv_free(a);
					ans = answer("corrupt_session", "the stored state of session "
					    "'%s' cannot be read (%s); start_session with this id "
					    "replaces it", id, why);
					goto done;
				}
			}
		}
	}
	c.session_id = id;
	before = jv_copy(session);
	if (t)
		ans = t->fn(&c, a, &session, now);
	else
		ans = cc_gate_use(&c, tool, a, result, &session, now);
	jv_free(a);
	if (replaced_corrupt)
		ans = jv_object_set(ans, jv_string("replaced_corrupt_session"), jv_true());
	if (id && !stats && jv_get_kind(session) == JV_KIND_OBJECT &&
	    !jv_equal(jv_copy(before), jv_copy(session))) {
		session = jv_object_set(session, jv_string("updated_at"), jv_string(""));
		{
			char ts[32];
			struct tm tm;

			gmtime_r(&now, &tm);
			strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
			session = jv_object_set(session, jv_string("updated_at"), jv_string(ts));
		}
		text = dump(session);
		rc = cc_session_state_put(store, id, state, text, now);
		free(text);
		if (rc < 0 || cc_session_flush(store) < 0) {
			jv_free(before);
			jv_free(ans);
			ans = answer("store_unavailable", "cannot save the session: %s",
			    cc_session_error(store));
			*status = CC_EXIT_INTERNAL;
			goto done;
		}
	} else if (id && cc_session_flush(store) < 0) {
		jv_free(before);
		jv_free(ans);
		ans = answer("store_unavailable", "cannot read the session store: %s",
		    cc_session_error(store));
		*status = CC_EXIT_INTERNAL;
		goto done;
	}
	jv_free(before);
	if (count_outcomes(store, c.logs, now) < 0) {
		cc_warn("cannot count the outcome in the statistics: %s", cc_session_error(store));
		cc_session_flush(store);
	}
	/* the logs, once what they record is committed */
	if (g->log_dir || g->log_store) {
		jv_array_foreach(c.logs, i, l) {
			jv kind = jv_object_get(jv_copy(l), jv_string("log"));
			jv line = jv_object_get(jv_copy(l), jv_string("line"));
			int outcomes = strcmp(jv_string_value(kind), "outcomes") == 0;

			if (g->log_store) {
				char *js = dump(line);

				if (cc_session_log(store, outcomes ? "outcomes" : "decisions",
				    id, js, now) < 0)
					cc_warn("cannot write the %s log to the store: %s",
					    outcomes ? "outcomes" : "decisions",
					    cc_session_error(store));
				free(js);
			} else {
				append(g, outcomes ? "outcomes.ndjson" : "decisions.ndjson", line);
			}
			jv_free(kind);
			jv_free(line);
			jv_free(l);
		}
		if (g->log_store && cc_session_flush(store) < 0)
			cc_warn("cannot write the logs to the store: %s", cc_session_error(store));
	}
	if (sid_out && id && !stats)
		*sid_out = cc_xstrdup(id);
done:
	if (*status == CC_EXIT_OK && cc_gate_is_error(ans))
		*status = CC_EXIT_DATA;
	jv_free(session);
	jv_free(c.logs);
	free(stored);
	free(id);
	return ans;
}

char *
cc_gate_phase_of(struct cc_session *store, const char *sid)
{
	char *text = NULL, *phase = NULL;
	jv s, p;

	if (!sid || cc_session_state_get(store, sid, STATE_SESSIONS, &text, NULL) != 1)
		return NULL;
	s = cc_json_parse(text, strlen(text));
	free(text);
	p = jv_get_kind(s) == JV_KIND_OBJECT ? jv_object_get(jv_copy(s), jv_string("phase")) :
	    jv_null();
	if (jv_get_kind(p) == JV_KIND_STRING && gate_phase_parse(jv_string_value(p)) >= 0)
		phase = cc_xstrdup(jv_string_value(p));
	jv_free(p);
	jv_free(s);
	return phase;
}

jv
cc_gate_check(struct cc_gate *g, struct cc_session *store, const char *tool, const char *sid)
{
	char *text = NULL, why[256];
	jv s, r;
	int rc;

	if (!cc_gate_tool(tool) && !cc_gate_knows(g, tool))
		return answer("unknown_tool", "Unknown tool: %s", tool);
	if (!sid || (rc = cc_session_state_get(store, sid, STATE_SESSIONS, &text, NULL)) == 0)
		return jv_null();
	if (rc < 0)
		return answer("store_unavailable", "cannot read the session store: %s",
		    cc_session_error(store));
	s = cc_json_parse(text, strlen(text));
	free(text);
	if (!cc_gate_session_check(s, why, sizeof why)) {
		jv_free(s);
		return answer("corrupt_session", "the stored state of session '%s' cannot be "
		    "read (%s); start_session with this id replaces it", sid, why);
	}
	r = cc_gate_allowed(g, tool, s);
	jv_free(s);
	return r;
}
