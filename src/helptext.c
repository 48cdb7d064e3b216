/* helptext.c - the paragraph of a help page that describes one variant or setting. */
#include "helptext.h"

#include "problem.h"

#include <string.h>

/* Returns the number of leading blanks of the line at p. */
static size_t indent_of(const char *p)
{
	return strspn(p, " \t");
}

/* Returns the start of the line after the one at p (its end when it is the last). */
static const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');
	return nl ? nl + 1 : p + strlen(p);
}

/* Whether the line at p holds only blanks. */
static int blank_line(const char *p)
{
	p += indent_of(p);
	return *p == '\n' || *p == '\0';
}

/* Whether the line at p (after its indentation) starts with the word name. */
static int starts_with_word(const char *p, const char *name)
{
	const size_t n = strlen(name);
	p += indent_of(p);
	return n > 0 && strncmp(p, name, n) == 0 &&
	       (p[n] == ' ' || p[n] == '\t' || p[n] == '\n' || p[n] == '\0');
}

/* Returns the end of the entry whose first line is at p: the start of the first line after it
 * that is blank or indented no deeper than indent. */
static const char *entry_end(const char *p, size_t indent)
{
	const char *end = next_line(p);
	while (*end && !blank_line(end) && indent_of(end) > indent)
		end = next_line(end);
	return end;
}

/* Finds the line naming the setting, then the lines of its paragraph. */
const char *help_setting_entry(const char *page, const char *name, size_t *len)
{
	const size_t n = strlen(name);
	for (const char *p = page; n && *p; p = next_line(p)) {
		const char *text = p + indent_of(p);
		if (strncmp(text, name, n) == 0 && text[n] == ' ' && text[n + 1] == ' ') {
			*len = (size_t)(entry_end(p, indent_of(p)) - p);
			return p;
		}
	}
	return NULL;
}

/* Finds the section headed by section, then the entry of name in it. */
const char *help_section_entry(const char *page, const char *section, const char *name, size_t *len)
{
	const char *p = page;
	size_t head, entry = 0;
	while (*p && strncmp(p + indent_of(p), section, strlen(section)) != 0)
		p = next_line(p);
	if (!*p)
		return NULL;
	head = indent_of(p);
	for (p = next_line(p); *p; p = next_line(p)) {
		const char *end;
		if (blank_line(p))
			continue;
		if (indent_of(p) <= head)
			return NULL;
		if (!entry)
			entry = indent_of(p);
		if (indent_of(p) != entry || !starts_with_word(p, name))
			continue;
		end = entry_end(p, entry);
		*len = (size_t)(end - p);
		return p;
	}
	return NULL;
}

/* Writes page to out with @PROBLEMS@ and the line of @EVAL_USAGES@ filled from the registry. */
void help_page_write(const char *page, FILE *out)
{
	static const char names_tag[] = "@PROBLEMS@", usages_tag[] = "@EVAL_USAGES@";
	while (*page) {
		const char *eol = strchr(page, '\n');
		const size_t len = eol ? (size_t)(eol - page) + 1 : strlen(page);
		const char *names = memmem(page, len, names_tag, sizeof names_tag - 1);
		if (memmem(page, len, usages_tag, sizeof usages_tag - 1)) {
			for (size_t i = 0; qx_problems[i]; i++) {
				char usage[256];
				problem_eval_usage(qx_problems[i], usage, sizeof usage);
				fprintf(out, "    eval%-18s (problem %s)\n", usage,
				        qx_problems[i]->name);
			}
		} else if (names) {
			fwrite(page, 1, (size_t)(names - page), out);
			for (size_t i = 0; qx_problems[i]; i++)
				fprintf(out, "%s%s", i ? ", " : "", qx_problems[i]->name);
			fwrite(names + sizeof names_tag - 1, 1,
			       len - (size_t)(names - page) - (sizeof names_tag - 1), out);
		} else {
			fwrite(page, 1, len, out);
		}
		page += len;
	}
}
