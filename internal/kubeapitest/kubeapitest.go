package kubeapitest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/drasim/drasim/internal/testenv"
	"k8s.io/client-go/rest"
)

// Admin is the user every server has: a member of system:masters.
var Admin = User{Name: "admin", Token: "kubeapitest-admin-token", Groups: []string{"system:masters"}}

// User is a user the API server knows by a static bearer token. RBAC decides
// what it may do: a user outside system:masters may do nothing until a test
// binds it to a role.
type User struct {
	Name   string
	Token  string
	Groups []string
}

// Options configure one API server.
type Options struct {
	// Users are token users besides Admin; each gets a context of its own
	// name in the kubeconfig.
	Users []User
	// FeatureGates is kube-apiserver's --feature-gates, e.g. "DRADeviceTaints=true".
	FeatureGates string
	// RuntimeConfig is kube-apiserver's --runtime-config, for API groups
	// that are off by default, e.g. "resource.k8s.io/v1alpha3=true".
	RuntimeConfig string
}

// Server is a running kube-apiserver.
type Server struct {
	// URL is https://127.0.0.1:PORT (a self-signed certificate: clients
	// skip verification, as ../shared/oracle/cluster.sh does).
	URL string
	// Dir holds the logs, the certificates and the kubeconfig; it is kept
	// when the test fails.
	Dir string
	// Kubeconfig is a kubeconfig file with one context per user: "admin"
	// (the current context) and one named after each Options.Users entry.
	Kubeconfig string
	users      []User
}

// Config returns a client configuration for the admin user.
func (s *Server) Config() *rest.Config { return s.ConfigFor(Admin.Name) }

// ConfigFor returns a client configuration for the named user (Admin or one
// of Options.Users); it panics on an unknown name, a bug in the test.
func (s *Server) ConfigFor(name string) *rest.Config {
	for _, u := range s.users {
		if u.Name == name {
			return &rest.Config{Host: s.URL, BearerToken: u.Token, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
		}
	}
	panic(fmt.Sprintf("kubeapitest: no user %q", name))
}

// Binaries returns the oracle binary and etcd, or skips (fails in CI) the
// test when either is missing.
func Binaries(t testing.TB) (oracle, etcd string) {
	t.Helper()
	oracle = os.Getenv("ORACLE_BIN")
	if oracle == "" {
		oracle = "/tmp/oracle-bin/oracle"
	}
	if st, err := os.Stat(oracle); err != nil || st.IsDir() {
		testenv.Missing(t, "kubeapitest: the oracle binary %s is missing (cd ../shared/oracle && GOWORK=off go build -o %s ., or set ORACLE_BIN)", oracle, oracle)
	}
	etcd = os.Getenv("ETCD_BIN")
	if etcd == "" {
		var err error
		if etcd, err = exec.LookPath("etcd"); err != nil {
			testenv.Missing(t, "kubeapitest: etcd is not on PATH (apt-get install etcd-server, or set ETCD_BIN)")
		}
	}
	return oracle, etcd
}

// startTimeout bounds how long etcd and the API server may take to become
// ready: kube-apiserver needs 10-40 s on two busy cores.
const startTimeout = 3 * time.Minute

// Start starts etcd and kube-apiserver and returns once the API server is
// ready and the default namespace exists. Both are stopped in t.Cleanup.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	oracle, etcd := Binaries(t)
	dir, err := os.MkdirTemp("", "kubeapitest-")
	if err != nil {
		t.Fatalf("kubeapitest: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("kubeapitest: logs kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	users := append([]User{Admin}, opts.Users...)
	// A port found free can be taken by someone else before our process
	// binds it; then start over on new ports.
	for attempt := 1; ; attempt++ {
		s, procs, err := start(filepath.Join(dir, strconv.Itoa(attempt)), oracle, etcd, users, opts)
		if err == nil {
			t.Cleanup(func() { stopAll(procs) })
			return s
		}
		stopAll(procs)
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			t.Fatalf("kubeapitest: %v", err)
		}
	}
}

var errPortTaken = errors.New("port taken")

func start(dir, oracle, etcd string, users []User, opts Options) (*Server, []*process, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, nil, err
	}
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	var procs []*process
	p, err := launch(dir, "etcd", etcd,
		"--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", ports[1]),
		"--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", ports[1]),
		"--initial-cluster", fmt.Sprintf("default=http://127.0.0.1:%d", ports[1]),
		"--unsafe-no-fsync")
	if err != nil {
		return nil, procs, err
	}
	procs = append(procs, p)
	deadline := time.Now().Add(startTimeout)
	if err := waitFor(p, deadline, func() bool { return get(etcdURL+"/health", "") == http.StatusOK }); err != nil {
		return nil, procs, err
	}

	if err := writeKeyPair(dir); err != nil {
		return nil, procs, err
	}
	var tokens strings.Builder
	for _, u := range users {
		fmt.Fprintf(&tokens, "%s,%s,%s,%q\n", u.Token, u.Name, u.Name, strings.Join(u.Groups, ","))
	}
	if err := os.WriteFile(filepath.Join(dir, "tokens.csv"), []byte(tokens.String()), 0o600); err != nil {
		return nil, procs, err
	}
	args := []string{"apiserver",
		"--etcd-servers", etcdURL, "--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(ports[2]),
		"--cert-dir", filepath.Join(dir, "certs"), "--token-auth-file", filepath.Join(dir, "tokens.csv"),
		"--authorization-mode", "RBAC", "--service-account-issuer", "https://kubeapitest.local",
		"--service-account-key-file", filepath.Join(dir, "sa.pub"),
		"--service-account-signing-key-file", filepath.Join(dir, "sa.key"),
		"--service-cluster-ip-range", "10.96.0.0/16",
		"--disable-admission-plugins", "ServiceAccount,Priority,TaintNodesByCondition",
		"--enable-priority-and-fairness=false", "--feature-gates", opts.FeatureGates,
	}
	if opts.RuntimeConfig != "" {
		args = append(args, "--runtime-config", opts.RuntimeConfig)
	}
	p, err = launch(dir, "apiserver", oracle, args...)
	if err != nil {
		return nil, procs, err
	}
	procs = append(procs, p)
	s := &Server{URL: fmt.Sprintf("https://127.0.0.1:%d", ports[2]), Dir: dir, Kubeconfig: filepath.Join(dir, "kubeconfig"), users: users}
	ready := func() bool {
		return get(s.URL+"/readyz", Admin.Token) == http.StatusOK &&
			get(s.URL+"/api/v1/namespaces/default", Admin.Token) == http.StatusOK
	}
	if err := waitFor(p, deadline, ready); err != nil {
		return nil, procs, err
	}
	if err := os.WriteFile(s.Kubeconfig, kubeconfig(s.URL, users), 0o600); err != nil {
		return nil, procs, err
	}
	return s, procs, nil
}

