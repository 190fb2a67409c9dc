# feria: the two commands a new user needs are `make run` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
GO ?= go

# The local test services `make test` starts (deploy/scripts/services.sh);
# set any of these to use other servers instead.
export TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
export TEST_REDIS_URL ?= redis://127.0.0.1:6379/0
export TEST_S3_ENDPOINT ?= 127.0.0.1:9000
export TEST_S3_ACCESS_KEY ?= feria-test
export TEST_S3_SECRET_KEY ?= feria-test-secret

# `make run`: the embedded mode on :8080 with the demo world.
RUN_ADDR ?= :8080
RUN_PORT := $(lastword $(subst :, ,$(RUN_ADDR)))
SANDBOX_KEY ?= feria-demo-sandbox-key
ADMIN_KEY ?= feria-demo-admin-key

.PHONY: build run test test-short bench services vet fmt clean

build:
	$(GO) build -o bin/feria ./cmd/feria

run: build
	@bash deploy/scripts/run-demo.sh "$(RUN_ADDR)" "$(SANDBOX_KEY)" "$(ADMIN_KEY)"

services:
	@bash deploy/scripts/services.sh

test: services
	$(GO) vet ./...
	@unformatted="$$(gofmt -l $$(git ls-files '*.go'))"; if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) test -v -count=1 -timeout 40m ./... > /tmp/feria-test.log 2>&1; status=$$?; bash deploy/scripts/test-summary.sh /tmp/feria-test.log $$status

bench: services
	@bash deploy/scripts/bench.sh

vet:
	$(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin var
