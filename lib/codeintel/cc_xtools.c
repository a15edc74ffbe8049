/*
 * The exploration tools: ctags for definitions and symbols, ripgrep for
 * text and references, each run bounded (cc_spawn) inside the repository.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_spawn.h"
#include "cc_xtools.h"

#define PATH_PROP(desc) \
	"\"path\":{\"type\":\"string\",\"default\":\".\",\"description\":\"" desc "\"}"

const struct cc_xtool_def cc_xtool_defs[] = {
	{ "search_text",
	  "Search for text patterns in files using ripgrep. "
	  "Supports regex patterns and file type filtering.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"pattern\":{\"type\":\"string\",\"description\":\"Search pattern (regex by default)\"},"
	  PATH_PROP("Path to search in") ","
	  "\"file_type\":{\"type\":\"string\",\"description\":\"File type filter (e.g., 'py', 'js', 'ts')\"},"
	  "\"case_sensitive\":{\"type\":\"boolean\",\"default\":true,"
	  "\"description\":\"Whether search is case sensitive\"},"
	  "\"context_lines\":{\"type\":\"integer\",\"default\":0,"
	  "\"description\":\"Number of context lines before/after match\"},"
	  "\"max_results\":{\"type\":\"integer\",\"default\":100,"
	  "\"description\":\"Maximum number of results\"}},"
	  "\"required\":[\"pattern\"]}" },
	{ "analyze_structure",
	  "Analyze code structure using tree-sitter. "
	  "Extracts functions, classes, imports, and other structural elements.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"file_path\":{\"type\":\"string\",\"description\":\"Path to source file\"},"
	  "\"code\":{\"type\":\"string\",\"description\":\"Source code string (alternative to file_path)\"},"
	  "\"language\":{\"type\":\"string\",\"description\":\"Programming language "
	  "(auto-detected from extension if not provided)\"}}}" },
	{ "find_definitions",
	  "Find symbol definitions using Universal Ctags. "
	  "Locates where functions, classes, variables, etc. are defined.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"symbol\":{\"type\":\"string\",\"description\":\"Symbol name to search for\"},"
	  PATH_PROP("Path to search in") ","
	  "\"language\":{\"type\":\"string\",\"description\":\"Filter by language (e.g., 'Python', 'JavaScript')\"},"
	  "\"exact_match\":{\"type\":\"boolean\",\"default\":false,"
	  "\"description\":\"Whether to match symbol name exactly\"}},"
	  "\"required\":[\"symbol\"]}" },
	{ "find_references",
	  "Find symbol references. "
	  "Locates where a symbol is used (excluding its definition).",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"symbol\":{\"type\":\"string\",\"description\":\"Symbol name to search for\"},"
	  PATH_PROP("Path to search in") ","
	  "\"language\":{\"type\":\"string\",\"description\":\"File type filter (e.g., 'py', 'js')\"}},"
	  "\"required\":[\"symbol\"]}" },
	{ "get_symbols",
	  "Get all symbols in a file or directory. "
	  "Returns functions, classes, variables, and other symbols.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\",\"description\":\"Path to analyze\"},"
	  "\"kind\":{\"type\":\"string\",\"description\":\"Filter by symbol kind (e.g., 'function', 'class', 'variable')\"},"
	  "\"language\":{\"type\":\"string\",\"description\":\"Filter by language\"}},"
	  "\"required\":[\"path\"]}" },
};
const size_t cc_xtool_ndefs = sizeof cc_xtool_defs / sizeof cc_xtool_defs[0];

const struct cc_xtool_def *
cc_xtool_def(const char *name)
{
	for (size_t i = 0; name && i < cc_xtool_ndefs; i++)
		if (strcmp(cc_xtool_defs[i].name, name) == 0)
			return &cc_xtool_defs[i];
	return NULL;
}

int
cc_xtools_init(struct cc_xtools *x, const char *repo, char *err, size_t errlen)
{
	struct stat st;

	memset(x, 0, sizeof *x);
	x->ctags = "ctags";
	x->rg = "rg";
	x->timeout_ms = 10000;
	x->max_results = 100;
	x->out_cap = 8 << 20;
	if (!(x->root = realpath(repo, NULL)) || stat(x->root, &st) < 0 ||
	    !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "repository '%s': %s", repo,
		    x->root ? "not a directory" : strerror(errno));
		free(x->root);
		x->root = NULL;
		return -1;
	}
	return 0;
}

void
cc_xtools_release(struct cc_xtools *x)
{
	free(x->root);
	x->root = NULL;
}

char *
cc_xtools_confine(const struct cc_xtools *x, const char *p, char *err, size_t errlen)
{
	size_t rl = strlen(x->root);
	char *joined, *real;

	if (!*p)
		p = ".";
	if (strlen(p) > PATH_MAX || memchr(p, '\n', strlen(p))) {
		snprintf(err, errlen, "path is too long or holds a newline");
		return NULL;
	}
	if (*p == '/') {
		joined = cc_xstrdup(p);
	} else {
		joined = cc_xmalloc(rl + strlen(p) + 2);
		sprintf(joined, "%s/%s", x->root, p);
	}
	real = realpath(joined, NULL);
	free(joined);
	if (!real) {
		snprintf(err, errlen, "Path does not exist: %s", p);
		return NULL;
	}
	if (strcmp(real, x->root) == 0) {
		free(real);
		return cc_xstrdup(".");
	}
	if (strncmp(real, x->root, rl) != 0 || real[rl] != '/') {
		free(real);
		snprintf(err, errlen, "Path is outside the repository: %s", p);
		return NULL;
	}
	joined = cc_xstrdup(real + rl + (strcmp(x->root, "/") == 0 ? 0 : 1));
	free(real);
	return joined;
}

/* ---- answers ---- */

