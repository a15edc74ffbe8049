/*
 * Knowledge-base documents: Markdown passages with a small front matter
 * (see cc-kb(5)).  A file holds one or more passages; each starts with a
 * line "---", then "key: value" lines, then "---", then the body up to the
 * next "---" line or the end of the file.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_text.h"
#include "cc_kb.h"

/* To the file's reporter, else stderr; counted either way. */
static void __attribute__((format(printf, 2, 3)))
report(struct cc_kbdoc_file *f, const char *fmt, ...)
{
	struct cc_problems warn = {0};
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cc_problem(f->report ? f->report : &warn, "%s", msg);
	f->problems++;
}

static void
problem(struct cc_kbdoc_file *f, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
problem(struct cc_kbdoc_file *f, unsigned line, const char *fmt, ...)
{
	va_list ap;
	char msg[256];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	report(f, "%s:%u: %s", f->path, line, msg);
}

static char *
dup_trim(const char *s, size_t n)
{
	char *p;

	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	p = cc_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* "a, b ,c" or "[a, b]" as "a,b,c": one canonical list form. */
static char *
dup_list(const char *s, size_t n)
{
	char *raw = dup_trim(s, n), *out, *o;
	size_t len = strlen(raw);
	const char *p = raw, *end;

	if (len >= 2 && raw[0] == '[' && raw[len - 1] == ']') {
		raw[len - 1] = '\0';
		p = raw + 1;
	}
	out = o = cc_xmalloc(strlen(p) + 1);
	while (*p) {
		char *item;

		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		item = dup_trim(p, (size_t)(end - p));
		if (*item) {
			if (o > out)
				*o++ = ',';
			strcpy(o, item);
			o += strlen(item);
		}
		free(item);
		p = *end ? end + 1 : end;
	}
	*o = '\0';
	free(raw);
	return out;
}

static int
valid_id(const char *id)
{
	if (!*id)
		return 0;
	for (; *id; id++)
		if (!isalnum((unsigned char)*id) && !strchr("._-", *id))
			return 0;
	return 1;
}

static void
doc_release(struct cc_kbdoc *d)
{
	free(d->id);
	free(d->title);
	free(d->language);
	free(d->category);
	free(d->request_types);
	free(d->tags);
	free(d->body);
	memset(d, 0, sizeof *d);
}

/* Check a finished passage; keep it or drop it with a message. */
static void
finish(struct cc_kbdoc_file *f, struct cc_kbdoc *d)
{
	const char *missing = !d->id ? "id" : !d->title ? "title" :
	    !d->language ? "language" : NULL;

	if (missing) {
		problem(f, d->line, "passage has no '%s': skipped", missing);
		doc_release(d);
		return;
	}
	if (!valid_id(d->id)) {
		problem(f, d->line, "invalid id '%s' (use letters, digits, "
		    "'.', '_', '-'): skipped", d->id);
		doc_release(d);
		return;
	}
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->docs[i].id, d->id) == 0) {
			problem(f, d->line, "duplicate id '%s': skipped", d->id);
			doc_release(d);
			return;
		}
	if (!d->category)
		d->category = cc_xstrdup("general");
	if (!d->request_types)
		d->request_types = cc_xstrdup("");
	if (!d->tags)
		d->tags = cc_xstrdup("");
	if (!d->body)
		d->body = cc_xstrdup("");
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 8;
		f->docs = cc_xrealloc(f->docs, f->cap * sizeof *f->docs);
	}
	f->docs[f->n++] = *d;
	memset(d, 0, sizeof *d);
}

