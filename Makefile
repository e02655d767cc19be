# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# 'make help' lists the targets and variables.

# SANITIZE=1 builds apart, so that switching it on or off never mixes objects.
OUT := build$(if $(filter 1,$(SANITIZE)),/sanitize)
.DEFAULT_GOAL := all
CLANG ?= clang
BPFTOOL ?= bpftool
# make defines CC (as cc), so 'CC ?= gcc' would never apply.
ifeq ($(origin CC),default)
CC := gcc
endif
ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

LIBBPF_CFLAGS := $(shell pkg-config --cflags libbpf 2>/dev/null)
LIBBPF_LIBS := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)
JANSSON_LIBS := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
HIREDIS_CFLAGS := $(shell pkg-config --cflags hiredis 2>/dev/null)
HIREDIS_LIBS := $(shell pkg-config --libs hiredis 2>/dev/null || echo -lhiredis)
# capture writes pcap through libpcap's dump API.
PCAP_CFLAGS := $(shell pkg-config --cflags libpcap 2>/dev/null)
PCAP_LIBS := $(shell pkg-config --libs libpcap 2>/dev/null || echo -lpcap)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

# The user's CFLAGS, LDFLAGS and CC may be anything: the project's own flags are
# in XRL_* and always apply, the user's come after them (so -O0 wins over -O2).
CFLAGS ?= -O2 -g
XRL_CFLAGS := -Wall -Wextra -Werror -std=gnu11 -Iinclude -I$(OUT) $(LIBBPF_CFLAGS) $(HIREDIS_CFLAGS) $(PCAP_CFLAGS) -MMD -MP
XRL_LDLIBS := $(LIBBPF_LIBS) $(JANSSON_LIBS) $(HIREDIS_LIBS) $(PCAP_LIBS) -lm -lpthread
ifeq ($(SANITIZE),1)
XRL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
XRL_LDFLAGS += -fsanitize=address,undefined
endif
cc = $(CC) $(XRL_CFLAGS) $(CPPFLAGS) $(CFLAGS)

# One version string, from VERSION: --version, and (later) the metrics' build info.
XRL_VERSION := $(shell cat VERSION)
$(OUT)/xrl_version.h: VERSION | $(OUT)
	$(Q)printf '#define XRL_VERSION "%s"\n' "$(XRL_VERSION)" > $@

BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall -Werror -Ivmlinux -Iinclude -MMD -MP

