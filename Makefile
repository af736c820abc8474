# Zap's build. `make demo` runs the loop on this machine with a config that
# needs no SSH and no sudo; `make test` is what CI runs.

GO        ?= go
PREFIX    ?= $(HOME)/.zap
BIN       := bin
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X github.com/zap-go/zap/internal/version.Version=$(VERSION)
CMDS      := zap zap-eval zap-detect zap-plan zap-exec zap-deploy
STATICCHECK_VERSION := v0.8.2

export CGO_ENABLED ?= 0

.PHONY: all build testbin install test check generate types-check fmt vet staticcheck tidy-check docs-check pages-check typecheck bench demo clean lab

all: build

# Static, reproducible builds: -trimpath and no VCS stamp, so the same source
# gives the same bytes in any folder.
build:
	@mkdir -p $(BIN)
	$(GO) build -trimpath -buildvcs=false -ldflags '$(LDFLAGS)' -o $(BIN)/ $(addprefix ./cmd/,$(CMDS))

install: build
	@mkdir -p $(PREFIX)/bin
	@for c in $(CMDS); do install -m 0755 $(BIN)/$$c $(PREFIX)/bin/$$c; done
	@echo "installed $(CMDS) in $(PREFIX)/bin; add it to your PATH:"
	@echo '  export PATH="$(PREFIX)/bin:$$PATH"'

# The binaries the test scripts run: built as build builds them, plus the
# zaptest tag, which only lets them honour the scripts' test hooks
# (internal/testhook). The test binaries themselves are cgo -race builds.
testbin:
	@mkdir -p $(BIN)/test
	$(GO) build -tags zaptest -trimpath -buildvcs=false -ldflags '$(LDFLAGS)' -o $(BIN)/test/ $(addprefix ./cmd/,$(CMDS))

# The whole suite, race detector on. Unit tests, fuzz seeds and every
# testscript script (the stages alone and the end-to-end walks), which run
# the binaries testbin built. go test -json is read by testreport, which
# prints what go test would (failed tests' output, a line per package) as
# it comes, keeps the whole stream in bin/test.json, and ends with the
# tiers and every test that skipped, with its reason; as root with CI=true
# a skip docs/testing.md doesn't accept fails the run.
test: typecheck check lab testbin
	$(GO) build -o $(BIN)/testreport ./internal/scripttest/testreport
	@rm -f $(BIN)/test.status
	@echo "ZAP_TEST_BIN=$(CURDIR)/$(BIN)/test CGO_ENABLED=1 $(GO) test -json -race -count=1 -timeout 60m ./... | $(BIN)/testreport"
	@{ ZAP_TEST_BIN=$(CURDIR)/$(BIN)/test CGO_ENABLED=1 $(GO) test -json -race -count=1 -timeout 60m ./...; echo $$? > $(BIN)/test.status; } | \
	  $(BIN)/testreport -json $(BIN)/test.json -status $(BIN)/test.status

# The lab's systemd and OpenRC host images (internal/lab, docs/testing.md),
# built once per machine and cached under /var/cache/zap-lab; where lab hosts
# can't run (not root, no debootstrap...) it says why and builds nothing.
lab:
	$(GO) run ./internal/lab/labctl build

check: fmt vet staticcheck tidy-check docs-check types-check pages-check

# The declaration's field docs are read from its Go doc comments into
# internal/schema/docs.json (internal/schema/docsrc), and ts/types.ts's
# interfaces are generated from its structs and those docs
# (internal/schema/tsgen): generate rewrites both, in that order;
# types-check fails when either checked-in file isn't current.
generate:
	$(GO) generate ./internal/schema ./ts ./internal/refdoc

types-check:
	$(GO) run ./internal/schema/docsrc/gen -check internal/schema/docs.json
	$(GO) run ./internal/schema/tsgen/gen -check ts/types.ts

# docs/kinds/, the reference zap doc prints (internal/refdoc), must be what
# the schema and each kind's doc.md make of it, every field a config writes
# must have a doc line, and every page its parts: pages-check fails
# otherwise (make generate rewrites the pages).
pages-check:
	$(GO) run ./internal/refdoc/gen -check docs/kinds
	$(GO) test -count=1 -run '^(TestEveryFieldHasADoc|TestDocsJSONCurrent|TestPagesCurrent|TestEveryPageHasItsParts|TestEveryKindIsListed)$$' ./internal/schema/docsrc/ ./internal/refdoc/

# The pages' own checks: docs/architecture.md at most 600 lines, every
# pointer to a section of it or of docs/perf.md (and theirs to other pages)
# naming a heading that is there, and every relative link of the README and
# docs/ leading to a file and heading that are there.
docs-check:
	$(GO) test -count=1 -run '^(TestArchitectureDocAtMost600Lines|TestDocSectionReferencesResolve|TestDocLinksResolve)$$' ./internal/scripttest/

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

# The TypeScript package's types (ts/) and the example configs, checked by
# tsc: one on PATH, else the one in .ci/node_modules, which this target
# installs from the npm registry when it is missing and npm is there.
TYPESCRIPT_VERSION := 5.9.3

typecheck:
	@tsc=$$(command -v tsc 2>/dev/null || true); \
	if [ -z "$$tsc" ]; then \
	  tsc=.ci/node_modules/.bin/tsc; \
	  if [ "$$($$tsc --version 2>/dev/null)" != "Version $(TYPESCRIPT_VERSION)" ]; then \
	    if ! command -v npm >/dev/null 2>&1; then echo "typecheck: no tsc and no npm: install Node.js and npm (or run .ci/run)" >&2; exit 1; fi; \
	    echo "typecheck: installing typescript@$(TYPESCRIPT_VERSION) in .ci/node_modules"; \
	    npm install --no-save --no-audit --no-fund --silent --prefix .ci typescript@$(TYPESCRIPT_VERSION) >/dev/null || exit 1; \
	  fi; \
	fi; \
	echo "$$tsc --noEmit -p ts/tsconfig.json"; $$tsc --noEmit -p ts/tsconfig.json

# go mod tidy must change nothing; go.mod and go.sum are backed up in a
# private temporary directory (mktemp -d), put back when tidy changed them,
# and the directory removed either way.
tidy-check:
	@bak=$$(mktemp -d) || exit 1; trap 'rm -rf "$$bak"' EXIT; \
	cp go.mod go.sum "$$bak"/ || exit 1; \
	$(GO) mod tidy || exit 1; \
	if ! git diff --quiet -- go.mod go.sum; then echo "go mod tidy changes go.mod/go.sum:"; git --no-pager diff -- go.mod go.sum; \
	  cp "$$bak"/go.mod "$$bak"/go.sum . ; exit 1; fi

# Speed budgets, measured side by side with the floor (a hand-written shell
# script doing the same reads or writes) and, when installed, the peer:
# zap plan, and zap apply --wetrun of 200 and 2,000 new files (20,000, with
# peak RSS, when BENCH_BIG=1), locally and (as root) over private sshds,
# beside ansible-playbook and pyinfra where installed. BENCH_PART=reads|writes.
bench: build
	./testdata/bench/run.sh
	GO=$(GO) ./testdata/bench/ssh.sh
	./testdata/bench/fetched.sh
	./testdata/bench/deploy.sh
	./testdata/bench/hosts.sh

# The main job on this machine: a config that manages a directory, a file, a
# link and a script under your home, needing no SSH and no sudo.
demo: build
	./examples/demo/run.sh

clean:
	rm -rf $(BIN)
