// Command reduce turns one oracle recording (kept by a replay with
// SCHED_V=10) into the step-wise test data of a scenario:
//
//	go run ./internal/oraclelog/reduce -scenario 17-ties-gpu-fleet.yaml \
//	    -log RAW/scheduler.log.gz -pods RAW/pods.out.yaml -summary REC/17-ties-gpu-fleet.json \
//	    > scenarios/oracle/steps/17-ties-gpu-fleet.json
//
// -summary is the oracle's summarize.py output for the same run (devices
// per pod). See scenarios/README.md for the whole procedure.
package main

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/drasim/drasim/internal/oraclelog"
	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "reduce:", err)
		os.Exit(1)
	}
}

func run() error {
	scenario := flag.String("scenario", "", "the scenario's file name (recorded in the output)")
	logPath := flag.String("log", "", "kube-scheduler log (-v=10), plain or .gz")
	podsPath := flag.String("pods", "", "kubectl get pods -A -o yaml after the replay")
	summaryPath := flag.String("summary", "", "summarize.py output of the same run")
	flag.Parse()
	if *logPath == "" || *podsPath == "" || *summaryPath == "" || *scenario == "" {
		return fmt.Errorf("-scenario, -log, -pods and -summary are required")
	}
	f, err := os.Open(*logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(*logPath, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("%s: %w", *logPath, err)
		}
		r = zr
	}
	rec := oraclelog.Recording{Scenario: *scenario}
	if rec.Plugins, rec.Cycles, err = oraclelog.ParseSchedulerLog(r); err != nil {
		return fmt.Errorf("%s: %w", *logPath, err)
	}
	summary := map[string]struct {
		Devices []string `json:"devices"`
	}{}
	data, err := os.ReadFile(*summaryPath)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &summary); err != nil {
		return fmt.Errorf("%s: %w", *summaryPath, err)
	}
	rec.Devices = map[string][]string{}
	for pod, s := range summary {
		if len(s.Devices) > 0 {
			rec.Devices[pod] = s.Devices
		}
	}
	data, err = os.ReadFile(*podsPath)
	if err != nil {
		return err
	}
	var pods struct {
		Items []v1.Pod `json:"items"`
	}
	if err := yaml.Unmarshal(data, &pods); err != nil {
		return fmt.Errorf("%s: %w", *podsPath, err)
	}
	rec.ClaimNames = map[string]map[string]string{}
	for _, p := range pods.Items {
		for _, st := range p.Status.ResourceClaimStatuses {
			if st.ResourceClaimName == nil {
				continue
			}
			key := p.Namespace + "/" + p.Name
			if rec.ClaimNames[key] == nil {
				rec.ClaimNames[key] = map[string]string{}
			}
			rec.ClaimNames[key][st.Name] = *st.ResourceClaimName
		}
	}
	return rec.WriteJSON(os.Stdout)
}
