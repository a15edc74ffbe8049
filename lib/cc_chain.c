/*
 * Stages chained in one process.  Each stage keeps its own configuration,
 * domain and stores, opened as its program opens them, so the only thing
 * that changes is that no pipe lies between them: a record is the same
 * text when it reaches the next stage, and a stage's failure on a record
 * is the same error record, which the later stages pass on untouched.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_record.h"
#include "cc_session.h"
#include "cc_stages.h"
#include "cc_chain.h"
#include "cc_kb.h"

enum kind { DETECT, ROUTE, EVENT, RAG, RESPOND };

static const char *const names[] = {
	[DETECT] = "cc-detect-lang", [ROUTE] = "cc-route", [EVENT] = "cc-event",
	[RAG] = "cc-rag", [RESPOND] = "cc-respond",
};
#define NKINDS (sizeof names / sizeof names[0])

struct link {
	enum kind kind;
	struct cc_stage stage;
	struct cc_record_stream *stream;
};

struct cc_chain {
	struct link *links;
	size_t n;
	/* CC_CHAIN_BATCH: cc-route's and cc-respond's store, and whether
	   the stages' flush() waits for cc_chain_flush() */
	struct cc_session *shared;
	int batch;
	struct cc_chain *next;	/* left at exit before it */
};

static int
kind_of(const char *name)
{
	for (size_t k = 0; k < NKINDS; k++)
		if (strcmp(name, names[k]) == 0)
			return (int)k;
	return -1;
}

int
cc_chain_has(const char *name)
{
	return kind_of(name) >= 0;
}

static const struct cc_rag_options rag_options = CC_RAG_OPTIONS_INIT;

/* What the stage's program would do with no options. */
static int
open_stage(struct link *l, struct cc_session **shared, char *err, size_t errlen)
{
	const struct cc_route_options ro = { .shared = shared };
	static const struct cc_event_stage_options eo;
	/* no reader of a stream in one process: the answer comes whole */
	const struct cc_respond_options po = { .no_stream = 1, .shared = shared };

	switch (l->kind) {
	case DETECT: return cc_detect_open(&l->stage, err, errlen);
	case ROUTE: return cc_route_open(&l->stage, &ro, err, errlen);
	case EVENT: return cc_event_open(&l->stage, &eo, err, errlen);
	case RAG: return cc_rag_open(&l->stage, &rag_options, err, errlen);
	case RESPOND: return cc_respond_open(&l->stage, &po, err, errlen);
	}
	return CC_EXIT_INTERNAL;
}

static int
close_stage(struct link *l, int status)
{
	switch (l->kind) {
	case DETECT: return cc_detect_close(&l->stage, status);
	case ROUTE: return cc_route_close(&l->stage, status);
	case EVENT: return cc_event_close(&l->stage, status);
	case RAG: return cc_rag_close(&l->stage, status);
	case RESPOND: return cc_respond_close(&l->stage, status);
	}
	return CC_EXIT_INTERNAL;
}

/*
 * Messages a stage writes carry its program's name, as they did from its
 * own process; the caller's name comes back after.
 */
static const char *
speak_as(const struct link *l)
{
	const char *was = cc_progname;

	cc_progname = names[l->kind];
	return was;
}

static int
close_links(struct cc_chain *c, size_t n, int leave)
{
	int worst = CC_EXIT_OK;

	for (size_t i = 0; i < n; i++) {
		struct link *l = &c->links[i];
		const char *was = speak_as(l);
		int s = cc_record_stream_free(l->stream);

		l->stream = NULL;
		l->stage.leave = leave;
		s = close_stage(l, s);
		cc_progname = was;
		if (s > worst)
			worst = s;
	}
	/* the stages flushed it as they ended: this commits nothing new */
	cc_session_close(c->shared);
	c->shared = NULL;
	return worst;
}

struct cc_chain *
cc_chain_open(char *const *stages, size_t n, int *status, char *err, size_t errlen)
{
	return cc_chain_open_flags(stages, n, 0, status, err, errlen);
}

