/*
 * cc_lang.h: the reply language of a question (ja or en) from the grammar of
 * the sentence, with the evidence (seed 000's language detection).
 *
 * Owns: its word lists.  Borrows: cc_text for scripts, cc_json to write
 * the language_detection value.
 */
#ifndef CC_LANG_H
#define CC_LANG_H

#include <stddef.h>

#include "cc_json.h"
#include "cc_text.h"

enum cc_lang { CC_LANG_JA, CC_LANG_EN };

struct cc_lang_result {
	enum cc_lang lang;
	double confidence;
	int is_mixed;
	int ambiguous;		/* reasonable readers could disagree */
	const char *cue;	/* which rule decided: "ja-frame", "romaji", ... */
	unsigned scripts[CC_SCRIPT_COUNT];
	unsigned latin_words;	/* Latin words of two or more letters */
	unsigned en_function;	/* English grammar words (what, is, the, ...) */
	unsigned en_content;	/* common English content words */
	unsigned romaji;	/* unambiguous romanised Japanese words */
	enum cc_lang first_script;
};

/* Detect the reply language of UTF-8 text s[0..len). */
void cc_lang_detect(const char *s, size_t len, struct cc_lang_result *r);
const char *cc_lang_name(enum cc_lang lang);
/* 1 if the lower-case word is in the detector's English word lists. */
int cc_lang_known_word(const char *word);
/* Write the result as the record's language_detection object. */
void cc_lang_write(const struct cc_lang_result *r, struct cc_jw *w);

#endif
