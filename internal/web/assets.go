package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// Assets serves the embedded static files under content-hashed URLs, so they can be cached for a
// year, and gzips each one once at start-up instead of on every request.
type Assets struct {
	files map[string]*asset
}

type asset struct {
	name  string
	hash  string
	ctype string
	raw   []byte
	gz    []byte
}

// LoadAssets reads every file of fsys once, hashing and compressing each for its versioned URL.
func LoadAssets(fsys fs.FS) (*Assets, error) {
	a := &Assets{files: map[string]*asset{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".go") {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		var gz bytes.Buffer
		w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		w.Write(b)
		w.Close()
		ctype := mime.TypeByExtension(path.Ext(p))
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		a.files[p] = &asset{name: p, hash: hex.EncodeToString(sum[:])[:12], ctype: ctype, raw: b, gz: gz.Bytes()}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, need := range []string{"app.css", "app.js", "favicon.svg", "lib/echarts.min.js", "lib/htmx.min.js", "lib/editor.min.js"} {
		if a.files[need] == nil {
			return nil, fmt.Errorf("static asset %s is missing; run scripts/assets.sh (make assets)", need)
		}
	}
	return a, nil
}

// URL is the versioned, site-relative URL of an asset.
func (a *Assets) URL(base, name string) string {
	f := a.files[name]
	return base + "/static/" + f.hash + "/" + name
}

// Serve writes the named asset. A current hash gets a year of immutable caching; a stale one (a
// page cached across an upgrade) still gets the file, but only briefly cached.
func (a *Assets) Serve(w http.ResponseWriter, r *http.Request, hash, name string) bool {
	f := a.files[name]
	if f == nil {
		return false
	}
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("Vary", "Accept-Encoding")
	h.Set("ETag", `"`+f.hash+`"`)
	if hash == f.hash {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=60")
	}
	if ETagMatches(r.Header.Values("If-None-Match"), f.hash) {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	body := f.raw
	if AcceptsGzip(r.Header.Values("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		body = f.gz
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
	return true
}

// Handler handles "GET /static/:hash/*".
func (a *Assets) Handler() echo.HandlerFunc {
	return func(c echo.Context) error {
		if !a.Serve(c.Response(), c.Request(), c.Param("hash"), c.Param("*")) {
			return &Error{Status: http.StatusNotFound, Msg: "no such file"}
		}
		return nil
	}
}

// ETagMatches reports whether an If-None-Match header names the tag: "*", or a list of tags any of
// which is the tag, weak (W/"...") or strong alike, since If-None-Match compares weakly (RFC 9110
// 13.1.2).
func ETagMatches(headers []string, hash string) bool {
	for _, h := range headers {
		for t := range strings.SplitSeq(h, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == `"`+hash+`"` {
				return true
			}
		}
	}
	return false
}

// AcceptsGzip reports whether Accept-Encoding allows gzip: named (or "*") with a q-value above 0.
// An explicit "gzip;q=0" refuses it even when "*" would allow it.
func AcceptsGzip(headers []string) bool {
	gzip, star := -1.0, -1.0
	for _, h := range headers {
		for part := range strings.SplitSeq(h, ",") {
			name, params, _ := strings.Cut(part, ";")
			q := 1.0
			for p := range strings.SplitSeq(params, ";") {
				if v, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(p)), "q="); ok {
					if f, err := strconv.ParseFloat(v, 64); err == nil {
						q = f
					} else {
						q = 0
					}
				}
			}
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "gzip", "x-gzip":
				gzip = q
			case "*":
				star = q
			}
		}
	}
	if gzip >= 0 {
		return gzip > 0
	}
	return star > 0
}

// Hash is the content hash that name's URL carries, or "" when there is no such file.
func (a *Assets) Hash(name string) string {
	if f, ok := a.files[name]; ok {
		return f.hash
	}
	return ""
}
