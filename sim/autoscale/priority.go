package autoscale

import (
	"fmt"
	"regexp"
	"sort"

	"sigs.k8s.io/yaml"
)

// PriorityConfigMapName is the ConfigMap the priority expander reads in a
// real cluster (in the autoscaler's namespace).
const PriorityConfigMapName = "cluster-autoscaler-priority-expander"

// Priorities is the priority expander's configuration: node group name
// patterns per priority. The highest priority with a matching pattern wins.
type Priorities struct {
	levels []priorityLevel // highest first
}

type priorityLevel struct {
	priority int
	patterns []*regexp.Regexp
}

// ParsePriorities reads the priority expander's configuration in CA's
// format: the cluster-autoscaler-priority-expander ConfigMap, whose
// data.priorities holds a YAML map from priority to a list of regular
// expressions, its data alone (a priorities key), or that YAML map alone:
//
//	priorities: |-
//	  10:
//	    - .*-spot-.*
//	  50:
//	    - a100.*
//
// As in CA, the expressions are unanchored (regexp.MatchString).
func ParsePriorities(data []byte) (*Priorities, error) {
	var cm struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Data       map[string]string `json:"data"`
		Priorities *string           `json:"priorities"`
	}
	text := data
	if err := yaml.Unmarshal(data, &cm); err == nil {
		switch {
		case cm.Kind == "ConfigMap":
			p, ok := cm.Data["priorities"]
			if !ok {
				return nil, fmt.Errorf("ConfigMap %q has no data.priorities", cm.Metadata.Name)
			}
			text = []byte(p)
		case cm.Priorities != nil:
			text = []byte(*cm.Priorities) // the ConfigMap's data alone
		}
	}
	var raw map[int][]string
	if err := yaml.Unmarshal(text, &raw); err != nil {
		return nil, fmt.Errorf("cannot parse the priorities (a map from priority to a list of regular expressions): %w", err)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("no priorities given")
	}
	out := &Priorities{}
	for prio, list := range raw {
		level := priorityLevel{priority: prio}
		for _, expr := range list {
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, fmt.Errorf("priority %d: cannot compile %q: %w", prio, expr, err)
			}
			level.patterns = append(level.patterns, re)
		}
		out.levels = append(out.levels, level)
	}
	sort.Slice(out.levels, func(i, j int) bool { return out.levels[i].priority > out.levels[j].priority })
	return out, nil
}

// Of returns the highest priority whose patterns match the group.
func (p *Priorities) Of(group string) (int, bool) {
	for _, l := range p.levels {
		for _, re := range l.patterns {
			if re.MatchString(group) {
				return l.priority, true
			}
		}
	}
	return 0, false
}
