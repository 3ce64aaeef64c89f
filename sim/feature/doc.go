// Package feature holds the Kubernetes feature gates drasim models, with
// their v1.37 defaults: parsing a --feature-gates value, and what the
// gates switch on in the DRA allocator (AllocatorFeatures) and in its CEL
// environment (CELFeatures). It stands below every package that reads a
// gate (dra, inventory, cluster, schedule, autoscale, validate), so none of
// them has to import another user of the gates to learn their values.
package feature
