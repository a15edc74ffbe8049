/*
 * coach-image-tool: analyze_homework_image by hand and for the tests.
 *
 *   coach-image-tool [-s SUBJECT] [-b] FILE|-      an image file (or its
 *                                                  base64 with -b)
 *   coach-image-tool -j 'JSON-ARGS'                the tool's arguments
 *   coach-image-tool -l 'LINE'                     one worksheet line
 *
 * Prints the result object (with -v, also "source", "code" and
 * "vision_error" on stderr); the domain folder is
 * $CC_DATADIR/homework-coach.  Exits 0, 3 for an error result about the
 * input, 4 when the vision model failed, 5 when no reader is available.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_util.h"
#include "cc_json.h"
#include "cc_http.h"
#include "cc_image.h"
#include "cc_sheet.h"
#include "cc_vision.h"

static const char usage[] =
    "usage: coach-image-tool [-v] [-s SUBJECT] [-b] FILE|-\n"
    "       coach-image-tool [-v] -j 'JSON-ARGS'\n"
    "       coach-image-tool -l 'LINE'\n";

static int
slurp(const char *path, struct cc_buf *b)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char chunk[65536];
	size_t got;

	if (!f)
		return -1;
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
		cc_buf_add(b, chunk, got);
	if (f != stdin)
		fclose(f);
	if (!b->data)
		cc_buf_add(b, "", 0);
	return 0;
}

static char *
domain_dir(void)
{
	const char *d = getenv("CC_DATADIR");
	size_t n;
	char *p;

	if (!d || !*d)
		d = CC_PKGDATADIR;
	n = strlen(d) + sizeof "/homework-coach";
	p = cc_xmalloc(n);
	snprintf(p, n, "%s/homework-coach", d);
	return p;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CC_COMMON_LONGOPTS,
		{"base64", no_argument, NULL, 'b'},
		{"json", required_argument, NULL, 'j'},
		{"line", required_argument, NULL, 'l'},
		{"subject", required_argument, NULL, 's'},
		{"verbose", no_argument, NULL, 'v'},
		{NULL, 0, NULL, 0}
	};
	const char *json = NULL, *line = NULL, *subject = NULL;
	int b64 = 0, verbose = 0, c, status = CC_EXIT_OK;
	struct cc_image im;
	struct cc_buf out = {0};
	char *dir;
	jv args, res;

	cc_set_progname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, CC_COMMON_SHORTOPTS "bj:l:s:v", longopts,
	    NULL)) != -1) {
		if (cc_option_common(c, argv, usage, NULL))
			continue;
		switch (c) {
		case 'b': b64 = 1; break;
		case 'j': json = optarg; break;
		case 'l': line = optarg; break;
		case 's': subject = optarg; break;
		case 'v': verbose = 1; break;
		}
	}
	dir = domain_dir();
	if (line) {
		/* one line through cc_sheet, with the domain's data */
		char err[256], *path = cc_xmalloc(strlen(dir) + sizeof "/worksheet");
		struct cc_sheet *sh;
		struct cc_sheet_problem p;
		struct cc_jw w;

		sprintf(path, "%s/worksheet", dir);
		if (!(sh = cc_sheet_load(path, err, sizeof err)))
			cc_die(CC_EXIT_USAGE, "%s", err);
		free(path);
		cc_jw_init(&w, &out);
		if (cc_sheet_line(sh, line, strlen(line), cc_sheet_subject(subject), &p)) {
			cc_jw_object(&w);
			cc_jw_key(&w, "text");
			cc_jw_cstr(&w, p.text);
			cc_jw_key(&w, "type");
			cc_jw_cstr(&w, p.type);
			cc_jw_key(&w, "difficulty");
			cc_jw_num(&w, p.difficulty);
			cc_jw_key(&w, "expression");
			cc_jw_cstr(&w, p.expression);
			cc_jw_key(&w, "repaired");
			cc_jw_bool(&w, p.repaired);
			cc_jw_end(&w);
			cc_sheet_problem_release(&p);
		} else {
			cc_jw_null(&w);
		}
		printf("%s\n", out.data);
		cc_buf_release(&out);
		cc_sheet_free(sh);
		free(dir);
		return 0;
	}
	if (json) {
		args = cc_json_parse(json, strlen(json));
		if (!jv_is_valid(args))
			cc_die(CC_EXIT_USAGE, "-j: not JSON");
	} else {
		struct cc_buf in = {0};
		struct cc_buf enc = {0};

		if (optind != argc - 1) {
			fputs(usage, stderr);
			return CC_EXIT_USAGE;
		}
		if (slurp(argv[optind], &in) < 0)
			cc_die(CC_EXIT_USAGE, "cannot open '%s': %s", argv[optind],
			    strerror(errno));
		if (!b64)
			cc_vision_base64(&enc, (const unsigned char *)in.data, in.len);
		args = jv_object_set(jv_object(), jv_string("image_data"),
		    b64 ? jv_string_sized(in.data, (int)in.len) :
		    jv_string_sized(enc.data ? enc.data : "", (int)enc.len));
		if (subject)
			args = jv_object_set(args, jv_string("expected_subject"),
			    jv_string(subject));
		cc_buf_release(&in);
		cc_buf_release(&enc);
	}
	cc_image_init(&im, dir);
	res = cc_image_analyze(&im, args);
	cc_json_put(&out, res);
	printf("%s\n", out.data);
	if (verbose)
		fprintf(stderr, "source=%s code=%s vision_error=%s\n",
		    im.source ? im.source : "-", im.code ? im.code : "-",
		    *im.vision_error ? im.vision_error : "-");
	if (im.code)
		status = !strcmp(im.code, "upstream") ? CC_EXIT_UPSTREAM :
		    !strcmp(im.code, "unavailable") ? CC_EXIT_INTERNAL : CC_EXIT_DATA;
	jv_free(res);
	jv_free(args);
	cc_buf_release(&out);
	cc_image_release(&im);
	cc_http_cleanup();
	free(dir);
	return status;
}
