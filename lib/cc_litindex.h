/*
 * cc_litindex.h: a literal prefilter for regular expressions: the literals a
 * pattern's matches must begin with, found in one pass over a text, so
 * the rules run only the patterns that can match.
 *
 * Owns: its index.  Borrows: nothing.
 */
#ifndef CC_LITINDEX_H
#define CC_LITINDEX_H

#include <stddef.h>

struct cc_litindex;
struct cc_litindex *cc_litindex_new(void);
void cc_litindex_free(struct cc_litindex *x);
/*
 * Index the literals every match of `pattern` (PCRE2 syntax, folded) must
 * begin with, for `target`.  Returns -1 when there is no such set (the
 * pattern can begin with anything): the caller must always run it.
 */
int cc_litindex_add_pattern(struct cc_litindex *x, const char *pattern,
	int target);
/*
 * The literals filed so far, in the order they were (for a cache of the
 * index: adding them again in that order builds the same index; a literal's
 * n bytes, not NUL-terminated, valid until the next add), and one literal
 * added as it is (already folded; n > 0 bytes, copied).
 */
size_t cc_litindex_size(const struct cc_litindex *x);
const char *cc_litindex_get(const struct cc_litindex *x, size_t i, size_t *n,
	int *target);
void cc_litindex_add_literal(struct cc_litindex *x, const char *s, size_t n,
	int target);
/*
 * The index as built, appended to b (for a cache: bytes in this
 * machine's order), and an index from such bytes, or NULL when they are
 * not one (every offset, length and chain checked; the targets are the
 * caller's to check, with cc_litindex_get).
 */
struct cc_buf;
void cc_litindex_save(const struct cc_litindex *x, struct cc_buf *b);
struct cc_litindex *cc_litindex_load(const unsigned char *p, size_t len);
/*
 * Where the literals of each target occur in a text: up to CC_LIT_POS
 * starting offsets, in increasing order; n > CC_LIT_POS means more.
 */
#define CC_LIT_POS 4
struct cc_lithit {
	unsigned n;
	size_t pos[CC_LIT_POS];
};
/*
 * Fill hits[target] (zeroed by the caller) from one pass over the text.
 * The first scan after an add files the literals for scanning (not
 * const for that).
 */
void cc_litindex_scan(struct cc_litindex *x, const char *text,
	size_t len, struct cc_lithit *hits);
/*
 * The same, appending to touched[*ntouched] each target whose n left 0,
 * once (touched has room for every target): a caller with hundreds of
 * targets then zeroes the few a text touched (their n) before the next
 * scan, not all of them.
 */
void cc_litindex_scan_touched(struct cc_litindex *x, const char *text,
	size_t len, struct cc_lithit *hits, int *touched, size_t *ntouched);

#endif
