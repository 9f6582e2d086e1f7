package pages

import "effectivelyonce/content"

// Neighbours returns the previous and next pages of path in reading order (content.Contents()),
// as links under site's base path; nil where there is none.
func Neighbours(site Site, path string) (prev, next *Link) {
	all := content.Contents()
	for i, p := range all {
		if p.Path != path {
			continue
		}
		if i > 0 {
			prev = &Link{Title: all[i-1].Nav, URL: site.URL(all[i-1].Path)}
		}
		if i+1 < len(all) {
			next = &Link{Title: all[i+1].Nav, URL: site.URL(all[i+1].Path)}
		}
		return prev, next
	}
	return nil, nil
}

// OnceEach drops repeated experiment markers: an element id must be unique on a page, and a
// second copy of the same form would only confuse.
func OnceEach(page *content.Page) *content.Page {
	seen := map[string]bool{}
	out := *page
	out.Parts = nil
	for _, part := range page.Parts {
		if part.Marker == content.MarkerExperiment {
			if seen[part.Name()] {
				continue
			}
			seen[part.Name()] = true
		}
		out.Parts = append(out.Parts, part)
	}
	return &out
}
