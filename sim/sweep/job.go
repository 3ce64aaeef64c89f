package sweep

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Where a sweep's pod finds its files and writes its rows.
const (
	JobInputsDir  = "/sweep"
	JobResultsDir = "/results"
	// JobIndexEnv is the variable the Job controller sets to a pod's
	// completion index; the pod's --shard names it.
	JobIndexEnv = "JOB_COMPLETION_INDEX"
	// MaxConfigMapBytes is what one ConfigMap holds.
	MaxConfigMapBytes = 1 << 20
)

// JobOptions describe the Kubernetes Job that runs a sweep: one pod per
// shard (an Indexed Job's completion index is the shard).
type JobOptions struct {
	// Name of the Job (and of its ConfigMap, with -inputs); default the
	// sweep's name.
	Name      string
	Namespace string
	// Image holds drasim as its entrypoint (the repository's Dockerfile
	// builds it).
	Image           string
	ImagePullPolicy v1.PullPolicy
	// Completions is the number of shards; Parallelism the pods at once
	// (default Completions).
	Completions int
	Parallelism int
	// Workers is the runs at once in one pod (sweep --workers).
	Workers int
	// CPU and Memory are each pod's requests; MemoryLimit its limit. The
	// pod's --max-memory is the memory request.
	CPU, Memory, MemoryLimit resource.Quantity
	// InputsPVC, when set, is a PersistentVolumeClaim that holds the
	// bundle's files (Bundle.Root copied to the volume's root); else they
	// go in a ConfigMap.
	InputsPVC string
	// ResultsPVC, when set, is a PersistentVolumeClaim every shard writes
	// its results to; else each pod writes to an emptyDir and prints its
	// results to its log for the collector (docs/sweeps.md).
	ResultsPVC string
	// BackoffLimitPerIndex is how often a failed shard is retried.
	BackoffLimitPerIndex int32
	// ActiveDeadlineSeconds bounds the Job's run time (0: no bound).
	ActiveDeadlineSeconds int64
}

// Bundle is every file a sweep reads, laid out under one root as the
// sweep file names them, so that the sweep file works unchanged when the
// root is mounted elsewhere (a Job's /sweep).
type Bundle struct {
	Root string
	// Sweep is the sweep file's path under Root.
	Sweep string
	// Files are the sweep file, then every file the runs read.
	Files []BundleFile
}

// BundleFile is one file of a bundle.
type BundleFile struct {
	// Path is the file's path under the bundle's root; Abs where it is.
	Path, Abs string
	// Key is its key in the ConfigMap.
	Key string
}

var unsafeKey = regexp.MustCompile(`[^-._a-zA-Z0-9]`)

// Bundle lays out the sweep file and the files its runs read under their
// deepest common directory. Paths the sweep file gives as absolute paths
// cannot be carried to another machine and are an error.
func (p *Plan) Bundle() (*Bundle, error) {
	if len(p.absolute) > 0 {
		errs := &errorList{file: p.File}
		for _, a := range p.absolute {
			errs.add("", a[0], "%s is an absolute path: a Job's pod cannot read it; name it relative to the sweep file", a[1])
		}
		return nil, errs.err()
	}
	sweepAbs, err := filepath.Abs(p.File)
	if err != nil {
		return nil, err
	}
	root := p.Dir
	for _, f := range p.Reads {
		root = commonDir(root, filepath.Dir(f))
	}
	b := &Bundle{Root: root}
	for i, abs := range append([]string{sweepAbs}, p.Reads...) {
		rel, err := filepath.Rel(root, abs)
		if err != nil {
			return nil, err
		}
		rel = filepath.ToSlash(rel)
		key := fmt.Sprintf("%02d-%s", i, unsafeKey.ReplaceAllString(filepath.Base(abs), "_"))
		if i == 0 {
			b.Sweep = rel
		}
		b.Files = append(b.Files, BundleFile{Path: rel, Abs: abs, Key: key})
	}
	return b, nil
}

// commonDir is the deepest directory holding both a and b.
func commonDir(a, b string) string {
	for {
		rel, err := filepath.Rel(a, b)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return a
		}
		parent := filepath.Dir(a)
		if parent == a {
			return a
		}
		a = parent
	}
}

// JobArgs are the arguments of a sweep pod's drasim: run the sweep file
// from the mounted bundle, the shard named by the completion index.
func JobArgs(b *Bundle, opts JobOptions) []string {
	args := []string{"sweep", JobInputsDir + "/" + b.Sweep,
		fmt.Sprintf("--shard=%s/%d", JobIndexEnv, opts.Completions),
		"--output-dir=" + JobResultsDir,
		"--workers=" + strconv.Itoa(max(opts.Workers, 1)),
	}
	if !opts.Memory.IsZero() {
		args = append(args, "--max-memory="+opts.Memory.String())
	}
	if opts.ResultsPVC == "" {
		args = append(args, "--print-results")
	}
	return args
}

