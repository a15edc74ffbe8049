/*
 * cc_answer_request.h: does the child ask for the answer?  explicit
 * (こたえおしえて, just tell me, a value asked of the robot:
 * 37ひく19はいくつ？), implicit (わからない, むずかしい, もういいや, I give
 * up) or none (giving or checking an answer, おしえて meaning "teach",
 * むずかしいけどがんばる).  The cues are data (answer_request.cues, format
 * in cc_lexicon.h): classes "explicit" and "implicit", each cue's weight
 * being the confidence it gives; explicit wins over implicit.
 *
 * Owns: nothing (the lexicon is the caller's).  Borrows: cc_lexicon.
 */
#ifndef CC_ANSWER_REQUEST_H
#define CC_ANSWER_REQUEST_H

#include <jv.h>
#include <stddef.h>

#include "cc_json.h"
#include "coach/cc_lexicon.h"

/* Load answer_request.cues (it must declare both classes); NULL + message. */
struct cc_lexicon *cc_answer_request_load(const char *path, char *err, size_t errlen);
/*
 * {request_type: "explicit"|"implicit"|"none", confidence,
 * detected_phrases: [the matched text of the deciding class, folded, in
 * text order]}, an owned jv.  confidence is the strongest cue's weight
 * of that class, 1.0 for none (as the original's keyword detector).
 */
jv cc_answer_request_detect(struct cc_lexicon *lex, const char *text, size_t len);

/*
 * The same, as plain data for a stage that writes it (cc-coach's turn):
 * scan into r (zero it first; reuse it; cc_answer_request_release frees
 * it), then write the object detect would give.  The phrases point into
 * text or the lexicon's folded text: valid until the next scan.
 */
struct cc_answer_request {
	const char *type;		/* "explicit", "implicit" or "none" */
	double confidence;
	struct { const char *s; size_t len; } *phrase;
	size_t n, cap;
};
void cc_answer_request_scan(struct cc_lexicon *lex, const char *text, size_t len,
	struct cc_answer_request *r);
void cc_answer_request_write(const struct cc_answer_request *r, struct cc_jw *w);
void cc_answer_request_release(struct cc_answer_request *r);

#endif
