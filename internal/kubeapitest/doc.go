// Package kubeapitest starts a real kube-apiserver v1.37.2 for tests: a
// private etcd and the oracle binary's `apiserver` command (built from
// ../shared/oracle), on loopback ports chosen at run time so that tests,
// packages and developers running at the same time never collide. Everything
// it starts is stopped in t.Cleanup.
//
// It is the one place that knows how to start the API server; tests that
// need a real cluster (drasim capture, server-side validation) call Start.
//
// Where the binaries come from:
//
//   - ORACLE_BIN, default /tmp/oracle-bin/oracle
//     (cd ../shared/oracle && GOWORK=off go build -o /tmp/oracle-bin/oracle .)
//   - ETCD_BIN, default the etcd found on PATH (Debian: etcd-server)
//
// When either is missing the test is skipped with a message saying so,
// unless DRASIM_REQUIRE_INTEGRATION=1 (set by .ci/run, which installs etcd
// and builds the oracle binary): then it fails, so that CI never passes by
// skipping.
package kubeapitest
