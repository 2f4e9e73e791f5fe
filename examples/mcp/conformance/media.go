package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
)

// The media the tools, resources and prompts return, base64-encoded: a
// 1x1 red PNG and a short silent WAV.
var (
	redPixelPNG = base64.StdEncoding.EncodeToString(onePixelPNG(color.RGBA{R: 255, A: 255}))
	silenceWAV  = base64.StdEncoding.EncodeToString(silentWAV(8000, 800))
)

// onePixelPNG encodes an image of one pixel of colour c.
func onePixelPNG(c color.Color) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, c)
	var b bytes.Buffer
	// Encoding to memory fails only on an invalid image, and this one is
	// valid.
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// silentWAV encodes samples of silence at rate as 8-bit mono PCM in a
// RIFF WAVE file.
func silentWAV(rate, samples uint32) []byte {
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + samples))
	b.WriteString("WAVEfmt ")
	le(uint32(16)) // size of the fmt chunk
	le(uint16(1))  // PCM
	le(uint16(1))  // channels
	le(rate)       // sample rate
	le(rate)       // byte rate: rate * channels * bytes per sample
	le(uint16(1))  // block align
	le(uint16(8))  // bits per sample
	b.WriteString("data")
	le(samples)
	b.Write(bytes.Repeat([]byte{0x80}, int(samples))) // 8-bit PCM silence is 128
	return b.Bytes()
}
