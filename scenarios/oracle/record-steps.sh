#!/usr/bin/env bash
# Records scenarios on the real kube-scheduler v1.37.2 (../shared/oracle) with
# SCHED_V=10 and reduces each run to the step-wise test data TestSteps reads.
#
#   scenarios/oracle/record-steps.sh RAWDIR SUFFIX scenarios/17-ties-gpu-fleet.yaml ...
#
# For each scenario: a fresh control plane (cluster.sh), the kit's replay.sh,
# then RAWDIR/NAME.json (summarize.py), RAWDIR/NAME.raw/ (scheduler.log.gz,
# pods, claims, events, preempted.txt) and scenarios/oracle/steps/NAME$SUFFIX.json.
# Use SUFFIX "" for the first recording and ".2", ".3", ... for more: every
# recording is checked on its own. ORACLE_BIN, FEATURE_GATES, RUNTIME_CONFIG,
# SCHED_CONFIG and SETTLE pass through to the kit. STEPS_DIR (default
# scenarios/oracle/steps) is where the reduced recordings go: an older
# release's go in scenarios/oracle/steps-vX.Y, recorded with the ORACLE_BIN
# that build-oracle.sh made for it. The replay is this folder's
# replay.sh (the kit's, plus PodDisruptionBudget status and SETTLE, which 30-43
# need); ORACLE_REPLAY names another.
# The kit's ports are fixed; to run several recordings at once, run each in its own network namespace
# (ip netns exec NS ..., with loopback up and a default route: kube-apiserver
# refuses to start without one).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
kit=${ORACLE_KIT:-$repo/../shared/oracle}
export ORACLE_BIN=${ORACLE_BIN:-/tmp/oracle-bin/oracle}
raw=${1:?raw output dir}; suffix=${2?suffix, e.g. "" or .2}; shift 2
steps=${STEPS_DIR:-$repo/scenarios/oracle/steps}
mkdir -p "$raw" "$steps"
reduce=$(mktemp -d)/reduce
(cd "$repo" && go build -o "$reduce" ./internal/oraclelog/reduce) || exit 1
for s in "$@"; do
  name=$(basename "$s" .yaml); st=$(mktemp -d /tmp/kube-oracle-steps.XXXX)
  SCHED_V=10 "$kit/cluster.sh" up "$st" >/dev/null || { echo "$name: cluster did not start"; "$kit/cluster.sh" down "$st"; continue; }
  sleep 4
  KUBECONFIG=$st/kubeconfig "${ORACLE_REPLAY:-$here/replay.sh}" "$s" "$st/out" >/dev/null 2>"$st/replay.err" || echo "replay failed: $name: $(tail -2 "$st/replay.err")"
  KUBECONFIG=$st/kubeconfig kubectl get events -A -o json > "$st/out/events.json" 2>/dev/null
  python3 "$kit/summarize.py" "$st/out/pods.out.yaml" "$st/out/claims.out.yaml" > "$raw/$name.json"
  "$kit/cluster.sh" down "$st"
  mkdir -p "$raw/$name.raw"
  cp "$st/out/pods.out.yaml" "$st/out/claims.out.yaml" "$st/out/preempted.txt" "$st/out/events.json" "$raw/$name.raw/" 2>/dev/null
  gzip -c "$st/scheduler.log" > "$raw/$name.raw/scheduler.log.gz"
  rm -rf "$st"
  "$reduce" -scenario "$name.yaml" -log "$raw/$name.raw/scheduler.log.gz" -pods "$raw/$name.raw/pods.out.yaml" \
    -summary "$raw/$name.json" > "$steps/$name$suffix.json" && echo "$name: $steps/$name$suffix.json"
done
