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

#endif
