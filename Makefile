# quadx - build, test, benchmark and install.
#   make            build ./quadx (GPU backend when nvcc is found, else a CPU-only build)
#   make run        build and start the explorer
#   make test       build and run every test (no GPU needed; GPU tests skip)
#   make test-gpu   the GPU tests, on a machine with a GPU
#   make test-asan / test-valgrind / fuzz   parts of make test (see below)
#   make fuzz-long  the fuzzers until 10^7 executions in all (not part of make test)
#   make bench      the benchmark tables: every problem's bench hook (GPU machine)
#   make format-check  the sources against .clang-format (part of make test)
#   make install PREFIX=/usr/local

PREFIX   ?= /usr/local
CC       ?= gcc
CUDA_HOME ?= /usr/local/cuda
NVCC     ?= $(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; })
PYTHON   ?= python3
BUILD    ?= build
BIN      ?= quadx

# Debian/Ubuntu packages the build and the tests need.
BUILD_PKGS := gcc make pkg-config libreadline-dev libncurses-dev libcmocka-dev libcjson-dev libgsl-dev libsleef-dev libfftw3-dev \
              libcubature-dev
TEST_PKGS  := python3 tmux gnuplot-nox valgrind clang libclang-rt-dev

WARN     := -Wall -Wextra -Werror -Wno-format-truncation
CFLAGS   ?= -O2 -g
override CFLAGS += -std=c11 -D_GNU_SOURCE $(WARN) -fopenmp -pthread -MMD -MP
LDLIBS   := -lreadline -lncursesw -lcjson -lcubature -lgsl -lgslcblas -lsleef -lfftw3 -lm -fopenmp -pthread

