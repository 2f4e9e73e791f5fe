# Everyday commands. `make generate` regenerates every protocol;
# `make test` runs every check CI runs.

GO            ?= go
STATICCHECK   := honnef.co/go/tools/cmd/staticcheck@v0.8.2
PROTOCOLS     := $(wildcard protocols/*.yaml)
FUZZTIME      ?= 5m

.PHONY: all generate test vet staticcheck deps unit nested check-generated fuzz bench clean

all: generate test

## generate: regenerate generated/<name>/ from every protocols/<name>.yaml.
generate:
	@$(GO) build -o bin/rpcgen ./cmd/rpcgen
	@for p in $(PROTOCOLS); do \
		name=$$(basename $$p .yaml); \
		echo "rpcgen generate $$p"; \
		bin/rpcgen generate -out generated/$$name $$p || exit 1; \
	done

## test: everything CI checks, the interoperability suite included.
test: vet staticcheck unit nested check-generated

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

unit: deps
	$(GO) test -race -count=1 ./...

## nested: modules of their own under interop/ (kept out of the main module's dependencies).
nested:
	@for m in $$(find interop -mindepth 2 -maxdepth 2 -name go.mod 2>/dev/null); do \
		d=$$(dirname $$m); \
		echo "go vet, staticcheck and go test in $$d"; \
		(cd $$d && $(GO) vet ./... && $(GO) run $(STATICCHECK) ./... && $(GO) test -race -count=1 ./...) || exit 1; \
	done

## check-generated: fail when generated/ differs from what `make generate` writes.
check-generated: generate
	@if [ -n "$$(git status --porcelain -- generated)" ]; then \
		echo "generated/ is stale: run 'make generate' and commit the result"; \
		git status --porcelain -- generated; \
		git diff --stat -- generated; \
		exit 1; \
	fi

## fuzz: run every fuzz target for FUZZTIME each.
fuzz:
	@for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "fuzz $$pkg $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
		done; \
	done

## bench: runtime benchmarks with allocations.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./runtime/...
