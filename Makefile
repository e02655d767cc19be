# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make            build everything into build/
# make test       install missing packages, build, run every test
# make demo       install missing packages, build, run the demo (IFACE=eth0 for a real NIC)
# make bench      the side-by-side benchmark
# make fuzz       the rules-parser fuzzers and the XDP frame fuzzer, FUZZ_SECONDS each (default 60)
# make deps       install missing Debian packages
# make vmlinux    regenerate vmlinux/vmlinux.h from the running kernel
# V=1 shows commands; SANITIZE=1 builds userspace with ASan and UBSan.

OUT := build
CLANG ?= clang
CC ?= gcc
BPFTOOL ?= bpftool
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
CMOCKA_LIBS := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -std=gnu11 -Iinclude -I$(OUT) -Iuser $(LIBBPF_CFLAGS) -MMD -MP
LDLIBS += $(LIBBPF_LIBS) $(JANSSON_LIBS) -lm -lpthread
ifeq ($(SANITIZE),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	-Ivmlinux -Iinclude -Ibpf -MMD -MP

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUT)/%.bpf.o,$(BPF_SRCS))
SKELS := $(patsubst bpf/%.bpf.c,$(OUT)/%.skel.h,$(BPF_SRCS))

# user/: a library of the control plane, and the commands on top of it.
LIB_SRCS := $(filter-out user/main.c,$(wildcard user/*.c))
LIB_OBJS := $(patsubst user/%.c,$(OUT)/user/%.o,$(LIB_SRCS))
LIB := $(OUT)/libxrl.a
CLI := $(OUT)/xdp-ratelimit

TEST_SRCS := $(wildcard tests/unit/*.c tests/prog/*.c)
TEST_BINS := $(patsubst tests/%.c,$(OUT)/tests/%,$(TEST_SRCS))
# tools/: traffic senders and receivers for the demo, the tests and the benchmark.
TOOL_SRCS := $(wildcard tools/*.c)
TOOL_BINS := $(patsubst tools/%.c,$(OUT)/%,$(TOOL_SRCS))

# tests/fuzz/: libFuzzer harnesses of the rules parser, with ASan and UBSan.
FUZZ_SRCS := $(wildcard tests/fuzz/*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(OUT)/fuzz/%,$(FUZZ_SRCS))
FUZZ_LIB := user/rule.c user/err.c
FUZZ_SECONDS ?= 60

.PHONY: all test demo bench fuzz deps vmlinux clean
.DELETE_ON_ERROR:
.SECONDARY:

all: $(CLI) $(TEST_BINS) $(TOOL_BINS) $(FUZZ_BINS)

$(OUT)/%.bpf.o: bpf/%.bpf.c | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MF $(@:.o=.d) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(OUT)/user/%.o: user/%.c $(SKELS) | $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(CLI): $(OUT)/user/main.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(OUT)/tests/%: tests/%.c $(LIB) $(SKELS)
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Itests -MF $@.d $(LDFLAGS) $< $(LIB) $(CMOCKA_LIBS) $(LDLIBS) -o $@

$(OUT)/%: tools/%.c $(LIB) $(SKELS)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -MF $@.d $(LDFLAGS) $< $(LIB) $(LDLIBS) -o $@

$(OUT)/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB) include/xrl_common.h include/xrl_window.h user/rule.h
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -Wall -Werror -Iinclude -Iuser \
		$(LIBBPF_CFLAGS) $< $(FUZZ_LIB) -o $@

$(OUT):
	$(Q)mkdir -p $@

deps:
	$(Q)scripts/deps.sh

test: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/run.sh $(OUT)

demo: deps
	$(Q)$(MAKE) --no-print-directory $(CLI)
	$(Q)$(CLI) demo $(IFACE)

fuzz: deps
	$(Q)$(MAKE) --no-print-directory $(FUZZ_BINS) $(OUT)/tests/prog/test_fuzz_xdp
	$(Q)tests/fuzz/run.sh $(OUT) $(FUZZ_SECONDS)
	$(Q)XRL_FUZZ_ITERS=$$(($(FUZZ_SECONDS) * 100000)) $(OUT)/tests/prog/test_fuzz_xdp # ~100k frames/s

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bench/run.sh $(OUT)

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/vmlinux.h

clean:
	rm -rf $(OUT)

-include $(wildcard $(OUT)/*.d $(OUT)/*/*.d $(OUT)/*/*/*.d)
