package pages

import "encoding/json"

// seriesNames reads the series names of chart options through their JSON form, as the browser
// receives them.
func seriesNames(options map[string]any) ([]string, error) {
	b, err := json.Marshal(options)
	if err != nil {
		return nil, err
	}
	var v struct {
		Series []struct {
			Name string `json:"name"`
		} `json:"series"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	var names []string
	for _, s := range v.Series {
		names = append(names, s.Name)
	}
	return names, nil
}
