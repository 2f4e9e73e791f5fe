package main

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/rpcgen/rpcgen/generated/supex"
)

// standardViews gives the viewing direction and up vector of each view.
var standardViews = map[supex.StandardView][2][3]float64{
	supex.StandardViewTop:    {{0, 0, -1}, {0, 1, 0}},
	supex.StandardViewBottom: {{0, 0, 1}, {0, -1, 0}},
	supex.StandardViewFront:  {{0, 1, 0}, {0, 0, 1}},
	supex.StandardViewBack:   {{0, -1, 0}, {0, 0, 1}},
	supex.StandardViewLeft:   {{1, 0, 0}, {0, 0, 1}},
	supex.StandardViewRight:  {{-1, 0, 0}, {0, 0, 1}},
	supex.StandardViewIso:    {{-1, -1, -1}, {0, 0, 1}},
}

// lookAt places a camera looking along dir at the centre of the box.
func lookAt(lo, hi []float64, dir, up [3]float64, cur camera) camera {
	center := make([]float64, 3)
	size := 0.0
	for i := range 3 {
		center[i] = (lo[i] + hi[i]) / 2
		size = max(size, hi[i]-lo[i])
	}
	d := unit(dir)
	eye := []float64{center[0] - d[0]*3*size, center[1] - d[1]*3*size, center[2] - d[2]*3*size}
	return camera{Eye: eye, Target: center, Up: up[:], FOV: cur.FOV, Perspective: cur.Perspective}
}

// placeCamera returns the camera a shot asks for.
func placeCamera(md *model, spec *supex.CameraSpec) (camera, error) {
	cur := md.Camera
	if spec == nil {
		spec = &supex.CameraSpec{}
	}
	switch cmp.Or(spec.Type, supex.CameraKindStandardView) {
	case supex.CameraKindStandardView:
		view := cmp.Or(spec.View, supex.StandardViewIso)
		v, ok := standardViews[view]
		if !ok {
			return cur, fmt.Errorf("unknown standard view: %s", view)
		}
		lo, hi, _ := md.bounds(nil)
		return lookAt(lo, hi, v[0], v[1], cur), nil
	case supex.CameraKindCustom:
		if len(spec.Eye) != 3 || len(spec.Target) != 3 {
			return cur, errors.New("a custom camera needs eye and target as [x, y, z]")
		}
		c := camera{Eye: spec.Eye, Target: spec.Target, Up: []float64{0, 0, 1},
			FOV: deref(spec.Fov, 35), Perspective: deref(spec.Perspective, true)}
		if len(spec.Up) == 3 {
			c.Up = spec.Up
		}
		return c, nil
	case supex.CameraKindZoomEntity:
		for _, id := range spec.EntityIDs {
			if _, ok := md.find(id); !ok {
				return cur, fmt.Errorf("no valid entities found for ids %v", spec.EntityIDs)
			}
		}
		lo, hi, ok := md.bounds(spec.EntityIDs)
		if len(spec.EntityIDs) == 0 || !ok {
			return cur, errors.New("zoom_entity needs entity_ids")
		}
		dir := sub(cur.Target, cur.Eye)
		return lookAt(lo, hi, dir, [3]float64{cur.Up[0], cur.Up[1], cur.Up[2]}, cur), nil
	}
	return cur, fmt.Errorf("unknown camera type: %s", spec.Type)
}

// shoot takes one shot of a batch.
func (t tools) shoot(md *model, shot supex.Shot, path string, w, h int64, transparent bool) error {
	cam, err := placeCamera(md, shot.Camera)
	if err != nil {
		return err
	}
	entities := md.Entities
	if shot.Isolate != nil {
		e, ok := md.find(*shot.Isolate)
		if !ok {
			return fmt.Errorf("entity not found for isolation: %d", *shot.Isolate)
		}
		if e.Type != "Group" && e.Type != "ComponentInstance" {
			return fmt.Errorf("can only isolate a Group or ComponentInstance, got %s", e.Type)
		}
		entities = []entity{*e}
	}
	md.Camera = cam
	return writeImage(path, entities, cam, int(deref(shot.Width, w)), int(deref(shot.Height, h)), transparent, false)
}

func (t tools) batch(args []byte) (any, error) {
	var a supex.BatchScreenshotArguments
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	if len(a.Shots) == 0 {
		return failed("No shots specified"), nil
	}
	dir := filepath.Join(t.outDir, "batch_screenshots", stamp())
	if a.OutputDir != "" {
		dir, _ = filepath.Abs(a.OutputDir)
	}
	if err := t.policy.check("take_batch_screenshots", dir); err != nil {
		return nil, err
	}
	md := t.st.model
	original := md.Camera
	base := deref(a.BaseName, "screenshot")
	w, h, transparent := deref(a.Width, 1920), deref(a.Height, 1080), a.Transparent
	res := supex.BatchScreenshotResult{OutputDir: dir, Results: []supex.ShotResult{}}
	for i, shot := range a.Shots {
		name := cmp.Or(shot.Name, fmt.Sprintf("%03d", i))
		path := filepath.Join(dir, base+"_"+name+".png")
		r := supex.ShotResult{Success: true, Name: name, FilePath: path}
		// A shot's name may hold "..": its path is checked too.
		err := t.policy.check("take_batch_screenshots", path)
		if err == nil {
			err = t.shoot(md, shot, path, w, h, transparent)
		}
		if err != nil {
			msg := err.Error()
			r = supex.ShotResult{Success: false, Name: name, Error: msg}
			res.Failed++
		} else {
			res.Successful++
		}
		res.Results = append(res.Results, r)
	}
	if deref(a.RestoreCamera, true) {
		md.Camera = original
	}
	res.TotalShots = int64(len(a.Shots))
	res.Success = res.Failed == 0
	return res, nil
}
