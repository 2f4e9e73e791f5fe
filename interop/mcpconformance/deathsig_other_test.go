//go:build !linux

package mcpconformance_test

import "syscall"

// deathSignal is nil where there is no Pdeathsig: a program started by a
// test may then outlive a test binary that is killed.
func deathSignal() *syscall.SysProcAttr { return nil }
