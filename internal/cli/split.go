package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"starbench/internal/model"
	"starbench/internal/testbed"
)

// splitCmd writes a testbed profile whose model has the worlds a real
// cluster showed (scripts/vsan_worlds.star) and the fitted cycles refitted
// to the calibration with them (model.Refit).
func splitCmd(st *State, args []string) int {
	fs := newFlagSet("split")
	var split model.Split
	var name string
	fs.Float64Var(&split.DOMWorlds, "dom-worlds", 0, "DOM worlds a host (dom_worlds_per_host): the busy DOM worlds of vsan_worlds.star's dom run on a real cluster; 0 keeps the model's")
	fs.Float64Var(&split.DeviceWorlds, "device-worlds", 0, "ESA's LSOM worlds a capacity device (device_worlds); 0 keeps the model's")
	fs.Float64Var(&split.DiskGroupWorlds, "diskgroup-worlds", 0, "OSA's LSOM worlds a disk group (diskgroup_worlds); 0 keeps the model's")
	fs.StringVar(&name, "testbed", "storagereview-r6625-esa", "the testbed profile to write with them: a shipped name or a JSON file")
	pos, code, done := parseFlags(st, "split", fs, args)
	if done {
		return code
	}
	var err error
	switch {
	case len(pos) > 0:
		err = usagef("split", "takes no arguments, only flags; got %q", pos[0])
	case !wholeCounts(split.DOMWorlds, split.DeviceWorlds, split.DiskGroupWorlds):
		err = usagef("split", "world counts are whole numbers of worlds, like 16 (0 keeps the model's)")
	case split == model.Split{}:
		err = usagef("split", "give --dom-worlds, --device-worlds or --diskgroup-worlds: the worlds a real cluster showed (scripts/vsan_worlds.star)")
	}
	if err != nil {
		return reportUsage(st, err)
	}
	p, err := testbed.Load(name)
	if err != nil {
		fmt.Fprintf(st.Stderr, "starbench split: %v\n", err)
		return ExitUsage
	}
	if threads := p.CPU.Threads(); max(split.DOMWorlds, split.DeviceWorlds, split.DiskGroupWorlds) > float64(threads) {
		fmt.Fprintf(st.Stderr, "starbench split: testbed %s's hosts have %d hardware threads, and a world runs on one: give at most %d worlds (the busy worlds scripts/vsan_worlds.star counted on one host)\n", p.Name, threads, threads)
		return ExitUsage
	}
	params, err := model.Refit(context.Background(), split)
	if err != nil {
		fmt.Fprintf(st.Stderr, "starbench split: %v\n", err)
		return ExitScriptError
	}
	p.Model.Set(params)
	p.Name += "-split"
	p.Description += "; vSAN's worlds as a real cluster showed them, the fitted cycles refitted to the calibration (starbench split)"
	out, err := json.MarshalIndent(p, "", "  ")
	if err == nil {
		_, err = testbed.Parse(out) // what is written loads as a profile
	}
	if err != nil {
		fmt.Fprintf(st.Stderr, "starbench split: writing the profile: %v\n", err)
		return ExitScriptError
	}
	fmt.Fprintf(st.Stdout, "%s\n", out)
	return ExitOK
}

// wholeCounts reports whether each count is a whole number of worlds, 0
// or more.
func wholeCounts(counts ...float64) bool {
	for _, n := range counts {
		if n < 0 || n != math.Trunc(n) {
			return false
		}
	}
	return true
}
