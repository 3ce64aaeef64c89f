package report

import (
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// WriteJSON writes v as indented JSON, one value followed by a newline: the
// -o json of the commands whose output type has no renderer of its own.
func WriteJSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// WriteYAML writes v as YAML (its JSON fields, keys sorted): the -o yaml of
// the commands whose output type has no renderer of its own.
func WriteYAML(w io.Writer, v any) error {
	data, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}
