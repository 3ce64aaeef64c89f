#!/usr/bin/env bash
# (A copy of the team kit's ca-oracle/prepare.sh, kept here so that a fresh
# clone can record; it also writes OUT_DIR/COMMIT for record.sh.)
# Prepares a buildable copy of the real cluster-autoscaler (sigs.k8s.io/cluster-autoscaler) for use
# as an oracle: its Go module is not served by the proxy, and it pins k8s.io v1.37.0-rc.0, which is
# not served either. Usage:
#   prepare.sh CA_GIT_DIR AUTOSCALER_GIT_DIR OUT_DIR
# where the two git dirs are what the search tool's fetch returns for
# kubernetes-sigs/cluster-autoscaler and kubernetes/autoscaler. Then, in OUT_DIR/cluster-autoscaler:
#   GOWORK=off GOFLAGS=-mod=mod GOSUMDB=off go test ./pkg/test/integration/...
# A module of yours can import it with
#   replace sigs.k8s.io/cluster-autoscaler => OUT_DIR/cluster-autoscaler
#   replace k8s.io/autoscaler/cluster-autoscaler/apis => OUT_DIR/apis
set -euo pipefail
ca=${1:?CA git dir}; as=${2:?kubernetes/autoscaler git dir}; out=${3:?out dir}
mkdir -p "$out/cluster-autoscaler" "$out/as"
git --git-dir "$ca" archive HEAD | tar -x -C "$out/cluster-autoscaler"
git --git-dir "$as" archive HEAD cluster-autoscaler/apis | tar -x -C "$out/as"
rm -rf "$out/apis"; mv "$out/as/cluster-autoscaler/apis" "$out/apis"; rm -rf "$out/as"
cd "$out/cluster-autoscaler"
sed -i -e 's/v0\.37\.0-rc\.0/v0.37.2/g' -e 's/v1\.37\.0-rc\.0/v1.37.2/g' go.mod
echo "replace k8s.io/autoscaler/cluster-autoscaler/apis => $out/apis" >> go.mod
git --git-dir "$ca" rev-parse HEAD > "$out/COMMIT"
echo "cluster-autoscaler $(git --git-dir "$ca" rev-parse --short HEAD) ready in $out/cluster-autoscaler"
