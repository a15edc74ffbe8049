/*
 * cc_text.h: UTF-8, Unicode normalisation (NFKC through utf8proc) and the
 * folding that text and patterns share before matching.
 *
 * Owns: nothing beyond the fresh strings it returns.  Borrows: nothing.
 */
#ifndef CC_TEXT_H
#define CC_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Decode one code point at s[*i] (advancing *i); U+FFFD on bad bytes. */
int32_t cc_utf8_next(const char *s, size_t len, size_t *i);
/* 1 if s[0..len) is valid UTF-8 with no NUL byte. */
int cc_utf8_valid(const char *s, size_t len);
/* 1 if s[0..len) is plainly its own NFKC (a quick, conservative check). */
int cc_text_is_nfkc(const char *s, size_t len);
/* NFKC of s[0..len) into a fresh NUL-terminated string; NULL on bad input. */
char *cc_text_nfkc(const char *s, size_t len, size_t *outlen);

/*
 * Fold text for matching, the same way for the text and for the patterns
 * or index terms it is matched against:
 *   NFKC (fullwidth Latin to ASCII, halfwidth kana to fullwidth);
 *   lower case;
 *   katakana to hiragana, small kana to their large forms, wave dashes
 *   after kana as the long-vowel mark ー, repeated ー once (ワイファイ and
 *   わいふぁい both become わいふあい, パスワード and ぱすわ〜ど ぱすわーど);
 *   white space between two Japanese characters removed (エンジニア カフェ),
 *   other runs of white space collapsed to one space, ends trimmed.
 * Returns a fresh NUL-terminated string.  Regular-expression syntax is
 * ASCII and left alone apart from case, so patterns should be folded with
 * CC_FOLD_KEEP_CASE (and matched caselessly).
 */
#define CC_FOLD_KEEP_CASE 1
char *cc_text_fold(const char *s, size_t len, size_t *outlen, int flags);

/*
 * Python's str.lower() / str.upper() of s[0..len) into a fresh string:
 * simple case mappings, with lower()'s two special cases (U+0130, final
 * sigma); upper() does not expand "ß" to "SS".  Bad bytes become U+FFFD.
 */
char *cc_text_lower(const char *s, size_t len, size_t *outlen);
char *cc_text_upper(const char *s, size_t len, size_t *outlen);

/*
 * At most max_chars characters of s on one line (new lines become spaces),
 * with an ellipsis when cut; never cuts a character in half.
 */
void cc_text_excerpt(const char *s, size_t max_chars, char *out, size_t outlen);

/* Coarse script classes used by the language detector. */
enum cc_script {
	CC_SCRIPT_NONE,		/* space, punctuation, symbols, emoji */
	CC_SCRIPT_DIGIT,
	CC_SCRIPT_HIRAGANA,
	CC_SCRIPT_KATAKANA,	/* includes the long-vowel mark */
	CC_SCRIPT_HAN,
	CC_SCRIPT_LATIN,
	CC_SCRIPT_HANGUL,
	CC_SCRIPT_OTHER,	/* letters of any other script */
	CC_SCRIPT_COUNT
};
enum cc_script cc_text_script(int32_t cp);

#endif
