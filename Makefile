# Effectively Once. `make run` serves the notebook; `make test` runs every test. Both set up what
# they need first (npm packages, generated templates; make test also installs Debian's chromium
# for the browser suite and Debian's postgresql for the SQL store when they are missing and it can).

ADDR ?= 127.0.0.1:8080
GO   ?= go

.PHONY: all assets generate build run test check-generate vet unit browser verify lint-docker fuzz load bench clean setup-browser

all: build

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error

assets: node_modules/.package-lock.json
	sh scripts/assets.sh

generate:
	$(GO) tool templ generate -log-level error

build: assets generate
	$(GO) build -buildvcs=auto -o bin/site ./cmd/site

run: build
	./bin/site serve -addr $(ADDR)

# Every test, in the order a failure is cheapest to read. The Go tests run beside a throwaway
# Postgres cluster (scripts/test-postgres.sh) so that the SQL store is checked on both dialects.
test: assets check-generate vet setup-browser
	sh scripts/test-postgres.sh $(GO) test -count=1 ./...
	$(GO) build -buildvcs=auto -o bin/site ./cmd/site
	./bin/site verify
	./node_modules/.bin/dockerfile-utils lint Dockerfile
	$(MAKE) fuzz FUZZTIME=4000x PAGEFUZZTIME=600x
	@if [ -f ../shared/tools/prose-overlap ]; then python3 ../shared/tools/prose-overlap; \
	else echo "prose-overlap: ../shared/tools not here, skipped"; fi

# Regenerating the templ output must change nothing that is committed.
check-generate: generate
	@git diff --exit-code -- '*_templ.go' || (echo "templ generate changed files: run make generate and commit" && exit 1)
	@test -z "$$(git ls-files --others --exclude-standard -- '*_templ.go')" || (echo "uncommitted generated files" && exit 1)

vet:
	$(GO) mod tidy -diff || (echo "go mod tidy would change go.mod or go.sum: run go mod tidy and commit" && exit 1)
	$(GO) vet ./...
	@test -z "$$(gofmt -l cmd content experiments internal lab pages rooms static)" || (gofmt -l cmd content experiments internal lab pages rooms static; echo "gofmt: the files above need formatting" && exit 1)

setup-browser:
	@sh scripts/setup-browser.sh

# make test fuzzes for a fixed number of inputs, not a time: a time limit can end while a worker is
# mid-input and go test then reports "context deadline exceeded" as a failure.
FUZZTIME ?= 20s
PAGEFUZZTIME ?= $(FUZZTIME)
fuzz:
	$(GO) test ./experiments -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/site -run '^$$' -fuzz '^FuzzPageQuery$$' -fuzztime $(PAGEFUZZTIME)

bench: assets
	$(GO) test -run '^$$' -bench . -benchtime 20x ./experiments ./internal/site

# Loopback load test: 64 clients for 20 s against an in-process server; prints the figures.
load: assets
	$(GO) test ./internal/site -run '^TestLoad$$' -count=1 -v -timeout 5m -args -load

clean:
	rm -rf bin static/lib
