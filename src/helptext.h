/* helptext.h - reading help pages as text: the paragraph of a page that describes one variant
 * or setting, so that `help VARIANT` and `help SETTING` print what the page says (the page
 * stays the one place the text lives). Free of terminal handling; unit-tested. */
#ifndef QX_HELPTEXT_H
#define QX_HELPTEXT_H

#include <stddef.h>
#include <stdio.h>

/* Finds the paragraph of page describing name in a section of a problem's page ("Variants",
 * "Settings"). The section starts at the first line whose text begins with section and ends at
 * the next line indented no deeper than that one; its entries are the lines indented like its
 * first line, each starting with a name, and an entry runs on over the lines below it indented
 * deeper. Returns the start of the entry in page and stores its length (up to and including
 * its last line break) in len, or returns NULL when the section has no entry for name. */
const char *help_section_entry(const char *page, const char *section, const char *name,
                               size_t *len);

/* Finds the entry of setting name in a page that lists settings (help/settings.txt): the
 * first line whose text begins with name followed by two blanks, and the lines below it
 * indented deeper. Returns its start and stores its length in len, or returns NULL. */
const char *help_setting_entry(const char *page, const char *name, size_t *len);

/* Writes page to out with its two placeholders filled from the problem registry: @PROBLEMS@
 * becomes the problems' names ("expint, longman, ..."), and a line holding @EVAL_USAGES@ one
 * line per problem, "    eval ARGS   (problem NAME)", so that no page lists problems by hand. */
void help_page_write(const char *page, FILE *out);

#endif
