# Hearth: the two set-up commands are `make run` and `make test` (see README.md).
SWIFT ?= swift
SOURCES := Package.swift Shared Services Tests Benchmarks Fuzz Plugins

.PHONY: run test bench fuzz build release deps test-deps lint format install deb deb-test clean

## Release builds link the Swift runtime and Foundation statically: the Debian package then needs
## only Debian's own libraries, and run, bench and deb share one build. They carry no DWARF (the
## package strips its symbols; perf and backtraces still read the symbol table): a fresh release
## build took 454 s without it against 570 s with it (2026-12-07, 2 cores).
RELEASE := -c release --static-swift-stdlib -debug-info-format none
## The debug build's DWARF, for lldb and line numbers in a crash's backtrace. CI sets none: its
## fresh debug build with the tests took 349 s without it against 408 s with it (2026-12-07).
DEBUG_INFO ?= dwarf

## Build in release mode and run the whole stack in the foreground under runit (Ctrl-C stops it).
run: deps release
	deploy/run-stack

## Build everything and run every test (unit, service, and end to end with real processes).
## At most four test cases per core run at once: Swift Testing starts every one together by
## default, and on 2 cores their first steps and CPU-heavy work held the cooperative pool for
## seconds, so timers in the timing tests fired 1-5.5 s late and they failed. Measured with a
## 20 ms sleep looped beside the suite (Benchmarks/probes/PoolProbe.swift), worst lateness / whole
## run: unbounded 5.5 s / 118 s, 16 at once 1.2 s / 123 s, 8 at once 0.02-0.2 s in most seconds /
## 122 s, 4 at once 0.7 s / 141 s. The network tests (Tests/NetworkTests: up to five whole stacks
## each, in network namespaces, for three minutes of chaos) run after the rest, on their own: beside
## them, the dunst screenshot test's 80 s ran out. The two serialized chains of whole-stack suites
## run in processes of their own beside the rest (deploy/run-tests says why).
TEST_WIDTH ?= $(shell echo $$(( $$(nproc) * 4 )))
test: test-deps
	$(SWIFT) build --build-tests -debug-info-format $(DEBUG_INFO)
	TEST_WIDTH=$(TEST_WIDTH) deploy/run-tests

## Run the benchmarks (release build) and print their JSON report (notify needs the test kit's D-Bus packages,
## web its wrk). BENCH_PROFILE=quick runs CI's shorter profile (Benchmarks/run --quick).
bench: deps test-deps
	$(SWIFT) build $(RELEASE)
	SOAK_MINUTES=$(or $(SOAK_MINUTES),2) Benchmarks/run $(if $(filter quick,$(BENCH_PROFILE)),--quick)

## Build the fuzz targets (one libFuzzer + AddressSanitizer binary) and run each for FUZZ_SECONDS (default 60).
fuzz:
	Fuzz/run $(or $(FUZZ_SECONDS),60)

deps:
	deploy/bootstrap run

test-deps:
	deploy/bootstrap test

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE)

lint:
	$(SWIFT) format lint --strict --recursive $(SOURCES)

format:
	$(SWIFT) format --in-place --recursive $(SOURCES)

## Install the executables in ~/.local/bin and the systemd user units from the Procfile.
install: release
	mkdir -p $(HOME)/.local/bin
	install -m 0755 .build/release/hearth $$(sed -n 's|^[a-z]*: *\.build/release/\([^ ]*\).*|.build/release/\1|p' Procfile) \
		$(HOME)/.local/bin/
	# hearth-web's templates and styles, found beside the executable.
	rm -rf $(HOME)/.local/bin/Hearth_WebService.resources
	cp -R .build/release/Hearth_WebService.resources $(HOME)/.local/bin/
	deploy/systemd-units

## Build hearth_<version>_<arch>.deb in .build/deb (see deploy/make-deb for what goes where).
deb: release
	deploy/make-deb

## Install the package just built, check what it installed, and remove it again (root; CI runs it).
deb-test: deb
	deploy/test-deb

clean:
	rm -rf .build