static jv __attribute__((format(printf, 2, 3)))
error(const char *code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return jv_object_set(jv_object_set(jv_object(), jv_string("error"), jv_string(code)),
	    jv_string("message"), jv_string(msg));
}

/* args.key as a string: its value, NULL when absent or null, *bad when another kind. */
static const char *
arg_str(jv args, const char *key, jv *hold, int *bad)
{
	jv v = jv_object_get(jv_copy(args), jv_string(key));

	*hold = v;
	if (jv_get_kind(v) == JV_KIND_STRING) {
		if ((size_t)jv_string_length_bytes(jv_copy(v)) != strlen(jv_string_value(v)))
			*bad = 1;
		return jv_string_value(v);
	}
	if (jv_is_valid(v) && jv_get_kind(v) != JV_KIND_NULL)
		*bad = 1;
	return NULL;
}

static int
arg_bool(jv args, const char *key, int dflt, int *bad)
{
	jv v = jv_object_get(jv_copy(args), jv_string(key));
	int r = dflt;

	if (jv_get_kind(v) == JV_KIND_TRUE)
		r = 1;
	else if (jv_get_kind(v) == JV_KIND_FALSE)
		r = 0;
	else if (jv_is_valid(v) && jv_get_kind(v) != JV_KIND_NULL)
		*bad = 1;
	jv_free(v);
	return r;
}

static long
arg_int(jv args, const char *key, long dflt, long lo, long hi, int *bad)
{
	jv v = jv_object_get(jv_copy(args), jv_string(key));
	long r = dflt;

	if (jv_get_kind(v) == JV_KIND_NUMBER) {
		double d = jv_number_value(v);

		if (d != d || d < (double)lo || d > (double)hi || d != (double)(long)d)
			*bad = 1;
		else
			r = (long)d;
	} else if (jv_is_valid(v) && jv_get_kind(v) != JV_KIND_NULL) {
		*bad = 1;
	}
	jv_free(v);
	return r;
}

/* A path from a helper, made relative: "./a/b" -> "a/b". */
static const char *
rel(const char *p)
{
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	return p;
}

/* A helper's failure as an answer; err is its stderr. */
static jv
helper_failed(const char *prog, const struct cc_spawn *s, struct cc_buf *err)
{
	char *nl;

	if (s->exec_errno)
		return error("tool_unavailable", "%s cannot be run: %s (install %s)", prog,
		    strerror(s->exec_errno), strcmp(prog, "rg") == 0 ? "ripgrep" :
		    "universal-ctags");
	if (s->timed_out)
		return error("timeout", "%s took longer than the time limit", prog);
	while (err->data && (nl = strchr(err->data, '\n')))
		*nl = ' ';
	return error("tool_failed", "%s failed (status %d)%s%s", prog, s->status,
	    err->len ? ": " : "", err->len ? err->data : "");
}

/* Run argv bounded; 0, or -1 with *ans set. */
static int
run(struct cc_xtools *x, char **argv, const char *input, size_t cap, struct cc_buf *out,
    struct cc_spawn *s, jv *ans, int ok_status_1)
{
	struct cc_buf err = {0};

	memset(s, 0, sizeof *s);
	s->dir = x->root;
	s->input = input;
	s->input_len = input ? strlen(input) : 0;
	s->timeout_ms = x->timeout_ms;
	s->out_cap = cap;
	s->err_cap = 2048;
	if (cc_spawn_run(s, argv, out, &err) < 0 || s->timed_out ||
	    (!s->truncated && s->status != 0 && !(ok_status_1 && s->status == 1))) {
		*ans = helper_failed(argv[0], s, &err);
		cc_buf_release(&err);
		return -1;
	}
	cc_buf_release(&err);
	return 0;
}

/* Each complete line of buf in turn. */
static char *
next_line(struct cc_buf *b, size_t *at, size_t *len)
{
	char *p, *nl;

	if (!b->data || *at >= b->len)
		return NULL;
	p = b->data + *at;
	if (!(nl = memchr(p, '\n', b->len - *at)))
		return NULL;	/* a cut last line */
	*len = (size_t)(nl - p);
	*at += *len + 1;
	return p;
}

