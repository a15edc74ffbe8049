/*
 * cc_texts.h: a domain's response texts (the `responses` file, format in
 * cc-respond(1)): the words answers are made of, by key and language, and
 * dates written the way each language writes them.
 *
 * Owns: the loaded texts.  Borrows: cc_json's buffer to write into.
 */
#ifndef CC_TEXTS_H
#define CC_TEXTS_H

#include <stddef.h>
#include <time.h>

#include "cc_util.h"
#include "cc_json.h"

struct cc_texts;
/* A {name} of a template and what fills it (len 0: strlen(value)). */
struct cc_var {
	const char *name;
	const char *value;
	size_t len;
};
/* Load the domain's response texts; NULL with a "path:line: why" message. */
struct cc_texts *cc_texts_load(const char *path, char *err, size_t errlen);
/*
 * The same, reporting every bad line to p and keeping the good ones; NULL
 * only when the file cannot be read.
 */
struct cc_texts *cc_texts_read(const char *path, struct cc_problems *p);
/* 1 if there is a text for key in lang exactly (any language: lang NULL). */
int cc_texts_has(const struct cc_texts *t, const char *key, const char *lang);
/* The texts one by one: the i-th key, its language and line; NULL past the end. */
size_t cc_texts_count(const struct cc_texts *t);
const char *cc_texts_entry(const struct cc_texts *t, size_t i, const char **lang,
	unsigned *line);
void cc_texts_free(struct cc_texts *t);
/*
 * The text for key in lang (else in any language), or NULL; *emotion (if
 * not NULL) is set to its emotion, or NULL for "-".
 */
const char *cc_texts_get(const struct cc_texts *t, const char *key,
	const char *lang, const char **emotion);
/* Append tmpl with every {name} of vars filled in (unknown names stay). */
void cc_texts_fill(struct cc_buf *b, const char *tmpl, const struct cc_var *vars);
/* The {year} {month} ... {weekday_long} {month_name} vars of a local time. */
struct cc_date_vars {
	char year[12], month[12], month2[12], day[12], day2[12];
	char hour[12], hour2[12], hour12[12], minute2[12];
	char ampm[32], weekday[32], weekday_long[48];
	char month_name[48], month_name_short[32];
	struct cc_var vars[20];
};
void cc_texts_date_vars(const struct cc_texts *t, const char *lang, time_t when,
	struct cc_date_vars *d);
/* Append `when` written as the text `key` ("datetime", "time") says. */
void cc_texts_format_time(const struct cc_texts *t, const char *key,
	const char *lang, time_t when, struct cc_buf *b);

#endif
