/*
 * concierge: the driver's front.  `concierge ask` is answered here, by
 * cc-chat's code in this process (linked in, not executed); every other
 * command, and anything this front does not read exactly as the shell
 * driver would, is handed to the shell driver (concierge.sh: beside this
 * program in a build tree, else in the package's libexec directory) with
 * the same arguments.  A cold question so costs one process and no shell:
 * the shell's start and its reading of the driver were a fifth of it
 * (issue 16).
 *
 * The ask command's options are read as concierge.in reads them, with
 * the same messages and exit statuses; the words of the question are
 * joined with spaces and only ever travel as one argument.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

int cc_chat_main(int argc, char **argv);

/* Where this program is: its directory, or "" when it cannot be told. */
static void
self_dir(char *dir, size_t n)
{
	ssize_t k = readlink("/proc/self/exe", dir, n - 1);
	char *slash;

	if (k <= 0) {
		*dir = '\0';
		return;
	}
	dir[k] = '\0';
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	else
		*dir = '\0';
}

/* Run the shell driver with these arguments; does not return. */
static void
shell_driver(const char *dir, char **argv)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof path, "%s/concierge.sh", dir);
	if (!*dir || access(path, X_OK) != 0)
		snprintf(path, sizeof path, "%s", CC_PKGLIBEXECDIR "/concierge.sh");
	argv[0] = path;
	execv(path, argv);
	fprintf(stderr, "concierge: cannot run '%s': %s\n", path, strerror(errno));
	exit(errno == ENOENT ? 127 : 126);
}

/* 1 if a and b are the same directory (the shell's test -ef). */
static int
same_file(const char *a, const char *b)
{
	struct stat x, y;

	return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev &&
	    x.st_ino == y.st_ino;
}

int
main(int argc, char **argv)
{
	char dir[PATH_MAX], src[PATH_MAX + 16], *question, *chat[8];
	const char *session = NULL, *json = NULL;
	size_t len = 0;
	int i = 1, n = 0;

	self_dir(dir, sizeof dir);
	/*
	 * The global options the shell takes before the command; anything
	 * it would refuse or say something about goes to it, so the
	 * messages stay its own.
	 */
	for (; i < argc; i++) {
		const char *a = argv[i], *v = NULL;

		if ((strcmp(a, "--store") == 0 || strcmp(a, "-D") == 0 ||
		    strcmp(a, "--domain") == 0) && i + 1 < argc)
			v = argv[++i];
		else if (strncmp(a, "--store=", 8) == 0)
			v = a + 8;
		else if (strncmp(a, "--domain=", 9) == 0)
			v = a + 9;
		else
			break;
		if (a[2] == 's') {	/* --store: no password on a command line */
			const char *p = strstr(v, "://");

			/* the shell's patterns: a colon then an at-sign after "://", or "password=" */
			if (p && (p = strchr(p + 3, ':')))
				p = strchr(p, '@');
			if (p || strstr(v, "password="))
				shell_driver(dir, argv);
			setenv("CC_STORE", v, 1);
		} else {
			setenv("CC_DOMAIN", v, 1);
		}
	}
	if (i >= argc || strcmp(argv[i], "ask") != 0)
		shell_driver(dir, argv);
	for (i++; i < argc; i++) {
		const char *a = argv[i];

		if ((strcmp(a, "-D") == 0 || strcmp(a, "--domain") == 0) && i + 1 < argc)
			setenv("CC_DOMAIN", argv[++i], 1);
		else if (strncmp(a, "--domain=", 9) == 0)
			setenv("CC_DOMAIN", a + 9, 1);
		else if ((strcmp(a, "-s") == 0 || strcmp(a, "--session") == 0) && i + 1 < argc)
			session = argv[++i];
		else if (strncmp(a, "--session=", 10) == 0)
			session = a + 10;
		else if (strcmp(a, "-j") == 0 || strcmp(a, "--json") == 0)
			json = "--json";
		else if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (a[0] == '-' && a[1])
			shell_driver(dir, argv);	/* a usage error: its words */
		else
			break;
	}
	if (i >= argc)
		shell_driver(dir, argv);	/* "ask what?" */
	/* a build tree's programs take the data of its source tree */
	if (!getenv("CC_DATADIR") || !*getenv("CC_DATADIR")) {
		snprintf(src, sizeof src, "%s/src", CC_ABS_BUILDDIR);
		if (*dir && same_file(dir, src)) {
			snprintf(src, sizeof src, "%s/share/concierge", CC_ABS_SRCDIR);
			if (access(src, F_OK) == 0)
				setenv("CC_DATADIR", src, 1);
		}
	}
	for (int k = i; k < argc; k++)
		len += strlen(argv[k]) + 1;
	question = malloc(len);
	if (!question) {
		fputs("concierge: out of memory\n", stderr);
		return 5;
	}
	len = 0;
	for (int k = i; k < argc; k++) {
		size_t w = strlen(argv[k]);

		memcpy(question + len, argv[k], w);
		len += w;
		question[len++] = ' ';
	}
	question[len - 1] = '\0';
	chat[n++] = "cc-chat";
	if (json)
		chat[n++] = (char *)json;
	if (session) {
		chat[n++] = "--session";
		chat[n++] = (char *)session;
	}
	chat[n++] = "--";
	chat[n++] = question;
	chat[n] = NULL;
	n = cc_chat_main(n, chat);
	free(question);
	return n;
}
