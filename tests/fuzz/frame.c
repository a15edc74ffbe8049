/*
 * Fuzz target "frame": a request through the code-intel domain's QueryFrame
 * code, as cc-frame runs it.  The domain's frame.patterns (found through
 * CC_DATADIR, else $srcdir/share/concierge, else the installed data) quote
 * its slots for each intent, and each quote is checked as cc-frame checks
 * it; the input read as an LLM's answer (cc_qframe_parse_answer) has its
 * slots checked against the input as the request; the consistency check,
 * is_related and the risk run on what came out.
 *
 * Checked: quotes lie in the request, on character boundaries, and apart;
 * a quote of the request is valid for it and consistent with itself; the
 * consistency check is symmetric; a term is related to itself; the risk is
 * HIGH, MEDIUM or LOW.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_text.h"
#include "codeintel/cc_qframe.h"
#include "codeintel/cc_slotx.h"
#include "codeintel/cc_synonyms.h"
#include "fuzz.h"

static struct cc_slotx *slotx;
static struct cc_synonyms *syn;

static void
cleanup(void)
{
	cc_slotx_free(slotx);
	cc_synonyms_free(syn);
}

static void
load(void)
{
	const char *d = getenv("CC_DATADIR"), *s = getenv("srcdir");
	char dir[4096], path[4200], err[512];

	if (d && *d)
		snprintf(dir, sizeof dir, "%s/code-intel", d);
	else if (s && *s)
		snprintf(dir, sizeof dir, "%s/share/concierge/code-intel", s);
	else
		snprintf(dir, sizeof dir, "%s/code-intel", CC_PKGDATADIR);
	snprintf(path, sizeof path, "%s/frame.patterns", dir);
	if (!(slotx = cc_slotx_load(path, err, sizeof err))) {
		fprintf(stderr, "fuzz-frame: %s\n", err);
		abort();
	}
	snprintf(path, sizeof path, "%s/synonyms", dir);
	if (!(syn = cc_synonyms_load(path, err, sizeof err))) {
		fprintf(stderr, "fuzz-frame: %s\n", err);
		abort();
	}
	cc_progname = "fuzz-frame";
	atexit(cleanup);
}

/* Valid UTF-8, NUL bytes allowed (a record's "\u0000"). */
static int
valid_text(const uint8_t *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t at = i;

		if (cc_utf8_next((const char *)s, n, &i) == 0xFFFD &&
		    (i - at != 3 || memcmp(s + at, "\xef\xbf\xbd", 3) != 0))
			return 0;
	}
	return 1;
}

static int
boundary(const uint8_t *s, size_t n, size_t at)
{
	return at == n || (s[at] & 0xC0) != 0x80;
}

static void
check_pair(const char *a, size_t al, const char *b, size_t bl)
{
	fuzz_assert(cc_qframe_consistent(a, al, b, bl) == cc_qframe_consistent(b, bl, a, al));
}

static void
check_risk(const struct cc_qframe *f)
{
	static const char *const intents[] = { "IMPLEMENT", "MODIFY", "INVESTIGATE", "QUESTION", "X" };

	for (size_t i = 0; i < sizeof intents / sizeof *intents; i++) {
		const char *r = cc_qframe_risk(f, intents[i]);

		fuzz_assert(!strcmp(r, "HIGH") || !strcmp(r, "MEDIUM") || !strcmp(r, "LOW"));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const intents[] = { "IMPLEMENT", "MODIFY", "INVESTIGATE", "QUESTION" };
	const char *q = (const char *)data;
	struct cc_slotx_span sp[CC_QF_NSLOTS];
	struct cc_qf_given g[CC_QF_NSLOTS];
	struct cc_qframe f;
	jv answer;

	if (!slotx)
		load();
	if (!valid_text(data, size))
		return 0;	/* records hold valid UTF-8 only */

	/* the patterns' quotes */
	for (size_t k = 0; k < sizeof intents / sizeof *intents; k++) {
		cc_slotx_extract(slotx, q, size, intents[k], sp);
		memset(&f, 0, sizeof f);
		for (int i = 0; i < CC_QF_NSLOTS; i++) {
			if (sp[i].end <= sp[i].start)
				continue;
			fuzz_assert(sp[i].end <= size);
			fuzz_assert(boundary(data, size, sp[i].start) && boundary(data, size, sp[i].end));
			for (int j = 0; j < i; j++)
				fuzz_assert(sp[j].end <= sp[j].start || sp[j].end <= sp[i].start ||
				    sp[i].end <= sp[j].start);
			f.value[i] = q + sp[i].start;
			f.len[i] = sp[i].end - sp[i].start;
			fuzz_assert(cc_qframe_validate(f.value[i], f.len[i], f.value[i], f.len[i],
			    q, size) == CC_QF_VALID);
			fuzz_assert(cc_synonyms_related(syn, f.value[i], f.len[i], f.value[i],
			    f.len[i]) == 1);
			check_pair(f.value[i], f.len[i], q, size);
		}
		check_risk(&f);
	}

	/* the input as an LLM's answer, checked against itself as the request */
	answer = cc_qframe_parse_answer(q, size);
	cc_qframe_given(answer, g);
	memset(&f, 0, sizeof f);
	for (int i = 0; i < CC_QF_NSLOTS; i++) {
		enum cc_qf_verdict v;

		if (!g[i].given)
			continue;
		v = cc_qframe_validate(g[i].value, g[i].vlen, g[i].quote, g[i].qlen, q, size);
		fuzz_assert(v >= CC_QF_VALID && v <= CC_QF_INCONSISTENT);
		fuzz_assert(!g[i].value || g[i].vlen == 0 || v != CC_QF_NO_VALUE);
		if (g[i].value && g[i].quote)
			check_pair(g[i].value, g[i].vlen, g[i].quote, g[i].qlen);
		if (g[i].value && g[i].quote)
			cc_synonyms_related(syn, g[i].value, g[i].vlen, g[i].quote, g[i].qlen);
		if (v == CC_QF_VALID) {
			f.value[i] = g[i].value;
			f.len[i] = g[i].vlen;
		}
	}
	check_risk(&f);
	jv_free(answer);
	return 0;
}
