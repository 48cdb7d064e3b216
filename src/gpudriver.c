/* gpudriver.c - telling a missing NVIDIA driver from its device files (gpudriver.h). */
#include "gpudriver.h"

#include <dirent.h>
#include <string.h>

/* Looks for nvidia* or dxg among the entries of dev. */
int gpu_driver_present(const char *dev)
{
	DIR *d = opendir(dev);
	const struct dirent *ent;
	int found = 0;
	if (!d)
		return 0;
	while (!found && (ent = readdir(d)) != NULL)
		found = strncmp(ent->d_name, "nvidia", 6) == 0 || strcmp(ent->d_name, "dxg") == 0;
	closedir(d);
	return found;
}
