/* The cc-respond stage: the answer, for every agent, in the visitor's language. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_session.h"
#include "cc_texts.h"
#include "cc_domain.h"
#include "cc_answer.h"
#include "cc_llm.h"
#include "cc_time.h"
#include "cc_http.h"
#include "cc_stages.h"

struct responder {
	struct cc_config cfg;
	struct cc_llm llm;
	int use_llm;
	int stream_fd;		/* CC_STREAM_FD: write the answer as it comes */
	int llm_failed;		/* some call failed: exit 4 at the end */
	struct cc_answerer ar;
	struct cc_texts *texts;
	struct cc_domain *domain;
	struct cc_session *store;
	struct cc_session **shared;	/* the chain's (cc_respond_options) */
	int borrowed;		/* store is *shared: the chain closes it */
	int store_failed, no_memory, camel, no_emotion;
	int store_transient;	/* the store's server was lost: exit status 4 */
	char store_why[640];	/* why answers are not kept, once they are not */
};

static struct cc_session *
store(struct responder *rs)
{
	char err[512];

	if (rs->store || rs->store_failed || rs->no_memory)
		return rs->store;
	/* the chain's, which cc-route opened: it reads the turns not
	   written yet and keeps the answers in the same batches */
	if (rs->shared && *rs->shared) {
		rs->borrowed = 1;
		return rs->store = *rs->shared;
	}
	rs->store = cc_session_open(&rs->cfg, CC_SESSION_ANSWERS, err, sizeof err);
	if (!rs->store) {
		cc_warn("session memory unavailable: %s", err);
		snprintf(rs->store_why, sizeof rs->store_why,
		    "session memory unavailable: %s", err);
		rs->store_failed = 1;
	}
	return rs->store;
}

/*
 * A store that fails in the middle of a run is given up, as cc-route does:
 * one warning, then answers without memory, rather than a wait for the
 * lock or a warning with every record.
 */
static void
store_lost(struct responder *rs, unsigned long line, const char *what)
{
	if (line)
		cc_warn_kind("respond-memory", "line %lu: %s: %s; answering "
		    "without session memory from here on", line, what,
		    cc_session_error(rs->store));
	else
		cc_warn_kind("respond-memory", "%s: %s; answering without "
		    "session memory from here on", what,
		    cc_session_error(rs->store));
	if (cc_session_transient(rs->store))
		rs->store_transient = 1;
	snprintf(rs->store_why, sizeof rs->store_why, "%s: %s", what,
	    cc_session_error(rs->store));
	if (!rs->borrowed)
		cc_session_close(rs->store);
	rs->store = NULL;
	rs->store_failed = 1;
}

/* Field names: snake_case as the specs' Python, or --camel as their TypeScript. */
static const char *
name(const struct responder *rs, const char *snake, const char *camel)
{
	return rs->camel ? camel : snake;
}

/* What became of the LLM for one record. */
struct llm_outcome {
	const char *status;	/* NULL (not configured), ok, failed, rejected, skipped */
	const char *code;	/* failed: what failed (cc_llm's codes) */
	char why[256];
};

/*
 * Streaming: pieces of the model's answer go to CC_STREAM_FD as they come.
 * The first few bytes wait until it is clear whether the model began with
 * an emotion tag; if not, the rules' tag goes first.
 */
struct streamer {
	int fd;
	const char *tag;	/* the composed answer's tag */
	size_t taglen;
	struct cc_buf head;
	int started;
};

static void
put_fd(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, s, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return;	/* the reader left: the record still tells */
		s += k;
		n -= (size_t)k;
	}
}

static void
stream_start(struct streamer *st)
{
	if (!cc_answer_tag(st->head.data ? st->head.data : ""))
		put_fd(st->fd, st->tag, st->taglen);
	put_fd(st->fd, st->head.data ? st->head.data : "", st->head.len);
	st->started = 1;
}