// kubeconfig writes one cluster and a context per user, "admin" current.
func kubeconfig(url string, users []User) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "apiVersion: v1\nkind: Config\ncurrent-context: %s\n", Admin.Name)
	fmt.Fprintf(&b, "clusters:\n- name: kubeapitest\n  cluster: {server: %q, insecure-skip-tls-verify: true}\n", url)
	b.WriteString("users:\n")
	for _, u := range users {
		fmt.Fprintf(&b, "- name: %s\n  user: {token: %q}\n", u.Name, u.Token)
	}
	b.WriteString("contexts:\n")
	for _, u := range users {
		fmt.Fprintf(&b, "- name: %s\n  context: {cluster: kubeapitest, user: %s}\n", u.Name, u.Name)
	}
	return b.Bytes()
}

// freePorts returns n loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// writeKeyPair writes the service-account signing key the API server needs.
func writeKeyPair(dir string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "sa.key"), pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "sa.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o600)
}

var insecureClient = &http.Client{
	Timeout:   5 * time.Second,
	Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
}

// get returns the status code of a GET, 0 when the request failed.
func get(url, token string) int {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		return 0
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := insecureClient.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// process is one started program and its log.
type process struct {
	name string
	log  string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func launch(dir, name, bin string, args ...string) (*process, error) {
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, log: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// waitFor polls ready until it holds, the process exits or the deadline passes.
func waitFor(p *process, deadline time.Time, ready func() bool) error {
	for {
		if ready() {
			return nil
		}
		select {
		case <-p.done:
			return p.failure(fmt.Sprintf("exited (%v)", p.err))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return p.failure(fmt.Sprintf("not ready after %s", startTimeout))
		}
	}
}

// failure describes why a process did not start, with the end of its log.
func (p *process) failure(what string) error {
	data, _ := os.ReadFile(p.log)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	tail := strings.Join(lines, "\n")
	err := fmt.Errorf("%s %s; end of %s:\n%s", p.name, what, p.log, tail)
	if strings.Contains(string(data), "address already in use") {
		return fmt.Errorf("%w: %w", errPortTaken, err)
	}
	return err
}

// stopAll stops the processes, the last started first: SIGTERM, then
// SIGKILL for whatever has not exited after a grace period.
func stopAll(procs []*process) {
	for i := len(procs) - 1; i >= 0; i-- {
		p := procs[i]
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
		}
	}
}
