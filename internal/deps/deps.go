// Package deps pins dependencies of experiments being written.
package deps

import (
	_ "github.com/HdrHistogram/hdrhistogram-go"
	_ "github.com/bytedance/sonic"
	_ "github.com/go-json-experiment/json"
	_ "github.com/goccy/go-json"
	_ "github.com/google/pprof/profile"
	_ "github.com/json-iterator/go"
	_ "github.com/mailru/easyjson"
	_ "github.com/segmentio/encoding/json"
	_ "github.com/sony/gobreaker/v2"
	_ "github.com/tidwall/gjson"
	_ "golang.org/x/time/rate"
)