static const char *
str_of(jv o, const char *key, jv *hold)
{
	*hold = jv_object_get(jv_copy(o), jv_string(key));
	return jv_get_kind(*hold) == JV_KIND_STRING ? jv_string_value(*hold) : "";
}

/* One ctags tag as the original gave it. */
static jv
tag_entry(jv tag, int with_signature)
{
	jv h1, h2, h3, h4, h5, h6, line = jv_object_get(jv_copy(tag), jv_string("line"));
	jv o = jv_object();

	o = jv_object_set(o, jv_string("name"), jv_string(str_of(tag, "name", &h1)));
	o = jv_object_set(o, jv_string("file"), jv_string(rel(str_of(tag, "path", &h2))));
	o = jv_object_set(o, jv_string("line"), jv_get_kind(line) == JV_KIND_NUMBER ?
	    line : (jv_free(line), jv_number(0)));
	o = jv_object_set(o, jv_string("kind"), jv_string(str_of(tag, "kind", &h3)));
	o = jv_object_set(o, jv_string("scope"), jv_string(str_of(tag, "scope", &h4)));
	if (with_signature)
		o = jv_object_set(o, jv_string("signature"),
		    jv_string(str_of(tag, "signature", &h5)));
	else
		h5 = jv_null();
	o = jv_object_set(o, jv_string("language"), jv_string(str_of(tag, "language", &h6)));
	jv_free(h1);
	jv_free(h2);
	jv_free(h3);
	jv_free(h4);
	jv_free(h5);
	jv_free(h6);
	return o;
}

static int
ci_contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return 1;
	return n == 0;
}

/*
 * ctags over `files` (newline-separated, read with -L -) or over the
 * tree at `path` (-R); tags whose name passes the filter, as entries.
 */
struct tag_filter {
	const char *name;	/* NULL: any */
	int exact;
	const char *kind;	/* NULL: any */
	const char *language;	/* NULL: any (ctags --languages) */
	int signature;
	jv *exclude_into;	/* when set: an object "file:line" -> true */
};

static jv
ctags(struct cc_xtools *x, const char *path, const char *files, const struct tag_filter *f,
    size_t cap, jv *list, size_t *total, int *truncated)
{
	char lang[300], *argv[12], *pathv = NULL;
	struct cc_buf out = {0};
	struct cc_spawn s;
	size_t at = 0, len, n = 0;
	char *line;
	jv ans;

	argv[n++] = (char *)x->ctags;
	argv[n++] = "--output-format=json";
	argv[n++] = "--fields=+nKSl";
	argv[n++] = "--links=no";
	argv[n++] = "-f";
	argv[n++] = "-";
	if (f->language) {
		snprintf(lang, sizeof lang, "--languages=%s", f->language);
		argv[n++] = lang;
	}
	if (files) {
		argv[n++] = "-L";
		argv[n++] = "-";
	} else {
		pathv = cc_xmalloc(strlen(path) + 3);
		sprintf(pathv, "./%s", path);
		argv[n++] = "-R";
		argv[n++] = pathv;
	}
	argv[n] = NULL;
	if (run(x, argv, files, cap, &out, &s, &ans, 0) < 0) {
		free(pathv);
		cc_buf_release(&out);
		return ans;
	}
	free(pathv);
	*truncated |= s.truncated;
	while ((line = next_line(&out, &at, &len))) {
		jv tag = cc_json_parse(line, len), h;
		const char *name;

		if (jv_get_kind(tag) != JV_KIND_OBJECT) {
			jv_free(tag);
			continue;
		}
		name = str_of(tag, "name", &h);
		if (f->name && (f->exact ? strcmp(name, f->name) != 0 :
		    !ci_contains(name, f->name))) {
			jv_free(h);
			jv_free(tag);
			continue;
		}
		jv_free(h);
		if (f->kind) {
			int no = strcasecmp(str_of(tag, "kind", &h), f->kind) != 0;

			jv_free(h);
			if (no) {
				jv_free(tag);
				continue;
			}
		}
		if (f->exclude_into) {
			jv line_no = jv_object_get(jv_copy(tag), jv_string("line"));
			char key[PATH_MAX + 32];

			snprintf(key, sizeof key, "%s:%.0f", rel(str_of(tag, "path", &h)),
			    jv_get_kind(line_no) == JV_KIND_NUMBER ? jv_number_value(line_no) : 0);
			*f->exclude_into = jv_object_set(*f->exclude_into, jv_string(key),
			    jv_true());
			jv_free(h);
			jv_free(line_no);
			jv_free(tag);
			continue;
		}
		if (jv_array_length(jv_copy(*list)) < (int)x->max_results)
			*list = jv_array_append(*list, tag_entry(tag, f->signature));
		else
			*truncated = 1;
		(*total)++;
		jv_free(tag);
	}
	cc_buf_release(&out);
	return jv_null();
}

/* The files under path holding text (fixed, case-folded unless exact), newline-separated. */
static jv
files_with(struct cc_xtools *x, const char *path, const char *text, int exact,
    struct cc_buf *files, int *truncated)
{
	char *argv[12];
	struct cc_spawn s;
	size_t n = 0;
	jv ans;

