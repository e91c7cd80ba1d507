# SPDX-License-Identifier: MIT
#
# pp - one Makefile for the whole tree.
#
#   make            build ./pp-record ./pp-analyze ./pp
#   make deps       apt-install the Debian packages pp and its tests need (idempotent)
#   make deps-build only those that build and run pp (make demo)
#   make test       deps + build + unit tests + integration tests
#   make check      the same without deps (and the layout rules: make tree)
#   make check-busy the integration tests beside a nice-0 busy loop on every CPU
#                   (tests/tools/busy.sh; PP_BUSY=1): their ground truth must hold on a busy
#                   machine too
#   make asan       the whole suite built with -fsanitize=address,undefined
#   make werror     build everything and the unit tests with gcc and with clang, -Werror
#   make demo       deps-build + build + record a few seconds + reports
#   make bench      benchmarks, results in docs/performance.md
#   make static     a fully static pp-record
#   make install    pp, pp-record, pp-analyze, the pp Python module, man pages, completion,
#                   docs and samples under $(DESTDIR)$(PREFIX) (/usr/local); make uninstall
#   make deb        the Debian packages pp-record and pp in $(O)/deb/ (dpkg-buildpackage, lintian)
#
# Objects go to $(O) (default build/); binaries to $(BIN) (default: the top).
# Changing NO_PYTHON, SAN, OPT, CC, CPPFLAGS, CFLAGS or LDFLAGS rebuilds what they affect.

O ?= build
BIN ?= .
CC ?= cc
OPT ?= -O2 -g
V ?= 0

# libdebuginfod is not linked: analyze/debugsyms.c opens it on the first download (dlopen)
PKG_ANALYZE := libtraceevent libzstd libelf libdw sqlite3 zlib libtracecmd
PYCONFIG := $(shell command -v /usr/bin/python3-config 2>/dev/null || command -v python3-config 2>/dev/null)

WARN := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wformat=2 -Wno-unused-parameter \
	-Wno-missing-field-initializers
