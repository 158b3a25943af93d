package mutate

import (
	"reflect"
	"strings"
	"testing"
)

// page wraps a script in the smallest HTML page.
func page(js string) string { return "<html><body>\n<script>\n" + js + "</script>\n</body></html>\n" }

const featureSrc = `const scene = [];
function buildVolcano(h) {
  const lava = { y: h };
  scene.push(lava);
}
const buildDesert = () => {
  scene.push('dune');
};
buildVolcano(3);
if (scene.length) buildDesert();
buildVolcano(5); buildDesert()
function animate() { requestAnimationFrame(animate); }
animate();
`

func TestBuilders(t *testing.T) {
	bs, skipped := Builders([]byte(page(featureSrc)))
	if len(skipped) > 0 {
		t.Fatalf("skipped %v", skipped)
	}
	var got []string
	for _, b := range bs {
		got = append(got, strings.Join([]string{b.Name, joinInts([]int{b.From, b.To, b.BodyFrom, b.BodyTo}), "calls " + joinInts(b.Calls), "refs " + joinInts(b.Refs)}, " "))
	}
	want := []string{
		"buildVolcano 4, 7, 4, 7 calls 11, 13 refs ",
		"buildDesert 8, 10, 8, 10 calls 12, 13 refs ",
		"animate 14, 14, 14, 14 calls 15 refs ",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("builders\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestRemoveEachWay(t *testing.T) {
	for _, tc := range []struct {
		name, how, want, desc string
	}{
		{"buildVolcano", RemoveDelete, `const scene = [];
function buildVolcano(h) {}
const buildDesert = () => {
  scene.push('dune');
};
buildVolcano(3);
if (scene.length) buildDesert();
buildVolcano(5); buildDesert()
function animate() { requestAnimationFrame(animate); }
animate();
`, "delete the body of buildVolcano() (lines 4–7), keep the function and its calls"},
		{"buildVolcano", RemoveDead, `const scene = [];
function buildVolcano(h) {
  const lava = { y: h };
  scene.push(lava);
}
const buildDesert = () => {
  scene.push('dune');
};
if (scene.length) buildDesert();
buildDesert()
function animate() { requestAnimationFrame(animate); }
animate();
`, "buildVolcano() (line 4): delete its call statements (line 11, 13), keep the definition"},
		{"buildDesert", RemoveDead, `const scene = [];
function buildVolcano(h) {
  const lava = { y: h };
  scene.push(lava);
}
const buildDesert = () => {
  scene.push('dune');
};
buildVolcano(3);
if (scene.length) ;
buildVolcano(5);
function animate() { requestAnimationFrame(animate); }
animate();
`, "buildDesert() (line 8): delete its call statements (line 12, 13), keep the definition"},
		{"buildDesert", RemoveDisabled, `const scene = [];
function buildVolcano(h) {
  const lava = { y: h };
  scene.push(lava);
}
const buildDesert = () => {
  scene.push('dune');
};
buildVolcano(3);
if (scene.length) if (false) { buildDesert(); }
buildVolcano(5); if (false) { buildDesert(); }
function animate() { requestAnimationFrame(animate); }
animate();
`, "buildDesert() (line 8): wrap its call statements in if (false) { … } (line 12, 13), keep the definition"},
	} {
		out, desc, err := Remove([]byte(page(featureSrc)), tc.name, tc.how)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.name, tc.how, err)
		}
		if string(out) != page(tc.want) {
			t.Errorf("%s %s:\n%s\nwant\n%s", tc.name, tc.how, out, page(tc.want))
		}
		if desc != tc.desc {
			t.Errorf("%s %s: %q, want %q", tc.name, tc.how, desc, tc.desc)
		}
	}
}

func TestRemoveRefuses(t *testing.T) {
	src := page(`function a() { return 1; }
function b() {}
function c() {}
const x = a();
setTimeout(b, 10);
function e() {}
e();
`) + "<script>function d() { e(); }</script><script>function d() { e(); }</script>\n"
	for _, tc := range []struct{ name, how, err string }{
		{"a", RemoveDead, "a() is used otherwise than by call statements (line 6): it cannot be made dead by its calls alone"},
		{"b", RemoveDisabled, "b() is used otherwise than by call statements (line 7): it cannot be made disabled by its calls alone"},
		{"c", RemoveDead, "c() is never called by a statement: it is dead already"},
		{"zz", RemoveDelete, "no function named zz in the page"},
		{"d", RemoveDelete, "2 functions are named d (lines 12, 12); name one defined once"},
		{"e", RemoveDelete, "e() has an empty body already"},
		{"a", "burn", `unknown removal "burn" (want delete, dead, disabled)`},
	} {
		_, _, err := Remove([]byte(src), tc.name, tc.how)
		if err == nil || err.Error() != tc.err {
			t.Errorf("%s %s: %v, want %q", tc.name, tc.how, err, tc.err)
		}
	}
	// A function the page uses otherwise can still lose its body.
	out, _, err := Remove([]byte(src), "a", RemoveDelete)
	if err != nil || !strings.Contains(string(out), "function a() {}\n") {
		t.Fatalf("delete a: %v\n%s", err, out)
	}
}