struct cc_chain *
cc_chain_open_flags(char *const *stages, size_t n, int flags, int *status,
    char *err, size_t errlen)
{
	int route = 0, respond = 0;
	struct cc_chain *c;

	/*
	 * No page cache allocated ahead: by default each SQLite connection
	 * (and each temporary b-tree) takes twenty 4 kB slots at its first
	 * page and writes a header into every one, so a cold question
	 * faulted in three such blocks, 261 kB, to read a few pages that
	 * the index's mapping now mostly serves (issue 16).  It has to come
	 * before SQLite's first use; later (a second chain in one process)
	 * SQLite refuses it, harmlessly.
	 */
	sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)NULL, 0, 0);
	c = cc_xmalloc(sizeof *c);

	*status = 0;
	*err = '\0';
	memset(c, 0, sizeof *c);
	c->links = cc_xmalloc((n ? n : 1) * sizeof *c->links);
	memset(c->links, 0, (n ? n : 1) * sizeof *c->links);
	for (size_t i = 0; i < n; i++) {
		if (kind_of(stages[i]) < 0)
			goto fail;
		route |= kind_of(stages[i]) == ROUTE;
		respond |= kind_of(stages[i]) == RESPOND;
	}
	c->batch = (flags & CC_CHAIN_BATCH) != 0;
	for (c->n = 0; c->n < n; c->n++) {
		struct link *l = &c->links[c->n];
		const char *was;

		l->kind = (enum kind)kind_of(stages[c->n]);
		was = speak_as(l);
		/* one store for both, when both are here */
		*status = open_stage(l, c->batch && route && respond ? &c->shared : NULL,
		    err, errlen);
		cc_progname = was;
		if (*status)
			goto fail;
		l->stream = cc_record_stream_new(&l->stage);
		if (c->batch)
			cc_record_stream_hold(l->stream);
		/*
		 * The index cc-rag will search is opened on the second core
		 * while the stages before it open (cc-route's rules, cc-event's
		 * calendars): a fifth of a cold question's instructions were
		 * the index's open and statements (issue 16).  Started once a
		 * stage has accepted the configuration, so that a bad one is
		 * still refused by that stage, under its name.
		 */
		if (c->n == 0)
			for (size_t k = 1; k < n; k++)
				if (kind_of(stages[k]) == RAG) {
					cc_rag_open_ahead(&rag_options);
					break;
				}
	}
	cc_kb_ahead_end();
	return c;
fail:
	cc_kb_ahead_end();
	close_links(c, c->n, 0);
	free(c->links);
	free(c);
	return NULL;
}

void
cc_chain_line(struct cc_chain *c, const char *line, size_t len,
    struct cc_buf *out)
{
	/*
	 * Each stage hands its record to the next as the document that
	 * stage would have read from the line (cc_record_stream_pass): the
	 * record is checked and indexed once, not once a stage.
	 */
	for (size_t i = 0; i < c->n; i++) {
		struct link *l = &c->links[i];
		struct cc_record_stream *next = i + 1 < c->n ? c->links[i + 1].stream : NULL;
		const char *was = speak_as(l);
		int on = cc_record_stream_pass(l->stream, i ? NULL : line, len, next, out);

		cc_progname = was;
		if (!on)
			return;	/* nothing left to hand on */
	}
}

void
cc_chain_line_at(struct cc_chain *c, const char *line, size_t len,
    unsigned long line_no, unsigned long record_no, struct cc_buf *out)
{
	for (size_t i = 0; i < c->n; i++)
		cc_record_stream_seek(c->links[i].stream, i ? record_no : line_no);
	cc_chain_line(c, line, len, out);
}

/* Each stage's hook (flush or idle) where it has one, said as that stage. */
static void
each_stage(struct cc_chain *c, int idle)
{
	for (size_t i = 0; i < c->n; i++) {
		struct link *l = &c->links[i];
		void (*hook)(void *) = idle ? l->stage.idle : l->stage.flush;

		if (hook) {
			const char *was = speak_as(l);

			hook(l->stage.ctx);
			cc_progname = was;
		}
	}
}

void
cc_chain_flush(struct cc_chain *c)
{
	if (c->batch)	/* otherwise each record flushed them already */
		each_stage(c, 0);
}

void
cc_chain_idle(struct cc_chain *c)
{
	cc_chain_flush(c);
	each_stage(c, 1);
}

int
cc_chain_close(struct cc_chain *c)
{
	int worst;

	if (!c)
		return CC_EXIT_OK;
	worst = close_links(c, c->n, 0);
	free(c->links);
	free(c);
	return worst;
}

int
cc_chain_close_at_exit(struct cc_chain *c)
{
	static struct cc_chain *left;	/* what the exit frees */

	if (!c)
		return CC_EXIT_OK;
	c->next = left;
	left = c;
	return close_links(c, c->n, 1);
}