// Job returns the objects that run the sweep on a cluster: the ConfigMap
// with the bundle (unless the inputs are on a volume) and the Indexed Job.
func (p *Plan) Job(b *Bundle, opts JobOptions) ([]any, error) {
	if opts.Image == "" {
		return nil, fmt.Errorf("no image: build one with the repository's Dockerfile and name it")
	}
	if opts.Completions < 1 {
		return nil, fmt.Errorf("completions must be at least 1, got %d", opts.Completions)
	}
	if opts.Completions > len(p.Runs) {
		return nil, fmt.Errorf("%d completions for %d runs: a shard would have no run", opts.Completions, len(p.Runs))
	}
	name := opts.Name
	if name == "" {
		name = p.Name
	}
	parallelism := opts.Parallelism
	if parallelism <= 0 {
		parallelism = opts.Completions
	}
	labels := map[string]string{"app.kubernetes.io/name": "drasim", "app.kubernetes.io/component": "sweep", "drasim.io/sweep": p.Name}
	var objects []any
	var inputs v1.Volume
	if opts.InputsPVC != "" {
		inputs = v1.Volume{Name: "inputs", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: opts.InputsPVC, ReadOnly: true}}}
	} else {
		cm, err := bundleConfigMap(b, name+"-inputs", opts.Namespace, labels)
		if err != nil {
			return nil, err
		}
		objects = append(objects, cm)
		src := &v1.ConfigMapVolumeSource{LocalObjectReference: v1.LocalObjectReference{Name: cm.Name}}
		for _, f := range b.Files {
			src.Items = append(src.Items, v1.KeyToPath{Key: f.Key, Path: f.Path})
		}
		inputs = v1.Volume{Name: "inputs", VolumeSource: v1.VolumeSource{ConfigMap: src}}
	}
	results := v1.Volume{Name: "results", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}
	if opts.ResultsPVC != "" {
		results.VolumeSource = v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: opts.ResultsPVC}}
	}
	res := v1.ResourceRequirements{Requests: v1.ResourceList{}, Limits: v1.ResourceList{}}
	if !opts.CPU.IsZero() {
		res.Requests[v1.ResourceCPU] = opts.CPU
	}
	if !opts.Memory.IsZero() {
		res.Requests[v1.ResourceMemory] = opts.Memory
	}
	if !opts.MemoryLimit.IsZero() {
		res.Limits[v1.ResourceMemory] = opts.MemoryLimit
	}
	nonRoot := int64(65532)
	completions, par := int32(opts.Completions), int32(parallelism)
	backoff := opts.BackoffLimitPerIndex
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: opts.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			CompletionMode:       ptr(batchv1.IndexedCompletion),
			Completions:          &completions,
			Parallelism:          &par,
			BackoffLimitPerIndex: &backoff,
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: v1.PodSpec{
					// backoffLimitPerIndex needs Never: a failed shard
					// gets a new pod (which resumes from a results
					// volume).
					RestartPolicy: v1.RestartPolicyNever,
					SecurityContext: &v1.PodSecurityContext{
						RunAsNonRoot: ptr(true), RunAsUser: &nonRoot, RunAsGroup: &nonRoot, FSGroup: &nonRoot,
						SeccompProfile: &v1.SeccompProfile{Type: v1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []v1.Container{{
						Name:            "sweep",
						Image:           opts.Image,
						ImagePullPolicy: opts.ImagePullPolicy,
						Args:            JobArgs(b, opts),
						Resources:       res,
						VolumeMounts: []v1.VolumeMount{
							{Name: "inputs", MountPath: JobInputsDir, ReadOnly: true},
							{Name: "results", MountPath: JobResultsDir},
						},
						SecurityContext: &v1.SecurityContext{
							AllowPrivilegeEscalation: ptr(false),
							ReadOnlyRootFilesystem:   ptr(true),
							Capabilities:             &v1.Capabilities{Drop: []v1.Capability{"ALL"}},
						},
					}},
					Volumes: []v1.Volume{inputs, results},
				},
			},
		},
	}
	if opts.ActiveDeadlineSeconds > 0 {
		job.Spec.ActiveDeadlineSeconds = &opts.ActiveDeadlineSeconds
	}
	return append(objects, job), nil
}

func ptr[T any](v T) *T { return &v }

// bundleConfigMap holds the bundle's files, one key each.
func bundleConfigMap(b *Bundle, name, namespace string, labels map[string]string) (*v1.ConfigMap, error) {
	cm := &v1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels},
		Data:       map[string]string{},
	}
	total := 0
	for _, f := range b.Files {
		data, err := os.ReadFile(f.Abs)
		if err != nil {
			return nil, err
		}
		total += len(data)
		if utf8.Valid(data) {
			cm.Data[f.Key] = string(data)
		} else {
			if cm.BinaryData == nil {
				cm.BinaryData = map[string][]byte{}
			}
			cm.BinaryData[f.Key] = data
		}
	}
	if total > MaxConfigMapBytes-64<<10 {
		return nil, fmt.Errorf("the sweep's files take %s, more than a ConfigMap holds (1 MiB): copy %s to a volume and name its PersistentVolumeClaim (--inputs-pvc)", formatBytes(int64(total)), b.Root)
	}
	return cm, nil
}

// WriteObjects writes Kubernetes objects as one YAML stream, without the
// empty status and creationTimestamp fields that typed objects carry.
func WriteObjects(objects []any) ([]byte, error) {
	var out []byte
	for i, o := range objects {
		data, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, err
		}
		prune(m)
		y, err := yaml.Marshal(m)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out = append(out, "---\n"...)
		}
		out = append(out, y...)
	}
	return out, nil
}

// prune drops empty status objects and null creation timestamps.
func prune(m map[string]any) {
	for k, v := range m {
		switch t := v.(type) {
		case map[string]any:
			prune(t)
			if len(t) == 0 && (k == "status" || k == "resources" || k == "limits" || k == "requests") {
				delete(m, k)
			}
		case []any:
			for _, e := range t {
				if em, ok := e.(map[string]any); ok {
					prune(em)
				}
			}
		case nil:
			if k == "creationTimestamp" {
				delete(m, k)
			}
		}
	}
}
