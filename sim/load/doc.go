// Package load reads cluster snapshots: files, directories and standard input
// holding multi-document YAML, JSON and List objects, exactly as
// `kubectl get -o yaml` writes them. It converts resource.k8s.io/v1beta1 and
// v1beta2 objects to v1, applies the defaults the API server would apply, turns
// workload controllers into the pods their controllers would create (both
// sim/kube's), and records where every object came from.
//
// Errors name the file, the document (and line) and the object; unknown kinds
// are skipped with a warning, never an error.
//
// Files are read one document at a time. The block YAML that kubectl,
// sigs.k8s.io/yaml and `drasim generate` write, and JSON, are read by a fast
// reader straight into JSON for the typed decoders; any other file (YAML
// flow style, anchors, anything unusual or broken) by yaml.v3 through a
// generic map. Both give the same objects, warnings and errors.
// resource.k8s.io/v1 ResourceSlices, most of a large dump, are decoded
// straight from the fast reader's tree where every field is one the
// sliceDecoder knows (fastslice.go), with equal device lists and maps
// shared as they are decoded; any other goes the JSON way.
//
// Regular files are read in chunks that end at a document marker
// (chunks.go); the fast reader reads pieces of them, cut at the same
// markers, on every core (pieces.go), and the objects' JSON is decoded on
// every core, in batches (decode.go); both are added in input order: the
// snapshot, its order, the
// warnings and the errors are those of a sequential load of the whole
// text.
package load