static void
stream_delta(const char *s, size_t n, void *arg)
{
	struct streamer *st = arg;

	if (st->started) {
		put_fd(st->fd, s, n);
		return;
	}
	cc_buf_add(&st->head, s, n);
	if (st->head.len >= 12 || memchr(st->head.data, ']', st->head.len) ||
	    st->head.data[0] != '[')
		stream_start(st);
}

/*
 * Put the composed answer to the LLM, if one is configured: the model
 * writes the prose, the rules check its numbers against the context, and
 * the composed answer stays when anything is off.
 */
static void
ask_llm(struct responder *rs, struct cc_record *rec, struct cc_answer *a,
    struct llm_outcome *o)
{
	struct cc_buf system = {0}, user = {0}, reply = {0};
	size_t taglen = a->text.data ? cc_answer_tag(a->text.data) : 0;
	struct streamer st = { .fd = rs->stream_fd, .tag = a->text.data, .taglen = taglen };

	o->status = NULL;
	if (!rs->use_llm)
		return;
	if (cc_answer_prompt(&rs->ar, rec, a, &system, &user) < 0) {
		o->status = "skipped";	/* time, memory, clarification, nothing found */
	} else if ((rs->stream_fd >= 0 ?
	    cc_llm_chat_stream(&rs->llm, system.data, user.data, &reply, o->why,
	    sizeof o->why, stream_delta, &st) :
	    cc_llm_chat(&rs->llm, system.data, user.data, &reply, o->why,
	    sizeof o->why)) < 0) {
		o->status = "failed";
		o->code = rs->llm.code ? rs->llm.code : "failed";
		rs->llm_failed = 1;
		cc_warn("line %lu: LLM: %s; the composed answer is used", rec->line, o->why);
	} else if (cc_answer_check(reply.data, user.data, o->why, sizeof o->why) < 0) {
		o->status = "rejected";
		cc_warn("line %lu: LLM answer rejected: %s", rec->line, o->why);
	} else {
		o->status = "ok";
		cc_answer_use_llm(a, reply.data);
	}
	if (rs->stream_fd >= 0 && !st.started && st.head.len && o->status &&
	    strcmp(o->status, "ok") == 0)
		stream_start(&st);	/* a short answer, all still held back */
	if (st.started && strcmp(o->status, "ok") != 0) {
		/* what was shown could not be confirmed: say the composed answer */
		struct cc_buf fix = {0};
		struct cc_var v[] = { { "answer", a->text.data ? a->text.data : "", 0 }, { 0 } };
		const char *t = cc_texts_get(rs->texts, "llm.correction", a->language, NULL);

		cc_texts_fill(&fix, t ? t : "\n\n{answer}", v);
		put_fd(rs->stream_fd, fix.data, fix.len);
		cc_buf_release(&fix);
	}
	cc_buf_release(&st.head);
	cc_buf_release(&system);
	cc_buf_release(&user);
	cc_buf_release(&reply);
}