static void
set_field(struct cc_kbdoc_file *f, struct cc_kbdoc *d, unsigned line,
    const char *key, size_t klen, const char *val, size_t vlen)
{
	char **slot = NULL;
	int list = 0;

#define KEY(name) (klen == sizeof name - 1 && memcmp(key, name, klen) == 0)
	if (KEY("id"))
		slot = &d->id;
	else if (KEY("title"))
		slot = &d->title;
	else if (KEY("language") || KEY("lang"))
		slot = &d->language;
	else if (KEY("category"))
		slot = &d->category;
	else if (KEY("request_types") || KEY("request_type"))
		slot = &d->request_types, list = 1;
	else if (KEY("tags"))
		slot = &d->tags, list = 1;
#undef KEY
	if (!slot) {
		problem(f, line, "unknown front-matter key '%.*s': ignored",
		    (int)klen, key);
		return;
	}
	if (*slot) {
		problem(f, line, "'%.*s' given twice: the last one is used",
		    (int)klen, key);
		free(*slot);
	}
	*slot = list ? dup_list(val, vlen) : dup_trim(val, vlen);
	if (slot == &d->language) {
		for (char *p = *slot; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	}
}

int
cc_kbdoc_parse(struct cc_kbdoc_file *f, const char *text, size_t len)
{
	enum { OUTSIDE, FRONT, BODY } state = OUTSIDE;
	struct cc_kbdoc d = {0};
	struct cc_buf body = {0};
	size_t i = 0;
	unsigned line = 0;
	int stray = 0;	/* text outside any passage was reported */

	if (!cc_utf8_valid(text, len)) {
		problem(f, 1, "not valid UTF-8 text: skipped");
		return -1;
	}
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		i = 3;		/* a byte-order mark */
	while (i < len) {
		const char *s = text + i, *nl = memchr(s, '\n', len - i);
		size_t n = nl ? (size_t)(nl - s) : len - i;
		const char *colon;

		i += n + (nl != NULL);
		line++;
		if (n && s[n - 1] == '\r')
			n--;
		if (n == 3 && memcmp(s, "---", 3) == 0) {
			if (state == FRONT) {
				state = BODY;
				body.len = 0;
				continue;
			}
			if (state == BODY) {
				d.body = dup_trim(body.data ? body.data : "", body.len);
				finish(f, &d);
			}
			state = FRONT;
			d.line = line;
			continue;
		}
		switch (state) {
		case OUTSIDE:
			for (size_t k = 0; k < n && !stray; k++)
				if (!isspace((unsigned char)s[k])) {
					problem(f, line, "text before the first "
					    "front matter: ignored");
					stray = 1;
				}
			break;
		case FRONT:
			if (n == 0 || s[0] == '#')
				break;
			colon = memchr(s, ':', n);
			if (!colon) {
				problem(f, line, "front-matter line is not "
				    "'key: value'");
				break;
			}
			set_field(f, &d, line, s, (size_t)(colon - s),
			    colon + 1, n - (size_t)(colon - s) - 1);
			break;
		case BODY:
			cc_buf_add(&body, s, n);
			cc_buf_add(&body, "\n", 1);
			break;
		}
	}
	if (state == FRONT) {
		problem(f, d.line, "front matter is not closed with '---': "
		    "passage skipped");
		doc_release(&d);
	} else if (state == BODY) {
		d.body = dup_trim(body.data ? body.data : "", body.len);
		finish(f, &d);
	}
	cc_buf_release(&body);
	return 0;
}

int
cc_kbdoc_load(struct cc_kbdoc_file *f, const char *path)
{
	FILE *fp = fopen(path, "rb");
	struct cc_buf b = {0};
	char chunk[65536];
	size_t n;
	int r;

	f->path = path;
	if (!fp) {
		report(f, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		cc_buf_add(&b, chunk, n);
	if (ferror(fp)) {
		report(f, "cannot read '%s': %s", path, strerror(errno));
		fclose(fp);
		cc_buf_release(&b);
		return -1;
	}
	fclose(fp);
	r = cc_kbdoc_parse(f, b.data ? b.data : "", b.len);
	cc_buf_release(&b);
	return r;
}

void
cc_kbdoc_file_release(struct cc_kbdoc_file *f)
{
	for (size_t i = 0; i < f->n; i++)
		doc_release(&f->docs[i]);
	free(f->docs);
	f->docs = NULL;
	f->n = f->cap = 0;
}
