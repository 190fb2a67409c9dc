# feria: the two commands a new user needs are `make run` and `make test`.
# Every variable below may be set on the command line or in the environment;
# CONTRIBUTING.md lists them all under "Make and script variables" (the
# binary's own are in the README).
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
GO ?= go
export GO

# The test services. `make test` starts the local ones that do not answer
# (deploy/scripts/services.sh) and stops what it started when no other run
# uses it; set these to use other servers instead.
export TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
export TEST_REDIS_URL ?= redis://127.0.0.1:6379/0
export TEST_S3_ENDPOINT ?= 127.0.0.1:9000
export TEST_S3_ACCESS_KEY ?= feria-test
export TEST_S3_SECRET_KEY ?= feria-test-secret
# 1: leave the services `make test` started running at the end.
export KEEP_SERVICES ?=

# `make run`: the embedded mode on :8080 with the demo world.
RUN_ADDR ?= :8080
SANDBOX_KEY ?= feria-demo-sandbox-key
ADMIN_KEY ?= feria-demo-admin-key

# `make fuzz`: how long each fuzz target runs (`make test` runs each for
# 1000 inputs).
FUZZTIME ?= 30s

.PHONY: build run test test-short fuzz bench bench-quick bench-all services vet fmt clean

build:
	$(GO) build -o bin/feria ./cmd/feria

run: build
	@bash deploy/scripts/run-demo.sh "$(RUN_ADDR)" "$(SANDBOX_KEY)" "$(ADMIN_KEY)"

services:
	@bash deploy/scripts/services.sh up

test:
	@bash deploy/scripts/test.sh

test-short:
	@bash deploy/scripts/test-short.sh

fuzz:
	@bash deploy/scripts/fuzz.sh "$(FUZZTIME)"

# `make bench`: feria's hot paths beside their minimal anchors, RSS, a
# worker's jobs/s (about 20 minutes: every path in both configurations);
# bench-quick in under 5; bench-all adds
# every Go benchmark and the per-area load runs (deploy/scripts/bench-*.sh).
bench: services
	@bash deploy/scripts/bench.sh full

bench-quick: services
	@bash deploy/scripts/bench.sh quick

bench-all: services
	@bash deploy/scripts/bench.sh all

vet:
	$(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin var
