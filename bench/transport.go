package bench

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
)

// transport creates a connected pair of byte streams.
type transport struct {
	// name is the value of transport= in benchmark names.
	name string
	// pair returns the client's and the server's ends of a new connection.
	pair func() (client, server io.ReadWriteCloser, err error)
}

// transports lists every transport, in benchmark order.
var transports = []transport{
	{name: "pipe", pair: netPipe},
	{name: "ospipe", pair: osPipes},
	{name: "tcp", pair: loopbackTCP},
}

// netPipe is an in-memory, unbuffered net.Pipe.
func netPipe() (io.ReadWriteCloser, io.ReadWriteCloser, error) {
	c, s := net.Pipe()
	return c, s, nil
}

// filePair is one end of a connection made of two OS pipes.
type filePair struct {
	r *os.File
	w *os.File
}

func (p filePair) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p filePair) Write(b []byte) (int, error) { return p.w.Write(b) }

// Close closes both pipes of this end.
func (p filePair) Close() error {
	return errors.Join(p.w.Close(), p.r.Close())
}

// osPipes connects two ends with a pair of os.Pipe, one per direction.
func osPipes() (io.ReadWriteCloser, io.ReadWriteCloser, error) {
	r1, w1, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("os pipe: %w", err)
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		r1.Close()
		w1.Close()
		return nil, nil, fmt.Errorf("os pipe: %w", err)
	}
	return filePair{r: r1, w: w2}, filePair{r: r2, w: w1}, nil
}

// loopbackTCP connects two ends over a TCP connection on 127.0.0.1.
func loopbackTCP() (io.ReadWriteCloser, io.ReadWriteCloser, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("listen on loopback: %w", err)
	}
	defer ln.Close()
	type accepted struct {
		c   net.Conn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		ch <- accepted{c, err}
	}()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		ln.Close()
		<-ch
		return nil, nil, fmt.Errorf("dial loopback: %w", err)
	}
	a := <-ch
	if a.err != nil {
		client.Close()
		return nil, nil, fmt.Errorf("accept on loopback: %w", a.err)
	}
	return client, a.c, nil
}

// closeAll closes streams, ignoring errors.
func closeAll(cs ...io.Closer) {
	for _, c := range cs {
		c.Close()
	}
}
