# quadx - build, test, benchmark and install.
#   make            build ./quadx (GPU backend when nvcc is found, else a CPU-only build)
#   make run        build and start the explorer
#   make test       build and run every test (no GPU needed; GPU tests skip), every step to its
#                   end, then every failure again and `N passed, N failed`
#   make test-gpu   the GPU tests, on a machine with a GPU
#   make test-asan / test-valgrind / fuzz   parts of make test (see below)
#   make fuzz-long  the fuzzers until 10^7 executions in all (not part of make test)
#   make bench      the benchmark tables: every section of the bench kit, src/bench/ (GPU machine);
#                   BENCH=NAME one problem, QUADX_BENCH_ONLY=gpus the GPU scaling tables alone
#   make format-check  the sources against .clang-format (part of make test)
#   make install PREFIX=/usr/local

PREFIX   ?= /usr/local
comma    := ,
.DEFAULT_GOAL := all
CC       ?= gcc
CUDA_HOME ?= /usr/local/cuda
NVCC     ?= $(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; })
PYTHON   ?= python3
BUILD    ?= build
BIN      ?= quadx

# Debian/Ubuntu packages the build and the tests need.
BUILD_PKGS := gcc make pkg-config libreadline-dev libncurses-dev libcmocka-dev libcjson-dev libgsl-dev libsleef-dev libfftw3-dev \
              libcubature-dev librandom123-dev
TEST_PKGS  := python3 tmux gnuplot-nox valgrind clang libclang-rt-dev

WARN     := -Wall -Wextra -Werror -Wno-format-truncation
CFLAGS   ?= -O2 -g
override CFLAGS += -std=c11 -D_GNU_SOURCE $(WARN) -fopenmp -pthread -MMD -MP
LDLIBS   := -lreadline -lncursesw -lcjson -lcubature -lgsl -lgslcblas -lsleef -lfftw3 -lm -ldl -fopenmp -pthread

SRC      := $(wildcard src/*.c src/problems/*.c src/problems/*/*.c src/expr/*.c src/expr/*.S \
            src/gpujit/*.c)
MAIN_SRC := src/main.c
# The bench kit (src/bench/): `make bench`'s sections, a client of the session linked into
# $(BUILD)/quadx-bench only (never into quadx), with its main and the results file's text.
BENCH_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard src/bench/*.c))
# A cuda/.../NAME.lto.cu holds kernels that are linked at run time with a user's integrand
# (src/gpujit): nvcc compiles it to a fatbin of LTO-IR, $(BUILD)/.../NAME.fatbin, which
# cuda/lto_embed.S embeds into the binary as the bytes qx_lto_NAME .. qx_lto_NAME_end
# (GPUJIT_FATBIN_DECLARE in src/gpujit/gpujit.h); the normal .cu rule leaves these files alone.
LTO_SRC  := $(filter %.lto.cu,$(wildcard cuda/*.cu cuda/*/*.cu))
# A problem's folder may add build rules of its own in cuda/NAME/build.mk: sources the rule
# below must leave alone (CU_OWN_RULES), objects to link (CU_OWN_OBJ, GPU builds only).
CU_OWN_RULES :=
CU_OWN_OBJ   :=
include $(wildcard cuda/*/build.mk)
CU_SRC   := $(filter-out %.lto.cu $(CU_OWN_RULES),$(wildcard cuda/*.cu cuda/*/*.cu))

