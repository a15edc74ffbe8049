/*
 * Python's str semantics on UTF-8, as far as the gate needs them.  The
 * original's rules count code points (len("エラーが出ない") is 7, not 21
 * bytes), lower-case with str.lower(), split on str.isspace() (U+3000
 * included), and quote lists and sets with repr() in their messages.
 *
 * Substring tests are done on the bytes: in valid UTF-8 a byte match is a
 * code-point match, because no character's bytes can start inside another.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_gate_int.h"

void
strv_add(struct strv *l, const char *w)
{
	l->v = cc_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
	l->v[l->n++] = cc_xstrdup(w);
}

int
strv_has(const struct strv *l, const char *w)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], w) == 0)
			return 1;
	return 0;
}

void
strv_free(struct strv *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

size_t
py_len(struct gs s)
{
	size_t n = 0;

	/* every byte that does not continue a character starts one */
	for (size_t i = 0; i < s.n; i++)
		if (((unsigned char)s.s[i] & 0xC0) != 0x80)
			n++;
	return n;
}

char *
py_lower(struct gs s, size_t *outn)
{
	struct cc_buf b = {0};
	size_t i = 0;

	cc_buf_grow(&b, s.n);
	while (i < s.n) {
		int32_t c = cc_utf8_next(s.s, s.n, &i);
		utf8proc_uint8_t enc[8];
		utf8proc_ssize_t k;

		if (c == 0x130) {
			/* str.lower() gives two code points for İ (SpecialCasing) */
			cc_buf_add(&b, "i\xcc\x87", 3);
			continue;
		}
		k = utf8proc_encode_char(utf8proc_tolower(c), enc);
		cc_buf_add(&b, enc, (size_t)k);
	}
	if (!b.data)
		cc_buf_add(&b, "", 0);
	if (outn)
		*outn = b.len;
	return b.data;
}

int
py_in(struct gs needle, struct gs hay)
{
	if (needle.n == 0)
		return 1;
	return needle.n <= hay.n && memmem(hay.s, hay.n, needle.s, needle.n) != NULL;
}

