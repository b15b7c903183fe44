# kperfci — plain GNU make with pkg-config.
#
#   make                 binaries in bin/
#   make check           install missing packages, unit + e2e tests, then
#                        unit + e2e again under ASan/UBSan
#   make run             install missing packages, build, start kperfcid
#   make DEVELOPER=1     adds -Werror
#   make SANITIZE=address,undefined   objects and binaries under build/san/
#   make fuzz            libFuzzer targets over every parser of outside input
#                        (FUZZ_SECONDS=600 per target: the longer campaign)
#   make bench-NAME      tests/bench/NAME.sh, a benchmark that prints figures
#                        (build, load, stats, e2e, http, changepoint, ...)
#
# Sources are found by wildcard: a new daemon/foo.c is part of the daemon.
# Every directory's main lives in a file named after its binary.

PKGS	 = libgit2 libcurl sqlite3 libmicrohttpd jansson zlib gmime-3.0 gsl
CC	?= cc
CFLAGS	?= -O2 -g
PREFIX	?= /usr/local

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN	 = -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	   -Wshadow -Wstrict-prototypes -Wpointer-arith -Wformat=2
ifdef DEVELOPER
WARN	+= -Werror
endif
ALL_CFLAGS = -std=gnu11 $(CFLAGS) $(WARN) -I. -MMD -MP -D_GNU_SOURCE \
	     -DKPERFCI_SRCDIR='"$(CURDIR)"'
ALL_LDFLAGS = $(LDFLAGS)

ifdef SANITIZE
ALL_CFLAGS  += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
ALL_LDFLAGS += -fsanitize=$(SANITIZE)
OUT	 = build/san
BIN	 = build/san/bin
else
OUT	 = build/std
BIN	 = bin
endif

