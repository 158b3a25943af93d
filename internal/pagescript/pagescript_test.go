package pagescript

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestInline(t *testing.T) {
	page := `<html><head><SCRIPT TYPE='Module'>import * as T from 'three';</SCRIPT>
<script src="a.js">ignored()</script><script></script>
<script type="x-shader/x-vertex">void main(){}</script>
<script type=" text/javascript ">let a = 1;</script>
<script>let a = 1;</script></head></html>`
	got := Inline([]byte(page))
	var texts, kinds []string
	for _, s := range got {
		texts = append(texts, page[s.Start:s.End])
		kinds = append(kinds, s.Kind())
	}
	require.Equal(t, []string{"import * as T from 'three';", "void main(){}", "let a = 1;", "let a = 1;"}, texts,
		"src= and empty scripts are left out; the same text twice is found at each place")
	require.Equal(t, []string{"module", "", "classic", "classic"}, kinds)
	require.Equal(t, "x-shader/x-vertex", got[1].Type)
	require.False(t, got[1].JavaScript())
	require.True(t, got[0].JavaScript())
	require.Less(t, got[2].Start, got[3].Start)
}

func TestOffsetComparesAddresses(t *testing.T) {
	buf := []byte("abcabc")
	require.Equal(t, 3, Offset(buf, buf[3:5], 0), "the second ab, not the first")
	require.Equal(t, -1, Offset(buf, []byte("ab"), 0), "a copy is not a sub-slice")
	require.Equal(t, -1, Offset(buf, buf[0:0], 0))
}
