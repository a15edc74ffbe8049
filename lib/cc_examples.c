/* A domain's labelled examples and the router model learnt from them. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jv.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_examples.h"

const char *const cc_examples_slots[CC_EXAMPLES_NSLOTS] = {
	"agent", "category", "request_type",
};

void
cc_examples_release(struct cc_examples *ex)
{
	for (size_t i = 0; i < ex->n; i++)
		free(ex->texts[i]);
	for (size_t i = 0; i < ex->nlabels; i++)
		free(ex->labels[i]);
	free(ex->texts);
	free(ex->label);
	free(ex->labels);
	memset(ex, 0, sizeof *ex);
}

static void __attribute__((format(printf, 4, 5)))
problem(struct cc_problems *p, const char *path, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cc_problem(p, "%s:%u: %s", path, line, msg);
}

/* The label value v (a string or null) as the route names it; consumes v. */
static jv
route_value(const struct cc_domain *d, const char *label, jv v)
{
	if (!jv_is_valid(v)) {	/* not labelled: null */
		jv_free(v);
		v = jv_null();
	}
	return cc_domain_label_value(d, label, v);
}

/*
 * The label string of row (values joined by CC_EXAMPLES_SEP), or NULL
 * with a problem reported.  Borrows row.
 */
static char *
row_label(const struct cc_domain *d, jv row, const char *path, unsigned line,
    struct cc_problems *p)
{
	struct cc_buf b = {0};
	jv expect = jv_object_get(jv_copy(row), jv_string("expect"));
	int have_agent = 0;

	if (jv_get_kind(expect) != JV_KIND_OBJECT) {
		jv_free(expect);
		problem(p, path, line, "no \"expect\" object");
		return NULL;
	}
	for (size_t s = 0; s < CC_EXAMPLES_NSLOTS; s++) {
		const struct cc_domain_label *lab = NULL;
		char want[64];
		jv v;

		snprintf(want, sizeof want, "route.%s", cc_examples_slots[s]);
		for (size_t i = 0; i < d->nlabels && !lab; i++)
			if (strcmp(d->labels[i].path, want) == 0)
				lab = &d->labels[i];
		if (s > 0)
			cc_buf_add(&b, (char[]){ CC_EXAMPLES_SEP }, 1);
		if (!lab)
			continue;	/* the domain does not label it */
		v = route_value(d, lab->name,
		    jv_object_get(jv_copy(expect), jv_string(lab->name)));
		if (jv_get_kind(v) == JV_KIND_STRING) {
			const char *sv = jv_string_value(v);

			if (strchr(sv, CC_EXAMPLES_SEP)) {
				problem(p, path, line, "a control character in expect.%s",
				    lab->name);
				jv_free(v);
				goto bad;
			}
			if (s == 0) {
				if (!cc_domain_find_agent(d, sv)) {
					problem(p, path, line, "expect.%s: '%s' is not an agent "
					    "of the domain", lab->name, sv);
					jv_free(v);
					goto bad;
				}
				have_agent = 1;
			}
			cc_buf_add(&b, sv, strlen(sv));
		} else if (jv_get_kind(v) != JV_KIND_NULL) {
			problem(p, path, line, "expect.%s: a string or null", lab->name);
			jv_free(v);
			goto bad;
		}
		jv_free(v);
	}
	jv_free(expect);
	if (!have_agent) {
		problem(p, path, line, "no agent in \"expect\"");
		cc_buf_release(&b);
		return NULL;
	}
	cc_buf_add(&b, "", 1);
	return b.data;
bad:
	jv_free(expect);
	cc_buf_release(&b);
	return NULL;
}

static size_t
label_index(struct cc_examples *ex, char *label)
{
	for (size_t i = 0; i < ex->nlabels; i++)
		if (strcmp(ex->labels[i], label) == 0) {
			free(label);
			return i;
		}
	ex->labels = cc_xrealloc(ex->labels, (ex->nlabels + 1) * sizeof *ex->labels);
	ex->labels[ex->nlabels] = label;
	return ex->nlabels++;
}

