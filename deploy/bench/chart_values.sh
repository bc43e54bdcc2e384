#!/usr/bin/env bash
# The podspec flags both bench scripts render the chart's DaemonSet with, from
# the environment: the backend on loopback (PORT, default 18090), the health
# schedule (HEALTH, default 1m; empty keeps the chart's), the metrics port
# (METRICS_PORT, default the chart's) and the DaemonSet (DAEMONSET).
# Printed as one line of words, no value holding a space.
set -euo pipefail
out="-daemonset ${DAEMONSET:-gpusla-gpuprobe} -set backend.url=http://127.0.0.1:${PORT:-18090}/v1/batches"
[ -n "${HEALTH-1m}" ] && out+=" -set probe.config.schedules.health=${HEALTH-1m}"
[ -n "${METRICS_PORT:-}" ] && out+=" -set probe.metricsPort=$METRICS_PORT"
printf '%s\n' "$out"
