/* helptext.c - the paragraph of a help page that describes one variant. */
#include "helptext.h"

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

/* Finds the variants section, then the entry of name in it. */
const char *help_variant_entry(const char *page, const char *name, size_t *len)
{
	const char *p = page;
	size_t head, entry = 0;
	while (*p && strncmp(p + indent_of(p), "Variants", 8) != 0)
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
		end = next_line(p);
		while (*end && !blank_line(end) && indent_of(end) > entry)
			end = next_line(end);
		*len = (size_t)(end - p);
		return p;
	}
	return NULL;
}
