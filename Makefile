# casebook: `make run` starts the service with embedded defaults; `make test` runs every test.
GO ?= go
BIN := bin/casebook

.PHONY: run build test test-short race vet fmt bench fuzz fit clean

# The commit is stamped by the toolchain (-buildvcs) and, for worktrees and
# GOFLAGS=-buildvcs=false, by -X: `casebook --version` shows it either way.
COMMIT := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo +modified)

build:
	$(GO) build -buildvcs=auto -ldflags "-X main.commit=$(COMMIT)" -o $(BIN) ./cmd/casebook

run: build
	./$(BIN) serve --data ./data --http 127.0.0.1:8080

# The whole suite: unit, integration (embedded NATS, bbolt, loopback HTTP) and
# end-to-end tests. Tests that read ../shared skip when it is absent.
test:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) test -race -count=1 -timeout 40m ./...
	$(GO) test -count=1 -run '^(TestRelevanceWeightsFresh|TestCrossSourceFloors)$$' ./classify/evalrelevance
	@# without -race (minutes under it, 20 s here): the gold set's cross-source floors, the
	@# in-sample gap and the field model's keep thresholds, which the -race run leaves out
	$(GO) test -count=1 -run '^(TestGoldSet|TestFieldModelFresh)$$' ./classify/evalcases

test-short:
	$(GO) test -short -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# -fuzzminimizetime: minimising each new input for the default 60 s would
# spend a whole target's 20 s on its first find (Extract and Classify find
# new coverage on almost every input).
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime 20s -fuzzminimizetime 1s $$pkg || exit 1; \
	  done; \
	done

# Regenerate the fitted tables (classify/fieldmodel.json, classify/relevance_weights.go)
# from ../shared (and, for the relevance gate, classify/testdata/relevance-unseen). Both fits are deterministic: a rerun writes the same bytes, and
# TestFieldModelFresh and TestRelevanceWeightsFresh fail when a checked-in table is stale.
fit:
	$(GO) run ./classify/internal/fitfields
	$(GO) run ./classify/internal/fitrelevance

clean:
	rm -rf bin
