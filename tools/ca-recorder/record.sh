#!/usr/bin/env bash
# Builds the recorder against a prepared cluster-autoscaler and records the
# cases of sim/autoscale/testdata/ca/cases.yaml (see README.md). Usage:
#   record.sh PREPARED_DIR [recorder flags, e.g. -only loops,price]
# PREPARED_DIR is prepare.sh's OUT_DIR (cluster-autoscaler/ and apis/ in it).
# CA_COMMIT names the recorded commit in the recordings (default: read from
# PREPARED_DIR/COMMIT, which prepare.sh writes).
set -euo pipefail
prepared=$(cd "${1:?usage: record.sh PREPARED_DIR [flags]}" && pwd); shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
commit=${CA_COMMIT:-$(cat "$prepared/COMMIT" 2>/dev/null || echo unknown)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The committed go.mod cannot know where CA was prepared: build with a copy
# that replaces CA (and its apis module) with the prepared folders.
cp "$here/go.mod" "$here/go.sum" "$work/"
go mod edit -modfile="$work/go.mod" \
	-replace sigs.k8s.io/cluster-autoscaler="$prepared/cluster-autoscaler" \
	-replace k8s.io/autoscaler/cluster-autoscaler/apis="$prepared/apis" \
	-replace github.com/drasim/drasim="$root"
cd "$here"
export GOWORK=off GOFLAGS=-mod=mod GOSUMDB=off
go test -modfile="$work/go.mod" -c -o "$work/ca-recorder" .
"$work/ca-recorder" -test.run '^TestRecord$' -test.timeout 0 \
	-cases "$root/sim/autoscale/testdata/ca/cases.yaml" \
	-scenarios "$root/scenarios/autoscale" \
	-ca-commit "$commit" "$@"
