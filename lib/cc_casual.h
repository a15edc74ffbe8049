/*
 * cc_casual.h: casual, dialect and chat spellings of a question written
 * the standard way, so that one set of rules reads them all.
 *
 * Works on text already folded by cc_text_fold() with no flags (kana as
 * hiragana, NFKC, lower case): Fukuoka/Hakata and Kansai verb and particle forms
 * (開いとる and 営業しよる as 開いてる and 営業してる, a final と？ or なん？
 * as の？ and なの？, けん as から, a final ばい, っちゃ dropped, やろ as だろ),
 * casual words (あんがと, おはよ, ほな, あんた), chat English (hiii, heyyy,
 * cya, "r u"), romaji words in English (yasumi, doyoubi, heijitsu), and
 * emoji and pictographs as spaces.  One pass, no allocation unless the text
 * changes.
 *
 * Owns: nothing beyond the fresh string it returns.  Borrows: nothing.
 */
#ifndef CC_CASUAL_H
#define CC_CASUAL_H

#include <stddef.h>

/*
 * The folded text s[0..len) in standard spelling, as a fresh NUL-ended
 * string (its length in *outlen when outlen is not NULL); NULL when
 * nothing changed.  What the visitor wrote is never replaced by this:
 * it is for matching only.
 */
char *cc_casual(const char *s, size_t len, size_t *outlen);

#endif
