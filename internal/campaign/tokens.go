package campaign

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// A restore token is the text the store keeps for the setting a factor's
// first change replaced, so that even a later process can put it back:
// "level:N" for the factor's N-th level, "json:VALUE" for a value that
// encodes as JSON, and "memo:PID:FACTOR" for anything else (restorable only
// by the process PID, which holds the value in memory).

// LevelToken is the token of a factor's level i.
func LevelToken(i int) string { return "level:" + strconv.Itoa(i) }

// JSONToken is the token of a setting that encodes as JSON text.
func JSONToken(text string) string { return "json:" + text }

// MemoToken is the token of a setting only this process can restore.
func MemoToken(factor string) string { return fmt.Sprintf("memo:%d:%s", os.Getpid(), factor) }

// Token is a restore token read back.
type Token struct {
	// Level is the level's index for a "level:" token, else -1.
	Level int
	// JSON is the encoded setting of a "json:" token.
	JSON   string
	IsJSON bool
}

// ParseToken reads token for factor f: a level index or JSON text. Any other
// token, or a level f does not have, is an error wrapping ErrUnrestorable.
func ParseToken(f Factor, token string) (Token, error) {
	kind, body, _ := strings.Cut(token, ":")
	switch kind {
	case "level":
		i, err := strconv.Atoi(body)
		if err != nil || i < 0 || i >= len(f.Levels) {
			return Token{}, fmt.Errorf("%w: the store's original setting %q is not a level of %s; set it back by hand", ErrUnrestorable, token, f.Name)
		}
		return Token{Level: i}, nil
	case "json":
		return Token{Level: -1, JSON: body, IsJSON: true}, nil
	}
	return Token{}, fmt.Errorf("%w: the setting %s had before the campaign was known only to an earlier process that stopped; set it back by hand", ErrUnrestorable, f.Name)
}

// BadJSONToken is the error for a "json:" token whose text does not decode.
func BadJSONToken(token string, err error) error {
	return fmt.Errorf("%w: the store's original setting %q: %v; set it back by hand", ErrUnrestorable, token, err)
}
