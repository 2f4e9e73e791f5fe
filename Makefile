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
# make bench: see bench/README.md ("Running"). BENCHPARTS picks the parts
# of a full run (each rewrites its own file in bench/results/ before the
# report reads them all); BENCH=regexp instead runs only the matching rows
# of BenchmarkRPC, BenchmarkLSP and BenchmarkMCP and prints their table.
# BENCHCOUNT is the runs of each benchmark; BENCHTIME the time of each run
# of the rows with small messages (add, echo, notify, escape), the LSP and
# the MCP rows; BENCHTIME_BIG of echo64k and didopen; BENCHTIME_1M of
# echo1m; GENBENCHTIME of the generator's.
BENCHCOUNT    ?= 6
BENCHTIME     ?= 0.2s
BENCHTIME_BIG ?= 0.1s
BENCHTIME_1M  ?= 0.1s
GENBENCHTIME  ?= 1s
BENCH         ?=
BENCHPARTS    ?= generate rpc lsp mcp load
# The load tool's flags for each of its modes (bench/cmd/load).
LOAD_THROUGHPUT ?= -calls 100000 -conns 64 -impls rpcgen,minimal
LOAD_IDLE       ?= -levels 1000,5000,10000 -impls rpcgen,minimal
LOAD_SCALE      ?= -conns 10000 -interval 1s -duration 1m -impls rpcgen -memlimit 160MiB
BENCHCOLS     := /impl@(rpcgen xexp jrpc2 sourcegraph gosdk mcpgo stdjson preencoded)
# The runtime tests that measure a cost, run again without the race detector.
COSTTESTS     := Alloc|Heap|SizeClass|Stack

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

## unit: every test under the race detector, then the runtime's cost tests
## (allocations, heap and stack per connection) once more without it: the
## race detector allocates on its own, so some of them only bound what
## they measure when it is off.
unit: deps gopls
	$(GO) test -race -count=1 ./...
	$(GO) test -count=1 -run '$(COSTTESTS)' ./runtime/...

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

## bench: every measurement of bench/README.md, in one go: the generator,
## rpcgen side by side with other Go JSON-RPC libraries at the ceiling, the
## LSP and MCP rows, and the load tool's throughput, idle and scale modes.
## Raw output goes to bench/results/ (one file per part), then benchstat.txt
## and the tables in bench/README.md. A full run takes about 30 minutes on
## 2 cores (about 36 on a loaded machine; bench/README.md says how that was
## estimated). BENCHPARTS='lsp mcp' reruns some parts only (the report then
## reads the other parts' files as they are); BENCH=regexp (e.g.
## BENCH='op=add/framing=cl/transport=pipe') runs those rows only, saves
## bench/results/partial.txt and prints their table.
## bench-runtime: the runtime's own micro-benchmarks, with allocations.
bench-runtime:
	$(GO) test -run '^$$' -bench . -benchmem ./runtime/...

bench:
	@mkdir -p bench/results bin
	@set -e; \
	header() { echo "date: $$(date -u +'%Y-%m-%d %H:%M UTC')"; echo "go: $$($(GO) env GOVERSION)"; echo "cores: $$(nproc)"; \
	  echo "commit: $$(git rev-parse --short HEAD)$$(git status --porcelain -- runtime gen bench/benchproto | grep -q . && echo ' with uncommitted changes to runtime/, gen/ or bench/benchproto/')"; }; \
	gobench() { out=$$1 dir=$$2 pattern=$$3 time=$$4; t0=$$(date +%s); \
	  echo "go test -bench '$$pattern' -benchtime=$$time -count=$(BENCHCOUNT) in $$dir"; \
	  { (cd $$dir && $(GO) test -run '^$$' -bench "$$pattern" -benchmem -count=$(BENCHCOUNT) -benchtime=$$time -timeout 90m .); \
	    echo $$? > $$out.rc; } | tee -a $$out.tmp; \
	  rc=$$(cat $$out.rc); rm -f $$out.rc; [ "$$rc" = 0 ] || exit 1; \
	  echo "took $$(( $$(date +%s) - t0 )) s"; }; \
	if [ -n "$(BENCH)" ]; then \
		out=bench/results/partial.txt; header > $$out.tmp; \
		gobench $$out bench '(RPC|LSP|MCP)/$(BENCH)' $(BENCHTIME); mv $$out.tmp $$out; \
		cd bench; $(GO) run $(BENCHSTAT) -col '$(BENCHCOLS)' results/partial.txt; \
		$(GO) run ./cmd/report -in results/partial.txt -readme -; \
		exit 0; \
	fi; \
	for part in $(BENCHPARTS); do \
		start=$$(date +%s); \
		case $$part in \
		generate) out=bench/results/generate.txt; header > $$out.tmp; \
			gobench $$out cmd/rpcgen '^BenchmarkGenerate$$' $(GENBENCHTIME) ;; \
		rpc) out=bench/results/rpc.txt; header > $$out.tmp; \
			gobench $$out bench '^BenchmarkRPC$$/^op=(add|echo|notify|escape)$$' $(BENCHTIME); \
			gobench $$out bench '^BenchmarkRPC$$/^op=(echo64k|didopen)$$' $(BENCHTIME_BIG); \
			gobench $$out bench '^BenchmarkRPC$$/^op=echo1m$$' $(BENCHTIME_1M) ;; \
		lsp) out=bench/results/lsp.txt; header > $$out.tmp; \
			gobench $$out bench '^BenchmarkLSP$$' $(BENCHTIME) ;; \
		mcp) out=bench/results/mcp.txt; header > $$out.tmp; \
			gobench $$out bench '^Benchmark(MCP|RPCMCP)$$' $(BENCHTIME) ;; \
		load) out=bench/results/load.jsonl; : > $$out.tmp; \
			(cd bench && $(GO) build -o ../bin/load ./cmd/load); \
			for mode in throughput idle scale; do \
				case $$mode in throughput) flags='$(LOAD_THROUGHPUT)';; idle) flags='$(LOAD_IDLE)';; scale) flags='$(LOAD_SCALE)';; esac; \
				echo "load $$mode $$flags"; t0=$$(date +%s); \
				bin/load $$mode -json $$flags >> $$out.tmp; \
				echo "took $$(( $$(date +%s) - t0 )) s"; \
			done ;; \
		*) echo "unknown part $$part in BENCHPARTS (want generate rpc lsp mcp load)"; exit 1 ;; \
		esac; \
		mv $$out.tmp $$out; \
		echo "part $$part took $$(( $$(date +%s) - start )) s, wrote $$out"; \
	done; \
	cd bench; ins=$$(ls results/generate.txt results/rpc.txt results/lsp.txt results/mcp.txt 2>/dev/null | paste -sd, -); \
	if [ -n "$$ins" ]; then $(GO) run $(BENCHSTAT) -col '$(BENCHCOLS)' $$(echo $$ins | tr , ' ') > results/benchstat.txt; fi; \
	$(GO) run ./cmd/report -in "$$ins" $$([ -f results/load.jsonl ] && echo -load results/load.jsonl) -readme README.md; \
	echo "wrote bench/results/benchstat.txt and the tables in bench/README.md"
