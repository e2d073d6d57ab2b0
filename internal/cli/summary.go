package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"starbench/internal/atomicfile"
	"starbench/internal/campaign"
	"starbench/internal/runtime"
)

// runSummary is what `starbench run --summary-json FILE` writes.
type runSummary struct {
	ExitCode  int                 `json:"exit_code"`
	Script    string              `json:"script"`
	Campaigns []*campaign.Outcome `json:"campaigns"`
}

// finishRun turns a run that went through with failed campaign runs into
// ExitRunsFailed, saying how many, and writes the summary file if asked.
func finishRun(st *State, s *runtime.Session, code int, summaryPath string) int {
	if s.Plan {
		return code
	}
	outcomes, err := campaignOutcomes(s)
	if err != nil {
		fmt.Fprintf(st.Stderr, "starbench: %v\n", err)
		return ExitScriptError
	}
	for _, o := range outcomes {
		if o.Failed == 0 {
			continue
		}
		fmt.Fprintf(st.Stderr, "starbench: campaign %s: %d of %d stored runs failed (kept in %s; --rerun-failed runs them again)\n",
			o.Name, o.Failed, o.Runs, o.Store)
		if code == ExitOK {
			code = ExitRunsFailed
		}
	}
	if summaryPath != "" {
		sum := runSummary{ExitCode: code, Script: s.Script, Campaigns: outcomes}
		err := atomicfile.Write(summaryPath, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(sum)
		})
		if err != nil {
			fmt.Fprintf(st.Stderr, "starbench: writing --summary-json %s: %v\n", summaryPath, err)
			return ExitScriptError
		}
	}
	return code
}

// campaignOutcomes sums up every campaign store the session wrote.
func campaignOutcomes(s *runtime.Session) ([]*campaign.Outcome, error) {
	outcomes := []*campaign.Outcome{}
	for _, f := range s.Written() {
		if filepath.Ext(f) != ".db" {
			continue
		}
		o, err := campaign.ReadOutcome(context.Background(), f)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", f, err)
		}
		outcomes = append(outcomes, o)
	}
	return outcomes, nil
}
