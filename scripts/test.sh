#!/usr/bin/env bash
# The project's one test command (README, .ci/run): installs what the tests
# need, vets, lints, starts dynalite and goaws, runs every Go test and short fuzz runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.tools/bin:$PATH"

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt needed:"; echo "$unformatted"; exit 1; fi
echo "== go vet"; go vet ./...
echo "== staticcheck"; staticcheck ./...

# dynalite: a real DynamoDB implementation on a free loopback port, for the
# DynamoDB store's contract tests; stopped when this script exits. Started
# through scripts/dynalite.js, which keeps it up when a killed serve drops a
# request mid-way (dynalite itself would exit: architect/dynalite#183).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 48000)
node scripts/dynalite.js "$port" 127.0.0.1 >/tmp/gpusla-dynalite.log 2>&1 &
dyn_pid=$!
trap 'kill $dyn_pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do (echo >/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break; sleep 0.1; done
export GPUSLA_TEST_DYNAMODB="http://127.0.0.1:$port"
export GPUSLA_TEST_RIE="$PWD/.tools/bin/aws-lambda-rie"

# goaws: a real SQS implementation (the month's fan-out queue); each test
# makes queues of its own on it (infra/sqsqueue/sqstest).
sqs_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 48100)
printf 'Local:\n  Host: 127.0.0.1\n  Port: %s\n  Region: us-east-1\n  AccountId: "100010001000"\n  LogToFile: false\n  Queues: []\n  Topics: []\n' "$sqs_port" >/tmp/gpusla-goaws.yaml
goaws -config /tmp/gpusla-goaws.yaml >/tmp/gpusla-goaws.log 2>&1 &
sqs_pid=$!
trap 'kill $dyn_pid $sqs_pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do (echo >/dev/tcp/127.0.0.1/"$sqs_port") 2>/dev/null && break; sleep 0.1; done
export GPUSLA_TEST_SQS="http://127.0.0.1:$sqs_port"

echo "== go test"
go test -count=1 -timeout 30m ./...

# deploy/ is a module of its own (Helm, the Kubernetes API types and
# Prometheus stay out of the probe's and the Lambdas' builds): the chart,
# the manifests, the dashboard and alert rules, the container images.
echo "== deploy module"
(cd deploy && go vet ./... && staticcheck ./... && go test -count=1 -timeout 20m ./...)

echo "== fuzz (short)"
bash scripts/fuzz.sh 10s
