/* cc-event: add events (the asked time range and the events in it). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc_util.h"
#include "cc_record.h"
#include "cc_stages.h"

static const char usage_text[] =
	"usage: cc-event [--ics FILE|URL]... [--connpass] [--now TIME] [options]\n"
	"                < records.ndjson\n"
	"Adds events {time_range, kind, start, end, timezone, items, sources,\n"
	"errors} to records routed to an agent the domain's manifest lists\n"
	"cc-event for, and to records with no route.\n"
	"  -D, --domain NAME|DIR  the domain (default $CC_DOMAIN)\n"
	"  --ics FILE|URL     a calendar (repeatable; default: the domain's)\n"
	"  --connpass         also ask connpass (key in CC_CONNPASS_API_KEY)\n"
	"  --now TIME         the current time, ISO 8601 (default CC_NOW, clock)\n"
	"  --timeout SECONDS  network time limit per request (default 15)\n"
	"  --upcoming N       events listed for \"the next event\" (default 3)\n"
	"  --max-items N      events listed per record (default 50)\n"
	"  -u, --unbuffered   flush after every record\n"
	"  -h, --help         show this help\n"
	"  -V, --version      show the version\n";

static long
number(const char *opt, const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 1 || v > max) {
		cc_warn("invalid %s '%s': expected 1 to %ld", opt, s, max);
		fputs(usage_text, stderr);
		exit(CC_EXIT_USAGE);
	}
	return v;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"ics", required_argument, NULL, 'i'},
		{"connpass", no_argument, NULL, 'c'},
		{"now", required_argument, NULL, 'n'},
		{"timeout", required_argument, NULL, 't'},
		{"upcoming", required_argument, NULL, 'U'},
		{"max-items", required_argument, NULL, 'm'},
		CC_COMMON_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct cc_event_stage_options o = {0};
	struct cc_stage stage = {0};
	const char **ics = NULL;
	char err[512];
	int c, status;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" CC_COMMON_SHORTOPTS, opts, NULL)) != -1) {
		if (cc_option_common(c, argv, usage_text, &stage.unbuffered))
			continue;
		switch (c) {
		case 'i':
			ics = cc_xrealloc(ics, (o.eo.nics + 1) * sizeof *ics);
			ics[o.eo.nics++] = optarg;
			break;
		case 'c':
			o.eo.connpass = 1;
			break;
		case 'n':
			o.now = optarg;
			break;
		case 't':
			o.eo.timeout_ms = number("--timeout", optarg, 600) * 1000;
			break;
		case 'U':
			o.eo.upcoming = (size_t)number("--upcoming", optarg, 1000);
			break;
		case 'm':
			o.eo.max_items = (size_t)number("--max-items", optarg, 100000);
			break;
		default:
			cc_die(CC_EXIT_INTERNAL, "unhandled option -%c", c);
		}
	}
	if (optind < argc) {
		cc_warn("unexpected argument '%s'", argv[optind]);
		fputs(usage_text, stderr);
		return CC_EXIT_USAGE;
	}
	o.eo.ics = ics;
	if ((status = cc_event_open(&stage, &o, err, sizeof err)) != 0)
		cc_die(status, "%s", err);
	status = cc_record_run(&stage, stdin, stdout);
	status = cc_event_close(&stage, status);
	free(ics);
	return status;
}
