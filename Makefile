# quadx - build, test, benchmark and install.
#   make            build ./quadx (GPU backend when nvcc is found, else a CPU-only build)
#   make run        build and start the explorer
#   make test       build and run every test (no GPU needed; GPU tests skip)
#   make test-gpu   the GPU tests, on a machine with a GPU
#   make bench      the benchmark tables (GPU machine)
#   make install PREFIX=/usr/local

PREFIX   ?= /usr/local
CC       ?= gcc
CUDA_HOME ?= /usr/local/cuda
NVCC     ?= $(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; })
PYTHON   ?= python3
BUILD    ?= build
BIN      ?= quadx

# Debian/Ubuntu packages the build and the tests need.
BUILD_PKGS := gcc make pkg-config libreadline-dev libncurses-dev libcmocka-dev libcjson-dev libgsl-dev
TEST_PKGS  := python3 tmux gnuplot-nox

WARN     := -Wall -Wextra -Werror -Wno-format-truncation
CFLAGS   ?= -O2 -g
override CFLAGS += -std=c11 -D_GNU_SOURCE $(WARN) -fopenmp -pthread -MMD -MP
LDLIBS   := -lreadline -lncursesw -lcjson -lgsl -lgslcblas -lm -fopenmp -pthread

SRC      := $(wildcard src/*.c src/problems/*.c)
MAIN_SRC := src/main.c src/bench.c src/longman_bench.c
CU_SRC   := $(wildcard cuda/*.cu)

ifneq ($(strip $(NVCC)),)
  GPU_BUILD  := yes
  override CFLAGS += -DQX_HAVE_CUDA
  LIB_SRC    := $(filter-out $(MAIN_SRC) src/gpu_none.c,$(SRC))
  CU_OBJ     := $(CU_SRC:%.cu=$(BUILD)/%.o)
  NVCCFLAGS  ?= -O3 -std=c++17 -lineinfo
  NVCCFLAGS  += -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
                -gencode arch=compute_90,code=compute_90 -Xcompiler -Wall,-Wextra,-Werror -MMD -MP
  LDLIBS     += -L$(CUDA_HOME)/lib64 -lcudart_static -lstdc++ -ldl -lrt -lpthread
else
  GPU_BUILD  := no
  LIB_SRC    := $(filter-out $(MAIN_SRC),$(SRC))
  CU_OBJ     :=
endif

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(CU_OBJ)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all run test test-unit test-script test-asan test-gpu bench install deps clean announce

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

$(BUILD)/quadx-bench: $(BUILD)/src/bench.o $(BUILD)/src/longman_bench.o $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/%.o: %.cu | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJ) | $(BUILD)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJ) -lcmocka $(LDLIBS)

run: all
	./quadx

test-unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done

test-script: all
	$(PYTHON) tests/script_test.py

test: all test-unit test-script test-asan
	$(PYTHON) tests/sweep_test.py
	$(PYTHON) tests/repl_test.py
	$(PYTHON) tests/tui_test.py
	$(PYTHON) tests/tui_gpu_test.py
	$(PYTHON) tests/gpu_test.py
	$(PYTHON) tests/longman_gpu_test.py

# The unit and script tests again on a CPU-only build with AddressSanitizer and
# UndefinedBehaviorSanitizer; any report fails the test.
ASAN_DIR := build/asan
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
test-asan:
	@$(MAKE) --no-print-directory BUILD=$(ASAN_DIR) BIN=$(ASAN_DIR)/quadx NVCC= \
	  CFLAGS="-O1 -g $(SAN)" LDFLAGS="$(SAN)" $(ASAN_DIR)/quadx \
	  $(UNIT_SRC:tests/unit/%.c=$(ASAN_DIR)/tests/%)
	@set -e; for t in $(UNIT_SRC:tests/unit/%.c=$(ASAN_DIR)/tests/%); do echo "== asan $$t"; $$t; done
	QUADX=$(ASAN_DIR)/quadx QUADX_HELPDIR=help $(PYTHON) tests/script_test.py
	QUADX=$(ASAN_DIR)/quadx $(PYTHON) tests/sweep_test.py

# NOBUILD=1 runs what was built elsewhere (the lent GPU machine has no headers to build with).
ifeq ($(NOBUILD),1)
BUILT :=
else
BUILT := all $(UNIT_BIN) $(BUILD)/quadx-bench
endif

test-gpu: $(BUILT)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done
	QUADX_REQUIRE_GPU=1 $(PYTHON) tests/gpu_test.py
	QUADX_REQUIRE_GPU=1 $(PYTHON) tests/longman_gpu_test.py
	QUADX_REQUIRE_GPU=1 $(PYTHON) tests/tui_gpu_test.py

bench: $(BUILT)
	$(BUILD)/quadx-bench

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/quadx/help
	install -m 755 quadx $(DESTDIR)$(PREFIX)/bin/quadx
	install -m 644 help/*.txt $(DESTDIR)$(PREFIX)/share/quadx/help/

clean:
	rm -rf $(BUILD) quadx

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
