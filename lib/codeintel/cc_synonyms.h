/*
 * cc_synonyms.h: seed 003's check that a natural-language term ("ログイン機能")
 * and a code symbol ("LoginController") name the same thing, with its
 * synonym dictionary as data (the domain's synonyms file, code-intel(5)).
 *
 * Owns: the loaded dictionary.  Borrows: the strings it is asked about.
 */
#ifndef CC_SYNONYMS_H
#define CC_SYNONYMS_H

#include <stddef.h>

struct cc_synonyms;

/* Read a synonyms file; NULL with "path:line: why" in err. */
struct cc_synonyms *cc_synonyms_load(const char *path, char *err, size_t errlen);
void cc_synonyms_free(struct cc_synonyms *s);

/*
 * is_related(nl, symbol): 0 when unrelated, else the step that found them
 * related, the first that holds:
 *   1  one contains the other, both lower-cased (an empty symbol too);
 *   2  a word of the term (the ignore words taken out, split on white
 *      space) of two characters or more is in the symbol;
 *   3  the term (as written) holds a dictionary key, and the symbol one
 *      of that key's words;
 *   4  the term holds one word of a group, and the symbol one of the same
 *      group (both lower-cased).
 * Substrings are substrings: "all" (一覧) is in "install".
 */
int cc_synonyms_related(const struct cc_synonyms *s, const char *nl, size_t nllen,
	const char *sym, size_t symlen);

#endif
