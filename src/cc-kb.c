/* cc-kb: build, search and inspect the knowledge-base index. */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_config.h"
#include "cc_json.h"
#include "cc_kb.h"
#include "cc_kbnet.h"
#include "cc_http.h"

static const char usage_text[] =
	"usage: cc-kb [--db PATH] build [--force] [DIR...]\n"
	"       cc-kb [--db PATH] search [--json] [--limit N] [--lang ja|en]\n"
	"             [--category C] [--request-type T] QUERY...\n"
	"       cc-kb [--db PATH] list | stats\n"
	"       cc-kb tokens [--query] TEXT...\n"
	"Builds and inspects the knowledge-base index (SQLite FTS5) of the\n"
	"*.md passages in DIR (default: the domain's kb folder; see cc-kb(5)).\n"
	"  -d, --db PATH          the index (default $CC_KB_DB, else\n"
	"                         $XDG_CACHE_HOME/concierge/kb-DOMAIN.sqlite)\n"
	"  -k, --kb DIR           a document folder (repeatable)\n"
	"  -f, --force            build: re-read every document\n"
	"  -j, --json             search: one JSON object per passage\n"
	"  -n, --limit N          search: at most N passages (default 10)\n"
	"  -l, --lang L           search: passages in L first\n"
	"  -c, --category C       search: boost passages of category C\n"
	"  -r, --request-type T   search: boost passages for request type T\n"
	"  -q, --query            tokens: tokenize as a query\n"
	"  -h, --help             show this help\n"
	"  -V, --version          show the version\n";

struct opts {
	const char *db, *lang, *category, *request_type;
	char **kb;
	size_t nkb;
	int force, json, query;
	long limit;
};

static void
usage_error(const char *fmt, const char *arg)
{
	cc_warn(fmt, arg);
	fputs(usage_text, stderr);
	exit(CC_EXIT_USAGE);
}

/* Join argv[from..] with spaces. */
static char *
join(int argc, char **argv, int from)
{
	struct cc_buf b = {0};

	for (int i = from; i < argc; i++) {
		if (i > from)
			cc_buf_add(&b, " ", 1);
		cc_buf_add(&b, argv[i], strlen(argv[i]));
	}
	cc_buf_add(&b, "", 0);
	return b.data;
}

/* Print s with control characters escaped: document text is untrusted. */
static void
put_safe(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7F)
			printf("\\x%02x", (unsigned char)*s);
		else
			putchar(*s);
}

/* The embeddings endpoint, when one is configured (cc-rag(1)). */
static struct cc_embed em;
static int em_on;

static struct cc_kb *
open_index(const char *db, struct opts *o, const struct cc_config *cfg)
{
	char err[600];
	size_t n;
	char **dirs = cc_kb_resolve_dirs(db, o->kb, o->nkb, cfg, &n);
	struct cc_kb *kb;

	cc_kb_dirs_check(dirs);
	kb = cc_kb_open_fresh(db, (const char *const *)dirs, n,
	    em_on ? &em.embedder : NULL, 0, err, sizeof err);

	cc_kb_dirs_free(dirs);
	if (!kb)
		cc_die(CC_EXIT_INTERNAL, "%s", err);
	return kb;
}

static int
cmd_build(const char *db, struct opts *o, const struct cc_config *cfg)
{
	char err[600];
	struct cc_kb_build_stats st;
	size_t n;
	char **dirs = cc_kb_resolve_dirs(db, o->kb, o->nkb, cfg, &n);
	struct cc_kb *kb;
	int rc;

	cc_kb_dirs_check(dirs);
	kb = cc_kb_open(db, 0, err, sizeof err);
	if (!kb) {
		cc_kb_dirs_free(dirs);
		cc_die(CC_EXIT_INTERNAL, "%s", err);
	}
	rc = cc_kb_build(kb, (const char *const *)dirs, n,
	    em_on ? &em.embedder : NULL, o->force, &st);
	cc_kb_dirs_free(dirs);
	if (rc < 0) {
		cc_warn("cannot build '%s': %s", db, cc_kb_error(kb));
		cc_kb_close(kb);
		return CC_EXIT_INTERNAL;
	}
	cc_kb_close(kb);
	printf("%zu passages from %zu files (%zu read, %zu unchanged): "
	    "%zu added, %zu removed, in %.3f s\n", st.passages, st.files,
	    st.files_changed, st.files_kept, st.added, st.removed, st.seconds);
	if (st.vectors)
		printf("%zu vectors from '%s'\n", st.vectors, em.embedder.model);
	if (st.embed_error[0]) {
		cc_warn("no vectors: %s", st.embed_error);
		return CC_EXIT_UPSTREAM;
	}
	return st.problems ? CC_EXIT_DATA : CC_EXIT_OK;
}

