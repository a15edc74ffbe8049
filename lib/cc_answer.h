/*
 * cc_answer.h: composed answers: each agent answered the way the domain's
 * manifest says (cc-domain(5)), from what earlier stages found (passages,
 * events, the session's turns, a domain stage's result) and the domain's
 * response texts, without an LLM; and the prompts and checks for an
 * optional one.
 *
 * Owns: the answer it composes.  Borrows: the record, the session store,
 * the texts and the domain, which the caller keeps alive.
 */
#ifndef CC_ANSWER_H
#define CC_ANSWER_H

#include <jv.h>
#include <stddef.h>
#include <time.h>

#include "cc_json.h"
#include "cc_record.h"
#include "cc_session.h"
#include "cc_texts.h"
#include "cc_domain.h"

struct cc_answerer {
	const struct cc_domain *domain;	/* how each agent is answered */
	const struct cc_texts *texts;
	time_t now;			/* CC_NOW or the clock */
	long window;			/* the session memory window, seconds */
	double general_min_score;	/* weaker passages do not answer */
	/*
	 * Optional (NULL: none): what one record's answer leaves for the
	 * next.  A run's records read the same week of events, and writing
	 * its list (dates formatted, titles cut to the language) was a
	 * tenth of an answer's work.
	 */
	struct cc_answer_memo *memo;
};

/* A memo for cc_answerer.memo; the caller frees it after the last answer. */
struct cc_answer_memo *cc_answer_memo_new(void);
void cc_answer_memo_free(struct cc_answer_memo *m);

struct cc_answer {
	struct cc_buf text;		/* with its emotion tag first */
	const char *emotion;		/* helpful, excited, apologetic */
	double confidence;
	const char *sources[4];		/* knowledge_base, web_search, ... */
	int nsources;
	jv passages;			/* ids of the passages quoted */
	int events;			/* events listed */
	char agent_name[48];
	enum cc_answer_kind kind;	/* how it was answered */
	char language[4];
	long long turn;			/* the session turn, or -1 */
	/* the route's category and request type, of any kind, or invalid */
	jv category, request_type;
};

void cc_answer_init(struct cc_answer *a);
void cc_answer_release(struct cc_answer *a);
/*
 * Compose the answer for a routed record (route, retrieval, events);
 * store (may be NULL) gives the session's turns to a memory question.
 * Returns -1 when the record has no route or query.
 */
int cc_answer_compose(const struct cc_answerer *ar, struct cc_record *rec,
	struct cc_session *store, struct cc_answer *a);
/*
 * The system and user prompts (seeds 002 and 004) for putting a composed
 * answer to an LLM; -1 when there is nothing to ground one in (time,
 * memory, clarification, nothing found).  The user prompt is also the
 * grounding that cc_answer_check() holds the LLM's answer to.
 */
int cc_answer_prompt(const struct cc_answerer *ar, struct cc_record *rec,
	const struct cc_answer *a, struct cc_buf *system, struct cc_buf *user);
/* 0 if every number the text states is in the grounding; else -1 and why. */
int cc_answer_check(const char *text, const char *grounding, char *why,
	size_t whylen);
/* The length of the emotion tag s begins with ([happy] ...), or 0. */
size_t cc_answer_tag(const char *s);
/* Make the LLM's text the answer, with the rules' emotion tag if it has none. */
void cc_answer_use_llm(struct cc_answer *a, const char *text);

#endif
