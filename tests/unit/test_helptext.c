/* test_helptext.c - the paragraph of a help page that describes a variant or a problem's own
 * setting: found under the page's "Variants" ("Settings") line at the entries' indentation,
 * running on over deeper lines, never matched in a continuation line, another section or after
 * the section; and every variant and own setting of every problem has one in its problem's
 * page (help/PROBLEM.txt), so `help VARIANT` and `help SETTING` read the page. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/helptext.h"
#include "../../src/problem.h"
#include "../../src/session.h"

static const char page[] = "demo - a page\n"
                           "\n"
                           "    fast is mentioned before the section.\n"
                           "    Variants (set variant NAME):\n"
                           "      fast        the default: it\n"
                           "                  stops early.\n"
                           "      slow        the seed's loops;\n"
                           "                  fast after this word is a continuation.\n"
                           "\n"
                           "      last        after a blank line, still an entry\n"
                           "    After the section:\n"
                           "      gone        not an entry of the section\n";

/* Returns the entry of name in text's section as a malloc'd string, or NULL. */
static char *section_entry(const char *text, const char *section, const char *name)
{
	size_t len = 0;
	const char *p = help_section_entry(text, section, name, &len);
	return p ? strndup(p, len) : NULL;
}

/* Returns the entry of variant name in text as a malloc'd string, or NULL. */
static char *entry_of(const char *text, const char *name)
{
	return section_entry(text, "Variants", name);
}

/* Entries start at their name's line and end before a line at their indentation, a blank line
 * or the end of the section; names are whole words at the entries' indentation. */
static void test_entries(void **state)
{
	char *e;
	(void)state;
	e = entry_of(page, "fast");
	assert_string_equal(e, "      fast        the default: it\n"
	                       "                  stops early.\n");
	free(e);
	e = entry_of(page, "slow");
	assert_string_equal(e, "      slow        the seed's loops;\n"
	                       "                  fast after this word is a continuation.\n");
	free(e);
	e = entry_of(page, "last");
	assert_string_equal(e, "      last        after a blank line, still an entry\n");
	free(e);
	assert_null(entry_of(page, "gone"));
	assert_null(entry_of(page, "fas"));
	assert_null(entry_of(page, "stops"));
	assert_null(entry_of(page, ""));
	assert_null(entry_of("no section here\n  fast  x\n", "fast"));
	e = entry_of("Variants\n  only  at the end of the text", "only");
	assert_string_equal(e, "  only  at the end of the text");
	free(e);
}

/* A name that is a setting and a variant: each section finds its own entry. */
static void test_sections(void **state)
{
	static const char both[] = "    Settings (set NAME VALUE):\n"
	                           "      streams  how many streams\n"
	                           "    Variants:\n"
	                           "      streams  chunks on streams\n";
	char *e;
	(void)state;
	e = section_entry(both, "Settings", "streams");
	assert_string_equal(e, "      streams  how many streams\n");
	free(e);
	e = section_entry(both, "Variants", "streams");
	assert_string_equal(e, "      streams  chunks on streams\n");
	free(e);
	assert_null(section_entry(page, "Settings", "fast"));
}

/* Every variant and every own setting of every problem has its paragraph in help/PROBLEM.txt,
 * starting with its name (the tests run from the repository root). */
static void test_every_variant_and_setting_has_a_paragraph(void **state)
{
	(void)state;
	for (int i = 0; qx_problems[i]; i++) {
		char path[256], *text = NULL;
		size_t cap = 0;
		snprintf(path, sizeof path, "help/%s.txt", qx_problems[i]->name);
		FILE *f = fopen(path, "r");
		if (!f)
			fail_msg("cannot read %s (run from the repository root)", path);
		const ssize_t n = getdelim(&text, &cap, '\0', f);
		fclose(f);
		assert_true(n > 0);
		for (size_t v = 0; v < qx_problems[i]->nvariants; v++) {
			const char *name = qx_problems[i]->variants[v].name;
			char *e = entry_of(text, name);
			if (!e)
				fail_msg("%s has no paragraph for variant %s", path, name);
			assert_int_equal(strncmp(e + strspn(e, " "), name, strlen(name)), 0);
			free(e);
		}
		for (size_t k = 0; k < qx_problems[i]->nsettings; k++) {
			const char *name = qx_problems[i]->settings[k].name;
			char *e = section_entry(text, "Settings", name);
			if (!e)
				fail_msg("%s has no paragraph for its setting %s", path, name);
			free(e);
		}
		free(text);
	}
}

/* A setting's entry is the line starting with its name and two blanks, and the deeper lines
 * below it; a name inside a paragraph or followed by one blank is not an entry. */
static void test_setting_entries(void **state)
{
	static const char settings[] = "settings - demo\n"
	                               "    block is mentioned in a sentence.\n"
	                               "    block       threads per block,\n"
	                               "                1..1024.\n"
	                               "    threads     CPU threads\n";
	size_t len = 0;
	const char *p = help_setting_entry(settings, "block", &len);
	(void)state;
	assert_non_null(p);
	assert_int_equal(len, strlen("    block       threads per block,\n"
	                             "                1..1024.\n"));
	assert_int_equal(strncmp(p, "    block       threads", 23), 0);
	p = help_setting_entry(settings, "threads", &len);
	assert_non_null(p);
	assert_int_equal(len, strlen("    threads     CPU threads\n"));
	assert_null(help_setting_entry(settings, "blo", &len));
	assert_null(help_setting_entry(settings, "", &len));
}

/* Every setting has its paragraph in help/settings.txt, so `help SETTING` reads it. */
static void test_every_setting_has_a_paragraph(void **state)
{
	char *text = NULL;
	size_t cap = 0, len;
	FILE *f = fopen("help/settings.txt", "r");
	(void)state;
	if (!f)
		fail_msg("cannot read help/settings.txt (run from the repository root)");
	assert_true(getdelim(&text, &cap, '\0', f) > 0);
	fclose(f);
	for (int k = 0; k < S_COUNT; k++)
		if (!help_setting_entry(text, settings_defs[k].name, &len))
			fail_msg("help/settings.txt has no paragraph for %s",
			         settings_defs[k].name);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_entries),
	    cmocka_unit_test(test_sections),
	    cmocka_unit_test(test_every_variant_and_setting_has_a_paragraph),
	    cmocka_unit_test(test_setting_entries),
	    cmocka_unit_test(test_every_setting_has_a_paragraph),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