static int
cmd_search(const char *db, struct opts *o, const struct cc_config *cfg,
    const char *query)
{
	struct cc_kb *kb = open_index(db, o, cfg);
	struct cc_kb_hits hits = {0};
	struct cc_kb_query q = {
		.text = query, .len = strlen(query), .language = o->lang,
		.category = o->category, .request_type = o->request_type,
		.limit = (size_t)o->limit,
	};
	struct cc_buf out = {0};
	float *qv = NULL;
	char err[300];
	int rc, dim = 0, degraded = 0;

	if (em_on) {
		const char *text = query;

		if (cc_embed_texts(&em, &text, 1, &qv, &dim, err, sizeof err) == 0) {
			q.vector = qv;
			q.dim = dim;
			q.model = em.embedder.model;
		} else {
			cc_warn("embeddings: %s: keyword search only", err);
			degraded = 1;
		}
	}
	rc = cc_kb_search(kb, &q, &hits);
	free(qv);
	if (rc < 0) {
		cc_warn("%s", cc_kb_error(kb));
		cc_kb_close(kb);
		return CC_EXIT_INTERNAL;
	}
	for (size_t i = 0; i < hits.n; i++) {
		const struct cc_kb_hit *h = &hits.v[i];

		if (o->json) {
			struct cc_jw w;

			out.len = 0;
			cc_jw_init(&w, &out);
			cc_jw_object(&w);
			cc_jw_key(&w, "rank");
			cc_jw_num(&w, (double)(i + 1));
			cc_jw_key(&w, "id");
			cc_jw_cstr(&w, h->id);
			cc_jw_key(&w, "title");
			cc_jw_cstr(&w, h->title);
			cc_jw_key(&w, "content");
			cc_jw_cstr(&w, h->content);
			cc_jw_key(&w, "score");
			cc_jw_num(&w, round(h->score * 10000) / 10000);
			cc_jw_key(&w, "language");
			cc_jw_cstr(&w, h->language);
			cc_jw_key(&w, "category");
			cc_jw_cstr(&w, h->category);
			cc_jw_key(&w, "request_types");
			cc_jw_cstr(&w, h->request_types);
			cc_jw_end(&w);
			cc_buf_add(&out, "\n", 1);
			fwrite(out.data, 1, out.len, stdout);
		} else {
			printf("%zu\t%.4f\t", i + 1, h->score);
			put_safe(h->id);
			putchar('\t');
			put_safe(h->title);
			putchar('\n');
		}
	}
	rc = !hits.n ? CC_EXIT_NEGATIVE : degraded ? CC_EXIT_UPSTREAM : CC_EXIT_OK;
	cc_buf_release(&out);
	cc_kb_hits_release(&hits);
	cc_kb_close(kb);
	return rc;
}

static int
list_one(void *ctx, const struct cc_kb_hit *h)
{
	put_safe(h->id);
	printf("\t%s\t%s\t%s\t", h->language, h->category,
	    *h->request_types ? h->request_types : "-");
	put_safe(h->title);
	putchar('\n');
	return 0;
}

static int
cmd_list(const char *db, struct opts *o, const struct cc_config *cfg)
{
	struct cc_kb *kb = open_index(db, o, cfg);
	int rc = cc_kb_list(kb, list_one, NULL);

	if (rc < 0)
		cc_warn("%s", cc_kb_error(kb));
	cc_kb_close(kb);
	return rc < 0 ? CC_EXIT_INTERNAL : CC_EXIT_OK;
}

static int
cmd_stats(const char *db, struct opts *o, const struct cc_config *cfg)
{
	struct cc_kb *kb = open_index(db, o, cfg);
	struct cc_kb_stats s;
	size_t n;
	char **dirs;

	if (cc_kb_stats(kb, &s) < 0) {
		cc_warn("%s", cc_kb_error(kb));
		cc_kb_close(kb);
		return CC_EXIT_INTERNAL;
	}
	cc_kb_close(kb);
	dirs = cc_kb_resolve_dirs(db, o->kb, o->nkb, cfg, &n);
	printf("index\t%s\nformat\t%s\n", db, s.format ? s.format : "");
	for (size_t i = 0; i < n; i++)
		printf("documents\t%s\n", dirs[i]);
	printf("files\t%lld\npassages\t%lld\nja\t%lld\nen\t%lld\n"
	    "categories\t%lld\nvectors\t%lld\nembedding_model\t%s\n",
	    s.files, s.passages, s.ja, s.en, s.categories, s.vectors,
	    s.embed_model && *s.embed_model ? s.embed_model : "-");
	cc_kb_dirs_free(dirs);
	cc_kb_stats_release(&s);
	return CC_EXIT_OK;
}