/* str.isspace(): bidirectional class WS, B or S, or category Zs. */
static int
py_space(int32_t c)
{
	return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 ||
	    c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
	    c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

size_t
py_split(struct gs s, struct gs *w, size_t max)
{
	size_t i = 0, n = 0, start = 0;
	int in_word = 0;

	while (i < s.n) {
		size_t at = i;
		int32_t c = cc_utf8_next(s.s, s.n, &i);

		if (py_space(c)) {
			if (in_word && n < max)
				w[n++] = (struct gs){ s.s + start, at - start };
			in_word = 0;
		} else if (!in_word) {
			in_word = 1;
			start = at;
		}
	}
	if (in_word && n < max)
		w[n++] = (struct gs){ s.s + start, s.n - start };
	return n;
}

static int
cmp_cp(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

size_t
py_charset(struct gs s, int32_t **out)
{
	int32_t *cp = cc_xmalloc((s.n + 1) * sizeof *cp);
	size_t i = 0, n = 0, u = 0;

	while (i < s.n)
		cp[n++] = cc_utf8_next(s.s, s.n, &i);
	qsort(cp, n, sizeof *cp, cmp_cp);
	for (size_t k = 0; k < n; k++)
		if (u == 0 || cp[u - 1] != cp[k])
			cp[u++] = cp[k];
	*out = cp;
	return u;
}

/* Py_UNICODE_ISPRINTABLE: not a control, format, surrogate, private, unassigned or separator (but space). */
static int
py_printable(int32_t c)
{
	if (c == ' ')
		return 1;
	switch (utf8proc_category(c)) {
	case UTF8PROC_CATEGORY_CC: case UTF8PROC_CATEGORY_CF:
	case UTF8PROC_CATEGORY_CS: case UTF8PROC_CATEGORY_CO:
	case UTF8PROC_CATEGORY_CN: case UTF8PROC_CATEGORY_ZL:
	case UTF8PROC_CATEGORY_ZP: case UTF8PROC_CATEGORY_ZS:
		return 0;
	default:
		return 1;
	}
}

void
py_repr(struct cc_buf *b, struct gs s)
{
	char q = '\'', tmp[16];
	size_t i = 0;

	/* repr() picks double quotes for a str with ' and no " */
	if (memchr(s.s, '\'', s.n) && !memchr(s.s, '"', s.n))
		q = '"';
	cc_buf_add(b, &q, 1);
	while (i < s.n) {
		size_t at = i;
		int32_t c = cc_utf8_next(s.s, s.n, &i);

		if (c == q || c == '\\') {
			tmp[0] = '\\';
			tmp[1] = (char)c;
			cc_buf_add(b, tmp, 2);
		} else if (c == '\t') {
			cc_buf_add(b, "\\t", 2);
		} else if (c == '\n') {
			cc_buf_add(b, "\\n", 2);
		} else if (c == '\r') {
			cc_buf_add(b, "\\r", 2);
		} else if (c < 0x20 || c == 0x7F) {
			snprintf(tmp, sizeof tmp, "\\x%02x", (unsigned)c);
			cc_buf_add(b, tmp, 4);
		} else if (c < 0x7F || py_printable(c)) {
			cc_buf_add(b, s.s + at, i - at);
		} else if (c <= 0xFF) {
			snprintf(tmp, sizeof tmp, "\\x%02x", (unsigned)c);
			cc_buf_add(b, tmp, 4);
		} else if (c <= 0xFFFF) {
			snprintf(tmp, sizeof tmp, "\\u%04x", (unsigned)c);
			cc_buf_add(b, tmp, 6);
		} else {
			snprintf(tmp, sizeof tmp, "\\U%08x", (unsigned)c);
			cc_buf_add(b, tmp, 10);
		}
	}
	cc_buf_add(b, &q, 1);
}

void
py_repr_list(struct cc_buf *b, jv list)
{
	int n = jv_get_kind(list) == JV_KIND_ARRAY ? jv_array_length(jv_copy(list)) : 0;

	cc_buf_add(b, "[", 1);
	for (int i = 0; i < n; i++) {
		jv e = jv_array_get(jv_copy(list), i);

		if (i)
			cc_buf_add(b, ", ", 2);
		if (jv_get_kind(e) == JV_KIND_STRING)
			py_repr(b, (struct gs){ jv_string_value(e),
			    (size_t)jv_string_length_bytes(jv_copy(e)) });
		else
			cc_json_put(b, e);
		jv_free(e);
	}
	cc_buf_add(b, "]", 1);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * A set's repr lists its members in hash order, which Python randomises
 * per process: sorted here, so the message is the same every time.
 */
void
py_repr_set(struct cc_buf *b, const char *const *items, size_t n)
{
	const char **v;
	size_t u = 0;

	if (n == 0) {
		cc_buf_add(b, "set()", 5);
		return;
	}
	v = cc_xmalloc(n * sizeof *v);
	memcpy(v, items, n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_str);
	cc_buf_add(b, "{", 1);
	for (size_t i = 0; i < n; i++) {
		if (i && strcmp(v[i], v[i - 1]) == 0)
			continue;
		if (u++)
			cc_buf_add(b, ", ", 2);
		py_repr(b, GS(v[i]));
	}
	cc_buf_add(b, "}", 1);
	free(v);
}

char *
py_normpath(const char *p)
{
	size_t n = strlen(p), nc = 0, lead = 0;
	char *copy, *tok, *save = NULL, **comp;
	struct cc_buf out = {0};

	if (n == 0)
		return cc_xstrdup(".");
	if (p[0] == '/')
		lead = (p[1] == '/' && p[2] != '/') ? 2 : 1;
	copy = cc_xstrdup(p);
	comp = cc_xmalloc((n + 1) * sizeof *comp);
	for (tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") != 0 || (!lead && nc == 0) ||
		    (nc > 0 && strcmp(comp[nc - 1], "..") == 0))
			comp[nc++] = tok;
		else if (nc > 0)
			nc--;
	}
	for (size_t i = 0; i < lead; i++)
		cc_buf_add(&out, "/", 1);
	for (size_t i = 0; i < nc; i++) {
		if (i)
			cc_buf_add(&out, "/", 1);
		cc_buf_add(&out, comp[i], strlen(comp[i]));
	}
	if (out.len == 0)
		cc_buf_add(&out, ".", 1);
	free(comp);
	free(copy);
	return out.data;
}

char *
py_dirname(const char *p)
{
	const char *slash = strrchr(p, '/');
	size_t n = slash ? (size_t)(slash - p) + 1 : 0, k = n;
	char *d;

	/* the head keeps its slashes only when it is nothing but slashes */
	while (k > 0 && p[k - 1] == '/')
		k--;
	if (k > 0)
		n = k;
	d = cc_xmalloc(n + 1);
	memcpy(d, p, n);
	d[n] = '\0';
	return d;
}

char *
py_basename(const char *p)
{
	const char *slash = strrchr(p, '/');

	return cc_xstrdup(slash ? slash + 1 : p);
}

char *
gate_upper(const char *s)
{
	char *u = cc_xstrdup(s);

	for (char *c = u; *c; c++)
		if (*c >= 'a' && *c <= 'z')
			*c = (char)(*c - 'a' + 'A');
	return u;
}

char *
gate_path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = cc_xmalloc(n);

	snprintf(p, n, "%s/%s", dir, name);
	return p;
}
