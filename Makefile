# ppwr — developer entry points. The logic lives in scripts/stack.sh; these
# targets only name it. `make` alone lists them.

SHELL := /bin/bash
.DEFAULT_GOAL := help

STACK := scripts/stack.sh

# Tool versions known to build here (ARCHITECTURE.md, section 12). Newer
# Temporal CLI releases carry replace directives and cannot be go-installed.
TEMPORAL_VERSION  := v1.5.1
VERSITYGW_VERSION := v1.8.0

.PHONY: help run services stop status build tools test bench clean clean-data

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  make %-11s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

run: tools ## start everything (Postgres, Temporal, S3, SMTP, ppwr dev); Ctrl-C stops it
	@$(STACK) up

services: tools ## start only the backing services, in the background
	@$(STACK) services

stop: ## stop everything `make run` or `make services` started
	@$(STACK) down

status: ## show what is running
	@$(STACK) status

build: ## build bin/ppwr and bin/smtp-sink
	@$(STACK) build

tools: bin/temporal bin/versitygw ## build the Temporal CLI and versitygw into ./bin (once; takes minutes)

# File targets: built only when missing.
bin/temporal:
	@echo "==> building the Temporal CLI $(TEMPORAL_VERSION) (first time only; this takes a few minutes)"
	GOBIN=$(CURDIR)/bin go install github.com/temporalio/cli/cmd/temporal@$(TEMPORAL_VERSION)

bin/versitygw:
	@echo "==> building versitygw $(VERSITYGW_VERSION) (first time only; this takes a few minutes)"
	GOBIN=$(CURDIR)/bin go install github.com/versity/versitygw/cmd/versitygw@$(VERSITYGW_VERSION)

test: tools ## gofmt, go vet and every test (starts a private Postgres if none answers; GOTESTFLAGS="-v")
	@$(STACK) test

bench: tools ## run ./cmd/ppwr-bench against the test Postgres (flags: BENCHFLAGS="-duration 5s")
	@$(STACK) bench $(BENCHFLAGS)

clean: ## remove the built application binaries (keeps tools and data)
	rm -f bin/ppwr bin/smtp-sink

clean-data: ## stop everything and DELETE all local state under .data
	@$(STACK) clean-data
