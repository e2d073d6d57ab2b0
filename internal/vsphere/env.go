package vsphere

import (
	"fmt"
	"strconv"
	"time"
)

// EnvVar is one govc environment variable starbench honours.
type EnvVar struct{ Name, Doc string }

// EnvVars are the govc variables starbench reads, as govc users set them,
// in the order the help lists them.
var EnvVars = []EnvVar{
	{"GOVC_URL", "vCenter SDK URL, e.g. https://vc.example.com/sdk; when set, --target defaults to vcenter"},
	{"GOVC_USERNAME", "vCenter user"},
	{"GOVC_PASSWORD", "vCenter password (never printed, logged or stored)"},
	{"GOVC_INSECURE", "1 skips TLS verification (verified by default)"},
	{"GOVC_TLS_CA_CERTS", "CA certificate files to verify the vCenter with (several separated by :)"},
	{"GOVC_TLS_KNOWN_HOSTS", "file of \"host thumbprint\" lines the vCenter's certificate may match instead"},
	{"GOVC_TLS_HANDSHAKE_TIMEOUT", "how long the TLS handshake may take, e.g. 30s"},
	{"GOVC_DATACENTER", "datacenter, when there are several"},
	{"GOVC_CLUSTER", "cluster, when the datacenter has several"},
	{"GOVC_DATASTORE", "datastore of worker VMs (default: the cluster's vSAN datastore)"},
	{"GOVC_NETWORK", "network of worker VMs (default: the template's)"},
	{"GOVC_RESOURCE_POOL", "resource pool of worker VMs, in the cluster (default: the cluster's own)"},
	{"GOVC_FOLDER", "VM folder of worker VMs (default: the datacenter's)"},
	{"GOVC_HOST", "the one host to put worker VMs on (default: spread over the cluster's hosts)"},
}

// OptionsFromEnv reads the connection and placement settings of EnvVars.
func OptionsFromEnv(env func(string) string) (Options, error) {
	opts := Options{
		URL:        env("GOVC_URL"),
		Username:   env("GOVC_USERNAME"),
		Password:   env("GOVC_PASSWORD"),
		Datacenter: env("GOVC_DATACENTER"),
		Cluster:    env("GOVC_CLUSTER"),
		CACerts:    env("GOVC_TLS_CA_CERTS"),
		KnownHosts: env("GOVC_TLS_KNOWN_HOSTS"),
		Placement: Placement{
			Datastore: env("GOVC_DATASTORE"), Network: env("GOVC_NETWORK"),
			ResourcePool: env("GOVC_RESOURCE_POOL"), Folder: env("GOVC_FOLDER"), Host: env("GOVC_HOST"),
		},
	}
	if v := env("GOVC_INSECURE"); v != "" {
		insecure, err := strconv.ParseBool(v)
		if err != nil {
			return Options{}, fmt.Errorf("GOVC_INSECURE=%q is not a boolean: want 1/true or 0/false", v)
		}
		opts.Insecure = insecure
	}
	if v := env("GOVC_TLS_HANDSHAKE_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return Options{}, fmt.Errorf("GOVC_TLS_HANDSHAKE_TIMEOUT=%q is not a duration: want e.g. 30s", v)
		}
		opts.HandshakeTimeout = d
	}
	return opts, nil
}
