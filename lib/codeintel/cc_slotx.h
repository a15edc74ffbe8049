/*
 * cc_slotx.h: a deterministic QueryFrame extractor: the four slots of seed
 * 003 quoted from a request by ordered patterns that are the domain's
 * data (frame.patterns, code-intel(5)), where the original asked an LLM.
 *
 * Rules are tried in file order; each fills its slot with the span of its
 * group q (or its whole match) unless the slot is filled already.  A slot
 * that is filled is masked in the text the later rules see (its bytes
 * become one control character per slot, \x01 target_feature, \x02
 * trigger_condition, \x03 observed_issue, \x04 desired_action), so a
 * later rule can neither quote it again nor overlap it, and can anchor on
 * it: {T} {C} {I} {A} in a pattern stand for those masks (a whole run,
 * possessively), {M} for one masked character of any slot, {R} for a run.
 * Every quote is a span of the request as it was given.
 *
 * Owns: the compiled patterns and their match data.  Borrows: the text.
 */
#ifndef CC_SLOTX_H
#define CC_SLOTX_H

#include <stddef.h>

#include "cc_qframe.h"

struct cc_slotx;

/* A slot's quote: text[start..end), set when end > start; line: its rule. */
struct cc_slotx_span {
	size_t start, end;
	int line;
};

/* Read and compile a patterns file; NULL with "path:line: why" in err. */
struct cc_slotx *cc_slotx_load(const char *path, char *err, size_t errlen);
void cc_slotx_free(struct cc_slotx *x);
/*
 * Quote the slots of text[0..len) (valid UTF-8) for a request of the
 * intent given (rules restricted to other intents are skipped; a "none"
 * intent gets no slot).
 */
void cc_slotx_extract(struct cc_slotx *x, const char *text, size_t len,
	const char *intent, struct cc_slotx_span spans[CC_QF_NSLOTS]);

#endif
