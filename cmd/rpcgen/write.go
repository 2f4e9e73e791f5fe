package main

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/rpcgen/rpcgen/gen"
)

// earlyWriter writes each generator's files as soon as they are made,
// while the other generators run, once the Go generator's checks have
// passed: an IDL the Go generator rejects writes nothing.
type earlyWriter struct {
	dir    string
	w      *gen.Writer // nil with -check: nothing is written
	opened chan struct{}
	once   sync.Once
	passed atomic.Bool
}

// newEarlyWriter returns an earlyWriter writing below dir, or writing
// nothing when check is set. With waitGo, files wait for [earlyWriter.pass]
// or [earlyWriter.settle].
func newEarlyWriter(dir string, check, waitGo bool) *earlyWriter {
	e := &earlyWriter{dir: dir, opened: make(chan struct{})}
	if !check {
		e.w = gen.NewWriter(dir)
	}
	if !waitGo {
		e.pass()
	}
	return e
}

// pass records that the Go generator's checks have passed: files are
// written from now on.
func (e *earlyWriter) pass() {
	e.passed.Store(true)
	e.once.Do(func() { close(e.opened) })
}

// settle records that the Go generator has returned: files handed over
// until then wait no longer, and are dropped if its checks did not pass.
func (e *earlyWriter) settle() {
	e.once.Do(func() { close(e.opened) })
}

// write starts writing files, after waiting for the Go generator's checks.
func (e *earlyWriter) write(files []gen.File) {
	if e.w == nil || len(files) == 0 {
		return
	}
	<-e.opened
	if e.passed.Load() {
		e.w.Write(files)
	}
}

// abandon ends a run that failed with err: it waits for the files being
// written and, if any were, lists them in the manifest with those it
// listed before (removing nothing), so that every file generate wrote
// stays known as its own. It returns err.
func (e *earlyWriter) abandon(err error) error {
	if e.w == nil {
		return err
	}
	if werr := e.w.Close(); werr != nil {
		err = errors.Join(err, werr)
	}
	written := e.w.Written()
	if len(written) == 0 {
		return err
	}
	files := make([]gen.File, len(written))
	for i, p := range written {
		files[i] = gen.File{Path: p}
	}
	// With no output selected, the plan keeps every file listed before
	// that is still there, and removes nothing.
	pl, perr := makePlan(e.dir, files, outputs{})
	if perr == nil {
		perr = gen.Write(e.dir, pl.files[len(pl.files)-1:])
	}
	if perr != nil {
		err = errors.Join(err, fmt.Errorf("listing the files written: %w", perr))
	}
	return err
}
