// Package strictyaml checks a YAML document against the Go type it is
// decoded into through sigs.k8s.io/yaml (that is, through the type's JSON
// tags), and reports every problem at once, each with its line and its
// path in the document's own words: unknown fields (with the field
// meant), duplicate fields, and values of the wrong kind.
//
// sigs.k8s.io/yaml's UnmarshalStrict stops at the first problem and says
// it in JSON's words ("error unmarshaling JSON: while decoding JSON:
// json: unknown field "maxx""), without a line: a user editing YAML
// should read "g.yaml:7: gates[1].maxPendingPods: unknown field "maxx"
// (did you mean max?)". Check finds the problems; the caller still
// decodes with sigs.k8s.io/yaml, so values are read exactly as before.
package strictyaml
