package extract

import (
	"os"
	"strconv"
)

// envFloat is a tuning hook used while measuring; it is removed before release.
func envFloat(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil {
		return v
	}
	return def
}
