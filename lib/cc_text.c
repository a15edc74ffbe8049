/* UTF-8, NFKC and script classes: the text layer under every matcher. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "cc_util.h"
#include "cc_text.h"

int32_t
cc_utf8_next(const char *s, size_t len, size_t *i)
{
	const unsigned char *u = (const unsigned char *)s + *i;
	size_t n = len - *i, k;
	int32_t cp;

	if (u[0] < 0x80) {	/* ASCII: most of what we scan */
		(*i)++;
		return u[0];
	}
	k = u[0] >= 0xF0 ? 4 : u[0] >= 0xE0 ? 3 : u[0] >= 0xC2 ? 2 : 0;
	if (k == 0 || k > n || u[0] > 0xF4)
		goto bad;
	cp = u[0] & (0x7F >> k);
	for (size_t j = 1; j < k; j++) {
		if ((u[j] & 0xC0) != 0x80)
			goto bad;
		cp = cp << 6 | (u[j] & 0x3F);
	}
	if ((k == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (k == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		goto bad;
	*i += k;
	return cp;
bad:			/* skip one bad byte, report U+FFFD */
	(*i)++;
	return 0xFFFD;
}

int
cc_utf8_valid(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];

		if (c == 0)
			return 0;
		if (c < 0x80) {		/* ASCII fast path: most records */
			i++;
			continue;
		}
		utf8proc_int32_t cp;
		utf8proc_ssize_t n = utf8proc_iterate(
		    (const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(len - i), &cp);
		if (n <= 0)
			return 0;
		i += (size_t)n;
	}
	return 1;
}

/*
 * 1 if NFKC leaves s unchanged because it holds only characters that have
 * no decomposition and do not compose: ASCII, common kana, CJK ideographs
 * and Japanese punctuation.  Most queries are like this, and skipping the
 * full normalisation saves most of its cost.
 */
static int
nfkc_identity_char(int32_t cp)
{
	return (cp >= 0x3041 && cp <= 0x3096) || (cp >= 0x309D && cp <= 0x309E) ||
	    (cp >= 0x30A1 && cp <= 0x30FA) || (cp >= 0x30FC && cp <= 0x30FE) ||
	    (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3001 && cp <= 0x3003) ||
	    (cp >= 0x3005 && cp <= 0x3011) || cp == 0x30FB;
}

/* Fullwidth ASCII (！ to ～) and the ideographic space: NFKC is ASCII. */
static int
fullwidth_ascii(int32_t cp)
{
	return (cp >= 0xFF01 && cp <= 0xFF5E) || cp == 0x3000;
}

int
cc_text_is_nfkc(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		if (!nfkc_identity_char(cc_utf8_next(s, len, &i)))
			return 0;
	}
	return 1;
}

/*
 * The common case of a Japanese question, "営業時間は？", differs from its
 * NFKC only in fullwidth ASCII.  Convert that directly; NULL when the text
 * needs the full normalisation.
 */
static char *
nfkc_quick(const char *s, size_t len, size_t *outlen)
{
	char *out = cc_xmalloc(len + 1);
	size_t i = 0, o = 0;

	while (i < len) {
		size_t at = i;
		int32_t cp;

		if ((unsigned char)s[i] < 0x80) {
			out[o++] = s[i++];
			continue;
		}
		cp = cc_utf8_next(s, len, &i);
		if (fullwidth_ascii(cp)) {
			out[o++] = cp == 0x3000 ? ' ' : (char)(cp - 0xFEE0);
		} else if (nfkc_identity_char(cp)) {
			memcpy(out + o, s + at, i - at);
			o += i - at;
		} else {
			free(out);
			return NULL;
		}
	}
	out[o] = '\0';
	if (outlen)
		*outlen = o;
	return out;
}

char *
cc_text_nfkc(const char *s, size_t len, size_t *outlen)
{
	utf8proc_uint8_t *out = NULL;
	utf8proc_ssize_t n;

	char *quick = nfkc_quick(s, len, outlen);

	if (quick)
		return quick;
	n = utf8proc_map((const utf8proc_uint8_t *)s,
	    (utf8proc_ssize_t)len, &out,
	    UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);

	if (n < 0)
		return NULL;
	if (outlen)
		*outlen = (size_t)n;
	return (char *)out;
}

