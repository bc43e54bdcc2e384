# Builds the Lambda functions of template.yaml. `sam build` runs
# `make build-<LogicalId> ARTIFACTS_DIR=<dir>` for every function whose
# Metadata says `BuildMethod: makefile`; the smoke tests in functions/lambdatest
# run exactly these targets, so what CI tests is what SAM ships.
#
# Architecture: arm64 by default (Graviton: ~20 % cheaper per GB-s). For
# x86_64 build with GOARCH=amd64 and deploy with
# `--parameter-overrides Architecture=x86_64` (see docs/aws.md); the two must
# match or the function fails at init with "exec format error".
#
# Adding a function: one line below, plus its resource in template.yaml.

GO      ?= go
GOARCH  ?= arm64
ARTIFACTS_DIR ?= $(CURDIR)/.aws-sam/manual

ifeq ($(filter $(GOARCH),arm64 amd64),)
$(error GOARCH=$(GOARCH): Lambda runs arm64 or amd64 only)
endif

# lambda.norpc drops the legacy net/rpc runtime path (provided.al2023 speaks
# the Runtime API only): a smaller binary and a faster cold start. -s -w and
# -trimpath strip symbols and build paths for the same reason.
LAMBDA_BUILD = CGO_ENABLED=0 GOOS=linux GOARCH=$(GOARCH) \
	$(GO) build -trimpath -tags lambda.norpc -ldflags "-s -w" -o "$(ARTIFACTS_DIR)/bootstrap"

# Contract terms the functions run on travel beside bootstrap in terms/
# (GPUSLA_TERMS in template.yaml). Point TERMS_DIR at your own contracts (a
# folder or files, space-separated): `gpusla terms ship` checks each terms
# file as the functions will read it, fails the build on a mistake (file,
# line, field), leaves out YAML that is no terms (a config, alerts.yaml) and
# copies only the terms. GOOS and GOARCH are cleared for it: it runs here,
# not on Lambda. Every function gets them: template.yaml sets GPUSLA_TERMS for
# all, and ingest judges each batch by its contract's detection settings too.
TERMS_DIR ?= testdata/terms
COPY_TERMS = GOOS= GOARCH= $(GO) run ./functions/cmd/gpusla terms ship --to "$(ARTIFACTS_DIR)/terms" $(TERMS_DIR)

build-IngestFunction:   ; $(LAMBDA_BUILD) ./functions/ingest && $(COPY_TERMS)
build-WatchdogFunction: ; $(LAMBDA_BUILD) ./functions/watchdog && $(COPY_TERMS)
build-TicketsFunction:  ; $(LAMBDA_BUILD) ./functions/tickets && $(COPY_TERMS)
build-ReportsFunction:  ; $(LAMBDA_BUILD) ./functions/reports && $(COPY_TERMS)
build-StatusFunction:   ; $(LAMBDA_BUILD) ./functions/status && $(COPY_TERMS)
build-PartsFunction:    ; $(LAMBDA_BUILD) ./functions/parts && $(COPY_TERMS)
build-SealerFunction:   ; $(LAMBDA_BUILD) ./functions/sealer && $(COPY_TERMS)

.PHONY: build-IngestFunction build-WatchdogFunction build-TicketsFunction build-ReportsFunction build-StatusFunction build-PartsFunction build-SealerFunction
