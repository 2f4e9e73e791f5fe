# Everyday commands. `make generate` regenerates every protocol;
# `make test` runs every check CI runs.

GO            ?= go
STATICCHECK   := honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME      ?= 5m
BENCHSTAT     := golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
# The gopls that interop/lsp drives, built once per version into bin/
# (interop/lsp's tests look for it there; their TestMakefilePinsGopls keeps
# the two in step).
GOPLS_VERSION := v0.23.0
GOPLS         := bin/gopls-$(GOPLS_VERSION)/gopls
# make bench: runs of each benchmark, time per run, and a regexp selecting
# sub-benchmarks of bench/'s BenchmarkRPC (empty: all of them, and the
# generator's benchmarks too).
BENCHCOUNT    ?= 6
BENCHTIME     ?= 0.4s
BENCH         ?=

.PHONY: all generate test fmt vet staticcheck deps gopls unit nested check-generated fuzz bench bench-runtime clean

all: generate test

## generate: regenerate generated/<name>/ from every protocols/<name>.yaml,
## and bench/benchproto/, as rpcgen.yaml lists them.
generate:
	@$(GO) build -o bin/rpcgen ./cmd/rpcgen
	bin/rpcgen generate

## test: everything CI checks, the interoperability suite included.
test: fmt vet staticcheck unit nested check-generated

## fmt: every committed Go file is gofmt-clean.
fmt:
	@out=$$("$$($(GO) env GOROOT)/bin/gofmt" -l $$(git ls-files '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) run $(STATICCHECK) ./...

## deps: the interop suite's npm packages, from each committed lockfile.
deps:
	@for d in interop/*/; do \
		if [ -f $$d/package.json ]; then \
			echo "npm ci in $$d"; \
			(cd $$d && npm ci --no-audit --no-fund --loglevel=error) || exit 1; \
		fi; \
	done

## gopls: install gopls GOPLS_VERSION into bin/ unless it is there already.
gopls: $(GOPLS)

$(GOPLS):
	@echo "go install golang.org/x/tools/gopls@$(GOPLS_VERSION) into $(@D)"
	@GOBIN=$(abspath $(@D)) $(GO) install golang.org/x/tools/gopls@$(GOPLS_VERSION)

unit: deps gopls
	$(GO) test -race -count=1 ./...

## nested: modules of their own under interop/, contrib/ and bench/ (kept out of the main module's dependencies).
nested:
	@for m in $$(find interop contrib -mindepth 2 -maxdepth 2 -name go.mod 2>/dev/null) bench/go.mod; do \
		d=$$(dirname $$m); \
		echo "go vet, staticcheck and go test in $$d"; \
		(cd $$d && $(GO) vet ./... && $(GO) run $(STATICCHECK) ./... && $(GO) test -race -count=1 ./...) || exit 1; \
	done

## check-generated: fail when generated/ or bench/benchproto/ differs from what `make generate` writes.
check-generated: generate
	@if [ -n "$$(git status --porcelain -- generated bench/benchproto)" ]; then \
		echo "generated/ or bench/benchproto/ is stale: run 'make generate' and commit the result"; \
		git status --porcelain -- generated bench/benchproto; \
		git diff --stat -- generated bench/benchproto; \
		exit 1; \
	fi

## fuzz: run every fuzz target, the contrib/ modules' too, for FUZZTIME each.
fuzz:
	@for d in . $$(find contrib -mindepth 2 -maxdepth 2 -name go.mod -exec dirname {} \;); do \
		for pkg in $$(cd $$d && $(GO) list ./...); do \
			for f in $$(cd $$d && $(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
				echo "fuzz $$pkg $$f"; \
				(cd $$d && $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg) || exit 1; \
			done; \
		done; \
	done

## bench: rpcgen side by side with other Go JSON-RPC libraries (bench/README.md),
## and the generator's timings. A full run takes about 15 minutes on 2 cores,
## saves bench/results/latest.txt and benchstat.txt, and updates the table in
## bench/README.md; with BENCH=regexp (e.g. BENCH='op=add/framing=cl/transport=pipe')
## it runs those rows only, saves bench/results/partial.txt and prints the table.
## bench-runtime: the runtime's own micro-benchmarks, with allocations.
bench-runtime:
	$(GO) test -run '^$$' -bench . -benchmem ./runtime/...

bench:
	@mkdir -p bench/results
	@out=bench/results/$(if $(BENCH),partial,latest).txt; \
	{ echo "date: $$(date -u +'%Y-%m-%d %H:%M UTC')"; echo "go: $$($(GO) env GOVERSION)"; \
	  echo "cores: $$(nproc)"; echo "commit: $$(git rev-parse --short HEAD)$$(git status --porcelain -- runtime gen bench/benchproto | grep -q . && echo ' with uncommitted changes to runtime/, gen/ or bench/benchproto/')"; \
	} > $$out.tmp; \
	if [ -z "$(BENCH)" ]; then \
		echo "go test -bench Generate ./cmd/rpcgen"; \
		{ $(GO) test -run '^$$' -bench 'Generate' -benchmem -count=$(BENCHCOUNT) ./cmd/rpcgen; \
		  echo $$? > $$out.rc; } | tee -a $$out.tmp; \
		[ "$$(cat $$out.rc)" = 0 ] || { rm -f $$out.rc; exit 1; }; \
	fi; \
	echo "go test -bench '(RPC|LSP)/$(BENCH)' in bench/"; \
	{ (cd bench && $(GO) test -run '^$$' -bench '(RPC|LSP)/$(BENCH)' -benchmem -count=$(BENCHCOUNT) -benchtime=$(BENCHTIME) -timeout 60m .); \
	  echo $$? > $$out.rc; } | tee -a $$out.tmp; \
	[ "$$(cat $$out.rc)" = 0 ] || { rm -f $$out.rc; exit 1; }; \
	rm -f $$out.rc; mv $$out.tmp $$out; \
	if [ -z "$(BENCH)" ]; then \
		(cd bench && $(GO) run $(BENCHSTAT) -col '/impl@(rpcgen xexp jrpc2 sourcegraph gosdk stdjson preencoded)' results/latest.txt > results/benchstat.txt) || exit 1; \
		(cd bench && $(GO) run ./cmd/report -in results/latest.txt -readme README.md) || exit 1; \
		echo "wrote bench/results/latest.txt, bench/results/benchstat.txt and the table in bench/README.md"; \
	else \
		(cd bench && $(GO) run $(BENCHSTAT) -col '/impl@(rpcgen xexp jrpc2 sourcegraph gosdk stdjson preencoded)' results/partial.txt) || exit 1; \
		(cd bench && $(GO) run ./cmd/report -in results/partial.txt -readme -) || exit 1; \
	fi
