package builtins

import "starbench/internal/runtime"

// NewVSphereModule returns the `vsphere` module: vSphere inventory and worker VMs.
func NewVSphereModule(deps Deps) *runtime.Module {
	return &runtime.Module{
		Name:    "vsphere",
		Doc:     "vSphere inventory and worker VMs",
		Members: []runtime.Member{},
	}
}