# bpf/: the product's XDP program, and the carrier a replace runs on the new maps (carry.bpf.c).
# tools/bpf/: the generator's and the benchmark's.
# Outputs sit side by side in $(OUT); each object depends only on its own sources.
PROG_SKEL := $(OUT)/xdp_ratelimit.skel.h $(OUT)/carry.skel.h
TOOL_BPF_SRCS := $(wildcard tools/bpf/*.bpf.c)
TOOL_SKELS := $(patsubst tools/bpf/%.bpf.c,$(OUT)/%.skel.h,$(TOOL_BPF_SRCS))
TOOL_BPF_OBJS := $(TOOL_SKELS:.skel.h=.bpf.o)

# user/lib/: the control-plane library (no printing), a folder a floor (docs/development.md);
# user/cli/: the commands. Includes name the folder ("life/replace.h") from -Iuser/lib.
LIB_SRCS := $(wildcard user/lib/*/*.c)
LIB_OBJS := $(patsubst %.c,$(OUT)/%.o,$(LIB_SRCS))
LIB := $(OUT)/libxrl.a
CLI_SRCS := $(filter-out user/cli/main.c,$(wildcard user/cli/*.c))
CLI_OBJS := $(patsubst %.c,$(OUT)/%.o,$(CLI_SRCS))
CLI_LIB := $(OUT)/libxrlcli.a
CLI := $(OUT)/xdp-ratelimit

# tools/: traffic senders and receivers for the demo, the tests and the benchmark,
# each tools/xrl-*.c with tools/udpgen.c; the veth lab (lab.sh) and the demo (demo.sh).
TOOL_BINS := $(patsubst tools/%.c,$(OUT)/%,$(wildcard tools/xrl-*.c))
TOOL_OBJS := $(OUT)/tools/udpgen.o
# The demo: 'xdp-ratelimit demo' runs $(DEMO), beside it, on the lab of tools/lab.sh.
DEMO := $(OUT)/xrl-demo

TEST_SRCS := $(filter-out %.bpf.c,$(wildcard tests/unit/*.c tests/prog/*.c))
TEST_BINS := $(patsubst tests/%.c,$(OUT)/tests/%,$(TEST_SRCS))
# tests/prog/*.bpf.c: programs of the tests alone (lbvs_check: the classifier's header from maps).
TEST_SKELS := $(patsubst tests/prog/%.bpf.c,$(OUT)/%.skel.h,$(wildcard tests/prog/*.bpf.c))
# bench/classifiers.c: issue 34's classifiers side by side, on tests/prog/cls_alt.bpf.c (make bench).
BENCH_BINS := $(OUT)/bench/classifiers

# tests/fuzz/: libFuzzer harnesses of the rules parser, with ASan and UBSan; the grammar
# (rules/ but the saved configurations, base/err.c, base/atomic.c: no BPF, no libbpf) is compiled
# with them for the fuzzer's coverage.
FUZZ_SRCS := $(wildcard tests/fuzz/*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(OUT)/fuzz/%,$(FUZZ_SRCS))
FUZZ_LIB := $(filter-out user/lib/rules/config.c,$(wildcard user/lib/rules/*.c)) user/lib/base/err.c user/lib/base/atomic.c
FUZZ_SECONDS ?= 60

# What 'make lint' checks: our C against .clang-format, our shell with shellcheck.
LINT_C := $(wildcard bpf/*.[ch] include/*.h user/*/*.[ch] user/lib/*/*.[ch] tools/*.[ch] tools/bpf/*.c tests/*/*.[ch] bench/*.c)
LINT_SH := $(wildcard tests/*.sh tests/*/*.sh bench/*.sh tools/*.sh scripts/*.sh debian/*.postinst debian/*.prerm debian/*.postrm) .ci/run run dist/bash-completion/xdp-ratelimit

# make install: PREFIX and DESTDIR as usual. The configuration folder is the binary's
# (XRL_CONFIG_DIR, user/lib/rules/config.h), whatever PREFIX is, as nftables' /etc/nftables.conf.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= $(PREFIX)/lib/systemd/system
CONFDIR := /etc/xdp-ratelimit
MAN_PAGES := $(wildcard dist/man/*.[58])
UNITS := $(wildcard systemd/*.service systemd/*.timer systemd/*.socket)
# Units name the binary as Debian would install it, /usr/sbin/xdp-ratelimit (so that each is a
# valid unit as it is), rewritten to where it goes; man pages show the version.
dist_subst = sed -e 's|/usr/sbin/xdp-ratelimit|$(SBINDIR)/xdp-ratelimit|g' -e 's|@VERSION@|$(XRL_VERSION)|g'

.PHONY: all test test-fresh test-deb deb demo bench fuzz deps lint format vmlinux clean help install uninstall
.DELETE_ON_ERROR:
.SECONDARY:

all: $(CLI) $(TEST_BINS) $(BENCH_BINS) $(TOOL_BINS) $(DEMO) $(FUZZ_BINS) $(OUT)/xdp_ratelimit_refused.bpf.o $(OUT)/xdp_count.bpf.o

help:
	@echo 'make              build everything into $(OUT)/'
	@echo 'make test         install missing packages, build, run every test (SUITES="unit prog e2e")'
	@echo 'make demo         install missing packages, build, run the demo (IFACE=eth0 for a real NIC)'
	@echo 'make test-fresh   ./run demo and ./run test on a fresh debootstrapped Debian 12 (about 5 minutes)'
	@echo 'make test-deb     build the Debian package, install, upgrade and purge it on a fresh Debian 12 (about 2 minutes)'
	@echo 'make deb          the Debian package (debian/, dpkg-buildpackage -us -uc) into $(OUT)/deb/'
	@echo 'make bench        the side-by-side benchmark (about 9 minutes)'
	@echo 'make fuzz         the rules-parser fuzzers and the XDP frame fuzzer, FUZZ_SECONDS each (60)'
	@echo 'make lint         clang-format and shellcheck, as CI runs them'
	@echo 'make format       reformat our C with clang-format'
	@echo 'make deps         install missing Debian packages'
	@echo 'make install      the binary, man pages, bash completion, systemd/ units, an example configuration'
	@echo 'make uninstall    remove what make install installed (never a configuration of yours)'
	@echo 'make vmlinux      regenerate vmlinux/vmlinux.h from the running kernel'
	@echo 'make clean        remove $(OUT)/'
	@echo
	@echo 'V=1               show commands'
	@echo 'SANITIZE=1        userspace with ASan, UBSan and LeakSanitizer (make SANITIZE=1 test: every suite, a finding fails)'
	@echo 'PREFIX, DESTDIR   where make install puts things (PREFIX=$(PREFIX)); configurations: $(CONFDIR)'
	@echo 'CC, CPPFLAGS, CFLAGS, LDFLAGS, CLANG, BPFTOOL'
	@echo '                  your compiler and flags; the project adds its own (XRL_CFLAGS)'

$(OUT)/%.bpf.o: bpf/%.bpf.c | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Ibpf -MF $(@:.o=.d) -c $< -o $@

# The program with one access the verifier refuses: a bad build, for tests/e2e/replace.sh.
$(OUT)/xdp_ratelimit_refused.bpf.o: bpf/xdp_ratelimit.bpf.c | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DXRL_TEST_REFUSED -Ibpf -MF $(@:.o=.d) -c $< -o $@

$(OUT)/%.bpf.o: tools/bpf/%.bpf.c | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MF $(@:.o=.d) -c $< -o $@

$(OUT)/%.bpf.o: tests/prog/%.bpf.c | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MF $(@:.o=.d) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# A skeleton (and the version header) is order-only: -MMD records which objects include it.
$(OUT)/user/%.o: user/%.c | $(PROG_SKEL) $(OUT)/xrl_version.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(cc) -Iuser/lib -Iuser/cli -c $< -o $@

$(OUT)/tools/%.o: tools/%.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(cc) -c $< -o $@

$(LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# The commands as a library too: tests/unit/test_cli checks their tables.
$(CLI_LIB): $(CLI_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OUT)/tests/unit/test_cli: $(CLI_LIB)
$(OUT)/tests/unit/test_cli: TEST_LIBS = $(CLI_LIB)

$(CLI): $(OUT)/user/cli/main.o $(CLI_LIB) $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(XRL_LDFLAGS) $(LDFLAGS) $^ $(XRL_LDLIBS) $(LDLIBS) -o $@

$(OUT)/tests/%: tests/%.c $(LIB) | $(PROG_SKEL) $(TEST_SKELS) $(OUT)/xrl_version.h
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(cc) -Iuser/lib -Iuser/cli -Itests -MF $@.d $(XRL_LDFLAGS) $(LDFLAGS) $< $(TEST_LIBS) $(LIB) $(CMOCKA_LIBS) \
		$(XRL_LDLIBS) $(LDLIBS) -o $@

$(OUT)/bench/%: bench/%.c $(LIB) | $(TEST_SKELS) $(OUT)/xrl_version.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(cc) -Iuser/lib -Itests -MF $@.d $(XRL_LDFLAGS) $(LDFLAGS) $< $(LIB) $(XRL_LDLIBS) $(LDLIBS) -o $@

$(OUT)/xrl-%: tools/xrl-%.c $(TOOL_OBJS) | $(TOOL_SKELS)
	$(call msg,CC,$@)
	$(Q)$(cc) -Itools -MF $@.d $(XRL_LDFLAGS) $(LDFLAGS) $< $(TOOL_OBJS) $(XRL_LDLIBS) $(LDLIBS) -o $@

$(DEMO): tools/demo.sh | $(OUT)
	$(Q)ln -sf $(abspath $<) $@

$(OUT)/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB) include/xrl_common.h include/xrl_window.h $(wildcard user/lib/rules/*.h)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -Wall -Werror -Iinclude -Iuser/lib \
		$(LIBBPF_CFLAGS) $< $(FUZZ_LIB) -o $@

$(OUT):
	$(Q)mkdir -p $@

deps:
	$(Q)scripts/deps.sh

test: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/run.sh $(OUT) $(SUITES)

demo: deps
	$(Q)$(MAKE) -s --no-print-directory $(CLI) $(DEMO) $(OUT)/xrl-udp
	$(Q)$(CLI) demo $(IFACE)

fuzz: deps
	$(Q)$(MAKE) --no-print-directory $(FUZZ_BINS) $(OUT)/tests/prog/test_fuzz_xdp
	$(Q)tests/fuzz/run.sh $(OUT) $(FUZZ_SECONDS)
	$(Q)XRL_FUZZ_ITERS=$$(($(FUZZ_SECONDS) * 100000)) $(OUT)/tests/prog/test_fuzz_xdp # ~100k frames/s

test-fresh: deps
	$(Q)tests/fresh/run.sh $(OUT)

deb: deps
	$(Q)scripts/deb.sh $(OUT)/deb

test-deb: deps
	$(Q)$(MAKE) -s --no-print-directory $(OUT)/xrl-udp
	$(Q)tests/deb/run.sh $(OUT)

install: $(CLI)
	$(Q)install -D -m 0755 $(CLI) $(DESTDIR)$(SBINDIR)/xdp-ratelimit
	$(Q)for f in $(MAN_PAGES); do s=$${f##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s; \
		$(dist_subst) $$f > $(DESTDIR)$(MANDIR)/man$$s/$${f##*/} && chmod 0644 $(DESTDIR)$(MANDIR)/man$$s/$${f##*/}; done
	$(Q)install -d $(DESTDIR)$(UNITDIR)
	$(Q)for f in $(UNITS); do $(dist_subst) $$f > $(DESTDIR)$(UNITDIR)/$${f##*/} && chmod 0644 $(DESTDIR)$(UNITDIR)/$${f##*/}; done
	$(Q)install -D -m 0644 dist/bash-completion/xdp-ratelimit $(DESTDIR)$(BASHCOMPDIR)/xdp-ratelimit
	$(Q)install -d -m 0755 $(DESTDIR)$(CONFDIR)
	$(Q)[ -e $(DESTDIR)$(CONFDIR)/example.conf ] || install -m 0644 dist/example.conf $(DESTDIR)$(CONFDIR)/example.conf

# Removes what install put there: the example only while it is ours, unchanged; the folder
# only when nothing else (a saved configuration) is in it.
uninstall:
	$(Q)rm -f $(DESTDIR)$(SBINDIR)/xdp-ratelimit $(DESTDIR)$(BASHCOMPDIR)/xdp-ratelimit
	$(Q)for f in $(MAN_PAGES); do rm -f $(DESTDIR)$(MANDIR)/man$${f##*.}/$${f##*/}; done
	$(Q)for f in $(UNITS); do rm -f $(DESTDIR)$(UNITDIR)/$${f##*/}; done
	$(Q)! cmp -s dist/example.conf $(DESTDIR)$(CONFDIR)/example.conf || rm -f $(DESTDIR)$(CONFDIR)/example.conf
	$(Q)! [ -d $(DESTDIR)$(CONFDIR) ] || rmdir --ignore-fail-on-non-empty $(DESTDIR)$(CONFDIR)

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bench/run.sh $(OUT)

lint: deps
	$(call msg,FORMAT,$(words $(LINT_C)) C files)
	$(Q)clang-format --dry-run -Werror $(LINT_C)
	$(call msg,SHELL,$(words $(LINT_SH)) scripts)
	$(Q)shellcheck -x $(LINT_SH)

format:
	clang-format -i $(LINT_C)

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/vmlinux.h

# --one-file-system: never into what make test-fresh mounts under build/fresh/root (/sys, /dev).
clean:
	rm -rf --one-file-system $(OUT)

# The compilers' dependency files; not what a fresh Debian root (test-fresh) holds under $(OUT)/fresh.
-include $(filter-out $(OUT)/fresh/%,$(wildcard $(OUT)/*.d $(OUT)/*/*.d $(OUT)/*/*/*.d $(OUT)/*/*/*/*.d))