static void
write_response(const struct responder *rs, const struct cc_answer *a,
    const char *category, const char *request_type,
    const struct llm_outcome *o, const char *unstored, struct cc_jw *out)
{
	cc_jw_object(out);
	cc_jw_key(out, "text");
	cc_jw_str(out, a->text.data ? a->text.data : "", a->text.len);
	cc_jw_key(out, "emotion");
	cc_jw_cstr(out, a->emotion);
	cc_jw_key(out, name(rs, "agent_name", "agentName"));
	cc_jw_cstr(out, a->agent_name);
	cc_jw_key(out, "language");
	cc_jw_cstr(out, a->language);
	cc_jw_key(out, "metadata");
	cc_jw_object(out);
	cc_jw_key(out, "confidence");
	cc_jw_num(out, a->confidence);
	cc_jw_key(out, "category");
	cc_jw_cstr(out, category);
	cc_jw_key(out, name(rs, "request_type", "requestType"));
	cc_jw_cstr(out, request_type);
	cc_jw_key(out, "sources");
	cc_jw_array(out);
	for (int i = 0; i < a->nsources; i++)
		cc_jw_cstr(out, a->sources[i]);
	cc_jw_end(out);
	cc_jw_key(out, name(rs, "processing_info", "processingInfo"));
	cc_jw_object(out);
	cc_jw_key(out, name(rs, "enhanced_rag", "enhancedRag"));
	cc_jw_bool(out, 0);
	cc_jw_key(out, "composer");
	cc_jw_cstr(out, o->status && strcmp(o->status, "ok") == 0 ? "llm" : "rules");
	if (o->status) {
		cc_jw_key(out, "llm");
		cc_jw_object(out);
		cc_jw_key(out, "model");
		cc_jw_cstr(out, rs->llm.model);
		cc_jw_key(out, "status");
		cc_jw_cstr(out, o->status);
		if (o->code) {
			cc_jw_key(out, "code");
			cc_jw_cstr(out, o->code);
		}
		if (*o->why) {
			cc_jw_key(out, "error");
			cc_jw_cstr(out, o->why);
		}
		cc_jw_end(out);
	}
	if (unstored) {	/* why the session will not remember this answer */
		cc_jw_key(out, name(rs, "memory_error", "memoryError"));
		cc_jw_cstr(out, unstored);
	}
	cc_jw_key(out, "passages");
	cc_jw_jv(out, a->passages);
	if (a->events) {
		cc_jw_key(out, "events");
		cc_jw_num(out, a->events);
	}
	cc_jw_end(out);
	cc_jw_end(out);
	cc_jw_end(out);
}

static enum cc_outcome
respond(void *ctx, struct cc_record *rec, struct cc_jw *out)
{
	struct responder *rs = ctx;
	struct cc_answer a;
	struct llm_outcome o = {0};
	const char *category = NULL, *type = NULL;
	size_t len;

	cc_config_tick(&rs->cfg);
	rs->ar.now = rs->cfg.now;

	/*
	 * Only a record in a session reads or keeps memory: a question asked
	 * without one leaves the store unopened (three SQLite files, a tenth
	 * of a cold question's work).
	 */
	const char *sid = cc_record_raw_at(rec, "route.debug_info.session.id", &len);
	int in_session = sid && *sid == '"';

	cc_answer_init(&a);
	if (cc_answer_compose(&rs->ar, rec, in_session ? store(rs) : NULL, &a) < 0) {
		cc_answer_release(&a);
		return cc_record_fail(rec, "no_route", "the record has no route and "
		    "query: run it through cc-route first");
	}
	/* the response's category and request type are the route's */
	if (jv_get_kind(a.category) == JV_KIND_STRING)
		category = jv_string_value(a.category);
	if (jv_get_kind(a.request_type) == JV_KIND_STRING)
		type = jv_string_value(a.request_type);
	ask_llm(rs, rec, &a, &o);
	/* stored before it is written, so the record can say it was not */
	if (a.turn >= 0 && rs->store &&
	    cc_session_answer(rs->store, a.turn, a.text.data, rs->cfg.now) < 0)
		store_lost(rs, rec->line, "cannot add the answer to its turn");
	write_response(rs, &a, category, type, &o,
	    a.turn >= 0 && rs->store_failed ? rs->store_why : NULL, out);
	cc_answer_release(&a);
	return CC_RECORD_SET;
}

/*
 * Commit the answers added so far when the input is quiet (and at the
 * end; a full batch commits by itself).  No later stage waits for them,
 * so unlike cc-route's turns they need not be committed with every
 * record handed on, which cost a commit a record.
 */
static void
commit_answers(void *ctx)
{
	struct responder *rs = ctx;

	if (rs->store && cc_session_flush(rs->store) < 0)
		store_lost(rs, 0, "cannot save session memory");
}

