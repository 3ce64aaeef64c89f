package generate

import (
	"bufio"
	"fmt"
	"io"

	"github.com/drasim/drasim/sim/snapshot"
	"sigs.k8s.io/yaml"
)

// WriteYAML writes the snapshot's objects as multi-document YAML, kind by
// kind in the order load.Load keeps them. Every object must carry its
// apiVersion and kind (Generate sets them). Pods that the loader made from
// workload controllers are left out: loading the controllers makes them
// again. Loading the output gives back the same objects.
func WriteYAML(w io.Writer, s *snapshot.Snapshot) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	n := 0
	write := func(obj any) error {
		data, err := yaml.Marshal(obj)
		if err != nil {
			return fmt.Errorf("encoding object %d: %w", n, err)
		}
		n++
		if _, err := bw.WriteString("---\n"); err != nil {
			return err
		}
		_, err = bw.Write(data)
		return err
	}
	var objs []any
	for _, o := range s.Namespaces {
		objs = append(objs, o)
	}
	for _, o := range s.PriorityClasses {
		objs = append(objs, o)
	}
	for _, o := range s.DeviceClasses {
		objs = append(objs, o)
	}
	for _, o := range s.Nodes {
		objs = append(objs, o)
	}
	for _, o := range s.ResourceSlices {
		objs = append(objs, o)
	}
	for _, o := range s.ResourceClaimTemplates {
		objs = append(objs, o)
	}
	for _, o := range s.ResourceClaims {
		objs = append(objs, o)
	}
	for _, o := range s.DeviceTaintRules {
		objs = append(objs, o)
	}
	for _, o := range s.Deployments {
		objs = append(objs, o)
	}
	for _, o := range s.ReplicaSets {
		objs = append(objs, o)
	}
	for _, o := range s.StatefulSets {
		objs = append(objs, o)
	}
	for _, o := range s.DaemonSets {
		objs = append(objs, o)
	}
	for _, o := range s.Jobs {
		objs = append(objs, o)
	}
	for _, o := range s.Pods {
		if s.Generated[snapshot.Ref{Kind: "Pod", Namespace: o.Namespace, Name: o.Name}] {
			continue
		}
		objs = append(objs, o)
	}
	for _, o := range s.NodeGroups {
		objs = append(objs, o)
	}
	for _, o := range objs {
		if err := write(o); err != nil {
			return err
		}
	}
	return bw.Flush()
}