int
cc_examples_read(const struct cc_config *cfg, const struct cc_domain *d,
    const char *path, struct cc_examples *ex, struct cc_problems *p)
{
	char *own = NULL, *line = NULL;
	const char *query = d->eval_query ? d->eval_query : "query";
	size_t cap = 0, ex_cap = 0;
	unsigned lineno = 0;
	ssize_t len;
	FILE *f;

	memset(ex, 0, sizeof *ex);
	if (!path) {
		if (!d->examples) {
			cc_problem(p, "%s: no examples line", d->path);
			return -1;
		}
		path = own = cc_config_domain_path(cfg, d->examples);
	}
	if (!(f = fopen(path, "r"))) {
		cc_problem(p, "%s: cannot read: %s", path, strerror(errno));
		free(own);
		return -1;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		jv row, q, amb;
		char *label;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		if (len == 0)
			continue;
		row = cc_json_parse(line, (size_t)len);
		if (jv_get_kind(row) != JV_KIND_OBJECT) {
			problem(p, path, lineno, "not a JSON object");
			jv_free(row);
			continue;
		}
		amb = jv_object_get(jv_copy(row), jv_string("ambiguous"));
		if (jv_get_kind(amb) == JV_KIND_TRUE) {
			jv_free(amb);
			jv_free(row);
			continue;
		}
		jv_free(amb);
		q = jv_object_get(jv_copy(row), jv_string(query));
		if (jv_get_kind(q) != JV_KIND_STRING || !*jv_string_value(q)) {
			problem(p, path, lineno, "no string \"%s\"", query);
		} else if ((label = row_label(d, row, path, lineno, p))) {
			if (ex->n == ex_cap) {
				ex_cap = ex_cap ? ex_cap * 2 : 256;
				ex->texts = cc_xrealloc(ex->texts, ex_cap * sizeof *ex->texts);
				ex->label = cc_xrealloc(ex->label, ex_cap * sizeof *ex->label);
			}
			ex->texts[ex->n] = cc_xstrdup(jv_string_value(q));
			ex->label[ex->n] = label_index(ex, label);
			ex->n++;
		}
		jv_free(q);
		jv_free(row);
	}
	free(line);
	fclose(f);
	if (ex->n == 0)
		cc_problem(p, "%s: no usable examples", path);
	free(own);
	return 0;
}

char *
cc_examples_model_path(const struct cc_config *cfg)
{
	const char *env = getenv("CC_ROUTER_MODEL");
	char *dir, *p;
	size_t n;

	if (env && *env)
		return cc_xstrdup(env);
	dir = cc_xdg_dir("XDG_CACHE_HOME", ".cache");
	n = strlen(dir) + strlen(cfg->domain) + 32;
	p = cc_xmalloc(n);
	snprintf(p, n, "%s/router-%s.model", dir, cfg->domain);
	free(dir);
	return p;
}

/* What the model of the examples at path must be stamped with. */
static int
stamp_of(const char *path, struct cc_classify_stamp *st)
{
	struct stat sb;
	char real[PATH_MAX];
	const char *name = realpath(path, real) ? real : path;
	uint64_t h = 0xcbf29ce484222325ULL;

	if (stat(path, &sb) < 0)
		return -1;
	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
	*st = (struct cc_classify_stamp){ (uint64_t)sb.st_size,
		(uint64_t)sb.st_mtim.tv_sec, (uint64_t)sb.st_mtim.tv_nsec, h };
	return 0;
}

static void
first_problem(void *ctx, const char *message)
{
	char *first = ctx;

	if (!*first)
		snprintf(first, 512, "%s", message);
}

struct cc_classify *
cc_examples_model(const struct cc_config *cfg, const struct cc_domain *d,
    int force, char *err, size_t errlen)
{
	char *path, *model_path, first[512] = "", why[512];
	struct cc_problems p = { first_problem, first, 0 };
	struct cc_classify_stamp st;
	struct cc_examples ex;
	struct cc_classify *m = NULL;

	if (!d->examples) {
		snprintf(err, errlen, "the domain has no examples");
		return NULL;
	}
	path = cc_config_domain_path(cfg, d->examples);
	if (stamp_of(path, &st) < 0) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		free(path);
		return NULL;
	}
	model_path = cc_examples_model_path(cfg);
	if (!force && (m = cc_classify_load(model_path, &st, why, sizeof why)))
		goto out;
	if (cc_examples_read(cfg, d, path, &ex, &p) < 0 || ex.n == 0) {
		snprintf(err, errlen, "%s", first);
		cc_examples_release(&ex);
		goto out;
	}
	/* a row with a problem is left out; cc-domain check names them all */
	m = cc_classify_train((const char *const *)ex.texts, ex.label, ex.n,
	    (const char *const *)ex.labels, ex.nlabels);
	cc_examples_release(&ex);
	if (cc_classify_save(m, model_path, &st, why, sizeof why) < 0)
		cc_warn("%s; the router model is learnt again next time", why);
out:
	free(model_path);
	free(path);
	return m;
}

void
cc_examples_split(char *label, char *values[CC_EXAMPLES_NSLOTS])
{
	for (size_t i = 0; i < CC_EXAMPLES_NSLOTS; i++) {
		char *sep = label ? strchr(label, CC_EXAMPLES_SEP) : NULL;

		values[i] = label;
		if (sep) {
			*sep = '\0';
			label = sep + 1;
		} else {
			label = NULL;
		}
	}
}
