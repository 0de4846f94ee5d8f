# Two commands on a fresh machine: `make demo` and `make test`. Both install what is missing
# (Debian packages, wgpu-native), configure and build first.
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local

.PHONY: all deps configure build demo test install clean help

all: build

help:
	@echo "make demo     install what is missing, build, run the profiled demo"
	@echo "make test     install what is missing, build, run the tests"
	@echo "make build    configure and build into $(BUILD)/"
	@echo "make install  install the library, headers, pkg-config and CMake files (PREFIX=$(PREFIX))"
	@echo "make clean    remove $(BUILD)/"

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@./$(BUILD)/tools/wgprof info
	@echo
	WEBGPU_TIMESTAMP_QUERY=1 ./$(BUILD)/tools/wgprof demo

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

install: build
	@cmake --install $(BUILD)

clean:
	@rm -rf $(BUILD)
