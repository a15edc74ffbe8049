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
#include "cc_qframe.h"
#include "cc_synonyms.h"
#include "cc_explore.h"

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

/* The QueryFrame's slots are cc-frame's (cc_qframe.h). */
enum gate_slot {
	SLOT_TARGET = CC_QF_TARGET,
	SLOT_TRIGGER = CC_QF_TRIGGER,
	SLOT_OBSERVED = CC_QF_ISSUE,
	SLOT_DESIRED = CC_QF_ACTION,
	SLOT_N = CC_QF_NSLOTS
};
#define gate_slot_names cc_qframe_slot_names
int gate_slot_parse(const char *name);	/* -1 if none */

/* What an intent does, from gate.conf's intent lines. */
#define ROLE_CODE 1		/* needs code understanding: full requirements */
struct gate_intent {
	char *name;
	unsigned roles;
	int start;		/* the phase a session starts in */
	struct strv required_phases;	/* get_required_phases' labels */
};

struct gate_reason {
	char *key;		/* a missing requirement's key */
	struct strv reasons;
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
	struct strv verification_tools, devrag_reasons, always_reasons;
	struct gate_reason *reasons;
	size_t nreasons;
	/* the QueryFrame's data, cc-frame's: synonyms, guidance, requirements */
	struct cc_synonyms *synonyms;
	struct cc_explore *explore;
	struct gate_text *texts;
	size_t ntexts;
	char *repo;			/* real path, or NULL: evidence trusted */
	char *log_dir;			/* NULL: no log files written */
	int log_store;			/* logs to the session store instead */
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
/* dir "/" name: a fresh string. */
char *gate_path_join(const char *dir, const char *name);
/* ASCII upper case of a fresh copy (intent names). */
char *gate_upper(const char *s);

/*
 * ---- the QueryFrame as a session holds it, put to cc-frame's rules
 * (cc_qframe, cc_synonyms, cc_explore) (cc_gate_frame.c) ----
 */
/* A slot's value from a frame object (borrowed): NULL unless a non-empty string. */
const char *gate_slot_value(jv frame, int slot, size_t *n);
/* assess_risk_level (cc_qframe_risk): "HIGH", "MEDIUM" or "LOW". */
const char *gate_risk(jv frame, const struct gate_intent *in);
/* get_missing_slots as a jv array of names. */
jv gate_missing_slots(jv frame);
/* generate_investigation_guidance(missing): {missing_slots, hints, recommended_tools} */
jv gate_guidance(const struct cc_gate *g, jv missing);
/*
 * get_dynamic_requirements: the requirements file's object for the risk
 * and intent ({symbols_identified, ..., required_slot_evidence,
 * required_tools}); owned.
 */
jv gate_requirements(const struct cc_gate *g, const char *risk, const struct gate_intent *in);
/* A count of such an object (borrowed), 0 when absent. */
int gate_requirement(jv req, const char *key);
/* is_related(nl_term, symbol) with the domain's synonyms. */
int gate_related(const struct cc_gate *g, struct gs nl, struct gs sym);
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
