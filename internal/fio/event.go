package fio

// Event is one thing that happened to the cluster or the workloads during a
// run: a host failed, a snapshot was taken, a second workload started.
type Event struct {
	AtS    float64 // seconds after the measurement began, on the samples' time axis
	Kind   string  // "host_failure", "maintenance_enter", ... (docs/events.md)
	Target string  // the host, workers, job or setting it concerns
	Detail string
}
