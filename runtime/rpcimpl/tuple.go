package rpcimpl

import (
	"encoding/json"
	"fmt"
)

// DecodeItems calls item for each item of the JSON array b, in order,
// after checking that it holds from min to max items; an item's error is
// placed at its index (see [AtIndex]). Generated decoders of tuples and
// of objects sent by position use it.
func DecodeItems(b []byte, min, max int, item func(i int, value []byte) error) error {
	if b = trimSpace(b); len(b) == 0 || b[0] != '[' {
		return fmt.Errorf("expected a JSON array of %s items", countWords(min, max))
	}
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil {
		return err
	}
	if len(items) < min || len(items) > max {
		return fmt.Errorf("expected a JSON array of %s items, got %d", countWords(min, max), len(items))
	}
	for i, v := range items {
		if err := item(i, v); err != nil {
			return AtIndex(i, err)
		}
	}
	return nil
}

// countWords writes "2" or "2 to 4".
func countWords(min, max int) string {
	if min == max {
		return fmt.Sprint(min)
	}
	return fmt.Sprintf("%d to %d", min, max)
}
