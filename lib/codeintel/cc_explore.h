/*
 * cc_explore.h: what seed 003 asks a coding agent to explore before it may
 * write: investigation guidance for the slots a request leaves missing
 * (generate_investigation_guidance) and the exploration requirements for
 * its risk and intent (get_exploration_requirements), both from the
 * domain's data (the guidance and requirements files, code-intel(5)).
 *
 * Owns: the loaded tables.  Borrows: the JSON writer it writes into.
 */
#ifndef CC_EXPLORE_H
#define CC_EXPLORE_H

#include <jv.h>
#include <stddef.h>

#include "cc_json.h"
#include "cc_qframe.h"

struct cc_explore;

/* Read both files; NULL with "path:line: why" in err. */
struct cc_explore *cc_explore_load(const char *guidance, const char *requirements,
	char *err, size_t errlen);
void cc_explore_free(struct cc_explore *x);

/*
 * {"hints": [{slot, hint, action}...], "recommended_tools": [...]} for the
 * slots marked missing, in slot order; the tools of each, first
 * occurrence kept.
 */
void cc_explore_write_guidance(const struct cc_explore *x,
	const int missing[CC_QF_NSLOTS], struct cc_jw *w);
/* The recommended tools alone, ", "-separated, into b (for a reply). */
void cc_explore_tools_text(const struct cc_explore *x,
	const int missing[CC_QF_NSLOTS], struct cc_buf *b);
/*
 * The requirements of the first require line that names the intent and
 * the risk (or *): each count, "required_slot_evidence" and
 * "required_tools", as one object.
 */
void cc_explore_write_requirements(const struct cc_explore *x,
	const char *intent, const char *risk, struct cc_jw *w);

/* The same two objects as owned jv values (for cc-gate, which keeps jv). */
jv cc_explore_guidance_jv(const struct cc_explore *x, const int missing[CC_QF_NSLOTS]);
jv cc_explore_requirements_jv(const struct cc_explore *x, const char *intent,
	const char *risk);

#endif
