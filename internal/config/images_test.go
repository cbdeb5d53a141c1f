package config

import (
	"reflect"
	"strings"
	"testing"
)

const imagesBase = `
nodeGroups: [{name: g5, instanceType: ml.g5.12xlarge, count: 1}]
teams: [{name: a, quotas: [{instanceType: ml.g5.12xlarge, count: 1}]}]
`

// TestClusterImagesSection: the images section maps an image to a local
// entrypoint. A good one loads as written; each bad one is refused at load
// with the image, the problem and the fix (an empty argv, an empty
// program, a duplicate image, a value of the wrong kind, a key that is not
// an image reference, one too long), all problems at once.
func TestClusterImagesSection(t *testing.T) {
	c, err := LoadCluster(writeFile(t, imagesBase+`images:
  pytorch/pytorch:latest: [python3, /opt/train/main.py]
  registry.example:5000/team/train@sha256:abc: [/usr/local/bin/train]
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"pytorch/pytorch:latest": {"python3", "/opt/train/main.py"}, "registry.example:5000/team/train@sha256:abc": {"/usr/local/bin/train"}}
	if !reflect.DeepEqual(c.Images, want) {
		t.Fatalf("images %v, want %v", c.Images, want)
	}

	for _, tc := range []struct {
		name, images string
		want         []string
	}{
		{"empty argv", `{a: []}`, []string{`images["a"]: is empty; give the program to run and its arguments`}},
		{"empty program", `{a: [""]}`, []string{`images["a"]: its first element (the program) is empty; start with the program to run`}},
		{"NUL in an argument", `{a: [sh, "x\0y"]}`, []string{`images["a"]: argument 1 contains a NUL byte`}},
		{"duplicate image", "\n  a: [x]\n  b: [y]\n  a: [z]", []string{`mapping key "a" already defined at line`}},
		{"a string, not a list", `{a: "python3 train.py"}`, []string{"images.a must be a list", `not "python3 train.py"`}},
		{"a list of lists", `{a: [[x]]}`, []string{"images.a[0] must be"}},
		{"a list, not a map", `[a, b]`, []string{"images must be a map"}},
		{"a space in the image", `{"a b": [x]}`, []string{`images["a b"]: the image holds a space or a control character; key each entry by an image reference`}},
		{"an empty image", `{"": [x]}`, []string{`images[""]: the image is empty`}},
		{"an enormous image", `{` + strings.Repeat("i", 600) + `: [x]}`, []string{`: the image is 600 characters long; key each entry by an image reference of at most 512 characters`}},
		{"several at once", `{a: [], b: [""]}`, []string{`images["a"]: is empty`, `images["b"]: its first element`}},
	} {
		_, err := LoadCluster(writeFile(t, imagesBase+"images: "+tc.images+"\n"))
		if err == nil {
			t.Errorf("%s: loaded", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error does not say %q:\n%v", tc.name, w, err)
			}
		}
		if len(err.Error()) > 2000 {
			t.Errorf("%s: the error is %d bytes long", tc.name, len(err.Error()))
		}
	}
}
