// Package storetest is the conformance suite of artifactstore.Store: every
// implementation (a folder, an S3-compatible bucket) runs it, as
// store/storetest is for results.
package storetest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/worldprobe/worldprobe/internal/artifactstore"
)

// Run runs the suite; open returns an empty store.
func Run(t *testing.T, open func(t *testing.T) artifactstore.Store) {
	ctx := context.Background()
	put := func(t *testing.T, s artifactstore.Store, name, text string) {
		t.Helper()
		require.NoError(t, s.Put(ctx, name, strings.NewReader(text), int64(len(text))))
	}
	read := func(t *testing.T, s artifactstore.Store, name string) string {
		t.Helper()
		f, err := s.Open(ctx, name)
		require.NoError(t, err)
		defer f.Close()
		b, err := io.ReadAll(f)
		require.NoError(t, err)
		return string(b)
	}

	t.Run("PutOpenReplace", func(t *testing.T) {
		s := open(t)
		put(t, s, "trials/a/result.json", `{"key":"k1"}`)
		require.Equal(t, `{"key":"k1"}`, read(t, s, "trials/a/result.json"))
		put(t, s, "trials/a/result.json", `{"key":"k2","outcome":"ok"}`)
		require.Equal(t, `{"key":"k2","outcome":"ok"}`, read(t, s, "trials/a/result.json"))
		f, err := s.Open(ctx, "trials/a/result.json")
		require.NoError(t, err)
		defer f.Close()
		fi, err := f.Stat()
		require.NoError(t, err)
		require.Equal(t, int64(27), fi.Size())
		require.Equal(t, "result.json", fi.Name())
		require.False(t, fi.IsDir())
		off, err := f.Seek(9, io.SeekStart)
		require.NoError(t, err)
		require.Equal(t, int64(9), off)
		rest, err := io.ReadAll(f)
		require.NoError(t, err)
		require.Equal(t, `2","outcome":"ok"}`, string(rest))
	})

	t.Run("Binary", func(t *testing.T) {
		s := open(t)
		data := make([]byte, 3<<20+17) // past one read buffer
		for i := range data {
			data[i] = byte(i*7 + i>>11)
		}
		require.NoError(t, s.Put(ctx, "trials/v/video.webm", bytes.NewReader(data), int64(len(data))))
		require.Equal(t, string(data), read(t, s, "trials/v/video.webm"))
	})

	t.Run("Missing", func(t *testing.T) {
		s := open(t)
		put(t, s, "trials/a/x.png", "png")
		for _, name := range []string{"trials/a/y.png", "trials/b/x.png", "nothing"} {
			_, err := s.Open(ctx, name)
			require.ErrorIs(t, err, fs.ErrNotExist, name)
		}
		_, err := s.Open(ctx, "trials/a")
		require.ErrorIs(t, err, fs.ErrNotExist, "a folder is not a file")
	})

	t.Run("BadNames", func(t *testing.T) {
		s := open(t)
		for _, name := range []string{"", ".", "../x", "/abs", "a//b", "a/./b", "a/../b", `a\b`, "a/"} {
			require.Error(t, s.Put(ctx, name, strings.NewReader("x"), 1), "%q", name)
			_, err := s.Open(ctx, name)
			require.Error(t, err, "%q", name)
		}
		names, err := s.List(ctx, "")
		require.NoError(t, err)
		require.Empty(t, names, "nothing stored")
	})

	t.Run("ShortPut", func(t *testing.T) {
		s := open(t)
		require.Error(t, s.Put(ctx, "a.txt", strings.NewReader("abc"), 5))
		_, err := s.Open(ctx, "a.txt")
		require.ErrorIs(t, err, fs.ErrNotExist, "a failed put stores nothing")
	})

	t.Run("List", func(t *testing.T) {
		s := open(t)
		for _, n := range []string{"trials/b/trace.jsonl", "trials/a/result.json", "trials/ab/result.json", "report.html", "trials/a/frames/f1.png"} {
			put(t, s, n, n)
		}
		all, err := s.List(ctx, "")
		require.NoError(t, err)
		require.Equal(t, []string{"report.html", "trials/a/frames/f1.png", "trials/a/result.json", "trials/ab/result.json", "trials/b/trace.jsonl"}, all)
		a, err := s.List(ctx, "trials/a")
		require.NoError(t, err)
		require.Equal(t, []string{"trials/a/frames/f1.png", "trials/a/result.json"}, a, "a folder, not a name prefix")
		a2, err := s.List(ctx, "trials/a/")
		require.NoError(t, err)
		require.Equal(t, a, a2)
		none, err := s.List(ctx, "trials/zz")
		require.NoError(t, err)
		require.Empty(t, none)
	})

	t.Run("PutDirAndFS", func(t *testing.T) {
		s := open(t)
		dir := t.TempDir()
		files := map[string]string{"result.json": `{"pass":true}`, "screenshot.png": "\x89PNG", "frames/001.png": "f1"}
		for n, text := range files {
			p := filepath.Join(dir, filepath.FromSlash(n))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		}
		names, err := artifactstore.PutDir(ctx, s, dir, "trials/t1")
		require.NoError(t, err)
		require.Equal(t, []string{"trials/t1/frames/001.png", "trials/t1/result.json", "trials/t1/screenshot.png"}, names)
		fsys := artifactstore.FS(ctx, s)
		for n, text := range files {
			b, err := fs.ReadFile(fsys, "trials/t1/"+n)
			require.NoError(t, err)
			require.Equal(t, text, string(b))
		}
		fi, err := fs.Stat(fsys, "trials/t1/result.json")
		require.NoError(t, err)
		require.Equal(t, int64(13), fi.Size())
		_, err = fs.Stat(fsys, "trials/t1/missing.json")
		require.ErrorIs(t, err, fs.ErrNotExist)
		_, err = fsys.Open("../escape")
		require.ErrorIs(t, err, fs.ErrInvalid)
		entries, err := fs.ReadDir(fsys, "trials/t1")
		require.NoError(t, err)
		var got []string
		for _, e := range entries {
			got = append(got, fmt.Sprintf("%s %v", e.Name(), e.IsDir()))
		}
		require.Equal(t, []string{"frames true", "result.json false", "screenshot.png false"}, got)
		top, err := fs.ReadDir(fsys, ".")
		require.NoError(t, err)
		require.Len(t, top, 1)
		require.Equal(t, "trials", top[0].Name())
		require.True(t, top[0].IsDir())
		_, err = fs.ReadDir(fsys, "trials/none")
		require.ErrorIs(t, err, fs.ErrNotExist)
		sub, err := fs.Sub(fsys, "trials")
		require.NoError(t, err)
		b, err := fs.ReadFile(sub, "t1/result.json")
		require.NoError(t, err)
		require.Equal(t, `{"pass":true}`, string(b))
	})

	t.Run("GetDir", func(t *testing.T) {
		s := open(t)
		files := map[string]string{"run/trials/t1/result.json": `{"pass":true}`, "run/trials/t1/frames/001.png": "f1",
			"run/trials/t10/result.json": "other trial", "run/trials/t2/result.json": "t2"}
		for n, text := range files {
			put(t, s, n, text)
		}
		dir := filepath.Join(t.TempDir(), "t1")
		names, err := artifactstore.GetDir(ctx, s, "run/trials/t1", dir)
		require.NoError(t, err)
		require.Equal(t, []string{"run/trials/t1/frames/001.png", "run/trials/t1/result.json"}, names)
		var got []string
		require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			got = append(got, filepath.ToSlash(rel)+"="+string(b))
			return err
		}))
		require.Equal(t, []string{`frames/001.png=f1`, `result.json={"pass":true}`}, got)
		names, err = artifactstore.GetDir(ctx, s, "run/trials/none", filepath.Join(t.TempDir(), "none"))
		require.NoError(t, err)
		require.Empty(t, names, "nothing below the prefix: nothing copied")
	})

	t.Run("Concurrent", func(t *testing.T) {
		s := open(t)
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for i := range 16 {
			wg.Go(func() {
				text := strings.Repeat(fmt.Sprint(i), 1000+i)
				errs <- s.Put(ctx, fmt.Sprintf("trials/t%02d/result.json", i), strings.NewReader(text), int64(len(text)))
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		names, err := s.List(ctx, "trials")
		require.NoError(t, err)
		require.Len(t, names, 16)
		for i := range 16 {
			require.Equal(t, strings.Repeat(fmt.Sprint(i), 1000+i), read(t, s, fmt.Sprintf("trials/t%02d/result.json", i)))
		}
	})
}