/* --text: the answer alone, with or without its emotion tag. */
static void
render_text(void *ctx, const char *value, size_t len, struct cc_buf *line)
{
	struct responder *rs = ctx;
	jv v = jv_parse_sized(value, (int)len);
	jv text = jv_object_get(v, jv_string("text"));
	const char *s;

	if (jv_get_kind(text) == JV_KIND_STRING) {
		s = jv_string_value(text);
		if (rs->no_emotion && *s == '[' && strchr(s, ']'))
			s = strchr(s, ']') + 1;
		cc_buf_add(line, s, strlen(s));
	}
	jv_free(text);
}

int
cc_respond_open(struct cc_stage *stage, const struct cc_respond_options *o,
    char *err, size_t errlen)
{
	struct responder *rs = cc_xmalloc(sizeof *rs);
	const char *w = getenv("CC_MEMORY_WINDOW");
	char *path, *end;

	memset(rs, 0, sizeof *rs);
	rs->no_emotion = o->no_emotion;
	rs->camel = o->camel;
	rs->no_memory = o->no_memory;
	rs->shared = o->shared;
	stage->name = "cc-respond";
	stage->key = "response";
	stage->process = respond;
	stage->idle = commit_answers;
	stage->ctx = rs;
	if (o->text)
		stage->render = render_text;
	cc_config_load(&rs->cfg);
	if (cc_tz_use(rs->cfg.tz) < 0) {
		snprintf(err, errlen, "unknown time zone '%s' in CC_TZ", rs->cfg.tz);
		cc_config_release(&rs->cfg);
		free(rs);
		return CC_EXIT_USAGE;
	}
	rs->domain = cc_domain_for_stage(&rs->cfg, stage);
	rs->stream_fd = -1;
	if (!stage->process)
		return 0;
	path = cc_config_domain_path(&rs->cfg, "responses");
	rs->texts = cc_texts_load(path, err, errlen);
	free(path);
	if (!rs->texts)
		goto fail;
	rs->ar = (struct cc_answerer){
		.domain = rs->domain, .texts = rs->texts, .now = rs->cfg.now, .window = 180,
		.general_min_score = rs->domain->min_score,
		.memo = cc_answer_memo_new(),
	};
	if (w && *w) {
		rs->ar.window = strtol(w, &end, 10);
		if (*end || rs->ar.window < 0) {
			snprintf(err, errlen, "invalid CC_MEMORY_WINDOW '%s'", w);
			goto fail;
		}
	}
	rs->use_llm = cc_llm_from_env(&rs->llm);
	if (!o->no_stream && getenv("CC_STREAM_FD") && *getenv("CC_STREAM_FD")) {
		rs->stream_fd = (int)strtol(getenv("CC_STREAM_FD"), &end, 10);
		if (*end || rs->stream_fd < 0 || fcntl(rs->stream_fd, F_GETFD) < 0) {
			snprintf(err, errlen, "CC_STREAM_FD '%s' is not an open file "
			    "descriptor", getenv("CC_STREAM_FD"));
			goto fail;
		}
	}
	return 0;
fail:
	cc_respond_close(stage, 0);
	return CC_EXIT_USAGE;
}

int
cc_respond_close(struct cc_stage *stage, int status)
{
	struct responder *rs = stage->ctx;

	if (status == CC_EXIT_OK && (rs->llm_failed || rs->store_transient))
		status = CC_EXIT_UPSTREAM;
	if (!rs->borrowed)
		cc_session_close(rs->store);	/* commits the answers */
	rs->store = NULL;
	if (stage->leave)
		return status;
	cc_llm_release(&rs->llm);
	cc_http_cleanup();
	cc_answer_memo_free(rs->ar.memo);
	cc_texts_free(rs->texts);
	cc_domain_free(rs->domain);
	cc_config_release(&rs->cfg);
	free(rs);
	return status;
}
