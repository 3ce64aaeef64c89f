package app

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Modelled versions: what drasim's scheduling and API handling follow.
const (
	KubernetesVersion = "v1.37.2"
	ResourceAPI       = "resource.k8s.io/v1"
)

type versionInfo struct {
	Version           string `json:"version"`
	KubernetesVersion string `json:"kubernetesVersion"`
	ResourceAPI       string `json:"resourceAPI"`
	GoVersion         string `json:"goVersion"`
}

// NewVersionCommand prints drasim's module version and the Kubernetes
// version it models.
func NewVersionCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	return setFormats(&cobra.Command{
		Use:   "version",
		Short: "Print drasim's version and the Kubernetes version it models",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return versionFormats().write(streams.Out, g.Output, currentVersion())
		},
	}, versionFormats().names()...)
}

func currentVersion() versionInfo {
	info := versionInfo{Version: "(devel)", KubernetesVersion: KubernetesVersion, ResourceAPI: ResourceAPI}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			info.Version = bi.Main.Version
		}
		info.GoVersion = bi.GoVersion
	}
	return info
}

// line is what drasim version and drasim --version print.
func (v versionInfo) line() string {
	return fmt.Sprintf("drasim %s (models kube-scheduler %s, %s; built with %s)", v.Version, v.KubernetesVersion, v.ResourceAPI, v.GoVersion)
}
