// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Files a user names (user/lib/base/atomic.c): a set file is a regular file,
 * whatever a path names (a FIFO is refused at once, not waited on); a
 * streamed output (capture -w) is never written through a symlink or into a
 * file with another name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "base/atomic.h"
#include "base/err.h"

static char dir[64];

/* name in the test's folder; two at a time (symlink, link). */
static const char *at(const char *name)
{
	static char path[2][128];
	static int i;

	i = !i;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

static void put(const char *name, const char *text)
{
	FILE *f = fopen(at(name), "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static off_t size_of(const char *name)
{
	struct stat st;

	assert_int_equal(stat(at(name), &st), 0);
	return st.st_size;
}

static void test_open_input(void **state)
{
	char err[XRL_ERRLEN];
	int fd;

	(void)state;
	put("feed.txt", "10.0.0.0/8\n");
	fd = xrl_open_input(at("feed.txt"), "set file", err, sizeof(err));
	assert_true(fd >= 0);
	/* Blocking again once opened: a file read to its end, not EAGAIN. */
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	assert_int_equal(xrl_open_input(at("fifo"), "set file", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "fifo is a FIFO, not a regular file"));
	assert_int_equal(xrl_open_input("/dev/null", "set file", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "set file /dev/null is a device"));
	assert_int_equal(xrl_open_input(dir, "set file", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is a folder"));
	assert_int_equal(xrl_open_input(at("none"), "set file", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot read set file"));
	/* A symlink is followed: its target is what is checked. */
	assert_int_equal(symlink(at("fifo"), at("to-fifo")), 0);
	assert_int_equal(xrl_open_input(at("to-fifo"), "set file", err, sizeof(err)), -EINVAL);
	assert_int_equal(symlink(at("feed.txt"), at("to-feed")), 0);
	fd = xrl_open_input(at("to-feed"), "set file", err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
}

static void test_open_output(void **state)
{
	char err[XRL_ERRLEN];
	int fd;

	(void)state;
	/* A symlink at the name: refused, its target left whole. */
	put("victim", "precious\n");
	assert_int_equal(symlink(at("victim"), at("cap.pcap")), 0);
	assert_int_equal(xrl_open_output(at("cap.pcap"), err, sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "is a symlink: it is not written through"));
	assert_int_equal(size_of("victim"), 9);
	/* A dangling one is not created through either. */
	assert_int_equal(symlink(at("made"), at("dangling.pcap")), 0);
	assert_int_equal(xrl_open_output(at("dangling.pcap"), err, sizeof(err)), -ELOOP);
	assert_int_equal(access(at("made"), F_OK), -1);
	/* A hard link: refused, the other name's file whole. */
	assert_int_equal(link(at("victim"), at("hard.pcap")), 0);
	assert_int_equal(xrl_open_output(at("hard.pcap"), err, sizeof(err)), -EMLINK);
	assert_non_null(strstr(err, "has 2 hard links"));
	assert_int_equal(size_of("victim"), 9);
	/* A file of its own: emptied, as tcpdump -w does; a new one made. */
	put("old.pcap", "an old capture\n");
	fd = xrl_open_output(at("old.pcap"), err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(size_of("old.pcap"), 0);
	fd = xrl_open_output(at("new.pcap"), err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	assert_int_equal(size_of("new.pcap"), 1);
	/* A device is written as it is. */
	fd = xrl_open_output("/dev/null", err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_input),
		cmocka_unit_test(test_open_output),
	};
	int ret;

	strcpy(dir, "/tmp/xrl-test-files-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	return ret;
}