	argv[n++] = (char *)x->rg;
	argv[n++] = "--files-with-matches";
	argv[n++] = "--sort=path";	/* the same answer every time */
	argv[n++] = "--fixed-strings";
	if (!exact)
		argv[n++] = "--ignore-case";
	argv[n++] = "--no-messages";
	argv[n++] = "-e";
	argv[n++] = (char *)text;
	argv[n++] = "--";
	argv[n++] = (char *)path;
	argv[n] = NULL;
	/* status 1: no file; 2 with output: some file unreadable */
	if (run(x, argv, NULL, 1 << 20, files, &s, &ans, 1) < 0) {
		if (!(s.status == 2 && files->len))
			return ans;
		jv_free(ans);
	}
	if (s.truncated) {	/* drop the cut last name */
		char *nl = files->data ? strrchr(files->data, '\n') : NULL;

		files->len = nl ? (size_t)(nl - files->data) + 1 : 0;
		if (files->data)
			files->data[files->len] = '\0';
		*truncated = 1;
	}
	return jv_null();
}

static jv
answer(jv o, const char *key, jv list, size_t total, int truncated)
{
	o = jv_object_set(o, jv_string(key), list);
	o = jv_object_set(o, jv_string("total"), jv_number((double)total));
	o = jv_object_set(o, jv_string("truncated"), jv_bool(truncated));
	return o;
}

static jv
find_definitions(struct cc_xtools *x, jv args, const char *path)
{
	jv h1, h2, list = jv_array(), e;
	int bad = 0, truncated = 0;
	const char *symbol = arg_str(args, "symbol", &h1, &bad);
	const char *language = arg_str(args, "language", &h2, &bad);
	struct tag_filter f = { .name = symbol, .language = language, .signature = 1 };
	struct cc_buf files = {0};
	size_t total = 0;
	jv ans;

	f.exact = arg_bool(args, "exact_match", 0, &bad);
	if (bad || !symbol || !*symbol) {
		ans = error("invalid_arguments", "find_definitions: 'symbol' must be a "
		    "non-empty string, 'language' a string, 'exact_match' a boolean");
		goto done;
	}
	/* ripgrep narrows the files first: ctags reads only those */
	e = files_with(x, path, symbol, f.exact, &files, &truncated);
	if (jv_is_valid(e) && jv_get_kind(e) != JV_KIND_NULL) {
		ans = e;
		goto done;
	}
	if (files.len) {
		e = ctags(x, path, files.data, &f, x->out_cap, &list, &total, &truncated);
		if (jv_get_kind(e) != JV_KIND_NULL) {
			ans = e;
			goto done;
		}
	}
	ans = jv_object_set(jv_object(), jv_string("symbol"), jv_string(symbol));
	ans = jv_object_set(ans, jv_string("path"), jv_string(path));
	ans = answer(ans, "definitions", list, total, truncated);
	list = jv_null();
done:
	jv_free(list);
	jv_free(h1);
	jv_free(h2);
	cc_buf_release(&files);
	return ans;
}

/* ripgrep --json lines: the matches as entries (search_text reads its own). */
static void
rg_entries(struct cc_xtools *x, struct cc_buf *out, jv exclude, jv *list, size_t *total,
    int *truncated, jv *files)
{
	size_t at = 0, len;
	char *line;

	while ((line = next_line(out, &at, &len))) {
		jv ev = cc_json_parse(line, len), h1, h2, h3, data, path, lines, num;
		const char *type, *file, *text;
		char key[PATH_MAX + 32];

		if (jv_get_kind(ev) != JV_KIND_OBJECT) {
			jv_free(ev);
			continue;
		}
		type = str_of(ev, "type", &h1);
		if (strcmp(type, "match") != 0) {
			jv_free(h1);
			jv_free(ev);
			continue;
		}
		data = jv_object_get(jv_copy(ev), jv_string("data"));
		path = jv_get_kind(data) == JV_KIND_OBJECT ?
		    jv_object_get(jv_copy(data), jv_string("path")) : jv_null();
		lines = jv_get_kind(data) == JV_KIND_OBJECT ?
		    jv_object_get(jv_copy(data), jv_string("lines")) : jv_null();
		num = jv_get_kind(data) == JV_KIND_OBJECT ?
		    jv_object_get(jv_copy(data), jv_string("line_number")) : jv_null();
		file = jv_get_kind(path) == JV_KIND_OBJECT ? str_of(path, "text", &h2) :
		    (h2 = jv_null(), "");
		text = jv_get_kind(lines) == JV_KIND_OBJECT ? str_of(lines, "text", &h3) :
		    (h3 = jv_null(), "");
		if (*file && jv_get_kind(num) == JV_KIND_NUMBER) {
			int skip = 0;

			snprintf(key, sizeof key, "%s:%.0f", rel(file), jv_number_value(num));
			if (jv_get_kind(exclude) == JV_KIND_OBJECT) {
				jv d = jv_object_get(jv_copy(exclude), jv_string(key));

				skip = jv_get_kind(d) == JV_KIND_TRUE;
				jv_free(d);
			}
			if (files)
				*files = jv_object_set(*files, jv_string(rel(file)), jv_true());
			if (!skip) {
				size_t tl = strlen(text);

				while (tl && (text[tl - 1] == '\n' || text[tl - 1] == '\r'))
					tl--;
				(*total)++;
				if (jv_array_length(jv_copy(*list)) < (int)x->max_results) {
					jv o = jv_object_set(jv_object(), jv_string("file"),
					    jv_string(rel(file)));

					o = jv_object_set(o, jv_string("line"), jv_copy(num));
					o = jv_object_set(o, jv_string("content"),
					    jv_string_sized(text, (int)tl));
					*list = jv_array_append(*list, o);
				} else {
					*truncated = 1;
				}
			}
		}
		jv_free(h1);
		jv_free(h2);
		jv_free(h3);
		jv_free(data);
		jv_free(path);
		jv_free(lines);
		jv_free(num);
		jv_free(ev);
	}
}

