package cli

import (
	"context"
	"encoding/json"
	"fmt"

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
	case split.DOMWorlds < 0 || split.DeviceWorlds < 0 || split.DiskGroupWorlds < 0:
		err = usagef("split", "world counts are positive numbers (0 keeps the model's)")
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
	params, err := model.Refit(context.Background(), split)
	if err != nil {
		fmt.Fprintf(st.Stderr, "starbench split: %v\n", err)
		return ExitScriptError
	}
	p.Model.Each(func(name string, q *testbed.Param) {
		if r, ok := params[name]; ok {
			*q = r
		}
	})
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
