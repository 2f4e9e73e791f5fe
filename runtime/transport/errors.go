package transport

import "fmt"

// wrapf prefixes err with "transport: " and a description of what failed.
func wrapf(err error, format string, args ...any) error {
	return fmt.Errorf("transport: "+format+": %w", append(args, err)...)
}