/* ripgrep's submatches as the original gave them: [{match, start, end}]. */
static jv
submatches(jv data)
{
	jv subs = jv_object_get(jv_copy(data), jv_string("submatches")), out = jv_array();

	if (jv_get_kind(subs) == JV_KIND_ARRAY) {
		jv_array_foreach(subs, i, sm) {
			jv m = jv_get_kind(sm) == JV_KIND_OBJECT ?
			    jv_object_get(jv_copy(sm), jv_string("match")) : jv_null();
			jv t = jv_get_kind(m) == JV_KIND_OBJECT ?
			    jv_object_get(jv_copy(m), jv_string("text")) : jv_null();
			jv o = jv_object_set(jv_object(), jv_string("match"),
			    jv_get_kind(t) == JV_KIND_STRING ? t : (jv_free(t), jv_string("")));

			if (jv_get_kind(sm) == JV_KIND_OBJECT) {
				o = jv_object_set(o, jv_string("start"),
				    jv_object_get(jv_copy(sm), jv_string("start")));
				o = jv_object_set(o, jv_string("end"),
				    jv_object_get(jv_copy(sm), jv_string("end")));
			}
			if (i < 20)	/* a line of 500 columns can match often */
				out = jv_array_append(out, o);
			else
				jv_free(o);
			jv_free(m);
			jv_free(sm);
		}
	}
	jv_free(subs);
	return out;
}

/*
 * ripgrep --json lines for search_text, in the original's shape: matches
 * {file, line_number, line_content, submatches}, each with the context
 * lines around it (before it, or after the match it follows in the same
 * file) as "context": [{line_number, line_content}].
 */
static void
search_entries(struct cc_buf *out, size_t max, long ctx, jv *list, size_t *total,
    int *truncated)
{
	size_t at = 0, len;
	char *line;
	jv pending = jv_array(), last_file = jv_null();
	double last_line = -1;

	while ((line = next_line(out, &at, &len))) {
		jv ev = cc_json_parse(line, len), h1, h2, h3, data, path, lines, num;
		const char *type, *file, *text;
		size_t tl;

		if (jv_get_kind(ev) != JV_KIND_OBJECT) {
			jv_free(ev);
			continue;
		}
		type = str_of(ev, "type", &h1);
		data = jv_object_get(jv_copy(ev), jv_string("data"));
		if ((strcmp(type, "match") != 0 && strcmp(type, "context") != 0) ||
		    jv_get_kind(data) != JV_KIND_OBJECT) {
			jv_free(h1);
			jv_free(data);
			jv_free(ev);
			continue;
		}
		path = jv_object_get(jv_copy(data), jv_string("path"));
		lines = jv_object_get(jv_copy(data), jv_string("lines"));
		num = jv_object_get(jv_copy(data), jv_string("line_number"));
		file = jv_get_kind(path) == JV_KIND_OBJECT ? str_of(path, "text", &h2) :
		    (h2 = jv_null(), "");
		text = jv_get_kind(lines) == JV_KIND_OBJECT ? str_of(lines, "text", &h3) :
		    (h3 = jv_null(), "");
		tl = strlen(text);
		while (tl && (text[tl - 1] == '\n' || text[tl - 1] == '\r'))
			tl--;
		if (*file && jv_get_kind(num) == JV_KIND_NUMBER) {
			jv entry = jv_object_set(jv_object(), jv_string("line_number"),
			    jv_copy(num));
			int n = jv_array_length(jv_copy(*list));
			int same = jv_get_kind(last_file) == JV_KIND_STRING &&
			    strcmp(jv_string_value(last_file), rel(file)) == 0;

			entry = jv_object_set(entry, jv_string("line_content"),
			    jv_string_sized(text, (int)tl));
			if (strcmp(type, "match") == 0) {
				(*total)++;
				if ((size_t)n < max) {
					jv_free(entry);
					entry = jv_object_set(jv_object_set(jv_object(),
					    jv_string("file"), jv_string(rel(file))),
					    jv_string("line_number"), jv_copy(num));
					entry = jv_object_set(entry, jv_string("line_content"),
					    jv_string_sized(text, (int)tl));
					entry = jv_object_set(entry, jv_string("submatches"),
					    submatches(data));
					if (ctx)
						entry = jv_object_set(entry, jv_string("context"),
						    pending);
					else
						jv_free(pending);
					pending = jv_array();
					*list = jv_array_append(*list, entry);
					jv_free(last_file);
					last_file = jv_string(rel(file));
					last_line = jv_number_value(num);
				} else {
					*truncated = 1;
					jv_free(entry);
					jv_free(pending);
					pending = jv_array();
					jv_free(last_file);
					last_file = jv_null();
				}
			} else if (same && n > 0 && jv_number_value(num) > last_line &&
			    jv_number_value(num) <= last_line + (double)ctx) {
				/* after the last match: it goes with that one */
				jv m = jv_array_get(jv_copy(*list), n - 1);
				jv c = jv_object_get(jv_copy(m), jv_string("context"));

				c = jv_array_append(jv_get_kind(c) == JV_KIND_ARRAY ? c :
				    (jv_free(c), jv_array()), entry);
				*list = jv_array_set(*list, n - 1,
				    jv_object_set(m, jv_string("context"), c));
			} else {
				if (jv_array_length(jv_copy(pending)) < 2 * ctx)
					pending = jv_array_append(pending, entry);
				else
					jv_free(entry);
			}
		}
		jv_free(h1);
		jv_free(h2);
		jv_free(h3);
		jv_free(data);
		jv_free(path);
		jv_free(lines);
		jv_free(num);
		jv_free(ev);
	}
	jv_free(pending);
	jv_free(last_file);
}

