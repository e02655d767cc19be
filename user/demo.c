// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cli.h"
int cmd_demo(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_fail(EXIT_FAIL, "demo: not yet");
}
