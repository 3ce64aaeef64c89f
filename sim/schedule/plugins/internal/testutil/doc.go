// Package testutil builds nodes, pods and cluster views for the plugin
// tests: MakeNode("n1").CPU("4").Label(k, v).Obj(), MakePod("p").Req(...),
// and a NodeLister over NodeInfos.
package testutil