/* rg --json over path; argv_extra before "-e PATTERN -- PATH". */
static jv
rg_json(struct cc_xtools *x, const char *path, const char *pattern, char **extra,
    struct cc_buf *out, int *truncated)
{
	char *argv[24];
	struct cc_spawn s;
	size_t n = 0;
	jv ans;

	argv[n++] = (char *)x->rg;
	argv[n++] = "--json";
	argv[n++] = "--no-messages";
	argv[n++] = "--max-columns=500";
	argv[n++] = "--max-columns-preview";
	argv[n++] = "--max-filesize=4M";
	argv[n++] = "--sort=path";
	while (extra && *extra && n < 18)
		argv[n++] = *extra++;
	argv[n++] = "-e";
	argv[n++] = (char *)pattern;
	argv[n++] = "--";
	argv[n++] = (char *)path;
	argv[n] = NULL;
	if (run(x, argv, NULL, x->out_cap, out, &s, &ans, 1) < 0) {
		if (!(s.status == 2 && out->len && !s.timed_out && !s.exec_errno))
			return ans;	/* 2 with matches: some file unreadable */
		jv_free(ans);
	}
	*truncated |= s.truncated;
	return jv_null();
}

static jv
find_references(struct cc_xtools *x, jv args, const char *path)
{
	jv h1, h2, list = jv_array(), files = jv_object(), exclude = jv_object(), e, ans;
	int bad = 0, truncated = 0;
	const char *symbol = arg_str(args, "symbol", &h1, &bad);
	const char *language = arg_str(args, "language", &h2, &bad);
	char *extra[4] = { "--word-regexp", "--fixed-strings", NULL, NULL };
	char type[300];
	struct cc_buf out = {0}, names = {0};
	size_t total = 0;

	if (bad || !symbol || !*symbol) {
		ans = error("invalid_arguments", "find_references: 'symbol' must be a "
		    "non-empty string, 'language' a string");
		goto done;
	}
	if (language && *language) {
		snprintf(type, sizeof type, "--type=%s", language);
		extra[2] = type;
	}
	e = rg_json(x, path, symbol, extra, &out, &truncated);
	if (jv_get_kind(e) != JV_KIND_NULL) {
		ans = e;
		goto done;
	}
	/* the files that matched, once: their definitions of the symbol are left out */
	{
		struct cc_buf tmp = out;
		size_t t0 = 0;
		int tr0 = 0;
		jv l0 = jv_array();
		struct cc_xtools all = *x;

		all.max_results = 0;
		rg_entries(&all, &tmp, jv_null(), &l0, &t0, &tr0, &files);
		jv_free(l0);
	}
	jv_object_foreach(files, k, v) {
		cc_buf_add(&names, "./", 2);
		cc_buf_add(&names, jv_string_value(k), strlen(jv_string_value(k)));
		cc_buf_add(&names, "\n", 1);
		jv_free(k);
		jv_free(v);
	}
	if (names.len) {
		struct tag_filter f = { .name = symbol, .exact = 1, .exclude_into = &exclude };
		jv none = jv_array();
		size_t t = 0;
		int tr = 0;

		e = ctags(x, path, names.data, &f, x->out_cap, &none, &t, &tr);
		jv_free(none);
		if (jv_get_kind(e) != JV_KIND_NULL) {
			ans = e;
			goto done;
		}
	}
	rg_entries(x, &out, exclude, &list, &total, &truncated, NULL);
	ans = jv_object_set(jv_object(), jv_string("symbol"), jv_string(symbol));
	ans = jv_object_set(ans, jv_string("path"), jv_string(path));
	ans = answer(ans, "references", list, total, truncated);
	list = jv_null();
done:
	jv_free(list);
	jv_free(files);
	jv_free(exclude);
	jv_free(h1);
	jv_free(h2);
	cc_buf_release(&out);
	cc_buf_release(&names);
	return ans;
}

