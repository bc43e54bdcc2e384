#!/usr/bin/env bash
# Installs everything the tests need that is not Go source: Debian packages
# (iperf3, iproute2 and nftables for network namespaces, chromium and a CJK font (fonts-noto-cjk) for the status
# page test, poppler-utils for the PDF text check, make for the Lambda builds, systemd for systemd-analyze, runc for
# the container images, tzdata, git; the images also take libc6's and ca-certificates' files),
# dynalite and s3rver from npm, and Go tools (staticcheck, the Lambda Runtime
# Interface Emulator, goaws for SQS). Idempotent; everything project-local goes to .tools/.
# A fresh Debian machine with Go is enough: under CI=true a test whose tool is
# missing fails rather than skips (internal/testenv), so this list must be whole.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="$PWD/.tools"
mkdir -p "$TOOLS/bin"

need_apt=()
command -v iperf3 >/dev/null || need_apt+=(iperf3)
command -v gcc >/dev/null || need_apt+=(gcc libc6-dev) # cgo, for go-nvml (probe/gpu)
command -v ip >/dev/null || need_apt+=(iproute2)
command -v tc >/dev/null || need_apt+=(iproute2)
command -v nft >/dev/null || need_apt+=(nftables)
command -v chromium >/dev/null || need_apt+=(chromium)
# A CJK font, so the status page's Chinese screenshots (functions/statuspage's browser test, docs/img) show
# characters, not boxes; fc-list comes with fontconfig, which chromium pulls in.
{ command -v fc-list >/dev/null && [ -n "$(fc-list :lang=zh family 2>/dev/null)" ]; } || need_apt+=(fonts-noto-cjk)
command -v node >/dev/null || need_apt+=(nodejs)
command -v npm >/dev/null || need_apt+=(npm)
command -v python3 >/dev/null || need_apt+=(python3)               # probe/trialrun/bench: the trial script reads the backend's export
command -v make >/dev/null || need_apt+=(make)                     # functions/lambdatest: the SAM make targets
command -v git >/dev/null || need_apt+=(git)                       # functions/e2e: the README runs in a clone
command -v systemd-analyze >/dev/null || need_apt+=(systemd)       # probe/deploy: the unit's security score
command -v runc >/dev/null || need_apt+=(runc)                     # deploy/image: the container images under a real OCI runtime
command -v pdftotext >/dev/null || need_apt+=(poppler-utils)       # functions/document: the zh PDF's text and a page as PNG
[ -e /usr/share/zoneinfo/Asia/Shanghai ] || need_apt+=(tzdata)    # contract terms in named time zones
[ -e /etc/ssl/certs/ca-certificates.crt ] || need_apt+=(ca-certificates) # npm and go install over https
if ((${#need_apt[@]})); then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing Debian packages: ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "setup: not root, cannot install ${need_apt[*]}; tests that need them will skip (fail under CI=true)" >&2
  fi
fi

if [ ! -x "$TOOLS/node/node_modules/.bin/dynalite" ]; then
  echo "setup: installing dynalite from npm"
  npm install --silent --no-audit --no-fund --prefix "$TOOLS/node" dynalite@4.0.0 >/dev/null
fi
if [ ! -x "$TOOLS/node/node_modules/.bin/s3rver" ]; then
  echo "setup: installing s3rver from npm (S3 report store tests)"
  npm install --silent --no-audit --no-fund --prefix "$TOOLS/node" s3rver@3.7.1 >/dev/null
fi

export GOBIN="$TOOLS/bin"
[ -x "$GOBIN/staticcheck" ] || go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
[ -x "$GOBIN/aws-lambda-rie" ] || go install github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@v0.0.0-20261030222936-bef5c4ba774d
# goaws: a local SQS (the month's fan-out, infra/sqsqueue); its main package is named cmd.
if [ ! -x "$GOBIN/goaws" ]; then
  echo "setup: installing goaws (local SQS)"
  tmp=$(mktemp -d)
  GOBIN="$tmp" go install github.com/Admiral-Piett/goaws/app/cmd@v0.5.4
  mv "$tmp/cmd" "$GOBIN/goaws" && rmdir "$tmp"
fi
echo "setup: done"
