package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/rpcgen/rpcgen/generated/supex"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// entity is one top-level entity of the stand-in model.
type entity struct {
	ID     int64     `json:"id"`
	Type   string    `json:"type"` // Face, Edge, Group or ComponentInstance
	Name   string    `json:"name,omitempty"`
	Layer  string    `json:"layer"`
	Area   float64   `json:"area,omitempty"`   // faces, square inches
	Length float64   `json:"length,omitempty"` // edges, inches
	Normal []float64 `json:"normal,omitempty"` // faces
	Min    []float64 `json:"min"`              // bounding box corners
	Max    []float64 `json:"max"`
}

// camera is the stand-in's active camera.
type camera struct {
	Eye         []float64 `json:"eye"`
	Target      []float64 `json:"target"`
	Up          []float64 `json:"up"`
	FOV         float64   `json:"fov"`
	AspectRatio float64   `json:"aspect_ratio"`
	Perspective bool      `json:"perspective"`
}

// model is an in-memory stand-in for the SketchUp model. Its .skp files
// are JSON snapshots of this struct, so open_model reads what save_model
// wrote.
type model struct {
	Title     string           `json:"title"`
	Units     supex.Units      `json:"units"`
	Entities  []entity         `json:"entities"`
	Selection []int64          `json:"selection"`
	Layers    []supex.Layer    `json:"layers"`
	Materials []supex.Material `json:"materials"`
	Camera    camera           `json:"camera"`

	path     string // file the model was opened from or saved to
	modified bool
}

const inchesPerMeter = 39.37

// newModel returns the sample model the runtime starts with: a 1 m box
// group, a chair component, and a square 1 m face with its four edges.
func newModel() *model {
	m := inchesPerMeter
	red := supex.Color{Red: 200, Green: 30, Blue: 30, Alpha: 1}
	return &model{
		Units: supex.UnitsMeters,
		Entities: []entity{
			{ID: 1001, Type: "Group", Name: "Box", Layer: "Layer0", Min: []float64{0, 0, 0}, Max: []float64{m, m, m}},
			{ID: 1002, Type: "ComponentInstance", Name: "Chair", Layer: "Furniture", Min: []float64{2 * m, 0, 0}, Max: []float64{2.5 * m, 0.5 * m, m}},
			{ID: 1003, Type: "Face", Layer: "Layer0", Area: m * m, Normal: []float64{0, 0, 1}, Min: []float64{0, -2 * m, 0}, Max: []float64{m, -m, 0}},
			{ID: 1004, Type: "Edge", Layer: "Layer0", Length: m, Min: []float64{0, -2 * m, 0}, Max: []float64{m, -2 * m, 0}},
			{ID: 1005, Type: "Edge", Layer: "Layer0", Length: m, Min: []float64{m, -2 * m, 0}, Max: []float64{m, -m, 0}},
			{ID: 1006, Type: "Edge", Layer: "Layer0", Length: m, Min: []float64{0, -m, 0}, Max: []float64{m, -m, 0}},
			{ID: 1007, Type: "Edge", Layer: "Layer0", Length: m, Min: []float64{0, -2 * m, 0}, Max: []float64{0, -m, 0}},
		},
		Selection: []int64{1001, 1003},
		Layers: []supex.Layer{
			{Name: "Layer0", Visible: true},
			{Name: "Furniture", Visible: true},
		},
		Materials: []supex.Material{
			{Name: "Brick_Red", DisplayName: "Brick Red", Color: &red},
			{Name: "Wood_Oak", DisplayName: "Wood Oak", Textured: true},
		},
		Camera: camera{
			Eye: []float64{-200, -300, 200}, Target: []float64{20, 0, 20}, Up: []float64{0, 0, 1},
			FOV: 35, Perspective: true,
		},
	}
}

// title is the model's title as get_model_info reports it.
func (md *model) title() string {
	if md.Title == "" {
		return "Untitled"
	}
	return md.Title
}

// find returns the entity with the given id.
func (md *model) find(id int64) (*entity, bool) {
	for i := range md.Entities {
		if md.Entities[i].ID == id {
			return &md.Entities[i], true
		}
	}
	return nil, false
}

// count returns how many top-level entities have the given type.
func (md *model) count(typ string) int64 {
	var n int64
	for _, e := range md.Entities {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// filter returns the entities list_entities reports for f.
func (md *model) filter(f supex.EntityFilter) []entity {
	want := map[supex.EntityFilter]string{
		supex.EntityFilterFaces: "Face", supex.EntityFilterEdges: "Edge",
		supex.EntityFilterGroups: "Group", supex.EntityFilterComponents: "ComponentInstance",
	}[f]
	var out []entity
	for _, e := range md.Entities {
		if want == "" || e.Type == want {
			out = append(out, e)
		}
	}
	return out
}

// bounds returns the box around the given entities (all when ids is empty).
func (md *model) bounds(ids []int64) (lo, hi []float64, ok bool) {
	lo = []float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = []float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, e := range md.Entities {
		if len(ids) > 0 && !contains(ids, e.ID) {
			continue
		}
		for i := range 3 {
			lo[i] = math.Min(lo[i], e.Min[i])
			hi[i] = math.Max(hi[i], e.Max[i])
		}
		ok = true
	}
	return lo, hi, ok
}

func contains(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// save writes the model as a JSON snapshot to path.
func (md *model) save(path string) error {
	b, err := json.MarshalIndent(md, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding model: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("saving model: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving model: %w", err)
	}
	md.path, md.modified = path, false
	if md.Title == "" {
		md.Title = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return nil
}

// loadModel reads a model snapshot written by save.
func loadModel(path string) (*model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("opening model: %w", err)
	}
	md := &model{}
	if err := json.Unmarshal(b, md); err != nil {
		// Not err: a syntax error quotes the file's bytes.
		return nil, fmt.Errorf("%s is not a model this runtime wrote", jsonrpc.Truncate(filepath.Base(path)))
	}
	md.path = path
	if md.Title == "" {
		md.Title = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return md, nil
}