static jv
search_text(struct cc_xtools *x, jv args, const char *path)
{
	jv h1, h2, list = jv_array(), e, ans;
	int bad = 0, truncated = 0;
	const char *pattern = arg_str(args, "pattern", &h1, &bad);
	const char *ftype = arg_str(args, "file_type", &h2, &bad);
	int cs = arg_bool(args, "case_sensitive", 1, &bad);
	long ctx = arg_int(args, "context_lines", 0, 0, 10, &bad);
	long max = arg_int(args, "max_results", 100, 1, 1000, &bad);
	char *extra[6] = {0}, type[300], ctxs[32];
	struct cc_buf out = {0};
	struct cc_xtools xx = *x;
	size_t total = 0, n = 0;

	if (bad || !pattern || !*pattern) {
		ans = error("invalid_arguments", "search_text: 'pattern' must be a non-empty "
		    "string, 'file_type' a string, 'case_sensitive' a boolean, "
		    "'context_lines' an integer 0..10, 'max_results' an integer 1..1000");
		goto done;
	}
	if (!cs)
		extra[n++] = "--ignore-case";
	if (ftype && *ftype) {
		snprintf(type, sizeof type, "--type=%s", ftype);
		extra[n++] = type;
	}
	if (ctx) {
		snprintf(ctxs, sizeof ctxs, "--context=%ld", ctx);
		extra[n++] = ctxs;
	}
	e = rg_json(x, path, pattern, extra, &out, &truncated);
	if (jv_get_kind(e) != JV_KIND_NULL) {
		ans = e;
		goto done;
	}
	if ((size_t)max < xx.max_results)
		xx.max_results = (size_t)max;
	search_entries(&out, xx.max_results, ctx, &list, &total, &truncated);
	ans = jv_object_set(jv_object(), jv_string("pattern"), jv_string(pattern));
	ans = jv_object_set(ans, jv_string("path"), jv_string(path));
	ans = jv_object_set(ans, jv_string("total_matches"), jv_number((double)total));
	ans = answer(ans, "matches", list, total, truncated);
	list = jv_null();
done:
	jv_free(list);
	jv_free(h1);
	jv_free(h2);
	cc_buf_release(&out);
	return ans;
}

static jv
get_symbols(struct cc_xtools *x, jv args, const char *path)
{
	jv h1, h2, list = jv_array(), e, ans;
	int bad = 0, truncated = 0;
	const char *kind = arg_str(args, "kind", &h1, &bad);
	const char *language = arg_str(args, "language", &h2, &bad);
	struct tag_filter f = { .kind = kind && *kind ? kind : NULL,
		.language = language && *language ? language : NULL };
	size_t total = 0;

	if (bad) {
		ans = error("invalid_arguments", "get_symbols: 'path', 'kind' and "
		    "'language' must be strings");
		goto done;
	}
	/* without a filter every tag is kept: stop ctags once the list is full */
	e = ctags(x, path, NULL, &f, f.kind ? x->out_cap : x->max_results * 2048 + 65536,
	    &list, &total, &truncated);
	if (jv_get_kind(e) != JV_KIND_NULL) {
		ans = e;
		goto done;
	}
	ans = jv_object_set(jv_object(), jv_string("path"), jv_string(path));
	ans = answer(ans, "symbols", list, total, truncated);
	list = jv_null();
done:
	jv_free(list);
	jv_free(h1);
	jv_free(h2);
	return ans;
}

static const char *const function_kinds[] = { "function", "method", "member",
	"subroutine", "procedure", "func", "singletonMethod", NULL };
static const char *const class_kinds[] = { "class", "struct", "interface", "enum",
	"trait", "module", "namespace", "type", "typedef", "union", NULL };

static int
in(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (strcmp(*l, s) == 0)
			return 1;
	return 0;
}

