package mcpts_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

// The recording proxy sits between an MCP client and the server it spawns:
// the client spawns the test binary as "test-binary -mcpts.proxy LOG
// command args...", and the proxy spawns the command, copies stdin to it and
// its stdout back, line by line, and appends every line to LOG, exactly as
// sent, after "-> " (client to server) or "<- " (server to client) and the
// milliseconds since the start. Lines of its own start with "## ". When the
// client closes the proxy's stdin, the proxy closes the server's and waits
// for the server; a server that ignores that outlives the proxy only until
// the client kills the proxy, as the server dies with it (Pdeathsig).

// Directions of a recorded line.
const (
	toServer = "->"
	toClient = "<-"
)

func proxyMain(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: test-binary -mcpts.proxy LOG command [args...]")
		return 2
	}
	// Pdeathsig follows the thread that started the child: keep this one.
	runtime.LockOSThread()
	f, err := os.OpenFile(args[0], os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxy:", err)
		return 1
	}
	defer f.Close()
	start := time.Now()
	var mu sync.Mutex
	logLine := func(prefix string, line []byte) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(f, "%s %8.1fms ", prefix, float64(time.Since(start).Microseconds())/1000)
		f.Write(line)
		if len(line) == 0 || line[len(line)-1] != '\n' {
			f.WriteString(" ## (no newline)\n")
		}
	}
	note := func(format string, a ...any) { logLine("##", []byte(fmt.Sprintf(format, a...)+"\n")) }

	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = deathSignal()
	in, err := cmd.StdinPipe()
	if err != nil {
		note("proxy: %v", err)
		return 1
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		note("proxy: %v", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		note("proxy: starting %s: %v", strings.Join(args[1:], " "), err)
		return 1
	}
	note("proxy: started %s (pid %d)", strings.Join(args[1:], " "), cmd.Process.Pid)
	go func() {
		copyLines(in, os.Stdin, func(l []byte) { logLine(toServer, l) }, note)
		note("proxy: the client closed stdin; closing the server's stdin")
		in.Close()
	}()
	copyLines(os.Stdout, out, func(l []byte) { logLine(toClient, l) }, note)
	err = cmd.Wait()
	note("proxy: the server exited: %v", errString(err))
	if err != nil {
		return 1
	}
	return 0
}

// copyLines copies src to dst a line at a time, recording each line.
func copyLines(dst io.Writer, src io.Reader, record func([]byte), note func(string, ...any)) {
	r := bufio.NewReaderSize(src, 1<<16)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			record(line)
			if _, werr := dst.Write(line); werr != nil {
				note("proxy: forwarding: %v", werr)
			}
		}
		if err != nil {
			if err != io.EOF {
				note("proxy: reading: %v", err)
			}
			return
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "status 0"
	}
	return err.Error()
}

// wireMessage is one recorded line.
type wireMessage struct {
	dir string // toServer or toClient
	raw string
	msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
}

// readTraffic returns the recorded log and its protocol lines.
func readTraffic(path string) (string, []wireMessage) {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no traffic recorded: %v)", err), nil
	}
	var msgs []wireMessage
	for _, line := range strings.Split(string(b), "\n") {
		dir, rest, ok := strings.Cut(line, " ")
		if !ok || (dir != toServer && dir != toClient) {
			continue
		}
		_, raw, _ := strings.Cut(strings.TrimLeft(rest, " "), " ")
		m := wireMessage{dir: dir, raw: raw}
		_ = json.Unmarshal([]byte(raw), &m.msg)
		msgs = append(msgs, m)
	}
	return string(b), msgs
}
