/*
 * cc_domain.h: a domain's manifest (cc-domain(5)): what the domain is,
 * which stages run and in what order, its agents and how each is
 * answered, and what cc-eval scores.  Every program reads it, so that no
 * agent, category or venue is known to the C code: a stage asks the
 * manifest whether it runs at all and whether it acts on a record's agent.
 *
 * Owns: the parsed manifest.  Borrows: the configuration (which domain,
 * where its folder is).
 */
#ifndef CC_DOMAIN_H
#define CC_DOMAIN_H

#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_record.h"

/* How cc-respond answers an agent's records (cc-domain(5), ANSWERS). */
enum cc_answer_kind {
	CC_ANSWER_KB,		/* quote the knowledge base about the asked place */
	CC_ANSWER_EVENTS,	/* list the events of the asked range */
	CC_ANSWER_SEARCH,	/* knowledge base and web search (seed 002) */
	CC_ANSWER_MEMORY,	/* recall the session's earlier questions */
	CC_ANSWER_CLARIFY,	/* ask which one was meant */
	CC_ANSWER_TIME,		/* tell the date and time */
	CC_ANSWER_TOOL,		/* say what a domain stage's result asks for */
};

#define CC_DOMAIN_MAX_STAGES 16
#define CC_DOMAIN_MAX_LABELS 8

struct cc_domain_agent {
	char *name;
	enum cc_answer_kind answer;
	char *tool;		/* CC_ANSWER_TOOL: the record member to answer from */
	unsigned stages;	/* bit i: pipeline[i] acts on this agent */
	unsigned line;
};

/* A label cc-eval scores: the row's expect.NAME against the output's PATH. */
struct cc_domain_label {
	char *name;
	char *path;		/* dotted: route.agent, emotion.primary_emotion */
	char *alt;		/* a row member listing other accepted values, or NULL */
};

/*
 * Values cc-eval takes as one (eval-alias: the spec's name for the labels'
 * name), or, one way, a value it also accepts for a labelled one
 * (eval-accept: the original's fallback for "none").
 */
struct cc_domain_alias {
	char *label, *from, *to;	/* from and to as JSON text */
	int one_way;		/* eval-accept: a row labelled from accepts to */
};

struct cc_domain {
	char *path;		/* the manifest file */
	char *name, *description;
	char *pipeline[CC_DOMAIN_MAX_STAGES];	/* program names, in order */
	size_t nstages;
	struct cc_domain_agent *agents;
	size_t nagents;
	const struct cc_domain_agent *fallback;	/* of what no rule routes */
	char *fallback_category;
	double min_score;	/* a search answer's weakest passage (min-score) */
	/* cc-route's classifier (cc_examples.h): its labelled examples, a
	   path in the folder or NULL, and the margin it must win by */
	char *examples;
	double examples_margin;
	/* cc-eval */
	char *eval_query;	/* the row member holding the question */
	char *eval_alternatives;	/* a row member listing whole other labels */
	struct cc_domain_label labels[CC_DOMAIN_MAX_LABELS];
	size_t nlabels;
	struct cc_domain_alias *aliases;
	size_t naliases;
	/* owners: cc_domain_load() shares one manifest (read-only) among them */
	unsigned refs;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

/* The manifest's file name in a domain folder. */
#define CC_DOMAIN_FILE "domain"

/*
 * Read the manifest at path, reporting every problem to p; the manifest
 * is returned when it can be used at all, else NULL (no file, no
 * pipeline, no agents, no fallback).
 */
struct cc_domain *cc_domain_parse(const char *path, struct cc_problems *p);
/*
 * The configured domain's manifest, or die with CC_EXIT_USAGE and the
 * first problem (a program cannot serve a domain it cannot read).  Loads
 * of the same unchanged file share one manifest, which nobody changes:
 * the stages chained in one process read it once, not once each (issue
 * 16).  Each load is freed with cc_domain_free(), as before.
 */
struct cc_domain *cc_domain_load(const struct cc_config *cfg);
void cc_domain_free(struct cc_domain *d);
/*
 * cc_domain_load() for a stage: when the domain's pipeline does not run
 * stage->name, stage->process becomes NULL and every record passes on
 * untouched.
 */
struct cc_domain *cc_domain_for_stage(const struct cc_config *cfg,
	struct cc_stage *stage);

/*
 * A labelled value as the pipeline names it: the manifest's eval-alias
 * lines for the label (eval-accept is one way, not applied here).
 * Consumes v, which must be a valid value.
 */
jv cc_domain_label_value(const struct cc_domain *d, const char *label, jv v);

/* The word a manifest uses for an answer kind, and back (-1: none). */
const char *cc_answer_kind_name(enum cc_answer_kind k);
int cc_answer_kind_parse(const char *word);

/* 1 if the domain's pipeline runs the stage (a program name: cc-rag). */
int cc_domain_runs(const struct cc_domain *d, const char *stage);
/*
 * The agent named, or the fallback agent when the name is NULL or one the
 * manifest does not know (seed 000: an unknown agent goes to the general
 * one).
 */
const struct cc_domain_agent *cc_domain_agent(const struct cc_domain *d,
	const char *name);
/* The agent named, or NULL when the manifest does not define it. */
const struct cc_domain_agent *cc_domain_find_agent(const struct cc_domain *d,
	const char *name);
/*
 * 1 if a stage that serves some agents only (cc-rag, cc-event) acts on a
 * record routed to `agent`: the manifest lists the stage for the agent.
 * A record that was not routed (agent NULL) is always acted on, so each
 * stage stays useful alone.
 */
int cc_domain_acts(const struct cc_domain *d, const char *stage,
	const char *agent);

#endif
