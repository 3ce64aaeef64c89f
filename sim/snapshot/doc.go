// Package snapshot holds the typed objects of one cluster snapshot, exactly as
// the loader read them (converted to resource.k8s.io/v1 and defaulted as the API
// server would), together with where each object came from so that every later
// message can name the file, the document and the object.
package snapshot