static jv
analyze_structure(struct cc_xtools *x, jv args)
{
	jv h1, h2, h3, list = jv_array(), e, ans = jv_null();
	int bad = 0, truncated = 0;
	const char *file = arg_str(args, "file_path", &h1, &bad);
	const char *code = arg_str(args, "code", &h2, &bad);
	const char *language = arg_str(args, "language", &h3, &bad);
	struct tag_filter f = { .signature = 1 };
	char err[PATH_MAX + 64], tmpl[] = "/tmp/cc-mcp-code.XXXXXX", *relp = NULL;
	char force[300], *argv[12];
	struct cc_buf out = {0}, files = {0};
	size_t total = 0;
	int fd = -1;
	jv functions = jv_array(), classes = jv_array(), other = jv_array();

	if (bad || (!file && !code) || (file && code)) {
		ans = error("invalid_arguments", "analyze_structure: give 'file_path' or "
		    "'code' (strings), and optionally 'language'");
		goto done;
	}
	if (code && (!language || !*language)) {
		ans = error("invalid_arguments", "analyze_structure: 'code' needs 'language'");
		goto done;
	}
	if (file) {
		if (!(relp = cc_xtools_confine(x, file, err, sizeof err))) {
			ans = error("invalid_path", "%s", err);
			goto done;
		}
		cc_buf_add(&files, "./", 2);
		cc_buf_add(&files, relp, strlen(relp));
		cc_buf_add(&files, "\n", 1);
		f.language = language && *language ? language : NULL;
		e = ctags(x, ".", files.data, &f, x->out_cap, &list, &total, &truncated);
	} else {
		struct cc_spawn s;
		size_t n = 0, len = strlen(code), at = 0;
		char *line;

		if ((fd = mkstemp(tmpl)) < 0 || write(fd, code, len) != (ssize_t)len) {
			ans = error("internal", "cannot write the code to a temporary file");
			goto done;
		}
		snprintf(force, sizeof force, "--language-force=%s", language);
		argv[n++] = (char *)x->ctags;
		argv[n++] = "--output-format=json";
		argv[n++] = "--fields=+nKSl";
		argv[n++] = force;
		argv[n++] = "-f";
		argv[n++] = "-";
		argv[n++] = tmpl;
		argv[n] = NULL;
		e = jv_null();
		if (run(x, argv, NULL, x->out_cap, &out, &s, &e, 0) == 0) {
			truncated |= s.truncated;
			while ((line = next_line(&out, &at, &len))) {
				jv tag = cc_json_parse(line, len);

				if (jv_get_kind(tag) == JV_KIND_OBJECT) {
					if (jv_array_length(jv_copy(list)) < (int)x->max_results)
						list = jv_array_append(list, tag_entry(tag, 1));
					else
						truncated = 1;
					total++;
				}
				jv_free(tag);
			}
		}
	}
	if (jv_get_kind(e) != JV_KIND_NULL) {
		ans = e;
		goto done;
	}
	jv_array_foreach(list, i, t) {
		jv k = jv_object_get(jv_copy(t), jv_string("kind"));
		const char *ks = jv_get_kind(k) == JV_KIND_STRING ? jv_string_value(k) : "";

		if (!file)
			t = jv_object_set(t, jv_string("file"), jv_string(""));
		if (in(function_kinds, ks))
			functions = jv_array_append(functions, t);
		else if (in(class_kinds, ks))
			classes = jv_array_append(classes, t);
		else
			other = jv_array_append(other, t);
		jv_free(k);
	}
	ans = jv_object_set(jv_object(), jv_string("file_path"),
	    file ? jv_string(relp) : jv_null());
	ans = jv_object_set(ans, jv_string("functions"), functions);
	ans = jv_object_set(ans, jv_string("classes"), classes);
	ans = jv_object_set(ans, jv_string("other"), other);
	functions = classes = other = jv_null();
	ans = jv_object_set(ans, jv_string("total"), jv_number((double)total));
	ans = jv_object_set(ans, jv_string("truncated"), jv_bool(truncated));
done:
	if (fd >= 0) {
		close(fd);
		unlink(tmpl);
	}
	jv_free(functions);
	jv_free(classes);
	jv_free(other);
	jv_free(list);
	jv_free(h1);
	jv_free(h2);
	jv_free(h3);
	free(relp);
	cc_buf_release(&out);
	cc_buf_release(&files);
	return ans;
}

jv
cc_xtools_call(struct cc_xtools *x, const char *name, jv args)
{
	char err[PATH_MAX + 64], *path;
	jv hp, ans;
	int bad = 0;
	const char *p;

	if (jv_get_kind(args) != JV_KIND_OBJECT)
		return error("invalid_arguments", "%s: the arguments must be an object", name);
	if (strcmp(name, "analyze_structure") == 0)
		return analyze_structure(x, args);
	p = arg_str(args, "path", &hp, &bad);
	if (bad) {
		jv_free(hp);
		return error("invalid_arguments", "%s: 'path' must be a string", name);
	}
	if (!(path = cc_xtools_confine(x, p ? p : ".", err, sizeof err))) {
		jv_free(hp);
		return error("invalid_path", "%s", err);
	}
	jv_free(hp);
	if (strcmp(name, "find_definitions") == 0)
		ans = find_definitions(x, args, path);
	else if (strcmp(name, "find_references") == 0)
		ans = find_references(x, args, path);
	else if (strcmp(name, "search_text") == 0)
		ans = search_text(x, args, path);
	else if (strcmp(name, "get_symbols") == 0)
		ans = get_symbols(x, args, path);
	else
		ans = error("unknown_tool", "Unknown tool: %s", name);
	free(path);
	return ans;
}
