// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <locale.h>

#include "convert.h"
#include "options.h"

int main(int argc, char **argv)
{
	struct options o;
	bool exit_now;
	int ret;

	/* Output never depends on the environment's locale. */
	setlocale(LC_ALL, "C");
	ret = options_parse(&o, argc, argv, &exit_now);
	if (exit_now)
		return ret;
	return convert_run(&o);
}
