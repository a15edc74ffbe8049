/*
 * cc_term.h: terminal output: untrusted text escaped so that it cannot act
 * on a terminal.
 *
 * Owns: nothing.  Borrows: cc_json's buffer to write into.
 */
#ifndef CC_TERM_H
#define CC_TERM_H

#include <stddef.h>

#include "cc_json.h"

/*
 * Append s[0..n) to out in a form that cannot act on a terminal: C0
 * controls and DEL in caret notation (^[, ^M, ^?), C1 controls and the
 * invisible bidirectional controls as <U+202E>, invalid UTF-8 bytes as
 * \xFF.  Newlines and tabs are kept only when the flags say so.  Returns
 * how many things were escaped.
 */
#define CC_TERM_KEEP_NEWLINE 1
#define CC_TERM_KEEP_TAB 2
size_t cc_term_escape(struct cc_buf *out, const char *s, size_t n, int flags);

#endif
