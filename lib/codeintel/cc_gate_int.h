/*
 * cc_gate_int.h: what the gate's modules share and nobody else sees: the
 * loaded data, Python's string semantics (the vectors were made by running
 * the original Python, so lengths, lower(), split() and repr() must agree
 * with it), the QueryFrame rules, and the repository checks.
 *
 * Owns: nothing of its own.  Borrows: the strings it is given (struct gs
 * is a view, never freed).
 */
#ifndef CC_GATE_INT_H
#define CC_GATE_INT_H

#include <jv.h>
#include <stddef.h>
#include <stdint.h>

#include "cc_json.h"
#include "cc_gate.h"

/* A view of a UTF-8 string; may hold NUL bytes (JSON "\u0000"). */
struct gs {
	const char *s;
	size_t n;
};
#define GS(cstr) ((struct gs){ (cstr), strlen(cstr) })

/* A list of words, owned. */
struct strv {
	char **v;
	size_t n;
};
void strv_add(struct strv *l, const char *w);
int strv_has(const struct strv *l, const char *w);
void strv_free(struct strv *l);

enum gate_phase { PH_EXPLORATION, PH_SEMANTIC, PH_VERIFICATION, PH_READY, PH_N };
extern const char *const gate_phase_names[PH_N];
int gate_phase_parse(const char *name);	/* -1 if none */

enum gate_slot { SLOT_TARGET, SLOT_TRIGGER, SLOT_OBSERVED, SLOT_DESIRED, SLOT_N };
extern const char *const gate_slot_names[SLOT_N];
int gate_slot_parse(const char *name);	/* -1 if none */

/* What an intent does, from gate.conf's intent lines (no name in C). */
#define ROLE_CODE 1		/* needs code understanding: full requirements */
#define ROLE_BUILD 2		/* risk rule 3: HIGH when no slot is filled */
#define ROLE_CHANGE 4		/* risk rule 2: HIGH without target_feature */
struct gate_intent {
	char *name;
	unsigned roles;
	int start;		/* the phase a session starts in */
	struct strv required_phases;	/* get_required_phases' labels */
};

struct gate_req {
	struct strv intents, risks;	/* empty: any */
	int symbols, entry_points, files, patterns;
	unsigned slots;		/* bit per enum gate_slot: required evidence */
};

struct gate_reason {
	char *key;		/* a missing requirement's key */
	struct strv reasons;
};

struct gate_synonym {
	char *key;		/* matched in the NL term as written */
	struct strv terms;	/* matched in the lower-cased texts */
};

struct gate_hint {
	char *hint, *action;
	struct strv tools;
};

/* A message of the original's that names the toolset: data, not C. */
struct gate_text {
	char *key, *text;
};

struct cc_gate {
	struct strv phase_tools[PH_N];
	int phase_all[PH_N];		/* '*': every tool */
	struct strv known;		/* every tool a phase line names */
	struct gate_intent *intents;
	size_t nintents;
	int default_intent;		/* index; -1 until set */
	struct gate_req *reqs;
	size_t nreqs;
	struct strv required_tools, verification_tools, devrag_reasons,
	    always_reasons;
	struct gate_reason *reasons;
	size_t nreasons;
	struct gate_synonym *synonyms;
	size_t nsynonyms;
	struct gate_hint hints[SLOT_N];
	struct cc_buf prompt;		/* the extraction prompt, {query} in it */
	struct gate_text *texts;
	size_t ntexts;
	char *repo;			/* real path, or NULL: evidence trusted */
	char *log_dir;			/* NULL: no logs written */
};

/* gate.conf's text KEY: its words, or "" (every key used is checked at load). */
const char *gate_text(const struct cc_gate *g, const char *key);
/* The keys gate.conf must give a text for. */
extern const char *const gate_text_keys[];

/* ---- Python's str, on UTF-8 (cc_gate_str.c) ---- */
size_t py_len(struct gs s);			/* code points */
/* str.lower(): a fresh NUL-terminated string (*outn: its bytes). */
char *py_lower(struct gs s, size_t *outn);
/* needle in hay (code points; "" is in everything). */
int py_in(struct gs needle, struct gs hay);
/* str.split(): at most max words, returned in w; the count. */
size_t py_split(struct gs s, struct gs *w, size_t max);
/* The distinct code points of s, sorted, into a fresh array; the count. */
size_t py_charset(struct gs s, int32_t **out);
/* repr() of a str, a list of str (a jv array, borrowed), a sorted set. */
void py_repr(struct cc_buf *b, struct gs s);
void py_repr_list(struct cc_buf *b, jv list);
void py_repr_set(struct cc_buf *b, const char *const *items, size_t n);
/* posixpath.normpath, dirname, basename: fresh strings. */
char *py_normpath(const char *p);
char *py_dirname(const char *p);
char *py_basename(const char *p);
/* ASCII upper case of a fresh copy (intent names). */
char *gate_upper(const char *s);

/* ---- the QueryFrame rules (cc_gate_frame.c) ---- */
/* _is_semantically_consistent(value, quote) */
int gate_consistent(struct gs value, struct gs quote);
/* is_related(nl_term, symbol), with gate.frame's synonyms */
int gate_related(const struct cc_gate *g, struct gs nl, struct gs sym);
/* A slot's value from a frame object (borrowed): NULL unless a non-empty string. */
const char *gate_slot_value(jv frame, int slot, size_t *n);
/* assess_risk_level: "HIGH", "MEDIUM" or "LOW". */
const char *gate_risk(const struct cc_gate *g, jv frame, const struct gate_intent *in);
/* get_missing_slots as a jv array of names. */
jv gate_missing_slots(jv frame);
/* generate_investigation_guidance(missing) */
jv gate_guidance(const struct cc_gate *g, jv missing);
/* get_dynamic_requirements: the first requires line for risk and intent. */
const struct gate_req *gate_requirements(const struct cc_gate *g,
	const char *risk, const struct gate_intent *in);
jv gate_requirements_json(const struct cc_gate *g, const struct gate_req *r);
const struct gate_intent *gate_intent_find(const struct cc_gate *g, const char *name);

/* Count one OutcomeLog line into the statistics (borrows line; consumes stats). */
jv gate_stats_add(jv stats, jv line);

/* ---- the repository (cc_gate_repo.c) ---- */
struct gate_files;	/* files read for one check, bounded */
struct gate_files *gate_files_new(const struct cc_gate *g);
void gate_files_free(struct gate_files *f);
/*
 * Add a submitted path: 0 when it is a regular file under the repository
 * (read, up to a bound), else -1 with why ("does not exist", "leads
 * outside the repository", "'..' is not allowed").
 */
int gate_files_add(struct gate_files *f, struct gs path, char *why, size_t whylen);
/*
 * Find a name in the files added: a symbol (as a whole identifier), a
 * dotted or called name (every part), a route or any other text (as it
 * is).  1 with where ("auth/login.py:12, defined"), 0 with why.
 */
int gate_files_find(struct gate_files *f, struct gs name, char *where, size_t wlen);
/* Where a write target stands: 1 exists, 0 does not, -1 outside (why set). */
int gate_repo_target(const struct cc_gate *g, const char *path, char **rel,
	char *why, size_t whylen);

#endif
