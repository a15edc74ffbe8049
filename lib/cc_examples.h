/*
 * cc_examples.h: a domain's labelled example utterances and the router
 * model learnt from them (cc-domain(5), `examples`).
 *
 * The examples file is written like a labelled eval file: one JSON
 * object a line, the question in the manifest's eval-query member and
 * its route in "expect", named by the manifest's eval-label lines
 * (agent, category, request_type: the route members a classifier can
 * decide), with the manifest's eval-alias names allowed.  A row marked
 * "ambiguous": true teaches nothing and is skipped.
 *
 * The model is a file in the cache (CC_ROUTER_MODEL, else
 * $XDG_CACHE_HOME/concierge/router-DOMAIN.model), learnt again whenever
 * the examples file changes, like the knowledge-base index.
 *
 * Owns: the examples read and the path strings it returns.  Borrows: the
 * configuration and the manifest.
 */
#ifndef CC_EXAMPLES_H
#define CC_EXAMPLES_H

#include <stddef.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_domain.h"
#include "cc_classify.h"

/* The route members a label sets, in the order a label string joins them. */
#define CC_EXAMPLES_NSLOTS 3
extern const char *const cc_examples_slots[CC_EXAMPLES_NSLOTS];
/* The separator of a label string's values (a value may be empty: null). */
#define CC_EXAMPLES_SEP '\x1f'

/* The margin a classifier's verdict must win by, when the manifest is silent. */
#define CC_EXAMPLES_MARGIN 0.25

struct cc_examples {
	char **texts;
	size_t *label;		/* texts[i]'s label: an index into labels */
	size_t n;
	char **labels;		/* label strings, in order of first use */
	size_t nlabels;
};

/*
 * Read the domain's examples (path, or the manifest's examples file when
 * NULL), reporting every problem as FILE:LINE to p.  0, or -1 when there
 * is no file to read; rows with problems are left out.
 */
int cc_examples_read(const struct cc_config *cfg, const struct cc_domain *d,
	const char *path, struct cc_examples *ex, struct cc_problems *p);
void cc_examples_release(struct cc_examples *ex);

/* Where the domain's model is kept (fresh string). */
char *cc_examples_model_path(const struct cc_config *cfg);

/*
 * The domain's router model: the one in the cache when it was learnt
 * from the examples as they are now, else learnt now and saved there
 * (a cache that cannot be written is a warning, not a failure).  NULL
 * with err set when the domain has no examples or they cannot be read.
 * force: learn again whatever the cache holds.
 */
struct cc_classify *cc_examples_model(const struct cc_config *cfg,
	const struct cc_domain *d, int force, char *err, size_t errlen);

/* Split a label string into its CC_EXAMPLES_NSLOTS values, in place. */
void cc_examples_split(char *label, char *values[CC_EXAMPLES_NSLOTS]);

#endif
