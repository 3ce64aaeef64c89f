package result

// Edit is what one what-if edit changed (see docs/whatif.md), in the order
// the edits were applied.
type Edit struct {
	// Index is the edit's 1-based position among all edits applied.
	Index int `json:"index"`
	// Source names where the edit came from: "edits.yaml edits[2]" or
	// "--drain".
	Source string `json:"source"`
	// Type is the edit's kind: drain, cordon, removeNodes, addNodes,
	// taintDevices, removeDriver, scale, setRequests or setPriority.
	Type string `json:"type"`
	// Description echoes the edit in words.
	Description string `json:"description"`
	// Nodes are the nodes the edit drained, cordoned, removed or added.
	Nodes []string `json:"nodes,omitempty"`
	// Devices counts the devices the edit tainted or removed.
	Devices int `json:"devices,omitempty"`
	// Evicted are the pods the edit took off their nodes and queued again
	// as replacements, and where the replay put them.
	Evicted []MovedPod `json:"evicted,omitempty"`
	// Blocked are the evictions a PodDisruptionBudget refused: the pods stay
	// where they are.
	Blocked []BlockedEviction `json:"blocked,omitempty"`
	// Added are the pods the edit created (scale-ups, daemon pods of new
	// nodes) and where the replay put them.
	Added []MovedPod `json:"added,omitempty"`
	// Removed are the pods the edit deleted for good (scale-downs, daemon
	// and static pods of removed nodes).
	Removed []string `json:"removed,omitempty"`
	// Changed are the pods whose spec the edit changed in place (new
	// priorities).
	Changed []string `json:"changed,omitempty"`
	// Warnings say where drasim's model of the edit differs from what kube
	// would do.
	Warnings []string `json:"warnings,omitempty"`
}

// MovedPod is a pod an edit queued, with where it was and where it went.
type MovedPod struct {
	Pod string `json:"pod"`
	// From is the node the pod ran on before the edit ("" for new pods).
	From string `json:"from,omitempty"`
	// Phase and Node are the pod's outcome in the replay after the edits.
	Phase string `json:"phase"`
	Node  string `json:"node,omitempty"`
}

// BlockedEviction is an eviction a PodDisruptionBudget refused.
type BlockedEviction struct {
	Pod    string `json:"pod"`
	Node   string `json:"node"`
	Budget string `json:"budget"`
	// Reason is the API server's refusal in its own words.
	Reason string `json:"reason"`
}
