package app

import (
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// writeStructured writes v as JSON (indented) or YAML.
func writeStructured(w io.Writer, format string, v any) error {
	switch format {
	case "json":
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	case "yaml":
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	return usageErrorf("invalid output format %q: use table, json or yaml", format)
}

// checkOutput rejects an output format the command does not offer before any
// work is done.
func checkOutput(format string, allowed ...string) error {
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	return usageErrorf("invalid output format %q for this command: use one of %v", format, allowed)
}
