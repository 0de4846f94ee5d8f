# Two commands on a fresh machine: `make demo` and `make test`. Both install what is missing
# (Debian packages, wgpu-native), configure and build first. Each target installs only what it
# needs (scripts/install-deps.sh GROUP): build and demo no browser, valgrind or clang; test adds
# python3 and chromium; lint cppcheck and clang-tidy; fuzz clang; check all of these and valgrind.
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local

.PHONY: all deps configure build demo test check lint fuzz install wheel clean help

all: build

help:
	@echo "Each target first installs what it needs and is missing (scripts/install-deps.sh GROUP)."
	@echo "make demo     build, run the profiled demo (installs no browser)"
	@echo "make test     build, run the tests (also installs python3 and chromium)"
	@echo "make build    configure and build into $(BUILD)/ (installs the compiler, CMake, jansson,"
	@echo "              Vulkan and lavapipe, wgpu-native; no browser, valgrind or clang)"
	@echo "make deps     only install what make build needs (DEPS_GROUP=test|lint|fuzz|check for more)"
	@echo "make check    lint, then the suite under ASan+UBSan, test_threads under TSan, a short"
	@echo "              fuzz run, and two GPU tests under valgrind memcheck (installs what make"
	@echo "              test and make lint need, and clang, libclang-rt-14-dev, valgrind)"
	@echo "make lint     cppcheck and clang-tidy with the project's settings (.clang-tidy; installs both)"
	@echo "make fuzz     the fuzzers for FUZZ_SECONDS each (default 600; installs clang)"
	@echo "make install  install the library, headers, pkg-config and CMake files (PREFIX=$(PREFIX))"
	@echo "make wheel    the manylinux_2_28 wheel and the sdist, into build-wheel/dist/ (pip install it)"
	@echo "make clean    remove $(BUILD)/"

DEPS_GROUP ?= build
deps:
	@./scripts/install-deps.sh $(DEPS_GROUP)

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@./$(BUILD)/cli/wgprof info
	@echo
	WEBGPU_TIMESTAMP_QUERY=1 ./$(BUILD)/cli/wgprof demo

# The test groups fetch Dawn and Mesa 25 before the configure step, which registers the GPU
# tests once per implementation found (tests/CMakeLists.txt).
test: DEPS_GROUP = test
test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# Sanitizers and fuzzing. GPU tests run with leak detection off: lavapipe leaks from the shader
# code it JIT-compiles (frames no suppression can name); wgprof's own leaks are caught by
# test_oom, which counts every block through the allocation hook, and by LeakSanitizer on the
# unit tests and fuzzers, which need no driver.
FUZZ_SECONDS ?= 600
# cppcheck walks the folders; clang-tidy takes the sources of each folder, subfolders named.
LINT_DIRS = src common demo spec diff record layer cli bench tests examples
TIDY_DIRS = $(LINT_DIRS) tests/record tests/support tests/layer
lint: build
	@./scripts/install-deps.sh lint
	cppcheck --quiet --enable=warning,performance,portability --std=c11 --error-exitcode=1 \
		-I include -I $(BUILD)/include -I .deps/wgpu-native/include $(LINT_DIRS) fuzz
	clang-tidy --quiet -p $(BUILD) --warnings-as-errors='*' $(foreach d,$(TIDY_DIRS),$(wildcard $(d)/*.c))
	@# The HTML pages' scripts: a syntax check where Node.js is (Debian package nodejs; not
	@# installed for this, test_html loads the page in Chromium and fails on any script error).
	@if command -v node >/dev/null; then echo "node --check common/page/base.js src/report_html/page.js diff/diff_html/page.js"; \
		node --check common/page/base.js && node --check src/report_html/page.js && node --check diff/diff_html/page.js; \
		else echo "lint: no node, the pages' scripts left to test_html"; fi

check: DEPS_GROUP = check
check: lint
	@./scripts/install-deps.sh check
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DWGPROF_SANITIZE=ON -DWGPROF_BUILD_BENCH=OFF >/dev/null
	@cmake --build build-asan -j $(JOBS)
	@cd build-asan && ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j $(JOBS)
	@cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -L unit
	@cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DWGPROF_BUILD_BENCH=OFF -DWGPROF_WERROR=ON \
		-DCMAKE_C_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
		-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread >/dev/null
	@cmake --build build-tsan -j $(JOBS) --target test_threads
	TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp halt_on_error=1" ./build-tsan/tests/test_threads
	FUZZ_BUILD=$(CURDIR)/build-fuzz ./scripts/fuzz.sh 60
	@for t in tests/test_failures examples/example_standalone; do \
		echo "valgrind memcheck: $$t"; \
		valgrind -q --error-exitcode=9 --suppressions=tests/valgrind.supp --leak-check=full \
			--errors-for-leak-kinds=definite --show-leak-kinds=definite ./$(BUILD)/$$t >/dev/null || exit 1; \
	done

# Every fuzz_* target the fuzz build holds, FUZZ_SECONDS each, one after the other (scripts/fuzz.sh
# finds them); FUZZ_TARGETS=writers (names without fuzz_) runs only those.
FUZZ_TARGETS ?=
fuzz:
	@./scripts/install-deps.sh fuzz
	FUZZ_BUILD=$(CURDIR)/build-fuzz ./scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

install: build
	@cmake --install $(BUILD)

# The wheel as it ships (scripts/build-wheel.sh: pinned tools, glibc 2.28, auditwheel), and the
# sdist, with a wheel built from it to show that it builds.
wheel: DEPS_GROUP = test
wheel: deps
	@./scripts/build-wheel.sh --sdist

clean:
	@rm -rf $(BUILD) build-asan build-tsan build-fuzz
