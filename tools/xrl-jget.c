// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xrl-jget: prints values out of one JSON document on standard input, for
 * shell scripts (the benchmark reads 'xdp-ratelimit stats -j' with it).
 *
 *   xrl-jget PATH...   one line per PATH: dot-separated object keys and array
 *                      indexes ("counters.seen", "rules.0.pass"); a trailing
 *                      "#" gives an array's or object's size
 *
 * Exit 1 when the input is not JSON or a PATH leads nowhere (it prints "null").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

static json_t *walk(json_t *v, const char *path, int *size)
{
	char *copy = strdup(path), *tok, *save = NULL, *end;
	unsigned long i;

	*size = 0;
	if (!copy)
		return NULL;
	for (tok = strtok_r(copy, ".", &save); tok && v; tok = strtok_r(NULL, ".", &save)) {
		if (!strcmp(tok, "#")) {
			*size = 1;
			break;
		}
		if (json_is_array(v)) {
			i = strtoul(tok, &end, 10);
			v = *end ? NULL : json_array_get(v, i);
		} else {
			v = json_object_get(v, tok);
		}
	}
	free(copy);
	return v;
}

int main(int argc, char **argv)
{
	json_error_t err;
	json_t *root, *v;
	int i, size, ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: xrl-jget PATH... < JSON\n");
		return 2;
	}
	root = json_loadf(stdin, JSON_DISABLE_EOF_CHECK, &err);
	if (!root) {
		fprintf(stderr, "xrl-jget: standard input is not JSON: line %d: %s\n", err.line, err.text);
		return 1;
	}
	for (i = 1; i < argc; i++) {
		v = walk(root, argv[i], &size);
		if (v && size)
			printf("%zu\n", json_is_array(v) ? json_array_size(v) : json_object_size(v));
		else if (json_is_integer(v))
			printf("%lld\n", (long long)json_integer_value(v));
		else if (json_is_real(v))
			printf("%.17g\n", json_real_value(v));
		else if (json_is_string(v))
			printf("%s\n", json_string_value(v));
		else if (json_is_true(v) || json_is_false(v))
			printf("%s\n", json_is_true(v) ? "true" : "false");
		else if (v && !json_is_null(v))
			printf("%s\n", json_is_array(v) ? "[array]" : "{object}");
		else {
			printf("null\n");
			ret = 1;
		}
	}
	json_decref(root);
	return ret;
}
