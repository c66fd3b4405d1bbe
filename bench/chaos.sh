#!/usr/bin/env bash
# The chaos scenarios at full length: each fault lasts 20 s (the CI tier uses 3 s), then the broker
# restart during a 200-job burst on a private RabbitMQ node. Needs `npm run build` first. Figures are
# printed as `CHAOS {...}` lines on stderr; docs/reliability.md explains them.
set -eo pipefail
cd "$(dirname "$0")/.."
CHAOS_FAULT_SEC="${CHAOS_FAULT_SEC:-20}" npx jest test/chaos --selectProjects chaos --runInBand 2>&1 | grep -E '^CHAOS |Tests:|✓|✕'
BURST_JOBS="${BURST_JOBS:-200}" npx jest bench/chaos --selectProjects chaos-bench --runInBand 2>&1 | grep -E '^CHAOS |Tests:|✓|✕'