ifneq ($(strip $(NVCC)),)
  GPU_BUILD  := yes
  override CFLAGS += -DQX_HAVE_CUDA -isystem $(CUDA_HOME)/include
  LIB_SRC    := $(filter-out $(MAIN_SRC) src/gpu_none.c src/gpujit/gpujit_none.c,$(SRC))
  CU_OBJ     := $(CU_SRC:%.cu=$(BUILD)/%.o) $(LTO_SRC:%.lto.cu=$(BUILD)/%.fatbin.o) $(CU_OWN_OBJ)
  NVCCFLAGS  ?= -O3 -std=c++17 -lineinfo
  # The kernels' machine code for each of CUDA_ARCHS and PTX for CUDA_PTX (none when empty),
  # which the driver compiles for later GPUs. .ci/run builds for sm_80 alone where there is no
  # GPU (what runs there is the host code; the kernels compile all the same).
  CUDA_ARCHS ?= 80 90
  CUDA_PTX   ?= $(lastword $(CUDA_ARCHS))
  CUDA_GENCODE := $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
                $(if $(strip $(CUDA_PTX)),-gencode arch=compute_$(CUDA_PTX)$(comma)code=compute_$(CUDA_PTX))
  # The objects' architectures, in $(CUDA_STAMP), rewritten as make starts (not by make -n)
  # only when CUDA_GENCODE changes, which then makes the objects again; written first as of 1970
  # (objects older than the file were made for the default architectures, all there was).
  CUDA_STAMP := $(BUILD)/.cuda-gencode
  $(if $(findstring n,$(firstword -$(MAKEFLAGS))),,$(shell mkdir -p $(BUILD) && { [ -e $(CUDA_STAMP) ] || { echo '$(CUDA_GENCODE)' > $(CUDA_STAMP) \
    && touch -d @0 $(CUDA_STAMP); }; } && { echo '$(CUDA_GENCODE)' | cmp -s - $(CUDA_STAMP) || \
    echo '$(CUDA_GENCODE)' > $(CUDA_STAMP); }))
  # LTO-IR for sm_80 and sm_90 (nvJitLink also links it for later GPUs); code=lto_XX is what
  # asks for LTO-IR (nvcc refuses -dlto beside -gencode).
  LTO_NVCCFLAGS := $(NVCCFLAGS) -rdc=true -fatbin -gencode arch=compute_80,code=lto_80 \
                -gencode arch=compute_90,code=lto_90 -Xcompiler -Wall,-Wextra,-Werror
  NVCCFLAGS  += $(CUDA_GENCODE) -Xcompiler -Wall,-Wextra,-Werror -MMD -MP
  LDLIBS     += -L$(CUDA_HOME)/lib64 -lcufft -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart_static -lstdc++ -ldl -lrt -lpthread
else
  GPU_BUILD  := no
  LIB_SRC    := $(filter-out $(MAIN_SRC) src/gpujit/gpujit.c,$(SRC))
  CU_OBJ     :=
endif

# The CUDA objects first: make -j starts their long compiles first (the rule's kernels, most of
# the build's time, before all), the C ones fill the gaps.
CU_OBJ   := $(filter %/rule_launch.o,$(CU_OBJ)) $(filter-out %/rule_launch.o,$(CU_OBJ))
LIB_OBJ  := $(CU_OBJ) $(patsubst %,$(BUILD)/%.o,$(basename $(LIB_SRC)))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all run test test-unit test-script test-asan test-valgrind fuzz fuzz-build fuzz-long test-gpu \
	asan-build valgrind-build valgrind-cover \
	bench install deps \
	clean announce format-check

all: announce $(BIN)

announce:
ifeq ($(GPU_BUILD),yes)
	@echo "quadx: GPU build with $(NVCC) ($(foreach a,$(CUDA_ARCHS),sm_$(a))$(if $(strip \
	  $(CUDA_PTX)), + PTX $(CUDA_PTX)), static cudart)"
else
	@echo "quadx: CPU-only build: nvcc was not found (set NVCC=/path/to/nvcc for the GPU backend)"
endif

# Installs missing packages with apt-get when root; otherwise stops with the install line.
$(BUILD)/.deps-ok:
	@missing=""; for p in $(BUILD_PKGS) $(TEST_PKGS); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "quadx: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing || exit 1; \
	  else \
	    echo "quadx: missing packages; install them with:"; \
	    echo "  sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi
	@mkdir -p $(BUILD) && touch $@

deps: $(BUILD)/.deps-ok

$(BIN): $(BUILD)/.deps-ok $(BUILD)/src/main.o $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $(BUILD)/src/main.o $(LIB_OBJ) $(LDLIBS)