SRC      := $(wildcard src/*.c src/problems/*.c)
MAIN_SRC := src/main.c src/bench.c
CU_SRC   := $(wildcard cuda/*.cu)

ifneq ($(strip $(NVCC)),)
  GPU_BUILD  := yes
  override CFLAGS += -DQX_HAVE_CUDA
  LIB_SRC    := $(filter-out $(MAIN_SRC) src/gpu_none.c,$(SRC))
  CU_OBJ     := $(CU_SRC:%.cu=$(BUILD)/%.o)
  NVCCFLAGS  ?= -O3 -std=c++17 -lineinfo
  NVCCFLAGS  += -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
                -gencode arch=compute_90,code=compute_90 -Xcompiler -Wall,-Wextra,-Werror -MMD -MP
  LDLIBS     += -L$(CUDA_HOME)/lib64 -lcufft -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart_static -lstdc++ -ldl -lrt -lpthread
else
  GPU_BUILD  := no
  LIB_SRC    := $(filter-out $(MAIN_SRC),$(SRC))
  CU_OBJ     :=
endif

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(CU_OBJ)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all run test test-unit test-script test-asan test-valgrind fuzz fuzz-build fuzz-long test-gpu \
	bench install deps \
	clean announce format-check

all: announce $(BIN)

announce:
ifeq ($(GPU_BUILD),yes)
	@echo "quadx: GPU build with $(NVCC) (sm_80, sm_90 + PTX, static cudart)"
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

$(BUILD)/quadx-bench: $(BUILD)/src/bench.o $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# A .cu file may ask for flags of its own in a line `// nvccflags: FLAGS` (e.g. -fmad=false: no
# contraction into fmas, where the GPU must do the CPU's arithmetic).
$(BUILD)/%.o: %.cu | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(shell sed -n 's|^// nvccflags: ||p' $<) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJ) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJ) -lcmocka $(LDLIBS)

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

test: all format-check test-unit test-script test-asan test-valgrind fuzz
	$(PYTHON) tests/qxtest_test.py
	$(PYTHON) tests/sweep_test.py
	$(PYTHON) tests/repl_test.py
	$(PYTHON) tests/tui_test.py
	$(PYTHON) tests/reliability_test.py
	CUDA_VISIBLE_DEVICES= $(PYTHON) tests/nogpu_test.py
	@set -e; for t in $(OTHER_TESTS); do echo "== $$t"; $(PYTHON) $$t; done
	@set -e; for t in $(GPU_TESTS); do echo "== $$t"; $(PYTHON) $$t; done

# The C and CUDA sources against the repository's .clang-format; any difference fails.
FORMAT_SRC := $(wildcard src/*.[ch] src/problems/*.[ch] cuda/*.cu cuda/*.cuh cuda/*.h \
	tests/unit/*.[ch] tests/fuzz/*.[ch])
format-check:
	clang-format --dry-run -Werror $(FORMAT_SRC)

# Test builds compile in fault injection (QUADX_FAULT, src/fault.h); release builds do not.
FAULTS := -DQX_FAULT_INJECTION
FAULT_BIN := build/faults/quadx

# The whole suite again on a CPU-only build with AddressSanitizer and UndefinedBehaviorSanitizer
# and fault injection; any report fails the test.
ASAN_DIR := build/asan
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
test-asan:
	@$(MAKE) --no-print-directory BUILD=$(ASAN_DIR) BIN=$(ASAN_DIR)/quadx NVCC= \
	  CFLAGS="-O1 -g $(SAN) $(FAULTS)" LDFLAGS="$(SAN)" $(ASAN_DIR)/quadx \
	  $(UNIT_SRC:tests/unit/%.c=$(ASAN_DIR)/tests/%)
	@set -e; for t in $(UNIT_SRC:tests/unit/%.c=$(ASAN_DIR)/tests/%); do echo "== asan $$t"; $$t; done
	@set -e; for t in $(SCRIPT_TESTS); do echo "== asan $$t"; \
	  QUADX=$(ASAN_DIR)/quadx QUADX_HELPDIR=help QUADX_REQUIRE_FAULTS=1 $(PYTHON) $$t; done
	CUDA_VISIBLE_DEVICES= QUADX=$(ASAN_DIR)/quadx QUADX_HELPDIR=help $(PYTHON) tests/nogpu_test.py

# The script and sweep/export/plot tests once under valgrind memcheck on a CPU-only build (-O1,
# fault injection): any error or definite/indirect leak fails; tests/valgrind.supp silences
# third-party libraries only. tests/valgrind-quadx runs each quadx process under valgrind with
# one log per process (absolute paths: some tests run quadx in other directories or PATHs).
VG_DIR   := build/valgrind
VG_TESTS := tests/script_test.py tests/sweep_test.py
test-valgrind:
	@$(MAKE) --no-print-directory BUILD=$(VG_DIR) BIN=$(VG_DIR)/quadx NVCC= \
	  CFLAGS="-O1 -g $(FAULTS)" $(VG_DIR)/quadx
	@rm -rf $(VG_DIR)/logs && mkdir -p $(VG_DIR)/logs
	@set -e; for t in $(VG_TESTS); do echo "== valgrind $$t"; \
	  QUADX=$(CURDIR)/tests/valgrind-quadx QUADX_VG="$$(command -v valgrind)" \
	  QUADX_VG_BIN=$(CURDIR)/$(VG_DIR)/quadx QUADX_VG_LOGS=$(CURDIR)/$(VG_DIR)/logs \
	  QUADX_HELPDIR=$(CURDIR)/help $(PYTHON) $$t; done
	@n=$$(ls $(VG_DIR)/logs | wc -l); bad=$$(find $(VG_DIR)/logs -type f -size +0 | sort); \
	if [ -n "$$bad" ]; then head -60 $$bad; echo "valgrind: reports in $$bad"; exit 1; fi; \
	echo "valgrind: $$n quadx processes, no errors and no definite or indirect leaks"

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
# `make fuzz`); session_run is wrapped so that only tiny runs start, export_session and
# plot_sweep so that files are written only into the harness's temporary directory.
$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/common.c tests/fuzz/common.h $(LIB_OBJ) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -fsanitize=fuzzer $(LDFLAGS) \
	  -Wl,--wrap=session_run,--wrap=export_session,--wrap=plot_sweep \
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
$(FAULT_BIN): $(SRC) $(wildcard src/*.h src/problems/*.h) $(CU_OBJ) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) $(FAULTS) -o $@ src/main.c $(LIB_SRC) $(CU_OBJ) \
	  $(LDLIBS)

bench: $(BUILT)
	$(BUILD)/quadx-bench

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/quadx/help
	install -m 755 quadx $(DESTDIR)$(PREFIX)/bin/quadx
	install -m 644 help/*.txt $(DESTDIR)$(PREFIX)/share/quadx/help/

clean:
	rm -rf $(BUILD) quadx

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