CFLAGS_BASE := -std=c11 -D_GNU_SOURCE $(WARN) $(OPT) -I. -fno-strict-aliasing
SAN ?=
CFLAGS_ALL = $(CFLAGS_BASE) $(SAN) $(CPPFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(SAN) $(LDFLAGS) -pthread

TEP_CFLAGS := $(shell pkg-config --cflags libtraceevent libtracecmd 2>/dev/null)
ANALYZE_LIBS := $(shell pkg-config --libs $(PKG_ANALYZE) 2>/dev/null) -liberty
ifeq ($(NO_PYTHON),)
PY_CFLAGS := $(shell $(PYCONFIG) --includes 2>/dev/null) -DPP_HAVE_PYTHON=1
PY_LIBS := $(shell $(PYCONFIG) --embed --ldflags 2>/dev/null)
endif
RECORD_LIBS := -lzstd -lelf -llzma -lpthread

ifeq ($(V),0)
Q := @
QCC = @echo "  CC      $@";
QLD = @echo "  LINK    $@";
QAR = @echo "  AR      $@";
endif

COMMON_SRC := $(sort $(wildcard common/*.c))
FORMAT_SRC := $(sort $(wildcard format/*.c))
RECORD_SRC := $(sort $(wildcard record/*.c record/*/*.c))
# Analyzer plans are linked into pp-record too: they must not need libtraceevent.
PLAN_SRC := $(sort $(wildcard analyzers/*-plan.c))
# pp, the front end (front/): it runs the two programs and links neither.
PP_SRC := $(sort $(wildcard front/*.c))
ANALYZE_SRC := $(sort $(wildcard analyze/*.c analyze/*/*.c))
AZ_SRC := $(filter-out $(PLAN_SRC),$(sort $(wildcard analyzers/*.c)))
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
LOAD_SRC := $(sort $(wildcard tests/load/*.c))

obj = $(patsubst %.c,$(O)/%.o,$(1))

LIBCOMMON := $(O)/libppcommon.a
LIBFORMAT := $(O)/libppformat.a
LIBPLAN := $(O)/libppplan.a
# record/ library code (not main.c, not commands), for the unit tests.
RECLIB_SRC := $(filter-out record/main.c record/cmd-%.c,$(RECORD_SRC))
LIBRECORD := $(O)/libpprecord.a

PROGS := $(BIN)/pp-record $(BIN)/pp-analyze $(BIN)/pp
LOADS := $(patsubst tests/load/%.c,$(O)/load/%,$(LOAD_SRC))
UNIT := $(O)/tests/unit-tests

all: $(PROGS) $(LOADS) $(O)/bench/fmtbench

# The effective flags, in stamps under $(O) that are rewritten only when their text
# changes (git's GIT-CFLAGS): every object and load depends on $(FLAGS_STAMP), the analyzer
# side (libtraceevent, Python: NO_PYTHON) also on $(FLAGS_AZ_STAMP).  Plain := text: a
# target-specific CFLAGS_ALL must not leak into a stamp.
FLAGS_STAMP := $(O)/.flags
FLAGS_AZ_STAMP := $(O)/.flags-analyze
FLAGS_TEXT := CC=$(CC) CFLAGS=$(CFLAGS_ALL) LDFLAGS=$(LDFLAGS_ALL)
FLAGS_AZ_TEXT := TEP_CFLAGS=$(TEP_CFLAGS) PY_CFLAGS=$(PY_CFLAGS) PY_LIBS=$(PY_LIBS) \
	ANALYZE_LIBS=$(ANALYZE_LIBS)
# write-if-changed TEXT: the recipe of a stamp
write-if-changed = @mkdir -p $(dir $@) && printf '%s\n' '$(subst ','\'',$(1))' >$@.new && \
	if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@ && echo "  FLAGS   $@"; fi
$(FLAGS_STAMP): FORCE
	$(call write-if-changed,$(FLAGS_TEXT))
$(FLAGS_AZ_STAMP): FORCE
	$(call write-if-changed,$(FLAGS_AZ_TEXT))
FORCE:

# The git commit that --version prints (common/version.c, the one object that sees it):
# `git describe --always --dirty` of a checkout; where git cannot tell (no .git, or root's
# `sudo make install` in a user's checkout, which git refuses), the last build's, else
# "unknown".  PP_COMMIT=... given to make wins.  Exported, so sub-makes and make deb's package
# build (a copy without .git) take it.
ifeq ($(origin PP_COMMIT),undefined)
PP_COMMIT := $(or $(if $(wildcard .git),$(shell git describe --always --dirty 2>/dev/null)),$(shell \
	cat $(O)/.version 2>/dev/null),unknown)
endif
export PP_COMMIT
VERSION_STAMP := $(O)/.version
$(VERSION_STAMP): FORCE
	$(call write-if-changed,$(PP_COMMIT))
$(O)/common/version.o $(O)/pic/common/version.o: $(VERSION_STAMP)
$(O)/common/version.o $(O)/pic/common/version.o: CFLAGS_ALL += -DPP_GIT_COMMIT='"$(PP_COMMIT)"'

$(O)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

# Only the analyzer side sees libtraceevent and Python headers.
$(call obj,$(ANALYZE_SRC) $(AZ_SRC)): CFLAGS_ALL += $(TEP_CFLAGS) $(PY_CFLAGS)
$(call obj,$(ANALYZE_SRC) $(AZ_SRC)): $(FLAGS_AZ_STAMP)

$(LIBCOMMON): $(call obj,$(COMMON_SRC))
	$(QAR)rm -f $@ && ar rcs $@ $^
$(LIBFORMAT): $(call obj,$(FORMAT_SRC))
	$(QAR)rm -f $@ && ar rcs $@ $^
$(LIBPLAN): $(call obj,$(PLAN_SRC))
	$(QAR)rm -f $@ && ar rcs $@ $^
$(LIBRECORD): $(call obj,$(RECLIB_SRC))
	$(QAR)rm -f $@ && ar rcs $@ $^
# pp-analyze without its main(), for the unit suites that walk the registry.
LIBANALYZE := $(O)/libppanalyze.a
$(LIBANALYZE): $(call obj,$(filter-out analyze/main.c,$(ANALYZE_SRC)) $(AZ_SRC))
	$(QAR)rm -f $@ && ar rcs $@ $^

$(BIN)/pp-record: $(call obj,$(RECORD_SRC)) $(LIBPLAN) $(LIBFORMAT) $(LIBCOMMON)
	$(QLD)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(RECORD_LIBS)

# The syscall table of the build machine, as REC_SYSCALL(nr, name) lines.
$(O)/gen/syscalls.h: $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(Q)echo '#include <asm/unistd.h>' | $(CC) -E -dM -x c - | \
		sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9][0-9]*\)$$/REC_SYSCALL(\2, \1)/p' | \
		sort -t'(' -k2 -n >$@.tmp && mv $@.tmp $@
$(O)/record/symbols/snapshot.o: $(O)/gen/syscalls.h
$(O)/record/symbols/snapshot.o: CFLAGS_ALL += -I$(O)
# ... and of a trace.dat from the same kind of machine (analyze/import/tracedat.c).
$(O)/analyze/import/tracedat.o $(O)/pic/analyze/import/tracedat.o: $(O)/gen/syscalls.h
$(O)/analyze/import/tracedat.o $(O)/pic/analyze/import/tracedat.o: CFLAGS_ALL += -I$(O)

# The report page's style and script, as C string literals (analyze/report/page.c).
REPORT_PAGE := analyze/report/page.css analyze/report/page.js
$(O)/gen/report-page.h: $(REPORT_PAGE)
	@mkdir -p $(dir $@)
	$(Q)for f in $(REPORT_PAGE); do \
		echo "#define REPORT_$$(basename $$f | tr a-z. A-Z_) \\"; \
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$$/\\n" \\/' $$f; echo '""'; \
	done >$@.tmp && mv $@.tmp $@
$(O)/analyze/report/page.o: $(O)/gen/report-page.h
$(O)/analyze/report/page.o: CFLAGS_ALL += -I$(O)

# pp.fleet (analyze/python/fleet.py) as one C string literal: `pp fleet` runs it with
# python3 -c, the pp module makes it its fleet submodule (front/fleet.c, python/pyfleet.c).
FLEET_PY := analyze/python/fleet.py
$(O)/gen/fleet-py.h: $(FLEET_PY)
	@mkdir -p $(dir $@)
	$(Q){ echo '#define FLEET_PY \\'; \
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$$/\\n" \\/' $<; \
		echo '""'; } >$@.tmp && mv $@.tmp $@
FLEET_OBJ := $(O)/front/fleet.o $(O)/analyze/python/pyfleet.o $(O)/pic/analyze/python/pyfleet.o
$(FLEET_OBJ): $(O)/gen/fleet-py.h
$(FLEET_OBJ): CFLAGS_ALL += -I$(O)

# Test-only capture checker used by the record integration tests.
TOOLS := $(O)/tests/capcheck
$(O)/tests/capcheck: $(call obj,tests/tools/capcheck.c) $(LIBFORMAT) $(LIBCOMMON)
	$(QLD)$(CC) $(LDFLAGS_ALL) -o $@ $^ -lzstd
all: $(TOOLS)

# Test-only capture builder: text description in, capture out (tests/fixtures).
$(O)/tests/capbuild: $(call obj,tests/tools/capbuild.c) $(LIBFORMAT) $(LIBCOMMON)
	$(QLD)$(CC) $(LDFLAGS_ALL) -o $@ $^ -lzstd
all: $(O)/tests/capbuild

# Test-only captures that claim huge counts and lengths (t214-t216, docs/capture-format.md Limits).
$(O)/tests/caphostile: $(call obj,tests/tools/caphostile.c) $(LIBFORMAT) $(LIBCOMMON)
	$(QLD)$(CC) $(LDFLAGS_ALL) -o $@ $^ -lzstd
all: $(O)/tests/caphostile

# Test-only: a command run as an older kernel answers it (t171-t175, docs/kernels.md).
$(O)/tests/oldkernel: $(call obj,tests/tools/oldkernel.c)
	$(QLD)$(CC) $(LDFLAGS_ALL) -o $@ $^
all: $(O)/tests/oldkernel

$(BIN)/pp-analyze: $(call obj,$(ANALYZE_SRC) $(AZ_SRC)) $(LIBPLAN) $(LIBFORMAT) $(LIBCOMMON)
	$(QLD)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(ANALYZE_LIBS) $(PY_LIBS) -lm

# The pp Python module for a plain python3 (import pp): the capture reader and
# the replay core as a C extension, from position-independent objects.  It exports
# PyInit_pp alone: hidden visibility for our objects, --exclude-libs for the static
# libiberty (nm -D --defined-only shows one symbol).
ifeq ($(NO_PYTHON),)
PYMOD := $(O)/python/pp.so
PYMOD_SRC := $(COMMON_SRC) $(FORMAT_SRC) $(filter-out analyze/main.c analyze/cmd.c analyze/cmd-%.c \
	analyze/cmdutil.c analyze/evhelp.c analyze/instance.c analyze/merge.c analyze/parallel.c \
	analyze/registry.c analyze/sql/%.c analyze/python/pyembed.c analyze/export/%.c \
	analyze/report/%.c,$(ANALYZE_SRC))
$(O)/pic/%.o: %.c $(FLAGS_STAMP) $(FLAGS_AZ_STAMP)
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(CFLAGS_ALL) $(TEP_CFLAGS) $(PY_CFLAGS) -fPIC -fvisibility=hidden \
		-MMD -MP -c -o $@ $<
$(PYMOD): $(patsubst %.c,$(O)/pic/%.o,$(PYMOD_SRC))
	@mkdir -p $(dir $@)
	$(QLD)$(CC) $(LDFLAGS_ALL) -shared -Wl,--exclude-libs,ALL -o $@ $^ \
		$(shell pkg-config --libs libtraceevent libzstd libelf libdw libtracecmd libdebuginfod \
			2>/dev/null) -liberty -lm
all: $(PYMOD)
endif

$(BIN)/pp: $(call obj,$(PP_SRC)) $(LIBFORMAT) $(LIBCOMMON)
	$(QLD)$(CC) $(LDFLAGS_ALL) -o $@ $^ -lzstd

$(O)/load/%: tests/load/%.c tests/load/load.h $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(CFLAGS_BASE) $(SAN) $(CFLAGS) -O1 -fno-omit-frame-pointer -fno-inline \
		-o $@ $< -lpthread -lm

# The one load built optimized with DWARF: its hot loop is always-inlined code (t358).
$(O)/load/inlinehot: tests/load/inlinehot.c tests/load/load.h $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(CFLAGS_BASE) $(SAN) $(CFLAGS) -O2 -g -fno-omit-frame-pointer -o $@ $< -lm

# The DWARF unwinding ground truth (t140, t141, bench stage stacks): built as distributions
# build, -O2 without frame pointers, each program with its shared library beside it ($ORIGIN).
UNWIND_FLAGS := -O2 -g -fomit-frame-pointer -fasynchronous-unwind-tables
all: $(O)/load/unwind-cxx
$(O)/load/libunwindleaf.so: tests/load/unwind/leaf.c tests/load/unwind/spin.h $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(CFLAGS_BASE) $(CFLAGS) $(UNWIND_FLAGS) -fPIC -shared -o $@ $<
$(O)/load/unwind-c: tests/load/unwind-c.c tests/load/unwind/spin.h \
		$(O)/load/libunwindleaf.so
	$(QCC)$(CC) $(CFLAGS_BASE) $(CFLAGS) $(UNWIND_FLAGS) -o $@ $< \
		-L$(O)/load -lunwindleaf -Wl,-rpath,'$$ORIGIN'
$(O)/load/libunwindleafxx.so: tests/load/unwind/leaf.cc tests/load/unwind/spin.h $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(QCC)$(CXX) -std=c++17 -D_GNU_SOURCE -Wall -Wextra -I. $(UNWIND_FLAGS) -fPIC -shared \
		-o $@ $<
$(O)/load/unwind-cxx: tests/load/unwind-cxx.cc tests/load/unwind/spin.h \
		$(O)/load/libunwindleafxx.so
	$(QCC)$(CXX) -std=c++17 -D_GNU_SOURCE -Wall -Wextra -I. $(UNWIND_FLAGS) -o $@ $< \
		-L$(O)/load -lunwindleafxx -Wl,-rpath,'$$ORIGIN'

# Built as distributions build, without frame pointers: --call-graph dwarf's ground truth.
$(O)/load/fpless: tests/load/fpless.c tests/load/load.h $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(CFLAGS_BASE) $(SAN) $(CFLAGS) -O2 -fomit-frame-pointer -o $@ $<

# mallocloop as distributions build it: kmemleak and kmemprof on --call-graph dwarf (t158).
all: $(O)/load/mallocloop-fpless
$(O)/load/mallocloop-fpless: tests/load/mallocloop.c tests/load/load.h $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(CFLAGS_BASE) $(SAN) $(CFLAGS) -O2 -fomit-frame-pointer -o $@ $<

$(O)/bench/fmtbench: $(O)/tests/tools/fmtbench.o $(LIBFORMAT) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(QLD)$(CC) $(LDFLAGS_ALL) -o $@ $^ -lzstd

# The suites that reach into analyze/ (the registry) are built as the analyzer side is.
UNIT_AZ_SRC := tests/unit/test-registry.c tests/unit/test-state-az.c \
	tests/unit/test-state-latency.c
$(call obj,$(UNIT_AZ_SRC)): CFLAGS_ALL += $(TEP_CFLAGS) $(PY_CFLAGS)
$(call obj,$(UNIT_AZ_SRC)): $(FLAGS_AZ_STAMP)
$(UNIT): $(call obj,$(UNIT_SRC)) $(LIBANALYZE) $(LIBRECORD) $(LIBPLAN) $(LIBFORMAT) $(LIBCOMMON)
	$(QLD)$(CC) $(LDFLAGS_ALL) -o $@ $^ -lcunit $(ANALYZE_LIBS) $(PY_LIBS) -llzma -lm

# --- setup -----------------------------------------------------------------

# The packages that build pp and run it (make demo: make deps-build), then those only the
# tests, benchmarks and CI need: clang (make werror, make fuzz), CUnit (make unit), the sqlite3
# and zstd programs (t401, t402, t201), protoc (t371, t372, t374), perf, trace-cmd and
# hyperfine (the benchmarks), xmllint (t350, t706), chromium and python3-websocket (t707),
# Dask (t840-t842), groff and man (t703, below).  make deps installs both (make test, CI).
DEB_BUILD_PACKAGES := build-essential pkg-config libelf-dev libdw-dev libzstd-dev \
	libsqlite3-dev libtraceevent-dev python3-dev libiberty-dev zlib1g-dev systemtap-sdt-dev \
	liblzma-dev libtracecmd-dev libdebuginfod-dev libtracefs-dev
DEB_TEST_PACKAGES := clang libcunit1-dev sqlite3 zstd protobuf-compiler linux-perf trace-cmd \
	hyperfine libxml2-utils chromium python3-websocket python3-distributed python3-dask debuginfod \
	g++ xz-utils
DEB_PACKAGES = $(DEB_BUILD_PACKAGES) $(DEB_TEST_PACKAGES)

# apt_install PACKAGES: apt-get install those of PACKAGES not installed yet
define apt_install
	@missing=""; for p in $(1); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		if [ "$$(id -u)" != 0 ]; then SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null || exit 1; \
	else echo "$@: all Debian packages present"; fi
endef

deps:
	$(call apt_install,$(DEB_PACKAGES))

deps-build:
	$(call apt_install,$(DEB_BUILD_PACKAGES))

# --- tests -----------------------------------------------------------------

unit: $(UNIT)
	$(UNIT)

integration: $(PROGS) $(LOADS) $(TOOLS)
	@PP_BIN=$(abspath $(BIN)) PP_LOAD=$(abspath $(O)/load) sh tests/integration/run.sh

# The integration tests beside a CPU load: tests/load/hog, a nice-0 busy loop, on every CPU,
# started before and killed after (tests/tools/busy.sh; the tests see PP_BUSY=1).
check-busy: $(PROGS) $(LOADS) $(TOOLS)
	@PP_BIN=$(abspath $(BIN)) PP_LOAD=$(abspath $(O)/load) \
		sh tests/tools/busy.sh $(abspath $(O)/load) sh tests/integration/run.sh

# make soak [SOAK_S=1800]: pp-record -a with rotation for SOAK_S seconds under the loads; its
# RSS and open fds (and its children's) must stay flat after warm-up (tests/tools/soak.sh; t752
# runs 120 s of it in make check).  Root; the samples in $(O)/soak/soak.samples.
SOAK_S ?= 1800
soak: $(PROGS) $(LOADS)
	sh tests/tools/soak.sh $(CURDIR)/$(BIN) $(CURDIR)/$(O)/load $(SOAK_S) $(O)/soak

# The layout rules the compiler cannot see (docs/hacking.md).
tree:
	@sh tests/tools/check-tree.sh

check: all tree unit integration

test: deps
	$(MAKE) check

asan:
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp ASAN_OPTIONS=malloc_context_size=255 \
		$(MAKE) O=build-asan BIN=build-asan SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" OPT="-O1 -g" check

# Warnings as errors with each compiler, in its own build directory beside $(O) (CI).
WERROR_CCS := gcc clang
werror: $(addprefix werror-,$(WERROR_CCS))
$(addprefix werror-,$(WERROR_CCS)): werror-%:
	$(MAKE) O=$(O)-werror-$* BIN=$(O)-werror-$* CC=$* CFLAGS="$(strip $(CFLAGS) -Werror)" \
		all $(O)-werror-$*/tests/unit-tests

# --- fuzzing (clang's libFuzzer under ASan + UBSan; docs/testing.md) --------
#
# make fuzz [FUZZ_S=60] [FUZZ_TARGETS="pipeline expr"]: every target built into $(O)-fuzz
# (the whole tree with -fsanitize=fuzzer-no-link,address,undefined), its regression inputs
# (tests/fuzz/regress/TARGET/) replayed, then fuzzed FUZZ_S seconds from a corpus seeded
# by tests/fuzz/run.sh (samples/, fixtures, capbuild descriptions, expressions of the
# tests); executions and coverage per target in $(O)-fuzz/fuzz/report.txt.  A crash fails
# it, leaving the input in $(O)-fuzz/fuzz/crash-TARGET/.  make fuzz-regress replays only;
# make fuzz-cov measures the line coverage of the corpora (llvm-cov).
FUZZ_S ?= 60
FUZZ_TARGETS ?= reader pipeline python state format expr filter selector perfdata tracedat
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
FUZZ_AZ_SRC := tests/fuzz/fuzz-pipeline.c tests/fuzz/fuzz-python.c tests/fuzz/fuzz-state.c \
	tests/fuzz/fuzz-format.c tests/fuzz/fuzz-tracedat.c
$(call obj,$(FUZZ_AZ_SRC)): CFLAGS_ALL += $(TEP_CFLAGS) $(PY_CFLAGS)
$(call obj,$(FUZZ_AZ_SRC)): $(FLAGS_AZ_STAMP)

$(O)/fuzz/capfuzz-formats.c: tests/fuzz/gen-formats.sh $(wildcard tests/fixtures/*.desc) \
		$(wildcard tests/fixtures/formats/*.format)
	@mkdir -p $(dir $@)
	$(Q)sh tests/fuzz/gen-formats.sh tests/fixtures >$@.tmp && mv $@.tmp $@
$(O)/fuzz/capfuzz-formats.o: $(O)/fuzz/capfuzz-formats.c $(FLAGS_STAMP)
	$(QCC)$(CC) $(CFLAGS_ALL) -c -o $@ $<
FUZZ_CAP := $(call obj,tests/fuzz/capfuzz.c) $(O)/fuzz/capfuzz-formats.o
FUZZ_EXPR := $(call obj,tests/fuzz/exprenv.c)

# fuzz_target NAME,DEPS,LIBS: the libFuzzer target fuzz-NAME and fuzz-replay-NAME, the same
# entry point with a main() that runs the files it is given (tests/fuzz/replay-main.c): built
# by every build (any compiler, any SAN), so t209 replays tests/fuzz/regress/ in make check
# and make asan.
define fuzz_target
$(O)/tests/fuzz-$(1): $(call obj,tests/fuzz/fuzz-$(1).c) $(2)
	$$(QLD)$$(CC) $$(LDFLAGS_ALL) -fsanitize=fuzzer -o $$@ $$^ $(3)
$(O)/tests/fuzz-replay-$(1): $(call obj,tests/fuzz/replay-main.c tests/fuzz/fuzz-$(1).c) $(2)
	$$(QLD)$$(CC) $$(LDFLAGS_ALL) -o $$@ $$^ $(3)
endef
FUZZ_AZ_DEPS := $(FUZZ_CAP) $(LIBANALYZE) $(LIBPLAN) $(LIBFORMAT) $(LIBCOMMON)
$(eval $(call fuzz_target,reader,$(LIBFORMAT) $(LIBCOMMON),-lzstd -ldw -lelf -liberty -lm))
$(eval $(call fuzz_target,expr,$(FUZZ_EXPR) $(LIBCOMMON),-ldw -lelf -liberty -lm))
$(eval $(call fuzz_target,filter,$(FUZZ_EXPR) $(LIBCOMMON),-ldw -lelf -liberty -lm))
$(eval $(call fuzz_target,selector,$(LIBCOMMON),-lm))
$(eval $(call fuzz_target,pipeline,$(FUZZ_AZ_DEPS),$(ANALYZE_LIBS) $(PY_LIBS) -lm))
$(eval $(call fuzz_target,python,$(FUZZ_AZ_DEPS),$(ANALYZE_LIBS) $(PY_LIBS) -lm))
$(eval $(call fuzz_target,state,$(FUZZ_AZ_DEPS),$(ANALYZE_LIBS) $(PY_LIBS) -lm))
$(eval $(call fuzz_target,format,$(FUZZ_AZ_DEPS),$(ANALYZE_LIBS) $(PY_LIBS) -lm))
$(eval $(call fuzz_target,perfdata,$(FUZZ_AZ_DEPS),$(ANALYZE_LIBS) $(PY_LIBS) -lm))
$(eval $(call fuzz_target,tracedat,$(FUZZ_AZ_DEPS),$(ANALYZE_LIBS) $(PY_LIBS) -lm))
FUZZ_REPLAY := $(addprefix $(O)/tests/fuzz-replay-,reader pipeline state format expr filter selector perfdata \
	tracedat \
	$(if $(NO_PYTHON),,python))
all: $(FUZZ_REPLAY)
# capture -> seed program (not a fuzz target: a plain program of the same build)
$(O)/tests/fuzz-seed: $(call obj,tests/fuzz/fuzz-seed.c) $(FUZZ_CAP) $(LIBFORMAT) $(LIBCOMMON)
	$(QLD)$(CC) $(LDFLAGS_ALL) -o $@ $^ -lzstd -lm

fuzz-targets: $(addprefix $(O)/tests/fuzz-,$(FUZZ_TARGETS)) $(O)/tests/fuzz-seed \
	$(O)/tests/capbuild $(BIN)/pp-analyze
fuzz-build:
	$(MAKE) O=$(O)-fuzz BIN=$(O)-fuzz CC=clang SAN="$(FUZZ_SAN)" OPT="-O1 -g" \
		FUZZ_TARGETS="$(FUZZ_TARGETS)" fuzz-targets
fuzz: fuzz-build
	sh tests/fuzz/run.sh $(O)-fuzz $(FUZZ_S) $(FUZZ_TARGETS)
fuzz-regress: fuzz-build
	sh tests/fuzz/run.sh $(O)-fuzz 0 $(FUZZ_TARGETS)
# line coverage of what make fuzz left in its corpora (llvm-cov; tests/fuzz/cov.sh)
fuzz-cov:
	$(MAKE) O=$(O)-fuzzcov BIN=$(O)-fuzzcov CC=clang OPT="-O1 -g" \
		SAN="-fprofile-instr-generate -fcoverage-mapping" \
		$(addprefix $(O)-fuzzcov/tests/fuzz-replay-,$(FUZZ_TARGETS))
	sh tests/fuzz/cov.sh $(O)-fuzzcov $(O)-fuzz $(FUZZ_TARGETS)

clean: fuzz-clean
fuzz-clean:
	rm -rf $(O)-fuzz $(O)-fuzzcov

.PHONY: fuzz-targets fuzz-build fuzz-regress fuzz-cov fuzz-clean

static: $(call obj,$(RECORD_SRC)) $(LIBPLAN) $(LIBFORMAT) $(LIBCOMMON)
	$(CC) -static -o $(BIN)/pp-record.static $^ -lelf -lzstd -lz -llzma -lpthread

demo: deps-build
	@$(MAKE) all
	@sh tests/demo.sh

bench: all
	@sh tests/bench/run.sh

# --- man pages and bash completion (docs/man/, completion/) ----------------
#
# make man: pp(1), pp-record(1), pp-analyze(1), pp-capture(5) and pp-state(5) in $(O)/man/,
# from the templates docs/man/NAME.SECTION.in: prose written there, synopsis, options,
# commands and every analyzer from the programs' own help (--help-man=PART, the tables --help
# prints), pp-capture(5) and pp-state(5) from docs/capture-format.md and docs/state-format.md
# (docs/man/mkman.sh, md2man.awk).  The bash completion is one script, completion/pp;
# pp-record and pp-analyze beside it are links to it, so bash-completion finds it by each
# command's name.  make install takes $(MAN_PAGES) and $(COMPLETION).
MAN_IN := $(sort $(wildcard docs/man/*.[15].in))
MAN_PAGES := $(patsubst docs/man/%.in,$(O)/man/%,$(MAN_IN))
COMPLETION := completion/pp completion/pp-record completion/pp-analyze
$(O)/man/%: docs/man/%.in docs/man/mkman.sh $(PROGS)
	@mkdir -p $(dir $@)
	@echo "  MAN     $@"
	$(Q)sh docs/man/mkman.sh $(BIN) $< $@
$(O)/man/pp-capture.5: docs/capture-format.md docs/man/md2man.awk
$(O)/man/pp-state.5: docs/state-format.md docs/man/md2man.awk
man: $(MAN_PAGES)
all: man
# t703 renders the pages (groff, man -l)
DEB_TEST_PACKAGES += groff-base man-db
install-pp-record install-pp: $(MAN_PAGES)
.PHONY: man

# --- install and Debian packages (docs/install.md) --------------------------
#
# make install [PREFIX=/usr/local] [DESTDIR=]: the programs, the Python module, man pages,
# bash completion, docs and samples in their FHS places; make uninstall removes those files
# again (the man pages of $(MAN_PAGES) even after a make clean) and the empty directories of
# $(DOCDIR).  install-pp-record and install-pp are its two halves, one per Debian package
# (debian/rules); `programs` is what they install.  Man pages and completion are the files
# that exist when the recipe runs in $(MAN_DIRS) (NAME.1, NAME.5) and $(COMPLETION_SRC) (one
# bash-completion file per command, named after it): pp-record's go with install-pp-record,
# the others with install-pp.  A rule that generates them makes itself a prerequisite of
# programs, install-pp-record and install-pp.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/pp
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
# Debian's python3, not whichever is first on PATH: the module's file name (pp.cpython-311-...)
# and, outside /usr, its version's dist-packages (/usr/local/lib/python3.11/dist-packages is on
# Debian's sys.path, /usr/local/lib/python3/dist-packages is not).
PYTHON_INSTALL ?= $(firstword $(wildcard /usr/bin/python3) python3)
PY_EXT = $(shell $(PYTHON_INSTALL) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
PY_VER = $(shell $(PYTHON_INSTALL) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(PY_VER)/dist-packages)
MAN_DIRS := docs/man $(O)/man
COMPLETION_SRC := completion
DOC_FILES := README.md $(filter-out docs/man/%,$(wildcard docs/*.md docs/*/*.md)) \
	$(wildcard samples/*.* samples/*/*.*)
# recipe time: what the generators (if any) have made by then
EXTRAS = $(wildcard $(addsuffix /*.1,$(MAN_DIRS)) $(addsuffix /*.5,$(MAN_DIRS)) $(COMPLETION_SRC)/pp*)
REC_EXTRAS = $(filter %/pp-record.1 %/pp-record.5 $(COMPLETION_SRC)/pp-record,$(EXTRAS))
PP_EXTRAS = $(filter-out $(REC_EXTRAS),$(EXTRAS))
# dest FILE: where a file of the tree is installed (no $(DESTDIR))
dest = $(if $(filter $(addsuffix /%,$(MAN_DIRS)),$(1)),$(MANDIR)/man$(subst .,,$(suffix $(1)))/$(notdir $(1)),$(if \
	$(filter $(COMPLETION_SRC)/%,$(1)),$(COMPLETIONDIR)/$(notdir $(1)),$(DOCDIR)/$(1)))
# install-files MODE FILES: each FILE to $(DESTDIR)$(call dest,FILE)
install-files = $(Q)set -e; for p in $(foreach f,$(2),$(f):$(DESTDIR)$(call dest,$(f))); do \
	echo "  INSTALL $${p\#*:}"; install -D -m $(1) "$${p%%:*}" "$${p\#*:}"; done

programs: $(PROGS) $(PYMOD) $(MAN_PAGES)

install: install-pp-record install-pp

install-pp-record: $(BIN)/pp-record
	$(Q)echo "  INSTALL $(DESTDIR)$(BINDIR)/pp-record"
	$(Q)install -D -m 755 $(BIN)/pp-record $(DESTDIR)$(BINDIR)/pp-record
	$(call install-files,644,$(REC_EXTRAS))

install-pp: $(BIN)/pp $(BIN)/pp-analyze $(PYMOD)
	$(Q)echo "  INSTALL $(DESTDIR)$(BINDIR)/pp $(DESTDIR)$(BINDIR)/pp-analyze"
	$(Q)install -D -m 755 $(BIN)/pp $(DESTDIR)$(BINDIR)/pp
	$(Q)install -D -m 755 $(BIN)/pp-analyze $(DESTDIR)$(BINDIR)/pp-analyze
ifneq ($(PYMOD),)
	$(Q)echo "  INSTALL $(DESTDIR)$(PYTHONDIR)/pp$(PY_EXT)"
	$(Q)install -D -m 644 $(PYMOD) $(DESTDIR)$(PYTHONDIR)/pp$(PY_EXT)
endif
	$(call install-files,644,$(PP_EXTRAS) $(DOC_FILES))

uninstall:
	$(Q)for f in $(addprefix $(DESTDIR),$(addprefix $(BINDIR)/,pp pp-record pp-analyze) \
		$(if $(PY_EXT),$(PYTHONDIR)/pp$(PY_EXT)) \
		$(foreach f,$(sort $(EXTRAS) $(MAN_PAGES)) $(DOC_FILES),$(call dest,$(f)))); do \
		if [ -e "$$f" ] || [ -L "$$f" ]; then echo "  RM      $$f"; rm -f "$$f"; fi; done
	$(Q)if [ -d $(DESTDIR)$(DOCDIR) ]; then find $(DESTDIR)$(DOCDIR) -depth -type d -empty -delete; fi

# make deb: dpkg-buildpackage -b in a copy of the tree ($(DEB_OUT)/pp-VERSION: its clean never
# touches this tree), the packages beside it, then lintian (errors fail).  The version is
# common/version.h's, which debian/changelog must match; the commit is this tree's PP_COMMIT.
PP_RELEASE := $(shell sed -n 's/^\#define PP_VERSION "\(.*\)"$$/\1/p' common/version.h)
DEB_OUT := $(O)/deb
DEB_SRC := $(DEB_OUT)/pp-$(PP_RELEASE)
DEB_TOOLS := dpkg-dev debhelper dh-python fakeroot lintian
# what the package build must not inherit from this make (MAKEFLAGS carries O=, BIN= ...)
DEB_UNSET := MAKEFLAGS MFLAGS MAKELEVEL O BIN OPT SAN NO_PYTHON CC CFLAGS CPPFLAGS LDFLAGS

deb-deps:
	@if [ "$$(id -u)" != 0 ]; then SUDO=sudo; fi; missing=""; \
	for p in $(DEB_TOOLS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null || exit 1; \
	fi; \
	if ! dpkg-checkbuilddeps >/dev/null 2>&1; then \
		echo "installing the Build-Depends of debian/control"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get build-dep -y -qq ./ >/dev/null || exit 1; \
	fi

deb: deb-deps
	$(Q)rm -rf $(DEB_OUT) && mkdir -p $(DEB_SRC)
	$(Q)tar -cf - --exclude=./.git --exclude=./build --exclude='./build-*' --exclude='./$(O)' \
		$(addprefix --exclude=./,pp pp-record pp-analyze pp-record.static pp.capture) . | \
		tar -C $(DEB_SRC) -xf -
	$(Q)v=$$(cd $(DEB_SRC) && dpkg-parsechangelog -S Version); [ "$$v" = "$(PP_RELEASE)" ] || \
		{ echo "debian/changelog says $$v, common/version.h $(PP_RELEASE)"; exit 1; }
	$(Q)cd $(DEB_SRC) && env $(addprefix -u ,$(DEB_UNSET)) dpkg-buildpackage -b -us -uc -J$$(nproc)
	$(Q)lintian $(DEB_OUT)/*.changes
	$(Q)ls -l $(DEB_OUT)/*.deb

.PHONY: programs install install-pp-record install-pp uninstall deb-deps deb

# $(O), the binaries in $(BIN), the werror builds beside $(O); for the default O, make asan's too
clean:
	rm -rf $(O) $(addprefix $(O)-werror-,$(WERROR_CCS)) \
		$(addprefix $(BIN)/,pp-record pp-analyze pp pp-record.static)
ifeq ($(O),build)
	rm -rf build-asan
endif

.PHONY: all deps deps-build tree unit integration check check-busy test asan werror soak $(addprefix werror-,$(WERROR_CCS)) \
	fuzz static demo bench clean FORCE

-include $(shell find $(O) -name '*.d' 2>/dev/null)

# pp-analyze's perf.data import: the syscall table of the build machine (analyze/import/)
$(O)/analyze/import/perfdata.o $(O)/pic/analyze/import/perfdata.o: $(O)/gen/syscalls.h
$(O)/analyze/import/perfdata.o $(O)/pic/analyze/import/perfdata.o: CFLAGS_ALL += -I$(O)
