package quote

import (
	"reflect"
	"testing"
)

const world = `<!doctype html>
<html><head>
<style>
  body { margin: 0 }
  .x { color: red } /* <script>fake()</script> */
</style>
<script src="https://cdn.example/three.js"></script>
<script>
  const GRID = 64;
  function buildDesert(x, z) {
    for (let i = 0; i < 12; i++) placeCactus(x + i, z, 0.07);
  }
  // a comment with http://example.com/path
  const url = "http://example.com/a"; // trailing
</script>
</head><body>
<SCRIPT type="module">
  scene.add(new THREE.Mesh(boxGeo, sandMat));
  if (false) { buildVolcano(); }
</SCRIPT>
</body></html>
`

func TestSourceIsTheScriptsWithoutWhitespace(t *testing.T) {
	s := NewSource(world)
	wantJS := "const GRID = 64;\n  function buildDesert(x, z) {\n    for (let i = 0; i < 12; i++) placeCactus(x + i, z, 0.07);\n  }\n  // a comment with http://example.com/path\n  const url = \"http://example.com/a\"; // trailing\n\nscene.add(new THREE.Mesh(boxGeo, sandMat));\n  if (false) { buildVolcano(); }"
	if s.JS != wantJS {
		t.Fatalf("JS:\n%q\nwant\n%q", s.JS, wantJS)
	}
	if s.S != Normalize(wantJS) {
		t.Fatalf("S: %q", s.S)
	}
	// Each character of S knows its HTML line.
	if s.line[0] != 9 || s.line[len(s.line)-1] != 19 {
		t.Fatalf("lines of S: first %d, last %d", s.line[0], s.line[len(s.line)-1])
	}
	// No script: the style-stripped HTML.
	if s := NewSource("<p>three canvas</p><style>a{}</style>"); s.JS != "<p>three canvas</p>" {
		t.Fatalf("no script: %q", s.JS)
	}
}

func TestCheckWorldBenchRules(t *testing.T) {
	s := NewSource(world)
	cases := []struct {
		name, quote string
		want        Verdict
	}{
		{"too short after whitespace removal", "i ++ ; }", Verdict{Reason: "too_short", Chars: 5}},
		{"exactly 8 characters, present", "GRID=64;", Verdict{Verified: true, How: "whole", Chars: 8, Spans: []Span{{9, 9}}}},
		{"whitespace differs", "const   GRID\t=\n64 ;", Verdict{Verified: true, How: "whole", Chars: 13, Spans: []Span{{9, 9}}}},
		{"across lines, joined", "}\n  // a comment", Verdict{Verified: true, How: "whole", Chars: 11, Spans: []Span{{12, 13}}}},
		{"invented line", "scene.add(new THREE.Mesh(palmGeo, leafMat));", Verdict{Reason: "not_in_source", Chars: 42, Lines: []Line{{Text: "scene.add(new THREE.Mesh(palmGeo, leafMat));", Chars: 42, Prefix: 24, Spans: []Span{{18, 18}}}}, Total: 1}},
		{"garbled tail, single line: 85% prefix", "for (let i = 0; i < 12; i++) placeCactus(x + i, z, 0.07anche);", Verdict{Verified: true, How: "prefix", Chars: 49, Lines: []Line{{Text: "for (let i = 0; i < 12; i++) placeCactus(x + i, z, 0.07anche);", Chars: 49, Prefix: 42, Matched: true, Spans: []Span{{11, 11}}}}}},
		{"4 of 5 lines match: 80% passes", "const GRID = 64;\nfunction buildDesert(x, z) {\nscene.add(new THREE.Mesh(boxGeo, sandMat));\nif (false) { buildVolcano(); }\ninventedHelper(12345678);", Verdict{Verified: true, How: "lines", Chars: 130, Hits: 4, Total: 5}},
		{"3 of 5 lines: refused", "const GRID = 64;\nfunction buildDesert(x, z) {\nscene.add(new THREE.Mesh(boxGeo, sandMat));\ninventedHelperOne(1);\ninventedHelperTwo(2);", Verdict{Reason: "not_in_source", Chars: 121, Hits: 3, Total: 5}},
		{"short lines do not count", "const GRID = 64;\n}\ni++;\nfunction buildDesert(x, z) {", Verdict{Verified: true, How: "lines", Chars: 43, Hits: 2, Total: 2}},
		{"comment cut: // splits lines", "const url = \"http://example.com/a\"; // trailing\nnotInTheSource(1, 2, 3);", Verdict{Reason: "not_in_source", Chars: 64, Hits: 1, Total: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := s.Check(c.quote, WorldBench)
			// Compare the fields each case pins; lines only when given.
			if c.want.How == "lines" || c.want.Total > 0 && c.want.Lines == nil {
				got.Lines = nil
			}
			if c.want.Spans == nil && c.want.How == "whole" {
				got.Spans = nil
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestCommentCutTruncatesURLs(t *testing.T) {
	// WorldBench cuts each line at its first "//", URLs in strings
	// included: the line below keeps `consturl="http:` (15 characters),
	// which is in the source, so a made-up URL still matches.
	s := NewSource(world)
	v := s.Check("const url = \"http://nowhere\";\nfunction buildDesert(x, z) {", WorldBench)
	if !v.Verified || v.How != "lines" || v.Hits != 2 || v.Lines[0].Text != "const url = \"http:" {
		t.Fatalf("%+v", v)
	}
}

func TestPythonWhitespaceAndLines(t *testing.T) {
	if got := Normalize("a\u00a0b\u2028c\x1fd\ve"); got != "abcde" {
		t.Fatalf("normalize %q", got)
	}
	if got := SplitLines("a\r\nb\rc\x1dd\u2029e\n"); !reflect.DeepEqual(got, []string{"a", "b", "c", "d", "e"}) {
		t.Fatalf("split %q", got)
	}
	// Runes, not bytes: 8 characters of é are enough.
	s := NewSource("<script>const é = 'éééééééé';</script>")
	if v := s.Check("éééééééé", WorldBench); !v.Verified || v.Chars != 8 {
		t.Fatalf("%+v", v)
	}
	if v := s.Check("ééééééé", WorldBench); v.Verified || v.Reason != "too_short" {
		t.Fatalf("%+v", v)
	}
}
