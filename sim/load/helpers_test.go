package load

import "github.com/drasim/drasim/sim/snapshot"

func refOf(kind, ns, name string) snapshot.Ref {
	return snapshot.Ref{Kind: kind, Namespace: ns, Name: name}
}
