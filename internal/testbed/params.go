package testbed

// ModelParams are the data-plane model's parameters for one testbed.
// Owned by internal/model; each field documents its source.
type ModelParams struct{}