LIB_SRC	   := $(wildcard lib/*.c)
CORE_SRC   := $(wildcard core/*.c)
DAEMON_SRC := $(filter-out daemon/kperfcid.c,$(wildcard daemon/*.c))
CLI_SRC	   := $(filter-out cli/kperfci.c,$(wildcard cli/*.c))
AGENT_SRC  := $(filter-out agents/kperfci-agent.c,$(wildcard agents/*.c))
LOAD_SRC   := $(filter-out agents/load/kperfci-load.c,$(wildcard agents/load/*.c))
UNIT_SRC   := $(wildcard tests/unit/t-*.c)
BENCH_SRC  := $(wildcard tests/bench/*.c)

obj = $(patsubst %.c,$(OUT)/%.o,$(1))

LIB_A	 = $(OUT)/libkperfci.a
CORE_A	 = $(OUT)/libcore.a
DAEMON_A = $(OUT)/libdaemon.a
CLI_A	 = $(OUT)/libcli.a
AGENT_A	 = $(OUT)/libagent.a
LOAD_A	 = $(OUT)/libload.a
ARCHIVES = $(DAEMON_A) $(CLI_A) $(AGENT_A) $(LOAD_A) $(CORE_A) $(LIB_A)

PROGS	 = $(BIN)/kperfcid $(BIN)/kperfci $(BIN)/kperfci-agent $(BIN)/kperfci-load
UNITS	 = $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRC))
BENCHES	 = $(patsubst tests/bench/%.c,$(OUT)/bench/%,$(BENCH_SRC))

all: $(PROGS) $(UNITS) $(BENCHES)

$(OUT)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

# config_default.c links etc/kperfci.conf in with .incbin, which -MMD
# cannot see: say it here.
$(OUT)/daemon/config_default.o: etc/kperfci.conf

# kperfci-load runs inside a bare initramfs: no shared libraries there.
$(OUT)/agents/load/%.o: agents/load/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIB_A): $(call obj,$(LIB_SRC))
$(CORE_A): $(call obj,$(CORE_SRC))
$(DAEMON_A): $(call obj,$(DAEMON_SRC))
$(CLI_A): $(call obj,$(CLI_SRC))
$(AGENT_A): $(call obj,$(AGENT_SRC))
$(LOAD_A): $(call obj,$(LOAD_SRC))
$(ARCHIVES):
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^ $(if $^,,$(OUT)/empty.o)

$(OUT)/empty.o:
	@mkdir -p $(dir $@)
	echo 'int kperfci_empty_archive;' | $(CC) -x c -c -o $@ -

$(ARCHIVES): | $(OUT)/empty.o

LINK = $(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lpthread -lm

# The daemon checks submitted matrices with kperfci-load's own parser and
# workload table (core/matrix_check.c): libload.a after the core.
$(BIN)/kperfcid: $(call obj,daemon/kperfcid.c) $(DAEMON_A) $(CORE_A) \
    $(LOAD_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(LINK)

# The CLI links the core only (and the workload table, to check a matrix
# before it is sent): it never sees the daemon's store or pages.
$(BIN)/kperfci: $(call obj,cli/kperfci.c) $(CLI_A) $(CORE_A) $(LOAD_A) \
    $(LIB_A)
	@mkdir -p $(dir $@)
	$(LINK)

$(BIN)/kperfci-agent: $(call obj,agents/kperfci-agent.c) $(AGENT_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(LINK)

# Static unless sanitizers are on (they do not link statically).  Of lib/
# it takes only the libc-only INI tokenizer, for the matrix.
$(BIN)/kperfci-load: $(call obj,agents/load/kperfci-load.c) $(LOAD_A) \
    $(call obj,lib/ini.c)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) $(if $(SANITIZE),,-static) -o $@ $^ -lpthread -lm

# The test and benchmark objects are intermediate files of the pattern
# rules below: kept, or every `make unit` after `make all` rebuilt them.
.SECONDARY:

$(OUT)/tests/%: $(OUT)/tests/unit/%.o $(ARCHIVES)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(CLI_A) $(DAEMON_A) $(AGENT_A) \
	    $(CORE_A) $(LOAD_A) $(LIB_A) $(PKG_LIBS) -lpthread -lm

# Benchmark helpers (tests/bench/*.c: store generators, load clients).
$(OUT)/bench/%: $(OUT)/tests/bench/%.o $(ARCHIVES)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(CLI_A) $(DAEMON_A) $(AGENT_A) \
	    $(CORE_A) $(LOAD_A) $(LIB_A) $(PKG_LIBS) -lpthread -lm

# ---- tests ---------------------------------------------------------------

deps:
	tools/install-deps

# tests/check.sh sets PROVE="prove --timer": each test's time in the log.
PROVE ?= prove

unit: all
	KPERFCI_BIN=$(CURDIR)/$(BIN) $(PROVE) -f $(UNITS)

# E2E selects scripts; heavy ones (kernel builds, qemu boots) are t5xxx+.
E2E ?= $(sort $(wildcard tests/e2e/t[0-9]*.sh))
E2E_LIGHT = $(sort $(wildcard tests/e2e/t[0-4]*.sh))

e2e: all
	KPERFCI_BIN=$(CURDIR)/$(BIN) $(PROVE) -f $(E2E)

# The heavy tests keep one or two cores busy with qemu under TCG with
# -icount (whose guest clock counts instructions, so a test's figures do
# not depend on what runs beside it) or wait (the kexec VM's reboots).
# t7400 (two agents, 26 min alone here) runs alone first; then the rest
# two at a time, the longest first (the kexec VM 15 min, t7500 15, t7000
# 14, the LAVA server's t7700 12) so that both slots end together.  Side
# by side with t7400, a kexec VM's honest reboot took over 300 s (and was
# power-cycled) and t7400's series passed their 50-minute wait.
E2E_POOL1 = $(wildcard tests/e2e/t7400-*.sh)
E2E_LONG  = $(wildcard tests/e2e/t6800-*.sh tests/e2e/t7500-*.sh \
    tests/e2e/t7000-*.sh tests/e2e/t7700-*.sh)
E2E_POOL2 = $(E2E_LONG) $(filter-out $(E2E_POOL1) $(E2E_LONG),$(sort \
    $(wildcard tests/e2e/t[5-9]*.sh)))
E2E_HEAVY = $(E2E_POOL1) $(E2E_POOL2)

# tests/check.sh: the sanitizer pass (the unit and light e2e tests on
# ASan+UBSan binaries), then the heavy e2e tests; their fixtures built at
# nice 19 in the background from the start.
check: deps
	$(MAKE) all
	MAKE="$(MAKE)" E2E_LIGHT="$(E2E_LIGHT)" E2E_POOL1="$(E2E_POOL1)" \
	    E2E_POOL2="$(E2E_POOL2)" tests/check.sh

# A sub-make: pkg-config flags are read when make starts, before deps has
# installed the libraries on a fresh machine.
run: deps
	$(MAKE) all
	tools/run

# ---- fuzzing -------------------------------------------------------------

FUZZ_SRC := $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_OUT  = build/fuzz
FUZZ_BINS = $(patsubst tests/fuzz/%.c,$(FUZZ_OUT)/%,$(FUZZ_SRC))
FUZZ_SECONDS ?= 60

fuzz-build:
	$(MAKE) OUT=$(FUZZ_OUT) BIN=$(FUZZ_OUT)/bin CC=clang \
	    CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined" \
	    $(FUZZ_OUT)/libdaemon.a $(FUZZ_OUT)/libcli.a $(FUZZ_OUT)/libagent.a \
	    $(FUZZ_OUT)/libload.a $(FUZZ_OUT)/libcore.a $(FUZZ_OUT)/libkperfci.a
	for f in $(FUZZ_SRC); do \
	    n=$$(basename $$f .c); \
	    clang -std=gnu11 -O1 -g -I. -D_GNU_SOURCE $(PKG_CFLAGS) \
	        -fsanitize=fuzzer,address,undefined -o $(FUZZ_OUT)/$$n $$f \
	        $(FUZZ_OUT)/libdaemon.a $(FUZZ_OUT)/libcli.a \
	        $(FUZZ_OUT)/libagent.a $(FUZZ_OUT)/libcore.a \
	        $(FUZZ_OUT)/libload.a $(FUZZ_OUT)/libkperfci.a $(PKG_LIBS) -lpthread -lm || exit 1; \
	done

# make fuzz [FUZZ_SECONDS=600] [FUZZ=fuzz-mbox]: each target in turn from its
# kept corpus (tests/fuzz/corpus/NAME, read only) plus a scratch one
# (build/fuzz/corpus/NAME); crashes, timeouts (> FUZZ_TIMEOUT s per input)
# and leaks land in build/fuzz/artifacts/NAME/.  Every target runs; the
# failing ones are named at the end.  make fuzz-merge then minimises the
# scratch corpus into the kept one (-merge=1: only inputs adding coverage).
FUZZ	?= $(notdir $(FUZZ_BINS))
FUZZ_TIMEOUT ?= 10
FUZZ_FLAGS = -max_len=65536 -timeout=$(FUZZ_TIMEOUT) -rss_limit_mb=2048

fuzz: fuzz-build
	@fail=; for n in $(FUZZ); do \
	    mkdir -p $(FUZZ_OUT)/corpus/$$n $(FUZZ_OUT)/artifacts/$$n \
	        tests/fuzz/corpus/$$n; \
	    echo "== $$n ($(FUZZ_SECONDS) s)"; \
	    nice $(FUZZ_OUT)/$$n -max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS) \
	        -artifact_prefix=$(FUZZ_OUT)/artifacts/$$n/ \
	        $(FUZZ_OUT)/corpus/$$n tests/fuzz/corpus/$$n \
	        2>$(FUZZ_OUT)/$$n.log || fail="$$fail $$n"; \
	    grep -E '^Done|^==[0-9]+==ERROR|^SUMMARY' $(FUZZ_OUT)/$$n.log; \
	done; \
	if [ -n "$$fail" ]; then \
	    echo "fuzz: findings in$$fail (build/fuzz/artifacts/, logs build/fuzz/*.log)"; \
	    exit 1; fi

fuzz-merge: fuzz-build
	for n in $(FUZZ); do \
	    mkdir -p $(FUZZ_OUT)/corpus/$$n tests/fuzz/corpus/$$n; \
	    nice $(FUZZ_OUT)/$$n -merge=1 $(FUZZ_FLAGS) tests/fuzz/corpus/$$n \
	        $(FUZZ_OUT)/corpus/$$n 2>&1 | grep -E 'MERGE-OUTER: [0-9]+ new' \
	        || exit 1; \
	done

# ---- benchmarks ----------------------------------------------------------

bench-%: all
	KPERFCI_BIN=$(CURDIR)/$(BIN) KPERFCI_BENCH=$(CURDIR)/$(OUT)/bench \
	    tests/bench/$*.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/kperfci
	install -m 755 $(PROGS) $(DESTDIR)$(PREFIX)/bin
	cp -r schema web etc $(DESTDIR)$(PREFIX)/share/kperfci

clean:
	rm -rf build bin

.PHONY: all deps unit e2e check run fuzz fuzz-build fuzz-merge install clean

-include $(shell find build -name '*.d' 2>/dev/null)