enum cc_script
cc_text_script(int32_t cp)
{
	if (cp < 0x80) {
		if ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z')
			return CC_SCRIPT_LATIN;
		return cp >= '0' && cp <= '9' ? CC_SCRIPT_DIGIT : CC_SCRIPT_NONE;
	}
	if (cp >= 0x3041 && cp <= 0x309F)
		return CC_SCRIPT_HIRAGANA;
	if ((cp >= 0x30A1 && cp <= 0x30FA) || (cp >= 0x30FC && cp <= 0x30FF) ||
	    (cp >= 0x31F0 && cp <= 0x31FF))
		return CC_SCRIPT_KATAKANA;
	if ((cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
	    (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x20000 && cp <= 0x3FFFF) ||
	    cp == 0x3005 || cp == 0x3006)	/* 々 〆 */
		return CC_SCRIPT_HAN;
	if ((cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0x1100 && cp <= 0x11FF) ||
	    (cp >= 0x3130 && cp <= 0x318F))
		return CC_SCRIPT_HANGUL;
	switch (utf8proc_category(cp)) {
	case UTF8PROC_CATEGORY_ND:
		return CC_SCRIPT_DIGIT;
	case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL:
	case UTF8PROC_CATEGORY_LT: case UTF8PROC_CATEGORY_LM:
	case UTF8PROC_CATEGORY_LO:
		/* Latin-1 Supplement to Latin Extended Additional */
		if ((cp >= 0xC0 && cp <= 0x24F) || (cp >= 0x1E00 && cp <= 0x1EFF))
			return CC_SCRIPT_LATIN;
		return CC_SCRIPT_OTHER;
	default:
		return CC_SCRIPT_NONE;
	}
}

/* Small kana and their large forms (hiragana; katakana is folded first). */
static int32_t
large_kana(int32_t cp)
{
	switch (cp) {
	case 0x3041: case 0x3043: case 0x3045: case 0x3047: case 0x3049:
	case 0x3063: case 0x3083: case 0x3085: case 0x3087: case 0x308E:
		return cp + 1;		/* ぁ→あ ... っ→つ ゃ→や ゎ→わ */
	case 0x3095:
		return 0x304B;		/* ゕ→か */
	case 0x3096:
		return 0x3051;		/* ゖ→け */
	case 0x3094:
		return 0x3076;		/* ゔ→ぶ */
	default:
		return cp;
	}
}

static int
japanese_char(int32_t cp)
{
	enum cc_script s = cc_text_script(cp);

	return s == CC_SCRIPT_HIRAGANA || s == CC_SCRIPT_KATAKANA ||
	    s == CC_SCRIPT_HAN || (cp >= 0x3000 && cp <= 0x303F);
}

static int
space(int32_t cp)
{
	return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' ||
	    cp == 0x3000 || cp == 0xA0;
}

char *
cc_text_fold(const char *s, size_t len, size_t *outlen, int flags)
{
	size_t nlen, i = 0, o = 0;
	char *norm = cc_text_nfkc(s, len, &nlen), *out;
	int32_t prev = 0;	/* the last character written */
	int pending_space = 0;

	if (!norm) {		/* invalid UTF-8: fold what decodes */
		norm = cc_xmalloc(len + 1);
		memcpy(norm, s, len);
		norm[len] = '\0';
		nlen = len;
	}
	/*
	 * Folding a valid character grows it by one byte at most (Ⱥ, two
	 * bytes, lowers to ⱥ, three), but an invalid byte is written as
	 * U+FFFD, three bytes: room for three times the input.
	 */
	out = cc_xmalloc(nlen * 3 + 1);
	while (i < nlen) {
		int32_t cp = cc_utf8_next(norm, nlen, &i);

		if (space(cp)) {
			pending_space = o > 0;
			continue;
		}
		if (!(flags & CC_FOLD_KEEP_CASE))
			cp = cp < 0x80 ? (cp >= 'A' && cp <= 'Z' ? cp + 32 : cp) :
			    utf8proc_tolower(cp);
		if (cp >= 0x30A1 && cp <= 0x30F6)	/* katakana → hiragana */
			cp -= 0x60;
		else if (cp == 0x30FD || cp == 0x30FE)	/* ヽヾ → ゝゞ */
			cp -= 0x60;
		cp = large_kana(cp);
		/*
		 * Long-vowel variants: wave dashes after kana become ー and
		 * repeats collapse (ぱすわーーど).  ー itself is kept, since
		 * dropping it would make バー the same word as ば.
		 */
		if ((cp == 0x301C || cp == 0xFF5E || cp == 0x2015 || cp == 0x2500) &&
		    prev && japanese_char(prev))
			cp = 0x30FC;
		if (cp == 0x30FC && prev == 0x30FC)
			continue;
		if (pending_space && !(japanese_char(prev) && japanese_char(cp)))
			out[o++] = ' ';
		pending_space = 0;
		o += (size_t)utf8proc_encode_char(cp, (utf8proc_uint8_t *)out + o);
		prev = cp;
	}
	out[o] = '\0';
	free(norm);
	if (outlen)
		*outlen = o;
	return out;
}

/*
 * Python's str.lower() and str.upper() as far as one code point goes:
 * utf8proc's simple case mappings, plus the one lower-case mapping to two
 * code points (U+0130 to i and a combining dot) and the final sigma
 * (after a cased letter and before none; Python also skips
 * case-ignorable characters between).
 * Upper-casing does not expand (Python makes "ß" "SS").
 */
/* Upper, lower or title case letters: Python's "cased", nearly. */
static int
cased(int32_t cp)
{
	int c = cp ? utf8proc_category(cp) : 0;

	return c == UTF8PROC_CATEGORY_LU || c == UTF8PROC_CATEGORY_LL ||
	    c == UTF8PROC_CATEGORY_LT;
}

static char *
recase(const char *s, size_t len, size_t *outlen, int upper)
{
	struct { char *p; size_t n, cap; } o = { cc_xmalloc(len + 8), 0, len + 8 };
	size_t i = 0;
	int32_t prev = 0;

	while (i < len) {
		int32_t cp = cc_utf8_next(s, len, &i), m[2];
		int nm = 1;

		if (upper) {
			m[0] = utf8proc_toupper(cp);
		} else if (cp == 0x130) {
			m[0] = 'i';
			m[1] = 0x307;
			nm = 2;
		} else if (cp == 0x3A3) {	/* final sigma: a letter before, none after */
			size_t j = i;
			int32_t next = j < len ? cc_utf8_next(s, len, &j) : 0;
			int letter_before = cased(prev), letter_after = cased(next);

			m[0] = letter_before && !letter_after ? 0x3C2 : 0x3C3;
		} else {
			m[0] = utf8proc_tolower(cp);
		}
		prev = cp;
		for (int k = 0; k < nm; k++) {
			if (o.n + 4 + 1 > o.cap) {
				o.cap = o.cap * 2 + 8;
				o.p = cc_xrealloc(o.p, o.cap);
			}
			o.n += (size_t)utf8proc_encode_char(m[k], (utf8proc_uint8_t *)o.p + o.n);
		}
	}
	o.p[o.n] = '\0';
	if (outlen)
		*outlen = o.n;
	return o.p;
}

char *
cc_text_lower(const char *s, size_t len, size_t *outlen)
{
	return recase(s, len, outlen, 0);
}

char *
cc_text_upper(const char *s, size_t len, size_t *outlen)
{
	return recase(s, len, outlen, 1);
}

void
cc_text_excerpt(const char *s, size_t max_chars, char *out, size_t outlen)
{
	size_t i = 0, o = 0, len = strlen(s), chars = 0;

	while (i < len && chars < max_chars) {
		size_t at = i;

		cc_utf8_next(s, len, &i);
		if (o + (i - at) + 4 >= outlen)
			break;
		if (s[at] == '\n' || s[at] == '\r' || s[at] == '\t')
			out[o++] = ' ';
		else {
			memcpy(out + o, s + at, i - at);
			o += i - at;
		}
		chars++;
	}
	if (i < len && o + 4 <= outlen) {
		memcpy(out + o, "\xe2\x80\xa6", 3);	/* … */
		o += 3;
	}
	out[o] = '\0';
}
