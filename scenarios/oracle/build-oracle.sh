#!/usr/bin/env bash
# Builds the oracle of an older Kubernetes release, for the step-wise
# recordings in oracle/steps-vX.Y/.
#
#   scenarios/oracle/build-oracle.sh 1.35.4 [SRCDIR [BINDIR]]
#
# The recorded decisions are kube-scheduler's, so the release's own
# kube-scheduler is built from k8s.io/kubernetes v1.35.4 (SRCDIR, default
# /tmp/oracle-src/v1.35: a main.go that runs only the scheduler and a go.mod
# that requires k8s.io/kubernetes v1.35.4 and replaces every staging module
# that release's go.mod names with its v0.35.4 release, the ordinary way to
# import k8s.io/kubernetes). kube-apiserver and the resource-claim
# controller come from the shared kit's v1.37.2 binary (ORACLE_BIN_137,
# default /tmp/oracle-bin/oracle) run with --emulated-version=1.35: they
# serve that release's APIs with its gate defaults and drop the fields of
# its disabled features, as its own would. That halves the build (the
# apiserver and controller-manager are two thirds of the kit's packages).
# FULL=1 builds the whole kit against the release instead.
#
# BINDIR (default /tmp/oracle-bin/v1.35) gets kube-scheduler and `oracle`, a
# wrapper with the kit's interface: pass it as ORACLE_BIN to record-steps.sh.
# The newest patches the Go module proxy serves: `go list -m -versions
# k8s.io/kubernetes` (1.34.4, 1.35.4, 1.36.3 and 1.37.2 when this was
# written). A scheduler build takes 10-20 minutes on 2 busy cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
kit=${ORACLE_KIT:-$repo/../shared/oracle}
ver=${1:?kubernetes version, e.g. 1.35.4}; ver=${ver#v}
minor=${ver%.*}
src=${2:-/tmp/oracle-src/v$minor}
bindir=${3:-/tmp/oracle-bin/v$minor}
base=${ORACLE_BIN_137:-/tmp/oracle-bin/oracle}
staging=0.${ver#1.}
export GOWORK=off GOFLAGS=-mod=mod
mkdir -p "$src" "$bindir"
if [ -n "${FULL:-}" ]; then
  sed "s/v1\.37\.2/v$ver/g" "$kit/main.go" > "$src/main.go"
else
  cat > "$src/main.go" <<GO
// Command kube-scheduler is kube-scheduler v$ver, for drasim's oracle.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() { os.Exit(cli.Run(scheduler.NewSchedulerCommand())) }
GO
fi
kmod=$(go mod download -json "k8s.io/kubernetes@v$ver" | python3 -c 'import json,sys; print(json.load(sys.stdin)["GoMod"])')
{
  printf 'module drasim-oracle\n\ngo 1.26.0\n\nrequire (\n\tk8s.io/component-base v%s\n\tk8s.io/kubernetes v%s\n)\n\n' "$staging" "$ver"
  # kubernetes' go.mod: "k8s.io/api => ./staging/src/k8s.io/api"
  grep -oE '^\s*k8s\.io/[a-z0-9-]+ => \./staging' "$kmod" | awk -v v="v$staging" '{print "replace " $1 " => " $1 " " v}'
} > "$src/go.mod"
cd "$src"
go mod tidy
if [ -n "${FULL:-}" ]; then
  nice -n 10 go build -o "$bindir/oracle" .
  echo "$bindir/oracle"; exit 0
fi
nice -n 10 go build -o "$bindir/kube-scheduler" .
cat > "$bindir/oracle" <<SH
#!/usr/bin/env bash
# The oracle kit's interface for Kubernetes v$minor: its own kube-scheduler
# v$ver; kube-apiserver and kube-controller-manager v1.37.2 emulating v$minor.
which=\$1; shift
case "\$which" in
  scheduler) exec "$bindir/kube-scheduler" "\$@" ;;
  apiserver|controller-manager)
    exec "$base" "\$which" --emulated-version=kube=$minor --min-compatibility-version=kube=$minor "\$@" ;;
esac
echo "unknown component \$which" >&2; exit 2
SH
chmod +x "$bindir/oracle"
echo "$bindir/oracle"
