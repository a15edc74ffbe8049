/*
 * cc_rules.h: decision rules as data (cc-rules(5)): cues (PCRE2 patterns),
 * slots decided by ordered conditions, typo fixes, what earlier turns of a
 * session said, and input slots set from members of the record.
 *
 * Owns: the compiled rules, their match data and the values of the last
 * evaluation.  Borrows: cc_text (folding), cc_litindex, cc_lang (cues that
 * name a language), cc_json for the trace.
 */
#ifndef CC_RULES_H
#define CC_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_record.h"

#define CC_RULES_MAX_SLOTS 64
struct cc_rules;

/*
 * What earlier turns of the session said: slot values by slot index, each
 * mapped through cc_rules_intern() (a value the rules never name is NULL
 * there, and equals nothing).
 */
struct cc_rules_context {
	int has_last;				/* the session has an earlier turn */
	const char *last[CC_RULES_MAX_SLOTS];	/* the turn just before */
	const char *prev[CC_RULES_MAX_SLOTS];	/* the last turn that gives context */
	/*
	 * This turn's input slots (cc_rules_input_slot), read by the caller
	 * from the record; NULL leaves one unset.  Copied by the evaluation.
	 */
	const char *input[CC_RULES_MAX_SLOTS];
};

/* Load and compile a rules file; NULL with a "path:line: why" message. */
struct cc_rules *cc_rules_load(const char *path, char *err, size_t errlen);
/*
 * cc_rules_load() with the compiled patterns, the prefilter's index and
 * the parsed rules kept in cache_dir (NULL: none), in a file named for
 * the rules file's path
 * (cc_rules_cache_path): taken from there when it was written for the
 * same rules text, program, PCRE2 and utf8proc versions, else compiled
 * and written there.  Compiling is most of a cold start (about 20 of
 * cc-route's 25 million instructions for the bundled rules).  A cache
 * file that is damaged, another's or unwritable costs the compile only.
 */
struct cc_rules *cc_rules_load_cached(const char *path, const char *cache_dir,
	char *err, size_t errlen);
char *cc_rules_cache_path(const char *cache_dir, const char *rules_path);	/* fresh */
/*
 * How many patterns a cache file's bytes hold for key (decoded with the
 * parsed rules, then freed), or -1 when they are not such a file: the
 * reader the loader uses, for the fuzz target.
 */
int cc_rules_cache_check(const unsigned char *data, size_t len, uint64_t key);
/*
 * The parsed rules' reader alone, for the fuzz target: bytes laid out as
 * u32 n, then a cache file's payload without its patterns (the flags',
 * the index's and the parsed rules' sections), read with n stand-in
 * patterns; n, or -1 when they are refused.
 */
int cc_rules_cache_check_parsed(const unsigned char *data, size_t len);
/*
 * cc_rules_load() that reads on past a problem and reports every one to p
 * as "path:line: why" (cc-domain check); NULL when there was one.  A
 * later problem may follow from an earlier one.
 */
struct cc_rules *cc_rules_check(const char *path, struct cc_problems *p);
void cc_rules_free(struct cc_rules *r);
/* Fold the text, run the cues, decide every slot.  ctx may be NULL. */
void cc_rules_eval(struct cc_rules *r, const char *text, size_t len,
	const struct cc_rules_context *ctx);
/* The value of a slot after cc_rules_eval(), or NULL (unset / null). */
const char *cc_rules_get(const struct cc_rules *r, const char *slot);
int cc_rules_slot(const struct cc_rules *r, const char *name);	/* -1 if none */
/* The rules' own copy of the value v, or NULL if the rules never name it. */
const char *cc_rules_intern(const struct cc_rules *r, const char *v);
/* The value of slot number `slot` (from cc_rules_slot), or NULL. */
const char *cc_rules_value(const struct cc_rules *r, int slot);
size_t cc_rules_nslots(const struct cc_rules *r);
const char *cc_rules_slot_name(const struct cc_rules *r, size_t i);
/*
 * Every literal value the rules can give slot, with its line (copies and
 * null left out); for "agent", also the context-skip agents, line 0.
 * For cc-domain check, which holds them to the manifest.
 */
void cc_rules_each_value(const struct cc_rules *r, const char *slot,
	void (*fn)(void *ctx, const char *value, int line), void *ctx);
/* 1 if turns routed to this agent give no context (context-skip). */
int cc_rules_skips_agent(const struct cc_rules *r, const char *agent);
/*
 * The cues that run on every query, the prefilter having no literal to
 * find them by (cc-rules(5)): their names in names[0..max), their count
 * returned.  Each costs every record a pattern match; tests keep the list.
 */
size_t cc_rules_unfiltered(const struct cc_rules *r, const char **names,
	size_t max);
/* 1 if this language cue means "take the session's language". */
int cc_rules_language_neutral(const struct cc_rules *r, const char *cue);
/*
 * The input directives ("input SLOT PATH"), in file order: the slot each
 * one sets, and the dotted path of the record member it is set from.
 */
size_t cc_rules_ninputs(const struct cc_rules *r);
/*
 * Set rc->input[] from the record's members at the input paths: a string
 * as it is, true, false or a number as its JSON text, upper-cased when the
 * input says so; anything else, or a string holding a NUL, leaves the slot
 * unset.  vals has room for
 * cc_rules_ninputs() strings, which cc_rules_inputs_release() frees once
 * the rules have been evaluated (they keep their own copies).
 */
void cc_rules_read_inputs(const struct cc_rules *r, struct cc_record *rec,
	struct cc_rules_context *rc, char **vals);
void cc_rules_inputs_release(const struct cc_rules *r, char **vals);
int cc_rules_input_slot(const struct cc_rules *r, size_t i);	/* -1 if none */
const char *cc_rules_input_path(const struct cc_rules *r, size_t i);
/*
 * 1 if no rule was sure of slot in the last evaluation: none decided it,
 * or the one that did has no condition ("otherwise").
 */
int cc_rules_by_default(const struct cc_rules *r, int slot);
/*
 * Decide slot (from cc_rules_slot) as value (NULL: null) in the
 * evaluations that follow, instead of by its rules, until
 * cc_rules_unpin(); the slots after it are decided with it, as if a rule
 * had.  The trace names it "SLOT:pinned".  cc-route pins what its
 * classifier learnt, and lets the rules decide the rest.
 */
void cc_rules_pin(struct cc_rules *r, int slot, const char *value);
void cc_rules_unpin(struct cc_rules *r);
/*
 * Whether a slot value was copied from an earlier turn in the last
 * evaluation: 0 no, 1 from the turn just before, 2 from the last turn
 * that gives context.
 */
int cc_rules_inherited(const struct cc_rules *r);
/*
 * The members the rules' output lines add to a record (cc-rules(5),
 * output): their number, the name and line of each, and all of them
 * written as key-value pairs into the object open in w.
 */
size_t cc_rules_noutputs(const struct cc_rules *r);
const char *cc_rules_output_name(const struct cc_rules *r, size_t i, int *line);
void cc_rules_write_outputs(const struct cc_rules *r, struct cc_jw *w);
/* The folded, fixed text the cues were matched against. */
const char *cc_rules_text(const struct cc_rules *r);
/*
 * Members "rules", "matched", "slots", "text" of the debug object.  Cues
 * are run only when a condition needs them, so "matched" lists the cues
 * that were needed and matched; "slots" leaves out those named in omit
 * (a NULL-terminated list, or NULL).
 */
void cc_rules_write_trace(struct cc_rules *r, struct cc_jw *w,
	const char *const *omit);

#endif
