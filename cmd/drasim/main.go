// Command drasim simulates Kubernetes scheduling with Dynamic Resource
// Allocation on a snapshot of a cluster.
package main

import "github.com/drasim/drasim/cmd/drasim/app"

func main() {
	app.Main()
}
