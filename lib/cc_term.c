/*
 * cc_term.c: text that is safe to show on a terminal.
 *
 * Answers, queries and passages come from people and documents: an
 * escape sequence in them could move the cursor, retitle the window or
 * rewrite what was shown before.  Everything that can act on a terminal
 * is written in a visible form instead.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include "cc_json.h"
#include "cc_text.h"
#include "cc_term.h"

/* Code points that reorder or hide text (Trojan Source and friends). */
static int
is_invisible_control(int32_t cp)
{
	return (cp >= 0x202a && cp <= 0x202e) ||	/* embeddings, overrides */
	    (cp >= 0x2066 && cp <= 0x2069) ||		/* isolates */
	    cp == 0x200e || cp == 0x200f || cp == 0x061c ||	/* marks */
	    cp == 0xfeff;					/* BOM inside text */
}

size_t
cc_term_escape(struct cc_buf *out, const char *s, size_t n, int flags)
{
	size_t i = 0, escaped = 0;
	char tmp[16];

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t start = i;
		int32_t cp;

		if (c < 0x80) {
			i++;
			if ((c == '\n' && (flags & CC_TERM_KEEP_NEWLINE)) ||
			    (c == '\t' && (flags & CC_TERM_KEEP_TAB)) ||
			    (c >= 0x20 && c < 0x7f)) {
				cc_buf_add(out, &s[start], 1);
				continue;
			}
			/* caret notation, as cat -v: ^[ for ESC, ^? for DEL */
			tmp[0] = '^';
			tmp[1] = c == 0x7f ? '?' : (char)(c + 0x40);
			cc_buf_add(out, tmp, 2);
			escaped++;
			continue;
		}
		cp = cc_utf8_next(s, n, &i);
		if (cp == 0xfffd && !(i - start == 3 &&
		    (unsigned char)s[start] == 0xef && (unsigned char)s[start + 1] == 0xbf &&
		    (unsigned char)s[start + 2] == 0xbd)) {
			/* invalid bytes: show each one */
			for (size_t k = start; k < i; k++) {
				snprintf(tmp, sizeof tmp, "\\x%02X", (unsigned char)s[k]);
				cc_buf_add(out, tmp, 4);
			}
			escaped++;
			continue;
		}
		if ((cp >= 0x80 && cp < 0xa0) || is_invisible_control(cp)) {
			int k = snprintf(tmp, sizeof tmp, "<U+%04X>", (unsigned)cp);

			cc_buf_add(out, tmp, (size_t)k);
			escaped++;
			continue;
		}
		cc_buf_add(out, &s[start], i - start);
	}
	cc_buf_add(out, "", 0);	/* NUL-terminated, even when nothing was added */
	return escaped;
}