$(BUILD)/quadx-bench: $(BENCH_OBJ) $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# An assembly file embeds the bytes of a file (.incbin, a path from the repository's root).
$(BUILD)/%.o: %.S | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) -c -MMD -MP -o $@ $<
$(BUILD)/src/expr/reduced_math_text.o: src/expr/reduced_math.h

# A .cu file may ask for flags of its own in a line `// nvccflags: FLAGS` (e.g. -fmad=false: no
# contraction into fmas, where the GPU must do the CPU's arithmetic).
$(BUILD)/%.o: %.cu $(CUDA_STAMP) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(shell sed -n 's|^// nvccflags: ||p' $<) -c -o $@ $<

# A NAME.lto.cu (see LTO_SRC) to its fatbin of LTO-IR, with the `// nvccflags:` line too.
$(BUILD)/%.fatbin: %.lto.cu | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(NVCC) $(LTO_NVCCFLAGS) $(shell sed -n 's|^// nvccflags: ||p' $<) -MMD -MP -MF $@.d -MT $@ \
	  -o $@ $<

# The fatbins stay for inspection (cuobjdump) and so that a make -n shows nothing to redo.
.PRECIOUS: $(BUILD)/%.fatbin

# A fatbin into an object that exports it as qx_lto_NAME .. qx_lto_NAME_end; NAME must be a C
# identifier, and unique among the .lto.cu files linked together.
$(BUILD)/%.fatbin.o: $(BUILD)/%.fatbin cuda/lto_embed.S
	@case '$(notdir $*)' in *[!A-Za-z0-9_]* | [0-9]*) \
	  echo "$*.lto.cu: the name before .lto.cu must be a C identifier"; exit 1;; esac
	$(CC) -c -x assembler-with-cpp -DQX_LTO_NAME=qx_lto_$(notdir $*) -DQX_LTO_FILE='"$<"' \
	  -o $@ cuda/lto_embed.S

# A unit test links the library and the objects its own line below adds (test kernels).
$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJ) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.c %.o,$^) -lcmocka $(LDLIBS)

$(BUILD)/tests/test_benchfile: $(BUILD)/src/bench/benchfile.o
ifeq ($(GPU_BUILD),yes)
$(BUILD)/tests/test_gpujit: $(BUILD)/tests/unit/gpujit_kernel.fatbin.o
endif

run: all
	./quadx

test-unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done

test-script: all
	$(PYTHON) tests/script_test.py

