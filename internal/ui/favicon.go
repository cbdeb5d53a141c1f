package ui

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"sync"
)

// favicon is the icon, drawn once: three bars of rising height (a queue
// being served) in the header's orange on its navy, as a 32×32 PNG inside
// an ICO container, which every browser reads.
var favicon = sync.OnceValue(func() []byte {
	const n = 32
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	navy, orange := color.NRGBA{0x23, 0x2f, 0x3e, 0xff}, color.NRGBA{0xff, 0x99, 0x00, 0xff}
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			img.Set(x, y, navy)
		}
	}
	for i, h := range []int{10, 17, 24} {
		x0 := 5 + i*8
		for y := n - 4 - h; y < n-4; y++ {
			for x := x0; x < x0+6; x++ {
				img.Set(x, y, orange)
			}
		}
	}
	var pngData bytes.Buffer
	if err := png.Encode(&pngData, img); err != nil {
		panic(err) // encoding an in-memory image cannot fail
	}
	var ico bytes.Buffer
	// ICONDIR: reserved, type 1 (icon), one image.
	_ = binary.Write(&ico, binary.LittleEndian, [3]uint16{0, 1, 1})
	// ICONDIRENTRY: width, height, palette size, reserved, planes, bits per
	// pixel, data size, data offset (6 + 16).
	ico.Write([]byte{n, n, 0, 0})
	_ = binary.Write(&ico, binary.LittleEndian, [2]uint16{1, 32})
	_ = binary.Write(&ico, binary.LittleEndian, [2]uint32{uint32(pngData.Len()), 22})
	ico.Write(pngData.Bytes())
	return ico.Bytes()
})

// Favicon serves the icon (at /favicon.ico and /ui/favicon.ico).
func Favicon() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/x-icon")
		w.Header().Set("Cache-Control", "public, max-age=86400")
		_, _ = w.Write(favicon())
	})
}
