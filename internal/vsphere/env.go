package vsphere

import (
	"fmt"
	"strconv"
)

// OptionsFromEnv reads the connection settings govc users already have:
// GOVC_URL, GOVC_USERNAME, GOVC_PASSWORD, GOVC_INSECURE, GOVC_DATACENTER,
// GOVC_CLUSTER, GOVC_TLS_CA_CERTS and GOVC_TLS_KNOWN_HOSTS.
func OptionsFromEnv(env func(string) string) (Options, error) {
	opts := Options{
		URL:        env("GOVC_URL"),
		Username:   env("GOVC_USERNAME"),
		Password:   env("GOVC_PASSWORD"),
		Datacenter: env("GOVC_DATACENTER"),
		Cluster:    env("GOVC_CLUSTER"),
		CACerts:    env("GOVC_TLS_CA_CERTS"),
		KnownHosts: env("GOVC_TLS_KNOWN_HOSTS"),
	}
	if v := env("GOVC_INSECURE"); v != "" {
		insecure, err := strconv.ParseBool(v)
		if err != nil {
			return Options{}, fmt.Errorf("GOVC_INSECURE=%q is not a boolean: want 1/true or 0/false", v)
		}
		opts.Insecure = insecure
	}
	return opts, nil
}
