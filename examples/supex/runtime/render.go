package main

import (
	"bufio"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
)

// corners returns the eight corners of an entity's bounding box.
func (e entity) corners() [8][3]float64 {
	var c [8][3]float64
	for i := range 8 {
		for axis := range 3 {
			if i>>axis&1 == 0 {
				c[i][axis] = e.Min[axis]
			} else {
				c[i][axis] = e.Max[axis]
			}
		}
	}
	return c
}

// boxEdges are the pairs of corners joined by the edges of a box.
var boxEdges = [12][2]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}}

// boxFaces are the quads of a box, counter-clockwise seen from outside.
var boxFaces = [6][4]int{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}}

func sub(a, b []float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func dot(a, b [3]float64) float64   { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func unit(a [3]float64) [3]float64 {
	n := math.Sqrt(dot(a, a))
	if n == 0 {
		return a
	}
	return [3]float64{a[0] / n, a[1] / n, a[2] / n}
}

// render draws the wireframe of the bounding boxes of entities seen from
// cam, scaled to fill the picture.
func render(entities []entity, cam camera, w, h int, transparent bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	if !transparent {
		for i := 3; i < len(img.Pix); i += 4 {
			img.Pix[i-3], img.Pix[i-2], img.Pix[i-1], img.Pix[i] = 255, 255, 255, 255
		}
	}
	fwd := unit(sub(cam.Target, cam.Eye))
	right := unit(cross(fwd, [3]float64{cam.Up[0], cam.Up[1], cam.Up[2]}))
	up := cross(right, fwd)
	type pt struct{ x, y float64 }
	var lines [][2]pt
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, e := range entities {
		c := e.corners()
		for _, ed := range boxEdges {
			var seg [2]pt
			for k, idx := range ed {
				p := sub(c[idx][:], cam.Target)
				seg[k] = pt{dot(p, right), dot(p, up)}
				minX, maxX = math.Min(minX, seg[k].x), math.Max(maxX, seg[k].x)
				minY, maxY = math.Min(minY, seg[k].y), math.Max(maxY, seg[k].y)
			}
			lines = append(lines, seg)
		}
	}
	scale := 0.9 * math.Min(float64(w)/math.Max(maxX-minX, 1e-9), float64(h)/math.Max(maxY-minY, 1e-9))
	toPixel := func(p pt) (float64, float64) {
		return float64(w)/2 + (p.x-(minX+maxX)/2)*scale, float64(h)/2 - (p.y-(minY+maxY)/2)*scale
	}
	ink := color.NRGBA{A: 255}
	for _, l := range lines {
		x0, y0 := toPixel(l[0])
		x1, y1 := toPixel(l[1])
		steps := int(math.Max(math.Abs(x1-x0), math.Abs(y1-y0))) + 1
		for s := 0; s <= steps; s++ {
			t := float64(s) / float64(steps)
			img.SetNRGBA(int(x0+(x1-x0)*t), int(y0+(y1-y0)*t), ink)
		}
	}
	return img
}

// writeImage renders entities and writes the picture as PNG, or JPEG
// when jpg is set.
func writeImage(path string, entities []entity, cam camera, w, h int, transparent, jpg bool) error {
	if w <= 0 || h <= 0 || w > 8192 || h > 8192 {
		return fmt.Errorf("image size %dx%d out of range 1..8192", w, h)
	}
	if err := ensureDir(path); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing image: %w", err)
	}
	img := render(entities, cam, w, h, transparent)
	if jpg {
		err = jpeg.Encode(f, img, &jpeg.Options{Quality: 90})
	} else {
		err = png.Encode(f, img)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing image: %w", err)
	}
	return nil
}

// writeMesh writes the entities' bounding boxes as Wavefront OBJ, or as
// ASCII STL when stl is set.
func writeMesh(path string, entities []entity, stl bool) error {
	if err := ensureDir(path); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("exporting: %w", err)
	}
	w := bufio.NewWriter(f)
	if stl {
		fmt.Fprintln(w, "solid supex")
	}
	for n, e := range entities {
		c := e.corners()
		if !stl {
			fmt.Fprintf(w, "o entity_%d\n", e.ID)
			for _, v := range c {
				fmt.Fprintf(w, "v %g %g %g\n", v[0], v[1], v[2])
			}
			for _, q := range boxFaces {
				b := n*8 + 1
				fmt.Fprintf(w, "f %d %d %d %d\n", b+q[0], b+q[1], b+q[2], b+q[3])
			}
			continue
		}
		for _, q := range boxFaces {
			for _, tri := range [2][3]int{{q[0], q[1], q[2]}, {q[0], q[2], q[3]}} {
				a, b, d := c[tri[0]], c[tri[1]], c[tri[2]]
				nrm := unit(cross(sub(b[:], a[:]), sub(d[:], a[:])))
				fmt.Fprintf(w, "facet normal %g %g %g\n outer loop\n", nrm[0], nrm[1], nrm[2])
				for _, v := range [3][3]float64{a, b, d} {
					fmt.Fprintf(w, "  vertex %g %g %g\n", v[0], v[1], v[2])
				}
				fmt.Fprintln(w, " endloop\nendfacet")
			}
		}
	}
	if stl {
		fmt.Fprintln(w, "endsolid supex")
	}
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("exporting: %w", err)
	}
	return nil
}
