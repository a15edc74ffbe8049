/*
 * cc_qframe.h: seed 003's QueryFrame: four slots quoted from a developer's
 * request, the check that keeps an extractor (an LLM, or anything else)
 * from inventing them, the slots still missing, and the risk they leave.
 *
 * Every rule is the seed's (llm-helper v3.6, tools/query_frame.py), and
 * strings are treated as its Python does: lengths in code points,
 * lower() as Unicode's, split() on Unicode white space (U+3000 too),
 * substrings as code-point substrings (bytes of valid UTF-8 are the same).
 *
 * Owns: nothing; every function borrows its strings, which are
 * (pointer, length) pairs of UTF-8 that need not be NUL-terminated, and
 * its jv values.
 */
#ifndef CC_QFRAME_H
#define CC_QFRAME_H

#include <jv.h>
#include <stddef.h>

/* The four slots, in the seed's order (get_missing_slots). */
enum cc_qf_slot {
	CC_QF_TARGET,		/* target_feature: the feature, module, symbol */
	CC_QF_TRIGGER,		/* trigger_condition: when it happens */
	CC_QF_ISSUE,		/* observed_issue: what goes wrong */
	CC_QF_ACTION,		/* desired_action: what to change */
	CC_QF_NSLOTS
};
extern const char *const cc_qframe_slot_names[CC_QF_NSLOTS];
/* The slot named name[0..len), or -1. */
int cc_qframe_slot(const char *name, size_t len);

/*
 * The extraction prompt of seed 003 (QueryDecomposer.get_extraction_prompt,
 * as it stands), to be followed by the request: what cc-frame sends an LLM
 * and what cc-gate's start_session hands a coding agent.
 */
extern const char cc_qframe_prompt[];

/* A frame: each slot's value, empty when len is 0 (Python's falsy). */
struct cc_qframe {
	const char *value[CC_QF_NSLOTS];
	size_t len[CC_QF_NSLOTS];
	/* slot_source HYPOTHESIS (the seed's risk rule 5), by slot */
	int hypothesis[CC_QF_NSLOTS];
};

/*
 * A slot as an extractor gave it ({"value": ..., "quote": ...}): given
 * when it is not null or absent; value and quote point into the jv the
 * slot came from (NULL when not a string), which must outlive them.
 */
struct cc_qf_given {
	int given;
	const char *value, *quote;
	size_t vlen, qlen;
};
/* The slots of an extraction object {slot: {value, quote} | null}; borrows obj. */
void cc_qframe_given(jv obj, struct cc_qf_given out[CC_QF_NSLOTS]);
/*
 * The extraction object in an LLM's answer text[0..len): from its first
 * '{' to its last '}' (fences and prose around it are tolerated).  An
 * owned object, or jv_invalid().
 */
jv cc_qframe_parse_answer(const char *text, size_t len);

/* Code points in s[0..len) (Python's len()). */
size_t cc_qframe_len(const char *s, size_t len);

/*
 * _is_semantically_consistent(value, quote): after lower-casing both, one
 * contains the other, or they share a white-space-separated word, or at
 * least half of the smaller set of characters (particles が を に で は
 * の と も left out) is common to both.
 */
int cc_qframe_consistent(const char *value, size_t vlen, const char *quote,
	size_t qlen);

/* Why validate_slot refused a slot, or CC_QF_VALID. */
enum cc_qf_verdict {
	CC_QF_VALID,
	CC_QF_NO_VALUE,		/* the value is missing or empty */
	CC_QF_NO_QUOTE,		/* the quote is missing or empty */
	CC_QF_NOT_QUOTED,	/* the quote is not in the request */
	CC_QF_INCONSISTENT,	/* the value has nothing to do with the quote */
};
/* The verdict's word in records: "valid", "no_value", ... */
const char *cc_qframe_verdict_name(enum cc_qf_verdict v);
/*
 * validate_slot: the value must be set, the quote must stand in the raw
 * request exactly (case and spaces too), and the value must be
 * consistent with the quote.  NULL stands for a missing value or quote.
 */
enum cc_qf_verdict cc_qframe_validate(const char *value, size_t vlen,
	const char *quote, size_t qlen, const char *raw, size_t rawlen);

/*
 * The intent as Router.create_plan normalises what a caller gives:
 * upper-cased, one of IMPLEMENT, MODIFY, INVESTIGATE, QUESTION, else
 * (unknown, or NULL) INVESTIGATE.  A static string.
 */
const char *cc_qframe_intent(const char *s, size_t len);

/*
 * assess_risk_level, the first rule that holds:
 *   HIGH    desired_action without observed_issue (any intent);
 *   HIGH    MODIFY without target_feature;
 *   HIGH    IMPLEMENT with no slot at all;
 *   MEDIUM  observed_issue shorter than 10 code points;
 *   MEDIUM  any slot marked HYPOTHESIS;
 *   LOW     otherwise.
 * intent is compared as it is (an unknown one acts as INVESTIGATE).
 * Returns "HIGH", "MEDIUM" or "LOW".
 */
const char *cc_qframe_risk(const struct cc_qframe *f, const char *intent);

#endif
