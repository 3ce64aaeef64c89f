package validate

import "testing"

// workload is a controller of kind with the given spec lines after
// `spec:`, and a valid pod template below them.
func workload(apiVersion, kind, spec, templateLabels string) string {
	return `apiVersion: ` + apiVersion + `
kind: ` + kind + `
metadata: {name: w}
spec:
` + spec + `  template:
    metadata: {labels: ` + templateLabels + `}
    spec:
      restartPolicy: Always
      containers: [{name: c, image: i}]`
}

func TestWorkloads(t *testing.T) {
	runCases(t, []validateCase{
		{
			name: "Deployment: replicas not negative, selector matches the template",
			yaml: docs(cluster, workload("apps/v1", "Deployment", "  replicas: -2\n  selector: {matchLabels: {app: a}}\n", "{app: b}")),
			want: []triple{
				{CodeInvalidValue, `Deployment "default/w"`, "spec.replicas"},
				{CodeInvalidValue, `Deployment "default/w"`, "spec.template.metadata.labels"},
			},
		},
		{
			name: "ReplicaSet: a selector is required",
			yaml: docs(cluster, workload("apps/v1", "ReplicaSet", "  replicas: 1\n", "{app: a}")),
			want: []triple{{CodeRequired, `ReplicaSet "default/w"`, "spec.selector"}},
		},
		{
			name: "StatefulSet: an empty selector is invalid",
			yaml: docs(cluster, workload("apps/v1", "StatefulSet", "  replicas: -1\n  selector: {}\n", "{app: a}")),
			want: []triple{
				{CodeInvalidValue, `StatefulSet "default/w"`, "spec.replicas"},
				{CodeInvalidValue, `StatefulSet "default/w"`, "spec.selector"},
			},
		},
		{
			name: "DaemonSet: selector expressions must match the template",
			yaml: docs(cluster, workload("apps/v1", "DaemonSet", "  selector: {matchExpressions: [{key: app, operator: In, values: [a]}]}\n", "{app: b}")),
			want: []triple{{CodeInvalidValue, `DaemonSet "default/w"`, "spec.template.metadata.labels"}},
		},
		{
			name: "a malformed selector",
			yaml: docs(cluster, workload("apps/v1", "Deployment", "  selector: {matchExpressions: [{key: app, operator: Near, values: [a]}]}\n", "{app: a}")),
			want: []triple{{CodeInvalidValue, `Deployment "default/w"`, "spec.selector"}},
		},
		{
			name: "Job: parallelism and completions not negative; a given selector matches the template",
			yaml: docs(cluster, `apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  parallelism: -1
  completions: -4
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: b}}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: i}]`),
			want: []triple{
				{CodeInvalidValue, `Job "default/j"`, "spec.completions"},
				{CodeInvalidValue, `Job "default/j"`, "spec.parallelism"},
				{CodeInvalidValue, `Job "default/j"`, "spec.template.metadata.labels"},
			},
		},
		{
			name: "Job: the selector may name the labels the API server generates",
			yaml: docs(cluster, `apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  selector: {matchLabels: {job-name: j}}
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: i}]`),
		},
		{
			name: "valid controllers",
			yaml: docs(cluster,
				workload("apps/v1", "Deployment", "  replicas: 0\n  selector: {matchLabels: {app: a}}\n", "{app: a, tier: x}"),
				workload("apps/v1", "StatefulSet", "  selector: {matchExpressions: [{key: app, operator: Exists}]}\n", "{app: b}"),
				`apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: i}]`),
		},
	})
}
