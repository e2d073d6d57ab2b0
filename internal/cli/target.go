package cli

import (
	"context"
	"errors"
	"fmt"

	"starbench/builtins"
	"starbench/internal/runtime"
	"starbench/internal/target"
)

func (st *State) deps() builtins.Deps {
	open := st.OpenTarget
	if open == nil {
		open = openTarget
	}
	return builtins.Deps{OpenTarget: open}
}

// openTarget opens the target a session names.
func openTarget(ctx context.Context, s *runtime.Session) (*target.Target, func(), error) {
	if s.Target == "none" {
		return nil, nil, errors.New("starbench report drives no cluster: read the store given with --from, or use starbench run")
	}
	return nil, nil, fmt.Errorf("target %q cannot be opened: internal/target has no Open yet", s.Target)
}
