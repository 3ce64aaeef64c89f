#!/usr/bin/env bash
# Builds the oracle kit (../shared/oracle: kube-apiserver, kube-scheduler and
# kube-controller-manager in one binary) against another Kubernetes release, so
# that the step-wise recordings of older versions (oracle/steps-v1.3X/) can be
# redone.
#
#   scenarios/oracle/build-oracle.sh 1.35.4 [SRCDIR [BIN]]
#
# SRCDIR (default /tmp/oracle-src/v1.35) gets a copy of the kit's main.go and a
# go.mod that requires k8s.io/kubernetes v1.35.4 and replaces every staging
# module that release's own go.mod names (k8s.io/api, k8s.io/client-go, ...)
# with its v0.35.4 release: the ordinary way to import k8s.io/kubernetes. BIN
# (default /tmp/oracle-bin/v1.35/oracle) is the binary; set ORACLE_BIN to it for
# record-steps.sh. The newest patches the Go module proxy serves:
# `go list -m -versions k8s.io/kubernetes` (1.34.4, 1.35.4, 1.36.3, 1.37.2 when
# this was written). A build takes 10-20 minutes on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
kit=${ORACLE_KIT:-$repo/../shared/oracle}
ver=${1:?kubernetes version, e.g. 1.35.4}; ver=${ver#v}
minor=${ver%.*}
src=${2:-/tmp/oracle-src/v$minor}
bin=${3:-/tmp/oracle-bin/v$minor/oracle}
staging=0.${ver#1.}
export GOWORK=off GOFLAGS=-mod=mod
mkdir -p "$src" "$(dirname "$bin")"
sed "s/v1\.37\.2/v$ver/g" "$kit/main.go" > "$src/main.go"
kmod=$(go mod download -json "k8s.io/kubernetes@v$ver" | python3 -c 'import json,sys; print(json.load(sys.stdin)["GoMod"])')
{
  printf 'module drasim-oracle\n\ngo 1.26.0\n\nrequire (\n\tk8s.io/component-base v%s\n\tk8s.io/kubernetes v%s\n)\n\n' "$staging" "$ver"
  # kubernetes' go.mod: "k8s.io/api => ./staging/src/k8s.io/api"
  grep -oE '^\s*k8s\.io/[a-z0-9-]+ => \./staging' "$kmod" | awk -v v="v$staging" '{print "replace " $1 " => " $1 " " v}'
} > "$src/go.mod"
cd "$src"
go mod tidy
nice -n 10 go build -o "$bin" .
echo "$bin"
