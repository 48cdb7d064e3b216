/* help.c - the `help` command's pages (help.h): found on disk, printed through the session's
 * output; a variant's or a setting's page is its paragraph of the page that holds it. */
#include "help.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"
#include "helptext.h"
#include "messages.h"
#include "output.h"

const char *const help_topics[] = {"settings",   "variants",    "keys", "scripts",
                                   "coursework", "performance", NULL};

/* Reads the whole file at path; returns its text (malloc'd, NUL-terminated) or NULL with e
 * naming the path and the reason. */
static char *read_text(const char *path, struct qx_err *e)
{
	char buf[4096], *text = NULL;
	size_t n, len = 0;
	FILE *f = qx_fault("fopen") ? (errno = EIO, NULL) : fopen(path, "r");
	FILE *mem;
	if (!f) {
		qx_fail(e, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	mem = open_memstream(&text, &len);
	if (!mem) {
		fclose(f);
		qx_fail(e, "cannot read %s: out of memory", path);
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		fwrite(buf, 1, n, mem);
	fclose(f);
	if (fclose(mem)) {
		free(text);
		qx_fail(e, "cannot read %s: out of memory", path);
		return NULL;
	}
	return text;
}

/* Prints the file at path to out; returns 0 or -1. */
static int print_file(const char *path, FILE *out, struct qx_err *e)
{
	char *text = read_text(path, e);
	if (!text)
		return -1;
	help_page_write(text, out);
	free(text);
	return 0;
}

/* Returns where variant v runs: "cpu and gpu", "gpu only" or "cpu only". */
static const char *variant_backends(const struct variant_def *v)
{
	if (v->backends == (QX_ON_CPU | QX_ON_GPU))
		return "cpu and gpu";
	return v->backends & QX_ON_GPU ? "gpu only" : "cpu only";
}

/* Finds the variant named name in problem p; returns it, or NULL. */
static const struct variant_def *variant_in(const struct problem *p, const char *name)
{
	for (size_t v = 0; v < p->nvariants; v++)
		if (strcmp(p->variants[v].name, name) == 0)
			return &p->variants[v];
	return NULL;
}

/* Finds the variant named name, in the current problem first, then in the others in registry
 * order; stores its problem in *prob and returns it, or NULL. */
static const struct variant_def *variant_find(const struct session *s, const char *name,
                                              const struct problem **prob)
{
	for (int i = -1; i < 0 || qx_problems[i]; i++) {
		const struct problem *p = i < 0 ? s->prob : qx_problems[i];
		const struct variant_def *v = variant_in(p, name);
		if (v) {
			*prob = p;
			return v;
		}
	}
	return NULL;
}

/* The page of variant v of problem p: its line of p's table, then the paragraph of p's help
 * page that describes it. Returns 0, or -1 with e filled. */
static int help_variant_page(struct shell *sh, const struct problem *p, const struct variant_def *v,
                             struct qx_err *e)
{
	FILE *out = sh->io.out;
	const char *entry;
	char *path, *page;
	size_t len;
	path = help_page_path(p->name);
	if (!path)
		return qx_fail(e, "help %s: the page of problem %s is missing (help/%s.txt)",
		               v->name, p->name, p->name);
	page = read_text(path, e);
	free(path);
	if (!page)
		return -1;
	fprintf(out, "%s - variant of %s (%s%s)\n\n    %s\n\n", v->name, p->name,
	        variant_backends(v), v == &p->variants[0] ? "; the default" : "", v->help);
	entry = help_section_entry(page, "Variants", v->name, &len);
	if (entry)
		fprintf(out, "DESCRIPTION (from help %s)\n%.*s\n", p->name, (int)len, entry);
	fprintf(out, "USAGE\n    ");
	if (p != sh->s.prob)
		fprintf(out, "use %s; ", p->name);
	fprintf(out, "set variant %s\n\nSEE ALSO\n    help %s, help variants\n", v->name, p->name);
	free(page);
	return 0;
}

/* help VARIANT: the current problem's variant of that name, else every problem's variant of
 * that name (names are unique within a problem only), each page after the one before. Returns
 * 0, 1 when name is no variant, or -1 with e filled. */
static int help_variant(struct shell *sh, const char *name, struct qx_err *e)
{
	const struct variant_def *v = variant_in(sh->s.prob, name);
	int shown = 0;
	if (v)
		return help_variant_page(sh, sh->s.prob, v, e);
	for (int i = 0; qx_problems[i]; i++) {
		if (!(v = variant_in(qx_problems[i], name)))
			continue;
		if (shown++)
			fputc('\n', sh->io.out);
		if (help_variant_page(sh, qx_problems[i], v, e))
			return -1;
	}
	return shown ? 0 : 1;
}

/* Finds the problem that has its own setting named name, the current problem first; returns it
 * or NULL. */
static const struct problem *setting_owner(const struct session *s, const char *name)
{
	for (int i = -1; i < 0 || qx_problems[i]; i++) {
		const struct problem *p = i < 0 ? s->prob : qx_problems[i];
		if (param_find(p->settings, p->nsettings, name) >= 0)
			return p;
	}
	return NULL;
}

/* help SETTING: the setting's paragraph of the settings page, or for a problem's own setting
 * (one of its settings table) of the Settings section of the problem's page, pointing to a
 * variant of the same name. Returns 0, 1 when name is no setting, or -1 with e filled. */
static int help_setting(struct shell *sh, const char *name, struct qx_err *e)
{
	const struct problem *owner = NULL, *vp;
	const char *entry, *topic = "settings";
	FILE *out = sh->io.out;
	char *path, *page;
	size_t len;
	if (param_find(settings_defs, S_COUNT, name) < 0) {
		owner = setting_owner(&sh->s, name);
		if (!owner)
			return 1;
		topic = owner->name;
	}
	path = help_page_path(topic);
	if (!path)
		return qx_fail(e, "help %s: the page help/%s.txt is missing", name, topic);
	page = read_text(path, e);
	free(path);
	if (!page)
		return -1;
	entry = owner ? help_section_entry(page, "Settings", name, &len)
	              : help_setting_entry(page, name, &len);
	if (entry) {
		fprintf(out, "%s - a setting%s%s (from help %s)\n\n%.*s\nUSAGE\n    ", name,
		        owner ? " of " : "", owner ? owner->name : "", topic, (int)len, entry);
		if (owner && owner != sh->s.prob)
			fprintf(out, "use %s; ", owner->name);
		fprintf(out, "set %s VALUE\n\nSEE ALSO\n    help %s, help set", name, topic);
		if (variant_find(&sh->s, name, &vp))
			fprintf(out, ", help variant %s (the variant of %s)", name, vp->name);
		fputc('\n', out);
	}
	free(page);
	return entry ? 0 : qx_fail(e, "help %s: help/%s.txt has no paragraph for it", name, topic);
}

/* Lists the current problem's variants from its table. */
static void help_variants(struct shell *sh)
{
	const struct problem *p = sh->s.prob;
	fprintf(sh->io.out, "Variants of %s (set variant NAME; the first is the default):\n",
	        p->name);
	for (size_t i = 0; i < p->nvariants; i++)
		fprintf(sh->io.out, "  %-12s %s%s\n      %s\n", p->variants[i].name,
		        p->variants[i].backends & QX_ON_CPU ? "cpu" : "",
		        p->variants[i].backends == (QX_ON_CPU | QX_ON_GPU)
		            ? "+gpu"
		            : (p->variants[i].backends & QX_ON_GPU ? "gpu" : "   "),
		        p->variants[i].help);
}

/* help [TOPIC], help variant NAME: the command list, or the page of a command, problem, topic,
 * setting or variant, in that order of precedence; a topic that is also a variant's name
 * (coursework) gets the variant's page after its own. */
int help_print(struct shell *sh, const struct cmd_entry *commands, int argc, char **argv,
               struct qx_err *e)
{
	FILE *out = sh->io.out;
	const struct problem *owner;
	const char *topic;
	char *path;
	int rc;
	if (argc == 1) {
		fprintf(out, "Commands (a unique prefix is enough; help TOPIC for more):\n");
		for (const struct cmd_entry *c = commands; c->name; c++)
			fprintf(out, "  %-34s %s\n", c->usage, c->help);
		fprintf(out, "Problems:");
		for (int i = 0; qx_problems[i]; i++)
			fprintf(out, " %s", qx_problems[i]->name);
		fprintf(out, "\nOther topics:");
		for (int i = 0; help_topics[i]; i++)
			fprintf(out, " %s", help_topics[i]);
		fprintf(out, "\nVariants (help variant NAME):");
		for (int i = 0; qx_problems[i]; i++) {
			for (size_t v = 0; v < qx_problems[i]->nvariants; v++)
				fprintf(out, " %s", qx_problems[i]->variants[v].name);
			fprintf(out, " (%s)%s", qx_problems[i]->name,
			        qx_problems[i + 1] ? ";" : "");
		}
		fputc('\n', out);
		return 0;
	}
	topic = argv[1];
	if (argc == 3) {
		if (strcmp(topic, "variant") != 0)
			return qx_fail(
			    e, "help takes one topic, or `variant NAME` (usage: help [TOPIC] "
			       "| help variant NAME)");
		rc = help_variant(sh, argv[2], e);
		return rc <= 0 ? rc
		               : qx_fail(e,
		                         "help variant: no variant '%.64s' (help variants lists "
		                         "them)",
		                         argv[2]);
	}
	if (strcmp(topic, "variants") == 0) {
		help_variants(sh);
		return 0;
	}
	if (!problem_find(topic) && !strchr(topic, '/')) {
		struct qx_err ignore;
		const struct cmd_entry *c = cmd_lookup(commands, topic, &ignore);
		if (c)
			topic = c->name;
	} else if (problem_find(topic)) {
		topic = problem_find(topic)->name;
	}
	path = strchr(topic, '/') || strchr(topic, '.') ? NULL : help_page_path(topic);
	if (!path) {
		rc = help_setting(sh, topic, e);
		if (rc == 1)
			rc = help_variant(sh, topic, e);
		if (rc <= 0)
			return rc;
		return qx_fail(
		    e,
		    "no help page for '%.64s': help takes a command, problem, setting, variant "
		    "or topic (try: help)",
		    argv[1]);
	}
	rc = print_file(path, out, e);
	free(path);
	if (rc == 0 && variant_find(&sh->s, argv[1], &owner)) {
		fputc('\n', out);
		rc = help_variant(sh, argv[1], e);
	}
	return rc;
}

/* Returns the directory holding this executable (malloc'd), or NULL. */
static char *exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	char *slash;
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	return strdup(buf);
}

/* Looks for TOPIC.txt in $QUADX_HELPDIR, next to the binary (help/), and in the installed
 * share/quadx/help; returns the first that exists. */
char *help_page_path(const char *topic)
{
	const char *env = getenv("QUADX_HELPDIR");
	char *dir = exe_dir();
	const char *fmts[] = {"%s/%s.txt", "%s/help/%s.txt", "%s/../share/quadx/help/%s.txt"};
	const char *bases[] = {env, dir, dir};
	char path[PATH_MAX];
	for (int i = 0; i < 3; i++) {
		if (!bases[i])
			continue;
		snprintf(path, sizeof path, fmts[i], bases[i], topic);
		if (access(path, R_OK) == 0) {
			free(dir);
			return strdup(path);
		}
	}
	free(dir);
	return NULL;
}
