/*
 * cc-rag: add retrieval {results, context, sources, language} to each
 * record whose agent answers from documents, from the knowledge base and,
 * when configured, web search (seed 002).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_util.h"
#include "cc_record.h"
#include "cc_stages.h"

static const char usage_text[] =
	"usage: cc-rag [-u] [--db PATH] [--kb DIR]... [--limit N]\n"
	"              [--context-chars N] [--no-cache] < records.ndjson\n"
	"Adds retrieval {results, context, sources, language} to each NDJSON\n"
	"record from its \"query\", for records routed to an agent that answers\n"
	"from documents (or not routed at all); others pass through.\n"
	"  -d, --db PATH            the index (default $CC_KB_DB, else\n"
	"                           $XDG_CACHE_HOME/concierge/kb-DOMAIN.sqlite)\n"
	"  -D, --domain NAME|DIR    the domain (default $CC_DOMAIN): its manifest\n"
	"                           says which agents answer from documents\n"
	"  -k, --kb DIR             a document folder (repeatable; default the\n"
	"                           domain's kb folder)\n"
	"  -n, --limit N            passages per record (default 10)\n"
	"  -C, --context-chars N    cap of the context (default 4000)\n"
	"      --no-cache           search again for repeated queries\n"
	"  -u, --unbuffered         flush after every record\n"
	"  -h, --help               show this help\n"
	"  -V, --version            show the version\n"
	"Web search: CC_WEB_SEARCH_URL; embeddings: CC_EMBED_BASE_URL and\n"
	"CC_EMBED_MODEL (see cc-rag(1)).\n";

static size_t
count_arg(const char *opt, const char *arg, long min, long max)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (*end || end == arg || n < min || n > max) {
		cc_warn("invalid %s '%s': use %ld to %ld", opt, arg, min, max);
		fputs(usage_text, stderr);
		exit(CC_EXIT_USAGE);
	}
	return (size_t)n;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"db", required_argument, NULL, 'd'},
		{"kb", required_argument, NULL, 'k'},
		{"limit", required_argument, NULL, 'n'},
		{"context-chars", required_argument, NULL, 'C'},
		{"no-cache", no_argument, NULL, 'N'},
		CC_COMMON_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct cc_rag_options o = CC_RAG_OPTIONS_INIT;
	struct cc_stage stage = {0};
	const char **given = NULL;
	char err[768];
	int c, status;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:k:n:C:" CC_COMMON_SHORTOPTS, opts,
	    NULL)) != -1) {
		switch (c) {
		case 'd': o.db = optarg; break;
		case 'k':
			given = cc_xrealloc(given, (o.nkb + 1) * sizeof *given);
			given[o.nkb++] = optarg;
			break;
		case 'n': o.limit = count_arg("--limit", optarg, 1, 1000); break;
		case 'C':
			o.context_chars = count_arg("--context-chars", optarg, 0,
			    10000000);
			break;
		case 'N': o.no_cache = 1; break;
		default:
			if (!cc_option_common(c, argv, usage_text, &stage.unbuffered))
				cc_die(CC_EXIT_INTERNAL, "unhandled option -%c", c);
		}
	}
	if (optind < argc) {
		cc_warn("unexpected argument '%s'", argv[optind]);
		fputs(usage_text, stderr);
		return CC_EXIT_USAGE;
	}
	o.kb = given;
	if ((status = cc_rag_open(&stage, &o, err, sizeof err)) != 0)
		cc_die(status, "%s", err);
	free(given);
	status = cc_record_run(&stage, stdin, stdout);
	return cc_rag_close(&stage, status);
}
