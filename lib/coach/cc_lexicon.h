/*
 * cc_lexicon.h: weighted cue lexicons: named classes of PCRE2 patterns over
 * folded text, each cue with a weight, and modifiers around a cue that
 * soften it (ちょっと, 〜けどやる), strengthen it (！, ー) or negate it
 * (〜じゃない, not ...).  The homework coach reads how a child feels
 * (emotion.cues) and whether the child asks for the answer
 * (answer_request.cues) with it.
 *
 * File format, one directive a line, '#' comments:
 *   class NAME [soft W] [strong W [as CLASS]]
 *       a class of cues; a softened cue of it weighs at most soft, an
 *       intensified one at least strong, and counts as CLASS if given
 *   cue CLASS WEIGHT PATTERN
 *       a cue: PATTERN (PCRE2, folded like the text) found in the text
 *       gives CLASS the weight (0-1)
 *   soften|intensify|negate before|after PATTERN
 *       a modifier: PATTERN ending where a cue begins (before) or
 *       beginning where it ends (after); negation wins over softening,
 *       softening over intensifying
 *   fix PATTERN => TEXT
 *       rewrite the folded text before matching (as in cc-rules(5))
 * Other directives are refused unless the caller names them (extra):
 * their lines are kept for the caller to read.
 *
 * Owns: the compiled patterns, match data and the last scan's text and
 * hits.  Borrows: cc_text (folding), cc_litindex (the prefilter).
 */
#ifndef CC_LEXICON_H
#define CC_LEXICON_H

#include <stddef.h>

struct cc_lexicon;

enum cc_lexicon_mod {
	CC_LEX_PLAIN,		/* as written */
	CC_LEX_SOFT,		/* softened: at most the class's soft weight */
	CC_LEX_STRONG,		/* intensified: at least its strong weight */
	CC_LEX_NEGATED,		/* negated: weight 0 */
};

/* One cue found by cc_lexicon_scan(): the best place of one cue line. */
struct cc_lexicon_hit {
	int cls;		/* the class it counts for (after "as") */
	int cue_cls;		/* the class it is written under */
	double weight;		/* after the modifiers; 0 when negated */
	double written;		/* the weight on the cue line */
	enum cc_lexicon_mod mod;
	int line;		/* the cue's line in the file */
	size_t start, end;	/* where, in cc_lexicon_text() */
};

/* A directive line the caller asked to keep (extra). */
struct cc_lexicon_line {
	const char *directive;
	const char *args;	/* the rest of the line, trimmed */
	int line;
};

/*
 * Load and compile a lexicon; NULL with a "path:line: why" message.
 * extra: a NULL-terminated list of directives the caller reads (or NULL).
 */
struct cc_lexicon *cc_lexicon_load(const char *path, const char *const *extra,
	char *err, size_t errlen);
void cc_lexicon_free(struct cc_lexicon *x);
const char *cc_lexicon_path(const struct cc_lexicon *x);
/* The lines of the extra directives, in file order. */
size_t cc_lexicon_nextra(const struct cc_lexicon *x);
const struct cc_lexicon_line *cc_lexicon_extra(const struct cc_lexicon *x, size_t i);
/* A class's number, or -1; its name. */
int cc_lexicon_class(const struct cc_lexicon *x, const char *name);
const char *cc_lexicon_class_name(const struct cc_lexicon *x, int cls);

/*
 * Fold the text, apply the fixes, find the cues: returns the number of
 * hits (at most one per cue line, in file order), valid until the next
 * scan.  Negated cues are kept, with weight 0, for traces.
 */
size_t cc_lexicon_scan(struct cc_lexicon *x, const char *text, size_t len);
const struct cc_lexicon_hit *cc_lexicon_hit(const struct cc_lexicon *x, size_t i);
/* The folded, fixed text of the last scan (NUL-terminated). */
const char *cc_lexicon_text(const struct cc_lexicon *x, size_t *len);
/*
 * Where [start, end) of the last scan's text came from in the text that
 * was scanned (orig, len: the same bytes): 0 with [*os, *oe), or -1 when
 * a fix rewrote the text or no span folds to it (then show the folded
 * text).  For showing people what matched (ギブアップ, not ぎぶあつぷ).
 */
int cc_lexicon_source(const struct cc_lexicon *x, const char *orig, size_t len,
	size_t start, size_t end, size_t *os, size_t *oe);

#endif
