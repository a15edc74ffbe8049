/*
 * cc_xtools.h: the exploration tools seed 003's gate counts, with the
 * original server's names, arguments and input schemas (cc-mcp(1)):
 * find_definitions, find_references, search_text, get_symbols,
 * analyze_structure, over one repository, built on Universal Ctags and
 * ripgrep run with an argv array (no shell), a time limit and an output
 * cap.  Every list in an answer is bounded and says when it was cut.
 *
 * Paths given by the agent are confined to the repository: they are
 * resolved (symlinks too) and refused unless they stay under its root;
 * answers name files relative to it.
 *
 * Owns: the repository's real path.  Borrows: the arguments it is given.
 */
#ifndef CC_XTOOLS_H
#define CC_XTOOLS_H

#include <jv.h>
#include <stddef.h>

struct cc_xtools {
	char *root;		/* the repository's real path */
	const char *ctags, *rg;	/* the programs (default "ctags", "rg") */
	long timeout_ms;	/* each helper's time limit */
	size_t max_results;	/* the largest list an answer holds */
	size_t out_cap;		/* bytes read from one helper */
};

struct cc_xtool_def {
	const char *name;
	const char *description;	/* the original's */
	const char *input_schema;	/* JSON text: the original's */
};
extern const struct cc_xtool_def cc_xtool_defs[];
extern const size_t cc_xtool_ndefs;
/* The definition of tool `name`, or NULL. */
const struct cc_xtool_def *cc_xtool_def(const char *name);

/* Set defaults and the repository (its real path); -1 with err if it is no directory. */
int cc_xtools_init(struct cc_xtools *x, const char *repo, char *err, size_t errlen);
void cc_xtools_release(struct cc_xtools *x);

/*
 * Run tool `name` on args (an object; borrowed).  Returns the answer; an
 * answer with an "error" member is a failure (bad argument, path outside
 * the repository, a helper missing, failed or timed out).
 */
jv cc_xtools_call(struct cc_xtools *x, const char *name, jv args);

/*
 * The path p (relative to the root, or absolute under it) made relative to
 * the root ("." for the root itself), malloc'd; NULL with why in err when
 * it does not exist or leads outside.
 */
char *cc_xtools_confine(const struct cc_xtools *x, const char *p, char *err,
	size_t errlen);

#endif