static int
print_token(void *ctx, const char *tok, size_t n, int kind, int colocated)
{
	int *first = ctx;

	if (!*first)
		putchar(colocated ? '|' : ' ');
	*first = 0;
	fwrite(tok, 1, n, stdout);
	return 0;
}

static int
cmd_tokens(struct opts *o, const char *text)
{
	int first = 1;

	if (o->query) {
		struct cc_buf b = {0};

		cc_kb_query_terms(text, strlen(text), &b);
		puts(b.data ? b.data : "");
		cc_buf_release(&b);
		return CC_EXIT_OK;
	}
	cc_kb_tokenize(text, strlen(text), 0, print_token, &first);
	putchar('\n');
	return CC_EXIT_OK;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"kb", required_argument, NULL, 'k'},
		{"force", no_argument, NULL, 'f'},
		{"json", no_argument, NULL, 'j'},
		{"limit", required_argument, NULL, 'n'},
		{"lang", required_argument, NULL, 'l'},
		{"category", required_argument, NULL, 'c'},
		{"request-type", required_argument, NULL, 'r'},
		{"query", no_argument, NULL, 'q'},
		CC_COMMON_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct opts o = { .limit = 10 };
	struct cc_config cfg;
	const char *cmd;
	char *db, *text = NULL, *end;
	int c, rc;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:k:fjn:l:c:r:q" CC_COMMON_SHORTOPTS,
	    longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o.db = optarg; break;
		case 'k':
			o.kb = cc_xrealloc(o.kb, (o.nkb + 1) * sizeof *o.kb);
			o.kb[o.nkb++] = optarg;
			break;
		case 'f': o.force = 1; break;
		case 'j': o.json = 1; break;
		case 'n':
			o.limit = strtol(optarg, &end, 10);
			if (*end || o.limit < 1 || o.limit > 1000)
				usage_error("invalid --limit '%s': use 1 to 1000", optarg);
			break;
		case 'l': o.lang = optarg; break;
		case 'c': o.category = optarg; break;
		case 'r': o.request_type = optarg; break;
		case 'q': o.query = 1; break;
		default:
			if (!cc_option_common(c, argv, usage_text, NULL))
				cc_die(CC_EXIT_INTERNAL, "unhandled option -%c", c);
		}
	}
	if (optind >= argc)
		usage_error("%s", "no command: build, search, list, stats or tokens");
	cmd = argv[optind++];
	cc_config_load(&cfg);
	em_on = strcmp(cmd, "tokens") != 0 && cc_embed_init(&em);
	db = o.db ? cc_xstrdup(o.db) : cc_kb_default_db(&cfg);
	if (strcmp(cmd, "build") == 0) {
		for (int i = optind; i < argc; i++) {
			o.kb = cc_xrealloc(o.kb, (o.nkb + 1) * sizeof *o.kb);
			o.kb[o.nkb++] = argv[i];
		}
		rc = cmd_build(db, &o, &cfg);
	} else if (strcmp(cmd, "search") == 0) {
		if (optind >= argc)
			usage_error("%s", "search: no query");
		text = join(argc, argv, optind);
		rc = cmd_search(db, &o, &cfg, text);
	} else if (strcmp(cmd, "list") == 0 || strcmp(cmd, "stats") == 0) {
		if (optind < argc)
			usage_error("unexpected argument '%s'", argv[optind]);
		rc = cmd[0] == 'l' ? cmd_list(db, &o, &cfg) : cmd_stats(db, &o, &cfg);
	} else if (strcmp(cmd, "tokens") == 0) {
		text = join(argc, argv, optind);
		rc = cmd_tokens(&o, text);
	} else {
		usage_error("unknown command '%s'", cmd);
		rc = CC_EXIT_USAGE;
	}
	free(text);
	free(db);
	free(o.kb);
	cc_embed_release(&em);
	cc_http_cleanup();
	cc_config_release(&cfg);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cc_warn("cannot write output");
		return CC_EXIT_INTERNAL;
	}
	return rc;
}