# The GPU tests: every tests/*gpu*_test.py but the one that hides the GPU (nogpu_test.py);
# each skips cleanly without a GPU.
GPU_TESTS    := $(filter-out tests/nogpu_test.py,$(sort $(wildcard tests/*gpu*_test.py)))
# The Python tests of the binary; each skips what needs a GPU, tmux or a fault build it lacks.
SCRIPT_TESTS := tests/script_test.py tests/sweep_test.py tests/repl_test.py tests/tui_test.py \
	tests/reliability_test.py $(GPU_TESTS)
# Every other tests/*_test.py (a problem's own tests, tests/NAME_test.py), found by the glob.
OTHER_TESTS  := $(filter-out $(SCRIPT_TESTS) tests/nogpu_test.py tests/qxtest_test.py,\
	$(sort $(wildcard tests/*_test.py)))

# make test: the builds the tests need start at once, each a make of its own (tests/runner.py
# --build): the release binary (then its unit tests, build unit), and the ASan, valgrind and
# fuzzing builds. Every step below starts as soon as the build it needs has passed (the ASan,
# valgrind and fuzzing tests while the release build's CUDA objects still compile), TEST_JOBS
# at a time, in the order of TEST_STEPS (the longest first); each runs to its end though
# another failed; a failed build fails with what needs it, which does not run. At the end each
# failure is shown again, then `make test: N passed, N failed`; any failure fails make test.
# TEST_JOBS is one more than the processors by default: several steps spend most of their time
# waiting (on a terminal under tmux, a timer, a child), and one more keeps the processors busy.
# The release build, the longest, on which most steps wait, runs twice as many jobs as the
# others: on a machine shared with other work it gets the larger part of the processors.
TEST_JOBS  ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
# A step or build still running after TEST_TIMEOUT seconds (five times the longest, the
# release build, on a loaded 2-core machine) is stopped with all it started and run once more:
# failing again it fails, passing it is named in the summary with what was running. A hung
# test never keeps make test from ending, and never goes unreported. TEST_DEADLINE seconds after
# the steps began (CI's limit less the packages and a margin) every step still running is
# stopped and none starts, and the summary comes.
TEST_TIMEOUT ?= 1500
TEST_DEADLINE ?= 4500
RELEASE_JOBS ?= $(shell echo $$(( $(TEST_JOBS) * 2 )))
TEST_BUILDS = --build release "$(MAKE) --no-print-directory --output-sync=target -k \
	  -j$(RELEASE_JOBS) all" \
	--build unit "@release $(MAKE) --no-print-directory --output-sync=target -k \
	  -j$(RELEASE_JOBS) $(UNIT_BIN)" \
	$(foreach b,asan valgrind fuzz,--build $(b) "$(MAKE) --no-print-directory -k -j$(TEST_JOBS) \
	  $(b)-build")
# The steps, `@BUILD COMMAND` for one that needs BUILD: first those that need no build, then the
# longest of the short builds' (ASan, valgrind, fuzzing), the longest of the release build's,
# then the rest of each (the runner starts the first in this order whose build has passed).
NOBUILD_TESTS := tests/includes_test.py tests/runner_test.py
LONG_ASAN     := tests/reliability_test.py unit/test_problems tests/repl_test.py tests/tui_test.py
LONG_RELEASE  := tests/reliability_test.py tests/repl_test.py unit/test_problems \
	tests/longman_user_test.py tests/tui_test.py tests/script_test.py
RELEASE_TESTS := $(filter-out $(NOBUILD_TESTS),tests/qxtest_test.py $(SCRIPT_TESTS) \
	tests/nogpu_test.py $(OTHER_TESTS)) $(UNIT_SRC:tests/unit/%.c=unit/%)
ASAN_TESTS    := $(SCRIPT_TESTS) tests/nogpu_test.py $(UNIT_SRC:tests/unit/%.c=unit/%)
# the words of $(1) that are in $(2), in $(1)'s order
in_order      = $(foreach t,$(1),$(filter $(t),$(2)))
asan_step     = $(if $(filter unit/%,$(1)),"@asan $(ASAN_DIR)/tests/$(1:unit/%=%)",\
	"@asan $(MAKE) --no-print-directory asan-step/$(1)")
release_step  = $(if $(filter unit/%,$(1)),"@unit $(BUILD)/tests/$(1:unit/%=%)",\
	$(if $(filter tests/nogpu_test.py,$(1)),"@release CUDA_VISIBLE_DEVICES= $(PYTHON) $(1)",\
	"@release $(PYTHON) $(1)"))
TEST_STEPS  = "$(MAKE) --no-print-directory format-check" $(NOBUILD_TESTS:%="$(PYTHON) %") \
	$(VG_TESTS:%="@valgrind $(MAKE) --no-print-directory valgrind-step/%") \
	$(foreach t,$(call in_order,$(LONG_ASAN),$(ASAN_TESTS)),$(call asan_step,$(t))) \
	"@fuzz $(MAKE) --no-print-directory fuzz" \
	$(foreach t,$(call in_order,$(LONG_RELEASE),$(RELEASE_TESTS)),$(call release_step,$(t))) \
	$(foreach t,$(filter-out $(LONG_ASAN),$(ASAN_TESTS)),$(call asan_step,$(t))) \
	$(foreach t,$(filter-out $(LONG_RELEASE),$(RELEASE_TESTS)),$(call release_step,$(t)))
# The packages are installed first, once.
# OpenMP's threads wait passively: on a loaded machine a thread spinning for a descheduled peer
# burns the processor time the other steps need (a unit test took ten times its CPU so).
test: export OMP_WAIT_POLICY := passive
test: deps
	@$(PYTHON) tests/runner.py -j $(TEST_JOBS) --timeout $(TEST_TIMEOUT) \
	  --deadline $(TEST_DEADLINE) $(TEST_BUILDS) \
	  $(TEST_STEPS)

# The C and CUDA sources against the repository's .clang-format; any difference fails.
FORMAT_SRC := $(wildcard src/*.[ch] src/*/*.[ch] src/*/*/*.[ch] cuda/*.cu cuda/*.cuh cuda/*.h cuda/*/*.cu \
	cuda/*/*.cuh cuda/*/*.h tests/unit/*.[ch] tests/unit/*.cu tests/fuzz/*.[ch])
format-check:
	clang-format --dry-run -Werror $(FORMAT_SRC)

# Test builds compile in fault injection (QUADX_FAULT, src/fault.h); release builds do not.
FAULTS := -DQX_FAULT_INJECTION
FAULT_BIN := build/faults/quadx

# The whole suite again on a CPU-only build with AddressSanitizer and UndefinedBehaviorSanitizer
# and fault injection; any report fails the test. One step a test file (the unit tests one step
# together), so that make test runs them side by side.
ASAN_DIR := build/asan
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_STEPS := asan-step/tests/script_test.py asan-step/unit \
	$(filter-out asan-step/tests/script_test.py,$(SCRIPT_TESTS:%=asan-step/%)) \
	asan-step/tests/nogpu_test.py
asan-build:
	@$(MAKE) --no-print-directory BUILD=$(ASAN_DIR) BIN=$(ASAN_DIR)/quadx NVCC= \
	  CFLAGS="-O1 -g $(SAN) $(FAULTS)" LDFLAGS="$(SAN)" $(ASAN_DIR)/quadx \
	  $(UNIT_SRC:tests/unit/%.c=$(ASAN_DIR)/tests/%)
test-asan: asan-build
	@$(MAKE) --no-print-directory -k $(ASAN_STEPS)
asan-step/unit: asan-build
	@bad=""; for t in $(UNIT_SRC:tests/unit/%.c=$(ASAN_DIR)/tests/%); do echo "== asan $$t"; \
	  $$t || bad="$$bad $$t"; done; \
	if [ -n "$$bad" ]; then echo "asan: failed:$$bad"; exit 1; fi
asan-step/tests/nogpu_test.py: asan-build
	@echo "== asan tests/nogpu_test.py"; CUDA_VISIBLE_DEVICES= QUADX=$(ASAN_DIR)/quadx \
	  QUADX_HELPDIR=help $(PYTHON) tests/nogpu_test.py
asan-step/%: asan-build
	@echo "== asan $*"; QUADX=$(ASAN_DIR)/quadx QUADX_HELPDIR=help QUADX_REQUIRE_FAULTS=1 \
	  $(PYTHON) $*

# The script and sweep/export/plot tests once under valgrind memcheck on a CPU-only build (-O1,
# fault injection): any error or definite/indirect leak fails; tests/valgrind.supp silences
# third-party libraries only. Every test runs whole, through tests/valgrind_run.py, its quadx
# processes through tests/valgrind-quadx: those tests/valgrind_cover.txt picks under valgrind
# (one log per process; absolute paths: some tests run quadx in other directories or PATHs), the
# others without. The picked processes run every line of quadx that all of them run (gcov);
# a test the file does not name runs every process under valgrind. `make valgrind-cover` picks
# them again (after adding or changing a test of VG_TESTS).
VG_DIR   := build/valgrind
VG_TESTS := tests/script_test.py tests/sweep_test.py
valgrind-build:
	@$(MAKE) --no-print-directory BUILD=$(VG_DIR) BIN=$(VG_DIR)/quadx NVCC= \
	  CFLAGS="-O1 -g $(FAULTS)" $(VG_DIR)/quadx
test-valgrind: valgrind-build
	@$(MAKE) --no-print-directory -k $(VG_TESTS:%=valgrind-step/%)
# One test file under valgrind, with a log directory of its own (make test runs them side by
# side): fails on the file's failure or on any report.
valgrind-step/%: valgrind-build
	@logs=$(CURDIR)/$(VG_DIR)/logs/$(notdir $*); rm -rf $$logs && mkdir -p $$logs; \
	echo "== valgrind $*"; failed=""; \
	QUADX=$(CURDIR)/tests/valgrind-quadx QUADX_VG="$$(command -v valgrind)" \
	  QUADX_VG_BIN=$(CURDIR)/$(VG_DIR)/quadx QUADX_VG_LOGS=$$logs \
	  QUADX_HELPDIR=$(CURDIR)/help $(PYTHON) tests/valgrind_run.py $* || failed=yes; \
	n=$$(ls $$logs | wc -l); bad=$$(find $$logs -type f -size +0 | sort); \
	if [ -n "$$bad" ]; then head -60 $$bad; echo "valgrind: reports in $$bad"; exit 1; fi; \
	if [ -n "$$failed" ]; then echo "valgrind: $* failed"; exit 1; fi; \
	echo "valgrind: $*: $$n quadx processes, no errors and no definite or indirect leaks"

# tests/valgrind_cover.txt again, from a build with gcov's counters (CPU-only, -O0, fault
# injection, in build/gcov): each test of VG_TESTS alone, each process's lines apart.
GCOV_DIR := build/gcov
valgrind-cover:
	@$(MAKE) --no-print-directory BUILD=$(GCOV_DIR) BIN=$(GCOV_DIR)/quadx NVCC= \
	  CFLAGS="-O0 -g --coverage $(FAULTS)" LDFLAGS="--coverage" $(GCOV_DIR)/quadx
	QUADX_HELPDIR=$(CURDIR)/help $(PYTHON) tests/valgrind_cover.py $(GCOV_DIR) \
	  tests/valgrind_cover.txt $(VG_TESTS)

# libFuzzer harnesses (tests/fuzz/fuzz_*.c) built with clang, ASan and UBSan, each run for
# FUZZ_SECONDS from its committed seed corpus tests/fuzz/corpus/NAME (new inputs go to
# build/fuzz/corpus/NAME); a crash leaves its input in build/fuzz/ and fails.
# tests/fuzz/lsan.supp silences a leak inside LLVM's OpenMP runtime only.
FUZZ_DIR     := build/fuzz
FUZZ_SECONDS ?= 20
FUZZERS      := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
fuzz-build:
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_DIR) NVCC= CC=clang WARN="-Wall -Wextra -Werror" \
	  CFLAGS="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN) $(FAULTS)" LDFLAGS="$(FUZZ_SAN)" \
	  $(FUZZERS:%=$(FUZZ_DIR)/fuzz/%)
fuzz: fuzz-build
	@set -e; total=0; for f in $(FUZZERS); do mkdir -p $(FUZZ_DIR)/corpus/$$f; \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp \
	  $(FUZZ_DIR)/fuzz/$$f -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=4096 \
	    -artifact_prefix=$(FUZZ_DIR)/$$f- $(FUZZ_DIR)/corpus/$$f tests/fuzz/corpus/$$f \
	    < /dev/null > $(FUZZ_DIR)/$$f.log 2>&1 || { tail -40 $(FUZZ_DIR)/$$f.log; exit 1; }; \
	  runs=$$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' $(FUZZ_DIR)/$$f.log | tail -n 1); \
	  echo "fuzz: $$f: $$runs executions in $(FUZZ_SECONDS) s, no crash"; \
	  total=$$((total + runs)); done; echo "fuzz: $$total executions in total"

# make fuzz-long: every harness there is (FUZZERS), FUZZ_JOBS processes of each side by side,
# in rounds of FUZZ_ROUND_SECONDS from the corpora grown so far, until they have run
# FUZZ_LONG_RUNS executions in all with no finding; prints each round and the total's count,
# time and date. Not part of make test (hours on a small loaded machine; set FUZZ_JOBS to about
# the processors over the harnesses). NOBUILD=1 runs harnesses built elsewhere.
FUZZ_LONG_RUNS     ?= 10000000
FUZZ_ROUND_SECONDS ?= 300
FUZZ_JOBS          ?= 1
fuzz-long: $(if $(filter 1,$(NOBUILD)),,fuzz-build)
	@FUZZ_DIR=$(FUZZ_DIR) FUZZ_JOBS=$(FUZZ_JOBS) \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp \
	  sh tests/fuzz/long.sh $(FUZZ_LONG_RUNS) $(FUZZ_ROUND_SECONDS) $(FUZZERS)

# A harness: one file of tests/fuzz with tests/fuzz/common.c and libFuzzer's main (built inside
# `make fuzz`); session_run is wrapped so that only tiny runs start, export_session,
# export_values and plot_sweep so that files are written only into the harness's temporary
# directory.
$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/common.c tests/fuzz/common.h $(LIB_OBJ) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -fsanitize=fuzzer $(LDFLAGS) \
	  -Wl,--wrap=session_run,--wrap=export_session,--wrap=export_values,--wrap=plot_sweep \
	  -o $@ $< tests/fuzz/common.c $(LIB_OBJ) $(LDLIBS)

# NOBUILD=1 runs what was built elsewhere (the lent GPU machine has no headers to build with).
ifeq ($(NOBUILD),1)
BUILT :=
else
BUILT := all $(UNIT_BIN) $(BUILD)/quadx-bench
endif

test-gpu: $(BUILT) $(if $(BUILT),$(FAULT_BIN))
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; QUADX_REQUIRE_GPU=1 $$t; done
	@set -e; for t in $(GPU_TESTS); do echo "== $$t"; \
	  QUADX_REQUIRE_GPU=1 QUADX_FAULTS_BIN=$(FAULT_BIN) $(PYTHON) $$t; done

# The GPU build with fault injection, for the GPU fault tests: the C sources compiled again
# with the define, linked with the same CUDA objects (their hook calls qx_fault()).
$(FAULT_BIN): $(SRC) $(wildcard src/*.h src/*/*.h src/*/*/*.h) $(CU_OBJ) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) $(FAULTS) -o $@ src/main.c $(LIB_SRC) $(CU_OBJ) \
	  $(LDLIBS)

# The tables go into the results file BENCH_OUT, each problem's under its `## NAME` heading
# with the device, the date and the commit (help performance shows it); BENCH=NAME... runs
# those problems only, their sections replaced and the others kept.
BENCH_OUT ?= help/performance.txt
bench: $(BUILT)
	QUADX_BENCH_COMMIT=$$(git rev-parse --short HEAD 2>/dev/null || echo unknown) \
	  $(BUILD)/quadx-bench -o $(BENCH_OUT) $(BENCH)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/quadx/help
	install -m 755 quadx $(DESTDIR)$(PREFIX)/bin/quadx
	install -m 644 help/*.txt $(DESTDIR)$(PREFIX)/share/quadx/help/

clean:
	rm -rf $(BUILD) quadx

# Each make reads its build's dependency files, not those of the builds inside build/ (their own
# make reads them); the ASan, valgrind and fuzzing builds and make test's steps read none of the
# release build's, which its make may be writing as they start.
SIDE_GOALS := asan-build valgrind-build fuzz-build asan-step/% valgrind-step/% fuzz format-check
ifneq ($(if $(MAKECMDGOALS),$(filter-out $(SIDE_GOALS),$(MAKECMDGOALS)),all),)
-include $(shell find $(BUILD) $(foreach d,$(filter-out $(BUILD),$(ASAN_DIR) $(VG_DIR) $(FUZZ_DIR) \
	$(GCOV_DIR) $(dir $(FAULT_BIN))),-path $(d:%/=%) -prune -o) -name '*.d' -print 2>/dev/null)
endif
